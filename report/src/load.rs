//! Finding a certificate and its shards on disk: a file, or a directory with `manifest.cert[.zst]` and `shards/`.

use crate::ReportError;
use amazons_checker::Shards;
use amazons_format::stored;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The root certificate file named by `input` (a file, or a directory holding
/// `manifest.cert.zst` or `manifest.cert`) and the directory its shards are taken from.
pub fn resolve(input: &Path) -> Result<(PathBuf, PathBuf), ReportError> {
    let meta = std::fs::metadata(input).map_err(|source| ReportError::Io {
        path: input.to_path_buf(),
        source,
    })?;
    let root = if meta.is_dir() {
        ["manifest.cert.zst", "manifest.cert"]
            .iter()
            .map(|name| input.join(name))
            .find(|p| p.is_file())
            .ok_or_else(|| ReportError::NoManifest(input.to_path_buf()))?
    } else {
        input.to_path_buf()
    };
    let dir = root.parent().unwrap_or(Path::new(".")).join("shards");
    Ok((root, dir))
}

/// Shard files indexed by the body hash their header declares (only headers are read;
/// a file is read in full when a certificate cites it, and its hash is verified then).
pub struct ShardIndex {
    files: HashMap<[u8; 32], PathBuf>,
}

impl ShardIndex {
    /// Indexes the certificate files directly inside `dir` (none if it does not exist).
    pub fn scan(dir: &Path) -> ShardIndex {
        let mut files = HashMap::new();
        if let Ok(entries) = std::fs::read_dir(dir) {
            let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for path in paths {
                if stored::is_cert_path(&path) {
                    if let Ok(Some(hash)) = stored::declared_hash(&path) {
                        files.entry(hash).or_insert(path);
                    }
                }
            }
        }
        ShardIndex { files }
    }

    /// The file whose header declares body hash `hash`.
    pub fn path(&self, hash: &[u8; 32]) -> Option<&Path> {
        self.files.get(hash).map(PathBuf::as_path)
    }
}

impl Shards for ShardIndex {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        stored::read(self.path(hash)?).ok()
    }
}

/// Lower-case hex of a hash.
pub fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}
