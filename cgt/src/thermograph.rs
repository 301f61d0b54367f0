//! Subzero thermographs (tax down to -1, Berlekamp's economist's view): exact piecewise-linear walls in CGSuite's point notation (the thermograph of a game is in `thermography`).
//!
//! A [`Trajectory`] is a continuous piecewise-linear function `x(t)` of the temperature
//! `t >= -1`, given by its breakpoints and the slope beyond the last one. The left and
//! right scaffolds of a game are `max_L RW(G^L)(t) - t` and `min_R LW(G^R)(t) + t`. The
//! walls follow the scaffolds where the left scaffold is `>=` the right one ("hills");
//! elsewhere ("caves") both walls run along one mast,
//! which starts at the crossing point (or, at the base `t = -1`, at the point of the cave
//! nearest to 0) and stays vertical until a scaffold pushes it. Integers have a plain mast.
//! This reproduces CGSuite's thermographs.

use crate::error::CgtError;
use crate::rational::Rational;
use std::fmt;

/// A continuous piecewise-linear function of the temperature on `[-1, inf)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Trajectory {
    /// Breakpoints `(t, x)`, strictly increasing in `t`, the first at `t = -1`.
    points: Vec<(Rational, Rational)>,
    /// Slope `dx/dt` beyond the last breakpoint.
    tail: Rational,
}

fn base() -> Rational {
    Rational::MINUS_ONE
}

impl Trajectory {
    /// The constant (vertical) trajectory `x`.
    pub fn constant(x: Rational) -> Trajectory {
        Trajectory {
            points: vec![(base(), x)],
            tail: Rational::ZERO,
        }
    }

    /// Builds a trajectory from breakpoints `(t, x)` (first at `t = -1`) and a final slope.
    pub fn from_points(points: Vec<(Rational, Rational)>, tail: Rational) -> Option<Trajectory> {
        if points.first()?.0 != base() || points.windows(2).any(|w| w[0].0 >= w[1].0) {
            return None;
        }
        let mut t = Trajectory { points, tail };
        t.simplify();
        Some(t)
    }

    /// The breakpoints `(t, x)`, the first at `t = -1`.
    pub fn points(&self) -> &[(Rational, Rational)] {
        &self.points
    }

    /// The slope beyond the last breakpoint (0 for a wall: the mast).
    pub fn tail_slope(&self) -> Rational {
        self.tail
    }

    /// The value at temperature `t` (`t >= -1`).
    pub fn value_at(&self, t: Rational) -> Rational {
        let pts = &self.points;
        let last = pts.len() - 1;
        if t >= pts[last].0 {
            return pts[last].1 + self.tail * (t - pts[last].0);
        }
        for w in pts.windows(2) {
            let ((t0, x0), (t1, x1)) = (w[0], w[1]);
            if t <= t1 {
                return x0 + (x1 - x0) * (t - t0) / (t1 - t0);
            }
        }
        pts[0].1
    }

    /// The slope on the segment just below `t` (`t > -1`), or just above `-1` at `t = -1`.
    pub fn slope_below(&self, t: Rational) -> Rational {
        let pts = &self.points;
        for w in pts.windows(2) {
            if t <= w[1].0 {
                return (w[1].1 - w[0].1) / (w[1].0 - w[0].0);
            }
        }
        self.tail
    }

    /// The slope on the segment just above `t`.
    pub fn slope_above(&self, t: Rational) -> Rational {
        let pts = &self.points;
        for w in pts.windows(2) {
            if t < w[1].0 {
                return (w[1].1 - w[0].1) / (w[1].0 - w[0].0);
            }
        }
        self.tail
    }

    /// Adds `s * t` (the tilt of a scaffold: `s = -1` for Left, `+1` for Right).
    pub fn tilt(&self, s: Rational) -> Trajectory {
        Trajectory {
            points: self.points.iter().map(|&(t, x)| (t, x + s * t)).collect(),
            tail: self.tail + s,
        }
    }

