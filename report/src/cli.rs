//! The `amazons report` command line: its arguments, and a run that writes the report and prints a summary.

use crate::{build, html, Options, ReportError, Verdict};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Arguments of `amazons report`.
#[derive(clap::Args, Debug, Clone)]
pub struct ReportArgs {
    /// A certificate file, or a sharded result's directory (its manifest.cert[.zst] and
    /// the shards it cites in DIR/shards; other files there are not read).
    #[arg(value_name = "CERT|DIR")]
    pub input: PathBuf,
    /// The report directory to write (replaced atomically if it holds a report).
    #[arg(short = 'o', long = "out", value_name = "OUT")]
    pub out: PathBuf,
    /// Do not run the checker (the header then says "not checked"); a sharded 5x6
    /// result takes minutes to check.
    #[arg(long)]
    pub no_check: bool,
    /// Nodes of each certificate file kept for the proof browser (breadth first).
    #[arg(long, value_name = "N", default_value_t = 600)]
    pub max_nodes: usize,
    /// Certificate files read at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// A failed run: bad input (exit code 2) or anything else.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Report(ReportError),
}

/// Writes the report; exit code 0, or 1 when the checker rejects the certificate (the
/// report is written all the same and says so).
pub fn run(args: &ReportArgs) -> Result<ExitCode, CliError> {
    if args.max_nodes == 0 || args.threads == Some(0) {
        return Err(CliError::Usage(
            "--max-nodes and --threads must be at least 1".to_string(),
        ));
    }
    let mut opts = Options {
        check: !args.no_check,
        max_nodes: args.max_nodes,
        ..Options::default()
    };
    if let Some(t) = args.threads {
        opts.threads = t;
    }
    html::check_target(&args.out).map_err(|e| CliError::Usage(e.to_string()))?;
    let start = Instant::now();
    let report = build(&args.input, &opts).map_err(|e| match e {
        ReportError::Output { .. } => CliError::Report(e),
        e => CliError::Usage(e.to_string()),
    })?;
    let read_secs = start.elapsed().as_secs_f64();
    html::write(&report, &args.out).map_err(CliError::Report)?;
    let (files, bytes) = dir_size(&args.out);
    let kept: usize = report.files.iter().map(|f| f.nodes.len()).sum();
    say(format_args!(
        "wrote {}: {} certificate file(s), {} steps, {kept} nodes kept, {files} files, {bytes} bytes, in {:.1} s ({read_secs:.1} s reading and checking)",
        args.out.join("index.html").display(),
        report.files.len(),
        report.total_steps(),
        start.elapsed().as_secs_f64()
    ));
    Ok(match &report.verdict {
        Verdict::NotChecked => {
            say(format_args!("checker: not checked"));
            ExitCode::SUCCESS
        }
        Verdict::Verified(line) => {
            say(format_args!("checker: {line}"));
            ExitCode::SUCCESS
        }
        Verdict::Wrong(msg) => {
            say(format_args!("checker: REJECTED\n{msg}"));
            ExitCode::from(1)
        }
    })
}

/// Writes a line to stdout; a reader that closed the pipe (`... | head -1`) is not an error.
fn say(line: std::fmt::Arguments) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Number of files and bytes under `dir`.
fn dir_size(dir: &std::path::Path) -> (u64, u64) {
    let (mut files, mut bytes) = (0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => stack.push(entry.path()),
                Ok(m) => {
                    files += 1;
                    bytes += m.len();
                }
                Err(_) => {}
            }
        }
    }
    (files, bytes)
}
