//! Sets of squares as bit masks (`u64` on boards of at most 64 squares, else `u128`), with the board's rays, for the exhaustive searches.

use crate::rules::{step, DIRS};
use amazons_format::Board;
use std::ops::{BitAnd, BitOr, Not, Shl, Shr};

/// A set of squares: bit `sq` is square `sq`. Implemented by `u64` and `u128` only, each
/// method being the integer method of the same name; a search over `u64` masks is the
/// same search as over `u128` masks on a board whose squares all lie below bit 64.
pub trait Mask:
    Copy
    + Eq
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
    + Shl<usize, Output = Self>
    + Shr<usize, Output = Self>
{
    /// The number of bits (64 or 128).
    const BITS: u32;
    /// The empty set.
    const ZERO: Self;
    /// The set of square 0 alone.
    const ONE: Self;
    fn count_ones(self) -> u32;
    fn trailing_zeros(self) -> u32;
    fn leading_zeros(self) -> u32;
    fn wrapping_sub(self, rhs: Self) -> Self;
    fn checked_shl(self, n: u32) -> Option<Self>;
    fn checked_shr(self, n: u32) -> Option<Self>;
    /// The mask folded to one word by rotate and xor, for hashing (equal masks fold
    /// equally; nothing else is asked of it).
    fn fold(self) -> u64;
}

macro_rules! mask {
    ($t:ty, $fold:expr) => {
        impl Mask for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn count_ones(self) -> u32 {
                <$t>::count_ones(self)
            }
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            fn leading_zeros(self) -> u32 {
                <$t>::leading_zeros(self)
            }
            fn wrapping_sub(self, rhs: Self) -> Self {
                <$t>::wrapping_sub(self, rhs)
            }
            fn checked_shl(self, n: u32) -> Option<Self> {
                <$t>::checked_shl(self, n)
            }
            fn checked_shr(self, n: u32) -> Option<Self> {
                <$t>::checked_shr(self, n)
            }
            fn fold(self) -> u64 {
                $fold(self)
            }
        }
    };
}

mask!(u64, |m: u64| m);
mask!(u128, |m: u128| (m as u64)
    ^ ((m >> 64) as u64).rotate_left(16));

/// Masks of one board for the searches (computed once so that the searches do not
/// recompute coordinates). A board with more squares than `W` has bits gets no rays and
/// no squares: the searches refuse such boards before using them.
pub struct Rays<W> {
    /// `ray[8 * sq + d]`: the squares one, two, ... steps from `sq` in direction `DIRS[d]`,
    /// up to the edge. Along `DIRS[0..4]` square numbers go down, along `DIRS[4..8]` up.
    ray: Vec<W>,
    /// Every square of the board.
    all: W,
    /// The squares off the first file, and off the last file.
    not_first_file: W,
    not_last_file: W,
    width: u32,
}

impl<W: Mask> Rays<W> {
    pub fn new(board: Board) -> Rays<W> {
        let fits = board.len() <= W::BITS as usize;
        let squares = if fits { board.len() } else { 0 };
        let mask = |keep: &dyn Fn(usize) -> bool| {
            (0..squares)
                .filter(|&sq| keep(sq))
                .fold(W::ZERO, |m, sq| m | W::ONE << sq)
        };
        let ray = |sq: usize, d: (i32, i32)| {
            std::iter::successors(step(board, sq, d), |&next| step(board, next, d))
                .fold(W::ZERO, |m, sq| m | W::ONE << sq)
        };
        let width = usize::from(board.width).max(1);
        Rays {
            ray: (0..squares)
                .flat_map(|sq| DIRS.map(|d| ray(sq, d)))
                .collect(),
            all: mask(&|_| true),
            not_first_file: mask(&|sq| sq % width != 0),
            not_last_file: mask(&|sq| sq % width != width - 1),
            width: width as u32,
        }
    }

