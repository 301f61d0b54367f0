//! Shared by the commands: the usage error (exit code 2), atomic file writes, opening a
//! certificate to follow, and the winner's first move in a certificate.

use amazons_solver::strategy::{Strategy, StrategyError};
use anyhow::{Context, Result};
use std::path::Path;

/// A bad-input error: exit code 2.
#[derive(Debug)]
pub(crate) struct Usage(pub(crate) String);
impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Usage {}

pub(crate) fn usage<T>(msg: impl Into<String>) -> Result<T> {
    Err(Usage(msg.into()).into())
}

/// Creates the directory `dir` (and its parents) if missing. A path that is there but is
/// not a directory is a usage error that says so.
pub(crate) fn ensure_dir(dir: &Path) -> Result<()> {
    if dir.exists() && !dir.is_dir() {
        return usage(format!("{} is a file, not a directory", dir.display()));
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// Holds campaign directory `dir` for this command ([`amazons_campaign::safety::hold`]:
/// `shared` beside other runs given `--only`, else alone); held by another run, a usage
/// error that names the holder.
pub(crate) fn hold(dir: &Path, shared: bool) -> Result<amazons_campaign::safety::Hold> {
    let held = amazons_campaign::safety::hold(dir, shared).map_err(|e| match e {
        e @ amazons_campaign::shard::ShardError::InUse { .. } => Usage(e.to_string()).into(),
        e => anyhow::Error::from(e),
    })?;
    if let Some(why) = &held.unguarded {
        eprintln!("warning: {why}");
    }
    Ok(held)
}

/// The move `text` read on `position`'s board, if it is legal there; else a usage error
/// that begins with `what` (the option that gave it) and says why.
pub(crate) fn legal_move(
    position: &amazons_format::Position,
    text: &str,
    what: &str,
) -> Result<amazons_format::Move> {
    let m = amazons_format::Move::parse(position.board, text)
        .map_err(|e| Usage(format!("{what}: {e}")))?;
    let g = amazons_solver::Geometry::new(position.board);
    if !amazons_solver::Pos::from_position(position).is_legal(&g, m) {
        return usage(format!(
            "{what} {text}: not a legal move for {} in {}",
            position.to_move,
            position.grid()
        ));
    }
    Ok(m)
}

/// Opens a certificate file or sharded directory to follow; an unreadable path or a
/// directory without a manifest is a usage error.
pub(crate) fn open_strategy(path: &Path) -> Result<Strategy> {
    match Strategy::open(path) {
        Ok(s) => Ok(s),
        Err(e @ (StrategyError::Read { .. } | StrategyError::NoManifest(_))) => {
            usage(e.to_string())
        }
        Err(e) => Err(e.into()),
    }
}

/// Search options for positions a certificate does not cover: `hash_mib` of table, the
/// default evaluation, no node limit, no progress, no databases.
pub(crate) fn leaf_options(hash_mib: usize) -> amazons_solver::Options {
    amazons_solver::Options {
        hash_mib,
        ..Default::default()
    }
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    amazons_format::stored::write_atomic(path, bytes)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The winner's first move recorded in a certificate, if the winner moves first.
pub(crate) use amazons_campaign::index::first_move;
