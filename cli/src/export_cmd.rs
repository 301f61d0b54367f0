//! The `amazons export` subcommand and the `--sgf FILE` position option.

use crate::args::check_hash;
use crate::common::{leaf_options, open_strategy, write_atomic, Usage};
use amazons_format::Position;
use amazons_solver::export::{self, ExportOptions};
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `amazons export`.
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The certificate file, or a sharded result's directory.
    #[arg(value_name = "CERT")]
    pub cert: PathBuf,
    /// The SGF file to write (atomically).
    #[arg(long, value_name = "OUT")]
    pub sgf: PathBuf,
    /// Plies (single moves) from the root.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub plies: usize,
    /// End a line where the proof ends in a leaf (outlast, sum) instead of finding the
    /// winner's moves past it by solving.
    #[arg(long)]
    pub no_solve: bool,
    /// Table size in MiB of the solves past the proof's leaves.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    pub hash: usize,
}

/// Runs `amazons export`.
pub fn run(args: &ExportArgs) -> Result<ExitCode> {
    check_hash(args.hash)?;
    if args.plies > 40 {
        return Err(Usage(
            "--plies: at most 40 (the tree grows by the branching factor per reply)".into(),
        )
        .into());
    }
    let mut strategy = open_strategy(&args.cert)?;
    let eo = ExportOptions {
        plies: args.plies,
        solve_leaves: !args.no_solve,
        opts: leaf_options(args.hash),
    };
    let source = args.cert.file_name().map_or_else(
        || args.cert.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let (text, stats) = export::export(&mut strategy, &source, &eo)?;
    write_atomic(&args.sgf, text.as_bytes())?;
    println!(
        "wrote {}: {} plies, {} moves ({} found by solving past the proof's leaves, {} lines ending at a leaf)",
        args.sgf.display(),
        args.plies,
        stats.nodes,
        stats.solved,
        stats.leaves
    );
    Ok(ExitCode::SUCCESS)
}

/// The position of `--sgf FILE`: bad files and bad SGF are usage errors (exit 2).
pub fn sgf_position(path: Option<&Path>) -> Result<Position> {
    let Some(path) = path else {
        return Err(Usage("no SGF file given".into()).into());
    };
    let text =
        std::fs::read(path).map_err(|e| Usage(format!("{}: cannot read: {e}", path.display())))?;
    let text = String::from_utf8_lossy(&text);
    export::position_from_sgf(&text).map_err(|e| Usage(format!("{}: {e}", path.display())).into())
}
