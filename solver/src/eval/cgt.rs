//! Exact combinatorial values of active areas (active-area database, or the cgt crate for small areas), for infinitesimal counting.

use super::bounds::Bounds;
use crate::bitboard::Bb;
use crate::db::active::ActiveDb;
use crate::geometry::Geometry;
use crate::pos::Pos;
use amazons_cgt::{Class, GameStore};
use amazons_format::fasthash::Fast;
use std::collections::HashMap;

/// An area's class and bounds, as the memo keeps them.
type ClassBounds = (Class, Bounds);
use std::sync::Arc;

/// Positions the value search may visit per area before giving up.
const FOLLOWER_LIMIT: usize = 2_000;
/// Memo entries (and value computations) before the game store is renewed, since its
/// caches only grow.
const RESET_AFTER: usize = 50_000;

/// A memoized source of exact area values.
#[derive(Default)]
pub struct Values {
    store: Option<GameStore>,
    memo: HashMap<(Bb, Bb, Bb), Option<ClassBounds>, Fast>,
    /// The active-area database, asked before anything is computed.
    active: Option<Arc<ActiveDb>>,
    /// Areas answered by the active-area database.
    pub db_hits: u64,
    /// Areas valued by computation, and areas too complex for the follower limit.
    pub valued: u64,
    pub too_complex: u64,
    /// When on: what the active-area database was asked (see [`ActiveCensus`]).
    pub census: Option<Box<ActiveCensus>>,
}

/// Largest area size (empty squares) counted apart in an [`ActiveCensus`]; larger
/// areas share the last slot.
pub const CENSUS_SIZES: usize = 40;

/// Active-area database lookups: how many, how many answered, by the area's empty
/// squares, and the time they took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveCensus {
    /// Lookups (mixed basic areas asked) by empty squares.
    pub asked: [u64; CENSUS_SIZES + 1],
    /// Of those, answered by the table.
    pub answered: [u64; CENSUS_SIZES + 1],
    /// Time spent in lookups.
    pub nanos: u64,
    /// Evaluations with at least one answered area, and of those, the evaluations that
    /// decided the position.
    pub evals_with_hit: u64,
    pub decided_with_hit: u64,
}

impl Default for ActiveCensus {
    fn default() -> Self {
        ActiveCensus {
            asked: [0; CENSUS_SIZES + 1],
            answered: [0; CENSUS_SIZES + 1],
            nanos: 0,
            evals_with_hit: 0,
            decided_with_hit: 0,
        }
    }
}

impl std::fmt::Debug for Values {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Values({} memoized)", self.memo.len())
    }
}

impl Values {
    /// Values that come from the active-area database where it covers an area.
    pub fn with_active(active: Arc<ActiveDb>) -> Values {
        Values {
            active: Some(active),
            ..Values::default()
        }
    }

    /// The class and exact bounds of the area `squares` of `pos` from the active-area
    /// database, if it covers the area (a lookup, no computation).
    pub fn lookup(&mut self, g: &Geometry, pos: &Pos, squares: Bb) -> Option<(Class, Bounds)> {
        let db = self.active.as_ref()?;
        let empties = pos.empty(g) & squares;
        let Some(census) = self.census.as_mut() else {
            let e = db.lookup_active(g, pos.white & squares, pos.black & squares, empties)?;
            self.db_hits += 1;
            return Some((e.class, e.exact_bounds));
        };
        let t = std::time::Instant::now();
        let found = db.lookup_active(g, pos.white & squares, pos.black & squares, empties);
        census.nanos += t.elapsed().as_nanos() as u64;
        let size = (empties.count() as usize).min(CENSUS_SIZES);
        census.asked[size] += 1;
        let e = found?;
        census.answered[size] += 1;
        self.db_hits += 1;
        Some((e.class, e.exact_bounds))
    }

    /// The class and exact bounds of the area `squares` of `pos` (everything else taken
    /// as arrows) computed by the cgt crate, or `None` when it is too complex.
    pub fn area(&mut self, g: &Geometry, pos: &Pos, squares: Bb) -> Option<(Class, Bounds)> {
        let key = (
            pos.white & squares,
            pos.black & squares,
            pos.empty(g) & squares,
        );
        if let Some(v) = self.memo.get(&key) {
            return *v;
        }
        if self.memo.len() >= RESET_AFTER {
            self.memo.clear();
            self.store = None;
        }
        let local = Pos {
            white: key.0,
            black: key.1,
            arrows: pos.arrows | (g.all - squares),
            side: pos.side,
        };
        let store = self.store.get_or_insert_with(GameStore::new);
        let result = match store.value_of_area_with_limit(&local.to_position(g), FOLLOWER_LIMIT) {
            Ok(v) => {
                self.valued += 1;
                let class = store.classify(v);
                let bounds = crate::db::active::to_eval_bounds(store.bounds(v));
                Some((class, bounds))
            }
            Err(_) => {
                self.too_complex += 1;
                None
            }
        };
        self.memo.insert(key, result);
        result
    }
}
