//! The basic partition as the checker sees it (SPEC 5.5): live components and local states.

use crate::bitboard::Bb;
use crate::geometry::Geometry;
use crate::pos::Pos;
use crate::state::State;
use amazons_format::Color;

/// The live components of the basic partition (8-connected non-arrow squares with at
/// least one queen and one empty square), ordered by their smallest square.
pub fn live_components(g: &Geometry, pos: &Pos) -> Vec<Bb> {
    let open = g.all - pos.arrows;
    let queens = pos.white | pos.black;
    let empty = pos.empty(g);
    let mut rest = open;
    let mut out = Vec::new();
    while let Some(sq) = rest.first() {
        let comp = g.flood(Bb::from_square(sq), open);
        rest = rest - comp;
        if (comp & queens).any() && (comp & empty).any() {
            out.push(comp);
        }
    }
    out
}

/// The local position of a component: every square outside it becomes an arrow.
pub fn restrict(g: &Geometry, pos: &Pos, comp: Bb) -> Pos {
    Pos {
        white: pos.white & comp,
        black: pos.black & comp,
        arrows: pos.arrows | (g.all - comp),
        side: pos.side,
    }
}

/// The local state of SPEC 5.5 for winner `x`: the local position with `to_move`, the
/// loser Y holding `bound` spare moves (X holding `-bound` if negative).
pub fn local_state(local: &Pos, x: Color, bound: i32, to_move: Color) -> State {
    let mut pos = *local;
    pos.side = to_move;
    let spare = match x.opponent() {
        Color::Black => bound,
        Color::White => -bound,
    };
    State { pos, spare }
}
