//! Exact rational numbers (`i64` numerator over a positive `i64` denominator, always reduced).

use std::cmp::Ordering;
use std::fmt;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// An exact rational number `num / den` with `den > 0` and `gcd(num, den) == 1`.
///
/// Arithmetic is done in `i128` and reduced; a result that does not fit in `i64` panics
/// with an "overflow" message (values arising from small Amazons areas are tiny).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rational {
    num: i64,
    den: i64,
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// Binary (Stein's) gcd of two `u64`; `gcd64(0, b) == b`.
fn gcd64(a: u64, b: u64) -> u64 {
    if a == 0 || b == 0 {
        return a | b;
    }
    let shift = (a | b).trailing_zeros();
    let (mut a, mut b) = (a >> a.trailing_zeros(), b);
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

impl Rational {
    /// Zero.
    pub const ZERO: Rational = Rational { num: 0, den: 1 };
    /// One.
    pub const ONE: Rational = Rational { num: 1, den: 1 };
    /// Minus one.
    pub const MINUS_ONE: Rational = Rational { num: -1, den: 1 };

    /// The integer `n`.
    pub const fn int(n: i64) -> Rational {
        Rational { num: n, den: 1 }
    }

    /// `num / den`, reduced. Returns `None` if `den == 0` or the reduced value overflows.
    pub fn new(num: i64, den: i64) -> Option<Rational> {
        Rational::from_i128(num as i128, den as i128)
    }

    fn from_i128(num: i128, den: i128) -> Option<Rational> {
        if den == 0 {
            return None;
        }
        // The usual case: both fit in 64 bits, where a binary gcd avoids 128-bit division
        // (a fifth of a database build went to it).
        if let (Ok(n), Ok(d)) = (i64::try_from(num), i64::try_from(den)) {
            if n != i64::MIN && d != i64::MIN {
                let g = gcd64(n.unsigned_abs(), d.unsigned_abs()).max(1) as i64;
                let (n, d) = (n / g, d / g);
                return Some(if d < 0 {
                    Rational { num: -n, den: -d }
                } else {
                    Rational { num: n, den: d }
                });
            }
        }
        let g = gcd(num, den).max(1);
        let (mut n, mut d) = (num / g, den / g);
        if d < 0 {
            n = -n;
            d = -d;
        }
        Some(Rational {
            num: i64::try_from(n).ok()?,
            den: i64::try_from(d).ok()?,
        })
    }

    fn make(num: i128, den: i128) -> Rational {
        match Rational::from_i128(num, den) {
            Some(r) => r,
            None => panic!("rational arithmetic overflow or division by zero: {num}/{den}"),
        }
    }

    /// The numerator (carries the sign).
    pub fn numer(self) -> i64 {
        self.num
    }

    /// The denominator (always positive).
    pub fn denom(self) -> i64 {
        self.den
    }

    /// True if the denominator is 1.
    pub fn is_integer(self) -> bool {
        self.den == 1
    }

    /// The integer value, if this is an integer.
    pub fn as_integer(self) -> Option<i64> {
        self.is_integer().then_some(self.num)
    }

    /// True if the denominator is a power of two.
    pub fn is_dyadic(self) -> bool {
        self.den & (self.den - 1) == 0
    }

    /// The largest integer `<= self`.
    pub fn floor(self) -> i64 {
        self.num.div_euclid(self.den)
    }

    /// The smallest integer `>= self`.
    pub fn ceil(self) -> i64 {
        -((-self.num).div_euclid(self.den))
    }

    /// Absolute value.
    pub fn abs(self) -> Rational {
        Rational {
            num: self.num.abs(),
            den: self.den,
        }
    }

    /// -1, 0 or 1.
    pub fn signum(self) -> i64 {
        self.num.signum()
    }

    /// The mean of two rationals.
    pub fn mean(self, other: Rational) -> Rational {
        (self + other) / Rational::int(2)
    }

    /// Parses `a`, `-a`, `a/b`, `-a/b`.
    pub fn parse(text: &str) -> Option<Rational> {
        let t = text.trim();
        match t.split_once('/') {
            Some((a, b)) => Rational::new(a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => Some(Rational::int(t.parse().ok()?)),
        }
    }
}

impl Default for Rational {
    fn default() -> Self {
        Rational::ZERO
    }
}

impl From<i64> for Rational {
    fn from(n: i64) -> Self {
        Rational::int(n)
    }
}

impl Ord for Rational {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.num as i128 * other.den as i128).cmp(&(other.num as i128 * self.den as i128))
    }
}

impl PartialOrd for Rational {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Add for Rational {
    type Output = Rational;
    fn add(self, o: Rational) -> Rational {
        // Integers (the common case in the solver's bounds) need no 128-bit division.
        if self.den == 1 && o.den == 1 {
            if let Some(num) = self.num.checked_add(o.num) {
                return Rational { num, den: 1 };
            }
        }
        Rational::make(
            self.num as i128 * o.den as i128 + o.num as i128 * self.den as i128,
            self.den as i128 * o.den as i128,
        )
    }
}

impl Sub for Rational {
    type Output = Rational;
    fn sub(self, o: Rational) -> Rational {
        self + (-o)
    }
}

impl Neg for Rational {
    type Output = Rational;
    fn neg(self) -> Rational {
        Rational {
            num: -self.num,
            den: self.den,
        }
    }
}

impl Mul for Rational {
    type Output = Rational;
    fn mul(self, o: Rational) -> Rational {
        Rational::make(
            self.num as i128 * o.num as i128,
            self.den as i128 * o.den as i128,
        )
    }
}

impl Div for Rational {
    type Output = Rational;
    fn div(self, o: Rational) -> Rational {
        // Times the reciprocal (which panics on a zero divisor).
        Mul::mul(self, Rational::make(o.den as i128, o.num as i128))
    }
}

impl fmt::Display for Rational {
    /// `3`, `-1/2` (CGSuite style).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(a: i64, b: i64) -> Rational {
        Rational::new(a, b).expect("valid")
    }

    #[test]
    fn arithmetic_and_order() {
        assert_eq!(r(1, 2) + r(1, 4), r(3, 4));
        assert_eq!(r(2, -4), r(-1, 2));
        assert_eq!(r(-3, 4).floor(), -1);
        assert_eq!(r(-3, 4).ceil(), 0);
        assert_eq!(r(7, 2).floor(), 3);
        assert!(r(1, 3) < r(1, 2));
        assert_eq!(r(-9, 4).to_string(), "-9/4");
        assert_eq!(Rational::parse("11/4"), Some(r(11, 4)));
        assert_eq!(Rational::parse("-1"), Some(Rational::MINUS_ONE));
        assert!(Rational::new(1, 0).is_none());
        assert!(r(3, 8).is_dyadic() && !r(1, 3).is_dyadic());
        assert_eq!(r(i64::MAX, -i64::MAX), Rational::MINUS_ONE);
        assert_eq!(r(0, -5), Rational::ZERO);
    }

    #[test]
    fn binary_gcd_agrees_with_euclid() {
        for a in 0..200u64 {
            for b in 0..200u64 {
                assert_eq!(gcd64(a, b) as i128, gcd(a as i128, b as i128), "{a} {b}");
            }
        }
        assert_eq!(gcd64(1 << 40, 3 << 20), 1 << 20);
    }
}
