//! Sharded, resumable, parallel solving: one certificate per task plus a manifest (SPEC 5.7).
//!
//! A root position is split into tasks: with a fixed first move, one task per reply of the
//! opponent; without one, one task per move of the side to move. Each task is solved on
//! its own (on one of N threads) and written atomically to `DIR/shards/NAME.cert`, so an
//! interrupted run loses at most the tasks in flight; rerunning skips every shard that is
//! already there and checks. The manifest `DIR/manifest.cert` is then an ordinary
//! certificate whose leaves are `Shard` steps citing the shards by hash, so its own hash
//! identifies the whole result.
//!
//! Tasks that are a board symmetry's image of an earlier task (the start positions are
//! mirror-symmetric, so half of the first moves are) get no shard: the manifest proves them
//! with a `Transposition` step citing the earlier task's claim (SPEC 5.6).

use amazons_format::{Action, Certificate, Claim, Color, Meta, Move, Position, Step, Symmetry};
use amazons_solver::dfpn::Options;
use amazons_solver::geometry::Geometry;
use amazons_solver::pos::Pos;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Why a sharded solve failed.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    #[error("the first move {0} is illegal here")]
    IllegalFirstMove(String),
    #[error("no tasks: the side to move has no move")]
    NoTasks,
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("task {task}: {reason}")]
    Task { task: String, reason: String },
    #[error("shard {0} is missing: solve it first (the tasks are listed by `amazons tasks`)")]
    MissingShard(PathBuf),
    #[error("after the first move, reply {0} wins for the opponent: the first move does not win")]
    Refuted(String),
    #[error("{0}: not a plan file: {1}")]
    BadPlan(PathBuf, String),
    #[error("{dir} holds another campaign: its plan is {theirs}, this run's is {ours}; give another directory")]
    OtherPlan {
        dir: PathBuf,
        theirs: String,
        ours: String,
    },
    #[error("{dir} is in use by another run ({holder}): wait for it to end or stop it; runs given --only may share a directory, a run of every task may not")]
    InUse { dir: PathBuf, holder: String },
    #[error("{open} of {total} tasks are unfinished (over the node budget{split}): finished shards are kept, so a rerun goes on where this one stopped (with --tries, through the next moves of a task whose guesses were refuted); a larger --max-nodes, or none, may finish them sooner")]
    Unfinished {
        open: usize,
        total: usize,
        split: &'static str,
    },
    #[error("{0}: no task has this number, name or move (`amazons tasks` lists them)")]
    NoSuchTask(String),
    /// Not a failure: a run given `--only` finished its tasks, and the manifest waits for
    /// the others (`amazons solve` reports it and exits 0).
    #[error("{skipped} of {total} tasks were left to other runs (not selected by --only); the selected ones are finished and their shards kept")]
    Skipped { skipped: usize, total: usize },
}

/// The node budget of a guessing search (task order, or a split's move) when the run has
/// no `--max-nodes`.
pub const GUESS_NODES: u64 = 1_000_000;

/// Without a fixed first move, how long a free thread waits for the subtasks of a task
/// that an earlier run split, once another thread has taken it, before it opens another
/// task instead (a resumed split is split again at once, unless it escalates to a whole
/// search first).
const RESPLIT_WAIT: Duration = Duration::from_secs(120);

