//! The `amazons` command: parses the command line, runs the subcommand and turns its
//! result into the exit code (0 done, 1 failed or refuted, 2 bad input).

use anyhow::Result;
use args::{Cli, Command};
use clap::Parser;
use common::Usage;
use std::process::ExitCode;

mod args;
mod bench;
mod certs;
mod common;
mod db;
mod export_cmd;
mod inspect;
mod json_cmd;
mod out;
mod play_cmd;
mod sharded;
mod shrink_cmd;
mod solve;
mod testset;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<Usage>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Perft { args, setup, json } => inspect::perft(args, setup, json),
        Command::Report(args) => certs::report(&args),
        Command::Show { board, setup } => inspect::show(board, setup),
        Command::Play(args) => play_cmd::run(&args),
        Command::Export(args) => export_cmd::run(&args),
        Command::Index { dir } => certs::index(&dir),
        Command::Compress { paths } => certs::compress(&paths),
        Command::Compact {
            path,
            search,
            trim,
            limit,
        } => certs::compact(&path, search, trim, limit),
        Command::Prune {
            dir,
            dry_run,
            max_mib,
        } => certs::prune(&dir, dry_run, max_mib),
        Command::Db { command } => db::db(command),
        Command::Testset { command } => testset::run(command),
        Command::Value { board, setup, json } => inspect::value(board, setup, json),
        Command::Bench {
            boards,
            hash,
            solver,
            search,
            threads,
        } => bench::bench(&boards, hash, &solver, &search, &threads),
        Command::Check {
            files,
            json,
            threads,
        } => certs::check(&files, json, threads),
        Command::Solve {
            board,
            setup,
            output,
            hash,
            max_nodes,
            solver,
            max_steps,
            search,
            sharding,
            json,
        } => solve::run(
            board, setup, output, hash, max_nodes, solver, max_steps, search, sharding, json,
        ),
        Command::Tasks {
            split,
            hash,
            pending,
        } => sharded::tasks(split, hash, pending),
        Command::Manifest { split } => sharded::manifest(split),
        Command::Rank {
            board,
            setup,
            hash,
            max_nodes,
            lost,
            top,
            search,
            json,
        } => inspect::rank(board, setup, hash, max_nodes, &lost, top, search, json),
        Command::Sample(args) => sharded::sample(args),
        Command::Shrink(args) => shrink_cmd::run(args),
        Command::Eval {
            board,
            setup,
            eval,
            json,
        } => inspect::eval(board, setup, eval, json),
    }
}
