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

use crate::dfpn::Options;
use crate::geometry::Geometry;
use crate::pos::Pos;
use amazons_format::{Action, Certificate, Claim, Color, Meta, Move, Position, Step, Symmetry};
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
    #[error("{open} of {total} tasks are unfinished (over the node budget{split}): finished shards are kept, so a rerun goes on where this one stopped (with --tries, through the next moves of a task whose guesses were refuted); a larger --max-nodes, or none, may finish them sooner")]
    Unfinished {
        open: usize,
        total: usize,
        split: &'static str,
    },
    #[error("{0}: no task has this number, name or move (`amazons tasks` lists them)")]
    NoSuchTask(String),
    #[error("{skipped} of {total} tasks were left to other runs (not selected by --only); the selected ones are finished and their shards kept")]
    Skipped { skipped: usize, total: usize },
}

/// The node budget of a guessing search (task order, or a split's move) when the run has
/// no `--max-nodes`.
pub const GUESS_NODES: u64 = 1_000_000;

/// How a sharded run treats big tasks.
#[derive(Debug, Clone, Default)]
pub struct Budget {
    /// Worker threads.
    pub threads: usize,
    /// Split a task that exceeds `Options::max_nodes` this many levels deeper: fix the
    /// move the search found most promising and make one subtask per reply (the task's
    /// shard is then itself a manifest of subtask shards). 0: leave such tasks open.
    pub split_depth: usize,
    /// Each thread keeps its transposition table from task to task ([`crate::tt::keep_entries`]):
    /// faster, but shard bytes then depend on the order tasks were solved in.
    pub shared_table: bool,
    /// Solve the tasks in the order a budget-limited df-pn of the split position ranks
    /// their moves ([`crate::rank_moves`]), most promising first, instead of move order.
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
    /// no `--max-nodes` then); see [`crate::campaign::ladder`]. `None`: one solve with
    /// `Options::max_nodes`.
    pub ladder: Option<crate::campaign::ladder::Ladder>,
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

mod manifest;
mod records;
#[cfg(test)]
mod tests;

use manifest::manifest_of;
pub use manifest::{assemble, collect};
use records::*;
pub use records::{recorded_millis, PLAN_FILE, SPLITS_FILE, STARTED_FILE, TIMES_FILE};

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
const REPORT_EVERY: Duration = Duration::from_secs(10);

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
}

