//! `amazons bench`: perft, then solve and check each board (optionally sharded per thread
//! count); Markdown tables.

use crate::args::check_hash;
use crate::common::{first_move, usage, Usage};
use crate::out::println;
use crate::sharded::plan;
use amazons_format::{Move, Position};
use amazons_solver::{perft, Geometry, Options, Pos};
use anyhow::Result;
use std::process::ExitCode;
use std::time::Instant;

/// Runs the benchmarks and prints a Markdown table.
pub(crate) fn bench(
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
                eval,
                ..Options::default()
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
            let budget = amazons_campaign::shard::Budget::threads(n);
            let t = Instant::now();
            let run = amazons_campaign::shard::run(&plan, &dir, &opts, budget, &|_| {});
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
