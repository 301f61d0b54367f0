//! `amazons testset`: the self-play test set (paper Tables II and III, Fig. 13).

use crate::args::{active_database_in, EvalArgs};
use crate::common::usage;
use crate::db::DbDir;
use crate::out::{print, println};
use amazons_solver::solvers::SolverKind;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `amazons testset` subcommands.
#[derive(Subcommand, Debug)]
pub(crate) enum TestsetCommand {
    /// Play self-play games with the simple greedy player and write DIR/WxH.txt per board.
    Generate {
        /// Directory of the game files.
        #[arg(long, default_value = "tests/data/selfplay")]
        dir: PathBuf,
        /// Boards.
        #[arg(long, value_delimiter = ',', default_value = "5x5,6x5,6x6")]
        boards: Vec<String>,
        /// Games per board.
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Seed of the player.
        #[arg(long, default_value_t = 2014)]
        seed: u64,
    },
    /// Evaluate every position of the games from the end backwards: statically with each
    /// evaluation configuration, and by df-pn within a node budget. Prints Markdown tables.
    Table {
        /// Directory of the game files.
        #[arg(long, default_value = "tests/data/selfplay")]
        dir: PathBuf,
        /// Boards.
        #[arg(long, value_delimiter = ',', default_value = "5x5,6x5,6x6")]
        boards: Vec<String>,
        /// df-pn node budget per position.
        #[arg(long, default_value_t = 100_000)]
        budget: u64,
        /// Use only the first N games of each file.
        #[arg(long, value_name = "N")]
        max_games: Option<usize>,
        /// Add columns with the territory databases (the paper's "DB" columns), built into
        /// --db-dir first if missing.
        #[arg(long)]
        db: bool,
        /// Add columns with the active-area (combinatorial game) database: the full
        /// evaluation (and with --db, the territory databases too) plus the active table in
        /// --db-dir, whatever preset built it (the quick preset is built if none is there).
        #[arg(long)]
        active_db: bool,
        #[command(flatten)]
        db_dir: DbDir,
    },
    /// Which blocker territories df-pn meets on a board: searches from the test-set
    /// positions with the databases, counting blocker territory queries by shape
    /// (bounding rectangle, squares, blockers, normal queens) and how many the databases
    /// answered. Prints a markdown table.
    Blockers {
        /// Directory of the game files.
        #[arg(long, default_value = "tests/data/selfplay")]
        dir: PathBuf,
        /// Boards.
        #[arg(long, value_delimiter = ',', default_value = "6x5")]
        boards: Vec<String>,
        /// df-pn node budget per position.
        #[arg(long, default_value_t = 5_000)]
        budget: u64,
        /// Use only the first N games of each file.
        #[arg(long, value_name = "N", default_value_t = 20)]
        max_games: usize,
        /// Only positions after at least this many moves.
        #[arg(long, default_value_t = 6)]
        from_move: usize,
        /// Rows to print per board.
        #[arg(long, default_value_t = 25)]
        top: usize,
        #[command(flatten)]
        db_dir: DbDir,
    },
    /// The solver comparison of paper V-A (Fig. 13): test-set positions ordered by empty
    /// squares, each solved with ab and with df-pn in the 8 combinations of the simple
    /// territory, blocker territory and active-area databases; writes fig13.csv,
    /// fig13.md and one SVG plot per board (nodes on a log axis) into -o DIR. Every
    /// finished solve is appended to DIR/fig13-BOARD.journal: rerunning the same command
    /// resumes (solves in the journal are not repeated).
    Fig13(Fig13Args),
}

