//! Commands on one position: `perft`, `show`, `value`, `rank` and `eval`.

use crate::args::{EvalArgs, SearchFlags, Setup};
use crate::common::{legal_move, usage, Usage};
use crate::json_cmd;
use crate::out::{print, println};
use amazons_format::Position;
use amazons_solver::{Geometry, Pos};
use anyhow::Result;
use std::process::ExitCode;
use std::time::Instant;

/// `amazons perft`: counts the leaves of the move tree to a depth.
pub(crate) fn perft(args: Vec<String>, setup: Setup, json: bool) -> Result<ExitCode> {
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
    let n = amazons_solver::perft(&g, &Pos::from_position(&position), depth);
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

/// `amazons show`: draws a position.
pub(crate) fn show(board: Option<String>, setup: Setup) -> Result<ExitCode> {
    let position = setup.position(board.as_deref())?;
    print!("{}", position.render());
    println!("grid: {}", position.grid());
    Ok(ExitCode::SUCCESS)
}

/// `amazons value`: the combinatorial game value of a small area.
pub(crate) fn value(board: Option<String>, setup: Setup, json: bool) -> Result<ExitCode> {
    let position = setup.position(board.as_deref())?;
    let report =
        amazons_solver::db::active::value_report(&position).map_err(|e| anyhow::anyhow!("{e}"))?;
    if json {
        json_cmd::print(&json_cmd::value(&position, &report));
        return Ok(ExitCode::SUCCESS);
    }
    print!("{report}");
    Ok(ExitCode::SUCCESS)
}

/// `amazons rank`: the moves of a position ranked by a budgeted df-pn search, the moves
/// of `--lost` taken as proved losses.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rank(
    board: Option<String>,
    setup: Setup,
    hash: usize,
    max_nodes: Option<u64>,
    lost: &[String],
    top: usize,
    search: SearchFlags,
    json: bool,
) -> Result<ExitCode> {
    let position = setup.position(board.as_deref())?;
    let known = lost
        .iter()
        .map(|text| legal_move(&position, text, "--lost"))
        .collect::<Result<Vec<_>>>()?;
    let budget = max_nodes.unwrap_or(amazons_campaign::shard::GUESS_NODES);
    let opts = search.options(hash, Some(budget), None)?;
    let opts = amazons_solver::main_search_options(&opts);
    let r = amazons_solver::ranking_knowing(&position, &opts, &known);
    if json {
        json_cmd::print(&json_cmd::rank(&position, &r, top, &known));
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", rank_report(&position, &r, top, &known));
    Ok(ExitCode::SUCCESS)
}

/// The text `amazons rank` prints: the root's numbers and verdict, then one line per move.
/// The moves of `--lost` (`known`) are marked as taken lost, and so is a verdict that may
/// rest on them.
fn rank_report(
    position: &Position,
    r: &amazons_solver::Ranking,
    top: usize,
    known: &[amazons_format::Move],
) -> String {
    use std::fmt::Write as _;
    let side = position.to_move;
    let mut out = String::new();
    let given = if known.is_empty() {
        ""
    } else {
        " (taking the --lost moves as lost)"
    };
    let root = match (r.winner, r.root) {
        (Some(w), _) => format!("proved: {w} wins{given}"),
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
            _ if known.contains(m) => "lost (--lost)".to_string(),
            Some((0, _)) => "proved win".to_string(),
            Some((_, 0)) => "proved loss".to_string(),
            Some((pn, dn)) => format!("proof {pn:>6}  disproof {dn:>6}"),
            None => "not reached".to_string(),
        };
        let _ = writeln!(out, "{:>4}  {:<10} {n}", i + 1, m.notation(position.board));
    }
    out
}

/// `amazons eval`: the static evaluation of a position.
pub(crate) fn eval(
    board: Option<String>,
    setup: Setup,
    eval: EvalArgs,
    json: bool,
) -> Result<ExitCode> {
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
