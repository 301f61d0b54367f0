//! Helpers shared by the command-line test modules: running the binaries, temporary directories, paths.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

/// The path of the `amazons` binary under test.
pub const EXE: &str = env!("CARGO_BIN_EXE_amazons");

/// The result of one run.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// The last line of stdout, or "" when there is none.
    pub fn last_line(&self) -> &str {
        self.stdout.lines().last().unwrap_or("")
    }

    /// The first line of stdout (`err` false) or stderr (`err` true) that starts with
    /// `prefix`; panics when there is none.
    pub fn line(&self, err: bool, prefix: &str) -> &str {
        let text = if err { &self.stderr } else { &self.stdout };
        text.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?}: {self:?}"))
    }

    /// Exit code, stdout and stderr as a tuple.
    pub fn parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }
}

/// Runs `exe ARGS` to completion.
pub fn run_exe(exe: &Path, args: &[&str]) -> Out {
    let out = Command::new(exe)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `amazons ARGS`.
pub fn amazons(args: &[&str]) -> Out {
    run_exe(Path::new(EXE), args)
}

/// Asserts a successful run and returns it.
pub fn ok(args: &[&str]) -> Out {
    let out = amazons(args);
    assert_eq!(out.code, 0, "amazons {args:?} failed: {out:?}");
    out
}

/// The arguments of a sharded solve: `solve BOARD --shards DIR`, then FLAGS split at white
/// space.
pub fn sharded<'a>(board: &'a str, dir: &'a Path, flags: &'a str) -> Vec<&'a str> {
    let mut args = vec!["solve", board, "--shards", s(dir)];
    args.extend(flags.split_whitespace());
    args
}

/// The files in `DIR/shards` whose names end with `suffix` ("" for all), sorted; none when
/// there is no such directory (yet).
pub fn shards_in(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("shards"))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.to_string_lossy().ends_with(suffix))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The names of [`shards_in`]`(dir, suffix)`.
pub fn shard_names(dir: &Path, suffix: &str) -> Vec<String> {
    shards_in(dir, suffix)
        .iter()
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect()
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A path as `&str`, for an argument list.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

/// A fresh, empty directory `amazons-PREFIX-NAME-…` under the system temp dir, unique to this
/// process and call; not removed (see [`TempDir`] for one that is).
pub fn scratch(prefix: &str, name: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "amazons-{prefix}-{name}-{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temporary directory");
    dir
}

/// A fresh, empty temporary directory (see [`scratch`]), removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(prefix: &str, name: &str) -> TempDir {
        TempDir(scratch(prefix, name))
    }

    /// A path inside the directory.
    pub fn path(&self, file: &str) -> PathBuf {
        self.0.join(file)
    }

    /// A path inside the directory, as a `String` for an argument list.
    pub fn file(&self, file: &str) -> String {
        s(&self.path(file)).to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `amazons-check`, from the same directory as `amazons`, if it is there and at least as new
/// as the checker's and the format crate's sources. Cargo builds it only when the whole
/// workspace (or the checker package with its binaries) is built, not for
/// `cargo test -p amazons-cli`, so a missing or stale binary is skipped with a note
/// (`amazons check` runs the same checker code and is always tested).
pub fn amazons_check_exe() -> Option<PathBuf> {
    let exe =
        Path::new(EXE).with_file_name(format!("amazons-check{}", std::env::consts::EXE_SUFFIX));
    let built = std::fs::metadata(&exe).and_then(|m| m.modified()).ok();
    let root = workspace();
    let mut newest = SystemTime::UNIX_EPOCH;
    for dir in ["checker/src", "format/src"] {
        newest_mtime(&root.join(dir), &mut newest);
    }
    for file in ["checker/Cargo.toml", "format/Cargo.toml", "format/SPEC.md"] {
        if let Ok(t) = std::fs::metadata(root.join(file)).and_then(|m| m.modified()) {
            newest = newest.max(t);
        }
    }
    match built {
        Some(t) if t >= newest => Some(exe),
        Some(_) => {
            eprintln!(
                "note: {} is older than the checker sources; skipped",
                exe.display()
            );
            None
        }
        None => {
            eprintln!("note: {} was not built; skipped", exe.display());
            None
        }
    }
}

fn newest_mtime(dir: &Path, newest: &mut SystemTime) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            newest_mtime(&path, newest);
        } else if let Ok(t) = entry.metadata().and_then(|m| m.modified()) {
            *newest = (*newest).max(t);
        }
    }
}
