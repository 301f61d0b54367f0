//! The untrusted Amazons solver: bitboard rules engine, df-pn search, certificate output.
//!
//! The solver may be as clever as it likes; nothing it claims is believed until the
//! independent `amazons-checker` accepts the certificate it writes.

pub mod bitboard;
pub mod dfpn;
pub mod emit;
pub mod geometry;
pub mod pos;
pub mod territory;
pub mod tt;

use amazons_format::{Certificate, Claim, Color, Meta, Move, Position};
use std::time::{Duration, Instant};

pub use dfpn::{Options, Search};
pub use geometry::Geometry;
pub use pos::{perft, Pos};

/// Why a solve produced no certificate.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error("node budget of {0} nodes exhausted before the position was solved")]
    Budget(u64),
    #[error(transparent)]
    Emit(#[from] emit::EmitError),
}

/// A solved position with its certificate.
#[derive(Debug, Clone)]
pub struct Solved {
    pub winner: Color,
    /// The winning first move when the side to move wins.
    pub first_move: Option<Move>,
    pub certificate: Certificate,
    /// df-pn nodes of the search (excluding extraction re-searches).
    pub search_nodes: u64,
    /// All nodes, including re-searches during extraction.
    pub total_nodes: u64,
    pub search_time: Duration,
    pub extract_time: Duration,
    pub researches: u64,
}

/// Solves `position` and writes the proof as a certificate (not yet checked).
pub fn solve(position: &Position, opts: &Options, note: &str) -> Result<Solved, SolveError> {
    let g = Geometry::new(position.board);
    let root = Pos::from_position(position);
    let mut search = Search::new(&g, opts);
    let t0 = Instant::now();
    let winner = search
        .solve(&root)
        .ok_or(SolveError::Budget(opts.max_nodes.unwrap_or(u64::MAX)))?;
    let search_time = t0.elapsed();
    let search_nodes = search.nodes;
    let t1 = Instant::now();
    let done_cap = (opts.hash_mib.max(1) << 20) / 128;
    let mut emitter = emit::Emitter::new(&mut search, done_cap);
    emitter.prove(&root, winner)?;
    let steps = std::mem::take(&mut emitter.steps);
    let researches = emitter.researches;
    let first_move = match steps.first() {
        Some(amazons_format::Step::Choice(amazons_format::Action::Board(m))) => Some(*m),
        _ => None,
    };
    let extract_time = t1.elapsed();
    let total_nodes = search.nodes;
    let certificate = Certificate {
        root: Claim {
            position: position.clone(),
            spare: 0,
            winner,
        },
        steps,
        meta: Meta {
            producer: format!("amazons-solver {}", env!("CARGO_PKG_VERSION")),
            nodes: total_nodes,
            millis: (search_time + extract_time).as_millis() as u64,
            note: note.to_string(),
        },
    };
    Ok(Solved {
        winner,
        first_move,
        certificate,
        search_nodes,
        total_nodes,
        search_time,
        extract_time,
        researches,
    })
}
