//! Search states: a position plus spare moves (SPEC section 2), with actions.

use crate::geometry::{Geometry, Key};
use crate::pos::Pos;
use amazons_format::{Action, Color, Position};

/// A position plus `spare` spare moves: `> 0` Black holds them, `< 0` White does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    pub pos: Pos,
    pub spare: i32,
}

impl State {
    /// A whole-board state (no spare moves).
    pub fn new(pos: Pos) -> State {
        State { pos, spare: 0 }
    }

    pub fn from_position(p: &Position, spare: i32) -> State {
        State {
            pos: Pos::from_position(p),
            spare,
        }
    }

    #[inline]
    pub fn side(&self) -> Color {
        self.pos.side
    }

    /// Spare moves held by `c`.
    #[inline]
    pub fn spares_of(&self, c: Color) -> u32 {
        match c {
            Color::Black => self.spare.max(0) as u32,
            Color::White => (-self.spare).max(0) as u32,
        }
    }

    /// Whether `c` has any action (board move or spare move).
    #[inline]
    pub fn can_act(&self, g: &Geometry, c: Color) -> bool {
        self.spares_of(c) > 0 || self.pos.can_move(g, c)
    }

    /// Actions of the side to move in canonical order: board moves, then `Spare`.
    pub fn actions(&self, g: &Geometry) -> Vec<Action> {
        let mut v = Vec::with_capacity(128);
        self.pos.for_each_move(g, |m| v.push(Action::Board(m)));
        if self.spares_of(self.side()) > 0 {
            v.push(Action::Spare);
        }
        v
    }

    /// The state after an action of the side to move (assumed legal).
    #[inline]
    pub fn play(&self, a: Action) -> State {
        match a {
            Action::Board(m) => State {
                pos: self.pos.play(m),
                spare: self.spare,
            },
            Action::Spare => {
                let mut pos = self.pos;
                pos.side = pos.side.opponent();
                let spare = match self.side() {
                    Color::Black => self.spare - 1,
                    Color::White => self.spare + 1,
                };
                State { pos, spare }
            }
        }
    }

    /// The key mixed into the position's Zobrist key for the spare count.
    #[inline]
    pub fn spare_key(spare: i32) -> Key {
        if spare == 0 {
            0
        } else {
            let x = spare as i64 as u64 ^ 0xA5A5_5A5A_0F0F_F0F0;
            let hi = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let lo = (x ^ 0x3C3C_C3C3_6969_9696).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            (hi as Key) << 64 | lo as Key
        }
    }

    /// Hash key of the state.
    pub fn key(&self, g: &Geometry) -> Key {
        self.pos.key(g) ^ Self::spare_key(self.spare)
    }

    pub fn to_position(&self, g: &Geometry) -> Position {
        self.pos.to_position(g)
    }
}