    fn simplify(&mut self) {
        let mut out: Vec<(Rational, Rational)> = Vec::with_capacity(self.points.len());
        for &p in &self.points {
            if let Some(&q) = out.last() {
                if q.0 == p.0 {
                    continue;
                }
            }
            out.push(p);
        }
        // Remove breakpoints where the slope does not change.
        let mut i = 1;
        while i < out.len() {
            let (t0, x0) = out[i - 1];
            let (t1, x1) = out[i];
            let s_in = (x1 - x0) / (t1 - t0);
            let s_out = if i + 1 < out.len() {
                (out[i + 1].1 - x1) / (out[i + 1].0 - t1)
            } else {
                self.tail
            };
            if s_in == s_out {
                out.remove(i);
            } else {
                i += 1;
            }
        }
        self.points = out;
    }

    /// The sorted union of both breakpoint sets plus every crossing point of `a` and `b`.
    fn merged_breakpoints(a: &Trajectory, b: &Trajectory) -> Vec<Rational> {
        let mut ts: Vec<Rational> = a.points.iter().chain(&b.points).map(|p| p.0).collect();
        ts.sort();
        ts.dedup();
        let mut crossings = Vec::new();
        for w in ts.windows(2) {
            let (t0, t1) = (w[0], w[1]);
            let d0 = a.value_at(t0) - b.value_at(t0);
            let d1 = a.value_at(t1) - b.value_at(t1);
            if d0.signum() * d1.signum() < 0 {
                crossings.push(t0 + (t1 - t0) * d0 / (d0 - d1));
            }
        }
        let last = *ts.last().unwrap_or(&base());
        let d = a.value_at(last) - b.value_at(last);
        let ds = a.tail - b.tail;
        if d.signum() * ds.signum() < 0 {
            crossings.push(last - d / ds);
        }
        ts.extend(crossings);
        ts.sort();
        ts.dedup();
        ts
    }

    fn combine(a: &Trajectory, b: &Trajectory, max: bool) -> Trajectory {
        let ts = Trajectory::merged_breakpoints(a, b);
        let pick = |x: Rational, y: Rational| if max { x.max(y) } else { x.min(y) };
        let points: Vec<(Rational, Rational)> = ts
            .iter()
            .map(|&t| (t, pick(a.value_at(t), b.value_at(t))))
            .collect();
        let last = *ts.last().unwrap_or(&base());
        let (va, vb) = (a.value_at(last), b.value_at(last));
        let tail = if va == vb {
            pick(a.tail, b.tail)
        } else if (va > vb) == max {
            a.tail
        } else {
            b.tail
        };
        let mut t = Trajectory { points, tail };
        t.simplify();
        t
    }

    /// The pointwise maximum.
    pub fn max(&self, other: &Trajectory) -> Trajectory {
        Trajectory::combine(self, other, true)
    }

    /// The pointwise minimum.
    pub fn min(&self, other: &Trajectory) -> Trajectory {
        Trajectory::combine(self, other, false)
    }

    /// CGSuite's point list: `(x, t)` for every breakpoint, from `t = -1` up.
    pub fn point_string(&self) -> String {
        let parts: Vec<String> = self
            .points
            .iter()
            .map(|(t, x)| format!("({x}, {t})"))
            .collect();
        parts.join(" ")
    }
}

/// A thermograph: left and right walls (each ending in the common vertical mast).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Thermograph {
    pub left: Trajectory,
    pub right: Trajectory,
}

impl Thermograph {
    /// The thermograph of a number or integer `x` seen as a plain mast.
    pub fn mast(x: Rational) -> Thermograph {
        Thermograph {
            left: Trajectory::constant(x),
            right: Trajectory::constant(x),
        }
    }

