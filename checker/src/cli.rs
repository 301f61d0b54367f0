//! The command-line front end shared by `amazons-check` and the solver's `amazons check`.

use crate::proof::{check_bytes_with, CheckFileError, Shards};
use amazons_format::stored;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Shard files found in a directory, indexed by the body hash their header declares (the
/// checker recomputes the hash of whatever it is given, so a lying header is caught).
pub struct DirShards {
    files: HashMap<[u8; 32], PathBuf>,
}

impl DirShards {
    /// Indexes the certificate files (`*.cert`, `*.cert.zst`) directly inside `dir` (none
    /// if it does not exist).
    pub fn scan(dir: &Path) -> DirShards {
        let mut files = HashMap::new();
        if let Ok(entries) = std::fs::read_dir(dir) {
            for path in entries.flatten().map(|e| e.path()) {
                if stored::is_cert_path(&path) {
                    if let Ok(Some(hash)) = stored::declared_hash(&path) {
                        files.insert(hash, path);
                    }
                }
            }
        }
        DirShards { files }
    }
}

impl Shards for DirShards {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        stored::read(self.files.get(hash)?).ok()
    }
}

/// Writes a line to stdout. A failed write (the reader closed the pipe: `... | head`) is
/// ignored rather than a panic: the checking goes on, so the exit code still covers every
/// file.
fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Checks every file named in `paths` (directories are searched recursively for `*.cert`
/// and `*.cert.zst` files) and returns the exit code: 0 when every certificate verifies, 1 when some
/// certificate is wrong, 2 when some input is unreadable (which takes precedence).
/// Verified claims go to stdout (one `verified: <claim>` line per file, after its `ok` line),
/// errors to stderr.
pub fn run(paths: &[PathBuf]) -> i32 {
    let (mut unreadable, mut wrong) = (false, false);
    if paths.is_empty() {
        eprintln!("no certificate files given");
        return 2;
    }
    for path in paths {
        let files = match expand(path) {
            Ok(files) => files,
            Err(message) => {
                eprintln!("{}: unreadable: {message}", path.display());
                unreadable = true;
                continue;
            }
        };
        for file in files {
            let start = Instant::now();
            let shards = DirShards::scan(&file.parent().unwrap_or(Path::new(".")).join("shards"));
            let result = stored::read(&file)
                .map_err(|e| e.to_string())
                .map(|bytes| check_bytes_with(&bytes, &shards));
            let ms = start.elapsed().as_millis();
            match result {
                Ok(Ok(report)) if report.shards > 0 => {
                    say(format_args!(
                        "{}: ok ({} steps + {} steps in {} shards, {ms} ms)",
                        file.display(),
                        report.steps,
                        report.shard_steps,
                        report.shards
                    ));
                    say(format_args!("verified: {}", report.claim));
                }
                Ok(Ok(report)) => {
                    say(format_args!(
                        "{}: ok ({} steps, {ms} ms)",
                        file.display(),
                        report.steps
                    ));
                    say(format_args!("verified: {}", report.claim));
                }
                Ok(Err(CheckFileError::Wrong(e))) => {
                    eprint!("{}: WRONG certificate\n{e}", file.display());
                    wrong = true;
                }
                Ok(Err(CheckFileError::Unreadable(e))) => {
                    eprintln!("{}: unreadable: {e}", file.display());
                    unreadable = true;
                }
                Err(e) => {
                    eprintln!("{}: unreadable: {e}", file.display());
                    unreadable = true;
                }
            }
        }
    }
    if unreadable {
        2
    } else if wrong {
        1
    } else {
        0
    }
}

/// The files a path stands for: itself, or the `.cert` files under a directory (sorted).
fn expand(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    walk(path, &mut files).map_err(|e| e.to_string())?;
    if files.is_empty() {
        return Err("no .cert or .cert.zst files in this directory".to_string());
    }
    Ok(files)
}

/// Collects `*.cert` and `*.cert.zst` files under `dir`, recursively (symbolic links to directories are not
/// followed, so a link cycle cannot loop). Directories named `shards` are skipped: their
/// files are checked through the manifest beside them that cites them.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries = std::fs::read_dir(dir)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            if entry.file_name() != "shards" {
                walk(&path, out)?;
            }
        } else if stored::is_cert_path(&path) {
            out.push(path);
        }
    }
    Ok(())
}