/// How a sharded run treats big tasks.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    /// Worker threads.
    pub threads: usize,
    /// Split a task that exceeds `Options::max_nodes` this many levels deeper: fix the
    /// move the search found most promising and make one subtask per reply (the task's
    /// shard is then itself a manifest of subtask shards). 0: leave such tasks open.
    pub split_depth: usize,
    /// Each thread keeps its transposition table from task to task ([`amazons_solver::tt::keep_entries`]):
    /// faster, but shard bytes then depend on the order tasks were solved in.
    pub shared_table: bool,
    /// Solve the tasks in the order a budget-limited df-pn of the split position ranks
    /// their moves ([`amazons_solver::rank_moves`]), most promising first, instead of move order.
    pub guess_order: bool,
    /// Solve only these tasks (numbers, shard names or reply moves, see [`Task::selected_by`]);
    /// empty: all. The others are still resumed when their shard is on disk, so a run
    /// that finds every task finished writes the manifest as usual. Several runs (on
    /// this machine or on others sharing the directory) can so split the open tasks.
    pub only: Vec<String>,
    /// When a split's guesses are all refuted (the guessing search misjudged the task),
    /// solve the task whole once more with this many times the node budget before
    /// trying its moves one by one; a failed retry is recorded in `DIR/splits.tsv`
    /// (`escalated`), so a rerun does not repeat it. 0 or 1: no retry.
    pub escalate: u64,
    /// When a split's guesses are all refuted (and the escalated retry failed too), how
    /// many of the task's other moves one run tries, not counting moves already proved
    /// lost; the task then stays open and a rerun goes on with the next ones. 0: every
    /// move, so the run settles the task (a win, or the loss once every move is lost).
    pub tries: usize,
    /// Solve each task whole with these growing budgets before splitting it (the run has
    /// no `--max-nodes` then); see [`crate::ladder`]. `None`: one solve with
    /// `Options::max_nodes`.
    pub ladder: Option<crate::ladder::Ladder>,
    /// Write each shard as the solver extracted it, without replacing the subtrees on
    /// small positions by `Search` steps (SPEC 5.8), as runs publish them: for measuring
    /// what `amazons compact --search` does.
    pub as_extracted: bool,
    /// With a ladder: prove each list of subtasks in two passes, first every subtask whole
    /// within this many nodes (never split), then the ones over it as usual, so that one
    /// hard subtask does not hold up the easy ones (see `prove_in_order`). `None`: one pass.
    pub quick: Option<u64>,
    /// Re-solve each new whole shard (a task's, or a split task's subtask's) stored over a
    /// size with another number rule at once, keeping the smaller
    /// ([`crate::shrink::after_solve`], [`crate::shrink::after_subtask`]). `None`: keep
    /// every shard as the run's own rule made it.
    pub shrink: Option<crate::shrink::AsYouGo>,
}

impl Budget {
    /// `threads` worker threads and nothing else: a task over the node budget is left
    /// open, no guesses, no ladder.
    pub fn threads(threads: usize) -> Budget {
        Budget {
            threads,
            ..Budget::default()
        }
    }
}

/// One task: the move that leads to it and the position it starts from.
#[derive(Debug, Clone)]
pub struct Task {
    pub index: usize,
    pub mv: Move,
    pub position: Position,
    /// File stem of the shard, e.g. `012-e5-c5xc4`.
    pub name: String,
    /// `Some((j, s))` when `s` maps this task's position onto earlier task `j`'s: the task
    /// is then proven by transposition, not solved.
    pub mirror: Option<(usize, Symmetry)>,
}

impl Task {
    /// Whether the selector `s` (of `--only`) names this task: its number (`46` or
    /// `046`), its shard name (`046-e5-e3xc1`) or its move (`e5-e3xc1`).
    pub fn selected_by(&self, s: &str) -> bool {
        match s.parse::<usize>() {
            Ok(n) => n == self.index,
            // The name is `NNN-MOVE`.
            Err(_) => s == self.name || self.name.split_once('-').is_some_and(|(_, m)| m == s),
        }
    }
}

/// A split of a root position into tasks.
#[derive(Debug, Clone)]
pub struct Plan {
    pub root: Position,
    pub first: Option<Move>,
    pub tasks: Vec<Task>,
}

impl Plan {
    /// Splits `root`: one task per reply to `first` when given, else one per move.
    pub fn new(root: &Position, first: Option<Move>) -> Result<Plan, ShardError> {
        let g = Geometry::new(root.board);
        let mut split = Pos::from_position(root);
        if let Some(m) = first {
            if !split.is_legal(&g, m) {
                return Err(ShardError::IllegalFirstMove(m.notation(root.board)));
            }
            split = split.play(m);
        }
        let mut tasks: Vec<Task> = Vec::new();
        let mut seen: std::collections::HashMap<Position, usize> = Default::default();
        for (index, mv) in split.moves(&g).into_iter().enumerate() {
            let position = split.play(mv).to_position(&g);
            let mirror = Symmetry::ALL
                .iter()
                .filter(|s| **s != Symmetry::Identity && s.fits(root.board))
                .find_map(|&s| seen.get(&s.apply(&position)).map(|&j| (j, s)));
            if mirror.is_none() {
                seen.insert(position.clone(), index);
            }
            tasks.push(Task {
                index,
                mv,
                position,
                name: format!("{index:03}-{}", mv.notation(root.board)),
                mirror,
            });
        }
        if tasks.is_empty() {
            return Err(ShardError::NoTasks);
        }
        Ok(Plan {
            root: root.clone(),
            first,
            tasks,
        })
    }

    /// The position the tasks are the moves of: the root, or the root after the first move.
    pub fn split_position(&self) -> Position {
        let g = Geometry::new(self.root.board);
        let mut p = Pos::from_position(&self.root);
        if let Some(m) = self.first {
            p = p.play(m);
        }
        p.to_position(&g)
    }