impl Progress {
    /// A one-line report with nodes per second and an estimate of the time left.
    pub fn line(&self) -> String {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        let solved = self.done - self.resumed;
        let left = if solved == 0 {
            "no estimate yet".to_string()
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
                let levels = match levels.len() {
                    0 => String::new(),
                    _ => format!("; subtasks proved per level {}", levels.join(" > ")),
                };
                match r.subtasks {
                    0 => format!("{} ({min:.0} min{levels})", r.name),
                    n => format!("{} ({min:.0} min, {n} subtask shards{levels})", r.name),
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

/// Tasks in flight this long are named in the progress line.
const LONG_TASK: Duration = Duration::from_secs(60);

/// How many finished subtask shards of task `name` (files `NAME.*.cert`, compressed or
/// not) are in `dir/shards`.
pub fn subtask_shards(dir: &Path, name: &str) -> usize {
    let prefix = format!("{name}.");
    std::fs::read_dir(dir.join("shards")).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| {
                let file = e.file_name();
                let file = file.to_string_lossy();
                // `NAME.cert` itself starts with the prefix too, but its rest, `cert`, does
                // not end with `.cert`.
                file.strip_prefix(&prefix)
                    .is_some_and(|rest| rest.ends_with(".cert") || rest.ends_with(".cert.zst"))
            })
            .count()
    })
}

/// Reads a shard that is already on disk if it checks and proves the task's position.
/// A split task's shard is a manifest of subtask shards: those are looked up beside it.
pub fn existing(path: &Path, task: &Task) -> Option<Done> {
    existing_at(path, &task.position)
}

/// The file a certificate path stands for on disk: itself, or its compressed form
/// `PATH.zst` (see `amazons compress`).
pub fn on_disk(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    let mut zst = path.as_os_str().to_owned();
    zst.push(".zst");
    let zst = PathBuf::from(zst);
    zst.is_file().then_some(zst)
}

/// Writes a certificate file atomically, unless a compressed copy with the same content
/// is already there; a stale compressed copy is removed, so one form remains.
fn write_cert(path: &Path, bytes: &[u8]) -> Result<(), ShardError> {
    let mut zst = path.as_os_str().to_owned();
    zst.push(".zst");
    let zst = PathBuf::from(zst);
    if zst.is_file() {
        if amazons_format::stored::read(&zst).is_ok_and(|old| old == bytes) {
            return Ok(());
        }
        write_atomic(path, bytes)?;
        return std::fs::remove_file(&zst).map_err(|e| ShardError::Io(zst, e));
    }
    write_atomic(path, bytes)
}

fn existing_at(path: &Path, position: &Position) -> Option<Done> {
    match crate::campaign::safety::examine(path, position) {
        crate::campaign::safety::Found::Good(done) => Some(done),
        _ => None,
    }
}

/// Writes `bytes` to `path` atomically (a temporary file beside it, then a rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ShardError> {
    use std::io::Write;
    let io = |e| ShardError::Io(path.to_path_buf(), e);
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.{}.{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Moves tried in turn when a split task's guessed move is refuted.
const GUESSES: usize = 3;

/// Why a task attempt gave no shard.
#[derive(Debug)]
enum Attempt {
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
/// resumed run takes them: tasks an earlier run split or started and left open last.
pub fn pending<'p>(plan: &'p Plan, dir: &Path) -> Vec<&'p Task> {
    let mut v: Vec<&Task> = plan
        .unique()
        .filter(|t| existing(&plan.shard_path(dir, t), t).is_none())
        .collect();
    tried_last(&mut v, dir);
    v
}

/// Moves the tasks an earlier run tried and left open (hard ones) behind the others,
/// keeping the order within each group: tasks it split ([`tried_before`]), and tasks it
/// started but never finished ([`STARTED_FILE`]).
fn tried_last(work: &mut [&Task], dir: &Path) {
    let mut tried = tried_before(&dir.join("shards"));
    let finished = recorded_times(dir);
    let started = std::fs::read_to_string(dir.join(STARTED_FILE)).unwrap_or_default();
    tried.extend(
        started
            .lines()
            .filter(|name| !finished.contains_key(*name))
            .map(str::to_string),
    );
    work.sort_by_key(|t| tried.contains(&t.name));
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

/// Solves `position` whole and writes its shard `NAME.cert`, checked, atomically.
fn solve_position(
    dir: &Path,
    position: &Position,
    name: &str,
    root: &Position,
    opts: &Options,
) -> Result<Done, Attempt> {
    let fail = |reason: String| ShardError::Task {
        task: name.to_string(),
        reason,
    };
    let note = format!("shard {name} of {}", root.describe());
    let t = Instant::now();
    let mut outcome = crate::solve(position, opts, &note);
    if matches!(
        outcome,
        Err(crate::SolveError::Emit(
            crate::emit::EmitError::NoProvenMove { .. }
        ))
    ) && crate::tt::keeping()
    {
        // A table kept from earlier tasks held an entry that does not hold (a key
        // collision): solve once more from empty tables instead of ending the run. A
        // task that started from empty tables would only repeat the same search.
        crate::tt::keep_entries(false);
        outcome = crate::solve(position, opts, &note);
        crate::tt::keep_entries(true);
    }
    let mut solved = match outcome {
        Ok(s) => s,
        Err(crate::SolveError::Budget(_))
        | Err(crate::SolveError::Emit(
            crate::emit::EmitError::Budget | crate::emit::EmitError::TooLarge { .. },
        )) => return Err(Attempt::Budget),
        Err(e) => return Err(fail(e.to_string()).into()),
    };
    // No wall time inside a shard: the same task always gives the same bytes, so a resumed
    // run reproduces the same manifest and root hash. Times go to manifest.md only.
    solved.certificate.meta.millis = 0;
    amazons_checker::check(&solved.certificate).map_err(|e| {
        fail(format!(
            "the checker rejected the shard (a solver bug): {e}"
        ))
    })?;
    let bytes = amazons_format::encode(&solved.certificate).map_err(|e| fail(e.to_string()))?;
    let body = amazons_format::file::verified_body(&bytes).map_err(|e| fail(e.to_string()))?;
    let hash = amazons_format::hash_body(body);
    write_cert(&shard_file(dir, name), &bytes)?;
    crate::verified::mark_checked(dir, &hash);
    // Figures from the shard's own metadata, so a resumed run assembles the same manifest.
    Ok(Done {
        winner: solved.winner,
        hash,
        nodes: solved.certificate.meta.nodes,
        millis: t.elapsed().as_millis() as u64,
        bytes: bytes.len() as u64,
        resumed: false,
        mirror_of: None,
    })
}

/// Proves `position` for whichever side wins it into the shard `NAME.cert`: resumed from
/// disk, solved whole within the node budget, or else split `depth` levels deeper. A
/// budget-limited search decides the direction: if it leans towards the side to move,
/// its most promising move is fixed and each reply becomes a subtask `NAME.i-move` (up
/// to three guesses; a refuted guess's shards are removed and the task is ranked again
/// for the next guess ([`rerank`]), then after the escalated
/// retry the other moves are tried as subtasks of their own, [`Budget::tries`] per run);
/// if not, every move is a subtask, most promising first.
/// `Err(Attempt::Budget)` leaves the task open: a subtask was over budget at the last
/// level, or the tries ran out.
fn prove_position(
    cx: &Split,
    position: &Position,
    name: &str,
    depth: usize,
) -> Result<Done, Attempt> {
    let (dir, root) = (cx.dir, cx.root);
    // The run is over (its root settled, or a task failed): nothing more is started.
    if crate::dfpn::aborted() {
        return Err(Attempt::Budget);
    }
    // A damaged or altered shard is moved aside, named, and the task solved again.
    if let Some(done) = crate::campaign::safety::resume(dir, &shard_file(dir, name), name, position)
    {
        return Ok(done);
    }
    // A task an earlier run split is split again the same way, at once.
    let recorded = if depth > 0 {
        recorded_split(dir, name, position)
    } else {
        None
    };
    if recorded.is_none() {
        match cx.solve_whole(position, name) {
            // Split, unless the search stopped because the run is over.
            Err(Attempt::Budget) if depth > 0 && !crate::dfpn::aborted() => {}
            other => return other,
        }
    }
    let t = Instant::now();
    let guess_opts = cx.guess_options(cx.guess_nodes());
    let guess_budget = crate::campaign::decisions::nodes(cx.guess_nodes());
    let recorded = match recorded {
        Some(r) => r,
        None => {
            let (ranked, lean) = crate::rank_and_lean(position, &guess_opts);
            // A ranking cut short because the run is over is not recorded.
            if crate::dfpn::aborted() {
                return Err(Attempt::Budget);
            }
            record_split(dir, name, position, &ranked, lean);
            crate::campaign::decisions::split(
                dir,
                name,
                position,
                "split",
                &guess_budget,
                &ranked,
                lean,
            );
            Recorded {
                ranked,
                lean,
                refuted: Vec::new(),
                escalated: false,
            }
        }
    };
    let Recorded {
        mut ranked,
        mut lean,
        mut refuted,
        escalated,
    } = recorded;
    let mut tries = None;
    if lean {
        // The side to move seems to win: fix its most promising move, one subtask per
        // reply; up to three guesses in all, each refuted one followed by a new ranking.
        while refuted.len() < GUESSES {
            let Some(&first) = ranked.iter().find(|m| !refuted.contains(m)) else {
                break;
            };
            if let Some(found) = prove_guess(cx, position, first, name, depth)? {
                return finish_split(dir, position, name, root, found, t);
            }
            // Refuted: not tried again (nor by a resumed run).
            record_refuted(dir, name, position, first);
            let guess = first.notation(position.board);
            crate::campaign::decisions::record(dir, name, "guess refuted", "-", &guess);
            refuted.push(first);
            if refuted.len() < GUESSES {
                (ranked, lean) = rerank(dir, name, position, &refuted, &guess_opts);
                crate::campaign::decisions::split(
                    dir,
                    name,
                    position,
                    "re-rank",
                    &guess_budget,
                    &ranked,
                    lean,
                );
                if !lean {
                    break;
                }
            }
        }
    }
    if lean {
        // Every guess refuted: the search misjudged this position, and a larger whole
        // search may do better than a split built on its ranking (5x6 reply 006).
        if !escalated {
            if let Some(done) = solve_escalated(cx, position, name)? {
                return Ok(done);
            }
        }
        // Then the other moves, each a subtask of its own (solved whole if it fits the
        // budget): all of them, or with `--tries` a few per run (a rerun goes on past
        // the moves proved lost), which bounds a run's work on one misjudged task.
        tries = (cx.tries > 0).then_some(cx.tries);
    }
    // The side to move seems to lose, or its best guesses were refuted: every move is a
    // subtask (most promising first); if one of them wins, it alone proves the task.
    let order: Vec<Move> = ranked
        .into_iter()
        .filter(|m| !refuted.contains(m))
        .collect();
    let found = prove_every_move(cx, position, &order, tries, name, depth)?;
    finish_split(dir, position, name, root, found, t)
}

/// Ranks the moves of task `name` again after the guess `refuted.last()` was refuted: the
/// ranking that chose it misjudged the position, and with a shared table the new search
/// sees the refutation's proved lines (5x6 tasks 008 and 049 lost guess after guess to
/// a ranking made sessions before). Recorded as a new split line followed by the
/// refuted guesses again, so a rerun takes the same next guess.
fn rerank(
    dir: &Path,
    name: &str,
    position: &Position,
    refuted: &[Move],
    guess_opts: &Options,
) -> (Vec<Move>, bool) {
    let (ranked, lean) = crate::rank_and_lean(position, guess_opts);
    // A ranking cut short because the run is over is not recorded.
    if !crate::dfpn::aborted() {
        record_split(dir, name, position, &ranked, lean);
        for &m in refuted {
            record_refuted(dir, name, position, m);
        }
    }
    (ranked, lean)
}

/// Solves `position` whole with [`Budget::escalate`] times the node budget, once: on
/// success its shard replaces the split (the subtask shards under it are removed); on
/// failure an `escalated` line in `DIR/splits.tsv` keeps a rerun from trying again.
/// `Ok(None)` also when there is no node budget to escalate, or no escalation.
fn solve_escalated(cx: &Split, position: &Position, name: &str) -> Result<Option<Done>, Attempt> {
    let (Some(nodes), true) = (cx.opts.max_nodes, cx.escalate > 1) else {
        return Ok(None);
    };
    let opts = Options {
        max_nodes: Some(nodes.saturating_mul(cx.escalate)),
        ..cx.opts.clone()
    };
    let budget = crate::campaign::decisions::nodes(nodes.saturating_mul(cx.escalate));
    let log = |outcome: &str| {
        crate::campaign::decisions::record(cx.dir, name, "escalated whole solve", &budget, outcome)
    };
    match solve_position(cx.dir, position, name, cx.root, &opts) {
        Ok(done) => {
            log(&format!("{} wins", done.winner));
            remove_nested(cx.dir, name);
            Ok(Some(done))
        }
        Err(Attempt::Budget) => {
            log("over budget");
            split_line(cx.dir, name, position, "escalated", &[]);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The replies to the guess `first` of task `name` (at `position`; `after` is the position
/// after it), the opponent's most promising first, as a df-pn of `after` within a quarter
/// of the node budget ranks them; recorded in `DIR/splits.tsv` (`replies`: the guess, then
/// the replies), so a rerun takes the same order without searching. `None` when that
/// search proved the opponent's win, which refutes the guess at once.
fn reply_order(
    cx: &Split,
    after: &Position,
    first: Move,
    name: &str,
    position: &Position,
) -> Option<Vec<Move>> {
    if let Some(order) = recorded_replies(cx.dir, name, position, first) {
        return Some(order);
    }
    let opts = cx.guess_options((cx.guess_nodes() / 4).max(1));
    let ranking = crate::ranking(after, &opts);
    if ranking.winner == Some(after.to_move) {
        return None;
    }
    let order: Vec<Move> = ranking.moves.into_iter().map(|(m, _)| m).collect();
    let line: Vec<Move> = std::iter::once(first)
        .chain(order.iter().copied())
        .collect();
    if !crate::dfpn::aborted() {
        split_line(cx.dir, name, position, "replies", &line);
    }
    Some(order)
}

/// The reply order [`reply_order`] recorded for the guess `first` of task `name` at
/// `position` (its last `replies` line for that guess), if any.
fn recorded_replies(dir: &Path, name: &str, position: &Position, first: Move) -> Option<Vec<Move>> {
    split_records(dir, name, position)
        .into_iter()
        .rfind(|(kind, moves)| kind == "replies" && moves.first() == Some(&first))
        .map(|(_, moves)| moves[1..].to_vec())
}

/// One guess of a split: `first` fixed, one subtask per reply. `Ok(None)` when a reply
/// refutes it (its subtask shards are then removed: they prove nothing the task needs);
/// `Err(Attempt::Budget)` when a subtask stays open.
fn prove_guess(
    cx: &Split,
    position: &Position,
    first: Move,
    name: &str,
    depth: usize,
) -> Result<Option<(Plan, Vec<Done>)>, Attempt> {
    let sub = Plan::new(position, Some(first))?.prefixed(name);
    let mut unique: Vec<&Task> = sub.unique().collect();
    let Some(order) = reply_order(cx, &sub.split_position(), first, name, position) else {
        // The ordering search proved that the opponent wins after the guess.
        for t in &unique {
            remove_shards(cx.dir, &t.name);
        }
        return Ok(None);
    };
    // The opponent's most promising replies first: when the guess is wrong, the reply
    // that refutes it is then reached before much work is spent (and thrown away) on
    // the others; when it is right, every reply is proved all the same.
    unique.sort_by_key(|t| order.iter().position(|&m| m == t.mv).unwrap_or(usize::MAX));
    // A reply the side to move does not win refutes the guess: no need for the others.
    let proved = prove_in_order(cx, &unique, depth - 1, position.to_move.opponent());
    let mut results: Vec<Option<Done>> = vec![None; sub.tasks.len()];
    let mut open = false;
    for (t, outcome) in unique.iter().zip(proved) {
        match outcome {
            Some(Ok(d)) if d.winner != position.to_move => {
                for t in sub.unique() {
                    remove_shards(cx.dir, &t.name);
                }
                return Ok(None);
            }
            Some(Ok(d)) => results[t.index] = Some(d),
            Some(Err(Attempt::Budget)) => open = true,
            Some(Err(e)) => return Err(e),
            // Only after a refutation or a failure, which returned above.
            None => open = true,
        }
    }
    if open {
        return Err(Attempt::Budget);
    }
    let done = sub.complete(results);
    Ok(Some((sub, done)))
}

/// The other split: every move of `position` is a subtask, tried in `order` (moves not
/// in it last); the first that the side to move wins proves the task alone, else all of
/// them prove the loss. With `tries`, only the first `tries` moves of `order` not yet
/// proved lost are tried, and the task stays open unless one of them wins or no move is
/// left untried.
fn prove_every_move(
    cx: &Split,
    position: &Position,
    order: &[Move],
    tries: Option<usize>,
    name: &str,
    depth: usize,
) -> Result<(Plan, Vec<Done>), Attempt> {
    let sub = Plan::new(position, None)?.prefixed(name);
    let mut tasks: Vec<&Task> = sub.unique().collect();
    tasks.sort_by_key(|t| order.iter().position(|&m| m == t.mv).unwrap_or(usize::MAX));
    let every = tasks.len();
    if let Some(n) = tries {
        // Moves already proved lost (shards on disk) do not use up a try: a rerun goes on
        // to the next `n` moves, so a task whose tries all lose is not stuck open, and
        // once every move is settled the loss is proved.
        let mut left = n;
        tasks.retain(|t| {
            let lost = existing_at(&shard_file(cx.dir, &t.name), &t.position)
                .is_some_and(|d| d.winner != position.to_move);
            let take = lost || left > 0;
            if !lost && take {
                left -= 1;
            }
            take
        });
    }
    let all_tried = tasks.len() == every;
    // A move the side to move wins proves the task: no need for the others.
    let proved = prove_in_order(cx, &tasks, depth - 1, position.to_move);
    let mut results: Vec<Option<Done>> = vec![None; sub.tasks.len()];
    let mut open = false;
    for (t, outcome) in tasks.iter().zip(proved) {
        match outcome {
            Some(Ok(d)) if d.winner == position.to_move => {
                // The other moves' shards are not part of this proof.
                for other in sub.unique().filter(|o| o.index != t.index) {
                    remove_shards(cx.dir, &other.name);
                }
                let single = Plan {
                    root: position.clone(),
                    first: None,
                    tasks: vec![Task {
                        index: 0,
                        ..(*t).clone()
                    }],
                };
                return Ok((single, vec![d]));
            }
            Some(Ok(d)) => results[t.index] = Some(d),
            Some(Err(Attempt::Budget)) => open = true,
            Some(Err(e)) => return Err(e),
            None => open = true,
        }
    }
    if open || !all_tried {
        return Err(Attempt::Budget);
    }
    let done = sub.complete(results);
    Ok((sub, done))
}

/// What a split needs at every level: where shards go, the root they are part of, the
/// search options, and the pool through which idle threads help.
struct Split<'a> {
    dir: &'a Path,
    root: &'a Position,
    opts: &'a Options,
    pool: &'a Pool,
    /// [`Budget::escalate`].
    escalate: u64,
    /// [`Budget::tries`].
    tries: usize,
    /// [`Budget::ladder`], and the whole run's table in MiB (a thread's when it is the
    /// last one working).
    ladder: Option<&'a crate::campaign::ladder::Ladder>,
    whole_mib: usize,
}

impl<'a> Split<'a> {
    fn new(dir: &'a Path, root: &'a Position, opts: &'a Options, pool: &'a Pool) -> Split<'a> {
        Split {
            dir,
            root,
            opts,
            pool,
            escalate: 0,
            tries: 0,
            ladder: None,
            whole_mib: opts.hash_mib,
        }
    }

    /// The same, climbing `ladder` ([`Budget::ladder`]) with at most `whole_mib` of table.
    fn climbing(
        self,
        ladder: Option<&'a crate::campaign::ladder::Ladder>,
        whole_mib: usize,
    ) -> Split<'a> {
        Split {
            ladder,
            whole_mib,
            ..self
        }
    }

    /// The node budget of a search that ranks moves: `--max-nodes`, else the ladder's
    /// ([`crate::campaign::ladder::Ladder::guess_nodes`]), else [`GUESS_NODES`].
    fn guess_nodes(&self) -> u64 {
        (self.opts.max_nodes)
            .or(self.ladder.map(|l| l.guess_nodes()))
            .unwrap_or(GUESS_NODES)
    }

    /// The options of a search that ranks moves within `nodes`: the main table's size,
    /// so that it reuses that memory instead of holding a third table; up the ladder, the
    /// table that `nodes` fill.
    fn guess_options(&self, nodes: u64) -> Options {
        let mut o = Options {
            max_nodes: Some(nodes),
            ..crate::main_search_options(self.opts)
        };
        if self.ladder.is_some() {
            o.hash_mib = o
                .hash_mib
                .min(crate::campaign::memory::table_for_nodes(nodes));
        }
        o
    }

    /// Solves `position` whole into the shard `NAME.cert`: with the run's budget, or up the
    /// ladder, each rung recorded in `DIR/decisions.tsv`. The table a rung may use is this
    /// thread's share, or the whole run's table when no other thread is working.
    fn solve_whole(&self, position: &Position, name: &str) -> Result<Done, Attempt> {
        let Some(ladder) = self.ladder else {
            return solve_position(self.dir, position, name, self.root, self.opts);
        };
        let t = Instant::now();
        let available = || {
            if self.pool.alone() {
                self.whole_mib
            } else {
                self.opts.hash_mib
            }
        };
        let attempt = |rung: crate::campaign::ladder::Rung| {
            let opts = Options {
                max_nodes: Some(rung.nodes),
                hash_mib: rung.table_mib,
                ..self.opts.clone()
            };
            solve_position(self.dir, position, name, self.root, &opts)
        };
        let log = |rung: crate::campaign::ladder::Rung, outcome: &Result<Done, Attempt>| {
            let budget = format!(
                "{}, {} MiB table",
                crate::campaign::decisions::nodes(rung.nodes),
                rung.table_mib
            );
            let outcome = match outcome {
                Ok(d) => format!("{} wins ({} nodes)", d.winner, d.nodes),
                Err(Attempt::Budget) if crate::dfpn::aborted() => "stopped: the run is over".into(),
                Err(Attempt::Budget) if rung.top => "over budget at the top rung".into(),
                Err(Attempt::Budget) => "over budget: next rung".into(),
                Err(Attempt::Failed(e)) => format!("failed: {e}"),
            };
            crate::campaign::decisions::record(self.dir, name, "solve whole", &budget, &outcome);
        };
        let over = |e: &Attempt| matches!(e, Attempt::Budget);
        let halted = crate::dfpn::aborted;
        let mut done = ladder.climb(available, attempt, over, halted, log)?;
        // The time of every rung, so that times.tsv holds what the task cost.
        done.millis = t.elapsed().as_millis() as u64;
        Ok(done)
    }

    /// The same, with [`Budget::escalate`] set to `k`.
    fn escalating(self, k: u64) -> Split<'a> {
        Split {
            escalate: k,
            ..self
        }
    }

    /// The same, with [`Budget::tries`] set to `n`.
    fn trying(self, n: usize) -> Split<'a> {
        Split { tries: n, ..self }
    }
}

/// Proves `tasks` (subtasks `depth` levels above the last) in this order, as a
/// sequential loop would, but shares them with idle threads: they are published in the
/// pool, the owner and any helper claim them one at a time in order, and once one is
/// won by `decisive` (or fails), no further one is started. Returns each task's outcome,
/// `None` for tasks never started. Every started task has finished when this returns,
/// so the caller may remove shards.
fn prove_in_order(
    cx: &Split,
    tasks: &[&Task],
    depth: usize,
    decisive: Color,
) -> Vec<Option<Result<Done, Attempt>>> {
    let list = std::sync::Arc::new(SubList::new(
        tasks
            .iter()
            .map(|t| (t.position.clone(), t.name.clone()))
            .collect(),
        depth,
        decisive,
    ));
    cx.pool.open_list(&list);
    cx.pool.publish(&list);
    while let Some(i) = list.claim() {
        let (position, name) = &list.items[i];
        let outcome = prove_position(cx, position, name, depth);
        list.put(i, outcome);
    }
    cx.pool.withdraw(&list);
    // Helpers may still be on some of them: help elsewhere meanwhile, then collect.
    while list.outstanding() > 0 {
        if !cx.pool.help_once(cx) {
            list.wait_a_little();
        }
    }
    cx.pool.close_list(&list);
    list.take_results()
}

/// Subtasks that idle threads may take over: the published lists of the splits in
/// flight, and how many threads are working (on a task or a subtask).
#[derive(Default)]
pub(crate) struct Pool {
    lists: Mutex<Vec<std::sync::Arc<SubList>>>,
    /// Every split's list until its subtasks are all settled (a published list is
    /// withdrawn once its last subtask is claimed): what the progress line reports.
    open: Mutex<Vec<std::sync::Arc<SubList>>>,
    active: AtomicUsize,
    /// Subtasks solved by a thread other than their owner.
    helped: AtomicUsize,
    /// Every task of the run has been taken by a thread.
    all_taken: std::sync::atomic::AtomicBool,
}

impl Pool {
    /// Whether the calling thread, working, is the only one: every task is taken and no
    /// other thread works (the idle ones only wait for subtasks to help with).
    pub(crate) fn alone(&self) -> bool {
        self.all_taken.load(Ordering::SeqCst) && self.active.load(Ordering::SeqCst) <= 1
    }

