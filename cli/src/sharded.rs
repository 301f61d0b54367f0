//! Sharded solving from the command line: `solve --shards`, `tasks` and `manifest`.

use crate::args::Setup;
use crate::common::{ensure_dir, hold, usage, Usage};
use crate::json_cmd;
use crate::out::{println, say};
use amazons_format::{Move, Position};
use amazons_solver::Options;
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// The root of a sharded result and how it was split (`tasks` and `manifest`).
#[derive(Args, Debug, Clone)]
pub(crate) struct SplitRoot {
    /// Board (`WxH` or `standard`); omit with --position.
    pub(crate) board: Option<String>,
    #[command(flatten)]
    pub(crate) setup: Setup,
    /// Directory of the sharded result.
    #[arg(long, value_name = "DIR")]
    pub(crate) shards: PathBuf,
    /// The first move fixed: one task per reply (the same for `tasks` and `manifest`).
    #[arg(long, value_name = "MOVE")]
    pub(crate) first_move: Option<String>,
}

impl SplitRoot {
    /// The root position split into tasks.
    pub(crate) fn plan(&self) -> Result<amazons_campaign::shard::Plan> {
        let position = self.setup.position(self.board.as_deref())?;
        let first = parse_first(&position, &self.first_move)?;
        plan(&position, first)
    }
}

