//! Exact rational bounds with plain, tightened and relaxed endpoints (paper section II-D).
//!
//! Values are from Black's point of view (Black = Left = positive). Semantics of the
//! endpoints of `bounds(G)`, with `x` the endpoint value:
//!
//! * plain lower `x`: `G >= x`; tightened lower `(x`: `G > x`; relaxed lower `x - e`:
//!   `G > x - d` for every positive number `d` (so `G >= x` is not claimed).
//! * symmetric for the upper endpoint.

pub use amazons_cgt::{Bound, BoundKind, Rational};
use amazons_format::Color;
use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Neg};

/// Bounds `[lower, upper]` on the value of a game, from Black's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bounds {
    pub lower: Bound,
    pub upper: Bound,
}

impl Bounds {
    /// Plain integer bounds `[l, u]`.
    pub fn new(l: i64, u: i64) -> Bounds {
        Bounds {
            lower: Bound::plain(l),
            upper: Bound::plain(u),
        }
    }

    /// The exact integer `n`: `[n, n]`.
    pub fn exact(n: i64) -> Bounds {
        Bounds::new(n, n)
    }

    /// `[0, 0]`, the identity of addition.
    pub fn zero() -> Bounds {
        Bounds::exact(0)
    }

    /// Relaxed integer bounds `[l - e, u + e]`.
    pub fn relaxed(l: i64, u: i64) -> Bounds {
        Bounds {
            lower: Bound::relaxed(l),
            upper: Bound::relaxed(u),
        }
    }

    /// The winner these bounds prove, with `to_move` to play (paper II-D):
    /// Black wins if `l > 0`, or `l = 0` tightened, or `l = 0` not relaxed and White to
    /// move; symmetrically White with the upper bound.
    pub fn winner(&self, to_move: Color) -> Option<Color> {
        let l = self.lower.value.signum();
        let black = l > 0
            || (l == 0 && self.lower.kind == BoundKind::Tightened)
            || (l == 0 && self.lower.kind == BoundKind::Plain && to_move == Color::White);
        let u = self.upper.value.signum();
        let white = u < 0
            || (u == 0 && self.upper.kind == BoundKind::Tightened)
            || (u == 0 && self.upper.kind == BoundKind::Plain && to_move == Color::Black);
        match (black, white) {
            (true, false) => Some(Color::Black),
            (false, true) => Some(Color::White),
            // Both at once means contradictory bounds (lower above upper); claim nothing.
            _ => None,
        }
    }
}

impl Add for Bounds {
    type Output = Bounds;
    fn add(self, o: Bounds) -> Bounds {
        Bounds {
            lower: self.lower + o.lower,
            upper: self.upper + o.upper,
        }
    }
}

impl AddAssign for Bounds {
    fn add_assign(&mut self, o: Bounds) {
        *self = *self + o;
    }
}

impl Sum for Bounds {
    fn sum<I: Iterator<Item = Bounds>>(iter: I) -> Bounds {
        iter.fold(Bounds::zero(), |a, b| a + b)
    }
}

impl Neg for Bounds {
    type Output = Bounds;
    /// The bounds of `-G`: swap the ends and negate, keeping each end's kind.
    fn neg(self) -> Bounds {
        Bounds {
            lower: Bound {
                value: -self.upper.value,
                kind: self.upper.kind,
            },
            upper: Bound {
                value: -self.lower.value,
                kind: self.lower.kind,
            },
        }
    }
}

