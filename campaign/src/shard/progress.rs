//! Progress of a sharded run: finished tasks, tasks in flight and the one-line report.

use super::*;

/// A finished task.
#[derive(Debug, Clone)]
pub struct Done {
    pub winner: Color,
    pub hash: [u8; 32],
    pub nodes: u64,
    pub millis: u64,
    pub bytes: u64,
    /// Whether it was already on disk (resumed) rather than solved now.
    pub resumed: bool,
    /// The earlier task this one mirrors (its figures are copies of that task's).
    pub mirror_of: Option<usize>,
}

/// How often a sharded solve reports while tasks run (it also reports at every task's end).
pub(super) const REPORT_EVERY: Duration = Duration::from_secs(10);

/// Progress of a sharded solve.
#[derive(Debug, Clone)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub resumed: usize,
    /// Nodes of the tasks finished in this run.
    pub nodes: u64,
    /// Nodes searched in this run so far, the running tasks' included.
    pub searched: u64,
    pub elapsed: Duration,
    pub last: String,
    /// The tasks being solved now.
    pub running: Vec<Running>,
    /// Subtasks of split tasks solved by threads that had no task of their own left.
    pub helped: usize,
    /// This report is for a task that just finished (named in `last`), not a periodic one.
    pub finished: bool,
    /// With passes over the tasks (a fixed first move): the pass under way, as `pass 1 of 3
    /// (each task within 10M nodes), 120 tasks waiting for it`.
    pub pass: Option<String>,
}

/// A task in flight, as the progress line shows it.
#[derive(Debug, Clone)]
pub struct Running {
    pub name: String,
    /// How long it has run.
    pub elapsed: Duration,
    /// Its finished subtask shards on disk: how far a split task has got.
    pub subtasks: usize,
    /// For a split task, each level of subtasks under way, from the task down along the
    /// first subtask in flight that is itself split: (subtasks proved, subtasks in the
    /// level). Empty for a task not split (or not split yet).
    pub levels: Vec<(usize, usize)>,
    /// The ladder rung its whole solve is on (`1G nodes`), while it climbs one.
    pub rung: Option<String>,
    /// For a split task, the time its top level still needs at the pace of the subtasks
    /// proved so far in this run ([`Pool::time_left`]).
    pub left: Option<Duration>,
    /// For a task on a rung, how far its search has come on it.
    pub rung_pace: Option<RungPace>,
}

/// How far a task has come on its rung: the share of the rung's nodes searched, and the
/// time the rest takes at the pace so far (the most the rung's search can still take;
/// the task may be proved sooner, or go on to the next rung).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RungPace {
    pub share: f64,
    pub left: Duration,
}

/// The pace of a rung of `budget` nodes whose search has made `nodes` in `elapsed`: `None`
/// before it has counted any.
pub(super) fn rung_pace(budget: u64, nodes: u64, elapsed: Duration) -> Option<RungPace> {
    if nodes == 0 || budget == 0 {
        return None;
    }
    let rest = budget.saturating_sub(nodes) as f64;
    Some(RungPace {
        share: (nodes as f64 / budget as f64).min(1.0),
        left: Duration::from_secs_f64(elapsed.as_secs_f64() * rest / nodes as f64),
    })
}

impl Progress {
    /// A one-line report with nodes per second and an estimate of the time left.
    pub fn line(&self) -> String {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        let solved = self.done - self.resumed;
        let left = if solved == 0 {
            self.left_by_split_tasks()
        } else {
            let left = (self.total - self.done) as f64 * secs / solved as f64;
            format!("about {left:.0} s left")
        };
        format!(
            "tasks {}/{} ({} resumed), {} nodes, {:.0} nodes/s, {:.1} s elapsed, {left}{}; last {}",
            self.done,
            self.total,
            self.resumed,
            self.searched,
            self.searched as f64 / secs,
            secs,
            match self.helped {
                0 => String::new(),
                n => format!(", {n} subtasks solved by idle threads"),
            },
            self.last
        ) + &self.running_list()
            + &self
                .pass
                .as_ref()
                .map(|p| format!("; {p}"))
                .unwrap_or_default()
    }

    /// The time left while no task has finished in this run: the longest estimate of the
    /// split tasks running (they run side by side), which is all of it when every task not
    /// done is running with an estimate, and a lower bound otherwise.
    fn left_by_split_tasks(&self) -> String {
        let Some(longest) = self.running.iter().filter_map(|r| r.left).max() else {
            return "no estimate yet".into();
        };
        let waiting = (self.total - self.done).saturating_sub(self.running.len());
        let all = waiting == 0 && self.running.iter().all(|r| r.left.is_some());
        if all {
            format!("{} left", human(longest))
        } else {
            format!(
                "at least {} left (the split tasks running, at their subtasks' pace)",
                human(longest)
            )
        }
    }