    /// Renames the tasks `PREFIX.NAME`, for a split task's subtasks.
    fn prefixed(mut self, prefix: &str) -> Plan {
        for t in &mut self.tasks {
            t.name = format!("{prefix}.{}", t.name);
        }
        self
    }

    /// The tasks that are solved (each has a shard): those that mirror no earlier task.
    pub fn unique(&self) -> impl Iterator<Item = &Task> {
        self.tasks.iter().filter(|t| t.mirror.is_none())
    }

    /// [`ShardError::NoSuchTask`] for the first selector of `--only` that names no task.
    pub fn check_only(&self, only: &[String]) -> Result<(), ShardError> {
        match only
            .iter()
            .find(|s| !self.tasks.iter().any(|t| t.selected_by(s)))
        {
            Some(s) => Err(ShardError::NoSuchTask(s.clone())),
            None => Ok(()),
        }
    }

    /// Whether `--only` (the selectors `only`; empty: all) takes the solved task `t`: a
    /// selector names it, or names a task that mirrors it (that one is proven by `t`).
    pub fn selects(&self, only: &[String], t: &Task) -> bool {
        only.is_empty()
            || (self.tasks.iter())
                .filter(|u| u.index == t.index || u.mirror.is_some_and(|(j, _)| j == t.index))
                .any(|u| only.iter().any(|s| u.selected_by(s)))
    }

    /// Completes per-task results (`None` for mirrored tasks) with copies of the results
    /// they mirror, in task order.
    fn complete(&self, results: Vec<Option<Done>>) -> Vec<Done> {
        let mut out: Vec<Done> = Vec::with_capacity(results.len());
        for (task, result) in self.tasks.iter().zip(results) {
            match (task.mirror, result) {
                (None, Some(done)) => out.push(done),
                (Some((j, _)), _) => {
                    let mut done = out[j].clone();
                    done.mirror_of = Some(j);
                    out.push(done);
                }
                (None, None) => {}
            }
        }
        out
    }

    /// The shard file of a task.
    pub fn shard_path(&self, dir: &Path, task: &Task) -> PathBuf {
        dir.join("shards").join(format!("{}.cert", task.name))
    }
}

#[cfg(test)]
mod levels_tests;
mod manifest;
mod pool;
mod progress;
#[cfg(test)]
mod quick_tests;
mod records;
#[cfg(test)]
mod settle_tests;
#[cfg(test)]
mod shrink_tests;
mod split;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod verified_tests;

pub use amazons_format::stored::on_disk;
pub(crate) use manifest::refresh;
use manifest::won_by;
pub use manifest::{
    assemble, cited_tasks, collect, collect_result, manifest_of, manifest_stale, read_shard,
    remove_manifest, rewrite_md, write_manifest,
};
use pool::*;
use progress::{rung_pace, LONG_TASK, REPORT_EVERY};
pub use progress::{Done, Progress, RungPace, Running};
use records::*;
pub use records::{
    record_spent, recorded_millis, split_progress, PLAN_FILE, SPENT_FILE, SPLITS_FILE,
    STARTED_FILE, TIMES_FILE,
};
pub(crate) use records::{record_time, recorded_times, spent_below, task_times};
use split::*;
pub(crate) use split::{solve_bytes, Solved};

/// The names of the files in `dir/shards`, sorted (none if it cannot be read).
pub fn shard_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("shards"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// How many finished subtask shards of task `name` (files `NAME.*.cert`, compressed or
/// not) are in `dir/shards`.
pub fn subtask_shards(dir: &Path, name: &str) -> usize {
    let prefix = format!("{name}.");
    shard_names(dir)
        .iter()
        .filter(|file| {
            // `NAME.cert` itself starts with the prefix too, but its rest, `cert`, does not
            // end with `.cert`.
            file.strip_prefix(&prefix)
                .is_some_and(|rest| rest.ends_with(".cert") || rest.ends_with(".cert.zst"))
        })
        .count()
}

/// Reads a shard that is already on disk if it checks and proves the task's position.
/// A split task's shard is a manifest of subtask shards: those are looked up beside it.
pub fn existing(path: &Path, task: &Task) -> Option<Done> {
    existing_at(path, &task.position)
}

/// Writes a certificate file atomically, in the form its directory is kept in: compressed
/// (`PATH.zst`, as `amazons compress` writes it) when the directory or its `shards/`
/// already holds a `*.cert.zst` file, so that a resumed published campaign adds shards
/// ready to commit; as it is otherwise. Nothing is written when either form already holds
/// these bytes; the other form is removed, so one form remains.
pub(crate) fn write_cert(path: &Path, bytes: &[u8]) -> Result<(), ShardError> {
    use amazons_format::stored;
    let zst = stored::compressed_path(path);
    for p in [path, zst.as_path()] {
        if p.is_file() && stored::read(p).is_ok_and(|old| old == bytes) {
            return Ok(());
        }
    }
    let other = if path.parent().is_some_and(kept_compressed) {
        let packed = stored::compress(bytes).map_err(|e| ShardError::Io(zst.clone(), e))?;
        write_atomic(&zst, &packed)?;
        path
    } else {
        write_atomic(path, bytes)?;
        zst.as_path()
    };
    if other.is_file() {
        std::fs::remove_file(other).map_err(|e| ShardError::Io(other.to_path_buf(), e))?;
    }
    Ok(())
}

/// How many bytes a shard of these (raw) bytes takes when [`write_cert`] writes it to
/// `path`: compressed or not, as its directory keeps them.
pub(crate) fn stored_size(path: &Path, bytes: &[u8]) -> Result<u64, ShardError> {
    if path.parent().is_some_and(kept_compressed) {
        let packed = amazons_format::stored::compress(bytes)
            .map_err(|e| ShardError::Io(path.to_path_buf(), e))?;
        Ok(packed.len() as u64)
    } else {
        Ok(bytes.len() as u64)
    }
}

/// Whether `dir` or `dir/shards` holds a compressed certificate (`*.cert.zst`).
fn kept_compressed(dir: &Path) -> bool {
    let holds = |d: &Path| {
        std::fs::read_dir(d).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".cert.zst"))
        })
    };
    holds(dir) || holds(&dir.join("shards"))
}

