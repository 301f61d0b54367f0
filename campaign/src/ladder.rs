//! The node-budget ladder: a task is solved whole with growing budgets (10M, 100M, 1G nodes, ...) before it is split.
//!
//! The 5x6 campaign found that whole df-pn solves with the largest table beat splitting a
//! task into subtasks of a fixed budget, and that the table size decided which tasks could
//! be solved. So without `--max-nodes` a task climbs these rungs, each a whole solve with
//! the whole table the thread may use (the whole run's table when it is the last task
//! running), which also caps the top rung; a `--ladder`'s lowest rung gets a small table
//! sized for its budget instead ([`super::memory::table_for_nodes`]). Rungs below the top
//! on the same table are climbed as one, the highest of them: stopping at each only to start again
//! cost two 6x4 tasks 6% and 23% more nodes (BENCHMARKS.md). The top rung goes on
//! from the entries the rung below it left ([`amazons_solver::tt::carry`]) instead of
//! starting again. Only a task the top rung cannot finish is split.

use super::memory::{nodes_for_table, table_for_nodes};

/// The rungs without `--ladder`: 10M, 100M, 1G, 10G and 100G nodes (the top ones are cut
/// to what the table holds), every one on the thread's whole table, so that the first two
/// are climbed as one. A first rung of 1M nodes on a small table of its own proved 20 of
/// 6x4's 128 tasks (7 of 416 tries on 6x5) and cost every other task its million nodes
/// first: on 32 6x4 tasks it took 121 s of CPU against 114 s without it (BENCHMARKS.md).
/// The 10M rung is the budget of the rankings and of a first quick pass.
pub const DEFAULT_RUNGS: [u64; 5] = [
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
    100_000_000_000,
];

/// The budget the searches that rank moves aim for: ten times the budget of a run with
/// `--max-nodes` and no ladder, as the ranking of 5x6's hard replies with 1M nodes often
/// guessed wrong.
pub const GUESS_NODES: u64 = 10_000_000;

/// The budget of the quick pass over a split's subtasks ([`Ladder::quick`]): the 7x4
/// campaign's replies were mostly proved within 100M nodes each (a few minutes), but 4 of
/// the first 9 tried under its task 257 were not, and each would have taken its thread up
/// the 1G rung (an hour or more) while the other replies waited.
pub const QUICK_NODES: u64 = 100_000_000;

/// How many levels deep a task the top rung cannot finish is split, when the run has no
/// `--max-nodes` and no `--split-depth` (5x6's hardest replies needed two to five).
pub const DEFAULT_SPLIT_DEPTH: usize = 3;

/// A top rung may run this many times the nodes its table holds: df-pn replaces the
/// entries of least work, so a search somewhat larger than its table still progresses
/// (5x6's replies 049 and 054 took 420-460 M nodes in a table of 442 M entries).
const OVERFILL: u64 = 2;

/// The budgets a task climbs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ladder {
    /// Node budgets, increasing.
    pub rungs: Vec<u64>,
    /// Rungs of at most this many nodes get a table sized for their budget, the others
    /// the thread's whole table: the lowest rung of a ladder given with `--ladder` (kept
    /// when lower rungs are dropped), 0 in the default one.
    pub sized_up_to: u64,
}

impl Default for Ladder {
    fn default() -> Ladder {
        Ladder {
            rungs: DEFAULT_RUNGS.to_vec(),
            sized_up_to: 0,
        }
    }
}

thread_local! {
    /// The table of the rungs above the lowest that this thread last climbed, in MiB: its
    /// tables of that size are kept for its next tasks (mapping several GB afresh costs
    /// seconds), and freed before it takes a table of another size.
    static WHOLE_MIB: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One rung as it is climbed: its budget, its table, whether it is the last, and whether
/// it goes on from the table the rung below it left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rung {
    pub nodes: u64,
    pub table_mib: usize,
    pub top: bool,
    pub continued: bool,
}

impl Ladder {
    /// A ladder of these budgets (sorted, duplicates and zeros dropped); `None` when
    /// none is left.
    pub fn new(mut rungs: Vec<u64>) -> Option<Ladder> {
        rungs.retain(|&n| n > 0);
        rungs.sort_unstable();
        rungs.dedup();
        let sized_up_to = *rungs.first()?;
        Some(Ladder { rungs, sized_up_to })
    }

    /// The budget of the searches that rank a task's moves when it is split (and the
    /// tasks of a run): the first rung of at least [`GUESS_NODES`], else the top rung.
    pub fn guess_nodes(&self) -> u64 {
        let top = self.rungs[self.rungs.len() - 1];
        self.rungs
            .iter()
            .copied()
            .find(|&n| n >= GUESS_NODES)
            .unwrap_or(top)
    }

