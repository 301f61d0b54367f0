//! Bitboard form of a small Amazons area (queens, arrows, precomputed rays): the positions of a follower search and the key of the store's area cache.

use crate::error::CgtError;
use amazons_format::{Board, Cell, Position, Square};

/// The eight queen directions.
pub(crate) const DIRS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 0),
    (0, 1),
    (0, -1),
    (1, 1),
    (1, -1),
    (-1, 1),
    (-1, -1),
];

/// Bitboard form of an area: queens of each colour and blocked squares (arrows), plus the
/// precomputed rays of the board. Used for the (many) positions of a follower search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Bits {
    black: u128,
    white: u128,
    arrows: u128,
}

pub(crate) struct Rays {
    /// `rays[sq]` = the eight rays from `sq`, each a list of squares in order.
    rays: Vec<Vec<Vec<u8>>>,
    /// `neighbors[sq]` = the (up to eight) adjacent squares as a mask.
    neighbors: Vec<u128>,
    /// All squares of the board.
    full: u128,
}

impl Rays {
    pub(crate) fn new(board: Board) -> Rays {
        let (w, h) = (board.width as i32, board.height as i32);
        let mut rays = Vec::with_capacity(board.len());
        for sq in 0..board.len() {
            let (x0, y0) = board.coords(sq as Square);
            let mut dirs = Vec::new();
            for (dx, dy) in DIRS {
                let mut ray = Vec::new();
                let (mut x, mut y) = (x0 as i32 + dx, y0 as i32 + dy);
                while x >= 0 && y >= 0 && x < w && y < h {
                    ray.push(board.square(x as usize, y as usize));
                    x += dx;
                    y += dy;
                }
                if !ray.is_empty() {
                    dirs.push(ray);
                }
            }
            rays.push(dirs);
        }
        let neighbors = rays
            .iter()
            .map(|dirs| dirs.iter().fold(0u128, |m, ray| m | (1u128 << ray[0])))
            .collect();
        let full = if board.len() >= 128 {
            u128::MAX
        } else {
            (1u128 << board.len()) - 1
        };
        Rays {
            rays,
            neighbors,
            full,
        }
    }

    /// Splits a position into its live areas (8-connected groups of queens and empty
    /// squares holding at least one queen and one empty square); everything else becomes
    /// an arrow. Returns the areas, each as a position of its own.
    pub(crate) fn split(&self, b: Bits) -> Vec<Bits> {
        let open = self.full & !b.arrows;
        let queens = b.black | b.white;
        let mut left = open;
        let mut out = Vec::new();
        while left != 0 {
            let seed = left & left.wrapping_neg();
            let mut comp = seed;
            let mut frontier = seed;
            while frontier != 0 {
                let sq = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                let new = self.neighbors[sq] & open & !comp;
                comp |= new;
                frontier |= new;
            }
            left &= !comp;
            let has_queen = comp & queens != 0;
            let has_empty = comp & !queens != 0;
            if has_queen && has_empty {
                out.push(Bits {
                    black: b.black & comp,
                    white: b.white & comp,
                    arrows: self.full & !comp,
                });
            }
        }
        out
    }

    /// The distinct positions `color` can move to, appended to `out` (sorted, deduplicated).
    pub(crate) fn children(&self, b: Bits, black: bool, out: &mut Vec<Bits>) {
        out.clear();
        let own = if black { b.black } else { b.white };
        let occupied = b.black | b.white | b.arrows;
        let mut q = own;
        while q != 0 {
            let from = q.trailing_zeros() as usize;
            q &= q - 1;
            let fbit = 1u128 << from;
            let occ2 = occupied & !fbit;
            for ray in &self.rays[from] {
                for &to in ray {
                    let tbit = 1u128 << to;
                    if occupied & tbit != 0 {
                        break;
                    }
                    let moved = (own & !fbit) | tbit;
                    for aray in &self.rays[to as usize] {
                        for &ar in aray {
                            let abit = 1u128 << ar;
                            if occ2 & abit != 0 {
                                break;
                            }
                            let mut c = b;
                            if black {
                                c.black = moved;
                            } else {
                                c.white = moved;
                            }
                            c.arrows |= abit;
                            out.push(c);
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

pub(crate) fn to_bits(position: &Position) -> Result<Bits, CgtError> {
    check(position)?;
    if position.cells.len() > 128 {
        return Err(CgtError::InvalidPosition(
            "more than 128 squares".to_string(),
        ));
    }
    let mut b = Bits {
        black: 0,
        white: 0,
        arrows: 0,
    };
    for (i, c) in position.cells.iter().enumerate() {
        let bit = 1u128 << i;
        match c {
            Cell::Black => b.black |= bit,
            Cell::White => b.white |= bit,
            Cell::Arrow => b.arrows |= bit,
            Cell::Empty => {}
        }
    }
    Ok(b)
}

fn check(position: &Position) -> Result<(), CgtError> {
    if position.is_valid() {
        Ok(())
    } else {
        Err(CgtError::InvalidPosition(format!(
            "{} cells for a {} board",
            position.cells.len(),
            position.board
        )))
    }
}
