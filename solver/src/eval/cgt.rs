//! Exact combinatorial values of small active areas (cgt crate), for infinitesimal counting.

use super::bounds::Bounds;
use crate::bitboard::Bb;
use crate::geometry::Geometry;
use crate::pos::Pos;
use amazons_cgt::{Class, GameStore};
use std::collections::HashMap;

/// Positions the value search may visit per area before giving up.
const FOLLOWER_LIMIT: usize = 2_000;
/// Memo entries (and value computations) before the game store is renewed, since its
/// caches only grow.
const RESET_AFTER: usize = 50_000;

/// A memoized source of exact area values.
#[derive(Default)]
pub struct Values {
    store: Option<GameStore>,
    memo: HashMap<(Bb, Bb, Bb), Option<(Class, Bounds)>>,
    /// Areas valued exactly, and areas too complex for the follower limit.
    pub valued: u64,
    pub too_complex: u64,
}

impl std::fmt::Debug for Values {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Values({} memoized)", self.memo.len())
    }
}

impl Values {
    /// The class and exact bounds of the area `squares` of `pos` (everything else taken
    /// as arrows), or `None` when it is too complex.
    pub fn area(&mut self, g: &Geometry, pos: &Pos, squares: Bb) -> Option<(Class, Bounds)> {
        let key = (
            pos.white & squares,
            pos.black & squares,
            pos.empty(g) & squares,
        );
        if let Some(v) = self.memo.get(&key) {
            return v.clone();
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
        self.memo.insert(key, result.clone());
        result
    }
}
