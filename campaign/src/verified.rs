//! The shards this solver has already checked, remembered by body hash per run directory.
//!
//! A sharded run checks every shard it writes. A split task's shard is a manifest citing
//! its subtask shards, and checking a manifest checks every shard below it, so without a
//! memory each level of splitting checked the whole subtree under it once more. (A
//! resumed run takes the shards it finds on disk without the checker, see
//! [`crate::safety::resume`]; they are checked where a split task's shard cites them, or
//! by the run's final check.)
//!
//! Shards that pass the checker are recorded by the blake3 hash of their body, in memory
//! and in `DIR/verified.tsv` (one `FINGERPRINT<TAB>HASH` line each). `FINGERPRINT`
//! identifies the checker's and the format's sources this binary was built from (see
//! `build.rs`); lines with another fingerprint are ignored, so a changed checker checks
//! everything again. A shard is skipped only when its exact body was checked before.
//!
//! This memory only decides what the *solver* believes is finished. It is never trusted
//! for a result: `amazons check`, the final check of `amazons solve --shards` and CI check
//! every shard with the checker alone. A damaged or forged `verified.tsv` can make a
//! resumed run keep a bad shard, which the full check then rejects; it cannot make a false
//! claim verify.
//!
//! The final check of a run skips only the shards that this very process checked in full
//! ([`checked_here`]): their exact bytes, decoded from the encoding that was written, went
//! through the checker, and so did every shard below them. A shard file read back is
//! found by the hash of its body, so a file changed since has another hash and is checked
//! again. Nothing read from `verified.tsv` counts there.

use amazons_checker::Report;
use amazons_solver::db::store::hex;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// The file beside `shards/` that lists the shards checked before.
pub const VERIFIED_FILE: &str = "verified.tsv";

/// The fingerprint of the checker and format sources this binary was built from (empty
/// when it could not be computed: nothing is then remembered between runs).
pub const FINGERPRINT: &str = env!("AMAZONS_CHECKER_FINGERPRINT");

/// Body hashes known to have checked, per run directory.
static KNOWN: Mutex<Option<HashMap<PathBuf, HashSet<[u8; 32]>>>> = Mutex::new(None);

/// What a check in full found below one shard: its own steps, and the shards it cites,
/// directly or not, with their steps (the checker's [`Report`] figures).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub steps: usize,
    pub shards: usize,
    pub shard_steps: usize,
}

/// Body hashes of the shards this process checked in full, with what the check counted.
static HERE: Mutex<Option<HashMap<[u8; 32], Counts>>> = Mutex::new(None);

/// Records that this process checked the shard with body hash `hash` in full: its steps,
/// decoded from its encoding, and every shard below it, each by this process's checker.
pub fn mark_checked_here(hash: &[u8; 32], report: &Report) {
    let counts = Counts {
        steps: report.steps,
        shards: report.shards,
        shard_steps: report.shard_steps,
    };
    let mut here = HERE.lock().unwrap_or_else(|p| p.into_inner());
    here.get_or_insert_with(HashMap::new).insert(*hash, counts);
}

/// What this process's check in full of the shard with body hash `hash` counted, if it
/// made one.
pub fn checked_here(hash: &[u8; 32]) -> Option<Counts> {
    let here = HERE.lock().unwrap_or_else(|p| p.into_inner());
    here.as_ref()?.get(hash).copied()
}

fn parse_hex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut hash = [0u8; 32];
    for (i, byte) in hash.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(hash)
}

/// The hashes `DIR/verified.tsv` lists under this binary's fingerprint (malformed lines,
/// other fingerprints and a missing file give nothing).
fn read_file(dir: &Path) -> HashSet<[u8; 32]> {
    if FINGERPRINT.is_empty() {
        return HashSet::new();
    }
    let text = std::fs::read_to_string(dir.join(VERIFIED_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (fingerprint, hash) = line.split_once('\t')?;
            (fingerprint == FINGERPRINT).then(|| parse_hex(hash))?
        })
        .collect()
}

fn with_dir<T>(dir: &Path, f: impl FnOnce(&mut HashSet<[u8; 32]>) -> T) -> T {
    let mut known = KNOWN.lock().unwrap_or_else(|p| p.into_inner());
    let map = known.get_or_insert_with(HashMap::new);
    let set = map
        .entry(dir.to_path_buf())
        .or_insert_with(|| read_file(dir));
    f(set)
}

