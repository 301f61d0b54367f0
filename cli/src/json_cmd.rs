//! `--json`: the one JSON object that solve, check, value, eval, perft and rank print instead of their text.

use amazons_format::{Color, Position};
use amazons_solver::{Geometry, Pos};
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Prints `value` as one line of JSON on stdout (a closed pipe ends quietly).
pub fn print(value: &Value) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{value}").is_err() {
        std::process::exit(0);
    }
}

/// A position: board, grid (rows from the top rank, `|` separated), side to move, and the
/// one-line description the text output uses.
pub fn position(p: &Position) -> Value {
    json!({
        "board": p.board.to_string(),
        "grid": p.grid(),
        "to_move": p.to_move.name(),
        "description": p.describe(),
    })
}

fn color(c: Option<Color>) -> Value {
    c.map_or(Value::Null, |c| Value::from(c.name()))
}

/// `amazons perft --json`.
pub fn perft(p: &Position, depth: u32, leaves: u64, seconds: f64) -> Value {
    json!({
        "command": "perft",
        "position": position(p),
        "depth": depth,
        "leaves": leaves,
        "seconds": seconds,
    })
}

/// `amazons solve --json` (one certificate): the winner, the first move when the side to
/// move wins, nodes, times, and the certificate `file` (path, bytes, body blake3).
pub fn solve(
    p: &Position,
    solved: &amazons_solver::Solved,
    first: Option<amazons_format::Move>,
    file: (&Path, usize, String),
    report: &amazons_checker::Report,
    (searches, [search_steps_seconds, check_seconds]): (
        amazons_solver::compact::SearchCounts,
        [f64; 2],
    ),
) -> Value {
    json!({
        "command": "solve",
        "sharded": false,
        "position": position(p),
        "winner": solved.winner.name(),
        "to_move_wins": solved.winner == p.to_move,
        "first_move": first.map(|m| m.notation(p.board)),
        "nodes": {
            "search": solved.search_nodes,
            "extraction": solved.total_nodes - solved.search_nodes,
            "total": solved.total_nodes,
        },
        "researches": solved.researches,
        "sum_steps": solved.sums,
        "sum_failures": solved.sum_failures,
        "search_steps": {
            "replaced": searches.searches,
            "priced": searches.priced,
            "cited": searches.cited,
        },
        "seconds": {
            "search": solved.search_time.as_secs_f64(),
            "extraction": solved.extract_time.as_secs_f64(),
            "search_steps": search_steps_seconds,
            "check": check_seconds,
        },
        "certificate": {
            "path": file.0.display().to_string(),
            "bytes": file.1,
            "steps": report.steps,
            "blake3": file.2,
        },
        "claim": report.claim,
    })
}

/// `amazons solve --shards DIR --json`: the tasks, the manifest and its root hash.
#[allow(clippy::too_many_arguments)]
pub fn solve_sharded(
    p: &Position,
    plan: &amazons_campaign::shard::Plan,
    manifest: &amazons_format::Certificate,
    done: &[amazons_campaign::shard::Done],
    [solve_seconds, check_seconds]: [f64; 2],
    dir: &Path,
    report: &amazons_checker::Report,
    root_hash: &str,
) -> Value {
    let solved: Vec<_> = done.iter().filter(|d| d.mirror_of.is_none()).collect();
    json!({
        "command": "solve",
        "sharded": true,
        "position": position(p),
        "winner": manifest.root.winner.name(),
        "first_move": plan.first.map(|m| m.notation(p.board)),
        "tasks": solved.len(),
        "resumed": solved.iter().filter(|d| d.resumed).count(),
        "nodes": solved.iter().map(|d| d.nodes).sum::<u64>(),
        "seconds": { "solve": solve_seconds, "check": check_seconds },
        "manifest": amazons_format::stored::on_disk(&dir.join("manifest.cert"))
            .unwrap_or_else(|| dir.join("manifest.cert"))
            .display()
            .to_string(),
        "shards": report.shards,
        "shard_steps": report.shard_steps,
        "shard_bytes": solved.iter().map(|d| d.bytes).sum::<u64>(),
        "root_blake3": root_hash,
        "claim": report.claim,
    })
}

/// `amazons rank --json`: the root's numbers and verdict, and the moves shown (those of
/// `--lost`, `known`, with status `given lost`, and listed in `lost_given`).
pub fn rank(
    p: &Position,
    r: &amazons_solver::Ranking,
    top: usize,
    known: &[amazons_format::Move],
) -> Value {
    let shown = if top == 0 {
        r.moves.len()
    } else {
        top.min(r.moves.len())
    };
    let moves: Vec<Value> = r
        .moves
        .iter()
        .take(shown)
        .enumerate()
        .map(|(i, (m, numbers))| {
            let (proof, disproof) = numbers.map_or((Value::Null, Value::Null), |(pn, dn)| {
                (Value::from(pn), Value::from(dn))
            });
            let status = match numbers {
                _ if known.contains(m) => "given lost",
                Some((0, _)) => "proved win",
                Some((_, 0)) => "proved loss",
                Some(_) => "open",
                None => "not reached",
            };
            json!({
                "rank": i + 1,
                "move": m.notation(p.board),
                "proof": proof,
                "disproof": disproof,
                "status": status,
            })
        })
        .collect();
    let (proof, disproof) = r.root.map_or((Value::Null, Value::Null), |(pn, dn)| {
        (Value::from(pn), Value::from(dn))
    });
    json!({
        "command": "rank",
        "position": position(p),
        "nodes": r.nodes,
        "winner": color(r.winner),
        "root_proof": proof,
        "root_disproof": disproof,
        "leans_to": if r.winner.is_some() || r.root.is_none() {
            Value::Null
        } else if r.lean {
            Value::from(p.to_move.name())
        } else {
            Value::from(p.to_move.opponent().name())
        },
        "move_count": r.moves.len(),
        "lost_given": known.iter().map(|m| m.notation(p.board)).collect::<Vec<_>>(),
        "moves": moves,
    })
}

