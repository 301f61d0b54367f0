//! Shards of a finished sharded result that its manifest does not need, and their removal.
//!
//! A sharded run removes the subtask shards of a guess it finds refuted, but some are left
//! behind that no proof uses: those under a guess recorded as refuted by hand (a
//! `refuted` line in `splits.tsv`), and those under a split that a whole solve of the
//! task replaced (its shard written from outside the run). Once the manifest
//! exists, the shards it needs are exactly those reachable from it through `Shard` steps;
//! every other file under `DIR/shards` can go. Removal never touches a reachable file, so
//! the result checks as before.

use amazons_format::{stored, Step};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Why a directory cannot be pruned.
#[derive(Debug, thiserror::Error)]
pub enum PruneError {
    #[error("{0}: no manifest (manifest.cert or manifest.cert.zst): only a finished sharded result can be pruned")]
    NoManifest(PathBuf),
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
    #[error("{0}: not a certificate file: {1}")]
    Bad(PathBuf, String),
    #[error("{cited_by} cites a shard with body hash {hash}, and no file under {dir} declares it: the result is incomplete, so nothing is pruned")]
    Missing {
        cited_by: PathBuf,
        hash: String,
        dir: PathBuf,
    },
}

/// The shard files of `dir` split by whether the manifest's proof needs them.
#[derive(Debug, Default)]
pub struct Census {
    /// Files the manifest reaches (directly or through other shards).
    pub needed: Vec<PathBuf>,
    /// The other certificate files under `DIR/shards`, by name, with their sizes.
    pub unneeded: Vec<(PathBuf, u64)>,
}

/// Sorts the shard files of the finished result in `dir` into needed and unneeded: a
/// file is needed when a certificate reachable from the manifest cites the body hash its
/// header declares (a copy under another name declaring the same hash is kept too).
pub fn census(dir: &Path) -> Result<Census, PruneError> {
    let manifest = crate::shard::on_disk(&dir.join("manifest.cert"))
        .ok_or_else(|| PruneError::NoManifest(dir.to_path_buf()))?;
    let shards = dir.join("shards");
    let mut by_hash: HashMap<[u8; 32], Vec<PathBuf>> = HashMap::new();
    let mut all = Vec::new();
    if shards.is_dir() {
        let entries = std::fs::read_dir(&shards).map_err(|e| PruneError::Io(shards.clone(), e))?;
        for path in entries.flatten().map(|e| e.path()) {
            if !stored::is_cert_path(&path) {
                continue;
            }
            let declared = stored::declared_hash(&path)
                .map_err(|e| PruneError::Io(path.clone(), e))?
                .ok_or_else(|| PruneError::Bad(path.clone(), "shorter than a header".into()))?;
            by_hash.entry(declared).or_default().push(path.clone());
            all.push(path);
        }
    }
    let mut needed: HashSet<PathBuf> = HashSet::new();
    let mut queue = vec![manifest];
    while let Some(path) = queue.pop() {
        let bytes = stored::read(&path).map_err(|e| PruneError::Io(path.clone(), e))?;
        let cert = amazons_format::decode(&bytes)
            .map_err(|e| PruneError::Bad(path.clone(), e.to_string()))?;
        for step in &cert.steps {
            let Step::Shard { hash } = step else {
                continue;
            };
            let files = by_hash.get(hash).ok_or_else(|| PruneError::Missing {
                cited_by: path.clone(),
                hash: amazons_solver::db::store::hex(hash),
                dir: shards.clone(),
            })?;
            for f in files {
                if needed.insert(f.clone()) {
                    queue.push(f.clone());
                }
            }
        }
    }
    all.sort();
    let mut census = Census::default();
    for path in all {
        if needed.contains(&path) {
            census.needed.push(path);
        } else {
            let size = std::fs::metadata(&path)
                .map_err(|e| PruneError::Io(path.clone(), e))?
                .len();
            census.unneeded.push((path, size));
        }
    }
    Ok(census)
}

/// Removes unneeded files in name order while their total stays within `max_bytes`
/// (`None`: all of them); returns the files removed. A commit that removes a lot can be
/// too large to submit in one piece, so a cap lets the removal be spread over commits.
pub fn remove(
    unneeded: &[(PathBuf, u64)],
    max_bytes: Option<u64>,
) -> Result<Vec<(PathBuf, u64)>, PruneError> {
    let mut removed = Vec::new();
    let mut total = 0u64;
    for (path, size) in unneeded {
        if max_bytes.is_some_and(|max| total + size > max) {
            break;
        }
        std::fs::remove_file(path).map_err(|e| PruneError::Io(path.clone(), e))?;
        total += size;
        removed.push((path.clone(), *size));
    }
    Ok(removed)
}
