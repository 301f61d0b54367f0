//! Territory filling: the plodding heuristic and exact one-player search, both with the
//! blocker constraint (a blocker's first move must shoot back onto its origin).
//!
//! Both compute a number of moves the owner can really make, so either is a lower bound
//! on the territory's value; the exact search is the true maximum for the given queens.

use crate::bitboard::Bb;
use crate::db::Database;
use crate::geometry::Geometry;
use amazons_format::fasthash::Fast;
use amazons_format::Move;
use std::collections::HashMap;
use std::sync::Arc;

/// Territories with at most this many empty squares are searched exhaustively.
pub const EXACT_LIMIT: u32 = 12;

/// Memo entries kept before the cache is cleared.
const MEMO_CAP: usize = 1 << 21;

/// A one-player filling problem: the mover's queens, the empties it may use (everything
/// else is a wall), and the queens still bound by the blocker constraint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Solo {
    pub queens: Bb,
    pub empties: Bb,
    pub blockers: Bb,
}

/// The result of filling one territory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fill {
    /// Moves the owner can make.
    pub moves: u32,
    /// Whether `moves` is the exact maximum (exhaustive search).
    pub exact: bool,
    /// Blockers the line needs (the rest may be left unused).
    pub relied: Bb,
}

/// The shape of a blocker territory query (its region is the queens and empties): for
/// the census of which blocker databases the solver meets (`amazons testset blockers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockerShape {
    /// Bounding rectangle of the region, short side first.
    pub short: u8,
    pub long: u8,
    pub squares: u8,
    pub blockers: u8,
    pub normals: u8,
}

impl BlockerShape {
    fn of(g: &Geometry, s: Solo) -> BlockerShape {
        let region = s.queens | s.empties;
        let (mut x0, mut x1, mut y0, mut y1) = (u32::MAX, 0, u32::MAX, 0);
        for sq in region.iter() {
            let (x, y) = (sq as u32 % g.width, sq as u32 / g.width);
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        let (w, h) = ((x1 + 1).saturating_sub(x0), (y1 + 1).saturating_sub(y0));
        BlockerShape {
            short: w.min(h) as u8,
            long: w.max(h) as u8,
            squares: region.count() as u8,
            blockers: s.blockers.count() as u8,
            normals: (s.queens - s.blockers).count() as u8,
        }
    }
}

/// Caches for exact one-player search, and the territory databases when loaded.
#[derive(Debug, Default)]
pub struct Filler {
    memo: HashMap<Solo, u8, Fast>,
    db: Option<Arc<Database>>,
    /// Territory values answered by the databases.
    pub db_hits: u64,
    /// When on: blocker territory queries by shape, `[queries, answered by the databases]`.
    pub census: Option<HashMap<BlockerShape, [u64; 2]>>,
    /// Do not ask the simple (blocker) territory table of the databases.
    pub skip_simple: bool,
    pub skip_blocker: bool,
}

impl Filler {
    pub fn new() -> Filler {
        Filler::default()
    }

    /// A filler that asks the simple and blocker territory databases first.
    pub fn with_database(db: Arc<Database>) -> Filler {
        Filler {
            db: Some(db),
            ..Filler::default()
        }
    }

    /// The databases' exact value of `s`, if they cover it.
    fn db_value(&self, g: &Geometry, s: Solo) -> Option<u32> {
        let db = self.db.as_ref()?;
        let v = if s.blockers.is_empty() {
            if self.skip_simple {
                return None;
            }
            db.lookup_simple(g, s.queens, s.empties)
        } else {
            if self.skip_blocker {
                return None;
            }
            db.lookup_blocker(g, s.queens - s.blockers, s.blockers, s.empties)
        };
        v.map(u32::from)
    }

    /// Exact maximum number of moves of `s.queens` alone in `s.empties` (from the
    /// databases when they cover the territory, else by exhaustive search).
    pub fn exact(&mut self, g: &Geometry, s: Solo) -> u32 {
        if let Some(v) = self.db_value(g, s) {
            self.db_hits += 1;
            return v;
        }
        self.exact_rec(g, s) as u32
    }

    fn exact_rec(&mut self, g: &Geometry, s: Solo) -> u8 {
        if let Some(&v) = self.memo.get(&s) {
            return v;
        }
        let cap = s.empties.count() as u8;
        let mut best = 0u8;
        for_each_successor(g, s, |_, next| {
            best = best.max(1 + self.exact_rec(g, next));
            best < cap
        });
        if self.memo.len() >= MEMO_CAP {
            self.memo.clear();
        }
        self.memo.insert(s, best);
        best
    }

