//! The `amazons` command: perft, solve (with certificate), check, show.

use amazons_format::{Color, Move, Position, Step};
use amazons_solver::{perft, Geometry, Options, Pos};
use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Solve small Amazons boards and publish checkable proof certificates.
///
/// Boards are `WxH` (width x height, files a.., ranks 1..) with the small-board start
/// (White on b1, (W-1)1, a2, W2; Black mirrored on the top two ranks; White moves
/// first), or `standard` for the 10x10 tournament start. Moves are written
/// `b1-b4xd4` (queen from-to, then the arrow square).
#[derive(Parser, Debug)]
#[command(name = "amazons", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count the leaves of the move tree to a given depth. Last line: the count.
    Perft {
        /// `BOARD DEPTH`, or just `DEPTH` with --position.
        #[arg(required = true, num_args = 1..=2, value_name = "BOARD DEPTH")]
        args: Vec<String>,
        #[command(flatten)]
        setup: Setup,
    },
    /// Solve a position, write its certificate and check it. Last line: `result: X wins`.
    Solve {
        /// Board (`WxH` or `standard`); omit with --position.
        board: Option<String>,
        #[command(flatten)]
        setup: Setup,
        /// Certificate file to write (default: a name under the current directory).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Transposition table size in MiB (bounds the search memory).
        #[arg(long, default_value_t = 512, value_name = "MIB")]
        hash: usize,
        /// Give up after this many search nodes.
        #[arg(long, value_name = "N")]
        max_nodes: Option<u64>,
        /// Do not print progress lines.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Check certificate files (directories: every *.cert inside). Exit 0 verified,
    /// 1 wrong, 2 unreadable.
    Check {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Draw a position with coordinates.
    Show {
        /// Board (`WxH` or `standard`); omit with --position.
        board: Option<String>,
        #[command(flatten)]
        setup: Setup,
    },
}

/// How to set up the position.
#[derive(Args, Debug, Clone)]
struct Setup {
    /// Start from this grid instead of a start position: rows from the top rank down
    /// separated by `|`; X Black, O White, # arrow, . empty (e.g. `.X.|...|O#.`).
    #[arg(long, value_name = "GRID")]
    position: Option<String>,
    /// Side to move for --position: white or black.
    #[arg(long, value_name = "SIDE", default_value = "white")]
    to_move: String,
    /// Moves to play first, space separated (e.g. "b1-b4xd4 e5-c5xc4").
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
}

/// A bad-input error: exit code 2.
#[derive(Debug)]
struct Usage(String);
impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Usage {}

fn usage<T>(msg: impl Into<String>) -> Result<T> {
    Err(Usage(msg.into()).into())
}

impl Setup {
    fn position(&self, board: Option<&str>) -> Result<Position> {
        let mut pos = match (&self.position, board) {
            (Some(_), Some(b)) => {
                return usage(format!("give either a board ({b}) or --position, not both"))
            }
            (Some(grid), None) => {
                let side = Color::parse(&self.to_move).map_err(|e| Usage(e.to_string()))?;
                Position::parse_grid(grid, side).map_err(|e| Usage(e.to_string()))?
            }
            (None, Some(b)) => Position::start(b).map_err(|e| Usage(e.to_string()))?,
            (None, None) => {
                return usage("no position: give a board (e.g. 5x4) or --position GRID")
            }
        };
        if let Some(moves) = &self.moves {
            let g = Geometry::new(pos.board);
            for text in moves.split_whitespace() {
                let m = Move::parse(pos.board, text).map_err(|e| Usage(e.to_string()))?;
                let p = Pos::from_position(&pos);
                if !p.is_legal(&g, m) {
                    return usage(format!(
                        "illegal move {text} for {} in {}",
                        pos.to_move,
                        pos.grid()
                    ));
                }
                pos = p.play(m).to_position(&g);
            }
        }
        Ok(pos)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<Usage>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Perft { args, setup } => {
            let (board, depth) = match args.as_slice() {
                [b, d] => (Some(b.as_str()), d),
                [d] => (None, d),
                _ => return usage("perft takes BOARD DEPTH"),
            };
            let depth: u32 = depth
                .parse()
                .map_err(|_| Usage(format!("bad depth {depth:?}: expected a whole number")))?;
            let position = setup.position(board)?;
            let g = Geometry::new(position.board);
            let t = Instant::now();
            let n = perft(&g, &Pos::from_position(&position), depth);
            let secs = t.elapsed().as_secs_f64();
            println!(
                "{} depth {depth}: {n} leaves in {secs:.3} s ({:.1} M leaves/s)",
                position.describe(),
                n as f64 / secs.max(1e-9) / 1e6
            );
            println!("{n}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Show { board, setup } => {
            let position = setup.position(board.as_deref())?;
            print!("{}", position.render());
            println!("grid: {}", position.grid());
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { files } => Ok(ExitCode::from(amazons_checker::cli::run(&files) as u8)),
        Command::Solve {
            board,
            setup,
            output,
            hash,
            max_nodes,
            quiet,
        } => solve(board, setup, output, hash, max_nodes, quiet),
    }
}

/// A default certificate name: the board and the moves, or a hash of the position.
fn default_name(board: Option<&str>, setup: &Setup, position: &Position) -> PathBuf {
    let mut name = match (board, &setup.moves) {
        (Some(b), None) => b.to_ascii_lowercase(),
        (Some(b), Some(m)) => format!(
            "{}-{}",
            b.to_ascii_lowercase(),
            m.split_whitespace().collect::<Vec<_>>().join("_")
        ),
        _ => {
            let h = blake3::hash(format!("{} {}", position.grid(), position.to_move).as_bytes());
            format!("position-{}", &h.to_hex()[..12])
        }
    };
    name.push_str(".cert");
    PathBuf::from(name)
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .context("output path has no file name")?
        .to_string_lossy()
        .to_string();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| -> Result<()> {
        let mut f = std::fs::File::create(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn solve(
    board: Option<String>,
    setup: Setup,
    output: Option<PathBuf>,
    hash: usize,
    max_nodes: Option<u64>,
    quiet: bool,
) -> Result<ExitCode> {
    let position = setup.position(board.as_deref())?;
    if hash == 0 {
        return usage("--hash must be at least 1 MiB");
    }
    let path = output.unwrap_or_else(|| default_name(board.as_deref(), &setup, &position));
    println!("solving {} (table {hash} MiB)", position.describe());
    let opts = Options {
        hash_mib: hash,
        max_nodes,
        progress: !quiet,
    };
    let note = std::env::args().collect::<Vec<_>>().join(" ");
    let solved = amazons_solver::solve(&position, &opts, &note)?;
    let first = solved
        .first_move
        .or_else(|| match solved.certificate.steps.first() {
            Some(Step::Outlast { moves }) if solved.winner == position.to_move => {
                moves.first().copied()
            }
            _ => None,
        });
    if solved.winner == position.to_move {
        match first {
            Some(m) => println!(
                "{} to move wins with {}",
                solved.winner,
                m.notation(position.board)
            ),
            None => println!("{} to move wins", solved.winner),
        }
    } else {
        println!("{} to move loses: {} wins", position.to_move, solved.winner);
    }
    let total = solved.search_time + solved.extract_time;
    println!(
        "nodes: {} search + {} extraction ({} re-searches), {:.0} nodes/s",
        solved.search_nodes,
        solved.total_nodes - solved.search_nodes,
        solved.researches,
        solved.total_nodes as f64 / total.as_secs_f64().max(1e-9)
    );
    println!(
        "time: {:.3} s search + {:.3} s extraction",
        solved.search_time.as_secs_f64(),
        solved.extract_time.as_secs_f64()
    );
    let bytes = amazons_format::encode(&solved.certificate)?;
    let t = Instant::now();
    let report = match amazons_checker::check(&solved.certificate) {
        Ok(r) => r,
        Err(e) => bail!("the checker rejected the solver's own certificate (a solver bug): {e}"),
    };
    let check_time = t.elapsed();
    write_atomic(&path, &bytes)?;
    let body_hash = blake3::hash(amazons_format::file::verified_body(&bytes)?);
    println!(
        "certificate: {} ({} bytes, {} steps, blake3 {})",
        path.display(),
        bytes.len(),
        report.steps,
        body_hash.to_hex()
    );
    println!(
        "checked: {} in {:.3} s ({:.1}% of solve time)",
        report.claim,
        check_time.as_secs_f64(),
        100.0 * check_time.as_secs_f64() / total.as_secs_f64().max(1e-9)
    );
    println!("result: {} wins", solved.winner);
    Ok(ExitCode::SUCCESS)
}
