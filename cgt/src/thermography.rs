//! The thermographs of a store's games (memoized, each distinct one shared), their temperatures and means.

use crate::game::{GameId, GameStore};
use crate::rational::Rational;
use crate::thermograph::Thermograph;
use std::sync::Arc;

impl GameStore {
    /// The subzero thermograph of a canonical game (memoized).
    pub fn thermograph(&mut self, g: GameId) -> Thermograph {
        if let Some(t) = self.thermo_cache.get(&g) {
            return Thermograph::clone(t);
        }
        let th = match self.number_value(g) {
            Some(x) if x.is_integer() => Thermograph::mast(x),
            _ => {
                let l = self.left(g).to_vec();
                let r = self.right(g).to_vec();
                // The left options' right walls, and the right options' left walls.
                let ls = l
                    .into_iter()
                    .map(|x| self.thermograph(x).right)
                    .reduce(|s, w| s.max(&w));
                let rs = r
                    .into_iter()
                    .map(|x| self.thermograph(x).left)
                    .reduce(|s, w| s.min(&w));
                match (ls, rs) {
                    (Some(ls), Some(rs)) => Thermograph::from_scaffolds(
                        &ls.tilt(Rational::MINUS_ONE),
                        &rs.tilt(Rational::ONE),
                    ),
                    // Only integers lack options on one side in canonical form.
                    _ => Thermograph::mast(self.left_stop(g)),
                }
            }
        };
        // Far fewer thermographs than games: each distinct one is kept once and shared.
        let shared = match self.thermo_shared.get(&th) {
            Some(t) => Arc::clone(t),
            None => {
                let t = Arc::new(th.clone());
                self.thermo_shared.insert(Arc::clone(&t));
                t
            }
        };
        self.thermo_cache.insert(g, shared);
        th
    }

    /// The temperature (subzero: `-1/2^k` for numbers `m/2^k`, `-1` for integers).
    pub fn temperature(&mut self, g: GameId) -> Rational {
        self.thermograph(g).temperature()
    }

    /// The mean value (mast of the thermograph).
    pub fn mean(&mut self, g: GameId) -> Rational {
        if let Some(n) = self.nus(g) {
            return n.number;
        }
        self.thermograph(g).mast_value()
    }
}
