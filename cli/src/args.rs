//! The command line: the `amazons` subcommands and the arguments they share (position
//! setup, search flags, evaluation and database options, `--hash` checks).

use crate::common::{legal_move, usage, Usage};
use crate::db::{DbCommand, DbDir};
use crate::export_cmd;
use crate::play_cmd;
use crate::sharded::{Sharding, SplitRoot};
use crate::testset::TestsetCommand;
use amazons_format::{Color, Position};
use amazons_solver::{Geometry, Options, Pos};
use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use std::path::{Path, PathBuf};

/// Solve small Amazons boards and publish checkable proof certificates.
///
/// Boards are `WxH` (width x height, files a.., ranks 1..) with the small-board start
/// (White on b1, (W-1)1, a2, W2; Black mirrored on the top two ranks; White moves
/// first), or `standard` for the 10x10 tournament start. Moves are written
/// `b1-b4xd4` (queen from-to, then the arrow square).
#[derive(Parser, Debug)]
#[command(name = "amazons", version, about, long_about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
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
        /// Certificate file to write (default: a name under the current directory). It is
        /// written compact, as are the shards of --shards: subtrees on small positions are
        /// one `Search` step (SPEC 5.8; see `compact --search` and --as-extracted).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Transposition table size in MiB (bounds the search memory). Default 512; with
        /// --shards, 50% of the memory available (MemAvailable, or MemTotal less Committed_AS
        /// where that is less), shared among the threads.
        #[arg(long, value_name = "MIB")]
        hash: Option<usize>,
        /// Give up after this many search nodes (with --shards: per task; see --split-depth);
        /// digits, or with a K, M or G suffix (`10M`).
        #[arg(long, value_name = "N", value_parser = node_count)]
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
        /// is checked first), with a first move those an earlier run split or started and
        /// left open last (without one, a single win settles the root, and they keep their
        /// place): to resubmit what is left of a batch.
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
        /// Certificate files (`*.cert`, `*.cert.zst`) or directories, searched recursively;
        /// a manifest's shards are read from the `shards/` directory beside it.
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
    /// Sample a campaign's difficulty before starting it: a seeded random sample of its
    /// tasks (the first moves, or the replies to --first-move), each solved whole within
    /// one node budget (nothing written); prints each task's outcome, how many were solved
    /// within the budget, and a floor on the nodes all tasks need. Last line: `sample: ...`
    Sample(crate::sharded::SampleArgs),
    /// Re-solve a campaign's largest finished shards with another df-pn number rule
    /// (default `sum`) and keep each new shard that is stored smaller, for the same
    /// winner and checked; on a finished campaign the manifest is then written and checked
    /// again. Each attempt is a line in DIR/decisions.tsv (`re-solved for size`), so a
    /// rerun goes on with the next shards; a replaced shard's nodes and time go to
    /// times.tsv, all search time to spent.tsv. A campaign may go on beside it in the same
    /// directory: its manifest cites the shards as they are when it is written. Last line:
    /// `shrink: R of N shards replaced, B bytes saved ...` (or the manifest's `verified:`
    /// line).
    Shrink(crate::shrink_cmd::ShrinkArgs),
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
        /// Search nodes (default: 1M; a campaign without --max-nodes ranks with 10M);
        /// digits, or with a K, M or G suffix.
        #[arg(long, value_name = "N", value_parser = node_count)]
        max_nodes: Option<u64>,
        /// A move known to lose for the side to move (repeatable), as a split ranks its
        /// task again after a refuted guess: the search takes it as a proved loss, spends
        /// its budget on the other moves, and lists it last.
        #[arg(long, value_name = "MOVE")]
        lost: Vec<String>,
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
        /// Certificate files or directories (searched recursively for `*.cert` files).
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
    },
    /// Rewrite a certificate file, or a sharded result directory (shards first, then the
    /// files citing them), with every outlast list cut to the shortest prefix the checker's
    /// completion accepts (SPEC 5.4), and with `--search` subtrees on small positions
    /// replaced by a `Search` step (SPEC 5.8). The input is checked
    /// first and refused untouched if wrong (exit 1) or damaged (exit 2); each rewritten
    /// file is checked and written under a temporary name (one file in memory at a time),
    /// and they all replace the originals at the end, in the same stored form.
    Compact {
        /// A certificate file, or a sharded result's directory (with its manifest).
        #[arg(value_name = "PATH")]
        path: PathBuf,
        /// Also replace subtrees on small positions by one `Search` step, which the checker
        /// decides by exhaustive search (SPEC 5.8): every subtree on a position with at most
        /// 4 empty squares, and one with 5 to 10 where the checker's search settles it within
        /// 64 states per step saved and 8,192 states in all. Fewer steps and bytes, more
        /// checking time.
        #[arg(long)]
        search: bool,
        /// Also trim choices: where the winner's chosen move needs a subproof of 3 or more
        /// steps and another move closes at once (the loser has no move, or the outlast rule
        /// accepts an empty list), take that move (first in canonical order) and drop the
        /// subproof, unless a later step cites a claim proven in it. Slower to convert; the
        /// result checks the same way.
        #[arg(long)]
        trim: bool,
        /// Convert part of a sharded result: rewrite leaf shards only until the originals
        /// changed add up to this many MiB stored, and keep the others as they are (every
        /// manifest is still rewritten to cite them), so that a large result can be
        /// converted over several commits. Run again to go on: shards already compact come
        /// out unchanged.
        #[arg(long, value_name = "MIB")]
        limit: Option<u64>,
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

/// How to set up the position.
#[derive(Args, Debug, Clone)]
pub(crate) struct Setup {
    /// Start from this grid instead of a start position: rows from the top rank down
    /// separated by `|`; X Black, O White, # arrow, . empty (e.g. `.X.|...|O#.`).
    #[arg(long, value_name = "GRID")]
    pub(crate) position: Option<String>,
    /// Side to move for --position: white or black.
    #[arg(long, value_name = "SIDE", default_value = "white")]
    pub(crate) to_move: String,
    /// Moves to play first, space separated (e.g. "b1-b4xd4 e5-c5xc4").
    #[arg(long, value_name = "MOVES")]
    pub(crate) moves: Option<String>,
    /// Start from an SGF file (Amazons convention, GM[18]; SGF's B is White): its setup
    /// and the moves of its main line (then --moves, if given).
    #[arg(long, value_name = "FILE", conflicts_with = "position")]
    pub(crate) sgf: Option<PathBuf>,
}

impl Setup {
    pub(crate) fn position(&self, board: Option<&str>) -> Result<Position> {
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
                let m = legal_move(&pos, text, "--moves")?;
                pos = Pos::from_position(&pos).play(m).to_position(&g);
            }
        }
        Ok(pos)
    }
}

