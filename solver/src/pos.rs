//! The fast position: three bitboards and the side to move, with move generation.

use crate::bitboard::Bb;
use crate::geometry::Geometry;
use amazons_format::{Cell, Color, Move, Position};

/// A position as bitboards. Copy-make: playing a move returns a new value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pos {
    pub white: Bb,
    pub black: Bb,
    pub arrows: Bb,
    pub side: Color,
}

impl Pos {
    /// Converts from the shared representation.
    pub fn from_position(p: &Position) -> Pos {
        let mut pos = Pos {
            white: Bb::EMPTY,
            black: Bb::EMPTY,
            arrows: Bb::EMPTY,
            side: p.to_move,
        };
        for (sq, cell) in p.cells.iter().enumerate() {
            let b = Bb::from_square(sq as u8);
            match cell {
                Cell::White => pos.white |= b,
                Cell::Black => pos.black |= b,
                Cell::Arrow => pos.arrows |= b,
                Cell::Empty => {}
            }
        }
        pos
    }

    /// Converts to the shared representation.
    pub fn to_position(&self, g: &Geometry) -> Position {
        let mut p = Position::empty(g.board, self.side);
        for sq in 0..g.len as u8 {
            p.cells[sq as usize] = if self.white.has(sq) {
                Cell::White
            } else if self.black.has(sq) {
                Cell::Black
            } else if self.arrows.has(sq) {
                Cell::Arrow
            } else {
                Cell::Empty
            };
        }
        p
    }

    #[inline]
    pub fn queens(&self, c: Color) -> Bb {
        match c {
            Color::White => self.white,
            Color::Black => self.black,
        }
    }

    #[inline]
    pub fn occupied(&self) -> Bb {
        self.white | self.black | self.arrows
    }

    #[inline]
    pub fn empty(&self, g: &Geometry) -> Bb {
        g.all - self.occupied()
    }

    /// Zobrist key of the position including the side to move.
    pub fn key(&self, g: &Geometry) -> crate::geometry::Key {
        let mut k = if self.side == Color::Black {
            g.zobrist_black_to_move
        } else {
            0
        };
        for sq in self.white.iter() {
            k ^= g.zobrist(sq, 0);
        }
        for sq in self.black.iter() {
            k ^= g.zobrist(sq, 1);
        }
        for sq in self.arrows.iter() {
            k ^= g.zobrist(sq, 2);
        }
        k
    }

    /// The liberties of `color`: empty squares 8-adjacent to its queens (a mobility
    /// measure; the move-ordering key of the search, see [`OpponentLiberties`]).
    pub fn liberties(&self, g: &Geometry, color: Color) -> u32 {
        (g.dilate(self.queens(color)) & self.empty(g)).count()
    }

    /// Whether `color` has a legal move: some queen with an empty neighbour (it can step
    /// there and shoot back).
    #[inline]
    pub fn can_move(&self, g: &Geometry, color: Color) -> bool {
        (g.dilate(self.queens(color)) & self.empty(g)).any()
    }

    /// Plays a move of the side to move (assumed legal).
    #[inline]
    pub fn play(&self, m: Move) -> Pos {
        let mut p = *self;
        let flip = Bb::from_square(m.from) | Bb::from_square(m.to);
        match p.side {
            Color::White => p.white = p.white ^ flip,
            Color::Black => p.black = p.black ^ flip,
        }
        p.arrows |= Bb::from_square(m.arrow);
        p.side = p.side.opponent();
        p
    }

    /// Calls `f` for every legal move of the side to move, in canonical order
    /// (ascending from, to, arrow).
    #[inline]
    pub fn for_each_move(&self, g: &Geometry, mut f: impl FnMut(Move)) {
        let occ = self.occupied();
        for from in self.queens(self.side).iter() {
            let lifted = occ - Bb::from_square(from);
            for to in g.queen_attacks(from, occ).iter() {
                let arrows = g.queen_attacks(to, lifted | Bb::from_square(to));
                for arrow in arrows.iter() {
                    f(Move { from, to, arrow });
                }
            }
        }
    }

