//! Territory arguments: reachable regions, one-player maxima and outlast detection.
//!
//! Mirrors SPEC 5.4 so that every outlast the solver finds passes the checker: `M` is
//! computed by exactly the rule the checker uses, and X's move sequence is a real line
//! (exact search on small parts, plodding on large ones) that respects shoot-back.

use crate::bitboard::Bb;
use crate::eval::fill::{for_each_successor, Filler, Solo};
use crate::geometry::Geometry;
use crate::pos::Pos;
use amazons_format::{Color, Move, ONE_PLAYER_EXACT_LIMIT};

/// Caches for territory evaluation.
#[derive(Debug, Default)]
pub struct Territory {
    /// The exact one-player search (shared with the evaluation's territory filling).
    filler: Filler,
    /// Outlast attempts and successes (statistics).
    pub attempts: u64,
    pub successes: u64,
}

impl Territory {
    pub fn new() -> Territory {
        Territory::default()
    }

    /// Exact maximum number of moves of `s.queens` moving alone through `s.empties`.
    fn solo_max(&mut self, g: &Geometry, s: Solo) -> u8 {
        self.filler.exact(g, s) as u8
    }

    /// A line of `solo_max(s)` moves (following the memo).
    fn solo_line(&mut self, g: &Geometry, mut s: Solo, out: &mut Vec<Move>) {
        let mut remaining = self.solo_max(g, s);
        while remaining > 0 {
            let mut found = None;
            for_each_successor(g, s, |m, next| {
                if self.solo_max(g, next) + 1 == remaining {
                    found = Some((m, next));
                }
                found.is_none()
            });
            match found {
                Some((m, next)) => {
                    out.push(m);
                    s = next;
                    remaining -= 1;
                }
                // The memo was cleared mid-walk and recomputation disagrees: stop here;
                // a shorter line is still a valid lower bound.
                None => return,
            }
        }
    }

    /// A plodding line: each move steps to a neighbouring empty square and shoots back,
    /// preferring the square with the fewest empty neighbours. Always respects
    /// shoot-back. A lower bound for large parts.
    fn plod_line(g: &Geometry, s: Solo, out: &mut Vec<Move>) {
        Self::plod(g, s, |m| {
            out.push(m);
            true
        });
    }

    /// Plays the plodding line of [`plod_line`](Self::plod_line), handing each move to
    /// `f` until it returns false.
    fn plod(g: &Geometry, mut s: Solo, mut f: impl FnMut(Move) -> bool) {
        loop {
            let mut best: Option<(u32, Move)> = None;
            for q in s.queens.iter() {
                for to in (g.neighbours(q) & s.empties).iter() {
                    let deg = (g.neighbours(to) & s.empties).count();
                    if best.is_none_or(|(d, _)| deg < d) {
                        best = Some((
                            deg,
                            Move {
                                from: q,
                                to,
                                arrow: q,
                            },
                        ));
                    }
                }
            }
            let Some((_, m)) = best else { return };
            let (qb, tb) = (Bb::from_square(m.from), Bb::from_square(m.to));
            s.queens = (s.queens - qb) | tb;
            s.empties = s.empties - tb;
            s.blockers = s.blockers - qb;
            if !f(m) {
                return;
            }
        }
    }

    /// Length of a plodding line (a lower bound on the exact maximum), counted up to
    /// `cap` at most: callers that compare it with a number need no more.
    fn plod_count(g: &Geometry, s: Solo, cap: u32) -> u32 {
        let mut n = 0;
        if cap > 0 {
            Self::plod(g, s, |_| {
                n += 1;
                n < cap
            });
        }
        n
    }

    /// `M` of SPEC 5.4 for the loser `y`: the region `R` and the bound on Y's moves,
    /// computed by exactly the checker's rule (exact maximum for parts with at most
    /// `ONE_PLAYER_EXACT_LIMIT` empty squares, else the number of empty squares).
    pub fn loser_bound(&mut self, g: &Geometry, pos: &Pos, y: Color) -> (Bb, u32) {
        let empty = pos.empty(g);
        let r = g.flood(pos.queens(y), empty);
        let mut rest = r;
        let mut m = 0u32;
        while let Some(sq) = rest.first() {
            let comp = g.flood(Bb::from_square(sq), r);
            rest = rest - comp;
            let s = Solo {
                queens: comp & pos.queens(y),
                empties: comp & empty,
                blockers: Bb::EMPTY,
            };
            let e = s.empties.count();
            // A plodding line that fills the part proves the exact maximum is `e` too.
            if e as usize > ONE_PLAYER_EXACT_LIMIT || Self::plod_count(g, s, e) == e {
                m += e;
            } else {
                m += self.solo_max(g, s) as u32;
            }
        }
        (r, m)
    }

