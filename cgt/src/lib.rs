//! Combinatorial game theory for Amazons areas: exact rationals, canonical short partizan games in a hash-consed store, subzero thermographs, classification and bounds.
//!
//! Conventions: Left = Black = positive, Right = White = negative.
//!
//! * [`Rational`]: exact `i64` rationals.
//! * [`GameStore`] / [`GameId`]: canonical forms, built from option lists, with sums,
//!   negation, comparison, stops, outcome classes and CGSuite-style printing and parsing.
//! * [`Thermograph`]: thermographs with a tax down to -1 (subzero thermography), as exact
//!   piecewise-linear walls, with the CGSuite point notation.
//! * [`Class`], [`Bound`], [`BoundKind`]: classification and (tightened/relaxed) bounds of
//!   the paper's section II-D.
//! * [`snapshot`]: a store's games written out and read back under the same ids
//!   (checkpoints of long database builds).
//! * [`amazons`]: plain Amazons move generation and the canonical value of a small area.
//!
//! Modules in layers, each using only those below it: `rational`, `fx`, `error`;
//! `thermograph` (walls as functions, no games) and `bits` (area bitboards); `game` (the
//! store and its algebra); `thermography`, `snapshot`; `print`, `parse`; `classify`;
//! `amazons`.

pub mod amazons;
mod bits;
pub mod classify;
mod error;
mod fx;
pub mod game;
pub mod parse;
mod print;
pub mod rational;
pub mod snapshot;
pub mod thermograph;
mod thermography;

pub use amazons::{
    followers, followers_limited, search_first_player_wins, search_first_player_wins_limited,
    DEFAULT_FOLLOWER_LIMIT,
};
pub use classify::{Bound, BoundKind, Class, InfKind};
pub use error::CgtError;
pub use game::{GameId, GameStore, Nus, Outcome};
pub use rational::Rational;
pub use snapshot::SnapshotError;
pub use thermograph::{Thermograph, Trajectory};