pub(crate) fn existing_at(path: &Path, position: &Position) -> Option<Done> {
    match crate::safety::examine(path, position) {
        crate::safety::Found::Good(done) => Some(done),
        _ => None,
    }
}

/// Writes `bytes` to `path` atomically (see [`amazons_format::stored::write_atomic`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ShardError> {
    amazons_format::stored::write_atomic(path, bytes)
        .map_err(|e| ShardError::Io(path.to_path_buf(), e))
}

/// Why a task attempt gave no shard.
#[derive(Debug)]
pub(crate) enum Attempt {
    /// The node budget ran out (the task stays open).
    Budget,
    Failed(ShardError),
}

impl From<ShardError> for Attempt {
    fn from(e: ShardError) -> Attempt {
        Attempt::Failed(e)
    }
}

/// The tasks of `plan` still to solve (no shard on disk that checks), in the order a
/// resumed run takes them ([`tried_last`]).
pub fn pending<'p>(plan: &'p Plan, dir: &Path) -> Vec<&'p Task> {
    let mut v: Vec<&Task> = plan
        .unique()
        .filter(|t| existing(&plan.shard_path(dir, t), t).is_none())
        .collect();
    tried_last(plan, &mut v, dir);
    v
}

/// With a fixed first move, moves the tasks an earlier run tried and left open (hard
/// ones) behind the others, keeping the order within each group: tasks it split
/// ([`tried_before`]), and tasks it started but never finished ([`STARTED_FILE`]). Every
/// reply must be proved, so the easy ones are finished and kept first. Without a fixed
/// first move one task the side to move wins settles the root, and the ranking names the
/// likeliest: a task left open keeps its ranked place (4x8's b1-b6xc7, ranked first and
/// taken past 100M nodes, would otherwise wait behind 223 other first moves), and its
/// ladder resumes at the rung it reached. Returns the names of the tasks left open by an
/// earlier run, in the order they now come.
fn tried_last(plan: &Plan, work: &mut [&Task], dir: &Path) -> Vec<String> {
    let mut tried = tried_before(&dir.join("shards"));
    let finished = recorded_times(dir);
    let started = std::fs::read_to_string(dir.join(STARTED_FILE)).unwrap_or_default();
    tried.extend(
        started
            .lines()
            .filter(|name| !finished.contains_key(*name))
            .map(str::to_string),
    );
    if plan.first.is_some() {
        work.sort_by_key(|t| tried.contains(&t.name));
    }
    work.iter()
        .filter(|t| tried.contains(&t.name) && on_disk(&plan.shard_path(dir, t)).is_none())
        .map(|t| t.name.clone())
        .collect()
}

/// Records where the tasks an earlier run left open ([`tried_last`]) go in this run.
fn record_resume_order(plan: &Plan, dir: &Path, open: &[String]) {
    if open.is_empty() {
        return;
    }
    let names = open.join(", ");
    let outcome = if plan.first.is_some() {
        format!("left open by an earlier run, so last: {names}")
    } else {
        format!("left open by an earlier run, kept in ranked order (without a first move one win settles the root): {names}")
    };
    crate::decisions::record(dir, "root", "resume order", "-", &outcome);
}

