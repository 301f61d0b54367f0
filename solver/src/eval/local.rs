//! Local alpha-beta search of a small isolated area (paper IV-A6): the difference in moves
//! between the first player and the opponent, passes allowed for both sides.
//!
//! The game ends after two consecutive passes or when no empty square is left. With
//! `v_b` the value with Black first and `v_w` the value with White first (both from
//! Black's view), the area gets the relaxed bounds `[v_w - e, v_b + e]`.
//!
//! Soundness sketch (by induction on the area): writing `f_B`, `f_W` for these values,
//! `f_W(G) = min(min_R (f_B(G^R) - 1), max(max_L (f_W(G^L) + 1), 0))` and symmetrically;
//! one checks that Black, second in `G - f_W(G)`, wins by answering a White move to
//! `G^R` with the first move of `G^R - (f_B(G^R) - 1)` and a White spare by the left
//! option realizing `f_W`, so even the plain bound `G >= v_w` holds; the relaxed form
//! the paper uses is weaker and therefore sound too.

use crate::bitboard::Bb;
use crate::geometry::Geometry;
use crate::pos::Pos;
use amazons_format::fasthash::Fast;
use amazons_format::Color;
use std::collections::HashMap;

/// Transposition-table entries kept before the table is cleared: few enough (about 1 MB)
/// to stay in cache. A 6x4 task was solved in 0.86 of the time it took with 2^20 entries,
/// a 6x5 subtask in 0.93; 2^12 was no faster than 2^14 (BENCHMARKS.md, "Search design").
const TT_CAP: usize = 1 << 14;

/// Areas whose values are remembered before that memo is cleared (2^15 took 1.16 times
/// as long on a 6x4 task; 2^20 no less: BENCHMARKS.md, "Search design").
const AREAS_CAP: usize = 1 << 18;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    white: Bb,
    black: Bb,
    arrows: Bb,
    black_to_move: bool,
    passed: bool,
}

/// Alpha-beta with a transposition table of `[lower, upper]` value intervals.
#[derive(Debug, Default)]
pub struct LocalSearch {
    tt: HashMap<Key, (i8, i8), Fast>,
    /// `(v_b, v_w)` of isolated areas searched before, by their `(white, black, arrows)`:
    /// the same small areas recur all over a df-pn search, and the search table alone
    /// forgets them when it is cleared.
    areas: HashMap<(Bb, Bb, Bb), (i32, i32), Fast>,
    /// Nodes visited (statistics).
    pub nodes: u64,
}

impl LocalSearch {
    pub fn new() -> LocalSearch {
        LocalSearch::default()
    }

    /// The position restricted to `squares`: everything else becomes an arrow.
    pub fn isolate(g: &Geometry, pos: &Pos, squares: Bb) -> Pos {
        Pos {
            white: pos.white & squares,
            black: pos.black & squares,
            arrows: (g.all - squares) | (pos.arrows & squares),
            side: pos.side,
        }
    }

    /// `(v_b, v_w)`: the pass-game values of the isolated area with Black first and with
    /// White first, both from Black's point of view.
    pub fn values(&mut self, g: &Geometry, pos: &Pos, squares: Bb) -> (i32, i32) {
        let iso = Self::isolate(g, pos, squares);
        let area = (iso.white, iso.black, iso.arrows);
        if let Some(&v) = self.areas.get(&area) {
            return v;
        }
        let n = iso.empty(g).count() as i32 + 1;
        let vb = self.search(
            g,
            Pos {
                side: Color::Black,
                ..iso
            },
            false,
            -n,
            n,
        );
        let vw = -self.search(
            g,
            Pos {
                side: Color::White,
                ..iso
            },
            false,
            -n,
            n,
        );
        if self.areas.len() >= AREAS_CAP {
            self.areas.clear();
        }
        self.areas.insert(area, (vb, vw));
        (vb, vw)
    }