/// The df-pn number rule (`--numbers`).
#[derive(clap::ValueEnum, Debug, Clone, Copy)]
pub(crate) enum NumbersArg {
    Weak,
    Sum,
    Capped,
}

impl From<NumbersArg> for amazons_solver::dfpn::Numbers {
    fn from(n: NumbersArg) -> Self {
        match n {
            NumbersArg::Weak => amazons_solver::dfpn::Numbers::Weak,
            NumbersArg::Sum => amazons_solver::dfpn::Numbers::Sum,
            NumbersArg::Capped => amazons_solver::dfpn::Numbers::Capped,
        }
    }
}

/// The search flags `solve` and `rank` share: progress, the df-pn numbers rule, and the
/// evaluation.
#[derive(Args, Debug, Clone)]
pub(crate) struct SearchFlags {
    /// Do not print progress lines.
    #[arg(short, long)]
    pub(crate) quiet: bool,
    /// How df-pn makes a node's disproof number from its children's proof numbers:
    /// `weak` (the largest plus one per other open child; far fewer nodes on most
    /// boards, as positions transpose heavily), `sum` (plain df-pn; on 6x5 proofs of a
    /// third to a fifth of the size, but often more nodes) or `capped` (the largest plus
    /// each other open child's number up to 8).
    #[arg(long, value_enum, default_value_t = NumbersArg::Weak, value_name = "RULE")]
    pub(crate) numbers: NumbersArg,
    #[command(flatten)]
    pub(crate) eval: EvalArgs,
}

impl SearchFlags {
    /// The search options with these flags (databases opened, or built if missing).
    pub(crate) fn options(
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
            live_nodes: Vec::new(),
            numbers: self.numbers.into(),
            max_steps,
        })
    }
}

