//! The figures of a campaign in progress, from its directory: tasks done of total, nodes, time spent and time left.

use crate::shard::{on_disk, spent_below, task_times as times, Plan, STARTED_FILE};
use std::path::Path;

/// A campaign directory's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Tasks done: with a shard that checks, or (see [`Status::on_disk`]) with a shard file.
    pub done: usize,
    /// Tasks to solve (mirror images excluded).
    pub total: usize,
    /// Nodes and milliseconds recorded in `times.tsv` for the tasks solved so far.
    pub nodes: u64,
    pub millis: u64,
    /// Tasks with a time recorded.
    pub timed: usize,
    /// Milliseconds of every search the campaign recorded ([`spent`]): the tasks solved,
    /// and also the rungs and subtasks of tasks still open and the rankings.
    pub spent: u64,
    /// Open tasks that a run already started (listed in `started.tsv`, no shard on disk):
    /// they ran past a budget or were cut off, so the mean time of the tasks solved so far
    /// says nothing about them.
    pub tried_open: usize,
}

/// The search time a campaign directory records: every line of `spent.tsv`, plus the
/// `times.tsv` time of each task that has no line there under its own name or a subtask's
/// (solved before runs kept `spent.tsv`), so nothing is counted twice.
pub fn spent(dir: &Path) -> u64 {
    let below = spent_below(dir);
    // Every line counts under exactly one name without a `.`: its own or its top task's.
    let total: u64 = (below.iter())
        .filter(|(name, _)| !name.contains('.'))
        .map(|(_, ms)| ms)
        .sum();
    let earlier: u64 = times(dir)
        .into_iter()
        .filter(|(name, _)| !below.contains_key(name))
        .map(|(_, (ms, _))| ms)
        .sum();
    total + earlier
}

impl Status {
    /// The state of `dir`, counting as done the tasks whose shard checks ([`Plan::proved`]).
    pub fn checked(plan: &Plan, dir: &Path) -> Status {
        Status::with_done(plan, dir, plan.proved(dir))
    }

    /// The state of `dir` at once, counting as done every task with a shard file (not
    /// checked yet): the first line of a resumed run.
    pub fn on_disk(plan: &Plan, dir: &Path) -> Status {
        let done = plan
            .unique()
            .filter(|t| on_disk(&plan.shard_path(dir, t)).is_some())
            .count();
        Status::with_done(plan, dir, done)
    }

    fn with_done(plan: &Plan, dir: &Path, done: usize) -> Status {
        let times = times(dir);
        let started = std::fs::read_to_string(dir.join(STARTED_FILE)).unwrap_or_default();
        let started: std::collections::HashSet<&str> = started.lines().map(str::trim).collect();
        let tried_open = plan
            .unique()
            .filter(|t| started.contains(t.name.as_str()))
            .filter(|t| on_disk(&plan.shard_path(dir, t)).is_none())
            .count();
        let (mut millis, mut nodes, mut timed) = (0, 0, 0);
        for t in plan.unique() {
            if let Some(&(ms, n)) = times.get(&t.name) {
                millis += ms;
                nodes += n;
                timed += 1;
            }
        }
        Status {
            done,
            total: plan.unique().count(),
            nodes,
            millis,
            timed,
            tried_open,
            spent: spent(dir),
        }
    }

    /// Time left at the mean time of the tasks timed so far, in milliseconds; `None`
    /// before any task was timed, and when open tasks were already tried and left open
    /// (their cost is unknown). (Hard tasks tend to come last, so this is a floor.)
    pub fn left_millis(&self) -> Option<u64> {
        let open = self.total.saturating_sub(self.done) as u64;
        (self.timed > 0 && self.tried_open == 0).then(|| self.millis / self.timed as u64 * open)
    }

    /// The hours spent so far, in milliseconds: [`Status::spent`], and never less than
    /// the solved tasks' own times.
    pub fn spent_millis(&self) -> u64 {
        self.spent.max(self.millis)
    }

    /// `tasks D/T, N nodes, H h spent, about L h left` (or `no estimate yet`).
    pub fn line(&self) -> String {
        let left = match self.left_millis() {
            Some(ms) => format!("about {} left at the mean time per task so far", hours(ms)),
            None if self.tried_open > 0 => format!(
                "no estimate ({} open tasks already ran past a budget)",
                self.tried_open
            ),
            None => "no estimate yet".into(),
        };
        format!(
            "tasks {}/{}, {} nodes, {} spent, {left}",
            self.done,
            self.total,
            self.nodes,
            hours(self.spent_millis())
        )
    }
}

/// Milliseconds as hours with two decimals, `1.25 h`.
pub fn hours(ms: u64) -> String {
    format!("{:.2} h", ms as f64 / 3.6e6)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shard::{SPENT_FILE, TIMES_FILE};

    #[test]
    fn the_estimate_is_the_mean_time_times_the_open_tasks() {
        let s = Status {
            done: 3,
            total: 10,
            nodes: 5,
            millis: 3_600_000,
            timed: 2,
            tried_open: 0,
            spent: 0,
        };
        assert_eq!(s.left_millis(), Some(1_800_000 * 7));
        assert!(s
            .line()
            .starts_with("tasks 3/10, 5 nodes, 1.00 h spent, about 3.50 h left"));
        let none = Status { timed: 0, ..s };
        assert_eq!(none.left_millis(), None);
        assert!(none.line().ends_with("no estimate yet"));
        // Open tasks tried before: their cost is unknown, so no estimate.
        let tried = Status { tried_open: 4, ..s };
        assert_eq!(tried.left_millis(), None);
        assert!(tried
            .line()
            .ends_with("no estimate (4 open tasks already ran past a budget)"));
        // Searches that gave no shard count too.
        let open = Status {
            spent: 9_000_000,
            ..s
        };
        assert!(open.line().contains(", 2.50 h spent,"), "{}", open.line());
    }

    #[test]
    fn spent_time_counts_every_search_once() {
        let dir = std::env::temp_dir().join(format!("amazons-spent-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        assert_eq!(spent(&dir), 0, "nothing recorded");
        // Two tasks solved before spent.tsv was kept; one of them is now split.
        std::fs::write(dir.join(TIMES_FILE), "001-a\t1000\t5\n002-b\t2000\t7\n").expect("times");
        assert_eq!(spent(&dir), 3000);
        std::fs::write(
            dir.join(SPENT_FILE),
            "002-b\t50\trank\n002-b.010-c\t400\tsolve\n003-d.001-e.002-f\t7\tsolve\nbad line\n",
        )
        .expect("spent");
        // 001-a from times.tsv; 002-b's own time only through spent.tsv.
        assert_eq!(spent(&dir), 1000 + 50 + 400 + 7);
        // A task's cost: its times.tsv line, or its searches and its subtasks' where larger.
        let costs = crate::shard::recorded_times(&dir);
        assert_eq!(costs.get("001-a"), Some(&1000));
        assert_eq!(costs.get("002-b"), Some(&2000));
        std::fs::write(dir.join(TIMES_FILE), "001-a\t1000\t5\n002-b\t300\t7\n").expect("times");
        let costs = crate::shard::recorded_times(&dir);
        assert_eq!(
            costs.get("002-b"),
            Some(&450),
            "the split task's searches in every run"
        );
        assert_eq!(times(&dir).get("002-b"), Some(&(450, 7)));
        assert_eq!(costs.get("003-d"), None, "not solved: no times.tsv line");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
