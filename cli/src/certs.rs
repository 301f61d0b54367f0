//! Commands on certificate files: `check`, `index`, `compress`, `compact`, `prune` and `report`.

use crate::common::{usage, write_atomic, Usage};
use crate::json_cmd;
use crate::out::println;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `amazons check`: the checker's verdict on each file, or one JSON object with `--json`.
pub(crate) fn check(files: &[PathBuf], json: bool, threads: Option<u64>) -> Result<ExitCode> {
    let threads = threads.map_or_else(amazons_checker::cli::all_cores, |n| n as usize);
    if json {
        let (value, code) = json_cmd::check(files, threads);
        json_cmd::print(&value);
        Ok(ExitCode::from(code))
    } else {
        Ok(ExitCode::from(
            amazons_checker::cli::run(files, threads) as u8
        ))
    }
}

/// `amazons report`: the HTML report of a certificate (its usage errors exit 2).
pub(crate) fn report(args: &amazons_report::cli::ReportArgs) -> Result<ExitCode> {
    amazons_report::cli::run(args).map_err(|e| match e {
        amazons_report::cli::CliError::Usage(m) => Usage(m).into(),
        e => anyhow::Error::from(e),
    })
}

/// Checks every certificate in `dir` and writes `dir/index.md` with one row each (and
/// the same tables into `dir/README.md` between its index markers, if it has them).
pub(crate) fn index(dir: &Path) -> Result<ExitCode> {
    use amazons_campaign::index::{build, splice, IndexError};
    let index = match build(dir, &mut |line| println!("{line}")) {
        Ok(index) => index,
        Err(e @ (IndexError::Empty(_) | IndexError::Io { .. })) => return usage(e.to_string()),
        // As the checker's own exit codes: 2 for a damaged file (a shard's included), 1 for
        // a wrong proof; nothing is written.
        Err(e) => {
            let damaged = match &e {
                IndexError::Wrong { error, .. } => error.failure.damaged(),
                _ => true,
            };
            eprintln!("error: {e}");
            return Ok(ExitCode::from(if damaged { 2 } else { 1 }));
        }
    };
    let target = dir.join("index.md");
    write_atomic(&target, index.markdown.as_bytes())?;
    let readme = dir.join("README.md");
    if let Some(updated) = std::fs::read_to_string(&readme)
        .ok()
        .and_then(|text| splice(&text, &index))
    {
        write_atomic(&readme, updated.as_bytes())?;
        println!("updated the table in {}", readme.display());
    }
    println!(
        "wrote {} ({} certificates, {} sharded directories)",
        target.display(),
        index.files,
        index.dirs
    );
    Ok(ExitCode::SUCCESS)
}

/// `amazons prune`: lists, then removes (up to `max_mib`), the shard files of a finished
/// sharded result that its manifest does not need.
pub(crate) fn prune(dir: &Path, dry_run: bool, max_mib: Option<u64>) -> Result<ExitCode> {
    if !dir.is_dir() {
        return usage(format!("{}: no such directory", dir.display()));
    }
    let census = match amazons_campaign::prune::census(dir) {
        Ok(c) => c,
        Err(e @ amazons_campaign::prune::PruneError::NoManifest(_)) => return usage(e.to_string()),
        Err(e) => return Err(e.into()),
    };
    let mib = |bytes: u64| bytes as f64 / (1u64 << 20) as f64;
    let total: u64 = census.unneeded.iter().map(|(_, s)| s).sum();
    println!(
        "{}: {} shards needed by the manifest, {} not needed ({:.1} MiB)",
        dir.display(),
        census.needed.len(),
        census.unneeded.len(),
        mib(total)
    );
    if dry_run {
        for (path, size) in &census.unneeded {
            println!("unneeded: {} ({size} bytes)", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    // Not while a run works in the directory: it may still need what looks unneeded.
    let _hold = crate::common::hold(dir, false)?;
    let cap = max_mib.map(|m| m.saturating_mul(1 << 20));
    let removed = amazons_campaign::prune::remove(&census.unneeded, cap)?;
    let gone: u64 = removed.iter().map(|(_, s)| s).sum();
    println!(
        "removed {} files ({:.1} MiB); {} unneeded files ({:.1} MiB) left",
        removed.len(),
        mib(gone),
        census.unneeded.len() - removed.len(),
        mib(total - gone)
    );
    Ok(ExitCode::SUCCESS)
}

/// `amazons compress`: `*.cert` files to `*.cert.zst`, each verified by reading it back.
pub(crate) fn compress(paths: &[PathBuf]) -> Result<ExitCode> {
    fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
        if path.is_dir() {
            let entries = std::fs::read_dir(path)
                .with_context(|| format!("cannot read directory {}", path.display()))?;
            let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for p in paths {
                collect(&p, out)?;
            }
        } else if path.extension().is_some_and(|x| x == "cert") {
            out.push(path.to_path_buf());
        }
        Ok(())
    }
    let mut files = Vec::new();
    for p in paths {
        if !p.exists() {
            return usage(format!("{}: no such file or directory", p.display()));
        }
        collect(p, &mut files)?;
    }
    // Level-19 zstd is slow (about 2 MB/s), so the files are shared among all cores; each
    // worker takes the next file in turn, and the first error stops the others.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len().max(1));
    let results: Vec<Result<(u64, u64)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let (mut before, mut after) = (0u64, 0u64);
                    while !failed.load(std::sync::atomic::Ordering::Relaxed) {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(file) = files.get(i) else {
                            break;
                        };
                        match compress_one(file) {
                            Ok((b, a)) => {
                                before += b;
                                after += a;
                                let n =
                                    1 + finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                if n.is_multiple_of(100) {
                                    eprintln!("compress: {n}/{} files", files.len());
                                }
                            }
                            Err(e) => {
                                failed.store(true, std::sync::atomic::Ordering::Relaxed);
                                return Err(e);
                            }
                        }
                    }
                    Ok((before, after))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a compress worker panicked")))
            })
            .collect()
    });
    let (mut before, mut after) = (0u64, 0u64);
    for r in results {
        let (b, a) = r?;
        before += b;
        after += a;
    }
    println!(
        "compressed {} files: {before} bytes to {after} ({:.1}x)",
        files.len(),
        before as f64 / after.max(1) as f64
    );
    Ok(ExitCode::SUCCESS)
}

