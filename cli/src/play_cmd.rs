//! The `amazons play` subcommand: opens the certificate and runs the game on the terminal.

use crate::args::check_hash;
use crate::common::Usage;
use amazons_solver::play::{self, Outcome, Player};
use amazons_solver::strategy::{Strategy, StrategyError};
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `amazons play`.
#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// The certificate file, or a sharded result's directory (DIR/manifest.cert with its
    /// shards in DIR/shards).
    #[arg(value_name = "CERT")]
    pub cert: PathBuf,
    /// Table size in MiB of the solves past the proof's leaves.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    pub hash: usize,
}

/// Runs `amazons play`: exit 0 when the game ends or the user quits.
pub fn run(args: &PlayArgs) -> Result<ExitCode> {
    check_hash(args.hash)?;
    let strategy = match Strategy::open(&args.cert) {
        Ok(s) => s,
        Err(e @ (StrategyError::Read { .. } | StrategyError::NoManifest(_))) => {
            return Err(Usage(e.to_string()).into())
        }
        Err(e) => return Err(e.into()),
    };
    if strategy.claim().spare != 0 {
        return Err(Usage("the certificate's claim holds spare moves: not a game".into()).into());
    }
    let opts = amazons_solver::Options {
        hash_mib: args.hash,
        max_nodes: None,
        progress: false,
        eval: Some(Default::default()),
        db: None,
        active_db: None,
        live_nodes: None,
        numbers: Default::default(),
        max_steps: None,
    };
    let mut player = Player::new(strategy, opts);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let outcome = play::run(&mut player, &mut input, &mut out)?;
    eprintln!(
        "moves from the proof: {}, found by solving: {}; shards entered: {}, transpositions followed: {}",
        player.from_proof,
        player.solved,
        player.strategy.shards_entered,
        player.strategy.transpositions
    );
    Ok(match outcome {
        Outcome::Won(_) | Outcome::Quit => ExitCode::SUCCESS,
    })
}
