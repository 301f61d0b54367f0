//! Safe campaign directories: a run refuses another plan's directory or one another run holds, sets damaged shards aside by name, and checks an output path before solving.

use super::decisions;
use crate::shard::{on_disk, Done, Plan, ShardError, PLAN_FILE};
use crate::verified::RunShards;
use amazons_format::{Position, Step};
use std::path::{Path, PathBuf};

/// The folder of a campaign directory to which damaged or altered shards are moved.
pub const DAMAGED_DIR: &str = "damaged";

/// A plan as one line: the root and the first move.
pub fn describe(plan: &Plan) -> String {
    match plan.first {
        Some(m) => format!(
            "{}, first move {}",
            plan.root.describe(),
            m.notation(plan.root.board)
        ),
        None => format!("{}, no first move", plan.root.describe()),
    }
}

/// Refuses a directory whose `plan.txt` records another root or first move than `plan`
/// (or cannot be read): the run would mix its shards with another campaign's. A directory
/// without a plan file is new (or holds no campaign yet) and is accepted.
pub fn check_plan(dir: &Path, plan: &Plan) -> Result<(), ShardError> {
    if !dir.join(PLAN_FILE).exists() {
        return Ok(());
    }
    let theirs = Plan::read(dir)?;
    if theirs.root == plan.root && theirs.first == plan.first {
        return Ok(());
    }
    Err(ShardError::OtherPlan {
        dir: dir.to_path_buf(),
        theirs: describe(&theirs),
        ours: describe(plan),
    })
}

/// The file of a campaign directory that a run holds a lock on while it works
/// ([`hold`]); it names the last run that took the lock.
pub const LOCK_FILE: &str = "run.lock";

/// A run's hold on its campaign directory ([`hold`]), released when dropped or when the
/// process ends, however it ends.
#[derive(Debug)]
pub struct Hold {
    _file: std::fs::File,
    /// Why the directory is not locked, where its file system cannot lock files (some
    /// network file systems): the run goes on, but another run there is not refused.
    pub unguarded: Option<String>,
}

/// Takes the lock of campaign directory `dir` (which exists) for a run: `shared` for a
/// run of chosen tasks (`--only`, as `amazons tasks` lists them for GNU parallel or a job
/// array: such runs work side by side on their own tasks), else exclusive, as a run of
/// every task would do the same work as any other run in `dir` and mix its records with
/// theirs. Refused while another run holds it in a way that excludes this one, naming
/// the holder as the lock file records it. The lock is the operating system's (`flock`),
/// so a run that was killed holds nothing.
pub fn hold(dir: &Path, shared: bool) -> Result<Hold, ShardError> {
    hold_with(dir, |file| {
        if shared {
            file.try_lock_shared()
        } else {
            file.try_lock()
        }
    })
}

/// [`hold`], locking the lock file with `lock`.
fn hold_with(
    dir: &Path,
    lock: impl FnOnce(&std::fs::File) -> Result<(), std::fs::TryLockError>,
) -> Result<Hold, ShardError> {
    use std::io::Write;
    let path = dir.join(LOCK_FILE);
    let io = |e| ShardError::Io(path.clone(), e);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    let unguarded = match lock(&file) {
        Ok(()) => None,
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            let holder = holder.trim();
            return Err(ShardError::InUse {
                dir: dir.to_path_buf(),
                holder: if holder.is_empty() {
                    "another run".into()
                } else {
                    holder.to_string()
                },
            });
        }
        Err(std::fs::TryLockError::Error(e)) => Some(format!(
            "{} cannot be locked ({e}): another run in {} will not be refused",
            path.display(),
            dir.display()
        )),
    };
    // Who holds it now, for the message of a run refused meanwhile.
    let line = format!("pid {}, since {}", std::process::id(), decisions::utc_now());
    file.set_len(0).map_err(io)?;
    file.write_all(line.as_bytes()).map_err(io)?;
    Ok(Hold {
        _file: file,
        unguarded,
    })
}