/// Compresses one certificate file into `FILE.zst` (written atomically, read back), then
/// removes the original: its size before and after.
fn compress_one(file: &Path) -> Result<(u64, u64)> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    // Only well-formed certificate files are compressed (the layout and hash check).
    amazons_format::file::verified_body(&bytes)
        .with_context(|| format!("{} is not a valid certificate file", file.display()))?;
    let packed = amazons_format::stored::compress(&bytes)?;
    let mut target = file.as_os_str().to_owned();
    target.push(".zst");
    let target = PathBuf::from(target);
    write_atomic(&target, &packed)?;
    if amazons_format::stored::read(&target)? != bytes {
        let _ = std::fs::remove_file(&target);
        anyhow::bail!(
            "{}: the compressed copy does not read back",
            target.display()
        );
    }
    std::fs::remove_file(file).with_context(|| format!("cannot remove {}", file.display()))?;
    Ok((bytes.len() as u64, packed.len() as u64))
}

/// `amazons compact PATH`: outlast lists cut to the shortest prefix the checker completes,
/// with `--search` subtrees on small positions replaced by `Search` steps, and with
/// `--trim` long subproofs of choices replaced where another move closes at once.
/// Progress goes to stderr: the originals' check every 10 s, then a line once they are
/// checked and every 10 s while files are rewritten.
pub(crate) fn compact(
    path: &Path,
    search: bool,
    trim: bool,
    limit: Option<u64>,
) -> Result<ExitCode> {
    // A campaign directory is rewritten only while no run works in it: a run's shards
    // removed meanwhile would come back.
    let campaign = path.is_dir() && path.join(amazons_campaign::shard::PLAN_FILE).is_file();
    let _hold = match campaign {
        true => Some(crate::common::hold(path, false)?),
        false => None,
    };
    let mut start = std::time::Instant::now();
    let mut last: Option<std::time::Instant> = None;
    let mut progress = |p: &amazons_solver::compact::Progress| {
        if p.files_done == 0 {
            start = std::time::Instant::now();
        }
        let due = last.is_none_or(|t| t.elapsed().as_secs() >= 10);
        if !due && p.files_done < p.files_total {
            return;
        }
        last = Some(std::time::Instant::now());
        let secs = start.elapsed().as_secs_f64();
        let share = p.stored_done as f64 / p.stored_total.max(1) as f64;
        let left = if p.files_done == 0 {
            String::new()
        } else {
            format!(
                ", about {:.0} s left",
                secs * (1.0 - share) / share.max(1e-9)
            )
        };
        eprintln!(
            "compact: {}/{} files rewritten and checked ({:.1}% of the stored bytes), {} steps, {:.0} s rewriting{left}",
            p.files_done,
            p.files_total,
            100.0 * share,
            p.steps,
            secs
        );
    };
    match amazons_solver::compact::run(path, search, trim, limit.map(|mb| mb << 20), &mut progress)
    {
        Ok(text) => {
            print!("{text}");
            // A sharded result's manifest.md lists each shard's bytes and hash: new now.
            if campaign {
                amazons_campaign::shard::rewrite_md(path)?;
                println!("rewrote {}", path.join("manifest.md").display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("error: {e}");
            Ok(ExitCode::from(e.exit_code()))
        }
    }
}
