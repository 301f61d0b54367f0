//! The `amazons` command: perft, solve (with certificate), check, show.

use amazons_format::{Color, Move, Position, Step};
use amazons_solver::{perft, Geometry, Options, Pos};
use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

mod export_cmd;
mod json_cmd;
mod play_cmd;

/// Standard output closed by the reader (`amazons tasks ... | head`): stop quietly, as a
/// program killed by SIGPIPE would, instead of panicking; other write errors are reported.
fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: writing to standard output: {e}");
    std::process::exit(1);
}

// `print!` and `println!` through [`stdout_failed`]; these shadow the standard macros in
// this file (the standard ones panic when the pipe is closed).
macro_rules! print {
    ($($arg:tt)*) => {{
        if let Err(e) = write!(std::io::stdout().lock(), $($arg)*) {
            stdout_failed(e)
        }
    }};
}
macro_rules! println {
    ($($arg:tt)*) => {{
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            stdout_failed(e)
        }
    }};
}

/// Solve small Amazons boards and publish checkable proof certificates.
///
/// Boards are `WxH` (width x height, files a.., ranks 1..) with the small-board start
/// (White on b1, (W-1)1, a2, W2; Black mirrored on the top two ranks; White moves
/// first), or `standard` for the 10x10 tournament start. Moves are written
/// `b1-b4xd4` (queen from-to, then the arrow square).
#[derive(Parser, Debug)]
#[command(name = "amazons", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the move tree to a given depth. Last line: the count.
    Perft {
        /// `BOARD DEPTH`, or just `DEPTH` with --position.
        #[arg(required = true, num_args = 1..=2, value_name = "BOARD DEPTH")]
        args: Vec<String>,
        #[command(flatten)]
        setup: Setup,
        /// Print one JSON object on stdout instead of the text (fields: see the README).
        #[arg(long)]
        json: bool,
    },
    /// Solve a position, write its certificate and check it. Last line: `result: X wins`.
    Solve {
        /// Board (`WxH` or `standard`); omit with --position.
        board: Option<String>,
        #[command(flatten)]
        setup: Setup,
        /// Certificate file to write (default: a name under the current directory).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Transposition table size in MiB (bounds the search memory). Default 512; with
        /// --shards, 65% of the memory available (MemAvailable), shared among the threads.
        #[arg(long, value_name = "MIB")]
        hash: Option<usize>,
        /// Give up after this many search nodes (with --shards: per task; see --split-depth).
        #[arg(long, value_name = "N")]
        max_nodes: Option<u64>,
        /// The search: `dfpn` (df-pn) or `ab` (alpha-beta with iterative deepening, a
        /// transposition table and killer/history ordering; not with --shards).
        #[arg(long, default_value = "dfpn", value_name = "SOLVER")]
        solver: amazons_solver::solvers::SolverKind,
        /// Give up writing the proof past this many certificate steps (exit 1, no file).
        /// A proof whose steps no longer fit in memory gives the same error without this
        /// option. With --shards and --split-depth such a task is split like one over
        /// --max-nodes, which also keeps shards small.
        #[arg(long, value_name = "N")]
        max_steps: Option<u64>,
        #[command(flatten)]
        search: SearchFlags,
        #[command(flatten)]
        sharding: Sharding,
        /// Print one JSON object on stdout instead of the text (fields: see the README).
        #[arg(long)]
        json: bool,
    },
    /// Print one `amazons solve` command per task of a sharded solve (for GNU parallel or a
    /// Slurm array job); afterwards `amazons manifest` assembles the result.
    Tasks {
        #[command(flatten)]
        split: SplitRoot,
        /// Table size in MiB for each task's command.
        #[arg(long, default_value_t = 512, value_name = "MIB")]
        hash: usize,
        /// Only the tasks still to solve (no shard on disk that checks; every shard there
        /// is checked first), those an earlier run split or started and left open last: to resubmit
        /// what is left of a batch.
        #[arg(long)]
        pending: bool,
    },
    /// Assemble (and check) the manifest of a sharded result whose shards are all on disk.
    Manifest {
        #[command(flatten)]
        split: SplitRoot,
    },
    /// Check certificate files (directories: every *.cert and *.cert.zst inside). Exit 0
    /// verified, 1 wrong, 2 unreadable (a missing or damaged shard included).
    Check {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print one JSON object on stdout instead of the text (fields: see the README).
        #[arg(long)]
        json: bool,
        /// Threads checking a manifest's shards (default: all cores).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        threads: Option<u64>,
    },
    /// Benchmarks: perft 5x6 depth 3, then solve and check each board. Prints a table.
    Bench {
        /// Boards to solve and check.
        #[arg(long, value_delimiter = ',', default_value = "4x4,5x4")]
        boards: Vec<String>,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 512, value_name = "MIB")]
        hash: usize,
        /// Which solvers to time unsharded: `both`, `full` (the evaluation) or
        /// `foundation` (outlast detection only; slow beyond 5x4).
        #[arg(long, default_value = "both", value_name = "SOLVER")]
        solver: String,
        /// The searches to run each configuration with, e.g. `ab,dfpn`.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "dfpn",
            value_name = "S,.."
        )]
        search: Vec<amazons_solver::solvers::SolverKind>,
        /// Also solve each board sharded (full evaluation, the winner's first move fixed
        /// when the first player wins) with each of these thread counts, e.g. `1,2`, and
        /// print wall time, nodes, parallel speed-up and the root hash (in a temporary
        /// directory, removed afterwards).
        #[arg(long, value_delimiter = ',', value_name = "N,..")]
        threads: Vec<usize>,
    },
    /// Rank the moves of a position by a df-pn search within a node budget, as a sharded
    /// solve guesses when it splits a task: each move with the proof and disproof numbers
    /// of a win for the side to move after it, most promising first: proved wins, then by
    /// the ratio of proof to disproof number (a disproof number of 1: nearly refuted), proved
    /// losses last.
    Rank {
        /// Board (`WxH` or `standard`); omit with --position.
        board: Option<String>,
        #[command(flatten)]
        setup: Setup,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 512, value_name = "MIB")]
        hash: usize,
        /// Search nodes (default: 1M, the budget of a split's guess without --max-nodes).
        #[arg(long, value_name = "N")]
        max_nodes: Option<u64>,
        /// Print only the N most promising moves (0: all).
        #[arg(long, default_value_t = 20, value_name = "N")]
        top: usize,
        #[command(flatten)]
        search: SearchFlags,
        /// Print one JSON object on stdout instead of the text (fields: see the README).
        #[arg(long)]
        json: bool,
    },
    /// Evaluate a position statically (paper section IV): draws the partition, lists each
    /// area's type, bounds and how they were obtained, and the global verdict.
    Eval {
        /// Board (`WxH` or `standard`); omit with --position.
        board: Option<String>,
        #[command(flatten)]
        setup: Setup,
        #[command(flatten)]
        eval: EvalArgs,
        /// Print one JSON object on stdout instead of the text (fields: see the README).
        #[arg(long)]
        json: bool,
    },
    /// The combinatorial game value of a (small) area: canonical form, thermograph (tax down
    /// to -1), temperature, stops, class and bounds.
    Value {
        /// Board (`WxH` or `standard`); omit with --position.
        board: Option<String>,
        #[command(flatten)]
        setup: Setup,
        /// Print one JSON object on stdout instead of the text (fields: see the README).
        #[arg(long)]
        json: bool,
    },
    /// The evaluation test set (paper Tables II and III): self-play games, and the table of
    /// positions solved statically and by df-pn per move number.
    Testset {
        #[command(subcommand)]
        command: TestsetCommand,
    },
    /// Endgame databases for simple and blocker territories: build, audit, stats, bench.
    Db {
        #[command(subcommand)]
        command: DbCommand,
    },
    /// Compress certificate files for storage: every `*.cert` (directories: recursively,
    /// shards included) becomes `*.cert.zst` (zstd, about 8x smaller), written atomically
    /// and read back before the original is removed. Every command reads both forms.
    Compress {
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Remove the shard files of a finished sharded result that its manifest does not
    /// need: those no certificate reachable from DIR/manifest.cert cites (subtasks of
    /// guesses found refuted, or of splits a whole solve replaced). Lists them first; the
    /// result checks as before.
    Prune {
        /// The sharded result's directory (holding manifest.cert and shards/).
        dir: PathBuf,
        /// Only list the unneeded files and their total size; remove nothing.
        #[arg(long)]
        dry_run: bool,
        /// Remove at most this many MiB, in file-name order (a large removal can then be
        /// spread over several commits); the rest is left for a later run.
        #[arg(long, value_name = "MIB")]
        max_mib: Option<u64>,
    },
    /// Write a static HTML report of a certificate or a sharded result (DIR: its
    /// manifest and the shards it cites): header with the checker's verdict, boards, a
    /// proof tree to browse, statistics. OUT is a directory; open OUT/index.html from disk.
    Report(amazons_report::cli::ReportArgs),
    /// Check every certificate in a directory and write its index (DIR/index.md).
    Index {
        /// Directory holding *.cert files.
        #[arg(default_value = "certificates")]
        dir: PathBuf,
    },
    /// Write the first plies of a certificate's winning strategy as an SGF game tree.
    Export(export_cmd::ExportArgs),
    /// Play the losing side against a certificate's winning strategy in the terminal.
    Play(play_cmd::PlayArgs),
    /// Draw a position with coordinates.
    Show {
        /// Board (`WxH` or `standard`); omit with --position.
        board: Option<String>,
        #[command(flatten)]
        setup: Setup,
    },
}