/// What is on disk for a shard.
#[derive(Debug)]
pub enum Found {
    /// No file.
    Missing,
    /// A shard that checks and proves the position.
    Good(Done),
    /// A file that does not: unreadable, of another position, or rejected by the checker.
    Damaged { file: PathBuf, reason: String },
}

/// Reads the shard `path` (either form) and checks that it proves `position` (a split
/// task's shard is a manifest of the subtask shards beside it, checked with them). Shards
/// already in the run's `verified.tsv` are not checked again.
pub fn examine(path: &Path, position: &Position) -> Found {
    examine_as(path, position, true)
}

/// Whether the shard `path` (either form) is on disk for `position`: read, decoded, its
/// body hash confirmed, its claim of `position`, and every shard it cites on disk, but not
/// checked (a figure of progress, not a result).
pub fn stored_for(path: &Path, position: &Position) -> bool {
    matches!(examine_as(path, position, false), Found::Good(_))
}

/// [`examine`], with the checker (`check`) or without it: read, decoded, its body hash
/// confirmed, its claim of `position`, and every shard it cites on disk.
fn examine_as(path: &Path, position: &Position, check: bool) -> Found {
    let Some(file) = on_disk(path) else {
        return Found::Missing;
    };
    let damaged = |reason: String| Found::Damaged {
        file: file.clone(),
        reason,
    };
    let bytes = match amazons_format::stored::read(&file) {
        Ok(b) => b,
        Err(e) => return damaged(format!("unreadable: {e}")),
    };
    let cert = match amazons_format::decode(&bytes) {
        Ok(c) => c,
        Err(e) => return damaged(format!("not a certificate: {e}")),
    };
    if &cert.root.position != position || cert.root.spare != 0 {
        return damaged(format!(
            "proves another position ({}) than its task's",
            cert.root.position.grid()
        ));
    }
    let body = match amazons_format::file::verified_body(&bytes) {
        Ok(b) => b,
        Err(e) => return damaged(format!("damaged: {e}")),
    };
    let hash = amazons_format::hash_body(body);
    // The run directory: the shard lies in its `shards/`.
    let Some(run) = file.parent().and_then(Path::parent) else {
        return damaged("not inside a run directory's shards/".into());
    };
    // A split task's shard cites subtask shards: each must still be on disk, even when
    // the shard itself was checked by an earlier run (verified.tsv remembers its hash, not
    // the files it needs).
    if cert.steps.iter().any(|s| matches!(s, Step::Shard { .. })) {
        let shards = amazons_checker::cli::DirShards::scan(&run.join("shards"));
        if let Some(missing) = missing_shard(&cert, &shards, 0) {
            return damaged(format!("cites a shard that is not on disk: {missing}"));
        }
    }
    if check && !crate::verified::is_checked(run, &hash) {
        if let Err(reason) = check_and_record(run, &cert, &hash, RunShards::new(run)) {
            return damaged(reason);
        }
    }
    Found::Good(Done {
        winner: cert.root.winner,
        hash,
        nodes: cert.meta.nodes,
        millis: cert.meta.millis,
        bytes: bytes.len() as u64,
        resumed: true,
        mirror_of: None,
    })
}

/// The first shard that `cert` cites, directly or through the shards it cites, whose file
/// is not on disk or cannot be read (by its hash or path), if any. Nesting deeper than the
/// checker's limit is left to the checker.
fn missing_shard(
    cert: &amazons_format::Certificate,
    shards: &amazons_checker::cli::DirShards,
    depth: usize,
) -> Option<String> {
    if depth > 8 {
        return None;
    }
    for step in &cert.steps {
        let Step::Shard { hash } = step else {
            continue;
        };
        let Some(path) = shards.path(hash) else {
            return Some(hash.iter().map(|b| format!("{b:02x}")).collect());
        };
        let sub = amazons_format::stored::read(path)
            .ok()
            .and_then(|b| amazons_format::decode(&b).ok());
        match sub {
            None => return Some(format!("{} (unreadable)", path.display())),
            Some(sub) => {
                if let Some(m) = missing_shard(&sub, shards, depth + 1) {
                    return Some(m);
                }
            }
        }
    }
    None
}