    fn lists(&self) -> std::sync::MutexGuard<'_, Vec<std::sync::Arc<SubList>>> {
        self.lists.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn publish(&self, list: &std::sync::Arc<SubList>) {
        self.lists().push(list.clone());
    }

    fn withdraw(&self, list: &std::sync::Arc<SubList>) {
        self.lists().retain(|l| !std::sync::Arc::ptr_eq(l, list));
    }

    fn open_lists(&self) -> std::sync::MutexGuard<'_, Vec<std::sync::Arc<SubList>>> {
        self.open.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn open_list(&self, list: &std::sync::Arc<SubList>) {
        self.open_lists().push(list.clone());
    }

    fn close_list(&self, list: &std::sync::Arc<SubList>) {
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
            levels.push((proved, list.items.len()));
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

    /// Claims and proves one subtask of some published list (the newest with one left),
    /// counting this thread as active meanwhile. `false` when there was none.
    fn help_once(&self, cx: &Split) -> bool {
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
        claim.outcome = Some(prove_position(cx, position, name, list.depth));
        self.helped.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// An idle thread's loop: helps until no thread is working and nothing is published,
    /// or `quit` says the run is over.
    fn help_until_done(&self, cx: &Split, quit: &dyn Fn() -> bool) {
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

/// One split's subtasks, claimed in order.
struct SubList {
    items: Vec<(Position, String)>,
    depth: usize,
    /// A subtask this colour wins ends the list.
    decisive: Color,
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
    fn new(items: Vec<(Position, String)>, depth: usize, decisive: Color) -> SubList {
        let results = items.iter().map(|_| None).collect();
        SubList {
            items,
            depth,
            decisive,
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
    fn claim(&self) -> Option<usize> {
        let mut s = self.state();
        if s.stop || s.next >= self.items.len() {
            return None;
        }
        s.next += 1;
        s.outstanding += 1;
        Some(s.next - 1)
    }

    /// Records subtask `i`'s outcome; a decisive win or a failure settles the list.
    fn put(&self, i: usize, outcome: Result<Done, Attempt>) {
        let mut s = self.state();
        let settles = match &outcome {
            Ok(d) => d.winner == self.decisive,
            Err(Attempt::Budget) => false,
            Err(Attempt::Failed(_)) => true,
        };
        s.stop |= settles;
        s.outstanding -= 1;
        s.results[i] = Some(outcome);
        self.changed.notify_all();
    }

    fn outstanding(&self) -> usize {
        self.state().outstanding
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

    fn wait_a_little(&self) {
        let s = self.state();
        if s.outstanding > 0 {
            let _ = self.changed.wait_timeout(s, Duration::from_millis(20));
        }
    }

    fn take_results(&self) -> Vec<Option<Result<Done, Attempt>>> {
        std::mem::take(&mut self.state().results)
    }
}

/// Removes the shard `NAME` (either form) and every shard nested under it (`NAME.*`).
fn remove_shards(dir: &Path, name: &str) {
    remove_matching(dir, name, true);
}

/// Removes every shard nested under `NAME` (`NAME.*`), keeping `NAME`'s own.
fn remove_nested(dir: &Path, name: &str) {
    remove_matching(dir, name, false);
}

/// Removes the shards nested under `NAME`, and with `own` also `NAME`'s own shard.
fn remove_matching(dir: &Path, name: &str, own: bool) {
    let shards = dir.join("shards");
    let nested = format!("{name}.");
    let Ok(entries) = std::fs::read_dir(&shards) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(file) = file.to_str() else {
            continue;
        };
        let is_own = file == format!("{name}.cert") || file == format!("{name}.cert.zst");
        if (own && is_own)
            || (!is_own
                && file.starts_with(&nested)
                && amazons_format::stored::is_cert_path(&e.path()))
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Writes the manifest of a split task as its shard and checks it.
fn finish_split(
    dir: &Path,
    position: &Position,
    name: &str,
    root: &Position,
    (sub, done): (Plan, Vec<Done>),
    t: Instant,
) -> Result<Done, Attempt> {
    let mut manifest = manifest_of(&sub, &done)?;
    manifest.meta.note = format!("split shard {name} of {}", root.describe());
    let bytes = amazons_format::encode(&manifest).map_err(|e| ShardError::Task {
        task: name.to_string(),
        reason: e.to_string(),
    })?;
    let body = amazons_format::file::verified_body(&bytes).map_err(|e| ShardError::Task {
        task: name.to_string(),
        reason: e.to_string(),
    })?;
    let hash = amazons_format::hash_body(body);
    let path = shard_file(dir, name);
    write_cert(&path, &bytes)?;
    if existing_at(&path, position).is_none() {
        return Err(ShardError::Task {
            task: name.to_string(),
            reason: "the checker rejected the split task's manifest (a solver bug)".into(),
        }
        .into());
    }
    Ok(Done {
        winner: manifest.root.winner,
        hash,
        nodes: manifest.meta.nodes,
        millis: t.elapsed().as_millis() as u64,
        bytes: bytes.len() as u64,
        resumed: false,
        mirror_of: None,
    })
}

/// Solves every task not yet on disk, on `threads` threads (each with `hash_mib /
/// threads` of table), reporting progress; then writes the manifest. Returns the
/// manifest and the per-task results. Tasks over the node budget fail the run.
pub fn run(
    plan: &Plan,
    dir: &Path,
    opts: &Options,
    threads: usize,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<(Certificate, Vec<Done>), ShardError> {
    let budget = Budget {
        threads,
        ..Budget::default()
    };
    run_with(plan, dir, opts, budget, progress)
}

/// [`run`] with a per-task node budget (`opts.max_nodes`) and splitting: a task over the
/// budget is split `budget.split_depth` levels deep, else left open; the other tasks go
/// on, and a run with open tasks ends with [`ShardError::Unfinished`] and no manifest
/// (its finished shards stay on disk for the next run).
pub fn run_with(
    plan: &Plan,
    dir: &Path,
    opts: &Options,
    budget: Budget,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<(Certificate, Vec<Done>), ShardError> {
    plan.check_only(&budget.only)?;
    // Never mix this plan's shards into another campaign's directory.
    crate::campaign::safety::check_plan(dir, plan)?;
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
        let ranked = crate::campaign::order::task_order(plan, dir, opts, &budget);
        work.sort_by_key(|t| ranked.iter().position(|&m| m == t.mv));
    }
    tried_last(&mut work, dir);
    // Tasks with a shard on disk first: they only need checking, so the progress line soon
    // counts them all and its estimate covers only the work left.
    work.sort_by_key(|t| on_disk(&plan.shard_path(dir, t)).is_none());
    // Without a fixed first move, one task the side to move wins settles the root: no
    // further tasks are started once one is found.
    let settled = std::sync::atomic::AtomicBool::new(false);
    // Set once the root is settled or a task failed: the searches in flight stop (and the
    // ladder climbs no further), as their tasks are no longer needed.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let threads = budget.threads.max(1).min(work.len());
    let searched = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let per_thread = Options {
        hash_mib: (opts.hash_mib / threads).max(1),
        progress: false,
        live_nodes: Some(searched.clone()),
        ..opts.clone()
    };
    let results: Mutex<Vec<Option<Done>>> = Mutex::new(vec![None; plan.tasks.len()]);
    let pool = Pool::default();
    let open = AtomicUsize::new(0);
    let next = AtomicUsize::new(0);
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
        progress(&Progress {
            done: done.len(),
            total: work.len(),
            resumed: done.iter().filter(|d| d.resumed).count(),
            nodes: done.iter().filter(|d| !d.resumed).map(|d| d.nodes).sum(),
            searched: searched.load(Ordering::Relaxed),
            elapsed: start.elapsed(),
            last: last.clone(),
            running: running
                .lock()
                .unwrap_or_else(|p| p.into_inner())
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
                })
                .collect(),
            helped: pool.helped.load(Ordering::Relaxed),
            finished: finished.is_some(),
        });
    };
    let workers_done = std::sync::atomic::AtomicBool::new(false);
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
                    crate::tt::keep_entries(budget.shared_table);
                    crate::dfpn::abort_on(Some(stop.clone()));
                    let cx = Split::new(dir, &plan.root, &per_thread, &pool)
                        .escalating(budget.escalate)
                        .trying(budget.tries)
                        .climbing(budget.ladder.as_ref(), opts.hash_mib);
                    let quit = || {
                        first_error.lock().map(|e| e.is_some()).unwrap_or(true)
                            || settled.load(Ordering::SeqCst)
                    };
                    // Counted before taking a task, so an idle thread never sees nobody
                    // working while a task is being taken.
                    pool.active.fetch_add(1, Ordering::SeqCst);
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&task) = work.get(i).filter(|_| !quit()) else {
                        pool.all_taken.store(true, Ordering::SeqCst);
                        // Its tables go back to the system: the last task may take the
                        // whole table.
                        crate::tt::release_spare();
                        pool.active.fetch_sub(1, Ordering::SeqCst);
                        // No task left for this thread: it helps with the subtasks of
                        // the split tasks still running.
                        pool.help_until_done(&cx, &quit);
                        break;
                    };
                    if let Ok(mut r) = running.lock() {
                        r.push((task.index, task.name.clone(), Instant::now()));
                    }
                    if on_disk(&plan.shard_path(dir, task)).is_none() {
                        append_line(dir, STARTED_FILE, &task.name);
                    }
                    let outcome =
                        prove_position(&cx, &task.position, &task.name, budget.split_depth);
                    pool.active.fetch_sub(1, Ordering::SeqCst);
                    if let Ok(mut r) = running.lock() {
                        r.retain(|(i, _, _)| *i != task.index);
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
                                crate::campaign::decisions::record(
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
                            crate::campaign::decisions::record(
                                dir,
                                &task.name,
                                "task left open",
                                "-",
                                why,
                            );
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
        let single = Plan {
            root: plan.root.clone(),
            first: None,
            tasks: vec![Task {
                index: 0,
                ..task.clone()
            }],
        };
        let done = vec![done.clone()];
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
    let done = plan.complete(results);
    let manifest = assemble(plan, dir, &done)?;
    Ok((manifest, done))
}
