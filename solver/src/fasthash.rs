//! The fast hasher of the solver's memo tables: the one in `amazons-format`, shared with the checker.

pub use amazons_format::fasthash::{Fast, FastHasher};