/// Sharded solving options.
#[derive(Args, Debug, Clone)]
pub(crate) struct Sharding {
    /// Split the root into tasks, one certificate each under DIR/shards/, plus the
    /// manifest DIR/manifest.cert; rerunning resumes (finished shards are kept, read and
    /// confirmed by hash and position, and checked in the run's final check, which moves
    /// aside any the checker rejects; tasks an earlier run split, or started and left
    /// unfinished, go last with --first-move; without it one winning task settles the root,
    /// and they keep their ranked place).
    #[arg(long, value_name = "DIR")]
    pub(crate) shards: Option<PathBuf>,
    /// With --shards: fix this first move and make one task per reply. Every reply must then
    /// be proved, so without --max-nodes the tasks go in passes: each whole within 10M
    /// nodes, least promising replies first (the quickest), then those over it within 100M,
    /// then the rest up the ladder, split if need be (`quick pass` lines in decisions.tsv).
    #[arg(long, value_name = "MOVE", requires = "shards")]
    pub(crate) first_move: Option<String>,
    /// With --shards: worker threads (default: all cores); the table is split among them.
    #[arg(long, value_name = "N", requires = "shards")]
    pub(crate) threads: Option<usize>,
    /// With --shards: split a task over budget (--max-nodes or --max-steps, or the top of
    /// the --ladder) this many levels deeper (the most promising move is fixed, one subtask per reply;
    /// the task's shard becomes a manifest of its subtasks; each split is recorded in
    /// DIR/splits.tsv, and a rerun splits the same way at once). 0 leaves such tasks open
    /// for a later run; the other tasks go on either way. Default: 0 with --max-nodes,
    /// else 3.
    #[arg(long, value_name = "N", requires = "shards")]
    pub(crate) split_depth: Option<usize>,
    /// With --shards and without --max-nodes: the node budgets each task is solved whole
    /// with in turn before it is split, each digits or with a K, M or G suffix (default
    /// 10M,100M,1G,10G,100G, every rung on the thread's whole table; a rung whose table
    /// would not fit is cut to what the table holds and is the last). The lowest rung of a
    /// --ladder gets the table its budget fills, the others the thread's whole table; rungs
    /// below the top on that same table are climbed as one (the highest of them), and the
    /// top rung goes on from the entries of the rung below it (not across the passes of
    /// --first-move, which put a task over budget off). The first rung of 10M or more (else
    /// the top) is also the budget of the searches that rank moves. Each rung is recorded
    /// in DIR/decisions.tsv.
    #[arg(
        long,
        value_name = "N,..",
        value_delimiter = ',',
        requires = "shards",
        value_parser = crate::args::node_count
    )]
    pub(crate) ladder: Vec<u64>,
    /// With --shards: each thread keeps its transposition table from one task to the next,
    /// so later tasks reuse what earlier ones proved (faster on small tasks, slower on
    /// hard ones: on 6x4, 0.84 of the CPU on 32 small tasks, 1.18 times the nodes on the
    /// run's first 47; certificates still checked), but shard bytes and the root hash then
    /// depend on the order the tasks ran in. Re-solves for size start from empty tables.
    #[arg(long, requires = "shards")]
    pub(crate) shared_table: bool,
    /// Write the certificate (with --shards: every shard) as the solver extracted it,
    /// without replacing subtrees on small positions by one `Search` step (SPEC 5.8):
    /// larger, and faster to check; for measuring what `amazons
    /// compact --search` does.
    #[arg(long)]
    pub(crate) as_extracted: bool,
    /// With --shards: solve the tasks most promising first, as ranked by a df-pn of the
    /// split position within --max-nodes (default: the ladder's guess budget, 10M), instead of
    /// in move order; always on without --max-nodes. Without --first-move, the run stops
    /// at the first move that wins.
    #[arg(long, requires = "shards")]
    pub(crate) guess_order: bool,
    /// With --shards: solve only these tasks, comma separated: numbers (`46`), shard names
    /// (`046-e5-e3xc1`) or reply moves (`e5-e3xc1`), as `amazons tasks` lists them. The
    /// other tasks are left to other runs, which may share the directory: once its own
    /// tasks are finished this one ends (exit 0) with a `done:` line saying how many tasks
    /// are left to the others, and writes the manifest only if every other task's shard is
    /// already there.
    #[arg(long, value_name = "TASKS", value_delimiter = ',', requires = "shards")]
    pub(crate) only: Vec<String>,
    /// With --shards and --split-depth: when a split's three guesses are all refuted
    /// (the guessing search misjudged the task), solve the task whole once more with K
    /// times --max-nodes before trying its moves one by one. A retry that fails is
    /// recorded in DIR/splits.tsv and not repeated. 0 or 1: no retry.
    #[arg(long, value_name = "K", default_value_t = 4, requires = "shards")]
    pub(crate) escalate: u64,
    /// With --shards and --split-depth: when a split's guesses are all refuted and the
    /// retry (--escalate) fails too, how many of the task's other moves this run tries
    /// before leaving it open; a rerun goes on with the next ones (moves proved lost are
    /// not tried again). 0: every move, until one wins or all are proved lost.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "shards")]
    pub(crate) tries: usize,
    /// With --shards: re-solve each new whole shard (of a task, or of a split task's
    /// subtask) stored in more than KIB KiB at once with --shrink-numbers, within the nodes
    /// it took, and keep the smaller (a `re-solved for size` line in DIR/decisions.tsv;
    /// `amazons shrink` does the same for shards already finished, within 3 times
    /// their nodes). After five such re-solves in a row replaced nothing, one shard in ten
    /// is tried. 0: off. Default: 256 without --max-nodes, else 0.
    #[arg(long, value_name = "KIB", requires = "shards")]
    pub(crate) shrink_over: Option<u64>,
    /// With --shards: the df-pn number rule of the re-solves of --shrink-over (`sum` gave
    /// 6x5 proofs of a sixth to a thirtieth of weak's bytes).
    #[arg(long, value_enum, value_name = "RULE", default_value_t = crate::args::NumbersArg::Sum, requires = "shards")]
    pub(crate) shrink_numbers: crate::args::NumbersArg,
}

/// Parses the optional first move of a sharded solve.
fn parse_first(position: &Position, text: &Option<String>) -> Result<Option<Move>> {
    text.as_deref()
        .map(|t| Move::parse(position.board, t).map_err(|e| Usage(e.to_string()).into()))
        .transpose()
}

/// Maps plan errors that come from bad input to exit code 2.
pub(crate) fn plan(
    position: &Position,
    first: Option<Move>,
) -> Result<amazons_campaign::shard::Plan> {
    amazons_campaign::shard::Plan::new(position, first).map_err(|e| Usage(e.to_string()).into())
}

