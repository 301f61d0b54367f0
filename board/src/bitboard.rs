//! A 128-bit square set with set algebra, for boards up to 10x10.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not, Sub};

/// A set of squares: bit `i` is square `i` (`y * width + x`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Bb(pub u128);

impl Bb {
    pub const EMPTY: Bb = Bb(0);

    /// The set holding only `sq`.
    #[inline]
    pub fn from_square(sq: u8) -> Bb {
        Bb(1u128 << sq)
    }

    #[inline]
    pub fn has(self, sq: u8) -> bool {
        self.0 >> sq & 1 != 0
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub fn any(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest square, if any.
    #[inline]
    pub fn first(self) -> Option<u8> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as u8)
    }

    /// Iterates the squares in ascending order.
    #[inline]
    pub fn iter(self) -> BbIter {
        BbIter(self.0)
    }
}

/// Ascending square iterator over a [`Bb`].
pub struct BbIter(u128);

impl Iterator for BbIter {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(sq)
    }
}

impl BitOr for Bb {
    type Output = Bb;
    #[inline]
    fn bitor(self, o: Bb) -> Bb {
        Bb(self.0 | o.0)
    }
}
impl BitAnd for Bb {
    type Output = Bb;
    #[inline]
    fn bitand(self, o: Bb) -> Bb {
        Bb(self.0 & o.0)
    }
}
impl BitXor for Bb {
    type Output = Bb;
    #[inline]
    fn bitxor(self, o: Bb) -> Bb {
        Bb(self.0 ^ o.0)
    }
}
/// Set difference.
impl Sub for Bb {
    type Output = Bb;
    #[inline]
    fn sub(self, o: Bb) -> Bb {
        Bb(self.0 & !o.0)
    }
}
impl Not for Bb {
    type Output = Bb;
    #[inline]
    fn not(self) -> Bb {
        Bb(!self.0)
    }
}
impl BitOrAssign for Bb {
    #[inline]
    fn bitor_assign(&mut self, o: Bb) {
        self.0 |= o.0
    }
}
impl BitAndAssign for Bb {
    #[inline]
    fn bitand_assign(&mut self, o: Bb) {
        self.0 &= o.0
    }
}
