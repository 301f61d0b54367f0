//! The order a run takes its tasks in: ranked once by a budget-limited df-pn, recorded in DIR/order.tsv, reused by every resumed run.

use super::decisions;
use crate::shard::{write_atomic, Budget, Plan, GUESS_NODES};
use amazons_format::Move;
use amazons_solver::dfpn::Options;
use std::path::Path;

/// The file holding the moves of the split position (the tasks' moves), most promising
/// first, one per line, as the first run ranked them: a resumed run takes the same order
/// without searching again (6x5's ranking took 45 s on each resume).
pub const ORDER_FILE: &str = "order.tsv";

/// The moves recorded in `DIR/order.tsv`, if the file holds exactly the tasks' moves.
fn recorded(plan: &Plan, dir: &Path) -> Option<Vec<Move>> {
    let text = std::fs::read_to_string(dir.join(ORDER_FILE)).ok()?;
    let board = plan.root.board;
    let moves: Vec<Move> = text
        .lines()
        .map(|l| Move::parse(board, l.trim()).ok())
        .collect::<Option<_>>()?;
    let key = |m: &Move| m.notation(board);
    let mut want: Vec<String> = plan.tasks.iter().map(|t| key(&t.mv)).collect();
    let mut have: Vec<String> = moves.iter().map(key).collect();
    want.sort();
    have.sort();
    (want == have).then_some(moves)
}

/// The tasks' moves, most promising first: recorded in `DIR/order.tsv`, or ranked by a
/// df-pn of the split position within `--max-nodes` (else the ladder's guess budget, else
/// [`GUESS_NODES`]) with one thread's share of the table (at most what the budget fills
/// when the run climbs a ladder), then recorded. Either way a decision is logged; `note`
/// is told before a ranking search starts (it runs with no progress of its own).
pub fn task_order(
    plan: &Plan,
    dir: &Path,
    opts: &Options,
    budget: &Budget,
    note: &dyn Fn(String),
) -> Vec<Move> {
    let board = plan.root.board;
    let names = |moves: &[Move]| -> String {
        let first: Vec<String> = moves
            .iter()
            .take(5)
            .filter_map(|m| plan.tasks.iter().find(|t| t.mv == *m))
            .map(|t| t.name.clone())
            .collect();
        format!("most promising first: {}, ...", first.join(", "))
    };
    if let Some(moves) = recorded(plan, dir) {
        decisions::record(dir, "root", "task order", "recorded", &names(&moves));
        return moves;
    }
    let rank_nodes = (opts.max_nodes)
        .or(budget.ladder.as_ref().map(|l| l.guess_nodes()))
        .unwrap_or(GUESS_NODES);
    note(format!(
        "ranking the tasks first: one df-pn of the split position within {} (then {ORDER_FILE})",
        decisions::nodes(rank_nodes)
    ));
    // One thread's share of the memory, freed before the workers start.
    let share = (opts.hash_mib / budget.threads.max(1)).max(1);
    let rank_opts = Options {
        max_nodes: Some(rank_nodes),
        hash_mib: match budget.ladder {
            Some(_) => share.min(super::memory::table_for_nodes(rank_nodes)),
            None => share,
        },
        progress: false,
        ..opts.clone()
    };
    let t = std::time::Instant::now();
    let ranked = amazons_solver::rank_moves(&plan.split_position(), &rank_opts);
    crate::shard::record_spent(dir, "root", t, "rank");
    amazons_solver::tt::release_spare();
    let text: String = ranked.iter().map(|m| m.notation(board) + "\n").collect();
    // Best effort: without the file a resumed run ranks again.
    let _ = write_atomic(&dir.join(ORDER_FILE), text.as_bytes());
    decisions::record(
        dir,
        "root",
        "task order",
        &decisions::nodes(rank_nodes),
        &names(&ranked),
    );
    ranked
}
