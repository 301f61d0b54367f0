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

    /// The tasks that are solved (each has a shard): those that mirror no earlier task.
    pub fn unique(&self) -> impl Iterator<Item = &Task> {
        self.tasks.iter().filter(|t| t.mirror.is_none())
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

/// Progress of a sharded solve.
#[derive(Debug, Clone)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub resumed: usize,
    pub nodes: u64,
    pub elapsed: Duration,
    pub last: String,
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
            "tasks {}/{} ({} resumed), {} nodes, {:.0} nodes/s, {:.1} s elapsed, {left}; last {}",
            self.done,
            self.total,
            self.resumed,
            self.nodes,
            self.nodes as f64 / secs,
            secs,
            self.last
        )
    }
}

/// Reads a shard that is already on disk if it checks and proves the task's position.
pub fn existing(path: &Path, task: &Task) -> Option<Done> {
    let bytes = std::fs::read(path).ok()?;
    let cert = amazons_format::decode(&bytes).ok()?;
    if cert.root.position != task.position || cert.root.spare != 0 {
        return None;
    }
    amazons_checker::check(&cert).ok()?;
    let body = amazons_format::file::verified_body(&bytes).ok()?;
    Some(Done {
        winner: cert.root.winner,
        hash: amazons_format::hash_body(body),
        nodes: cert.meta.nodes,
        millis: cert.meta.millis,
        bytes: bytes.len() as u64,
        resumed: true,
        mirror_of: None,
    })
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

/// Solves one task and writes its shard, checked, atomically.
pub fn solve_task(
    plan: &Plan,
    dir: &Path,
    task: &Task,
    opts: &Options,
) -> Result<Done, ShardError> {
    let fail = |reason: String| ShardError::Task {
        task: task.name.clone(),
        reason,
    };
    let note = format!("shard {} of {}", task.name, plan.root.describe());
    let t = Instant::now();
    let mut solved = crate::solve(&task.position, opts, &note).map_err(|e| fail(e.to_string()))?;
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
    write_atomic(&plan.shard_path(dir, task), &bytes)?;
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

/// Solves every task not yet on disk, on `threads` threads (each with `hash_mib /
/// threads` of table), reporting progress; then writes the manifest. Returns the
/// manifest and the per-task results.
pub fn run(
    plan: &Plan,
    dir: &Path,
    opts: &Options,
    threads: usize,
    progress: &(dyn Fn(&Progress) + Sync),
) -> Result<(Certificate, Vec<Done>), ShardError> {
    let shards = dir.join("shards");
    std::fs::create_dir_all(&shards).map_err(|e| ShardError::Io(shards.clone(), e))?;
    let work: Vec<&Task> = plan.unique().collect();
    let threads = threads.max(1).min(work.len());
    let per_thread = Options {
        hash_mib: (opts.hash_mib / threads).max(1),
        progress: false,
        ..opts.clone()
    };
    let results: Mutex<Vec<Option<Done>>> = Mutex::new(vec![None; plan.tasks.len()]);
    let next = AtomicUsize::new(0);
    let first_error: Mutex<Option<ShardError>> = Mutex::new(None);
    let start = Instant::now();
    let report = |last: &str| {
        let r = results.lock().unwrap_or_else(|p| p.into_inner());
        let done: Vec<&Done> = r.iter().flatten().collect();
        progress(&Progress {
            done: done.len(),
            total: work.len(),
            resumed: done.iter().filter(|d| d.resumed).count(),
            nodes: done.iter().filter(|d| !d.resumed).map(|d| d.nodes).sum(),
            elapsed: start.elapsed(),
            last: last.to_string(),
        });
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(&task) = work.get(i) else { break };
                if first_error.lock().map(|e| e.is_some()).unwrap_or(true) {
                    break;
                }
                let path = plan.shard_path(dir, task);
                let outcome = match existing(&path, task) {
                    Some(done) => Ok(done),
                    None => solve_task(plan, dir, task, &per_thread),
                };
                match outcome {
                    Ok(done) => {
                        let line =
                            format!("{} ({} wins, {} ms)", task.name, done.winner, done.millis);
                        if let Ok(mut r) = results.lock() {
                            r[task.index] = Some(done);
                        }
                        report(&line);
                    }
                    Err(e) => {
                        if let Ok(mut slot) = first_error.lock() {
                            slot.get_or_insert(e);
                        }
                        break;
                    }
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let done = plan.complete(results.into_inner().unwrap_or_else(|p| p.into_inner()));
    let manifest = assemble(plan, dir, &done)?;
    Ok((manifest, done))
}

/// Reads every task's shard from disk (for tasks solved elsewhere, e.g. by GNU parallel).
pub fn collect(plan: &Plan, dir: &Path) -> Result<Vec<Done>, ShardError> {
    let mut results = Vec::with_capacity(plan.tasks.len());
    for task in &plan.tasks {
        if task.mirror.is_some() {
            results.push(None);
            continue;
        }
        let path = plan.shard_path(dir, task);
        results.push(Some(
            existing(&path, task).ok_or(ShardError::MissingShard(path))?,
        ));
    }
    Ok(plan.complete(results))
}

/// Builds the manifest from the tasks' results (in task order) and writes
/// `DIR/manifest.cert` and `DIR/manifest.md`.
pub fn assemble(plan: &Plan, dir: &Path, done: &[Done]) -> Result<Certificate, ShardError> {
    let board = plan.root.board;
    let mover = plan.root.to_move;
    // A task's step: its shard, or a transposition onto the earlier task it mirrors (whose
    // claim the checker has proven by then: tasks follow the checker's move order).
    let step = |t: &Task, d: &Done| match t.mirror {
        Some((_, symmetry)) => Step::Transposition { symmetry },
        None => Step::Shard { hash: d.hash },
    };
    let (winner, steps) = match plan.first {
        // X plays the first move; every reply must be a task X wins.
        Some(first) => {
            if let Some((t, _)) = plan.tasks.iter().zip(done).find(|(_, d)| d.winner != mover) {
                return Err(ShardError::Refuted(t.mv.notation(board)));
            }
            let mut steps = vec![Step::Choice(Action::Board(first)), Step::ReplyAll];
            steps.extend(plan.tasks.iter().zip(done).map(|(t, d)| step(t, d)));
            (mover, steps)
        }
        None => match plan
            .tasks
            .iter()
            .zip(done)
            .find(|(t, d)| d.winner == mover && t.mirror.is_none())
        {
            // A winning move for the side to move: cite its shard alone.
            Some((t, d)) => (mover, vec![Step::Choice(Action::Board(t.mv)), step(t, d)]),
            // Every move loses: the opponent wins, reply by reply.
            None => {
                let mut steps = vec![Step::ReplyAll];
                steps.extend(plan.tasks.iter().zip(done).map(|(t, d)| step(t, d)));
                (mover.opponent(), steps)
            }
        },
    };
    let nodes = done
        .iter()
        .filter(|d| d.mirror_of.is_none())
        .map(|d| d.nodes)
        .sum();
    let millis = 0;
    let manifest = Certificate {
        root: Claim {
            position: plan.root.clone(),
            spare: 0,
            winner,
        },
        steps,
        meta: Meta {
            producer: format!("amazons-solver {} (sharded)", env!("CARGO_PKG_VERSION")),
            nodes,
            millis,
            note: format!(
                "manifest of {} tasks ({} solved, the rest by symmetry)",
                plan.tasks.len(),
                plan.unique().count()
            ),
        },
    };
    let bytes = amazons_format::encode(&manifest).map_err(|e| ShardError::Task {
        task: "manifest".into(),
        reason: e.to_string(),
    })?;
    write_atomic(&dir.join("manifest.cert"), &bytes)?;
    let mut md = format!(
        "# Manifest: {}\n\nClaim: {}. Generated by `amazons solve --shards` / `amazons manifest`. Times are of the run that solved the task (`-`: solved by an earlier run or elsewhere).\n\n| task | move | winner | nodes | ms | bytes | blake3 |\n|---|---|---|---|---|---|---|\n",
        plan.root.describe(),
        manifest.root.describe()
    );
    for (t, d) in plan.tasks.iter().zip(done) {
        if let Some((j, symmetry)) = t.mirror {
            md.push_str(&format!(
                "| {} | {} | {} | - | - | - | mirror of {} ({symmetry:?}) |\n",
                t.name,
                t.mv.notation(board),
                d.winner,
                plan.tasks[j].name
            ));
            continue;
        }
        let hash: String = d.hash.iter().map(|b| format!("{b:02x}")).collect();
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | `{}` |\n",
            t.name,
            t.mv.notation(board),
            d.winner,
            d.nodes,
            if d.resumed {
                "-".to_string()
            } else {
                d.millis.to_string()
            },
            d.bytes,
            hash
        ));
    }
    write_atomic(&dir.join("manifest.md"), md.as_bytes())?;
    Ok(manifest)
}