/// `amazons solve --shards`: solve every task (resuming), write and check the manifest.
/// `table` is the table size chosen from free memory when --hash was not given.
pub(crate) fn solve_sharded(
    position: &Position,
    sharding: &Sharding,
    opts: &Options,
    table: Option<amazons_campaign::memory::Choice>,
    json: bool,
) -> Result<ExitCode> {
    use amazons_campaign::{decisions, ladder::Ladder, safety};

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
        Some(_) => amazons_campaign::ladder::DEFAULT_SPLIT_DEPTH,
        None => 0,
    });
    let threads = sharding
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    ensure_dir(dir)?;
    // Held to the end: no other run works in this directory meanwhile, but runs of other
    // tasks chosen by --only.
    let _hold = hold(dir, !sharding.only.is_empty())?;
    let table_line = match table {
        Some(c) => c.describe(threads),
        None => format!(
            "{} MiB (--hash), {} MiB per thread",
            opts.hash_mib,
            opts.hash_mib / threads.max(1)
        ),
    };
    say!(json, "table: {table_line}");
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
    let shrink_over = sharding.shrink_over.unwrap_or(if ladder.is_some() {
        amazons_campaign::shrink::SHRINK_OVER / 1024
    } else {
        0
    });
    let shrink = (shrink_over > 0).then(|| amazons_campaign::shrink::AsYouGo {
        over: shrink_over.saturating_mul(1024),
        numbers: sharding.shrink_numbers.into(),
    });
    let shrink_line = match shrink {
        Some(go) if go.numbers != opts.numbers => format!(
            "; shards over {shrink_over} KiB re-solved with {} numbers",
            amazons_campaign::shrink::rule_name(go.numbers)
        ),
        _ => String::new(),
    };
    // The rule last, as `amazons shrink` reads it back from decisions.tsv.
    let budget_line = format!(
        "{budget_line}{shrink_line}; df-pn numbers {}",
        amazons_campaign::shrink::rule_name(opts.numbers)
    );
    say!(json, "budget: {budget_line}");
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
    let status = amazons_campaign::status::Status::on_disk(&plan, dir);
    if opts.progress && (status.done > 0 || status.timed > 0 || status.spent > 0) {
        eprintln!(
            "campaign so far: {} (shards on disk, not checked yet: the checker sees each before a manifest is kept)",
            status.line()
        );
    }
    say!(
        json,
        "solving {} in {} tasks ({} more by symmetry) on {threads} thread(s) into {}",
        position.describe(),
        plan.unique().count(),
        plan.tasks.len() - plan.unique().count(),
        dir.display()
    );
    let quiet = !opts.progress;
    let t = Instant::now();
    let budget = amazons_campaign::shard::Budget {
        threads,
        split_depth,
        shared_table: sharding.shared_table,
        guess_order: sharding.guess_order || ladder.is_some(),
        only: sharding.only.clone(),
        escalate: sharding.escalate,
        tries: sharding.tries,
        quick: ladder.as_ref().and_then(|l| l.quick()),
        ladder,
        as_extracted: sharding.as_extracted,
        shrink,
    };
    let run = amazons_campaign::shard::run(&plan, dir, opts, budget, &|p| {
        if !quiet {
            if p.finished {
                eprintln!("task: {}", p.last);
            }
            eprintln!("progress: {}", p.line());
        }
    });
    let (manifest, done) = match run {
        // A run given --only has done its share once its tasks are finished: no error.
        Err(amazons_campaign::shard::ShardError::Skipped { skipped, total }) => {
            say!(
                json,
                "done: the tasks chosen by --only are finished and their shards kept in {}; \
                 {skipped} of {total} tasks are left to other runs, so no manifest yet (the \
                 run that finds every other shard on disk writes it)",
                dir.display()
            );
            if json {
                json_cmd::print(&serde_json::json!({
                    "command": "solve",
                    "sharded": true,
                    "manifest": null,
                    "left_to_other_runs": skipped,
                    "tasks_total": total,
                }));
            }
            return Ok(ExitCode::SUCCESS);
        }
        other => other?,
    };
    let solve_time = t.elapsed();
    let t = Instant::now();
    // Every shard again, in full, by the checker alone, on the run's threads.
    let report = match check_manifest(&manifest, dir, threads, !quiet) {
        Ok(report) => report,
        Err(e) => {
            amazons_campaign::shard::remove_manifest(dir)?;
            // The shards the run resumed without checking are checked one by one; those the
            // checker rejects are moved aside (and named), for the next run to solve again.
            let aside = amazons_campaign::safety::set_aside_rejected(dir, None);
            if aside.is_empty() {
                anyhow::bail!(
                    "the checker rejected the manifest, so it was removed (a solver bug): {e}"
                );
            }
            anyhow::bail!(
                "the checker rejected the manifest, so it was removed: {} shard(s) this run \
                 resumed failed the checker and were moved aside ({}); run again to solve \
                 them anew",
                aside.len(),
                aside.join(", ")
            );
        }
    };
    let check_time = t.elapsed();
    let bytes = amazons_format::encode(&manifest)?;
    let root_hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
    let solved: Vec<_> = done.iter().filter(|d| d.mirror_of.is_none()).collect();
    let resumed = solved.iter().filter(|d| d.resumed).count();
    say!(
        json,
        "tasks: {} ({} resumed), nodes {}, solve {:.1} s, check {:.1} s",
        solved.len(),
        resumed,
        solved.iter().map(|d| d.nodes).sum::<u64>(),
        solve_time.as_secs_f64(),
        check_time.as_secs_f64()
    );
    say!(
        json,
        "manifest: {} ({} shards, {} shard steps, {} shard bytes), root blake3 {}",
        amazons_format::stored::on_disk(&dir.join("manifest.cert"))
            .unwrap_or_else(|| dir.join("manifest.cert"))
            .display(),
        report.shards,
        report.shard_steps,
        solved.iter().map(|d| d.bytes).sum::<u64>(),
        root_hash.to_hex()
    );
    say!(json, "checked: {}", report.claim);
    say!(json, "result: {} wins", manifest.root.winner);
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