/// Which parts of the static evaluation to use.
#[derive(Args, Debug, Clone)]
pub(crate) struct EvalArgs {
    /// No static evaluation: terminal and outlast detection only (the foundation solver).
    #[arg(long)]
    pub(crate) no_eval: bool,
    /// Evaluation without blocker territories (basic partition only).
    #[arg(long)]
    pub(crate) no_blockers: bool,
    /// Evaluation without the safe-move rules on active areas.
    #[arg(long)]
    pub(crate) no_static_rules: bool,
    /// Evaluation without local alpha-beta search of small active areas.
    #[arg(long)]
    pub(crate) no_local_search: bool,
    /// Local search only on areas with fewer queens plus empty squares than this.
    #[arg(long, default_value_t = 9, value_name = "N")]
    pub(crate) local_limit: u32,
    /// Exact combinatorial values for active areas with at most N empty squares, so that
    /// `*` and fuzzy infinitesimals are counted (paper IV-C2); 0 = off (slow above 4).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(crate) cgt_limit: u32,
    /// Use the simple and blocker territory databases in the evaluation (built into
    /// --db-dir first if missing; about 10 s and 60 MB for the default set).
    #[arg(long)]
    pub(crate) db: bool,
    /// Use the active-area (combinatorial game) database in the evaluation: values of
    /// whole active areas, `*` and infinitesimal counting (built into --db-dir with the
    /// quick preset first if missing: about a minute, 64 MB).
    #[arg(long)]
    pub(crate) active_db: bool,
    /// Database directory for --db and --active-db (default: $AMAZONS_DB_DIR, else
    /// ./db-cache).
    #[arg(long, value_name = "DIR")]
    pub(crate) db_dir: Option<PathBuf>,
}

impl EvalArgs {
    /// The database directory (created if missing).
    pub(crate) fn database_dir(&self) -> Result<PathBuf> {
        let dir = self
            .db_dir
            .clone()
            .unwrap_or_else(amazons_solver::db::default_dir);
        crate::common::ensure_dir(&dir)?;
        Ok(dir)
    }

    /// The active-area database when --active-db is given (opened, or built if missing).
    pub(crate) fn active_database(
        &self,
    ) -> Result<Option<std::sync::Arc<amazons_solver::db::active::ActiveDb>>> {
        if !self.active_db || self.no_eval {
            return Ok(None);
        }
        active_database_in(&self.database_dir()?).map(Some)
    }

    /// The territory databases when --db is given (opened, or built if missing or stale).
    pub(crate) fn database(&self) -> Result<Option<std::sync::Arc<amazons_solver::db::Database>>> {
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
    pub(crate) fn with_db(db_dir: &DbDir) -> EvalArgs {
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

    pub(crate) fn config(&self) -> Option<amazons_solver::eval::EvalConfig> {
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

/// The active-area table in `dir`, whatever preset built it (`amazons db build-active`);
/// built with the quick preset when missing, corrupt or outdated.
pub(crate) fn active_database_in(
    dir: &Path,
) -> Result<std::sync::Arc<amazons_solver::db::active::ActiveDb>> {
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

/// Rejects a `--hash` of zero or of more than the machine's memory (read from
/// `/proc/meminfo` where there is one): a table that cannot be allocated would abort.
pub(crate) fn check_hash(mib: usize) -> Result<()> {
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

/// A node count on the command line: digits, optionally ending in K, M or G (thousands,
/// millions, billions: `10M` is 10,000,000), as the help and the ladder's records write
/// them ([`amazons_campaign::decisions::parse_count`]); at least 1, as every option that
/// takes one is a budget.
pub(crate) fn node_count(text: &str) -> Result<u64, String> {
    match amazons_campaign::decisions::parse_count(text.trim()) {
        Some(0) => Err("a node budget must be at least 1".into()),
        Some(n) => Ok(n),
        None => Err(format!(
            "`{text}` is not a node count: digits, optionally ending in K, M or G (e.g. 10M)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::node_count;

    #[test]
    fn node_counts_take_plain_digits_and_the_suffixes_the_help_writes() {
        assert_eq!(node_count("1000"), Ok(1000));
        assert_eq!(node_count("10M"), Ok(10_000_000));
        assert_eq!(node_count("1g"), Ok(1_000_000_000));
        assert_eq!(node_count("250k"), Ok(250_000));
        assert_eq!(node_count("100G"), Ok(100_000_000_000));
        for bad in [
            "",
            "M",
            "1.5M",
            "-1",
            "+5",
            "10MB",
            "ten",
            "99999999999999999999G",
            "0",
            "0K",
        ] {
            assert!(node_count(bad).is_err(), "{bad:?} accepted");
        }
    }
}
