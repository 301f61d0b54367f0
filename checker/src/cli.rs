//! The command-line front end shared by `amazons-check` and the solver's `amazons check`.

use crate::parallel::{check_parallel, Progress};
use crate::proof::{whole_board, CheckError, Report, Shards};
use amazons_format::{file, stored};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Shard files found in a directory, indexed by the body hash their header declares (the
/// checker recomputes the hash of whatever it is given, so a lying header is caught).
pub struct DirShards {
    files: HashMap<[u8; 32], PathBuf>,
}

impl DirShards {
    /// Indexes the certificate files (`*.cert`, `*.cert.zst`) directly inside `dir` (none
    /// if it does not exist). Only headers are read; of two files declaring one hash, the
    /// first by name is kept.
    pub fn scan(dir: &Path) -> DirShards {
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
        DirShards { files }
    }

    /// The file whose header declares body hash `hash`.
    pub fn path(&self, hash: &[u8; 32]) -> Option<&Path> {
        self.files.get(hash).map(PathBuf::as_path)
    }
}

impl Shards for DirShards {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        stored::read(self.path(hash)?).ok()
    }

    fn declared_steps(&self, hash: &[u8; 32]) -> Option<u64> {
        let prefix = stored::read_prefix(self.path(hash)?, file::PREFIX_LEN).ok()?;
        file::declared_steps(&prefix)
    }
}

/// Writes a line to stdout. A failed write (the reader closed the pipe: `... | head`) is
/// ignored rather than a panic: the checking goes on, so the exit code still covers every
/// file.
fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// The number of threads `--threads` defaults to: all cores.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// How one file fared: verified, wrong (a `CheckError`; its failure is
/// [`Failure::damaged`](crate::Failure::damaged) when a shard
/// is missing or damaged), or unreadable.
pub enum Verdict {
    Ok(Report),
    Wrong(CheckError),
    Unreadable(String),
}

/// A progress callback for [`check_parallel`]: `LABEL: D/T shards, M steps/s, about S s
/// left` on stderr, at most every 10 seconds.
pub fn progress_printer(label: String) -> impl FnMut(Progress) {
    let (start, mut last) = (Instant::now(), Instant::now());
    move |p: Progress| {
        if last.elapsed() < Duration::from_secs(10) || p.shards_done == 0 {
            return;
        }
        last = Instant::now();
        let secs = start.elapsed().as_secs_f64();
        let left = secs * (p.shards_total - p.shards_done) as f64 / p.shards_done as f64;
        eprintln!(
            "{label}: {}/{} shards, {:.2} M steps/s, about {left:.0} s left",
            p.shards_done,
            p.shards_total,
            p.steps_done as f64 / secs / 1e6
        );
    }
}

/// Reads, decodes and checks one certificate file, its shards on `threads` threads, with
/// progress lines on stderr every 10 seconds.
pub fn check_file(file: &Path, threads: usize) -> Verdict {
    let shards = DirShards::scan(&shards_dir(file));
    let decoded = stored::read(file)
        .map_err(|e| e.to_string())
        .and_then(|bytes| amazons_format::decode(&bytes).map_err(|e| e.to_string()));
    let cert = match decoded {
        Ok(cert) => cert,
        Err(e) => return Verdict::Unreadable(e),
    };
    let mut progress = progress_printer(file.display().to_string());
    match whole_board(&cert).and_then(|()| check_parallel(&cert, &shards, threads, &mut progress)) {
        Ok(report) => Verdict::Ok(report),
        Err(e) => Verdict::Wrong(e),
    }
}

/// Checks every file named in `paths` (directories are searched recursively for `*.cert`
/// and `*.cert.zst` files), a manifest's shards on `threads` threads (and the shard files
/// of an unfinished result, each a certificate of its own, one per thread), and returns
/// the exit code: 0 when every certificate verifies, 1 when some certificate is wrong, 2
/// when some input (a shard included) is missing or damaged (which takes precedence).
/// Verified claims go to stdout (one `verified: <claim>` line per file, after its `ok` line,
/// in the order of the files), errors and progress to stderr.
pub fn run(paths: &[PathBuf], threads: usize) -> i32 {
    let mut tally = Tally::default();
    if paths.is_empty() {
        eprintln!("no certificate files given");
        return 2;
    }
    for path in paths {
        let files = match expand(path) {
            Ok(files) => files,
            Err(message) => {
                eprintln!("{}: unreadable: {message}", path.display());
                tally.unreadable = true;
                continue;
            }
        };
        let mut inputs = files.into_iter();
        while let Some(input) = inputs.next() {
            match input {
                Input::File(file) => {
                    let start = Instant::now();
                    let verdict = check_file(&file, threads);
                    tally.tell(&file, verdict, start.elapsed().as_millis());
                }
                Input::Unfinished(dir, n) => {
                    eprintln!(
                        "{}: unfinished: {n} shard files in shards/ but the manifest \
                         (manifest.cert.zst) is missing; each shard is checked as a \
                         certificate of its own position, and nothing is claimed about \
                         the whole result",
                        dir.display()
                    );
                    // Nothing at all to check is an unreadable input.
                    tally.unreadable |= n == 0;
                    let shards: Vec<PathBuf> = (inputs.by_ref().take(n))
                        .filter_map(|input| match input {
                            Input::File(file) => Some(file),
                            Input::Unfinished(..) => None,
                        })
                        .collect();
                    check_each(&shards, threads, |file, verdict, ms| {
                        tally.tell(file, verdict, ms)
                    });
                }
            }
        }
    }
    if tally.unreadable {
        2
    } else if tally.wrong {
        1
    } else {
        0
    }
}