/// `amazons eval --json`: every area with its type, size, bounds and their source, and the
/// verdict.
pub fn eval(p: &Position, e: &amazons_solver::eval::Evaluation) -> Value {
    let g = Geometry::new(p.board);
    let pos = Pos::from_position(p);
    let names = |bb: amazons_solver::bitboard::Bb| -> Vec<String> {
        bb.iter().map(|s| p.board.square_name(s)).collect()
    };
    let areas: Vec<Value> = e
        .areas
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let (w, h) = a.size(&g);
            json!({
                "label": ((b'A' + (i % 26) as u8) as char).to_string(),
                "kind": a.kind.to_string(),
                "width": w,
                "height": h,
                "empties": a.empties(&g, &pos).count(),
                "black_queens": (a.squares & pos.black).count(),
                "white_queens": (a.squares & pos.white).count(),
                "bounds": a.bounds.to_string(),
                "source": a.source.to_string(),
                "squares": names(a.squares),
                "blockers": names(a.blockers),
                "relied": names(a.relied),
                "black_safe_move": a.safe_black.map(|r| r.to_string()),
                "white_safe_move": a.safe_white.map(|r| r.to_string()),
            })
        })
        .collect();
    json!({
        "command": "eval",
        "position": position(p),
        "winner": color(e.winner),
        "total": e.total.to_string(),
        "rest": e.rest.to_string(),
        "infinitesimals": {
            "stars": e.infinitesimals.stars,
            "fuzzy": e.infinitesimals.fuzzy,
            "positive": e.infinitesimals.positive,
            "negative": e.infinitesimals.negative,
        },
        "hot": e.hot.iter().map(|&i| ((b'A' + (i % 26) as u8) as char).to_string()).collect::<Vec<_>>(),
        "areas": areas,
    })
}

/// `amazons value --json`: the fields of the text report (`key: value` lines; the
/// thermograph's point lines under `thermograph`).
pub fn value(p: &Position, report: &str) -> Value {
    let mut fields = Map::new();
    fields.insert("command".into(), "value".into());
    fields.insert("position".into(), position(p));
    let mut lines = report.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let key = key
            .trim()
            .replace(['(', ')'], "")
            .replace(' ', "_")
            .to_ascii_lowercase();
        if key == "position" {
            continue;
        }
        if key == "thermograph" {
            let mut points = Vec::new();
            while let Some(next) = lines.peek() {
                if next.starts_with("temperature:") {
                    break;
                }
                points.push(next.trim().to_string());
                lines.next();
            }
            fields.insert(key, Value::from(points.join("\n")));
        } else {
            fields.insert(key, Value::from(rest.trim()));
        }
    }
    Value::Object(fields)
}

/// `amazons check --json FILE|DIR...`: one entry per certificate file, and the exit code
/// (0 verified, 1 some certificate wrong, 2 some input unreadable: a missing or damaged
/// file or shard, or a directory without its manifest). Files are found and checked by the
/// checker's own front end (`amazons_checker::cli`), so the verdicts are `amazons check`'s.
pub fn check(paths: &[PathBuf], threads: usize) -> (Value, u8) {
    use amazons_checker::cli::{check_file, expand, Input, Verdict};
    let (mut unreadable, mut wrong) = (false, false);
    let mut entries = Vec::new();
    let refuse = |path: &Path, error: String| json!({"path": path.display().to_string(), "status": "unreadable", "error": error});
    for path in paths {
        let files = match expand(path) {
            Ok(files) => files,
            Err(message) => {
                unreadable = true;
                entries.push(refuse(path, message));
                continue;
            }
        };
        for input in files {
            let file = match input {
                Input::File(file) => file,
                Input::Unfinished(dir, n) => {
                    // A note: the shard files follow, each checked on its own.
                    unreadable |= n == 0;
                    entries.push(json!({
                        "path": dir.display().to_string(),
                        "status": "unfinished",
                        "shard_files": n,
                        "error": "the manifest is missing: each shard is checked on its own",
                    }));
                    continue;
                }
            };
            let start = std::time::Instant::now();
            let verdict = check_file(&file, threads);
            let ms = start.elapsed().as_millis() as u64;
            let name = file.display().to_string();
            entries.push(match verdict {
                Verdict::Ok(r) => json!({
                    "path": name,
                    "status": "ok",
                    "claim": r.claim,
                    "steps": r.steps,
                    "shards": r.shards,
                    "shard_steps": r.shard_steps,
                    "millis": ms,
                }),
                Verdict::Wrong(e) if e.failure.damaged() => {
                    unreadable = true;
                    refuse(&file, e.to_string())
                }
                Verdict::Wrong(e) => {
                    wrong = true;
                    json!({"path": name, "status": "wrong", "error": e.to_string()})
                }
                Verdict::Unreadable(e) => {
                    unreadable = true;
                    refuse(&file, e)
                }
            });
        }
    }
    let code = if unreadable {
        2
    } else if wrong {
        1
    } else {
        0
    };
    let value = json!({
        "command": "check",
        "verified": code == 0,
        "exit_code": code,
        "files": entries,
    });
    (value, code)
}