    /// The thermograph with the given (already tilted) left and right scaffolds.
    pub fn from_scaffolds(ls: &Trajectory, rs: &Trajectory) -> Thermograph {
        let ts = Trajectory::merged_breakpoints(ls, rs);
        let mut lw: Vec<(Rational, Rational)> = Vec::new();
        let mut rw: Vec<(Rational, Rational)> = Vec::new();
        // Cave value (None while in a hill region).
        let mut cave: Option<Rational> = None;
        let n = ts.len();
        for i in 0..n {
            let a = ts[i];
            let b = if i + 1 < n { Some(ts[i + 1]) } else { None };
            let mid = match b {
                Some(b) => a.mean(b),
                None => a + Rational::ONE,
            };
            let (la, ra) = (ls.value_at(a), rs.value_at(a));
            let hill = ls.value_at(mid) >= rs.value_at(mid);
            if hill {
                lw.push((a, la));
                rw.push((a, ra));
                cave = None;
                continue;
            }
            // A cave interval [a, b]: the mast value entering it.
            let m = match cave {
                Some(m) => m,
                None => {
                    if i == 0 {
                        // At the base: the point of [LS, RS] nearest to 0.
                        if la > Rational::ZERO {
                            la
                        } else if ra < Rational::ZERO {
                            ra
                        } else {
                            Rational::ZERO
                        }
                    } else {
                        la
                    }
                }
            };
            lw.push((a, m));
            rw.push((a, m));
            let Some(b) = b else {
                // The final mast: the scaffolds diverge (slopes -1 and +1).
                cave = Some(m);
                continue;
            };
            // Does a scaffold push the mast inside (a, b]?
            let sl = (ls.value_at(b) - la) / (b - a);
            let sr = (rs.value_at(b) - ra) / (b - a);
            let tl = (sl > Rational::ZERO)
                .then(|| a + (m - la) / sl)
                .filter(|&t| t < b);
            let tr = (sr < Rational::ZERO)
                .then(|| a + (m - ra) / sr)
                .filter(|&t| t < b);
            let event = match (tl, tr) {
                (Some(x), Some(y)) => Some(if x <= y { (x, true) } else { (y, false) }),
                (Some(x), None) => Some((x, true)),
                (None, Some(y)) => Some((y, false)),
                (None, None) => None,
            };
            let end = match event {
                Some((t, from_left)) => {
                    lw.push((t, m));
                    rw.push((t, m));
                    if from_left {
                        ls.value_at(b)
                    } else {
                        rs.value_at(b)
                    }
                }
                None => m,
            };
            cave = Some(end);
        }
        let tail_l = if cave.is_some() {
            Rational::ZERO
        } else {
            ls.tail
        };
        let tail_r = if cave.is_some() {
            Rational::ZERO
        } else {
            rs.tail
        };
        let mut left = Trajectory {
            points: lw,
            tail: tail_l,
        };
        let mut right = Trajectory {
            points: rw,
            tail: tail_r,
        };
        left.simplify();
        right.simplify();
        Thermograph { left, right }
    }

    /// The temperature: where the walls finally become the mast (`-1` for integers).
    pub fn temperature(&self) -> Rational {
        let tl = self.left.points.last().map_or(base(), |p| p.0);
        let tr = self.right.points.last().map_or(base(), |p| p.0);
        tl.max(tr)
    }

    /// The mast value (the mean value of the game).
    pub fn mast_value(&self) -> Rational {
        self.left.value_at(self.temperature())
    }

    /// The left stop: the left wall at temperature 0.
    pub fn left_stop(&self) -> Rational {
        self.left.value_at(Rational::ZERO)
    }

    /// The right stop: the right wall at temperature 0.
    pub fn right_stop(&self) -> Rational {
        self.right.value_at(Rational::ZERO)
    }

    /// True if the left wall is vertical just below temperature 0.
    pub fn left_vertical_below_zero(&self) -> bool {
        self.left.slope_below(Rational::ZERO) == Rational::ZERO
    }

    /// True if the right wall is vertical just below temperature 0.
    pub fn right_vertical_below_zero(&self) -> bool {
        self.right.slope_below(Rational::ZERO) == Rational::ZERO
    }

    /// CGSuite's notation, two lines: `L: (x, t) ...` and `R: (x, t) ...`.
    pub fn point_string(&self) -> String {
        format!(
            "L: {}\nR: {}",
            self.left.point_string(),
            self.right.point_string()
        )
    }

    /// Parses one wall's point list `(x, t) (x, t) ...` (as in the MCGS test files).
    pub fn parse_wall(text: &str) -> Result<Trajectory, CgtError> {
        let err = || CgtError::ThermographParse(text.to_string());
        let mut pts = Vec::new();
        for chunk in text.split(')') {
            let c = chunk.trim();
            if c.is_empty() {
                continue;
            }
            let c = c.strip_prefix('(').ok_or_else(err)?;
            let (x, t) = c.split_once(',').ok_or_else(err)?;
            let x = Rational::parse(x).ok_or_else(err)?;
            let t = Rational::parse(t).ok_or_else(err)?;
            pts.push((t, x));
        }
        Trajectory::from_points(pts, Rational::ZERO).ok_or_else(err)
    }
}

impl fmt::Display for Thermograph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.point_string())
    }
}