    /// The budget of a quick pass over a list of subtasks: the largest rung of at most
    /// [`QUICK_NODES`], when the ladder goes higher (else `None`: one pass is the same).
    pub fn quick(&self) -> Option<u64> {
        let top = *self.rungs.last()?;
        let quick = self
            .rungs
            .iter()
            .copied()
            .filter(|&n| n <= QUICK_NODES)
            .max()?;
        (top > quick).then_some(quick)
    }

    /// The ladder without the rungs of at most `passed` nodes (the largest budget a task
    /// already ran out of, [`crate::decisions::passed_rungs`]), so that a resumed run does
    /// not climb them again; the top rung is always kept.
    pub fn above(&self, passed: u64) -> Ladder {
        let top = self.rungs[self.rungs.len() - 1];
        let mut rungs: Vec<u64> = self.rungs.iter().copied().filter(|&n| n > passed).collect();
        if rungs.is_empty() {
            rungs.push(top);
        }
        Ladder {
            rungs,
            sized_up_to: self.sized_up_to,
        }
    }

    /// Rung `i` for a thread that may use `available_mib` of table now: the rung's
    /// budget and its table (the table its nodes fill for a rung up to
    /// [`Ladder::sized_up_to`], else the whole available table), or, when the available
    /// table cannot hold the rung's nodes, the whole available table and at most
    /// [`OVERFILL`] times the nodes it holds, as the top rung. `None` past the top.
    pub fn rung(&self, i: usize, available_mib: usize) -> Option<Rung> {
        let nodes = *self.rungs.get(i)?;
        if nodes <= nodes_for_table(available_mib) {
            let table_mib = if nodes <= self.sized_up_to {
                table_for_nodes(nodes).min(available_mib)
            } else {
                available_mib
            };
            return Some(Rung {
                nodes,
                table_mib,
                top: i + 1 == self.rungs.len(),
                continued: false,
            });
        }
        let limit = nodes_for_table(available_mib)
            .saturating_mul(OVERFILL)
            .max(1);
        Some(Rung {
            nodes: nodes.min(limit),
            table_mib: available_mib,
            top: true,
            continued: false,
        })
    }

    /// Climbs the rungs: `attempt(rung)` solves with the rung's budget and table; an
    /// outcome that `over_budget` says ran out of budget goes on to the next rung, any
    /// other outcome (or the top rung's) is returned. `available()` is the table the
    /// thread may use, asked before each rung (it grows when the thread is the last one
    /// working); `log(rung, outcome)` records each rung climbed. A rung whose next rung
    /// has a table of the same size leaves its table to it ([`amazons_solver::tt::carry`]).
    /// The whole tables the rungs take are kept for the thread's next tasks, and
    /// freed before a rung takes a table of another size (the whole run's, once the
    /// thread is the last one working). Once `halted()` says the run is over (its root
    /// settled), no further rung is climbed.
    /// When the top rung fails but the thread may now use a larger table than it had (the
    /// other threads went idle), the top rung is tried again with that table.
    pub fn climb<T, E>(
        &self,
        available: impl Fn() -> usize,
        attempt: impl FnMut(Rung) -> Result<T, E>,
        over_budget: impl Fn(&E) -> bool,
        halted: impl Fn() -> bool,
        log: impl FnMut(Rung, &Result<T, E>),
    ) -> Result<T, E> {
        let outcome = self.climb_carrying(available, attempt, over_budget, halted, log);
        // A table still left for a next rung goes to the spare ones.
        amazons_solver::tt::carry(false);
        amazons_solver::tt::drop_carried();
        outcome
    }