/// The root of a sharded result and how it was split (`tasks` and `manifest`).
#[derive(Args, Debug, Clone)]
struct SplitRoot {
    /// Board (`WxH` or `standard`); omit with --position.
    board: Option<String>,
    #[command(flatten)]
    setup: Setup,
    /// Directory of the sharded result.
    #[arg(long, value_name = "DIR")]
    shards: PathBuf,
    /// The first move fixed: one task per reply (the same for `tasks` and `manifest`).
    #[arg(long, value_name = "MOVE")]
    first_move: Option<String>,
}

impl SplitRoot {
    /// The root position split into tasks.
    fn plan(&self) -> Result<amazons_solver::shard::Plan> {
        let position = self.setup.position(self.board.as_deref())?;
        let first = parse_first(&position, &self.first_move)?;
        plan(&position, first)
    }
}

/// How to set up the position.
#[derive(Args, Debug, Clone)]
struct Setup {
    /// Start from this grid instead of a start position: rows from the top rank down
    /// separated by `|`; X Black, O White, # arrow, . empty (e.g. `.X.|...|O#.`).
    #[arg(long, value_name = "GRID")]
    position: Option<String>,
    /// Side to move for --position: white or black.
    #[arg(long, value_name = "SIDE", default_value = "white")]
    to_move: String,
    /// Moves to play first, space separated (e.g. "b1-b4xd4 e5-c5xc4").
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// Start from an SGF file (Amazons convention, GM[18]; SGF's B is White): its setup
    /// and the moves of its main line (then --moves, if given).
    #[arg(long, value_name = "FILE", conflicts_with = "position")]
    sgf: Option<PathBuf>,
}

/// `amazons testset` subcommands.
#[derive(Subcommand, Debug)]
enum TestsetCommand {
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
    /// fig13.md and one SVG plot per board (nodes on a log axis) into -o DIR.
    Fig13 {
        /// Directory of the game files.
        #[arg(long, default_value = "tests/data/selfplay")]
        dir: PathBuf,
        /// Boards.
        #[arg(long, value_delimiter = ',', default_value = "5x5,6x6")]
        boards: Vec<String>,
        /// Test cases per board.
        #[arg(long, default_value_t = 30, value_name = "N")]
        positions: usize,
        /// The first case of a game is this many plies before its end (one value for
        /// every board, or one per board in --boards order).
        #[arg(long, value_delimiter = ',', default_value = "4", value_name = "PLIES")]
        from_end: Vec<usize>,
        /// Node budget per solve (search and extraction each).
        #[arg(long, default_value_t = 10_000_000, value_name = "N")]
        max_nodes: u64,
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
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "ab,dfpn",
            value_name = "S,.."
        )]
        solvers: Vec<amazons_solver::solvers::SolverKind>,
        /// Output directory.
        #[arg(short, long, default_value = "fig13")]
        output: PathBuf,
        #[command(flatten)]
        db_dir: DbDir,
    },
}