/// Whether some input was unreadable or some certificate wrong, so far.
#[derive(Default)]
struct Tally {
    unreadable: bool,
    wrong: bool,
}

impl Tally {
    /// Prints how `file` fared (in `ms` milliseconds) and notes it.
    fn tell(&mut self, file: &Path, verdict: Verdict, ms: u128) {
        match verdict {
            Verdict::Ok(report) if report.shards > 0 => {
                say(format_args!(
                    "{}: ok ({} steps + {} steps in {} shards, {ms} ms)",
                    file.display(),
                    report.steps,
                    report.shard_steps,
                    report.shards
                ));
                say(format_args!("verified: {}", report.claim));
            }
            Verdict::Ok(report) => {
                say(format_args!(
                    "{}: ok ({} steps, {ms} ms)",
                    file.display(),
                    report.steps
                ));
                say(format_args!("verified: {}", report.claim));
            }
            Verdict::Wrong(e) if e.failure.damaged() => {
                eprint!(
                    "{}: unreadable: a shard is missing or damaged\n{e}",
                    file.display()
                );
                self.unreadable = true;
            }
            Verdict::Wrong(e) => {
                eprint!("{}: WRONG certificate\n{e}", file.display());
                self.wrong = true;
            }
            Verdict::Unreadable(e) => {
                eprintln!("{}: unreadable: {e}", file.display());
                self.unreadable = true;
            }
        }
    }
}

/// Checks independent certificate files on `threads` threads, one file per thread at a
/// time (each file's own shards on its thread), and hands each verdict with its time in
/// milliseconds to `done` in the order of `files`, as soon as it and every one before it
/// are checked.
pub fn check_each(files: &[PathBuf], threads: usize, mut done: impl FnMut(&Path, Verdict, u128)) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, files.len().max(1)) {
            let (tx, next) = (tx.clone(), &next);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = files.get(i) else {
                    break;
                };
                let start = Instant::now();
                let verdict = check_file(file, 1);
                if tx.send((i, verdict, start.elapsed().as_millis())).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        // Verdicts come in as files finish; each waits here until those before it are out.
        let mut waiting = std::collections::BTreeMap::new();
        let mut at = 0;
        for (i, verdict, ms) in rx {
            waiting.insert(i, (verdict, ms));
            while let Some((verdict, ms)) = waiting.remove(&at) {
                done(&files[at], verdict, ms);
                at += 1;
            }
        }
    });
}

/// Where the shards a file cites are looked for: beside a file in a `shards` directory
/// (a shard citing its subtask shards), else in the `shards` directory beside the file
/// (a manifest). Only where to look: every shard found is verified by its hash.
fn shards_dir(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new("."));
    if parent.file_name().is_some_and(|n| n == "shards") {
        parent.to_path_buf()
    } else {
        parent.join("shards")
    }
}

/// What a path given on the command line stands for.
pub enum Input {
    /// A certificate file to check.
    File(PathBuf),
    /// A directory with this many shard files in `shards/` but no certificate beside them
    /// (an unfinished sharded result): a note; its shard files follow as `File`s, each
    /// checked as a certificate of its own position.
    Unfinished(PathBuf, usize),
}

/// The files a path stands for: itself, or the `.cert` files under a directory (sorted).
pub fn expand(path: &Path) -> Result<Vec<Input>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_dir() {
        return Ok(vec![Input::File(path.to_path_buf())]);
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
/// files are checked through the manifest beside them that cites them. A `shards` directory
/// with no certificate file beside it (an unfinished sharded result) is listed as
/// `Unfinished`, followed by its shard files, each to be checked on its own.
fn walk(dir: &Path, out: &mut Vec<Input>) -> std::io::Result<()> {
    let mut entries = std::fs::read_dir(dir)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| e.path());
    let has_cert = entries.iter().any(|e| stored::is_cert_path(&e.path()));
    for entry in entries {
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            if entry.file_name() != "shards" {
                walk(&path, out)?;
            } else if !has_cert {
                let mut shards: Vec<PathBuf> = std::fs::read_dir(&path)?
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| stored::is_cert_path(p))
                    .collect();
                shards.sort();
                out.push(Input::Unfinished(dir.to_path_buf(), shards.len()));
                out.extend(shards.into_iter().map(Input::File));
            }
        } else if stored::is_cert_path(&path) {
            out.push(Input::File(path));
        }
    }
    Ok(())
}
