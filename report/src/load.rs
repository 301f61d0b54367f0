//! Finding a certificate and its shards on disk: a file, or a directory with `manifest.cert[.zst]` and `shards/` (indexed by the checker's [`amazons_checker::cli::DirShards`]).

use crate::ReportError;
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

/// Lower-case hex of a hash.
pub fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}
