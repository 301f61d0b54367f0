//! The trusted checker of Amazons proof certificates: plain game rules and the proof rules of `format/SPEC.md`.
//!
//! This crate is the small trusted base of the project. It depends on `amazons-format` (the
//! data model and file layout) and `thiserror` only, and shares no code with the solver: its
//! rules are written plainly (arrays and ray walks, no bitboards) so that they can be read
//! against the specification. It stays under 2,000 non-blank, non-comment lines in
//! `src/` (the tests live in `tests/unit/`, one test per rule showing a wrong use rejected).
//!
//! - [`rules`]: move generation, legality, play, the outlast region, components, the
//!   exhaustive one-player maximum and the two-player search of small positions.
//! - `mask`: sets of squares as 64- or 128-bit masks and the board's rays, for those searches.
//! - [`proof`]: [`check`] and [`check_bytes`], one function per proof rule (SPEC section 5).
//! - [`parallel`]: [`check_parallel`], a manifest's shards checked on several threads.
//! - [`cli`]: the command-line front end shared by `amazons-check` and `amazons check`.
//!
//! # Example
//!
//! Checking a certificate file from Rust, as `amazons-check` does: read it (decompressing a
//! `.cert.zst`), take shards from the `shards/` directory beside it, and tell a wrong proof
//! from a damaged file.
//!
//! ```
//! use amazons_checker::{check_bytes_with, cli::DirShards, CheckFileError};
//! use amazons_format::{encode, stored, Certificate, Claim, Color, Meta, Position, Step};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A certificate to check: on a2 ("X|O", 1x2 board) Black to move has no move.
//! let claim = Claim {
//!     position: Position::parse_grid("X|O", Color::Black)?,
//!     spare: 0,
//!     winner: Color::White,
//! };
//! let cert = Certificate { root: claim, steps: vec![Step::NoMove], meta: Meta::default() };
//! let dir = std::env::temp_dir().join(format!("amazons-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("tiny.cert");
//! std::fs::write(&path, encode(&cert)?)?;
//!
//! let bytes = stored::read(&path)?;
//! let shards = DirShards::scan(&dir.join("shards"));
//! match check_bytes_with(&bytes, &shards) {
//!     Ok(report) => assert_eq!(report.claim, "White wins 1x2 X|O, Black to move"),
//!     Err(CheckFileError::Wrong(e)) => panic!("wrong proof: {e}"),
//!     Err(CheckFileError::Unreadable(e)) => panic!("damaged file: {e}"),
//! }
//! std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```

pub mod cli;
mod mask;
pub mod parallel;
pub mod proof;
pub mod rules;

pub use parallel::{check_parallel, Progress};
pub use proof::{
    actions, after, check, check_bytes, check_bytes_with, check_with, live_components,
    outlast_line, part_claims, whole_board, CheckError, CheckFileError, Failure, NoShards,
    PartClaim, Proven, Report, Shards, MAX_DEPTH, MAX_SHARD_DEPTH,
};
