//! `amazons solve`: solve a position, write its certificate and check it.

use crate::args::{SearchFlags, Setup};
use crate::common::{usage, write_atomic, Usage};
use crate::json_cmd;
use crate::out::say;
use crate::sharded::{solve_sharded, Sharding};
use amazons_format::{Position, Step};
use amazons_solver::Options;
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `amazons solve`: the arguments of `Command::Solve`; `--shards` goes to [`solve_sharded`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    board: Option<String>,
    setup: Setup,
    output: Option<PathBuf>,
    hash: Option<usize>,
    max_nodes: Option<u64>,
    solver: amazons_solver::solvers::SolverKind,
    max_steps: Option<u64>,
    search: SearchFlags,
    sharding: Sharding,
    json: bool,
) -> Result<ExitCode> {
    if sharding.shards.is_some() {
        if solver != amazons_solver::solvers::SolverKind::Dfpn {
            return usage("--shards works with --solver dfpn only");
        }
        let position = setup.position(board.as_deref())?;
        // Without --hash, the table is sized from the memory available now.
        let table = match hash {
            Some(_) => None,
            None => amazons_campaign::memory::Choice::for_this_machine(),
        };
        let hash = hash.or(table.map(|c| c.mib)).unwrap_or(512);
        let opts = search.options(hash, max_nodes, max_steps)?;
        return solve_sharded(&position, &sharding, &opts, table, json);
    }
    let opts = search.options(hash.unwrap_or(512), max_nodes, max_steps)?;
    let as_extracted = sharding.as_extracted;
    solve(board, setup, output, &opts, solver, as_extracted, json)
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

fn solve(
    board: Option<String>,
    setup: Setup,
    output: Option<PathBuf>,
    opts: &Options,
    solver: amazons_solver::solvers::SolverKind,
    as_extracted: bool,
    json: bool,
) -> Result<ExitCode> {
    let position = setup.position(board.as_deref())?;
    let path = output.unwrap_or_else(|| default_name(board.as_deref(), &setup, &position));
    // Found out now, not after the whole solve.
    amazons_campaign::safety::check_writable(&path).map_err(Usage)?;
    say!(
        json,
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
                amazons_solver::compact::outlast_first_move(&solved.certificate.root, moves)
            }
            _ => None,
        });
    if solved.winner == position.to_move {
        match first {
            Some(m) => say!(
                json,
                "{} to move wins with {}",
                solved.winner,
                m.notation(position.board)
            ),
            None => say!(json, "{} to move wins", solved.winner),
        }
    } else {
        say!(
            json,
            "{} to move loses: {} wins",
            position.to_move,
            solved.winner
        );
    }
    let total = solved.search_time + solved.extract_time;
    say!(
        json,
        "nodes: {} search + {} extraction ({} re-searches, {} sum steps, {} sums not adding up), {:.0} nodes/s",
        solved.search_nodes,
        solved.total_nodes - solved.search_nodes,
        solved.researches,
        solved.sums,
        solved.sum_failures,
        solved.total_nodes as f64 / total.as_secs_f64().max(1e-9)
    );
    say!(
        json,
        "time: {:.3} s search + {:.3} s extraction",
        solved.search_time.as_secs_f64(),
        solved.extract_time.as_secs_f64()
    );
    if let Some(stats) = &solved.eval_stats {
        say!(
            json,
            "evaluation: decided {} search nodes; territory values from databases: {}",
            solved.eval_wins,
            solved.db_hits
        );
        for line in stats.to_string().lines() {
            say!(json, "  {line}");
        }
    }
    // Published compact: small subtrees as `Search` steps (SPEC 5.8).
    let mut solved = solved;
    let t = Instant::now();
    let searches = amazons_solver::compact::published_form(&mut solved.certificate, as_extracted);
    let search_steps_time = t.elapsed();
    if !as_extracted {
        say!(
            json,
            "search steps: {} subtrees became one `Search` step ({} of them chosen by price, {} for a claim a replaced subtree proved) in {:.3} s",
            searches.searches,
            searches.priced,
            searches.cited,
            search_steps_time.as_secs_f64()
        );
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
        json,
        "certificate: {} ({} bytes, {} steps, blake3 {})",
        path.display(),
        bytes.len(),
        report.steps,
        body_hash.to_hex()
    );
    say!(
        json,
        "checked: {} in {:.3} s ({:.1}% of solve time)",
        report.claim,
        check_time.as_secs_f64(),
        100.0 * check_time.as_secs_f64() / total.as_secs_f64().max(1e-9)
    );
    say!(json, "result: {} wins", solved.winner);
    if json {
        let solved_first = first.filter(|_| solved.winner == position.to_move);
        let file = (path.as_path(), bytes.len(), body_hash.to_hex().to_string());
        let seconds = [search_steps_time.as_secs_f64(), check_time.as_secs_f64()];
        json_cmd::print(&json_cmd::solve(
            &position,
            &solved,
            solved_first,
            file,
            &report,
            (searches, seconds),
        ));
    }
    Ok(ExitCode::SUCCESS)
}