/// Whether the shard with body hash `hash` in run directory `dir` has checked before.
pub fn is_checked(dir: &Path, hash: &[u8; 32]) -> bool {
    with_dir(dir, |set| set.contains(hash))
}

/// Records that the shard with body hash `hash` in run directory `dir` has checked (in
/// memory, and appended to `DIR/verified.tsv`; a failed write only costs a check later).
pub fn mark_checked(dir: &Path, hash: &[u8; 32]) {
    let new = with_dir(dir, |set| set.insert(*hash));
    if new && !FINGERPRINT.is_empty() {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(VERIFIED_FILE))
        {
            let _ = f.write_all(format!("{FINGERPRINT}\t{}\n", hex(hash)).as_bytes());
        }
    }
}

/// Shard files of a run directory for the checker, telling it which ones were checked
/// before so that a manifest's check does not check them again. The directory is indexed
/// on the first shard asked for (most shards cite none).
pub struct RunShards<'a> {
    dir: &'a Path,
    files: std::sync::OnceLock<amazons_checker::cli::DirShards>,
    /// Only the shards this process checked in full count as checked (the final check),
    /// not those `verified.tsv` names.
    here_only: bool,
    /// The shards skipped as checked in full by this process, to add their counts.
    skipped_here: Mutex<Vec<[u8; 32]>>,
    /// Whether some shard was skipped on the word of `verified.tsv` alone.
    leaned_on_file: AtomicBool,
}

impl RunShards<'_> {
    /// The shard files in `DIR/shards`, with what `DIR` remembers (`verified.tsv` and
    /// this process).
    pub fn new(dir: &Path) -> RunShards<'_> {
        RunShards {
            dir,
            files: std::sync::OnceLock::new(),
            here_only: false,
            skipped_here: Mutex::new(Vec::new()),
            leaned_on_file: AtomicBool::new(false),
        }
    }

    /// The shard files in `DIR/shards`, skipping only those this process checked in full
    /// (the final check of a run: see the module's doc).
    pub fn checked_here_only(dir: &Path) -> RunShards<'_> {
        RunShards {
            here_only: true,
            ..RunShards::new(dir)
        }
    }

    fn files(&self) -> &amazons_checker::cli::DirShards {
        self.files
            .get_or_init(|| amazons_checker::cli::DirShards::scan(&self.dir.join("shards")))
    }

    /// Completes `report`, a check's with these shards, with the counts of the shards it
    /// skipped as checked in full by this process, and says whether it is then a check in
    /// full: no shard was skipped on the word of `verified.tsv` alone.
    pub fn complete(&self, report: &mut Report) -> bool {
        let skipped = self.skipped_here.lock().unwrap_or_else(|p| p.into_inner());
        for counts in skipped.iter().filter_map(checked_here) {
            report.shards += counts.shards;
            report.shard_steps += counts.steps + counts.shard_steps;
        }
        !self.leaned_on_file.load(Ordering::Relaxed)
    }
}

impl amazons_checker::Shards for RunShards<'_> {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        amazons_checker::Shards::get(self.files(), hash)
    }

    fn already_checked(&self, hash: &[u8; 32], _level: usize) -> bool {
        if checked_here(hash).is_some() {
            let mut skipped = self.skipped_here.lock().unwrap_or_else(|p| p.into_inner());
            skipped.push(*hash);
            return true;
        }
        if !self.here_only && is_checked(self.dir, hash) {
            self.leaned_on_file.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    fn declared_steps(&self, hash: &[u8; 32]) -> Option<u64> {
        amazons_checker::Shards::declared_steps(self.files(), hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_round_trip_through_the_file_and_other_fingerprints_are_ignored() {
        let dir = std::env::temp_dir().join(format!("amazons-verified-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let a = [7u8; 32];
        let b = [9u8; 32];
        assert_eq!(parse_hex(&hex(&a[..])), Some(a));
        assert_eq!(parse_hex("xyz"), None);
        std::fs::write(
            dir.join(VERIFIED_FILE),
            format!(
                "other-fingerprint\t{}\nnot a line\n{FINGERPRINT}\tzz\n",
                hex(&b[..])
            ),
        )
        .expect("write");
        assert!(!is_checked(&dir, &a));
        assert!(!is_checked(&dir, &b), "another fingerprint's line counts");
        mark_checked(&dir, &a);
        assert!(is_checked(&dir, &a));
        // A fresh read of the file (as a later run does) finds it.
        assert_eq!(read_file(&dir).contains(&a), !FINGERPRINT.is_empty());
        assert!(!read_file(&dir).contains(&b));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