/// The shard of task `name` at `path`, if it is on disk and proves `position`, taken as
/// it is: read, its body hash and claim confirmed and the shards it cites on disk, but
/// not checked, so that a resumed run starts at once; the run's final check checks it
/// with every other shard it did not check itself (a run that ends unfinished, as most
/// runs of a long campaign do, spends nothing on it). It is remembered for
/// [`set_aside_rejected`]. A file that does not prove `position` is moved to
/// `DIR/damaged/` (never overwritten there), named on stderr and in `DIR/decisions.tsv`,
/// so that the task is solved again without losing the evidence.
pub fn resume(dir: &Path, path: &Path, name: &str, position: &Position) -> Option<Done> {
    match examine_as(path, position, false) {
        Found::Good(done) => {
            let mut resumed = RESUMED.lock().unwrap_or_else(|p| p.into_inner());
            resumed.push((dir.to_path_buf(), name.to_string()));
            Some(done)
        }
        Found::Missing => None,
        Found::Damaged { file, reason } => {
            damaged_shard(dir, name, &file, &reason);
            None
        }
    }
}

/// The shards [`resume`] took without the checker: run directory and task name.
static RESUMED: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());

/// Checks in full every shard of `dir` that [`resume`] took without the checker (those of
/// task `under` and its subtasks, or all of them), the deepest subtasks first, and moves
/// each one the checker rejects aside as [`resume`] moves a damaged one (a split task's
/// shard citing it is then rejected too, and set aside: its split is recorded, so only
/// the rejected subtask is solved again). For a check that failed on shards this run did
/// not write. Returns the names of the tasks so set aside.
pub fn set_aside_rejected(dir: &Path, under: Option<&str>) -> Vec<String> {
    let mut taken: Vec<String> = {
        let resumed = RESUMED.lock().unwrap_or_else(|p| p.into_inner());
        (resumed.iter())
            .filter(|(d, name)| {
                d == dir && under.is_none_or(|u| name == u || name.starts_with(&format!("{u}.")))
            })
            .map(|(_, name)| name.clone())
            .collect()
    };
    taken.sort_by(|a, b| (b.matches('.').count(), a).cmp(&(a.matches('.').count(), b)));
    taken.dedup();
    taken.retain(|name| !recheck(dir, name));
    taken
}

/// Whether the shard of task `name` may be acted on: `true` unless [`resume`] took it
/// without the checker and the checker now rejects it (it is then moved aside, as
/// [`set_aside_rejected`] does). For a resumed shard whose claim decides something, such
/// as refuting a split's guess (whose other shards are then removed) or a fixed first
/// move: the checker sees it first.
pub fn confirm(dir: &Path, name: &str) -> bool {
    let taken = {
        let resumed = RESUMED.lock().unwrap_or_else(|p| p.into_inner());
        (resumed.iter()).any(|(d, n)| d == dir && n == name)
    };
    !taken || recheck(dir, name)
}

/// Checks the shard of task `name` in `dir` in full, if it is on disk: `false` when the
/// checker rejects it, which then moves it aside by name.
fn recheck(dir: &Path, name: &str) -> bool {
    let Some(file) = on_disk(&dir.join("shards").join(format!("{name}.cert"))) else {
        return true;
    };
    let checked = check_in_full(dir, &file);
    if let Err(reason) = &checked {
        damaged_shard(dir, name, &file, reason);
    }
    checked.is_ok()
}

/// Checks the shard `file` of run directory `dir` with the checker, trusting only the
/// shards this process checked in full (not `verified.tsv`), and records it as checked.
fn check_in_full(dir: &Path, file: &Path) -> Result<(), String> {
    let bytes = amazons_format::stored::read(file).map_err(|e| format!("unreadable: {e}"))?;
    let cert = amazons_format::decode(&bytes).map_err(|e| format!("not a certificate: {e}"))?;
    let body = amazons_format::file::verified_body(&bytes).map_err(|e| format!("damaged: {e}"))?;
    let hash = amazons_format::hash_body(body);
    check_and_record(dir, &cert, &hash, RunShards::checked_here_only(dir))
}

