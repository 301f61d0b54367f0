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
                let rung = match &r.rung {
                    Some(rung) => format!(", on the {rung} rung"),
                    None => String::new(),
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
}
