//! The `amazons play` subcommand: opens the certificate and runs the game on the terminal.

use crate::args::check_hash;
use crate::common::{leaf_options, open_strategy, Usage};
use amazons_solver::play::{self, Outcome, Player};
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
    let strategy = open_strategy(&args.cert)?;
    if strategy.claim().spare != 0 {
        return Err(Usage("the certificate's claim holds spare moves: not a game".into()).into());
    }
    let opts = leaf_options(args.hash);
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