impl fmt::Display for Bounds {
    /// Like the paper: `[1, 2+e]`, `(0, e]`, `[-e, 0)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |b: Bound, sign: &str| -> String {
            match (b.kind, b.value == Rational::ZERO) {
                (BoundKind::Relaxed, true) => format!("{}e", if sign == "-" { "-" } else { "" }),
                (BoundKind::Relaxed, false) => format!("{}{}e", b.value, sign),
                _ => b.value.to_string(),
            }
        };
        let open = if self.lower.kind == BoundKind::Tightened {
            '('
        } else {
            '['
        };
        let close = if self.upper.kind == BoundKind::Tightened {
            ')'
        } else {
            ']'
        };
        write!(
            f,
            "{open}{}, {}{close}",
            end(self.lower, "-"),
            end(self.upper, "+")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quickcheck::{quickcheck, Arbitrary, Gen};
    use std::cmp::Ordering;

    /// A small rational (the shared `Rational` type is foreign here, so no `Arbitrary`).
    #[derive(Debug, Clone, Copy)]
    struct R(Rational);

    impl Arbitrary for R {
        fn arbitrary(g: &mut Gen) -> R {
            let n = i64::arbitrary(g) % 50;
            let d = *g.choose(&[1i64, 1, 1, 2, 3, 4, 8]).unwrap_or(&1);
            R(q(n, d))
        }
    }

    fn q(n: i64, d: i64) -> Rational {
        Rational::new(n, d).expect("small test fraction")
    }

    /// A random endpoint (`Bound` is foreign here too).
    #[derive(Debug, Clone, Copy)]
    struct B(Bound);

    impl Arbitrary for B {
        fn arbitrary(g: &mut Gen) -> B {
            let kind = *g
                .choose(&[BoundKind::Plain, BoundKind::Tightened, BoundKind::Relaxed])
                .unwrap_or(&BoundKind::Plain);
            B(Bound {
                value: R::arbitrary(g).0,
                kind,
            })
        }
    }

    impl Arbitrary for Bounds {
        fn arbitrary(g: &mut Gen) -> Bounds {
            let a = B::arbitrary(g).0;
            let b = B::arbitrary(g).0;
            let (lower, upper) = if a.value <= b.value { (a, b) } else { (b, a) };
            Bounds { lower, upper }
        }
    }

    #[derive(Debug, Clone, Copy)]
    struct Side(Color);
    impl Arbitrary for Side {
        fn arbitrary(g: &mut Gen) -> Side {
            Side(if bool::arbitrary(g) {
                Color::Black
            } else {
                Color::White
            })
        }
    }

    #[test]
    fn addition_laws() {
        fn assoc(a: Bounds, b: Bounds, c: Bounds) -> bool {
            (a + b) + c == a + (b + c)
        }
        fn comm(a: Bounds, b: Bounds) -> bool {
            a + b == b + a
        }
        fn identity(a: Bounds) -> bool {
            a + Bounds::zero() == a && Bounds::zero() + a == a
        }
        quickcheck(assoc as fn(Bounds, Bounds, Bounds) -> bool);
        quickcheck(comm as fn(Bounds, Bounds) -> bool);
        quickcheck(identity as fn(Bounds) -> bool);
    }

    #[test]
    fn kind_dominance() {
        fn relaxed_dominates(a: Bounds, b: Bounds) -> bool {
            let s = a + b;
            (a.lower.kind != BoundKind::Relaxed || s.lower.kind == BoundKind::Relaxed)
                && (b.upper.kind != BoundKind::Relaxed || s.upper.kind == BoundKind::Relaxed)
        }
        fn tightened_plus_plain(B(a): B, R(v): R) -> bool {
            let t = Bound {
                value: a.value,
                kind: BoundKind::Tightened,
            };
            let p = Bound {
                value: v,
                kind: BoundKind::Plain,
            };
            (t + p).kind == BoundKind::Tightened && (p + t).kind == BoundKind::Tightened
        }
        fn plain_plus_plain(R(a): R, R(b): R) -> bool {
            (Bound {
                value: a,
                kind: BoundKind::Plain,
            } + Bound {
                value: b,
                kind: BoundKind::Plain,
            })
            .kind
                == BoundKind::Plain
        }
        quickcheck(relaxed_dominates as fn(Bounds, Bounds) -> bool);
        quickcheck(tightened_plus_plain as fn(B, R) -> bool);
        quickcheck(plain_plus_plain as fn(R, R) -> bool);
        // The paper's examples.
        let (p, t, r) = (Bound::plain, Bound::tightened, Bound::relaxed);
        let bounds = |lower, upper| Bounds { lower, upper };
        for (a, b, sum) in [
            (bounds(p(1), r(2)), bounds(r(1), p(3)), "[2-e, 5+e]"),
            (Bounds::new(1, 2), bounds(t(1), t(3)), "(2, 5)"),
            (bounds(t(1), t(2)), bounds(r(1), p(3)), "[2-e, 5)"),
        ] {
            assert_eq!((a + b).to_string(), sum);
        }
    }

    #[test]
    fn winner_on_exact_integers_matches_sign() {
        fn prop(n: i8, side: Side) -> bool {
            let n = n as i64;
            let w = Bounds::exact(n).winner(side.0);
            let expect = match n.cmp(&0) {
                Ordering::Greater => Some(Color::Black),
                Ordering::Less => Some(Color::White),
                // Zero: the player to move loses.
                Ordering::Equal => Some(side.0.opponent()),
            };
            w == expect
        }
        quickcheck(prop as fn(i8, Side) -> bool);
    }

    #[test]
    fn winner_special_cases() {
        let t = Bounds {
            lower: Bound::tightened(0),
            upper: Bound::relaxed(0),
        };
        assert_eq!(t.winner(Color::Black), Some(Color::Black));
        assert_eq!(t.to_string(), "(0, e]");
        let r = Bounds::relaxed(0, 3);
        assert_eq!(r.winner(Color::White), None);
        assert_eq!(r.winner(Color::Black), None);
        let n = Bounds {
            lower: Bound::relaxed(0),
            upper: Bound::tightened(0),
        };
        assert_eq!(n.to_string(), "[-e, 0)");
        assert_eq!(n.winner(Color::White), Some(Color::White));
        assert_eq!(Bounds::new(0, 2).winner(Color::Black), None);
        assert_eq!(Bounds::new(0, 2).winner(Color::White), Some(Color::Black));
        assert_eq!(
            Bounds {
                lower: Bound {
                    value: q(-3, 2),
                    kind: BoundKind::Plain
                },
                upper: Bound {
                    value: q(5, 16),
                    kind: BoundKind::Plain
                }
            }
            .to_string(),
            "[-3/2, 5/16]"
        );
    }

    #[test]
    fn negation_laws() {
        fn involution(a: Bounds) -> bool {
            -(-a) == a
        }
        fn swaps_winner(a: Bounds, side: Side) -> bool {
            (-a).winner(side.0.opponent()) == a.winner(side.0).map(Color::opponent)
        }
        fn distributes(a: Bounds, b: Bounds) -> bool {
            -(a + b) == (-a) + (-b)
        }
        quickcheck(involution as fn(Bounds) -> bool);
        quickcheck(swaps_winner as fn(Bounds, Side) -> bool);
        quickcheck(distributes as fn(Bounds, Bounds) -> bool);
    }

    #[test]
    fn rational_normalizes_and_orders() {
        assert_eq!(q(2, -4), q(-1, 2));
        assert_eq!(q(-1, 2).denom(), 2);
        assert!(q(1, 3) < q(1, 2));
        assert_eq!(q(1, 2) + q(1, 2), Rational::int(1));
        fn order_total(R(a): R, R(b): R) -> bool {
            (a < b) as u8 + (a == b) as u8 + (a > b) as u8 == 1 && a + b == b + a
        }
        quickcheck(order_total as fn(R, R) -> bool);
    }
}
