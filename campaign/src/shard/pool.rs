//! The pool through which idle threads help with the subtasks of split tasks in flight.

use super::*;
use amazons_solver::dfpn::AbortFlag;

/// Subtasks that idle threads may take over: the published lists of the splits in
/// flight, and how many threads are working (on a task or a subtask).
#[derive(Default)]
pub(crate) struct Pool {
    lists: Mutex<Vec<std::sync::Arc<SubList>>>,
    /// Every split's list until its subtasks are all settled (a published list is
    /// withdrawn once its last subtask is claimed): what the progress line reports.
    open: Mutex<Vec<std::sync::Arc<SubList>>>,
    pub(super) active: AtomicUsize,
    /// Subtasks solved by a thread other than their owner.
    pub(super) helped: AtomicUsize,
    /// Every task of the run has been taken by a thread.
    pub(super) all_taken: std::sync::atomic::AtomicBool,
    /// The rung each task or subtask is being solved whole on, by name, while it is.
    rungs: Mutex<std::collections::HashMap<String, OnRung>>,
    /// Set once the run is over (its root settled, or a task failed): every search stops.
    pub(super) stop: AbortFlag,
}

/// A task on a rung of the ladder: the rung's budget, the nodes its search has made so
/// far, and when it began.
struct OnRung {
    budget: u64,
    nodes: std::sync::Arc<std::sync::atomic::AtomicU64>,
    since: Instant,
}

impl Pool {
    /// Whether the calling thread, working, is the only one: every task is taken and no
    /// other thread works (the idle ones only wait for subtasks to help with).
    pub(crate) fn alone(&self) -> bool {
        self.all_taken.load(Ordering::SeqCst) && self.active.load(Ordering::SeqCst) <= 1
    }

    /// Notes that `name` is now solved whole with a budget of `budget` nodes; its search
    /// adds its nodes to the counter returned.
    pub(super) fn set_rung(
        &self,
        name: &str,
        budget: u64,
    ) -> std::sync::Arc<std::sync::atomic::AtomicU64> {
        let nodes = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut rungs = self.rungs.lock().unwrap_or_else(|p| p.into_inner());
        let on = OnRung {
            budget,
            nodes: nodes.clone(),
            since: Instant::now(),
        };
        rungs.insert(name.to_string(), on);
        nodes
    }

    /// Notes that `name` is no longer solved whole.
    pub(super) fn clear_rung(&self, name: &str) {
        let mut rungs = self.rungs.lock().unwrap_or_else(|p| p.into_inner());
        rungs.remove(name);
    }

    /// The rung `name` is being solved whole on, if it is.
    pub(crate) fn rung(&self, name: &str) -> Option<String> {
        let rungs = self.rungs.lock().unwrap_or_else(|p| p.into_inner());
        rungs.get(name).map(|on| crate::decisions::nodes(on.budget))
    }

    /// How far `name` has come on its rung, once its search has counted some nodes.
    pub(crate) fn rung_pace(&self, name: &str) -> Option<RungPace> {
        let rungs = self.rungs.lock().unwrap_or_else(|p| p.into_inner());
        let on = rungs.get(name)?;
        let nodes = on.nodes.load(Ordering::Relaxed);
        rung_pace(on.budget, nodes, on.since.elapsed())
    }

    pub(super) fn lists(&self) -> std::sync::MutexGuard<'_, Vec<std::sync::Arc<SubList>>> {
        self.lists.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn publish(&self, list: &std::sync::Arc<SubList>) {
        self.lists().push(list.clone());
    }

    pub(super) fn withdraw(&self, list: &std::sync::Arc<SubList>) {
        self.lists().retain(|l| !std::sync::Arc::ptr_eq(l, list));
    }