/// The options of `amazons testset fig13`.
#[derive(Args, Debug)]
pub(crate) struct Fig13Args {
    /// Directory of the game files.
    #[arg(long, default_value = "tests/data/selfplay")]
    dir: PathBuf,
    /// Boards.
    #[arg(long, value_delimiter = ',', default_value = "5x5,6x6")]
    boards: Vec<String>,
    /// Test cases per board: distinct positions of the games whose sizes (empty
    /// squares) spread evenly from --min-empties to --max-empties.
    #[arg(long, default_value_t = 30, value_name = "N")]
    positions: usize,
    /// Empty squares of the smallest case (one value for every board, or one per
    /// board in --boards order).
    #[arg(long, value_delimiter = ',', default_value = "8", value_name = "E")]
    min_empties: Vec<u32>,
    /// Empty squares of the largest case (one value, or one per board; default: the
    /// start position's).
    #[arg(long, value_delimiter = ',', value_name = "E")]
    max_empties: Vec<u32>,
    /// A configuration over the node budget on this many consecutive cases of a board
    /// is not run on the board's larger cases (its line ends); 0: run every case.
    #[arg(long, default_value_t = 1, value_name = "K")]
    give_up_after: usize,
    /// Node budget per solve, search and extraction each (one value for every board,
    /// or one per board).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "10000000",
        value_name = "N",
        value_parser = crate::args::node_count
    )]
    max_nodes: Vec<u64>,
    /// Solve nothing: write the tables and plots from the journals in -o DIR alone
    /// (solves they do not hold are shown as not run).
    #[arg(long)]
    journal_only: bool,
    /// ab's table: 2^N entries (paper: 25).
    #[arg(long, default_value_t = 25, value_name = "N")]
    ab_log2: u32,
    /// df-pn's table: 2^N entries (paper: 22).
    #[arg(long, default_value_t = 22, value_name = "N")]
    dfpn_log2: u32,
    /// Table of the plain df-pn that proves evaluation-decided subtrees in extraction.
    #[arg(long, default_value_t = 64, value_name = "MIB")]
    plain_mib: usize,
    /// Only these searches (`ab`, `dfpn`).
    #[arg(long, value_delimiter = ',', value_name = "S,..")]
    #[arg(default_value = "ab,dfpn")]
    solvers: Vec<SolverKind>,
    /// Output directory.
    #[arg(short, long, default_value = "fig13")]
    output: PathBuf,
    #[command(flatten)]
    db_dir: DbDir,
}

/// The first board of `boards` whose game file is not in `dir`, as a message that says
/// where the test set is: checked before any database is built or any game is read.
fn missing_games(dir: &Path, boards: &[String]) -> Option<String> {
    let board = boards
        .iter()
        .find(|b| !dir.join(amazons_solver::testset::file_name(b)).is_file())?;
    Some(format!(
        "{}: no game file for {board} (the test set is the repository's tests/data/selfplay, \
         which --dir defaults to relative to the current directory: run from the \
         repository's root, pass --dir, or write one with `amazons testset generate`)",
        dir.join(amazons_solver::testset::file_name(board))
            .display()
    ))
}

