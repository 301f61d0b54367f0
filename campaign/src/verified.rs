//! The shards this solver has already checked, remembered by body hash per run directory.
//!
//! A sharded run checks every shard it writes, and checks again every shard it finds on
//! disk when it resumes. A split task's shard is a manifest citing its subtask shards, and
//! checking a manifest checks every shard below it, so without a memory each level of
//! splitting checked the whole subtree under it once more, and every resumed run
//! re-checked every finished shard (on the 5x6 run, 25-30 minutes of a session).
//!
//! Shards that pass the checker are recorded by the blake3 hash of their body, in memory
//! and in `DIR/verified.tsv` (one `FINGERPRINT<TAB>HASH` line each). `FINGERPRINT`
//! identifies the checker's and the format's sources this binary was built from (see
//! `build.rs`); lines with another fingerprint are ignored, so a changed checker checks
//! everything again. A shard is skipped only when its exact body was checked before.
//!
//! This memory only decides what the *solver* believes is finished. It is never trusted
//! for a result: `amazons check`, the final check of `amazons solve --shards` and CI check
//! every shard in full with the checker alone. A damaged or forged `verified.tsv` can make
//! a resumed run keep a bad shard, which the full check then rejects; it cannot make a
//! false claim verify.

use amazons_solver::db::store::hex;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file beside `shards/` that lists the shards checked before.
pub const VERIFIED_FILE: &str = "verified.tsv";

/// The fingerprint of the checker and format sources this binary was built from (empty
/// when it could not be computed: nothing is then remembered between runs).
pub const FINGERPRINT: &str = env!("AMAZONS_CHECKER_FINGERPRINT");

/// Body hashes known to have checked, per run directory.
static KNOWN: Mutex<Option<HashMap<PathBuf, HashSet<[u8; 32]>>>> = Mutex::new(None);

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

/// Shard files of a run directory for the checker, telling it which ones this solver has
/// already checked so that a manifest's check does not check them again. The directory is
/// indexed on the first shard asked for (most shards cite none).
pub struct RunShards<'a> {
    dir: &'a Path,
    files: std::sync::OnceLock<amazons_checker::cli::DirShards>,
}

impl RunShards<'_> {
    /// The shard files in `DIR/shards`, with what `DIR` remembers.
    pub fn new(dir: &Path) -> RunShards<'_> {
        RunShards {
            dir,
            files: std::sync::OnceLock::new(),
        }
    }
}

impl amazons_checker::Shards for RunShards<'_> {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        let files = self
            .files
            .get_or_init(|| amazons_checker::cli::DirShards::scan(&self.dir.join("shards")));
        amazons_checker::Shards::get(files, hash)
    }

    fn already_checked(&self, hash: &[u8; 32]) -> bool {
        is_checked(self.dir, hash)
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
