//! Amazons positions, notation and proof certificates: the shared data model of the solver and the checker.
//!
//! This crate is the contract between the untrusted solver and the trusted checker. It holds
//! no game logic beyond what is needed to *name* things (squares, moves, positions, claims)
//! and to read and write certificate files. What each proof step means, and why it is sound,
//! is specified in `SPEC.md` (included below).
#![doc = include_str!("../SPEC.md")]

pub mod board;
pub mod cert;
pub mod fasthash;
pub mod file;
pub mod sgf;
pub mod stored;

pub use board::{Board, Cell, Color, Move, NotationError, Position, Square, MAX_SIDE};
pub use cert::{
    Action, Certificate, Claim, LocalClaim, Meta, Step, Symmetry, MAX_SPARE,
    ONE_PLAYER_EXACT_LIMIT, SEARCH_LIMIT,
};
pub use file::{decode, decode_lazy, encode, hash_body, FileError, MAGIC, SENTINEL, VERSION};