/// Runs an `amazons testset` subcommand.
pub(crate) fn run(command: TestsetCommand) -> Result<ExitCode> {
    let games = match &command {
        TestsetCommand::Generate { .. } => None,
        TestsetCommand::Fig13(args) => Some((&args.dir, &args.boards)),
        TestsetCommand::Blockers { dir, boards, .. }
        | TestsetCommand::Table { dir, boards, .. } => Some((dir, boards)),
    };
    if let Some(message) = games.and_then(|(dir, boards)| missing_games(dir, boards)) {
        return usage(message);
    }
    match command {
        TestsetCommand::Generate {
            dir,
            boards,
            games,
            seed,
        } => {
            let names: Vec<&str> = boards.iter().map(String::as_str).collect();
            crate::common::ensure_dir(&dir)?;
            for path in amazons_solver::testset::generate(&dir, &names, games, seed)? {
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        TestsetCommand::Fig13(args) => fig13(args),
        TestsetCommand::Blockers {
            dir,
            boards,
            budget,
            max_games,
            from_move,
            top,
            db_dir,
        } => {
            let database = EvalArgs::with_db(&db_dir)
                .database()?
                .context("the census needs the territory databases")?;
            for board in &boards {
                let file = dir.join(amazons_solver::testset::file_name(board));
                let (positions, census) = amazons_solver::testset::blocker_census(
                    &file,
                    database.clone(),
                    budget,
                    Some(max_games),
                    from_move,
                )?;
                println!(
                    "{}",
                    amazons_solver::testset::census_markdown(board, positions, &census, top)
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        TestsetCommand::Table {
            dir,
            boards,
            budget,
            max_games,
            db,
            active_db,
            db_dir,
        } => {
            let names: Vec<&str> = boards.iter().map(String::as_str).collect();
            let mut opts = amazons_solver::testset::TableOptions {
                node_budget: budget,
                max_games,
                progress: true,
                ..Default::default()
            };
            if db {
                if let Some(database) = EvalArgs::with_db(&db_dir).database()? {
                    use amazons_solver::testset::Config;
                    opts.static_configs
                        .push(Config::with_database("full+DB", database.clone()));
                    // The paper's "DB" column: heuristic territory bounds except where the
                    // databases answer (against "-exact terr.", its "no DB" column).
                    let mut heuristic_db =
                        Config::with_database("-exact terr.+DB", database.clone());
                    heuristic_db.eval = Some(amazons_solver::eval::EvalConfig {
                        exact_territories: false,
                        ..Default::default()
                    });
                    opts.static_configs.push(heuristic_db);
                    opts.dfpn_configs
                        .push(Config::with_database("full+DB", database));
                }
            }
            if active_db {
                let dir = EvalArgs::with_db(&db_dir).database_dir()?;
                let active = active_database_in(&dir)?;
                // The paper's Fig. 13: the same evaluation with and without the active
                // table, for every "full" column (with the territory databases too when
                // --db is given).
                for configs in [&mut opts.static_configs, &mut opts.dfpn_configs] {
                    let extra: Vec<_> = configs
                        .iter()
                        .filter(|c| c.name.starts_with("full"))
                        .map(|c| c.with_active(active.clone()))
                        .collect();
                    configs.extend(extra);
                }
            }
            print!("{}", amazons_solver::testset::report(&dir, &names, &opts)?);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `amazons testset fig13`: the solves, then the tables and plots.
fn fig13(args: Fig13Args) -> Result<ExitCode> {
    use amazons_solver::fig13;
    for (name, v) in [
        ("--min-empties", &args.min_empties),
        ("--max-empties", &args.max_empties),
    ] {
        if v.len() > 1 && v.len() != args.boards.len() {
            return usage(format!("{name}: one value, or one per board"));
        }
    }
    if !(10..=30).contains(&args.ab_log2) || !(10..=30).contains(&args.dfpn_log2) {
        return usage("--ab-log2 and --dfpn-log2 must be between 10 and 30");
    }
    let configs: Vec<fig13::SolverConfig> = fig13::SolverConfig::paper()
        .into_iter()
        .filter(|c| args.solvers.contains(&c.kind))
        .collect();
    let databases = EvalArgs::with_db(&args.db_dir);
    let db = if configs.iter().any(|c| c.simple || c.blocker) {
        databases.database()?
    } else {
        None
    };
    let active = if configs.iter().any(|c| c.active) {
        Some(active_database_in(&databases.database_dir()?)?)
    } else {
        None
    };
    let opts = fig13::Fig13Options {
        boards: args.boards,
        positions: args.positions,
        min_empties: args.min_empties,
        max_empties: args.max_empties,
        give_up_after: args.give_up_after,
        max_nodes: args.max_nodes,
        journal_only: args.journal_only,
        ab_log2: args.ab_log2,
        dfpn_log2: args.dfpn_log2,
        plain_mib: args.plain_mib,
        configs,
        db,
        active,
    };
    let runs = fig13::run(&args.dir, &opts, Some(&args.output), &mut |line| {
        eprintln!("{line}")
    })?;
    for path in fig13::write_all(&args.output, &runs, &opts)? {
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
