//! Classification of values (number, infinitesimal, `*`, hot) and tightened/relaxed bounds (paper II-D).

use crate::game::{GameId, GameStore, Outcome};
use crate::rational::Rational;
use crate::thermograph::Thermograph;

/// The sign type of an infinitesimal (paper II-D2, Fig. 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InfKind {
    /// Exactly 0: bounds `[0, 0]`.
    Zero,
    /// Positive: Black gets the last move, bounds `(0, e]`.
    Positive,
    /// Negative: White gets the last move, bounds `[-e, 0)`.
    Negative,
    /// Fuzzy: the first player gets the last move, bounds `[-e, +e]`.
    Fuzzy,
}

/// What kind of game a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// A nonzero number (0 is `Infinitesimal(Zero)`).
    Number(Rational),
    /// Exactly `*`.
    Star,
    /// Both stops 0 (including 0 itself and nimbers other than `*`).
    Infinitesimal(InfKind),
    /// A nonzero number plus a nonzero infinitesimal (both stops equal to the number).
    Tepid(Rational, InfKind),
    /// Left stop greater than right stop.
    Hot,
}

/// How a bound holds (paper II-D). The order is the dominance order of addition:
/// relaxed beats tightened beats plain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoundKind {
    /// `G >= v` (lower) or `G <= v` (upper): the value itself is included.
    Plain,
    /// `G > v` or `G < v`: the value is excluded.
    Tightened,
    /// Only `G > v - e` or `G < v + e` for every `e > 0`: the game may be infinitesimally
    /// beyond the value.
    Relaxed,
}

/// One side of a bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bound {
    pub value: Rational,
    pub kind: BoundKind,
}

impl Bound {
    /// The plain bound at the integer `v`.
    pub fn plain(v: i64) -> Bound {
        Bound {
            value: Rational::int(v),
            kind: BoundKind::Plain,
        }
    }

    /// The relaxed bound at the integer `v`.
    pub fn relaxed(v: i64) -> Bound {
        Bound {
            value: Rational::int(v),
            kind: BoundKind::Relaxed,
        }
    }

    /// The tightened bound at the integer `v`.
    pub fn tightened(v: i64) -> Bound {
        Bound {
            value: Rational::int(v),
            kind: BoundKind::Tightened,
        }
    }
}

impl std::ops::Add for Bound {
    type Output = Bound;
    /// Values add; the kind of the sum is the dominant kind (paper II-D rules 1-3).
    fn add(self, o: Bound) -> Bound {
        Bound {
            value: self.value + o.value,
            kind: self.kind.max(o.kind),
        }
    }
}

impl Thermograph {
    /// Bounds on the game from its thermograph (paper II-D1 and II-D2): lower from the
    /// right stop, upper from the left stop; a bound is plain where its wall is vertical
    /// just below 0 and relaxed where it is diagonal. When both stops coincide (a number
    /// plus an infinitesimal), the shape gives the infinitesimal's type: mast `[x, x]`,
    /// positive `(x, x+e]`, negative `[x-e, x)`, fuzzy `[x-e, x+e]`.
    pub fn bounds(&self) -> (Bound, Bound) {
        let (ls, rs) = (self.left_stop(), self.right_stop());
        let lv = self.left_vertical_below_zero();
        let rv = self.right_vertical_below_zero();
        let kind = |vertical: bool| {
            if vertical {
                BoundKind::Plain
            } else {
                BoundKind::Relaxed
            }
        };
        if ls == rs {
            let (lo, hi) = match (lv, rv) {
                (true, true) => (BoundKind::Plain, BoundKind::Plain),
                (false, true) => (BoundKind::Tightened, BoundKind::Relaxed),
                (true, false) => (BoundKind::Relaxed, BoundKind::Tightened),
                (false, false) => (BoundKind::Relaxed, BoundKind::Relaxed),
            };
            return (
                Bound {
                    value: rs,
                    kind: lo,
                },
                Bound {
                    value: ls,
                    kind: hi,
                },
            );
        }
        (
            Bound {
                value: rs,
                kind: kind(rv),
            },
            Bound {
                value: ls,
                kind: kind(lv),
            },
        )
    }

    /// Classification from the thermograph alone (`*` cannot be told from other nimbers,
    /// so it comes out as a fuzzy infinitesimal; numbers by a temperature below 0).
    pub fn classify(&self) -> Class {
        let (ls, rs) = (self.left_stop(), self.right_stop());
        if ls > rs {
            return Class::Hot;
        }
        if self.temperature() < Rational::ZERO {
            return if ls == Rational::ZERO {
                Class::Infinitesimal(InfKind::Zero)
            } else {
                Class::Number(ls)
            };
        }
        let kind = match (
            self.left_vertical_below_zero(),
            self.right_vertical_below_zero(),
        ) {
            (true, true) => InfKind::Zero,
            (false, true) => InfKind::Positive,
            (true, false) => InfKind::Negative,
            (false, false) => InfKind::Fuzzy,
        };
        if ls == Rational::ZERO {
            Class::Infinitesimal(kind)
        } else if kind == InfKind::Zero {
            Class::Number(ls)
        } else {
            Class::Tepid(ls, kind)
        }
    }
}

/// Bounds from a thermograph: `(lower, upper)` (see [`Thermograph::bounds`]).
pub fn bounds(th: &Thermograph) -> (Bound, Bound) {
    th.bounds()
}

impl GameStore {
    /// The exact classification of a canonical game.
    pub fn classify(&mut self, g: GameId) -> Class {
        if let Some(x) = self.number_value(g) {
            return if x == Rational::ZERO {
                Class::Infinitesimal(InfKind::Zero)
            } else {
                Class::Number(x)
            };
        }
        if g == self.star() {
            return Class::Star;
        }
        let (ls, rs) = (self.left_stop(g), self.right_stop(g));
        if ls > rs {
            return Class::Hot;
        }
        let x = self.number(ls);
        let d = self.sub(g, x);
        let kind = match self.outcome(d) {
            Outcome::P => InfKind::Zero,
            Outcome::L => InfKind::Positive,
            Outcome::R => InfKind::Negative,
            Outcome::N => InfKind::Fuzzy,
        };
        if ls == Rational::ZERO {
            Class::Infinitesimal(kind)
        } else {
            Class::Tepid(ls, kind)
        }
    }

    /// Exact bounds `(lower, upper)` of a canonical game: the right and left stops, each
    /// plain if `G >= rs` (`G <= ls`), tightened if moreover `G != rs`, relaxed otherwise.
    pub fn bounds(&mut self, g: GameId) -> (Bound, Bound) {
        let (ls, rs) = (self.left_stop(g), self.right_stop(g));
        let lo = self.number(rs);
        let hi = self.number(ls);
        // Plain if the stop is G itself, tightened if G is only on the right side of it.
        let kind = |holds: bool, equal: bool| match (holds, equal) {
            (false, _) => BoundKind::Relaxed,
            (true, true) => BoundKind::Plain,
            (true, false) => BoundKind::Tightened,
        };
        let lower = kind(self.le(lo, g), g == lo);
        let upper = kind(self.le(g, hi), g == hi);
        (
            Bound {
                value: rs,
                kind: lower,
            },
            Bound {
                value: ls,
                kind: upper,
            },
        )
    }

    /// Bounds from the game's thermograph (the paper's rule; weaker than [`GameStore::bounds`]
    /// for hot games, where a plain bound may in fact be strict).
    pub fn thermograph_bounds(&mut self, g: GameId) -> (Bound, Bound) {
        self.thermograph(g).bounds()
    }
}