    fn climb_carrying<T, E>(
        &self,
        available: impl Fn() -> usize,
        mut attempt: impl FnMut(Rung) -> Result<T, E>,
        over_budget: impl Fn(&E) -> bool,
        halted: impl Fn() -> bool,
        mut log: impl FnMut(Rung, &Result<T, E>),
    ) -> Result<T, E> {
        let mut i = 0;
        let mut carried = false;
        loop {
            let whole = available();
            let Some(mut rung) = self.rung(i, whole) else {
                unreachable!("a ladder has a rung and stops at its top");
            };
            if rung.table_mib == whole {
                let kept = WHOLE_MIB.with(|w| w.replace(rung.table_mib));
                if kept != rung.table_mib {
                    amazons_solver::tt::drop_carried();
                    amazons_solver::tt::release_spare();
                    carried = false;
                }
            }
            // A rung whose next rung is not the top and takes a table of the same size is
            // not climbed on its own: that next rung's search finds the same proof in as
            // many nodes, and a task over this rung's budget would only start again, at a
            // cost going on from its entries does not save (a 6x4 task climbing 10M and
            // then 100M took 35.7 M nodes, at 100M at once 29.1 M; BENCHMARKS.md). The
            // top rung keeps the rung below it: its table may grow meanwhile, when the
            // thread is left alone.
            let next = self.rung(i + 1, whole);
            if !rung.top && next.is_some_and(|n| !n.top && n.table_mib == rung.table_mib) {
                i += 1;
                continue;
            }
            rung.continued = carried;
            carried = !rung.top && next.is_some_and(|r| r.table_mib == rung.table_mib);
            amazons_solver::tt::carry(carried);
            let outcome = attempt(rung);
            log(rung, &outcome);
            match outcome {
                Err(e) if over_budget(&e) && !halted() => {
                    // The top rung was cut to the table (not the ladder's own last one).
                    let cut = rung.nodes < self.rungs[i];
                    if !rung.top {
                        i += 1;
                    } else if !cut || available() <= rung.table_mib {
                        return Err(e);
                    }
                    // Else the top rung again with the larger table the thread may use
                    // now (it became the last one working), before the task is split.
                }
                other => return other,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_pass_takes_the_largest_rung_within_its_budget_below_the_top() {
        assert_eq!(Ladder::default().quick(), Some(100_000_000));
        let l = |r: &[u64]| Ladder::new(r.to_vec()).expect("ladder");
        assert_eq!(
            l(&[1_000_000, 50_000_000, 2_000_000_000]).quick(),
            Some(50_000_000)
        );
        assert_eq!(
            l(&[1_000_000, 10_000_000]).quick(),
            None,
            "nothing above it"
        );
        assert_eq!(l(&[1_000_000_000]).quick(), None, "no rung within it");
    }

    #[test]
    fn rungs_grow_until_the_table_is_full() {
        // The ladder of `--ladder 1M,10M,100M,1G,10G,100G`.
        let ladder = Ladder::new(
            [1, 10, 100, 1_000, 10_000, 100_000]
                .map(|m| m * 1_000_000)
                .to_vec(),
        )
        .expect("ladder");
        // A small table holds a small rung: not the top.
        let small = Ladder::new(vec![40, 150])
            .and_then(|l| l.rung(0, 8))
            .expect("rung");
        assert!(!small.top && small.table_mib == 8, "{small:?}");
        let big = table_for_nodes(1_000_000_000);
        // A table between the 100M and the 1G rung: three rungs, the top one cut.
        let available = big / 4;
        let rungs: Vec<Rung> = (0..).map_while(|i| ladder.rung(i, available)).collect();
        assert_eq!(rungs[0].nodes, 1_000_000);
        assert_eq!(rungs[0].table_mib, table_for_nodes(1_000_000));
        assert!(!rungs[0].top && !rungs[1].top && !rungs[2].top);
        // Above the lowest rung, the whole table: a rung goes on from the one below it.
        assert!(rungs[1].table_mib == available && rungs[2].table_mib == available);
        let resumed = ladder.above(10_000_000).rung(0, available).expect("rung");
        assert_eq!((resumed.nodes, resumed.table_mib), (100_000_000, available));
        assert_eq!(rungs.len(), 6, "rung() answers past the top too");
        assert!(rungs[3].top && rungs[3].table_mib == available);
        assert!(rungs[3].nodes > 100_000_000 && rungs[3].nodes < 1_000_000_000);
        assert_eq!(ladder.guess_nodes(), 10_000_000);
        assert_eq!(
            Ladder::new(vec![50, 1000]).map(|l| l.guess_nodes()),
            Some(1000)
        );
        // The default ladder has no small table: every rung takes the whole one.
        let default: Vec<Rung> = (0..)
            .map_while(|i| Ladder::default().rung(i, available))
            .collect();
        assert_eq!(default[0].nodes, 10_000_000);
        assert!(
            default.iter().all(|r| r.table_mib == available),
            "{default:?}"
        );
        assert_eq!(Ladder::default().guess_nodes(), 10_000_000);
    }

    #[test]
    fn a_resumed_task_starts_above_the_rungs_it_ran_past() {
        let ladder = Ladder::default();
        assert_eq!(ladder.above(0), ladder);
        assert_eq!(ladder.above(100_000_000).rungs[0], 1_000_000_000);
        assert_eq!(ladder.above(100_000_000).rungs.len(), 3);
        assert_eq!(ladder.above(150_000_000).rungs[0], 1_000_000_000);
        assert_eq!(ladder.above(u64::MAX).rungs, vec![100_000_000_000]);
    }

    /// Once the thread's abort flag is set, its searches stop as if over budget (a
    /// sharded run whose root is settled ends the tasks in flight this way).
    #[test]
    fn an_aborted_thread_stops_its_searches() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let p = amazons_format::Position::start("5x4").expect("5x4");
        let opts = amazons_solver::Options {
            hash_mib: 8,
            ..amazons_solver::Options::default()
        };
        let flag = std::sync::Arc::new(AtomicBool::new(false));
        amazons_solver::dfpn::abort_on(Some(flag.clone()));
        flag.store(true, Ordering::SeqCst);
        let stopped = amazons_solver::solve(&p, &opts, "test");
        assert!(
            matches!(stopped, Err(amazons_solver::SolveError::Budget(_))),
            "{stopped:?}"
        );
        flag.store(false, Ordering::SeqCst);
        assert!(amazons_solver::solve(&p, &opts, "test").is_ok());
        amazons_solver::dfpn::abort_on(None);
    }

    #[test]
    fn a_rung_goes_on_from_the_one_below_and_the_top_is_climbed_again_when_the_table_grows() {
        let ladder = Ladder::new(vec![100, 1000, 1_000_000_000]).expect("rungs");
        let available = std::cell::Cell::new(64);
        let mut tried = Vec::new();
        let r: Result<(), ()> = ladder.climb(
            || available.get(),
            |rung| {
                tried.push((rung.nodes, rung.table_mib, rung.top, rung.continued));
                // The other threads go idle while this one is on its top rung.
                if rung.top {
                    available.set(128);
                }
                Err(())
            },
            |_| true,
            || false,
            |_, _| {},
        );
        assert_eq!(r, Err(()));
        let top = |mib, continued| (nodes_for_table(mib) * OVERFILL, mib, true, continued);
        // The lowest rung's own table; then the whole one twice, the top rung going on
        // from the rung below; then the larger table of a thread left alone, afresh.
        assert_eq!(
            tried,
            vec![
                (100, 16, false, false),
                (1000, 64, false, false),
                top(64, true),
                top(128, false)
            ]
        );
    }

    #[test]
    fn rungs_on_the_same_table_below_the_top_are_climbed_as_one() {
        // 1,000 and 10,000 nodes both on the whole table, neither the top: only 10,000.
        let ladder = Ladder::new(vec![100, 1000, 10_000, 1_000_000_000]).expect("rungs");
        let mut tried = Vec::new();
        let r: Result<(), ()> = ladder.climb(
            || 64,
            |rung| {
                tried.push((rung.nodes, rung.table_mib, rung.top, rung.continued));
                Err(())
            },
            |_| true,
            || false,
            |_, _| {},
        );
        assert_eq!(r, Err(()));
        let top = (nodes_for_table(64) * OVERFILL, 64, true, true);
        assert_eq!(
            tried,
            vec![(100, 16, false, false), (10_000, 64, false, false), top]
        );
        // The same rungs, the task proved within 1,000 nodes: proved on the 10,000 rung.
        let mut tried = Vec::new();
        let r: Result<u64, ()> = ladder.climb(
            || 64,
            |rung| {
                tried.push(rung.nodes);
                if rung.nodes >= 1000 {
                    Ok(rung.nodes)
                } else {
                    Err(())
                }
            },
            |_| true,
            || false,
            |_, _| {},
        );
        assert_eq!((r, tried), (Ok(10_000), vec![100, 10_000]));
    }

    #[test]
    fn climbing_stops_at_the_first_success_or_the_top() {
        let ladder = Ladder::new(vec![100, 10, 1000, 0, 10]).expect("rungs");
        assert_eq!(ladder.rungs, vec![10, 100, 1000]);
        let mut tried = Vec::new();
        // Succeeds at 100 nodes.
        let r: Result<u64, u64> = ladder.climb(
            || 1 << 20,
            |rung| {
                if rung.nodes >= 100 {
                    Ok(rung.nodes)
                } else {
                    Err(rung.nodes)
                }
            },
            |_| true,
            || false,
            |rung, _| tried.push(rung.nodes),
        );
        assert_eq!(r, Ok(100));
        assert_eq!(tried, vec![10, 100]);
        // Every rung fails; `budget`: for want of nodes; `halted`: the run is halted.
        let fail = |budget: bool, halted: bool| -> Result<u64, u64> {
            ladder.climb(
                || 1 << 20,
                |rung| Err(rung.nodes),
                |_| budget,
                || halted,
                |_, _| {},
            )
        };
        // Never succeeds: the top rung's failure is the result.
        assert_eq!(fail(true, false), Err(1000));
        // A failure that is not the budget's stops at once.
        assert_eq!(fail(false, false), Err(10));
        // A halted run climbs no further.
        assert_eq!(fail(true, true), Err(10));
    }
}