/// `amazons db` subcommands.
#[derive(Subcommand, Debug)]
enum DbCommand {
    /// Build the territory databases (retrograde analysis) into the database directory.
    Build {
        #[command(flatten)]
        dir: DbDir,
        /// Simple territories: every region with at most this many squares (max 10).
        #[arg(long, value_name = "N")]
        max_size: Option<u8>,
        /// Simple territories: up to this many queens (max 8).
        #[arg(long, value_name = "N")]
        max_queens: Option<u8>,
        /// Worker threads (default: all cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
    /// Recompute entries with code independent of the builder (the checker's one-player
    /// search); exit 1 on any mismatch, naming the entry. When the directory also holds
    /// an active-area table, a sample of it is audited too (as `db audit-active`).
    Audit {
        #[command(flatten)]
        dir: DbDir,
        #[command(flatten)]
        sample: Sample,
        /// Active-area entries to recompute when that table is present (seeded with
        /// --seed; about 10 ms each, so a full audit is a long run: `db audit-active`).
        #[arg(long, default_value_t = 2000, value_name = "N")]
        active_sample: usize,
    },
    /// Region counts, entries, defect distribution, file sizes and hashes.
    Stats {
        #[command(flatten)]
        dir: DbDir,
    },
    /// Build the active-area (combinatorial game) database: the thermograph of every area
    /// with queens of both colours in the preset's rectangles.
    BuildActive {
        #[command(flatten)]
        dir: DbDir,
        /// `quick`: every area fitting 2x6 or 3x4 (about 1 minute, 64 MB); `standard`: plus
        /// 3x5 and 4x4 with one queen of each colour (about 80 s, 81 MB, 1 GB while building);
        /// `paper`: the paper's whole set, 3x5 with any queens, 3x6 and 4x4 with two of each
        /// colour (about 6.5 hours of one thread, 21 GB at the end, a 7.2 GB file that takes
        /// 12 GB and a minute to load: resumable, see --checkpoint-minutes).
        #[arg(long, default_value = "quick", value_name = "PRESET")]
        preset: String,
        /// Instead of a preset, these tiers: rectangles with a queen cap per colour, e.g.
        /// `2x6,3x4,3x5:2,4x4:2` (the paper's set adds `3x6:2`; memory grows fast with
        /// the caps).
        #[arg(long, value_name = "TIERS", conflicts_with = "preset")]
        tiers: Option<String>,
        /// Save the values phase to DIR/active.checkpoint this often (minutes; 0: never).
        /// Rerunning the same build resumes from its checkpoint; a checkpoint of another
        /// build, or a damaged one, is left aside and replaced.
        #[arg(long, value_name = "MINUTES", default_value_t = 20)]
        checkpoint_minutes: u64,
        /// Clear the memo caches (comparisons, sums, option lists) once they hold this many
        /// entries (about 30-100 bytes each). Values do not depend on
        /// it; a larger limit trades memory for fewer repeated comparisons on big tiers.
        #[arg(long, value_name = "N", default_value_t = amazons_solver::db::active::CACHE_LIMIT)]
        cache_entries: usize,
    },
    /// Recompute a sample of active-area entries by a separate route (outcome search for
    /// both sides to move, fresh thermograph); exit 1 on any mismatch.
    AuditActive {
        #[command(flatten)]
        dir: DbDir,
        #[command(flatten)]
        sample: Sample,
    },
    /// Lookup speed on a warm cache (ns per query).
    Bench {
        #[command(flatten)]
        dir: DbDir,
        /// Number of lookups.
        #[arg(long, default_value_t = 1_000_000)]
        n: usize,
    },
}

/// The last line of an audit and its exit code: 0 when nothing mismatched, else 1.
fn audit_verdict(mismatches: u64) -> ExitCode {
    if mismatches == 0 {
        println!("audit: ok");
        ExitCode::SUCCESS
    } else {
        println!("audit: {mismatches} mismatch(es)");
        ExitCode::from(1)
    }
}

/// Which entries an audit recomputes.
#[derive(Args, Debug, Clone, Copy)]
struct Sample {
    /// Check a seeded random sample of this many entries (per table) instead of all.
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

impl Sample {
    fn get(self) -> Option<(usize, u64)> {
        self.sample.map(|n| (n, self.seed))
    }
}

/// Where the databases live.
#[derive(Args, Debug, Clone)]
struct DbDir {
    /// Database directory (default: $AMAZONS_DB_DIR, else ./db-cache).
    #[arg(long, value_name = "DIR")]
    db_dir: Option<PathBuf>,
}

impl DbDir {
    fn path(&self) -> PathBuf {
        self.db_dir
            .clone()
            .unwrap_or_else(amazons_solver::db::default_dir)
    }
}

/// Runs an `amazons db` subcommand.
fn db(command: DbCommand) -> Result<ExitCode> {
    use amazons_solver::db;
    match command {
        DbCommand::Build {
            dir,
            max_size,
            max_queens,
            threads,
        } => {
            let mut cfg = db::DbConfig::default();
            if let Some(n) = max_size {
                cfg.max_size = n;
            }
            if let Some(n) = max_queens {
                cfg.max_queens = n;
            }
            if let Some(n) = threads {
                cfg.threads = n.max(1);
            }
            cfg.validate().map_err(|e| Usage(e.to_string()))?;
            let path = dir.path();
            std::fs::create_dir_all(&path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            println!("building databases in {}", path.display());
            let summary = db::build(&path, &cfg, &mut |p: &db::Progress| {
                eprintln!(
                    "progress: {} size {}/{}: {}/{} regions, {}/{} entries, {:.1?}",
                    p.kind.name(),
                    p.size,
                    p.max_size,
                    p.regions,
                    p.regions_total,
                    p.entries,
                    p.entries_total,
                    p.elapsed
                )
            })?;
            println!("{summary}");
            Ok(ExitCode::SUCCESS)
        }
        DbCommand::Audit {
            dir,
            sample,
            active_sample,
        } => {
            let path = dir.path();
            let t = Instant::now();
            let report = db::audit(&path, sample.get())?;
            println!("{report}");
            let mut mismatches = report.mismatch_count;
            if path.join(db::active::ACTIVE_FILE).exists() && active_sample > 0 {
                let report =
                    db::active::audit_active_dir(&path, Some((active_sample, sample.seed)))?;
                println!("{report}");
                mismatches += report.mismatch_count;
            }
            println!("audit time {:.1?}", t.elapsed());
            Ok(audit_verdict(mismatches))
        }
        DbCommand::BuildActive {
            dir,
            preset,
            tiers,
            checkpoint_minutes,
            cache_entries,
        } => {
            use db::active::ActiveConfig;
            let cfg = match (tiers, preset.as_str()) {
                (Some(t), _) => match ActiveConfig::parse_tiers(&t) {
                    Ok(cfg) => cfg,
                    Err(e) => return usage(format!("--tiers: {e}")),
                },
                (None, "quick") => ActiveConfig::quick(),
                (None, "standard") => ActiveConfig::standard(),
                (None, "paper") => ActiveConfig::paper(),
                (None, other) => {
                    return usage(format!(
                        "unknown preset {other:?}: expected quick, standard or paper"
                    ))
                }
            };
            let preset = cfg.describe();
            let path = dir.path();
            std::fs::create_dir_all(&path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            println!(
                "building the active-area database ({preset}) in {}",
                path.display()
            );
            let control = db::active::BuildControl {
                checkpoint_every: (checkpoint_minutes > 0)
                    .then(|| std::time::Duration::from_secs(checkpoint_minutes.saturating_mul(60))),
                stop_after_regions: None,
                cache_limit: cache_entries,
                ..Default::default()
            };
            let summary = db::active::build_active_with(
                &path,
                &cfg,
                &control,
                &mut |p: &db::active::ActiveProgress| eprintln!("progress: {p}"),
            )?;
            println!("{summary}");
            Ok(ExitCode::SUCCESS)
        }
        DbCommand::AuditActive { dir, sample } => {
            let report = db::active::audit_active_dir(&dir.path(), sample.get())?;
            println!("{report}");
            Ok(audit_verdict(report.mismatch_count))
        }
        DbCommand::Stats { dir } => {
            print!("{}", db::stats(&dir.path())?);
            println!();
            Ok(ExitCode::SUCCESS)
        }
        DbCommand::Bench { dir, n } => {
            let database = db::Database::open(&dir.path())?;
            let warm = db::bench_lookup(&database, n);
            let spread = db::bench_lookup_spread(&database, n, 100_000);
            println!(
                "lookup: {:.0} ns/query warm (256 territories), {:.0} ns/query over 100000 territories",
                warm.as_nanos() as f64,
                spread.as_nanos() as f64
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Sharded solving options.
#[derive(Args, Debug, Clone)]
struct Sharding {
    /// Split the root into tasks, one certificate each under DIR/shards/, plus the
    /// manifest DIR/manifest.cert; rerunning resumes (finished, verified shards are kept; tasks an earlier
    /// run split, or started and left unfinished, go last).
    #[arg(long, value_name = "DIR")]
    shards: Option<PathBuf>,
    /// With --shards: fix this first move and make one task per reply.
    #[arg(long, value_name = "MOVE", requires = "shards")]
    first_move: Option<String>,
    /// With --shards: worker threads (default: all cores); the table is split among them.
    #[arg(long, value_name = "N", requires = "shards")]
    threads: Option<usize>,
    /// With --shards: split a task over budget (--max-nodes or --max-steps, or the top of
    /// the --ladder) this many levels deeper (the most promising move is fixed, one subtask per reply;
    /// the task's shard becomes a manifest of its subtasks; each split is recorded in
    /// DIR/splits.tsv, and a rerun splits the same way at once). 0 leaves such tasks open
    /// for a later run; the other tasks go on either way. Default: 0 with --max-nodes,
    /// else 3.
    #[arg(long, value_name = "N", requires = "shards")]
    split_depth: Option<usize>,
    /// With --shards and without --max-nodes: the node budgets each task is solved whole
    /// with in turn before it is split (default 1M,10M,100M,1G,10G,100G; a rung whose table
    /// would not fit is cut to what the table holds and is the last). The first rung of
    /// 10M or more (else the top) is also the budget of the searches that rank moves.
    /// Each rung is recorded in DIR/decisions.tsv.
    #[arg(long, value_name = "N,..", value_delimiter = ',', requires = "shards")]
    ladder: Vec<u64>,
    /// With --shards: each thread keeps its transposition table from one task to the next,
    /// so later tasks reuse what earlier ones proved (faster; certificates still checked),
    /// but shard bytes and the root hash then depend on the order the tasks ran in.
    #[arg(long, requires = "shards")]
    shared_table: bool,
    /// With --shards: solve the tasks most promising first, as ranked by a df-pn of the
    /// split position within --max-nodes (default: the ladder's guess budget, 10M), instead of
    /// in move order; always on without --max-nodes. Without --first-move, the run stops
    /// at the first move that wins.
    #[arg(long, requires = "shards")]
    guess_order: bool,
    /// With --shards: solve only these tasks, comma separated: numbers (`46`), shard names
    /// (`046-e5-e3xc1`) or reply moves (`e5-e3xc1`), as `amazons tasks` lists them. The
    /// other tasks are left to other runs, which may share the directory: this one ends
    /// without a manifest unless every other task's shard is already there.
    #[arg(long, value_name = "TASKS", value_delimiter = ',', requires = "shards")]
    only: Vec<String>,
    /// With --shards and --split-depth: when a split's three guesses are all refuted
    /// (the guessing search misjudged the task), solve the task whole once more with K
    /// times --max-nodes before trying its moves one by one. A retry that fails is
    /// recorded in DIR/splits.tsv and not repeated. 0 or 1: no retry.
    #[arg(long, value_name = "K", default_value_t = 4, requires = "shards")]
    escalate: u64,
    /// With --shards and --split-depth: when a split's guesses are all refuted and the
    /// retry (--escalate) fails too, how many of the task's other moves this run tries
    /// before leaving it open; a rerun goes on with the next ones (moves proved lost are
    /// not tried again). 0: every move, until one wins or all are proved lost.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "shards")]
    tries: usize,
}

/// Parses the optional first move of a sharded solve.
fn parse_first(position: &Position, text: &Option<String>) -> Result<Option<Move>> {
    text.as_deref()
        .map(|t| Move::parse(position.board, t).map_err(|e| Usage(e.to_string()).into()))
        .transpose()
}

/// Maps plan errors that come from bad input to exit code 2.
fn plan(position: &Position, first: Option<Move>) -> Result<amazons_solver::shard::Plan> {
    amazons_solver::shard::Plan::new(position, first).map_err(|e| Usage(e.to_string()).into())
}

/// `amazons solve --shards`: solve every task (resuming), write and check the manifest.
/// `table` is the table size chosen from free memory when --hash was not given.
fn solve_sharded(
    position: &Position,
    sharding: &Sharding,
    opts: &Options,
    table: Option<amazons_solver::campaign::memory::Choice>,
    json: bool,
) -> Result<ExitCode> {
    use amazons_solver::campaign::{decisions, ladder::Ladder, safety};
    // With --json, the text lines are left out and one JSON object ends the run.
    macro_rules! say {
        ($($arg:tt)*) => {
            if !json {
                println!($($arg)*)
            }
        };
    }

    let Some(dir) = &sharding.shards else {
        return usage("--shards DIR is required");
    };
    let first = parse_first(position, &sharding.first_move)?;
    let plan = plan(position, first)?;
    if sharding.threads == Some(0) {
        return usage("--threads: thread counts start at 1");
    }
    if let Err(e) = plan.check_only(&sharding.only) {
        return usage(format!("--only: {e}"));
    }
    // Another campaign's directory is refused before anything is written to it.
    if let Err(e) = safety::check_plan(dir, &plan) {
        return usage(e.to_string());
    }
    let ladder = match (opts.max_nodes, sharding.ladder.is_empty()) {
        (Some(_), false) => return usage("--ladder and --max-nodes exclude each other"),
        (Some(_), true) => None,
        (None, true) => Some(Ladder::default()),
        (None, false) => match Ladder::new(sharding.ladder.clone()) {
            Some(l) => Some(l),
            None => return usage("--ladder needs a budget of at least 1 node"),
        },
    };
    let split_depth = sharding.split_depth.unwrap_or(match ladder {
        Some(_) => amazons_solver::campaign::ladder::DEFAULT_SPLIT_DEPTH,
        None => 0,
    });
    let threads = sharding
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let table_line = match table {
        Some(c) => format!(
            "{} MiB from free memory ({}% of {} MiB available), {} MiB per thread",
            c.mib,
            amazons_solver::campaign::memory::SHARE_PERCENT,
            c.available_mib,
            c.mib / threads.max(1)
        ),
        None => format!(
            "{} MiB (--hash), {} MiB per thread",
            opts.hash_mib,
            opts.hash_mib / threads.max(1)
        ),
    };
    say!("table: {table_line}");
    let budget_line = match &ladder {
        Some(l) => {
            let rungs: Vec<String> = l.rungs.iter().map(|&n| decisions::nodes(n)).collect();
            format!(
                "ladder {}; split {split_depth} deep past its top",
                rungs.join(", ")
            )
        }
        None => format!(
            "--max-nodes {} per task; split {split_depth} deep",
            opts.max_nodes.map_or("-".into(), |n| n.to_string())
        ),
    };
    say!("budget: {budget_line}");
    decisions::record(
        dir,
        "run",
        "table",
        &format!("{} MiB", opts.hash_mib),
        &table_line,
    );
    decisions::record(
        dir,
        "run",
        "budget",
        &format!("{threads} thread(s)"),
        &budget_line,
    );
    let status = amazons_solver::campaign::status::Status::on_disk(&plan, dir);
    if opts.progress && (status.done > 0 || status.timed > 0) {
        eprintln!(
            "campaign so far: {} (shards on disk, checked as the run resumes them)",
            status.line()
        );
    }
    say!(
        "solving {} in {} tasks ({} more by symmetry) on {threads} thread(s) into {}",
        position.describe(),
        plan.unique().count(),
        plan.tasks.len() - plan.unique().count(),
        dir.display()
    );
    let quiet = !opts.progress;
    let t = Instant::now();
    let budget = amazons_solver::shard::Budget {
        threads,
        split_depth,
        shared_table: sharding.shared_table,
        guess_order: sharding.guess_order || ladder.is_some(),
        only: sharding.only.clone(),
        escalate: sharding.escalate,
        tries: sharding.tries,
        ladder,
    };
    let (manifest, done) = amazons_solver::shard::run_with(&plan, dir, opts, budget, &|p| {
        if !quiet {
            if p.finished {
                eprintln!("task: {}", p.last);
            }
            eprintln!("progress: {}", p.line());
        }
    })?;
    let solve_time = t.elapsed();
    let t = Instant::now();
    let shards = amazons_checker::cli::DirShards::scan(&dir.join("shards"));
    let report = amazons_checker::check_with(&manifest, &shards)
        .map_err(|e| anyhow::anyhow!("the checker rejected the manifest (a solver bug): {e}"))?;
    let check_time = t.elapsed();
    let bytes = amazons_format::encode(&manifest)?;
    let root_hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
    let solved: Vec<_> = done.iter().filter(|d| d.mirror_of.is_none()).collect();
    let resumed = solved.iter().filter(|d| d.resumed).count();
    say!(
        "tasks: {} ({} resumed), nodes {}, solve {:.1} s, check {:.1} s",
        solved.len(),
        resumed,
        solved.iter().map(|d| d.nodes).sum::<u64>(),
        solve_time.as_secs_f64(),
        check_time.as_secs_f64()
    );
    say!(
        "manifest: {} ({} shards, {} shard steps, {} shard bytes), root blake3 {}",
        dir.join("manifest.cert").display(),
        report.shards,
        report.shard_steps,
        solved.iter().map(|d| d.bytes).sum::<u64>(),
        root_hash.to_hex()
    );
    say!("checked: {}", report.claim);
    say!("result: {} wins", manifest.root.winner);
    if json {
        json_cmd::print(&json_cmd::solve_sharded(
            position,
            &plan,
            &manifest,
            &done,
            [solve_time.as_secs_f64(), check_time.as_secs_f64()],
            dir,
            &report,
            &root_hash.to_hex(),
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The df-pn number rule (`--numbers`).
#[derive(clap::ValueEnum, Debug, Clone, Copy)]
enum NumbersArg {
    Weak,
    Sum,
}

impl From<NumbersArg> for amazons_solver::dfpn::Numbers {
    fn from(n: NumbersArg) -> Self {
        match n {
            NumbersArg::Weak => amazons_solver::dfpn::Numbers::Weak,
            NumbersArg::Sum => amazons_solver::dfpn::Numbers::Sum,
        }
    }
}

/// The search flags `solve` and `rank` share: progress, the df-pn numbers rule, and the
/// evaluation.
#[derive(Args, Debug, Clone)]
struct SearchFlags {
    /// Do not print progress lines.
    #[arg(short, long)]
    quiet: bool,
    /// How df-pn makes a node's disproof number from its children's proof numbers:
    /// `weak` (the largest plus one per other open child; far fewer nodes on most
    /// boards, as positions transpose heavily) or `sum` (plain df-pn).
    #[arg(long, value_enum, default_value_t = NumbersArg::Weak, value_name = "RULE")]
    numbers: NumbersArg,
    #[command(flatten)]
    eval: EvalArgs,
}

impl SearchFlags {
    /// The search options with these flags (databases opened, or built if missing).
    fn options(
        &self,
        hash: usize,
        max_nodes: Option<u64>,
        max_steps: Option<u64>,
    ) -> Result<Options> {
        check_hash(hash)?;
        Ok(Options {
            hash_mib: hash,
            max_nodes,
            progress: !self.quiet,
            eval: self.eval.config(),
            db: self.eval.database()?,
            active_db: self.eval.active_database()?,
            live_nodes: None,
            numbers: self.numbers.into(),
            max_steps,
        })
    }
}

/// Which parts of the static evaluation to use.
#[derive(Args, Debug, Clone)]
struct EvalArgs {
    /// No static evaluation: terminal and outlast detection only (the foundation solver).
    #[arg(long)]
    no_eval: bool,
    /// Evaluation without blocker territories (basic partition only).
    #[arg(long)]
    no_blockers: bool,
    /// Evaluation without the safe-move rules on active areas.
    #[arg(long)]
    no_static_rules: bool,
    /// Evaluation without local alpha-beta search of small active areas.
    #[arg(long)]
    no_local_search: bool,
    /// Local search only on areas with fewer queens plus empty squares than this.
    #[arg(long, default_value_t = 9, value_name = "N")]
    local_limit: u32,
    /// Exact combinatorial values for active areas with at most N empty squares, so that
    /// `*` and fuzzy infinitesimals are counted (paper IV-C2); 0 = off (slow above 4).
    #[arg(long, default_value_t = 0, value_name = "N")]
    cgt_limit: u32,
    /// Use the simple and blocker territory databases in the evaluation (built into
    /// --db-dir first if missing; about 10 s and 60 MB for the default set).
    #[arg(long)]
    db: bool,
    /// Use the active-area (combinatorial game) database in the evaluation: values of
    /// whole active areas, `*` and infinitesimal counting (built into --db-dir with the
    /// quick preset first if missing: about a minute, 64 MB).
    #[arg(long)]
    active_db: bool,
    /// Database directory for --db and --active-db (default: $AMAZONS_DB_DIR, else
    /// ./db-cache).
    #[arg(long, value_name = "DIR")]
    db_dir: Option<PathBuf>,
}

/// The active-area table in `dir`, whatever preset built it (`amazons db build-active`);
/// built with the quick preset when missing, corrupt or outdated.
fn active_database_in(dir: &Path) -> Result<std::sync::Arc<amazons_solver::db::active::ActiveDb>> {
    use amazons_solver::db::active::{build_active, ActiveConfig, ActiveDb};
    let db = match ActiveDb::open(dir) {
        Ok(db) => db,
        Err(e) if e.needs_rebuild() => {
            eprintln!("active database: {e}; building the quick preset");
            build_active(dir, &ActiveConfig::quick(), &mut |_| {})?;
            eprintln!("active database built in {}", dir.display());
            ActiveDb::open(dir)?
        }
        Err(e) => return Err(e.into()),
    };
    eprintln!("active database: {}", db.config.describe());
    Ok(std::sync::Arc::new(db))
}

impl EvalArgs {
    /// The database directory (created if missing).
    fn database_dir(&self) -> Result<PathBuf> {
        let dir = self
            .db_dir
            .clone()
            .unwrap_or_else(amazons_solver::db::default_dir);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(dir)
    }

    /// The active-area database when --active-db is given (opened, or built if missing).
    fn active_database(
        &self,
    ) -> Result<Option<std::sync::Arc<amazons_solver::db::active::ActiveDb>>> {
        if !self.active_db || self.no_eval {
            return Ok(None);
        }
        active_database_in(&self.database_dir()?).map(Some)
    }

    /// The territory databases when --db is given (opened, or built if missing or stale).
    fn database(&self) -> Result<Option<std::sync::Arc<amazons_solver::db::Database>>> {
        if !self.db || self.no_eval {
            return Ok(None);
        }
        let dir = self.database_dir()?;
        let cfg = amazons_solver::db::DbConfig::default();
        let (db, built) = amazons_solver::db::Database::open_or_build(
            &dir,
            &cfg,
            &mut |notice: &str| eprintln!("databases: {notice}"),
            &mut |_p: &amazons_solver::db::Progress| {},
        )?;
        if let Some(summary) = built {
            eprintln!("databases built in {:.1?}", summary.total_time);
        }
        Ok(Some(std::sync::Arc::new(db)))
    }

    /// The default evaluation with the territory databases in `db_dir`.
    fn with_db(db_dir: &DbDir) -> EvalArgs {
        EvalArgs {
            no_eval: false,
            no_blockers: false,
            no_static_rules: false,
            no_local_search: false,
            local_limit: 9,
            cgt_limit: 0,
            active_db: false,
            db: true,
            db_dir: db_dir.db_dir.clone(),
        }
    }

    fn config(&self) -> Option<amazons_solver::eval::EvalConfig> {
        (!self.no_eval).then(|| amazons_solver::eval::EvalConfig {
            blockers: !self.no_blockers,
            static_rules: !self.no_static_rules,
            local_search: !self.no_local_search,
            local_limit: self.local_limit,
            cgt_limit: self.cgt_limit,
            ..Default::default()
        })
    }
}

/// A bad-input error: exit code 2.
#[derive(Debug)]
struct Usage(String);
impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Usage {}

fn usage<T>(msg: impl Into<String>) -> Result<T> {
    Err(Usage(msg.into()).into())
}

/// Rejects a `--hash` of zero or of more than the machine's memory (read from
/// `/proc/meminfo` where there is one): a table that cannot be allocated would abort.
fn check_hash(mib: usize) -> Result<()> {
    if mib == 0 {
        return usage("--hash must be at least 1 MiB");
    }
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_total_mib(&text));
    match total {
        Some(total) if mib > total => usage(format!(
            "--hash {mib} MiB is more than this machine's memory ({total} MiB); \
             about half of it is a good size"
        )),
        _ if mib > (1 << 30) => usage(format!("--hash {mib} MiB is too large")),
        _ => Ok(()),
    }
}

/// The `MemTotal` line of `/proc/meminfo`, in MiB.
fn mem_total_mib(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

impl Setup {
    fn position(&self, board: Option<&str>) -> Result<Position> {
        let mut pos = match (&self.position, board) {
            (None, Some(b)) if self.sgf.is_some() => {
                return usage(format!("give either a board ({b}) or --sgf, not both"))
            }
            (None, None) if self.sgf.is_some() => export_cmd::sgf_position(self.sgf.as_deref())?,
            (Some(_), Some(b)) => {
                return usage(format!("give either a board ({b}) or --position, not both"))
            }
            (Some(grid), None) => {
                let side = Color::parse(&self.to_move).map_err(|e| Usage(e.to_string()))?;
                Position::parse_grid(grid, side).map_err(|e| Usage(e.to_string()))?
            }
            (None, Some(b)) => Position::start(b).map_err(|e| Usage(e.to_string()))?,
            (None, None) => {
                return usage("no position: give a board (e.g. 5x4), --position GRID or --sgf FILE")
            }
        };
        if let Some(moves) = &self.moves {
            let g = Geometry::new(pos.board);
            for text in moves.split_whitespace() {
                let m = Move::parse(pos.board, text).map_err(|e| Usage(e.to_string()))?;
                let p = Pos::from_position(&pos);
                if !p.is_legal(&g, m) {
                    return usage(format!(
                        "illegal move {text} for {} in {}",
                        pos.to_move,
                        pos.grid()
                    ));
                }
                pos = p.play(m).to_position(&g);
            }
        }
        Ok(pos)
    }
}

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
        Command::Perft { args, setup, json } => {
            let (board, depth) = match args.as_slice() {
                [b, d] => (Some(b.as_str()), d),
                [d] => (None, d),
                _ => return usage("perft takes BOARD DEPTH"),
            };
            let depth: u32 = depth
                .parse()
                .map_err(|_| Usage(format!("bad depth {depth:?}: expected a whole number")))?;
            let position = setup.position(board)?;
            let g = Geometry::new(position.board);
            let t = Instant::now();
            let n = perft(&g, &Pos::from_position(&position), depth);
            let secs = t.elapsed().as_secs_f64();
            if json {
                json_cmd::print(&json_cmd::perft(&position, depth, n, secs));
                return Ok(ExitCode::SUCCESS);
            }
            println!(
                "{} depth {depth}: {n} leaves in {secs:.3} s ({:.1} M leaves/s)",
                position.describe(),
                n as f64 / secs.max(1e-9) / 1e6
            );
            println!("{n}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Report(args) => amazons_report::cli::run(&args).map_err(|e| match e {
            amazons_report::cli::CliError::Usage(m) => Usage(m).into(),
            e => anyhow::Error::from(e),
        }),
        Command::Show { board, setup } => {
            let position = setup.position(board.as_deref())?;
            print!("{}", position.render());
            println!("grid: {}", position.grid());
            Ok(ExitCode::SUCCESS)
        }
        Command::Play(args) => play_cmd::run(&args),
        Command::Export(args) => export_cmd::run(&args),
        Command::Index { dir } => index(&dir),
        Command::Compress { paths } => compress(&paths),
        Command::Prune {
            dir,
            dry_run,
            max_mib,
        } => prune(&dir, dry_run, max_mib),
        Command::Db { command } => db(command),
        Command::Testset { command } => match command {
            TestsetCommand::Generate {
                dir,
                boards,
                games,
                seed,
            } => {
                let names: Vec<&str> = boards.iter().map(String::as_str).collect();
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("cannot create {}", dir.display()))?;
                for path in amazons_solver::testset::generate(&dir, &names, games, seed)? {
                    println!("wrote {}", path.display());
                }
                Ok(ExitCode::SUCCESS)
            }
            TestsetCommand::Fig13 {
                dir,
                boards,
                positions,
                from_end,
                max_nodes,
                ab_log2,
                dfpn_log2,
                plain_mib,
                solvers,
                output,
                db_dir,
            } => {
                use amazons_solver::fig13;
                if from_end.len() != 1 && from_end.len() != boards.len() {
                    return usage("--from-end: one value, or one per board");
                }
                if !(10..=30).contains(&ab_log2) || !(10..=30).contains(&dfpn_log2) {
                    return usage("--ab-log2 and --dfpn-log2 must be between 10 and 30");
                }
                let configs: Vec<fig13::SolverConfig> = fig13::SolverConfig::paper()
                    .into_iter()
                    .filter(|c| solvers.contains(&c.kind))
                    .collect();
                let needs_db = configs.iter().any(|c| c.simple || c.blocker);
                let needs_active = configs.iter().any(|c| c.active);
                let db = if needs_db {
                    EvalArgs::with_db(&db_dir).database()?
                } else {
                    None
                };
                let active = if needs_active {
                    Some(active_database_in(
                        &EvalArgs::with_db(&db_dir).database_dir()?,
                    )?)
                } else {
                    None
                };
                let opts = fig13::Fig13Options {
                    boards,
                    positions,
                    from_end,
                    max_nodes,
                    ab_log2,
                    dfpn_log2,
                    plain_mib,
                    configs,
                    db,
                    active,
                };
                let runs = fig13::run(&dir, &opts, &mut |line| eprintln!("{line}"))?;
                for path in fig13::write_all(&output, &runs, &opts)? {
                    println!("wrote {}", path.display());
                }
                Ok(ExitCode::SUCCESS)
            }
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
        },
        Command::Value { board, setup, json } => {
            let position = setup.position(board.as_deref())?;
            let report = amazons_solver::db::active::value_report(&position)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            if json {
                json_cmd::print(&json_cmd::value(&position, &report));
                return Ok(ExitCode::SUCCESS);
            }
            print!("{report}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench {
            boards,
            hash,
            solver,
            search,
            threads,
        } => bench(&boards, hash, &solver, &search, &threads),
        Command::Check {
            files,
            json: true,
            threads,
        } => {
            let threads = threads.map_or_else(amazons_checker::cli::all_cores, |n| n as usize);
            let (value, code) = json_cmd::check(&files, threads);
            json_cmd::print(&value);
            Ok(ExitCode::from(code))
        }
        Command::Check {
            files,
            json: false,
            threads,
        } => {
            let threads = threads.map_or_else(amazons_checker::cli::all_cores, |n| n as usize);
            Ok(ExitCode::from(
                amazons_checker::cli::run(&files, threads) as u8
            ))
        }
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
        } => {
            if sharding.shards.is_some() {
                if solver != amazons_solver::solvers::SolverKind::Dfpn {
                    return usage("--shards works with --solver dfpn only");
                }
                let position = setup.position(board.as_deref())?;
                // Without --hash, the table is sized from the memory available now.
                let table = match hash {
                    Some(_) => None,
                    None => amazons_solver::campaign::memory::Choice::for_this_machine(),
                };
                let hash = hash.or(table.map(|c| c.mib)).unwrap_or(512);
                let opts = search.options(hash, max_nodes, max_steps)?;
                return solve_sharded(&position, &sharding, &opts, table, json);
            }
            let opts = search.options(hash.unwrap_or(512), max_nodes, max_steps)?;
            solve(board, setup, output, &opts, solver, json)
        }
        Command::Tasks {
            split,
            hash,
            pending,
        } => {
            let plan = split.plan()?;
            let shards = split.shards;
            amazons_solver::campaign::safety::check_plan(&shards, &plan)
                .map_err(|e| Usage(e.to_string()))?;
            std::fs::create_dir_all(shards.join("shards"))
                .with_context(|| format!("cannot create {}", shards.display()))?;
            plan.write(&shards)?;
            // A closed pipe (e.g. `| head`) ends the listing quietly rather than panicking.
            let tasks: Vec<&amazons_solver::shard::Task> = if pending {
                amazons_solver::shard::pending(&plan, &shards)
            } else {
                plan.unique().collect()
            };
            let mut out = std::io::stdout().lock();
            for task in tasks {
                let line = writeln!(
                    out,
                    "amazons solve --position '{}' --to-move {} --hash {hash} -q -o '{}'",
                    task.position.grid(),
                    task.position.to_move.name().to_ascii_lowercase(),
                    plan.shard_path(&shards, task).display()
                );
                if line.is_err() {
                    break;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Manifest { split } => {
            let plan = split.plan()?;
            let shards = split.shards;
            let done = amazons_solver::shard::collect(&plan, &shards)?;
            let manifest = amazons_solver::shard::assemble(&plan, &shards, &done)?;
            let dir_shards = amazons_checker::cli::DirShards::scan(&shards.join("shards"));
            let report = amazons_checker::check_with(&manifest, &dir_shards)
                .map_err(|e| anyhow::anyhow!("the manifest does not check: {e}"))?;
            let bytes = amazons_format::encode(&manifest)?;
            let root_hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
            println!(
                "manifest: {} ({} shards), root blake3 {}",
                shards.join("manifest.cert").display(),
                report.shards,
                root_hash.to_hex()
            );
            println!("verified: {}", report.claim);
            Ok(ExitCode::SUCCESS)
        }
        Command::Rank {
            board,
            setup,
            hash,
            max_nodes,
            top,
            search,
            json,
        } => {
            if max_nodes == Some(0) {
                return usage("--max-nodes must be at least 1");
            }
            let position = setup.position(board.as_deref())?;
            let budget = max_nodes.unwrap_or(amazons_solver::shard::GUESS_NODES);
            let opts = search.options(hash, Some(budget), None)?;
            let r = amazons_solver::ranking(&position, &amazons_solver::main_search_options(&opts));
            if json {
                json_cmd::print(&json_cmd::rank(&position, &r, top));
                return Ok(ExitCode::SUCCESS);
            }
            print!("{}", rank_report(&position, &r, top));
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval {
            board,
            setup,
            eval,
            json,
        } => {
            let position = setup.position(board.as_deref())?;
            let g = Geometry::new(position.board);
            let pos = Pos::from_position(&position);
            let cfg = eval.config().unwrap_or_default();
            let mut ev = amazons_solver::eval::Evaluator::with_databases(
                cfg,
                eval.database()?,
                eval.active_database()?,
            );
            let e = ev.evaluate(&g, &pos);
            if json {
                json_cmd::print(&json_cmd::eval(&position, &e));
                return Ok(ExitCode::SUCCESS);
            }
            print!("{}", amazons_solver::eval::render(&e, &g, &pos));
            match e.winner {
                Some(w) => println!(
                    "verdict: {w} wins ({} to move, total {})",
                    position.to_move, e.total
                ),
                None => println!(
                    "verdict: unknown ({} to move, total {})",
                    position.to_move, e.total
                ),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The text `amazons rank` prints: the root's numbers and verdict, then one line per move.
fn rank_report(position: &Position, r: &amazons_solver::Ranking, top: usize) -> String {
    use std::fmt::Write as _;
    let side = position.to_move;
    let mut out = String::new();
    let root = match (r.winner, r.root) {
        (Some(w), _) => format!("proved: {w} wins"),
        (None, Some((pn, dn))) => format!(
            "proof {pn}, disproof {dn} for {side}: leans to {}",
            if r.lean { side } else { side.opponent() }
        ),
        (None, None) => "not reached".to_string(),
    };
    let _ = writeln!(out, "{side} to move, {} nodes; root {root}", r.nodes);
    let shown = if top == 0 {
        r.moves.len()
    } else {
        top.min(r.moves.len())
    };
    let _ = writeln!(
        out,
        "{shown} of {} moves, most promising first (numbers for a {side} win after the move):",
        r.moves.len()
    );
    for (i, (m, numbers)) in r.moves.iter().take(shown).enumerate() {
        let n = match numbers {
            Some((0, _)) => "proved win".to_string(),
            Some((_, 0)) => "proved loss".to_string(),
            Some((pn, dn)) => format!("proof {pn:>6}  disproof {dn:>6}"),
            None => "not reached".to_string(),
        };
        let _ = writeln!(out, "{:>4}  {:<10} {n}", i + 1, m.notation(position.board));
    }
    out
}

/// Runs the benchmarks and prints a Markdown table.
fn bench(
    boards: &[String],
    hash: usize,
    solver: &str,
    searches: &[amazons_solver::solvers::SolverKind],
    threads: &[usize],
) -> Result<ExitCode> {
    let full = Some(amazons_solver::eval::EvalConfig::default());
    let configs: Vec<(&str, Option<amazons_solver::eval::EvalConfig>)> = match solver {
        "both" => vec![
            ("foundation (outlast only)", None),
            ("full evaluation", full),
        ],
        "full" => vec![("full evaluation", full)],
        "foundation" => vec![("foundation (outlast only)", None)],
        other => {
            return usage(format!(
                "unknown --solver {other:?}: expected both, full or foundation"
            ))
        }
    };
    if threads.contains(&0) {
        return usage("--threads: thread counts start at 1");
    }
    check_hash(hash)?;
    let p = Position::start("5x6")?;
    let g = Geometry::new(p.board);
    let root = Pos::from_position(&p);
    let mut best = f64::INFINITY;
    let mut leaves = 0;
    for _ in 0..5 {
        let t = Instant::now();
        leaves = perft(&g, &root, 3);
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "perft 5x6 3: {leaves} leaves, best of 5: {best:.3} s ({:.0} M leaves/s)\n",
        leaves as f64 / best / 1e6
    );
    println!("| board | solver | winner | first move | search nodes | extraction nodes | nodes/s | solve s | check s | check/solve | steps | bytes | bytes/step |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    // Per board: the first move of the last unsharded solve (the winner's, if the first
    // player wins), for the sharded runs.
    let mut firsts: Vec<(Position, Option<Move>)> = Vec::new();
    for b in boards {
        let position = Position::start(b).map_err(|e| Usage(e.to_string()))?;
        let mut first = None;
        for (label, eval, kind) in configs
            .iter()
            .flat_map(|&(l, e)| searches.iter().map(move |&k| (l, e, k)))
        {
            // The searches are named only when ab is among them.
            let label = if searches == [amazons_solver::solvers::SolverKind::Dfpn] {
                label.to_string()
            } else {
                format!("{kind} {label}")
            };
            let opts = Options {
                hash_mib: hash,
                max_nodes: None,
                progress: false,
                eval,
                db: None,
                active_db: None,
                live_nodes: None,
                numbers: Default::default(),
                max_steps: None,
            };
            let t = Instant::now();
            let solved = amazons_solver::solvers::solve_with(&position, &opts, kind, "bench")?;
            let solve_s = t.elapsed().as_secs_f64();
            let bytes = amazons_format::encode(&solved.certificate)?;
            let t = Instant::now();
            let decoded = amazons_format::decode(&bytes)?;
            let report = amazons_checker::check(&decoded).map_err(|e| anyhow::anyhow!("{e}"))?;
            let check_s = t.elapsed().as_secs_f64();
            println!(
                "| {b} | {label} | {} | {} | {} | {} | {:.0} | {solve_s:.3} | {check_s:.4} | {:.1}% | {} | {} | {:.1} |",
                solved.winner,
                first_move(&solved.certificate)
                    .map(|m| m.notation(position.board))
                    .unwrap_or_else(|| "-".into()),
                solved.search_nodes,
                solved.total_nodes - solved.search_nodes,
                solved.total_nodes as f64 / solve_s,
                100.0 * check_s / solve_s,
                report.steps,
                bytes.len(),
                bytes.len() as f64 / report.steps as f64
            );
            first = first_move(&solved.certificate);
        }
        firsts.push((position, first));
    }
    if !threads.is_empty() {
        bench_sharded(&firsts, hash, threads)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The parallel part of `amazons bench`: each board solved sharded with each thread count.
fn bench_sharded(
    boards: &[(Position, Option<Move>)],
    hash: usize,
    threads: &[usize],
) -> Result<()> {
    println!("\n| board | first move | threads | tasks | search nodes | wall s | speed-up | check s | check/solve | root blake3 |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (position, first) in boards {
        let plan = plan(position, *first)?;
        let mut base = None;
        for &n in threads {
            let dir = std::env::temp_dir().join(format!(
                "amazons-bench-{}-{}x{}-{n}",
                std::process::id(),
                position.board.width,
                position.board.height
            ));
            // A leftover directory of an earlier run would be resumed, not solved.
            let _ = std::fs::remove_dir_all(&dir);
            let opts = Options {
                hash_mib: hash,
                progress: false,
                ..Options::default()
            };
            let budget = amazons_solver::shard::Budget {
                threads: n,
                ..Default::default()
            };
            let t = Instant::now();
            let run = amazons_solver::shard::run_with(&plan, &dir, &opts, budget, &|_| {});
            let wall = t.elapsed().as_secs_f64();
            let checked = run
                .map_err(anyhow::Error::from)
                .and_then(|(manifest, done)| {
                    let t = Instant::now();
                    let shards = amazons_checker::cli::DirShards::scan(&dir.join("shards"));
                    amazons_checker::check_with(&manifest, &shards)
                        .map_err(|e| anyhow::anyhow!("the checker rejected the manifest: {e}"))?;
                    let check = t.elapsed().as_secs_f64();
                    let bytes = amazons_format::encode(&manifest)?;
                    let hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
                    Ok((done, check, hash))
                });
            let _ = std::fs::remove_dir_all(&dir);
            let (done, check, root) = checked?;
            let base_wall = *base.get_or_insert(wall);
            println!(
                "| {} | {} | {n} | {} | {} | {wall:.2} | {:.2} | {check:.3} | {:.1}% | `{}` |",
                position.board,
                first
                    .map(|m| m.notation(position.board))
                    .unwrap_or_else(|| "-".into()),
                done.iter().filter(|d| d.mirror_of.is_none()).count(),
                done.iter()
                    .filter(|d| d.mirror_of.is_none())
                    .map(|d| d.nodes)
                    .sum::<u64>(),
                base_wall / wall,
                100.0 * check / wall,
                &root.to_hex()[..16]
            );
        }
    }
    Ok(())
}

/// The winner's first move recorded in a certificate, if the winner moves first.
fn first_move(cert: &amazons_format::Certificate) -> Option<Move> {
    if cert.root.winner != cert.root.position.to_move {
        return None;
    }
    match cert.steps.first() {
        Some(Step::Choice(amazons_format::Action::Board(m))) => Some(*m),
        Some(Step::Outlast { moves }) => moves.first().copied(),
        _ => None,
    }
}

/// Checks every certificate in `dir` and writes `dir/index.md` with one row each.
fn index(dir: &Path) -> Result<ExitCode> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read directory {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| amazons_format::stored::is_cert_path(p))
        .collect();
    files.sort();
    let mut out = String::from(
        "# Certificate index\n\nGenerated by `amazons index` (do not edit by hand): every row was \
         checked by the checker library when the index was written. `blake3` is the hash of \
         the certificate body (the file header pins it). Nodes and solve time are the \
         producer's own figures, from the certificate's metadata. `bytes` is the size of \
         the certificate file, `stored bytes` its size on disk (`*.cert.zst`: \
         zstd-compressed by `amazons compress`; for sharded results, with all shards).\n\n\
         | file | board | claim | first move | nodes | solve ms | steps | bytes | stored bytes | check ms | blake3 |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for path in &files {
        let bytes = amazons_format::stored::read(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let cert = amazons_format::decode(&bytes)
            .with_context(|| format!("{} is unreadable", path.display()))?;
        let t = Instant::now();
        let report = amazons_checker::check(&cert)
            .map_err(|e| anyhow::anyhow!("{} does not check: {e}", path.display()))?;
        let check_ms = t.elapsed().as_secs_f64() * 1e3;
        let hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
        let board = cert.root.position.board;
        let first = first_move(&cert)
            .map(|m| m.notation(board))
            .unwrap_or_else(|| "-".to_string());
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | `{}` |\n",
            path.file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default(),
            board,
            md_cell(&report.claim),
            first,
            cert.meta.nodes,
            cert.meta.millis,
            report.steps,
            bytes.len(),
            std::fs::metadata(path).map_or(0, |m| m.len()),
            check_ms,
            hash.to_hex()
        ));
        println!("{}: {}", path.display(), report.claim);
    }
    // Sharded results: every subdirectory with a plan file, finished (a manifest that
    // checks with its shards) or in progress (proved tasks counted one by one).
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read directory {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join(amazons_solver::shard::PLAN_FILE).is_file())
        .collect();
    dirs.sort();
    if files.is_empty() && dirs.is_empty() {
        return usage(format!(
            "no certificate files and no sharded directories in {}",
            dir.display()
        ));
    }
    let mut progress = String::new();
    for sub in &dirs {
        let plan = amazons_solver::shard::Plan::read(sub)?;
        let name = sub
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let names = plan.unique().map(|t| t.name.as_str());
        let (millis, timed) = amazons_solver::shard::recorded_millis(sub, names);
        let total = plan.unique().count();
        let first = plan
            .first
            .map(|m| m.notation(plan.root.board))
            .unwrap_or_else(|| "-".to_string());
        if let Some(manifest) = amazons_solver::shard::on_disk(&sub.join("manifest.cert")) {
            let bytes = amazons_format::stored::read(&manifest)
                .with_context(|| format!("cannot read {}", manifest.display()))?;
            let cert = amazons_format::decode(&bytes)
                .with_context(|| format!("{} is unreadable", manifest.display()))?;
            let shards = amazons_checker::cli::DirShards::scan(&sub.join("shards"));
            let t = Instant::now();
            let report = amazons_checker::check_with(&cert, &shards)
                .map_err(|e| anyhow::anyhow!("{} does not check: {e}", manifest.display()))?;
            let check_ms = t.elapsed().as_secs_f64() * 1e3;
            let hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
            let shard_bytes: u64 = std::fs::read_dir(sub.join("shards"))
                .map(|entries| {
                    entries
                        .flatten()
                        .filter_map(|e| e.metadata().ok().map(|m| m.len()))
                        .sum()
                })
                .unwrap_or(0);
            let solve = if timed == total {
                millis.to_string()
            } else {
                format!("{millis} ({timed}/{total} tasks timed)")
            };
            out.push_str(&format!(
                "| {name}/{} ({} shards) | {} | {} | {} | {} | {solve} | {} | - | {} | {:.1} | `{}` |\n",
                manifest
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_default(),
                report.shards,
                plan.root.board,
                md_cell(&report.claim),
                first,
                cert.meta.nodes,
                report.steps + report.shard_steps,
                std::fs::metadata(&manifest).map_or(0, |m| m.len()) + shard_bytes,
                check_ms,
                hash.to_hex()
            ));
            println!("{}: {}", manifest.display(), report.claim);
        } else {
            // The figures a run of the campaign prints.
            let st = amazons_solver::campaign::status::Status::checked(&plan, sub);
            progress.push_str(&format!(
                "| {name}/ | {} | {} | {} / {} | {} | {:.2} | {} |\n",
                md_cell(&plan.root.describe()),
                first,
                st.done,
                st.total,
                st.nodes,
                st.millis as f64 / 3.6e6,
                st.left_millis()
                    .map_or("-".to_string(), |ms| format!("{:.2}", ms as f64 / 3.6e6))
            ));
            println!("{}: {}", sub.display(), st.line());
        }
    }
    if !progress.is_empty() {
        out.push_str(
            "\n## In progress\n\nSharded solves not finished yet: tasks whose shard is on disk \
             and checks, of all tasks (mirror images excluded), the nodes and hours their \
             solving took (from `times.tsv`), and the hours left at the mean time per task \
             so far (a floor: hard tasks tend to come last).\n\n\
             | directory | root | first move | tasks proved | nodes | hours | hours left |\n\
             |---|---|---|---|---|---|---|\n",
        );
        out.push_str(&progress);
    }
    let target = dir.join("index.md");
    write_atomic(&target, out.as_bytes())?;
    // The same tables inside DIR/README.md, between its markers (if it has them).
    let readme = dir.join("README.md");
    if let Ok(text) = std::fs::read_to_string(&readme) {
        const START: &str = "<!-- index:start -->";
        const END: &str = "<!-- index:end -->";
        if let (Some(a), Some(b)) = (text.find(START), text.find(END)) {
            if a < b {
                let tables = out
                    .find("| file |")
                    .map_or(out.as_str(), |i| &out[i..])
                    .trim_end();
                let updated = format!("{}{START}\n{tables}\n{}", &text[..a], &text[b..]);
                write_atomic(&readme, updated.as_bytes())?;
                println!("updated the table in {}", readme.display());
            }
        }
    }
    println!(
        "wrote {} ({} certificates, {} sharded directories)",
        target.display(),
        files.len(),
        dirs.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// Text for a markdown table cell: a grid's `|` separators are escaped.
fn md_cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// `amazons prune`: lists, then removes (up to `max_mib`), the shard files of a finished
/// sharded result that its manifest does not need.
fn prune(dir: &Path, dry_run: bool, max_mib: Option<u64>) -> Result<ExitCode> {
    if !dir.is_dir() {
        return usage(format!("{}: no such directory", dir.display()));
    }
    let census = match amazons_solver::prune::census(dir) {
        Ok(c) => c,
        Err(e @ amazons_solver::prune::PruneError::NoManifest(_)) => return usage(e.to_string()),
        Err(e) => return Err(e.into()),
    };
    let mib = |bytes: u64| bytes as f64 / (1u64 << 20) as f64;
    let total: u64 = census.unneeded.iter().map(|(_, s)| s).sum();
    println!(
        "{}: {} shards needed by the manifest, {} not needed ({:.1} MiB)",
        dir.display(),
        census.needed.len(),
        census.unneeded.len(),
        mib(total)
    );
    if dry_run {
        for (path, size) in &census.unneeded {
            println!("unneeded: {} ({size} bytes)", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let cap = max_mib.map(|m| m.saturating_mul(1 << 20));
    let removed = amazons_solver::prune::remove(&census.unneeded, cap)?;
    let gone: u64 = removed.iter().map(|(_, s)| s).sum();
    println!(
        "removed {} files ({:.1} MiB); {} unneeded files ({:.1} MiB) left",
        removed.len(),
        mib(gone),
        census.unneeded.len() - removed.len(),
        mib(total - gone)
    );
    Ok(ExitCode::SUCCESS)
}

/// `amazons compress`: `*.cert` files to `*.cert.zst`, each verified by reading it back.
fn compress(paths: &[PathBuf]) -> Result<ExitCode> {
    fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        if path.is_dir() {
            let entries = std::fs::read_dir(path)
                .with_context(|| format!("cannot read directory {}", path.display()))?;
            let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for p in paths {
                collect(&p, out)?;
            }
        } else if path.extension().is_some_and(|x| x == "cert") {
            out.push(path.to_path_buf());
        }
        Ok(())
    }
    let mut files = Vec::new();
    for p in paths {
        if !p.exists() {
            return usage(format!("{}: no such file or directory", p.display()));
        }
        collect(p, &mut files)?;
    }
    // Level-19 zstd is slow (about 2 MB/s), so the files are shared among all cores; each
    // worker takes the next file in turn, and the first error stops the others.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len().max(1));
    let results: Vec<Result<(u64, u64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let (mut before, mut after) = (0u64, 0u64);
                    while !failed.load(std::sync::atomic::Ordering::Relaxed) {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(file) = files.get(i) else {
                            break;
                        };
                        match compress_one(file) {
                            Ok((b, a)) => {
                                before += b;
                                after += a;
                                let n =
                                    1 + finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                if n.is_multiple_of(100) {
                                    eprintln!("compress: {n}/{} files", files.len());
                                }
                            }
                            Err(e) => {
                                failed.store(true, std::sync::atomic::Ordering::Relaxed);
                                return Err(e);
                            }
                        }
                    }
                    Ok((before, after))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a compress worker panicked")))
            })
            .collect()
    });
    let (mut before, mut after) = (0u64, 0u64);
    for r in results {
        let (b, a) = r?;
        before += b;
        after += a;
    }
    println!(
        "compressed {} files: {before} bytes to {after} ({:.1}x)",
        files.len(),
        before as f64 / after.max(1) as f64
    );
    Ok(ExitCode::SUCCESS)
}

/// Compresses one certificate file into `FILE.zst` (written atomically, read back), then
/// removes the original: its size before and after.
fn compress_one(file: &Path) -> Result<(u64, u64)> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    // Only well-formed certificate files are compressed (the layout and hash check).
    amazons_format::file::verified_body(&bytes)
        .with_context(|| format!("{} is not a valid certificate file", file.display()))?;
    let packed = amazons_format::stored::compress(&bytes)?;
    let mut target = file.as_os_str().to_owned();
    target.push(".zst");
    let target = PathBuf::from(target);
    write_atomic(&target, &packed)?;
    if amazons_format::stored::read(&target)? != bytes {
        let _ = std::fs::remove_file(&target);
        anyhow::bail!(
            "{}: the compressed copy does not read back",
            target.display()
        );
    }
    std::fs::remove_file(file).with_context(|| format!("cannot remove {}", file.display()))?;
    Ok((bytes.len() as u64, packed.len() as u64))
}

/// A default certificate name: the board and the moves, or a hash of the position.
fn default_name(board: Option<&str>, setup: &Setup, position: &Position) -> PathBuf {
    let mut name = match (board, &setup.moves) {
        (Some(b), None) => b.to_ascii_lowercase(),
        (Some(b), Some(m)) => format!(
            "{}-{}",
            b.to_ascii_lowercase(),
            m.split_whitespace().collect::<Vec<_>>().join("_")
        ),
        _ => {
            let h = blake3::hash(format!("{} {}", position.grid(), position.to_move).as_bytes());
            format!("position-{}", &h.to_hex()[..12])
        }
    };
    name.push_str(".cert");
    PathBuf::from(name)
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .context("output path has no file name")?
        .to_string_lossy()
        .to_string();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| -> Result<()> {
        let mut f = std::fs::File::create(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn solve(
    board: Option<String>,
    setup: Setup,
    output: Option<PathBuf>,
    opts: &Options,
    solver: amazons_solver::solvers::SolverKind,
    json: bool,
) -> Result<ExitCode> {
    // With --json, the text lines are left out and one JSON object ends the run.
    macro_rules! say {
        ($($arg:tt)*) => {
            if !json {
                println!($($arg)*)
            }
        };
    }
    let position = setup.position(board.as_deref())?;
    let path = output.unwrap_or_else(|| default_name(board.as_deref(), &setup, &position));
    // Found out now, not after the whole solve.
    amazons_solver::campaign::safety::check_writable(&path).map_err(Usage)?;
    say!(
        "solving {} (table {} MiB)",
        position.describe(),
        opts.hash_mib
    );
    let note = std::env::args().collect::<Vec<_>>().join(" ");
    let solved = match solver {
        amazons_solver::solvers::SolverKind::Dfpn => amazons_solver::solve(&position, opts, &note)?,
        ab => amazons_solver::solvers::solve_with(&position, opts, ab, &note)?,
    };
    let first = solved
        .first_move
        .or_else(|| match solved.certificate.steps.first() {
            Some(Step::Outlast { moves }) if solved.winner == position.to_move => {
                moves.first().copied()
            }
            _ => None,
        });
    if solved.winner == position.to_move {
        match first {
            Some(m) => say!(
                "{} to move wins with {}",
                solved.winner,
                m.notation(position.board)
            ),
            None => say!("{} to move wins", solved.winner),
        }
    } else {
        say!("{} to move loses: {} wins", position.to_move, solved.winner);
    }
    let total = solved.search_time + solved.extract_time;
    say!(
        "nodes: {} search + {} extraction ({} re-searches, {} sum steps, {} sums not adding up), {:.0} nodes/s",
        solved.search_nodes,
        solved.total_nodes - solved.search_nodes,
        solved.researches,
        solved.sums,
        solved.sum_failures,
        solved.total_nodes as f64 / total.as_secs_f64().max(1e-9)
    );
    say!(
        "time: {:.3} s search + {:.3} s extraction",
        solved.search_time.as_secs_f64(),
        solved.extract_time.as_secs_f64()
    );
    if let Some(stats) = &solved.eval_stats {
        say!(
            "evaluation: decided {} search nodes; territory values from databases: {}",
            solved.eval_wins,
            solved.db_hits
        );
        for line in stats.to_string().lines() {
            say!("  {line}");
        }
    }
    let bytes = amazons_format::encode(&solved.certificate)?;
    let t = Instant::now();
    let report = match amazons_checker::check(&solved.certificate) {
        Ok(r) => r,
        Err(e) => bail!("the checker rejected the solver's own certificate (a solver bug): {e}"),
    };
    let check_time = t.elapsed();
    write_atomic(&path, &bytes)?;
    let body_hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
    say!(
        "certificate: {} ({} bytes, {} steps, blake3 {})",
        path.display(),
        bytes.len(),
        report.steps,
        body_hash.to_hex()
    );
    say!(
        "checked: {} in {:.3} s ({:.1}% of solve time)",
        report.claim,
        check_time.as_secs_f64(),
        100.0 * check_time.as_secs_f64() / total.as_secs_f64().max(1e-9)
    );
    say!("result: {} wins", solved.winner);
    if json {
        let solved_first = first.filter(|_| solved.winner == position.to_move);
        let file = (path.as_path(), bytes.len(), body_hash.to_hex().to_string());
        let seconds = check_time.as_secs_f64();
        json_cmd::print(&json_cmd::solve(
            &position,
            &solved,
            solved_first,
            file,
            &report,
            seconds,
        ));
    }
    Ok(ExitCode::SUCCESS)
}
