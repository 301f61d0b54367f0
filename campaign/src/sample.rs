//! Sampling a campaign's difficulty first: a seeded random sample of its tasks, each solved whole within one node budget, and what that says of the whole.

use crate::shard::{Plan, Task};
use amazons_format::Color;
use amazons_solver::dfpn::Options;
use amazons_solver::emit::EmitError;
use amazons_solver::SolveError;
use std::time::Instant;

/// One sampled task: its name, and its winner and nodes if it was solved within the budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sampled {
    pub name: String,
    pub solved: Option<(Color, u64)>,
    pub millis: u64,
}

/// `n` tasks of `plan` (mirror images excluded) picked at random by `seed`, the same ones
/// for the same seed, in plan order; all of them when `n` is at least their number.
pub fn pick(plan: &Plan, n: usize, seed: u64) -> Vec<&Task> {
    let mut tasks: Vec<&Task> = plan.unique().collect();
    // A partial Fisher-Yates shuffle driven by splitmix64.
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let n = n.min(tasks.len());
    for i in 0..n {
        let j = i + (next() % (tasks.len() - i) as u64) as usize;
        tasks.swap(i, j);
    }
    tasks.truncate(n);
    tasks.sort_by_key(|t| t.index);
    tasks
}

/// Solves each of `tasks` whole with `opts` (its `max_nodes` is the budget), telling
/// `each` as each one ends. A task over the budget is open (`solved: None`); any other
/// failure of the solver ends the sample with that error, never counted as open.
pub fn sample(
    tasks: &[&Task],
    opts: &Options,
    each: &mut dyn FnMut(&Sampled),
) -> Result<Vec<Sampled>, SolveError> {
    tasks
        .iter()
        .map(|t| {
            let start = Instant::now();
            let solved =
                match amazons_solver::solve(&t.position, opts, &format!("sample {}", t.name)) {
                    Ok(s) => Some((s.winner, s.certificate.meta.nodes)),
                    Err(
                        SolveError::Budget(_)
                        | SolveError::Emit(EmitError::Budget | EmitError::TooLarge { .. }),
                    ) => None,
                    Err(e) => return Err(e),
                };
            let s = Sampled {
                name: t.name.clone(),
                solved,
                millis: start.elapsed().as_millis() as u64,
            };
            each(&s);
            Ok(s)
        })
        .collect()
}

/// What a sample says: how many tasks were solved within the budget, and a floor on the
/// nodes all `total` tasks need (each open sampled task counted at the budget).
pub fn summary(sampled: &[Sampled], budget: u64, total: usize) -> String {
    let mut nodes: Vec<u64> = sampled
        .iter()
        .filter_map(|s| s.solved.map(|(_, n)| n))
        .collect();
    nodes.sort_unstable();
    let within = nodes.len();
    let counted: u64 = nodes.iter().sum::<u64>() + (sampled.len() - within) as u64 * budget;
    let floor = counted as f64 / sampled.len().max(1) as f64 * total as f64;
    let median = match nodes.get(within / 2) {
        Some(m) => format!("; median of those solved {m} nodes"),
        None => String::new(),
    };
    format!(
        "sample: {within} of {} tasks solved within {} ({:.0}%){median}; all {total} tasks need at least {:.3e} nodes (open ones counted at the budget)",
        sampled.len(),
        crate::decisions::nodes(budget),
        100.0 * within as f64 / sampled.len().max(1) as f64,
        floor
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use amazons_format::Position;

    #[test]
    fn the_same_seed_picks_the_same_tasks_and_another_seed_others() {
        let plan = Plan::new(&Position::start("5x4").expect("5x4"), None).expect("plan");
        let names = |seed| -> Vec<String> {
            pick(&plan, 5, seed)
                .iter()
                .map(|t| t.name.clone())
                .collect()
        };
        assert_eq!(names(7), names(7));
        assert_ne!(names(7), names(8));
        let mut sorted = names(7);
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 5, "five distinct tasks");
        assert_eq!(pick(&plan, 10_000, 1).len(), plan.unique().count());
    }

    #[test]
    fn a_sample_solves_within_the_budget_and_counts_the_open_ones_at_it() {
        let plan = Plan::new(&Position::start("4x4").expect("4x4"), None).expect("plan");
        let tasks = pick(&plan, 4, 3);
        let opts = |nodes| Options {
            hash_mib: 8,
            max_nodes: Some(nodes),
            ..Options::default()
        };
        let mut told = 0;
        let all = sample(&tasks, &opts(100_000_000), &mut |_| told += 1).expect("no failure");
        assert_eq!(told, 4);
        assert!(all
            .iter()
            .all(|s| s.solved.is_some_and(|(w, _)| w == Color::Black)));
        let line = summary(&all, 100_000_000, 10);
        assert!(
            line.starts_with("sample: 4 of 4 tasks solved within 100M nodes (100%)"),
            "{line}"
        );
        let none = sample(&tasks, &opts(1), &mut |_| {}).expect("no failure");
        assert!(none.iter().all(|s| s.solved.is_none()));
        let line = summary(&none, 1, 10);
        assert!(
            line.starts_with("sample: 0 of 4 tasks solved within 1 nodes (0%); all 10"),
            "{line}"
        );
        assert!(line.contains("at least 1.000e1 nodes"), "{line}");
    }
}