/// Names of tasks with subtask shards (`NAME.SUB.cert[.zst]`) in the `shards` directory:
/// tasks an earlier run split. Finished ones are skipped anyway; the others were left open.
fn tried_before(shards: &Path) -> std::collections::HashSet<String> {
    let Ok(entries) = std::fs::read_dir(shards) else {
        return Default::default();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().into_string().ok()?;
            let stem = n
                .strip_suffix(".cert.zst")
                .or_else(|| n.strip_suffix(".cert"))?;
            Some(stem.split_once('.')?.0.to_string())
        })
        .collect()
}

fn shard_file(dir: &Path, name: &str) -> PathBuf {
    dir.join("shards").join(format!("{name}.cert"))
}

/// The passes a run makes over its own tasks, each a node budget (`None`: as usual, up the
/// whole ladder and split if need be). With a fixed first move every reply must be proved,
/// so with a quick budget ([`Budget::quick`]) every task is first solved whole within the
/// first rung of at least [`crate::ladder::GUESS_NODES`], never split; those over it within
/// the next rung, up to the quick budget; and only then the rest as usual (each ladder
/// resumes above the rungs it climbed). The 6x5 campaign spent its first hour on its two
/// first-ranked replies, both past 100M nodes, while replies solved in seconds waited; and
/// a third of its replies sampled were proved within 10M nodes (a minute). Without a first
/// move, one won task settles the root and the ranking names the likeliest, so the tasks
/// keep their order: one pass.
fn top_passes(plan: &Plan, budget: &Budget) -> Vec<Option<u64>> {
    let (Some(_), Some(quick), Some(ladder)) = (plan.first, budget.quick, budget.ladder.as_ref())
    else {
        return vec![None];
    };
    let mut passes: Vec<Option<u64>> = ladder
        .rungs
        .iter()
        .copied()
        .filter(|&n| n <= quick && (n >= crate::ladder::GUESS_NODES || n == quick))
        .map(Some)
        .collect();
    passes.push(None);
    passes
}

