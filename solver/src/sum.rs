//! The parts of a sum as the checker sees them (SPEC 5.5): local positions and local states of the live components ([`crate::eval::partition::basic_partition`]).

use crate::bitboard::Bb;
use crate::geometry::Geometry;
use crate::pos::Pos;
use crate::state::State;
use amazons_format::Color;

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