    /// Negamax value for the side to move: its moves minus the opponent's.
    fn search(&mut self, g: &Geometry, p: Pos, passed: bool, mut alpha: i32, mut beta: i32) -> i32 {
        self.nodes += 1;
        if p.empty(g).is_empty() {
            return 0;
        }
        let key = Key {
            white: p.white,
            black: p.black,
            arrows: p.arrows,
            black_to_move: p.side == Color::Black,
            passed,
        };
        let (mut lo, mut hi) = (i32::MIN, i32::MAX);
        if let Some(&(l, h)) = self.tt.get(&key) {
            lo = l as i32;
            hi = h as i32;
            if lo == hi || lo >= beta {
                return lo;
            }
            if hi <= alpha {
                return hi;
            }
            alpha = alpha.max(lo);
            beta = beta.min(hi);
        }
        let alpha0 = alpha;
        // After a pass, passing again ends the game with nothing more to count: worth 0,
        // known without a search, so it comes first. Otherwise the moves come first (they
        // usually beat a pass and cut the rest off), and the pass last.
        let mut best = if passed { 0 } else { i32::MIN };
        if best > alpha {
            alpha = best;
        }
        if best < beta {
            for m in p.moves(g) {
                // value = 1 - child; value in (alpha, beta) iff child in (1-beta, 1-alpha).
                let v = 1 - self.search(g, p.play(m), false, 1 - beta, 1 - alpha);
                if v > best {
                    best = v;
                    if v > alpha {
                        alpha = v;
                    }
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        if !passed && best < beta {
            let q = Pos {
                side: p.side.opponent(),
                ..p
            };
            best = best.max(-self.search(g, q, true, -beta, -alpha));
        }
        // Record what is proved: fail-low gives an upper bound, fail-high a lower bound.
        let (mut nlo, mut nhi) = (lo, hi);
        if best <= alpha0 {
            nhi = nhi.min(best);
        } else if best >= beta {
            nlo = nlo.max(best);
        } else {
            nlo = best;
            nhi = best;
        }
        if self.tt.len() >= TT_CAP {
            self.tt.clear();
        }
        let clamp = |v: i32| v.clamp(i8::MIN as i32, i8::MAX as i32) as i8;
        self.tt.insert(key, (clamp(nlo), clamp(nhi)));
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amazons_format::Position;

    /// Plain minimax without pruning or table, for cross-checking.
    fn minimax(g: &Geometry, p: Pos, passed: bool) -> i32 {
        if p.empty(g).is_empty() {
            return 0;
        }
        let mut best = if passed {
            0
        } else {
            -minimax(
                g,
                Pos {
                    side: p.side.opponent(),
                    ..p
                },
                true,
            )
        };
        for m in p.moves(g) {
            best = best.max(1 - minimax(g, p.play(m), false));
        }
        best
    }

    #[test]
    fn alpha_beta_matches_minimax() {
        for grid in [
            "X.O",
            "X..O",
            ".X.|O..",
            "X.#|.O.",
            "X..|.#.|..O",
            "#X.|O..|.#.",
            "XO.|..#",
        ] {
            let p = Position::parse_grid(grid, Color::Black).expect("grid");
            let g = Geometry::new(p.board);
            let pos = Pos::from_position(&p);
            let mut ls = LocalSearch::new();
            let (vb, vw) = ls.values(&g, &pos, g.all);
            let b = minimax(
                &g,
                Pos {
                    side: Color::Black,
                    ..pos
                },
                false,
            );
            let w = -minimax(
                &g,
                Pos {
                    side: Color::White,
                    ..pos
                },
                false,
            );
            assert_eq!((vb, vw), (b, w), "{grid}");
            assert!(vw <= vb, "{grid}");
            // Asked again, the area's values come from the memo: the same answer.
            assert_eq!(ls.areas.len(), 1);
            assert_eq!(ls.values(&g, &pos, g.all), (vb, vw), "{grid} again");
        }
    }

    #[test]
    fn star_is_plus_minus_one() {
        // One empty square between the queens: whoever moves first takes it (value *).
        let p = Position::parse_grid("X.O", Color::Black).expect("grid");
        let g = Geometry::new(p.board);
        let pos = Pos::from_position(&p);
        assert_eq!(LocalSearch::new().values(&g, &pos, g.all), (1, -1));
    }
}