    /// All legal moves of the side to move, in canonical order.
    pub fn moves(&self, g: &Geometry) -> Vec<Move> {
        let mut v = Vec::with_capacity(256);
        self.for_each_move(g, |m| v.push(m));
        v
    }

    /// Number of legal moves of the side to move (without listing them).
    #[inline]
    pub fn count_moves(&self, g: &Geometry) -> u64 {
        let occ = self.occupied();
        let mut n = 0u64;
        for from in self.queens(self.side).iter() {
            let lifted = occ - Bb::from_square(from);
            for to in g.queen_attacks(from, occ).iter() {
                n += g.queen_attacks(to, lifted | Bb::from_square(to)).count() as u64;
            }
        }
        n
    }

    /// Whether `m` is legal for the side to move.
    pub fn is_legal(&self, g: &Geometry, m: Move) -> bool {
        if m.from as u32 >= g.len || m.to as u32 >= g.len || m.arrow as u32 >= g.len {
            return false;
        }
        if !self.queens(self.side).has(m.from) {
            return false;
        }
        let occ = self.occupied();
        if !g.queen_attacks(m.from, occ).has(m.to) {
            return false;
        }
        let lifted = (occ - Bb::from_square(m.from)) | Bb::from_square(m.to);
        g.queen_attacks(m.to, lifted).has(m.arrow)
    }
}

/// Number of leaves of the move tree of the given depth (bulk-counted at the last ply).
pub fn perft(g: &Geometry, pos: &Pos, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_moves(g),
        _ => {
            let mut n = 0;
            pos.for_each_move(g, |m| n += perft(g, &pos.play(m), depth - 1));
            n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(name: &str) -> (Geometry, Pos) {
        let p = Position::start(name).unwrap();
        (Geometry::new(p.board), Pos::from_position(&p))
    }

    #[test]
    fn paper_move_counts() {
        let (g, p) = start("5x6");
        assert_eq!(perft(&g, &p, 1), 410);
        let m = Move::parse(g.board, "b1-b4xd4").unwrap();
        assert!(p.is_legal(&g, m));
        assert_eq!(p.play(m).count_moves(&g), 157);
        let (g, p) = start("6x4");
        assert_eq!(perft(&g, &p, 1), 256);
        let (g, p) = start("standard");
        assert_eq!(perft(&g, &p, 1), 2176);
    }

    #[test]
    fn conversion_round_trips() {
        let (g, p) = start("5x4");
        let q = Position::start("5x4").unwrap();
        assert_eq!(p.to_position(&g), q);
        let moves = p.moves(&g);
        assert!(moves.windows(2).all(|w| w[0] < w[1]), "canonical order");
        assert_eq!(moves.len() as u64, p.count_moves(&g));
    }
}

/// The opponent's liberties after each move of the side to move, in a few bit operations
/// per move: a move empties `from` and fills `to` and the arrow square, and leaves the
/// opponent's queens where they are.
#[derive(Debug, Clone, Copy)]
pub struct OpponentLiberties {
    /// The opponent's queens and their neighbours.
    near: Bb,
    /// The opponent's liberties now.
    libs: Bb,
}

impl OpponentLiberties {
    pub fn new(g: &Geometry, pos: &Pos) -> OpponentLiberties {
        let near = g.dilate(pos.queens(pos.side.opponent()));
        OpponentLiberties {
            near,
            libs: near & pos.empty(g),
        }
    }

    /// The opponent's liberties now.
    pub fn count(&self) -> u32 {
        self.libs.count()
    }

    /// `pos.play(m).liberties(g, opponent)` for a legal move `m` of `pos`.
    #[inline]
    pub fn after(&self, m: Move) -> u32 {
        let freed = self.near & Bb::from_square(m.from);
        let gone = Bb::from_square(m.to) | Bb::from_square(m.arrow);
        ((self.libs | freed) - gone).count()
    }
}
