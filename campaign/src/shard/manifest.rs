//! The manifest of a sharded result: collected from the shards on disk, built, written as DIR/manifest.cert and manifest.md.

use super::*;

/// Reads every task's shard from disk (for tasks solved elsewhere, e.g. by GNU parallel).
pub fn collect(plan: &Plan, dir: &Path) -> Result<Vec<Done>, ShardError> {
    gather(plan, dir, |path, task| {
        existing(path, task).ok_or_else(|| ShardError::MissingShard(path.to_path_buf()))
    })
}

/// The plan and results of the manifest that the shards on disk make, each shard read
/// without checking it ([`read_shard`]; the caller checks the manifest, which checks every
/// shard it cites): without a fixed first move, the first task (in task order) whose shard
/// is won by the side to move, alone ([`won_by`], as the run that found it wrote the
/// manifest); else every task's shard. So `amazons manifest` rebuilds a result that a run
/// settled with one winning first move, whose other tasks were never solved.
pub fn collect_result(plan: &Plan, dir: &Path) -> Result<(Plan, Vec<Done>), ShardError> {
    if plan.first.is_none() {
        for task in plan.unique() {
            let path = plan.shard_path(dir, task);
            if on_disk(&path).is_none() {
                continue;
            }
            let done = read_shard(&path, task)?;
            if done.winner == plan.root.to_move {
                return Ok(won_by(plan, task, done));
            }
        }
    }
    Ok((plan.clone(), gather(plan, dir, read_shard)?))
}

/// A task's shard as it is on disk, read but not checked: its body hash, claim and
/// metadata. Errors name the file when it is missing, unreadable, damaged (its body hash
/// does not match) or proves another position than the task's.
pub fn read_shard(path: &Path, task: &Task) -> Result<Done, ShardError> {
    let file = on_disk(path).ok_or_else(|| ShardError::MissingShard(path.to_path_buf()))?;
    let unreadable = |reason: String| ShardError::Task {
        task: task.name.clone(),
        reason: format!("{}: {reason}", file.display()),
    };
    let bytes = amazons_format::stored::read(&file).map_err(|e| unreadable(e.to_string()))?;
    let cert = amazons_format::decode(&bytes).map_err(|e| unreadable(e.to_string()))?;
    let body =
        amazons_format::file::verified_body(&bytes).map_err(|e| unreadable(e.to_string()))?;
    if cert.root.position != task.position || cert.root.spare != 0 {
        return Err(unreadable(format!(
            "proves another position ({}) than its task's",
            cert.root.position.grid()
        )));
    }
    Ok(Done {
        winner: cert.root.winner,
        hash: amazons_format::hash_body(body),
        nodes: cert.meta.nodes,
        millis: cert.meta.millis,
        bytes: bytes.len() as u64,
        resumed: true,
        mirror_of: None,
    })
}

/// The one-task plan and result of a root settled by `task`, a move the side to move wins:
/// its manifest plays the move and cites the task's shard alone.
pub(crate) fn won_by(plan: &Plan, task: &Task, done: Done) -> (Plan, Vec<Done>) {
    let single = Plan {
        root: plan.root.clone(),
        first: None,
        tasks: vec![Task {
            index: 0,
            ..task.clone()
        }],
    };
    (single, vec![done])
}

/// The results with each shard as it is on disk now: a shard replaced while the run went
/// on (by `amazons shrink` beside it) is read and checked again, so that the manifest
/// cites the bytes on disk.
pub(crate) fn refresh(
    plan: &Plan,
    dir: &Path,
    mut results: Vec<Option<Done>>,
) -> Result<Vec<Option<Done>>, ShardError> {
    for (task, slot) in plan.tasks.iter().zip(results.iter_mut()) {
        let Some(done) = slot.as_mut() else {
            continue;
        };
        let path = plan.shard_path(dir, task);
        let now = on_disk(&path)
            .and_then(|f| amazons_format::stored::read(&f).ok())
            .and_then(|bytes| {
                let body = amazons_format::file::verified_body(&bytes).ok()?;
                Some(amazons_format::hash_body(body))
            });
        if now != Some(done.hash) {
            *done = existing(&path, task).ok_or_else(|| ShardError::MissingShard(path.clone()))?;
        }
    }
    Ok(results)
}

/// Whether `DIR/manifest.cert` no longer cites the shards on disk (one was replaced since
/// it was written, e.g. by `amazons shrink` stopped before it wrote the manifest again),
/// or cannot be read. Compares body hashes only; nothing is checked.
pub fn manifest_stale(plan: &Plan, dir: &Path) -> bool {
    let cited: Option<Vec<[u8; 32]>> = (|| {
        let bytes = amazons_format::stored::read(&on_disk(&dir.join("manifest.cert"))?).ok()?;
        let manifest = amazons_format::decode(&bytes).ok()?;
        let mut v = cited_hashes(&manifest);
        v.sort_unstable();
        Some(v)
    })();
    let on_disk_now: Option<Vec<[u8; 32]>> = plan
        .unique()
        .map(|t| shard_hash(&plan.shard_path(dir, t)))
        .collect::<Option<Vec<_>>>()
        .map(|mut v| {
            v.sort_unstable();
            v
        });
    match (cited, on_disk_now) {
        (Some(c), Some(d)) => c != d,
        _ => true,
    }
}