    /// `; running NAME (T), ...` for the tasks in flight that have run a minute or more
    /// (the long ones a watcher wants to know about), with their subtask shards so far if
    /// they were split, else nothing.
    fn running_list(&self) -> String {
        let long: Vec<String> = self
            .running
            .iter()
            .filter(|r| r.elapsed >= LONG_TASK)
            .map(|r| {
                let min = r.elapsed.as_secs_f64() / 60.0;
                let levels: Vec<String> = r
                    .levels
                    .iter()
                    .map(|(done, all)| format!("{done}/{all}"))
                    .collect();
                let left = match r.left {
                    Some(t) => format!(", {} left at this pace", human(t)),
                    None => String::new(),
                };
                let levels = match levels.len() {
                    0 => String::new(),
                    _ => format!("; subtasks proved per level {}{left}", levels.join(" > ")),
                };
                let rung = match (&r.rung, r.rung_pace) {
                    (Some(rung), Some(pace)) => format!(
                        ", on the {rung} rung, {:.0}% of its nodes, its search over within {} at this pace",
                        100.0 * pace.share,
                        human(pace.left)
                    ),
                    (Some(rung), None) => format!(", on the {rung} rung"),
                    _ => String::new(),
                };
                match r.subtasks {
                    0 => format!("{} ({min:.0} min{rung}{levels})", r.name),
                    n => format!(
                        "{} ({min:.0} min{rung}, {n} subtask shards{levels})",
                        r.name
                    ),
                }
            })
            .collect();
        if long.is_empty() {
            String::new()
        } else {
            format!("; running {}", long.join(", "))
        }
    }
}

/// A duration as a reader wants it: `about 40 min`, `about 8.5 h`.
fn human(t: Duration) -> String {
    let min = t.as_secs_f64() / 60.0;
    if min < 90.0 {
        format!("about {:.0} min", min.max(1.0))
    } else {
        format!("about {:.1} h", min / 60.0)
    }
}

/// Tasks in flight this long are named in the progress line.
pub(super) const LONG_TASK: Duration = Duration::from_secs(60);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn before_any_task_finishes_the_overall_line_takes_the_split_tasks_estimates() {
        let split = |name: &str, hours: Option<u64>| Running {
            name: name.into(),
            elapsed: Duration::from_secs(600),
            subtasks: 3,
            levels: vec![(3, 100)],
            rung: None,
            left: hours.map(|h| Duration::from_secs(h * 3600)),
            rung_pace: None,
        };
        let at = |total: usize, running: Vec<Running>| {
            Progress {
                done: 95,
                total,
                resumed: 95,
                nodes: 0,
                searched: 1000,
                elapsed: Duration::from_secs(600),
                last: "none yet".into(),
                running,
                helped: 0,
                finished: false,
                pass: None,
            }
            .line()
        };
        // Two split tasks side by side, nothing else left: the longer one's time is all of it.
        let both = at(97, vec![split("a", Some(3)), split("b", Some(10))]);
        assert!(
            both.contains(", 600.0 s elapsed, about 10.0 h left; last"),
            "{both}"
        );
        // Tasks still waiting: the running ones' time is only a lower bound.
        let waiting = at(250, vec![split("a", Some(3)), split("b", Some(10))]);
        assert!(
            waiting.contains(
                ", at least about 10.0 h left (the split tasks running, at their subtasks' pace); last"
            ),
            "{waiting}"
        );
        // A running task without an estimate of its own makes it a lower bound too.
        let unpaced = at(97, vec![split("a", None), split("b", Some(3))]);
        assert!(
            unpaced.contains(", at least about 3.0 h left ("),
            "{unpaced}"
        );
        let none = at(97, vec![split("a", None), split("b", None)]);
        assert!(none.contains(", no estimate yet; last"), "{none}");
    }

    #[test]
    fn a_task_on_a_rung_shows_how_far_its_search_has_come() {
        // A quarter of the rung's nodes in 10 minutes: the rest takes 30 more.
        let pace = rung_pace(1_000_000_000, 250_000_000, Duration::from_secs(600));
        assert_eq!(
            pace,
            Some(RungPace {
                share: 0.25,
                left: Duration::from_secs(1800)
            })
        );
        assert_eq!(rung_pace(1_000_000_000, 0, Duration::from_secs(5)), None);
        // Past its budget (the last nodes counted as the search stops): nothing left.
        let past = rung_pace(100, 120, Duration::from_secs(5)).expect("pace");
        assert_eq!((past.share, past.left), (1.0, Duration::ZERO));
        let on_rung = |pace: Option<RungPace>| {
            Progress {
                done: 0,
                total: 224,
                resumed: 0,
                nodes: 0,
                searched: 250_000_000,
                elapsed: Duration::from_secs(600),
                last: "none yet".into(),
                running: vec![Running {
                    name: "091-b1-b6xc7".into(),
                    elapsed: Duration::from_secs(600),
                    subtasks: 0,
                    levels: Vec::new(),
                    rung: Some("1G nodes".into()),
                    left: None,
                    rung_pace: pace,
                }],
                helped: 0,
                finished: false,
                pass: None,
            }
            .line()
        };
        let line = on_rung(pace);
        assert!(
            line.ends_with("; running 091-b1-b6xc7 (10 min, on the 1G nodes rung, 25% of its nodes, its search over within about 30 min at this pace)"),
            "{line}"
        );
        let early = on_rung(None);
        assert!(
            early.ends_with("; running 091-b1-b6xc7 (10 min, on the 1G nodes rung)"),
            "{early}"
        );
    }
}
