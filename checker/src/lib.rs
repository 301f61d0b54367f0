//! The trusted checker of Amazons proof certificates: plain game rules and the proof rules of `format/SPEC.md`.
//!
//! This crate is the small trusted base of the project. It depends on `amazons-format` (the
//! data model and file layout) and `thiserror` only, and shares no code with the solver: its
//! rules are written plainly (arrays and ray walks, no bitboards) so that they can be read
//! against the specification. The budget is under about 900 non-blank, non-comment lines in
//! `src/` (the tests live in `tests/unit/`, one test per rule showing a wrong use rejected).
//!
//! - [`rules`]: move generation, legality, play, the outlast region, components and the
//!   exhaustive one-player maximum.
//! - [`proof`]: [`check`] and [`check_bytes`], one function per proof rule (SPEC section 5).
//! - [`cli`]: the command-line front end shared by `amazons-check` and `amazons check`.

pub mod cli;
pub mod proof;
pub mod rules;

pub use proof::{
    after, check, check_bytes, check_bytes_with, check_with, CheckError, CheckFileError, Failure,
    NoShards, Report, Shards, MAX_DEPTH, MAX_SHARD_DEPTH,
};
