//! `amazons shrink`: re-solve a campaign's largest finished shards with another df-pn number rule and keep the smaller ones.

use crate::args::{EvalArgs, NumbersArg, SearchFlags};
use crate::common::usage;
use crate::out::println;
use amazons_campaign::decisions::{self, nodes};
use amazons_campaign::shrink::{self, Verdict};
use anyhow::{Context, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What `amazons shrink` was asked.
#[derive(Args, Debug, Clone)]
pub(crate) struct ShrinkArgs {
    /// The campaign directory (as given to `solve --shards`: it holds plan.txt and shards/).
    dir: PathBuf,
    /// How many shards to re-solve: the largest stored ones (finished task shards, and the
    /// subtask shards of split tasks still open) whose shard was not made with --numbers
    /// (by decisions.tsv) and that no earlier run re-solved with it.
    #[arg(long, value_name = "N", default_value_t = shrink::DEFAULT_LARGEST)]
    largest: usize,
    /// Re-solve these tasks instead (numbers, shard names or reply moves, comma separated,
    /// as `amazons tasks` lists them), even if re-solved before; for a split task still
    /// open, its subtask shards.
    #[arg(long, value_name = "TASKS", value_delimiter = ',')]
    only: Vec<String>,
    /// The df-pn number rule of the new searches (see `solve --numbers`): `sum` gives the
    /// smallest proofs, sometimes for two to three times weak's nodes; `capped` keeps
    /// weak's nodes for about half its bytes on 6x5 (a second try for shards sum could
    /// not do within the budget).
    #[arg(long, value_enum, default_value_t = NumbersArg::Sum, value_name = "RULE")]
    numbers: NumbersArg,
    /// Node budget per task (default: 3 times the nodes of the search that made its shard).
    #[arg(long, value_name = "N", value_parser = crate::args::node_count)]
    max_nodes: Option<u64>,
    /// Worker threads, one task each (default: all cores); the table is split among them.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Transposition table size in MiB (default: 50% of the memory available).
    #[arg(long, value_name = "MIB")]
    hash: Option<usize>,
    /// Do not print progress lines.
    #[arg(short, long)]
    quiet: bool,
    #[command(flatten)]
    eval: EvalArgs,
}

/// `amazons shrink`.
pub(crate) fn run(a: ShrinkArgs) -> Result<ExitCode> {
    let dir = &a.dir;
    if !dir.join(amazons_campaign::shard::PLAN_FILE).is_file() {
        return usage(format!(
            "{}: not a campaign directory (no {} in it; `amazons solve --shards` writes one)",
            dir.display(),
            amazons_campaign::shard::PLAN_FILE
        ));
    }
    if a.threads == Some(0) {
        return usage("--threads: thread counts start at 1");
    }
    let plan = amazons_campaign::shard::Plan::read(dir)?;
    if let Err(e) = plan.check_only(&a.only) {
        return usage(format!("--only: {e}"));
    }
    let threads = a
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let hash = a
        .hash
        .or(amazons_campaign::memory::Choice::for_this_machine().map(|c| c.mib))
        .unwrap_or(512);
    let flags = SearchFlags {
        quiet: true,
        numbers: a.numbers,
        eval: a.eval.clone(),
    };
    let searched = Arc::new(AtomicU64::new(0));
    let opts = amazons_solver::Options {
        live_nodes: vec![searched.clone()],
        ..flags.options(hash, a.max_nodes, None)?
    };
    let rule = shrink::rule_name(opts.numbers);
    if !a.quiet {
        // Checking the chosen shards can take a while (seconds per MB): say so at once.
        eprintln!(
            "choosing the shards of {} to re-solve with {rule} numbers, and checking each",
            dir.display()
        );
    }
    let targets = shrink::targets(&plan, dir, opts.numbers, a.largest, &a.only, threads)?;
    if targets.is_empty() {
        let why = if a.only.is_empty() && a.largest == 0 {
            "--largest 0 chooses none".to_string()
        } else {
            format!("every finished whole shard that no split cites yet was made with {rule} numbers or re-solved with them already")
        };
        println!("shrink: nothing to re-solve in {} ({why})", dir.display());
        if amazons_format::stored::on_disk(&dir.join("manifest.cert")).is_some()
            && amazons_campaign::shard::manifest_stale(&plan, dir)
        {
            crate::sharded::write_manifest(&plan, dir, threads, !a.quiet)
                .with_context(|| format!("rewriting the manifest of {}", dir.display()))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let before: u64 = targets.iter().map(|t| t.stored).sum();
    let budget = match a.max_nodes {
        Some(n) => format!("within {} each", nodes(n)),
        None => format!(
            "each within {} times the nodes that made its shard",
            shrink::NODE_FACTOR
        ),
    };
    let line = format!(
        "re-solving {} shards of {} ({before} bytes stored), largest first, with {rule} numbers, {budget}, on {threads} thread(s) with {hash} MiB of table",
        targets.len(),
        dir.display()
    );
    println!("{line}");
    decisions::record(dir, "run", "shrink", &format!("{threads} thread(s)"), &line);
    let total = targets.len();
    let finished = AtomicUsize::new(0);
    let saved = AtomicU64::new(0);
    let start = Instant::now();
    let over = AtomicBool::new(false);
    let quiet = a.quiet;
    let outcomes = std::thread::scope(|scope| {
        // A progress line every 10 s on stderr while the searches run.
        scope.spawn(|| {
            let mut last = Instant::now();
            while !over.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                if !quiet && last.elapsed() >= Duration::from_secs(10) {
                    last = Instant::now();
                    eprintln!(
                        "progress: {}/{total} shards re-solved, {} nodes searched, {:.0} s elapsed, {} bytes saved so far",
                        finished.load(Ordering::SeqCst),
                        searched.load(Ordering::Relaxed),
                        start.elapsed().as_secs_f64(),
                        saved.load(Ordering::SeqCst)
                    );
                }
            }
        });
        let each = |o: &shrink::Outcome| {
            let k = finished.fetch_add(1, Ordering::SeqCst) + 1;
            let what = match o.verdict {
                Verdict::Replaced { old, new } => {
                    saved.fetch_add(old - new, Ordering::SeqCst);
                    format!("replaced, {old} -> {new} bytes stored")
                }
                Verdict::Kept { old, new } => {
                    format!("kept the old shard ({old} bytes stored; the new one {new})")
                }
                Verdict::OverBudget { budget } => {
                    format!("over {}: kept the old shard", nodes(budget))
                }
            };
            println!(
                "{}: {what} ({} nodes, {:.1} s) [{k}/{total}]",
                o.name,
                o.nodes,
                o.millis as f64 / 1e3
            );
        };
        let r = shrink::run(&plan, dir, &opts, &targets, threads, &each);
        over.store(true, Ordering::SeqCst);
        r
    })?;
    let replaced = outcomes
        .iter()
        .filter(|o| matches!(o.verdict, Verdict::Replaced { .. }))
        .count();
    let saved = saved.into_inner();
    println!(
        "shrink: {replaced} of {} shards replaced, {saved} bytes saved of {before} ({:.1} s)",
        outcomes.len(),
        start.elapsed().as_secs_f64()
    );
    // The manifest cites shards by hash: written again for the new ones (or those of an
    // earlier run stopped before it got here), and checked.
    let manifest = amazons_format::stored::on_disk(&dir.join("manifest.cert"));
    if manifest.is_some() && (replaced > 0 || amazons_campaign::shard::manifest_stale(&plan, dir)) {
        crate::sharded::write_manifest(&plan, dir, threads, !a.quiet)
            .with_context(|| format!("rewriting the manifest of {}", dir.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}