    fn open_lists(&self) -> std::sync::MutexGuard<'_, Vec<std::sync::Arc<SubList>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn open_list(&self, list: &std::sync::Arc<SubList>) {
        self.open_lists().push(list.clone());
    }

    pub(super) fn close_list(&self, list: &std::sync::Arc<SubList>) {
        self.open_lists()
            .retain(|l| !std::sync::Arc::ptr_eq(l, list));
    }

    /// How far the split of task `name` has got, level by level: (subtasks proved,
    /// subtasks) of its open list, then of the list of the first subtask in flight that is
    /// itself split, and so on down.
    pub(crate) fn levels(&self, name: &str) -> Vec<(usize, usize)> {
        let open = self.open_lists();
        let mut levels = Vec::new();
        let mut parent = name.to_string();
        while let Some(list) = open.iter().find(|l| l.parent() == Some(parent.as_str())) {
            let (proved, in_flight) = list.counts();
            levels.push((proved + list.earlier, list.items.len() + list.earlier));
            // Descend into the first subtask in flight with an open list of its own.
            let next = in_flight.into_iter().find_map(|i| {
                let child = &list.items[i].1;
                open.iter()
                    .any(|l| l.parent() == Some(child.as_str()))
                    .then(|| child.clone())
            });
            match next {
                Some(child) if levels.len() < 64 => parent = child,
                _ => break,
            }
        }
        levels
    }

    /// The time the split of task `name` still needs, estimated from its top level: the
    /// subtasks not yet proved, each at the larger of the mean wall time of those proved
    /// in this run and the wall time per subtask proved since the list began in this run
    /// (which counts the time of subtasks still in flight). `None` before one is proved,
    /// or for a task not split.
    pub(crate) fn time_left(&self, name: &str) -> Option<Duration> {
        let open = self.open_lists();
        let list = open.iter().find(|l| l.parent() == Some(name))?;
        let (proved, millis, solved_now) = list.pace();
        let left = list.items.len().saturating_sub(proved);
        pace_left(list.since.elapsed(), millis, solved_now, left)
    }

    /// Claims and proves one subtask of some published list (the newest with one left),
    /// counting this thread as active meanwhile. `false` when there was none.
    pub(super) fn help_once(&self, cx: &Split) -> bool {
        let claimed = {
            let lists = self.lists();
            lists.iter().rev().find_map(|l| {
                let i = l.claim()?;
                // Under the lists' lock, so an idle thread never sees the pool empty
                // and nobody active while this subtask is under way.
                self.active.fetch_add(1, Ordering::SeqCst);
                Some((l.clone(), i))
            })
        };
        let Some((list, i)) = claimed else {
            return false;
        };
        let mut claim = Helping {
            pool: self,
            list: &list,
            i,
            outcome: None,
        };
        let (position, name) = &list.items[i];
        let cx = &cx.capped(list.cap);
        let _within = Within::list(&list);
        claim.outcome = Some(prove_subtask(cx, position, name, list.depth, list.decisive));
        self.helped.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Whether one of the tasks `taken` (each with when it was taken) is in `split_before`,
    /// was taken less than `wait` ago, and has no subtasks open yet: a split of an earlier
    /// run about to be split again, whose subtasks a free thread should wait for.
    pub(super) fn resplit_pending<'a>(
        &self,
        split_before: &std::collections::HashSet<String>,
        mut taken: impl Iterator<Item = (&'a str, Instant)>,
        wait: Duration,
    ) -> bool {
        taken.any(|(name, since)| {
            split_before.contains(name) && since.elapsed() < wait && self.levels(name).is_empty()
        })
    }

    /// Whether a split in flight will publish more subtasks: a quick pass whose
    /// subtasks over its budget go to a second list once its last ones are done.
    pub(super) fn more_to_come(&self) -> bool {
        self.open_lists().iter().any(|l| l.second_pass_follows())
    }

    /// An idle thread's loop: helps until no thread is working and nothing is published,
    /// or `quit` says the run is over.
    pub(super) fn help_until_done(&self, cx: &Split, quit: &dyn Fn() -> bool) {
        while !quit() {
            if self.help_once(cx) {
                continue;
            }
            if self.active.load(Ordering::SeqCst) == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A subtask a helper claimed. Dropping it hands the outcome to the list and marks the
/// helper idle again, also when the search panicked: the owner then sees a failure
/// instead of waiting forever, and the other threads can end.
struct Helping<'a> {
    pool: &'a Pool,
    list: &'a SubList,
    i: usize,
    outcome: Option<Result<Done, Attempt>>,
}

impl Drop for Helping<'_> {
    fn drop(&mut self) {
        let outcome = self.outcome.take().unwrap_or_else(|| {
            Err(Attempt::Failed(ShardError::Task {
                task: self.list.items[self.i].1.clone(),
                reason: "the thread solving it panicked".into(),
            }))
        });
        self.list.put(self.i, outcome);
        self.pool.active.fetch_sub(1, Ordering::SeqCst);
    }
}

/// While it lives, this thread's searches also stop once a list is settled: the one the
/// thread works in, or one that list is nested in. Dropped, the flags before it are back.
pub(super) struct Within(Vec<AbortFlag>);

impl Within {
    pub(super) fn list(list: &SubList) -> Within {
        Within(amazons_solver::dfpn::abort_on_any(list.flags.clone()))
    }
}

impl Drop for Within {
    fn drop(&mut self) {
        amazons_solver::dfpn::abort_on_any(std::mem::take(&mut self.0));
    }
}

/// One split's subtasks, claimed in order.
pub(super) struct SubList {
    pub(super) items: Vec<(Position, String)>,
    depth: usize,
    /// A subtask this colour wins ends the list.
    decisive: Color,
    /// The budget of the quick pass this list is ([`Split::capped`]), if it is one.
    cap: Option<u64>,
    /// Subtasks of the same split proved before this list (in its quick pass): counted
    /// in the progress line, so that it shows the whole split.
    pub(super) earlier: usize,
    /// When this run made the list.
    since: Instant,
    /// Set once the list is settled, so that its subtasks still in flight stop.
    settled: AbortFlag,
    /// What stops the searches of its subtasks: the flags of the thread that made it (the
    /// run's, and those of the lists it is nested in), and `settled`.
    flags: Vec<AbortFlag>,
    state: Mutex<ListState>,
    changed: std::sync::Condvar,
}

struct ListState {
    next: usize,
    stop: bool,
    outstanding: usize,
    results: Vec<Option<Result<Done, Attempt>>>,
}

impl SubList {
    pub(super) fn new(
        items: Vec<(Position, String)>,
        depth: usize,
        decisive: Color,
        cap: Option<u64>,
    ) -> SubList {
        let results = items.iter().map(|_| None).collect();
        let settled = AbortFlag::default();
        let mut flags = amazons_solver::dfpn::abort_flags();
        flags.push(settled.clone());
        SubList {
            items,
            depth,
            decisive,
            cap,
            earlier: 0,
            since: Instant::now(),
            settled,
            flags,
            state: Mutex::new(ListState {
                next: 0,
                stop: false,
                outstanding: 0,
                results,
            }),
            changed: std::sync::Condvar::new(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, ListState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The next subtask to prove, unless all are taken or the list was settled.
    pub(super) fn claim(&self) -> Option<usize> {
        let mut s = self.state();
        if s.stop || s.next >= self.items.len() {
            return None;
        }
        s.next += 1;
        s.outstanding += 1;
        Some(s.next - 1)
    }

    /// Records subtask `i`'s outcome; a decisive win or a failure settles the list, and
    /// stops the searches of its subtasks still in flight (they prove nothing it needs).
    pub(super) fn put(&self, i: usize, outcome: Result<Done, Attempt>) {
        let mut s = self.state();
        let settles = match &outcome {
            Ok(d) => d.winner == self.decisive,
            Err(Attempt::Budget) => false,
            Err(Attempt::Failed(_)) => true,
        };
        if settles {
            self.settled.store(true, Ordering::SeqCst);
        }
        s.stop |= settles;
        s.outstanding -= 1;
        s.results[i] = Some(outcome);
        self.changed.notify_all();
    }

    pub(super) fn outstanding(&self) -> usize {
        self.state().outstanding
    }

    /// Whether this is a quick pass, not settled, with a subtask already over its budget:
    /// those are proved in a second list once every subtask of this one is done.
    fn second_pass_follows(&self) -> bool {
        let s = self.state();
        self.cap.is_some()
            && !s.stop
            && (s.results.iter()).any(|r| matches!(r, Some(Err(Attempt::Budget))))
    }

    /// The task these are the subtasks of: their names are `PARENT.NNN-MOVE`.
    fn parent(&self) -> Option<&str> {
        Some(self.items.first()?.1.rsplit_once('.')?.0)
    }

    /// How many subtasks are proved, and which ones are in flight (claimed, no outcome
    /// yet), in order.
    fn counts(&self) -> (usize, Vec<usize>) {
        let s = self.state();
        let proved = s
            .results
            .iter()
            .filter(|r| matches!(r, Some(Ok(_))))
            .count();
        let in_flight = (0..s.next.min(s.results.len()))
            .filter(|&i| s.results[i].is_none())
            .collect();
        (proved, in_flight)
    }

    /// Subtasks proved, and the total wall time and number of those proved in this run
    /// (not found on disk).
    fn pace(&self) -> (usize, u64, usize) {
        let s = self.state();
        let done: Vec<&Done> = s
            .results
            .iter()
            .flatten()
            .flat_map(|r| r.as_ref().ok())
            .collect();
        let now: Vec<&&Done> = done.iter().filter(|d| !d.resumed).collect();
        (done.len(), now.iter().map(|d| d.millis).sum(), now.len())
    }

    pub(super) fn wait_a_little(&self) {
        let s = self.state();
        if s.outstanding > 0 {
            let _ = self.changed.wait_timeout(s, Duration::from_millis(20));
        }
    }

    pub(super) fn take_results(&self) -> Vec<Option<Result<Done, Attempt>>> {
        std::mem::take(&mut self.state().results)
    }
}

/// The time `left` subtasks take when `solved_now` were proved in this run, in `millis`
/// of their own in all, over `wall` since their list began: each at the larger of the
/// mean and the wall time per subtask proved. `None` before one is proved.
pub(super) fn pace_left(
    wall: Duration,
    millis: u64,
    solved_now: usize,
    left: usize,
) -> Option<Duration> {
    let mean = millis.checked_div(solved_now as u64)?;
    let per_wall = wall.as_millis() as u64 / solved_now as u64;
    Some(Duration::from_millis(
        mean.max(per_wall).saturating_mul(left as u64),
    ))
}