/// The body hash of the shard at `path` (or its `.zst`), if it can be read; nothing is
/// checked.
fn shard_hash(path: &Path) -> Option<[u8; 32]> {
    let bytes = amazons_format::stored::read(&on_disk(path)?).ok()?;
    Some(amazons_format::hash_body(
        amazons_format::file::verified_body(&bytes).ok()?,
    ))
}

/// The body hashes of the shards a manifest cites at its top level.
fn cited_hashes(manifest: &Certificate) -> Vec<[u8; 32]> {
    (manifest.steps.iter())
        .filter_map(|s| match s {
            Step::Shard { hash } => Some(*hash),
            _ => None,
        })
        .collect()
}

/// The names of the tasks (mirror images excluded) whose shard on disk `manifest` cites:
/// every task when the side to move loses, the winning move's task when it wins.
pub fn cited_tasks(plan: &Plan, dir: &Path, manifest: &Certificate) -> Vec<String> {
    let cited = cited_hashes(manifest);
    plan.unique()
        .filter(|t| shard_hash(&plan.shard_path(dir, t)).is_some_and(|h| cited.contains(&h)))
        .map(|t| t.name.clone())
        .collect()
}

/// Every task's result, each solved task's read by `read` from its shard path; mirrored
/// tasks copy the task they mirror.
fn gather(
    plan: &Plan,
    dir: &Path,
    mut read: impl FnMut(&Path, &Task) -> Result<Done, ShardError>,
) -> Result<Vec<Done>, ShardError> {
    let mut results = Vec::with_capacity(plan.tasks.len());
    for task in &plan.tasks {
        results.push(match task.mirror {
            Some(_) => None,
            None => Some(read(&plan.shard_path(dir, task), task)?),
        });
    }
    Ok(plan.complete(results))
}

/// The manifest certificate of a plan from its tasks' results (in task order).
pub fn manifest_of(plan: &Plan, done: &[Done]) -> Result<Certificate, ShardError> {
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
    Ok(Certificate {
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
    })
}

/// Builds the manifest from the tasks' results (in task order) and writes
/// `DIR/manifest.cert` and `DIR/manifest.md`.
pub fn assemble(plan: &Plan, dir: &Path, done: &[Done]) -> Result<Certificate, ShardError> {
    let manifest = manifest_of(plan, done)?;
    write_manifest(plan, dir, done, &manifest)?;
    Ok(manifest)
}

/// Writes `manifest`, built by [`manifest_of`] from `done`, as `DIR/manifest.cert` and
/// `DIR/manifest.md` (for a caller that checks a manifest before it writes it).
pub fn write_manifest(
    plan: &Plan,
    dir: &Path,
    done: &[Done],
    manifest: &Certificate,
) -> Result<(), ShardError> {
    let bytes = amazons_format::encode(manifest).map_err(|e| ShardError::Task {
        task: "manifest".into(),
        reason: e.to_string(),
    })?;
    write_cert(&dir.join("manifest.cert"), &bytes)?;
    write_md(plan, dir, done, &manifest.root)
}

/// Removes `DIR/manifest.cert` (either form) and `DIR/manifest.md`, where they are: for a
/// run whose manifest, written as the run ended, did not check.
pub fn remove_manifest(dir: &Path) -> Result<(), ShardError> {
    let cert = dir.join("manifest.cert");
    let zst = amazons_format::stored::compressed_path(&cert);
    for path in [cert, zst, dir.join("manifest.md")] {
        if path.is_file() {
            std::fs::remove_file(&path).map_err(|e| ShardError::Io(path.clone(), e))?;
        }
    }
    Ok(())
}

/// Writes `DIR/manifest.md`: the manifest's claim and a row per task (its move, winner,
/// nodes, time, shard bytes and body hash).
fn write_md(plan: &Plan, dir: &Path, done: &[Done], root: &Claim) -> Result<(), ShardError> {
    let board = plan.root.board;
    let mut md = format!(
        "# Manifest: {}\n\nClaim: {}. Generated by `amazons solve --shards` / `amazons manifest`. Times are what a task's searches cost: the time of the run that solved it (for tasks an earlier run solved, as recorded in `times.tsv`), or, where larger, the sum of its lines in `spent.tsv`, which also holds its rungs and subtasks in earlier runs (`-`: not recorded, e.g. solved elsewhere).\n\n| task | move | winner | nodes | ms | bytes | blake3 |\n|---|---|---|---|---|---|---|\n",
        plan.root.describe(),
        root.describe()
    );
    let recorded = recorded_times(dir);
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
        let hash = amazons_solver::db::store::hex(&d.hash);
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | `{}` |\n",
            t.name,
            t.mv.notation(board),
            d.winner,
            d.nodes,
            match (d.resumed, recorded.get(&t.name)) {
                (false, ms) => d.millis.max(ms.copied().unwrap_or(0)).to_string(),
                (true, Some(ms)) => ms.to_string(),
                (true, None) => "-".to_string(),
            },
            d.bytes,
            hash
        ));
    }
    write_atomic(&dir.join("manifest.md"), md.as_bytes())
}

/// Rewrites `DIR/manifest.md` of a finished sharded result from the shard files on disk,
/// without checking them: for a caller that has just checked them all, as `amazons compact`
/// has after rewriting them (new bytes and hashes). Nodes and times stay those of the solve
/// (shard metadata and `times.tsv`).
pub fn rewrite_md(dir: &Path) -> Result<(), ShardError> {
    let plan = Plan::read(dir)?;
    let done = gather(&plan, dir, read_shard)?;
    let manifest = manifest_of(&plan, &done)?;
    write_md(&plan, dir, &done, &manifest.root)
}
