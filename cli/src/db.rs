//! `amazons db`: build, audit, inspect and benchmark the endgame databases.

use crate::common::{usage, Usage};
use crate::out::{print, println};
use anyhow::Result;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `amazons db` subcommands.
#[derive(Subcommand, Debug)]
pub(crate) enum DbCommand {
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
pub(crate) struct Sample {
    /// Check a seeded random sample of this many entries (per table) instead of all.
    #[arg(long, value_name = "N")]
    pub(crate) sample: Option<usize>,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
}

impl Sample {
    pub(crate) fn get(self) -> Option<(usize, u64)> {
        self.sample.map(|n| (n, self.seed))
    }
}

/// Where the databases live.
#[derive(Args, Debug, Clone)]
pub(crate) struct DbDir {
    /// Database directory (default: $AMAZONS_DB_DIR, else ./db-cache).
    #[arg(long, value_name = "DIR")]
    pub(crate) db_dir: Option<PathBuf>,
}

impl DbDir {
    pub(crate) fn path(&self) -> PathBuf {
        self.db_dir
            .clone()
            .unwrap_or_else(amazons_solver::db::default_dir)
    }
}

/// Runs an `amazons db` subcommand.
pub(crate) fn db(command: DbCommand) -> Result<ExitCode> {
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
            crate::common::ensure_dir(&path)?;
            println!("building databases in {}", path.display());
            let summary = db::build(&path, &cfg, &mut |p: &db::Progress| {
                eprintln!("progress: {p}")
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
            crate::common::ensure_dir(&path)?;
            println!(
                "building the active-area database ({preset}) in {}",
                path.display()
            );
            let control = db::active::BuildControl {
                checkpoints: db::active::Checkpoints {
                    every: (checkpoint_minutes > 0).then(|| {
                        std::time::Duration::from_secs(checkpoint_minutes.saturating_mul(60))
                    }),
                    stop_after_regions: None,
                },
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