/// Checks `cert`, the shard with body hash `hash` in run directory `dir`, with `shards`,
/// and records it as checked (in this process too when the check was one in full).
fn check_and_record(
    dir: &Path,
    cert: &amazons_format::Certificate,
    hash: &[u8; 32],
    shards: RunShards,
) -> Result<(), String> {
    let mut report = amazons_checker::check_with(cert, &shards)
        .map_err(|e| format!("rejected by the checker: {e}"))?;
    crate::verified::mark_checked(dir, hash);
    if shards.complete(&mut report) {
        crate::verified::mark_checked_here(hash, &report);
    }
    Ok(())
}

/// Moves the shard `file` of task `name` aside, naming it and what was done on stderr and
/// in `DIR/decisions.tsv`.
fn damaged_shard(dir: &Path, name: &str, file: &Path, reason: &str) {
    let outcome = match set_aside(dir, file) {
        Ok(to) => format!("moved to {}; solved again", to.display()),
        Err(e) => format!("could not be moved aside ({e}); solved again"),
    };
    eprintln!("damaged shard {}: {reason}: {outcome}", file.display());
    decisions::record(
        dir,
        name,
        "damaged shard",
        "-",
        &format!("{reason}: {outcome}"),
    );
}

/// Moves `file` into `DIR/damaged/`, under a new name if one of that name is there.
fn set_aside(dir: &Path, file: &Path) -> std::io::Result<PathBuf> {
    let damaged = dir.join(DAMAGED_DIR);
    std::fs::create_dir_all(&damaged)?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "shard".into());
    let mut to = damaged.join(&name);
    let mut k = 1;
    while to.exists() {
        to = damaged.join(format!("{name}.{k}"));
        k += 1;
    }
    std::fs::rename(file, &to)?;
    Ok(to)
}

/// Checks before a solve that a certificate can be written to `path`: not a directory, and
/// a file can be created beside it (the certificate is written there first, then renamed).
pub fn check_writable(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!("{} is a directory", path.display()));
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let probe = parent.join(format!(".amazons-write-probe.{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(format!("cannot write {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run of every task holds its directory alone; runs of chosen tasks share it; a
    /// refused run is told who holds it; a hold ends when dropped.
    #[test]
    fn a_campaign_directory_is_held_by_one_run_of_every_task_or_by_runs_of_chosen_tasks() {
        let dir = std::env::temp_dir().join(format!("amazons-hold-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let whole = hold(&dir, false).expect("a free directory");
        let holder = std::fs::read_to_string(dir.join(LOCK_FILE)).expect("lock file");
        assert!(holder.starts_with(&format!("pid {}, since ", std::process::id())));
        for shared in [false, true] {
            match hold(&dir, shared) {
                Err(ShardError::InUse { holder: h, .. }) => assert_eq!(h, holder),
                other => panic!("held by a run of every task: {other:?}"),
            }
        }
        drop(whole);
        let chosen = hold(&dir, true).expect("free again");
        let other = hold(&dir, true).expect("runs of chosen tasks side by side");
        let refused = hold(&dir, false).expect_err("not beside a run of every task");
        assert!(
            refused
                .to_string()
                .contains("is in use by another run (pid "),
            "{refused}"
        );
        drop((chosen, other));
        let whole = hold(&dir, false).expect("free once both end");
        assert_eq!(whole.unguarded, None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Where the file system cannot lock, the run goes on unguarded and says so.
    #[test]
    fn a_directory_that_cannot_be_locked_is_used_unguarded_with_the_reason() {
        let dir = std::env::temp_dir().join(format!("amazons-unlockable-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let no_locks = |_: &std::fs::File| {
            Err(std::fs::TryLockError::Error(
                std::io::Error::from_raw_os_error(37),
            ))
        };
        let held = hold_with(&dir, no_locks).expect("used all the same");
        let why = held.unguarded.expect("unguarded");
        assert!(why.contains("run.lock cannot be locked ("), "{why}");
        assert!(why.ends_with("will not be refused"), "{why}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