    /// If X (`x`) wins `pos` by the outlast argument, X holding `x_spare` and Y holding
    /// `y_spare` spare moves, the X move sequence for the certificate, cut to the
    /// length the inequality `k + x >= M + y (+1 if X to move)` needs.
    pub fn outlast(
        &mut self,
        g: &Geometry,
        pos: &Pos,
        x: Color,
        x_spare: u32,
        y_spare: u32,
    ) -> Option<Vec<Move>> {
        self.attempts += 1;
        let y = x.opponent();
        let xq = pos.queens(x);
        let empty = pos.empty(g);
        // X needs k >= M + offset board moves.
        let offset = y_spare as i64 + (pos.side == x) as i64 - x_spare as i64;
        let r = g.flood(pos.queens(y), empty);
        let ex = empty - r;
        // Cheap refutation: X's reachable squares outside R against a plodding line of Y
        // (a lower bound on M).
        let x_space = g.flood(xq, ex | xq) & ex;
        let y_can_move = (g.dilate(pos.queens(y)) & r & empty).any() as i64;
        if (x_space.count() as i64) < y_can_move + offset {
            return None;
        }
        // Y's plodding line only needs counting until it shows X short of space: a count
        // that reaches `cap` refutes, and one below `cap` is the whole line.
        let cap = (x_space.count() as i64 - offset + 1).max(0);
        let y_plod = Self::plod_count(
            g,
            Solo {
                queens: pos.queens(y),
                empties: r & empty,
                blockers: Bb::EMPTY,
            },
            cap.min(u32::MAX as i64) as u32,
        ) as i64;
        if (x_space.count() as i64) < y_plod + offset {
            return None;
        }
        let blockers = xq & g.dilate(r);
        let mut moves = Vec::new();
        let mut queens = xq;
        while let Some(q) = queens.first() {
            let comp = g.flood(Bb::from_square(q), ex | xq);
            queens = queens - comp;
            let s = Solo {
                queens: comp & xq,
                empties: comp & ex,
                blockers: comp & blockers,
            };
            let before = moves.len();
            Self::plod_line(g, s, &mut moves);
            let filled = (moves.len() - before) as u32 == s.empties.count();
            if !filled && s.empties.count() as usize <= ONE_PLAYER_EXACT_LIMIT {
                moves.truncate(before);
                self.solo_line(g, s, &mut moves);
            }
        }
        if (moves.len() as i64) < y_plod + offset {
            return None;
        }
        let (_, m) = self.loser_bound(g, pos, y);
        let need = (m as i64 + offset).max(0) as usize;
        if moves.len() >= need {
            moves.truncate(need);
            self.successes += 1;
            Some(moves)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amazons_format::Position;

    fn setup(grid: &str, to_move: Color) -> (Geometry, Pos) {
        let p = Position::parse_grid(grid, to_move).unwrap();
        (Geometry::new(p.board), Pos::from_position(&p))
    }

    #[test]
    fn defective_territory_has_exact_value() {
        let mut t = Territory::new();
        // A corridor: one step and shoot back each time, all 3 squares used.
        let (g, p) = setup("####|X...", Color::White);
        assert_eq!(t.loser_bound(&g, &p, Color::Black).1, 3);
        // b2 with empties a1 and c1 only: after b2-a1 the arrow must go back to b2 and the
        // queen is shut in, so only 1 move for 2 empty squares (defective).
        let (g, p) = setup("#X#|.#.", Color::White);
        assert_eq!(t.loser_bound(&g, &p, Color::Black).1, 1);
    }

    #[test]
    fn outlast_found_when_territories_decide() {
        // White has a 4-square pocket, Black a 1-square pocket; White to move wins.
        let (g, p) = setup("X.##|####|O...", Color::White);
        let mut t = Territory::new();
        let line = t
            .outlast(&g, &p, Color::White, 0, 0)
            .expect("white outlasts");
        assert_eq!(line.len(), 2);
        assert!(t.outlast(&g, &p, Color::Black, 0, 0).is_none());
    }
}