    /// A territory's guaranteed moves: exact when `exact_ok` and small enough, else
    /// plodding. Then blockers the result does not need are dropped one by one, trying
    /// them in the order `prefer_free` (the most useful elsewhere first): a dropped
    /// blocker is a wall for this territory (it never enters it), so it may serve
    /// another area.
    pub fn fill(&mut self, g: &Geometry, s: Solo, exact_ok: bool, prefer_free: &[u8]) -> Fill {
        if self.census.is_some() && s.blockers.any() {
            let answered = self.db_value(g, s).is_some() as u64;
            if let Some(census) = self.census.as_mut() {
                let entry = census.entry(BlockerShape::of(g, s)).or_default();
                entry[0] += 1;
                entry[1] += answered;
            }
        }
        let n = s.empties.count();
        let first = plod(g, s);
        // Exact values come from the databases whenever they cover the territory, and from
        // exhaustive search when allowed and small enough.
        let searchable =
            |f: &Filler, t: Solo| (exact_ok && n <= EXACT_LIMIT) || f.db_value(g, t).is_some();
        let search = first.moves < n && searchable(self, s);
        // A blocker may be dropped when the territory still gives `best` without it; a
        // lower bound (plodding) is enough to show that, so large sub-cases the databases
        // do not cover are never searched exhaustively.
        // A plodded value comes with its line: the line of the territory kept last gives the
        // blockers relied on below, without plodding it again.
        let value = |f: &mut Filler, t: Solo| -> (u32, Option<Fill>) {
            if search && searchable(f, t) {
                (f.exact(g, t), None)
            } else {
                let line = plod(g, t);
                (line.moves, Some(line))
            }
        };
        let best = if search {
            self.exact(g, s)
        } else {
            first.moves
        };
        let order = prefer_free
            .iter()
            .copied()
            .filter(|&b| s.blockers.has(b))
            .chain(s.blockers.iter().filter(|b| !prefer_free.contains(b)));
        // `cur` and, without a search, its plodding line (`first` until a blocker is dropped).
        let (mut cur, mut cur_line) = (s, first);
        for b in order {
            let bb = Bb::from_square(b);
            let without = Solo {
                queens: cur.queens - bb,
                empties: cur.empties,
                blockers: cur.blockers - bb,
            };
            let (moves, line) = value(self, without);
            if moves >= best {
                cur = without;
                cur_line = line.unwrap_or(cur_line);
            }
        }
        let relied = if search {
            cur.blockers
        } else {
            cur_line.relied
        };
        Fill {
            moves: best,
            // A line that fills every square is optimal.
            exact: search || best == n,
            relied,
        }
    }
}

/// Calls `f` with every move of the one-player game `s` and the state after it, in
/// canonical order, until `f` returns false. A blocker's first move must shoot back onto
/// its origin (the blocker constraint), after which it is an ordinary queen.
pub fn for_each_successor(g: &Geometry, s: Solo, mut f: impl FnMut(Move, Solo) -> bool) {
    let occ = g.all - s.empties;
    for q in s.queens.iter() {
        let qb = Bb::from_square(q);
        let lifted = occ - qb;
        for to in g.queen_attacks(q, occ).iter() {
            let tb = Bb::from_square(to);
            let mut arrows = g.queen_attacks(to, lifted | tb);
            if s.blockers.has(q) {
                arrows &= qb;
            }
            for arrow in arrows.iter() {
                let next = Solo {
                    queens: (s.queens - qb) | tb,
                    empties: ((s.empties | qb) - tb) - Bb::from_square(arrow),
                    blockers: s.blockers - qb,
                };
                if !f(Move { from: q, to, arrow }, next) {
                    return;
                }
            }
        }
    }
}

/// The plodding heuristic (paper IV-A1/2): queens step to a neighbouring empty square and
/// shoot back onto the square they left, so each visited square is used once. Normal
/// queens go first; a blocker moves only when no normal queen can (its shoot-back is
/// exactly the blocker constraint, after which it is a normal queen). Among the possible
/// steps the one into the square with the fewest empty neighbours is taken.
pub fn plod(g: &Geometry, mut s: Solo) -> Fill {
    let mut moves = 0;
    let mut relied = Bb::EMPTY;
    loop {
        let mut best: Option<(bool, u32, u8, u8)> = None;
        for q in s.queens.iter() {
            let is_blocker = s.blockers.has(q);
            for to in (g.neighbours(q) & s.empties).iter() {
                let deg = (g.neighbours(to) & s.empties).count();
                let key = (is_blocker, deg);
                if best.is_none_or(|(b, d, _, _)| key < (b, d)) {
                    best = Some((is_blocker, deg, q, to));
                }
            }
        }
        let Some((is_blocker, _, from, to)) = best else {
            return Fill {
                moves,
                exact: false,
                relied,
            };
        };
        if is_blocker {
            relied |= Bb::from_square(from);
        }
        let (qb, tb) = (Bb::from_square(from), Bb::from_square(to));
        s.queens = (s.queens - qb) | tb;
        s.empties = s.empties - tb;
        s.blockers = s.blockers - qb;
        moves += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::Pos;
    use amazons_format::{Color, Position};

    fn solo(grid: &str, blockers: bool) -> (Geometry, Solo) {
        let p = Position::parse_grid(grid, Color::White).expect("grid");
        let g = Geometry::new(p.board);
        let pos = Pos::from_position(&p);
        let s = Solo {
            queens: pos.black,
            empties: pos.empty(&g),
            blockers: if blockers { pos.black } else { Bb::EMPTY },
        };
        (g, s)
    }

    #[test]
    fn defective_simple_territory() {
        // Paper Fig. 7 left / seed 000: one queen, 2x3, one square unreachable.
        let (g, s) = solo("#X#|.#.", false);
        assert_eq!(plod(&g, s).moves, 1);
        let mut f = Filler::new();
        assert_eq!(f.exact(&g, s), 1);
        let fill = f.fill(&g, s, true, &[]);
        assert_eq!((fill.moves, fill.exact), (1, true));
    }

    #[test]
    fn blocker_constraint_costs_moves() {
        // Paper Fig. 7 right: blocker b2 with empties a3, a1, c1. Free, it fills all three
        // (b2-a3xc1, a3-b2xa3, b2-a1xb2); bound by the constraint its first move shoots
        // back onto b2 and it is shut in a corner: bounds [1, 3].
        let (g, free) = solo(".##|#X#|.#.", false);
        let (_, bound) = solo(".##|#X#|.#.", true);
        let mut f = Filler::new();
        assert_eq!(f.exact(&g, free), 3);
        assert_eq!(f.exact(&g, bound), 1);
        assert_eq!(plod(&g, bound).moves, 1);
        assert_eq!(plod(&g, bound).relied.count(), 1);
        let fill = f.fill(&g, bound, true, &[]);
        assert_eq!((fill.moves, fill.exact, fill.relied.count()), (1, true, 1));
    }
}