/// Solves every task not yet on disk, on `budget.threads` threads (each with `hash_mib /
/// threads` of table), reporting progress; then writes the manifest. Returns the manifest
/// and the per-task results. A task over the per-task node budget (`opts.max_nodes`) is
/// split `budget.split_depth` levels deep, else left open; the other tasks go
/// on, and a run with open tasks ends with [`ShardError::Unfinished`] and no manifest
/// (its finished shards stay on disk for the next run).
pub fn run(
    plan: &Plan,
    dir: &Path,
    opts: &Options,
    budget: Budget,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<(Certificate, Vec<Done>), ShardError> {
    plan.check_only(&budget.only)?;
    // Never mix this plan's shards into another campaign's directory.
    crate::safety::check_plan(dir, plan)?;
    let shards = dir.join("shards");
    std::fs::create_dir_all(&shards).map_err(|e| ShardError::Io(shards.clone(), e))?;
    plan.write(dir)?;
    let mut work: Vec<&Task> = plan.unique().collect();
    // Tasks not selected are left to other runs, unless there is a shard to resume.
    let before = work.len();
    work.retain(|t| plan.selects(&budget.only, t) || on_disk(&plan.shard_path(dir, t)).is_some());
    let skipped = before - work.len();
    // Nothing is ranked when every task has a shard on disk (a finished run resumed).
    let unsolved = work
        .iter()
        .any(|t| on_disk(&plan.shard_path(dir, t)).is_none());
    if budget.guess_order && unsolved {
        // The ranking search prints nothing of its own: say what the run is doing.
        let note = |last: String| {
            progress(&Progress {
                done: 0,
                total: work.len(),
                resumed: 0,
                nodes: 0,
                searched: 0,
                elapsed: Duration::ZERO,
                last,
                running: Vec::new(),
                helped: 0,
                finished: false,
                pass: None,
            })
        };
        let ranked = crate::order::task_order(plan, dir, opts, &budget, &note);
        work.sort_by_key(|t| ranked.iter().position(|&m| m == t.mv));
    }
    let open_before = tried_last(plan, &mut work, dir);
    record_resume_order(plan, dir, &open_before);
    // Tasks with a shard on disk first: they only need checking, so the progress line soon
    // counts them all and its estimate covers only the work left.
    work.sort_by_key(|t| on_disk(&plan.shard_path(dir, t)).is_none());
    // Without a fixed first move, one task the side to move wins settles the root: no
    // further tasks are started once one is found.
    let settled = std::sync::atomic::AtomicBool::new(false);
    let pool = Pool::default();
    // Set once the root is settled or a task failed: the searches in flight stop (and the
    // ladder climbs no further), as their tasks are no longer needed.
    let stop = pool.stop.clone();
    let threads = budget.threads.max(1).min(work.len());
    let searched = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let per_thread = Options {
        hash_mib: (opts.hash_mib / threads).max(1),
        progress: false,
        live_nodes: vec![searched.clone()],
        ..opts.clone()
    };
    let results: Mutex<Vec<Option<Done>>> = Mutex::new(vec![None; plan.tasks.len()]);
    let passes = top_passes(plan, &budget);
    // Where each task goes in the queue of a pass: as ranked, except that a capped pass
    // takes the tasks not on disk least promising first. With a fixed first move the
    // ranking is the replying side's, so its last replies are the ones the first move
    // answers most clearly, and the quickest to prove: 6x5's 18 replies proved in seconds
    // were ranked 161st to 244th of 250, and a pass in ranked order spent its first 23
    // minutes on 50 replies over 10M nodes.
    let resumable: Vec<bool> = (work.iter())
        .map(|t| on_disk(&plan.shard_path(dir, t)).is_some())
        .collect();
    let place = |pass: usize, i: usize| {
        let reversed = passes[pass].is_some() && !resumable[i];
        (
            pass,
            !resumable[i],
            if reversed { work.len() - i } else { i },
            i,
        )
    };
    // The tasks to take, as (pass, on disk or not, place, task's index in `work`): every
    // task in the first pass before any in the next.
    let queue: Mutex<std::collections::BTreeSet<(usize, bool, usize, usize)>> =
        Mutex::new((0..work.len()).map(|i| place(0, i)).collect());
    let lock_queue = || queue.lock().unwrap_or_else(|p| p.into_inner());
    // The pass under way (that of the next task to take), for the progress line.
    let pass_line = || {
        if passes.len() < 2 {
            return None;
        }
        let q = lock_queue();
        let (pass, ..) = *q.first()?;
        let waiting = q.iter().filter(|e| e.0 == pass).count();
        let budget = match passes[pass] {
            Some(n) => format!("each task within {}", crate::decisions::nodes(n)),
            None => "the rest as usual".into(),
        };
        Some(format!(
            "pass {} of {} ({budget}), {waiting} tasks waiting for it",
            pass + 1,
            passes.len()
        ))
    };
    let open = AtomicUsize::new(0);
    let first_error: Mutex<Option<ShardError>> = Mutex::new(None);
    let start = Instant::now();
    let last_finished = Mutex::new(String::from("none yet"));
    let running: Mutex<Vec<(usize, String, Instant)>> = Mutex::new(Vec::new());
    // Reports progress; `finished` names the task that just ended, if one did.
    let report = |finished: Option<&str>| {
        let mut last = last_finished.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(line) = finished {
            *last = line.to_string();
        }
        let r = results.lock().unwrap_or_else(|p| p.into_inner());
        let done: Vec<&Done> = r.iter().flatten().collect();
        // Read, and the lock let go, before `pass_line` takes the queue's: a task is
        // noted running under the queue's lock.
        let running: Vec<Running> = (running.lock().unwrap_or_else(|p| p.into_inner()))
            .iter()
            .map(|(_, name, t)| Running {
                name: name.clone(),
                elapsed: t.elapsed(),
                subtasks: if t.elapsed() >= LONG_TASK {
                    subtask_shards(dir, name)
                } else {
                    0
                },
                levels: pool.levels(name),
                rung: pool.rung(name),
                rung_pace: pool.rung_pace(name),
                left: pool.time_left(name),
            })
            .collect();
        progress(&Progress {
            done: done.len(),
            total: work.len(),
            resumed: done.iter().filter(|d| d.resumed).count(),
            nodes: done.iter().filter(|d| !d.resumed).map(|d| d.nodes).sum(),
            searched: searched.load(Ordering::Relaxed),
            elapsed: start.elapsed(),
            last: last.clone(),
            running,
            helped: pool.helped.load(Ordering::Relaxed),
            finished: finished.is_some(),
            pass: pass_line(),
        });
    };
    let workers_done = std::sync::atomic::AtomicBool::new(false);
    // The tasks an earlier run split. Checked under the queue's lock, under which a task
    // taken is also noted running, so that a task being taken is seen.
    let split_before = records::split_tasks(dir);
    let resplit_pending = || {
        let _queue = lock_queue();
        let running = running.lock().unwrap_or_else(|p| p.into_inner());
        let taken = running
            .iter()
            .map(|(_, name, since)| (name.as_str(), *since));
        pool.resplit_pending(&split_before, taken, RESPLIT_WAIT)
    };
    // What is written down already is not written again: that a task was started (by an
    // earlier run, or in an earlier pass of this one), or that it was over a quick pass's
    // budget (which a resumed task, past that rung already, is again at once).
    let started_before: Mutex<std::collections::HashSet<String>> = Mutex::new(
        (std::fs::read_to_string(dir.join(STARTED_FILE)).unwrap_or_default())
            .lines()
            .map(str::to_string)
            .collect(),
    );
    let quick_before: std::collections::HashSet<(String, String)> = crate::decisions::read(dir)
        .into_iter()
        .filter(|[_, decision, _, _]| decision == crate::decisions::QUICK_PASS)
        .map(|[task, _, budget, _]| (task, budget))
        .collect();
    // The first line at once, before any shard is checked or task started.
    report(None);
    std::thread::scope(|scope| {
        // Between task ends, a report every REPORT_EVERY with the running tasks' nodes.
        scope.spawn(|| {
            let mut last = Instant::now();
            while !workers_done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                if last.elapsed() >= REPORT_EVERY {
                    last = Instant::now();
                    report(None);
                }
            }
        });
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| loop {
                    amazons_solver::tt::keep_entries(budget.shared_table);
                    amazons_solver::dfpn::abort_on(Some(stop.clone()));
                    let cx = Split::new(dir, &plan.root, &per_thread, &pool)
                        .escalating(budget.escalate)
                        .trying(budget.tries)
                        .extracted(budget.as_extracted)
                        .quick(budget.quick)
                        .shrinking(budget.shrink)
                        .climbing(budget.ladder.as_ref(), opts.hash_mib);
                    let quit = || {
                        first_error.lock().map(|e| e.is_some()).unwrap_or(true)
                            || settled.load(Ordering::SeqCst)
                    };
                    // Without a fixed first move one won task settles the root, and a task
                    // is split only once its rungs are spent: the most promising one, by
                    // the ranking. So a thread that is free helps with the subtasks of a
                    // split in flight before it opens the next task, which would only be
                    // needed should that split fail. It waits for subtasks about to be
                    // published: while a task split by an earlier run is being split
                    // again (for at most RESPLIT_WAIT), and while a quick pass over a
                    // split's subtasks finishes, when some were over its budget.
                    if plan.first.is_none() && !quit() {
                        if pool.help_once(&cx) {
                            continue;
                        }
                        if resplit_pending() || pool.more_to_come() {
                            std::thread::sleep(Duration::from_millis(50));
                            continue;
                        }
                    }
                    // Counted before taking a task, so an idle thread never sees nobody
                    // working while a task is being taken.
                    pool.active.fetch_add(1, Ordering::SeqCst);
                    let taken = {
                        let mut queue = lock_queue();
                        let taken = queue.pop_first().filter(|_| !quit());
                        if let (Some((.., i)), Ok(mut r)) = (taken, running.lock()) {
                            r.push((work[i].index, work[i].name.clone(), Instant::now()));
                        }
                        taken
                    };
                    let Some((pass, _, _, i)) = taken else {
                        pool.all_taken.store(true, Ordering::SeqCst);
                        // Its tables go back to the system: the last task may take the
                        // whole table.
                        amazons_solver::tt::release_spare();
                        pool.active.fetch_sub(1, Ordering::SeqCst);
                        // No task left for this thread: it helps with the subtasks of
                        // the split tasks still running.
                        pool.help_until_done(&cx, &quit);
                        // A task another thread found over its pass's budget meanwhile:
                        // this thread takes it (or the next one).
                        if !lock_queue().is_empty() && !quit() {
                            continue;
                        }
                        break;
                    };
                    let (task, cap) = (work[i], passes[pass]);
                    let first_start = (started_before.lock())
                        .map(|mut names| names.insert(task.name.clone()))
                        .unwrap_or(true);
                    if first_start && on_disk(&plan.shard_path(dir, task)).is_none() {
                        append_line(dir, STARTED_FILE, &task.name);
                    }
                    // A won first move settles the root; a reply won against a fixed first
                    // move refutes it.
                    let decisive = match plan.first {
                        None => plan.root.to_move,
                        Some(_) => plan.root.to_move.opponent(),
                    };
                    let outcome = prove_position(
                        &cx.capped(cap),
                        &task.position,
                        &task.name,
                        budget.split_depth,
                    )
                    .and_then(|done| confirmed(dir, &task.name, done, decisive));
                    // Over its pass's budget: queued for the next pass before this thread
                    // counts as idle, so that an idle thread never ends while it waits.
                    let later = cap.is_some()
                        && matches!(outcome, Err(Attempt::Budget))
                        && !stop.load(Ordering::SeqCst);
                    if later {
                        lock_queue().insert(place(pass + 1, i));
                        pool.all_taken.store(false, Ordering::SeqCst);
                    }
                    pool.active.fetch_sub(1, Ordering::SeqCst);
                    if let Ok(mut r) = running.lock() {
                        r.retain(|(i, _, _)| *i != task.index);
                    }
                    if later {
                        let q = cap.map(crate::decisions::nodes).unwrap_or_default();
                        if !quick_before.contains(&(task.name.clone(), q.clone())) {
                            let then = match passes[pass + 1] {
                                Some(n) => format!("within {}", crate::decisions::nodes(n)),
                                None => "as usual".into(),
                            };
                            crate::decisions::record(
                                dir,
                                &task.name,
                                crate::decisions::QUICK_PASS,
                                &q,
                                &format!(
                                    "over it: solved {then} once every task has had this pass"
                                ),
                            );
                        }
                        report(Some(&format!(
                            "{} over this pass's budget, for later",
                            task.name
                        )));
                        continue;
                    }
                    match outcome {
                        Ok(done) => {
                            if !done.resumed {
                                record_time(dir, &task.name, &done);
                            }
                            if plan.first.is_none() && done.winner == plan.root.to_move {
                                settled.store(true, Ordering::SeqCst);
                                stop.store(true, Ordering::SeqCst);
                            }
                            let line = format!(
                                "{} ({} wins, {} nodes, {} ms{})",
                                task.name,
                                done.winner,
                                done.nodes,
                                done.millis,
                                if done.resumed { ", resumed" } else { "" }
                            );
                            if !done.resumed {
                                crate::decisions::record(
                                    dir,
                                    &task.name,
                                    "task done",
                                    "-",
                                    &format!(
                                        "{} wins, {} nodes, {} ms",
                                        done.winner, done.nodes, done.millis
                                    ),
                                );
                            }
                            // A large new shard re-solved for size: the smaller one stays.
                            let done = match budget.shrink.filter(|_| !done.resumed) {
                                Some(go) => match crate::shrink::after_solve(
                                    plan,
                                    dir,
                                    &per_thread,
                                    task,
                                    &done,
                                    go,
                                ) {
                                    Ok(smaller) => smaller.unwrap_or(done),
                                    Err(e) => {
                                        if let Ok(mut slot) = first_error.lock() {
                                            slot.get_or_insert(e);
                                        }
                                        stop.store(true, Ordering::SeqCst);
                                        break;
                                    }
                                },
                                None => done,
                            };
                            if let Ok(mut r) = results.lock() {
                                r[task.index] = Some(done);
                            }
                            report(Some(&line));
                        }
                        Err(Attempt::Budget) => {
                            open.fetch_add(1, Ordering::SeqCst);
                            let why = if stop.load(Ordering::SeqCst) {
                                "stopped: the run is over"
                            } else {
                                "over the node budget"
                            };
                            crate::decisions::record(dir, &task.name, "task left open", "-", why);
                            report(Some(&format!("{} left open ({why})", task.name)));
                        }
                        Err(Attempt::Failed(e)) => {
                            if let Ok(mut slot) = first_error.lock() {
                                slot.get_or_insert(e);
                            }
                            stop.store(true, Ordering::SeqCst);
                            break;
                        }
                    }
                })
            })
            .collect();
        let joined: Vec<_> = workers.into_iter().map(|w| w.join()).collect();
        // The reporter stops first, then a worker's panic goes on up as before.
        workers_done.store(true, Ordering::SeqCst);
        for outcome in joined {
            if let Err(panic) = outcome {
                std::panic::resume_unwind(panic);
            }
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    if settled.into_inner() {
        // The winning move alone proves the root (lowest task index among the winners).
        let (task, done) = plan
            .tasks
            .iter()
            .zip(&results)
            .find_map(|(t, d)| {
                d.as_ref()
                    .filter(|d| d.winner == plan.root.to_move)
                    .map(|d| (t, d))
            })
            .ok_or_else(|| ShardError::Task {
                task: "root".into(),
                reason: "a winning task was reported but not recorded".into(),
            })?;
        let (single, done) = won_by(plan, task, done.clone());
        let manifest = assemble(&single, dir, &done)?;
        return Ok((manifest, done));
    }
    let open = open.into_inner();
    if open > 0 {
        return Err(ShardError::Unfinished {
            open,
            total: before,
            split: if budget.split_depth > 0 {
                " even after splitting"
            } else {
                ""
            },
        });
    }
    if skipped > 0 {
        return Err(ShardError::Skipped {
            skipped,
            total: before,
        });
    }
    let results = refresh(plan, dir, results)?;
    let done = plan.complete(results);
    let manifest = assemble(plan, dir, &done)?;
    Ok((manifest, done))
}