/// `amazons tasks`: one `amazons solve` command per task of a sharded solve.
pub(crate) fn tasks(split: SplitRoot, hash: usize, pending: bool) -> Result<ExitCode> {
    let plan = split.plan()?;
    let shards = split.shards;
    amazons_campaign::safety::check_plan(&shards, &plan).map_err(|e| Usage(e.to_string()))?;
    ensure_dir(&shards)?;
    ensure_dir(&shards.join("shards"))?;
    plan.write(&shards)?;
    // A closed pipe (e.g. `| head`) ends the listing quietly rather than panicking.
    let tasks: Vec<&amazons_campaign::shard::Task> = if pending {
        amazons_campaign::shard::pending(&plan, &shards)
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

/// `amazons manifest`: assembles and checks the manifest of a sharded result.
pub(crate) fn manifest(split: SplitRoot) -> Result<ExitCode> {
    let plan = split.plan()?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    write_manifest(&plan, &split.shards, threads, false)?;
    Ok(ExitCode::SUCCESS)
}

/// Checks `manifest` with every shard in `dir/shards` on `threads` threads, with
/// `progress` a `checking the manifest` line on stderr every 10 s. The shards this process
/// checked in full as it wrote or found them are not checked again (their bytes are
/// found by hash, so a file changed since is); the report counts their steps all the same.
fn check_manifest(
    manifest: &amazons_format::Certificate,
    dir: &std::path::Path,
    threads: usize,
    progress: bool,
) -> Result<amazons_checker::Report, amazons_checker::CheckError> {
    let shards = amazons_campaign::verified::RunShards::checked_here_only(dir);
    let mut print = amazons_checker::cli::progress_printer("checking the manifest".into());
    let mut silent = |_: amazons_checker::Progress| {};
    let report_to: &mut dyn FnMut(amazons_checker::Progress) =
        if progress { &mut print } else { &mut silent };
    let mut report = amazons_checker::check_parallel(manifest, &shards, threads, report_to)?;
    shards.complete(&mut report);
    Ok(report)
}

/// Assembles the manifest of `plan` from the shards in `dir`, checks it with every shard
/// on `threads` threads (with `progress`, a line on stderr every 10 s), writes it once it
/// checks, and prints its path, root hash and claim. The shards are read without checking
/// them first: the manifest's check checks each of them once, on every thread.
pub(crate) fn write_manifest(
    plan: &amazons_campaign::shard::Plan,
    dir: &std::path::Path,
    threads: usize,
    progress: bool,
) -> Result<()> {
    use amazons_campaign::shard;
    let (plan, done) = shard::collect_result(plan, dir)?;
    let manifest = shard::manifest_of(&plan, &done)?;
    let report = check_manifest(&manifest, dir, threads, progress)
        .map_err(|e| anyhow::anyhow!("the manifest does not check, so it was not written: {e}"))?;
    shard::write_manifest(&plan, dir, &done, &manifest)?;
    let bytes = amazons_format::encode(&manifest)?;
    let root_hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
    println!(
        "manifest: {} ({} shards), root blake3 {}",
        amazons_format::stored::on_disk(&dir.join("manifest.cert"))
            .unwrap_or_else(|| dir.join("manifest.cert"))
            .display(),
        report.shards,
        root_hash.to_hex()
    );
    println!("verified: {}", report.claim);
    Ok(())
}

/// What `amazons sample` was asked.
#[derive(Args, Debug, Clone)]
pub(crate) struct SampleArgs {
    /// Board (`WxH` or `standard`); omit with --position.
    board: Option<String>,
    #[command(flatten)]
    setup: Setup,
    /// The first move fixed: the tasks are its replies (as `solve --shards`).
    #[arg(long, value_name = "MOVE")]
    first_move: Option<String>,
    /// How many tasks to sample.
    #[arg(long, default_value_t = 8, value_name = "N")]
    tasks: usize,
    /// Which tasks: the same seed picks the same ones.
    #[arg(long, default_value_t = 1, value_name = "S")]
    seed: u64,
    /// Search nodes per task.
    #[arg(long, default_value = "10M", value_name = "N", value_parser = crate::args::node_count)]
    max_nodes: u64,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 1024, value_name = "MIB")]
    hash: usize,
    #[command(flatten)]
    search: crate::args::SearchFlags,
}