    /// The squares of `open` a queen on `from` reaches along the eight rays, as a mask:
    /// each ray up to its nearest square not in `open`, which is the lowest such square on
    /// a ray going up in number and the highest on one going down.
    pub fn reach(&self, from: usize, open: W) -> W {
        let rays = self.ray.get(8 * from..8 * from + 8).unwrap_or_default();
        let mut out = W::ZERO;
        for (d, &ray) in rays.iter().enumerate() {
            let blocked = ray & !open;
            out = out
                | if blocked == W::ZERO {
                    ray
                } else if d >= 4 {
                    ray & (W::ONE << blocked.trailing_zeros() as usize).wrapping_sub(W::ONE)
                } else {
                    let nearest = W::BITS - 1 - blocked.leading_zeros();
                    ray & !(W::ONE << 1 << nearest as usize).wrapping_sub(W::ONE)
                };
        }
        out
    }

    /// Whether a queen on `from` reaches `to` over `open`: `to` is in `open`, and so is
    /// every square between them on the ray from `from` that holds `to` (the same answer
    /// as `reach(from, open)` holding `to`, without building the whole set).
    pub fn slides(&self, from: usize, to: usize, open: W) -> bool {
        let target = W::ONE << to;
        let (Some(out), Some(beyond)) = (
            self.ray.get(8 * from..8 * from + 8),
            self.ray.get(8 * to..8 * to + 8),
        ) else {
            return false;
        };
        open & target != W::ZERO
            && (out.iter().zip(beyond)).any(|(&ray, &past)| {
                ray & target != W::ZERO && ray & !past & !target & !open == W::ZERO
            })
    }

    /// `m` and every square 8-adjacent to a square of `m`.
    pub fn grow(&self, m: W) -> W {
        let row = m | (m << 1) & self.not_first_file | (m >> 1) & self.not_last_file;
        let up = row.checked_shl(self.width).unwrap_or(W::ZERO);
        let down = row.checked_shr(self.width).unwrap_or(W::ZERO);
        (row | up | down) & self.all
    }

    /// The 8-connected component of `open` containing `start`.
    pub fn flood(&self, start: usize, open: W) -> W {
        let mut region = W::ONE << start;
        loop {
            let next = self.grow(region) & open | region;
            if next == region {
                return region;
            }
            region = next;
        }
    }
}

/// The squares of a mask, lowest first.
pub fn squares<W: Mask>(mut mask: W) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let sq = mask.trailing_zeros();
        mask = mask & mask.wrapping_sub(W::ONE);
        (sq < W::BITS).then_some(sq as usize)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `slides` answers as `reach` does, on every pair of squares of several board shapes
    /// and pseudo-random open sets (both mask widths).
    #[test]
    fn slides_agrees_with_reach() {
        fn on<W: Mask>(board: Board, seed: &mut u64) -> usize {
            let rays = Rays::<W>::new(board);
            let mut agreed = 0;
            for _ in 0..40 {
                let mut open = W::ZERO;
                for sq in 0..board.len() {
                    *seed ^= *seed << 13;
                    *seed ^= *seed >> 7;
                    *seed ^= *seed << 17;
                    if *seed % 3 != 0 {
                        open = open | W::ONE << sq;
                    }
                }
                for from in 0..board.len() {
                    for to in 0..board.len() {
                        let reached = rays.reach(from, open) & W::ONE << to != W::ZERO;
                        assert_eq!(rays.slides(from, to, open), reached, "{from} -> {to}");
                        agreed += usize::from(reached);
                    }
                }
            }
            agreed
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for (w, h) in [(6, 5), (4, 7), (8, 8)] {
            let board = Board::new(w, h).expect("a board");
            assert!(on::<u64>(board, &mut seed) > 0);
            assert!(on::<u128>(board, &mut seed) > 0);
        }
        let wide = Board::new(10, 10).expect("a board");
        assert!(on::<u128>(wide, &mut seed) > 0);
    }
}
