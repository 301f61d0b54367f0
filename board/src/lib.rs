//! The bottom layer of the solver and its databases: square sets, board geometry, exact bounds.

pub mod bitboard;
pub mod bounds;
pub mod geometry;

pub use geometry::Geometry;