/// `amazons sample`: a seeded sample of a campaign's tasks, each solved within a budget.
pub(crate) fn sample(a: SampleArgs) -> Result<ExitCode> {
    if a.tasks == 0 {
        return usage("--tasks must be at least 1");
    }
    let position = a.setup.position(a.board.as_deref())?;
    let first = parse_first(&position, &a.first_move)?;
    let plan = plan(&position, first)?;
    // One line per task, not the solver's own progress lines.
    let opts = Options {
        progress: false,
        ..a.search.options(a.hash, Some(a.max_nodes), None)?
    };
    let total = plan.unique().count();
    let tasks = amazons_campaign::sample::pick(&plan, a.tasks, a.seed);
    eprintln!(
        "sampling {} of {total} tasks (seed {}), each within {} and a {} MiB table",
        tasks.len(),
        a.seed,
        amazons_campaign::decisions::nodes(a.max_nodes),
        a.hash
    );
    let mut done = 0;
    let sampled = amazons_campaign::sample::sample(&tasks, &opts, &mut |s| {
        done += 1;
        let what = match s.solved {
            Some((winner, nodes)) => format!("{winner} wins, {nodes} nodes"),
            None => format!("over {}", amazons_campaign::decisions::nodes(a.max_nodes)),
        };
        println!(
            "{}: {what}, {:.1} s ({done}/{})",
            s.name,
            s.millis as f64 / 1e3,
            tasks.len()
        );
    })?;
    println!(
        "{}",
        amazons_campaign::sample::summary(&sampled, a.max_nodes, total)
    );
    Ok(ExitCode::SUCCESS)
}
