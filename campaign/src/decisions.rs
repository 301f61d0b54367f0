//! `DIR/decisions.tsv`: every choice a campaign makes by itself, one line each, appended atomically.

use std::path::Path;

/// The file a campaign appends its decisions to: `time` (UTC), `task`, `decision`,
/// `budget` and `outcome`, tab separated. Each line is one `write` to a file opened for
/// appending, so lines of concurrent threads (or runs) never interleave, and a run killed
/// at any moment leaves whole lines only.
pub const DECISIONS_FILE: &str = "decisions.tsv";

/// Appends one decision to `DIR/decisions.tsv` (best effort, like the other notes of a
/// run: a decision that cannot be recorded does not stop the solve). Tabs and line
/// breaks inside a field become spaces.
pub fn record(dir: &Path, task: &str, decision: &str, budget: &str, outcome: &str) {
    use std::io::Write;
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    let line = format!(
        "{}\t{}\t{}\t{}\t{}\n",
        utc_now(),
        clean(task),
        clean(decision),
        clean(budget),
        clean(outcome)
    );
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(DECISIONS_FILE))
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// Records how task `name` is split (`decision`: `split` or `re-rank`): the guessing
/// search's budget, and as outcome the move fixed (when it leans towards the side to move)
/// or the order in which every move becomes a subtask (when it does not).
pub fn split(
    dir: &Path,
    name: &str,
    position: &amazons_format::Position,
    decision: &str,
    budget: &str,
    ranked: &[amazons_format::Move],
    lean: bool,
) {
    let board = position.board;
    let first: Vec<String> = ranked.iter().take(3).map(|m| m.notation(board)).collect();
    let outcome = match ranked.first() {
        Some(m) if lean => format!(
            "guess {} (then {})",
            m.notation(board),
            first[1..].join(", ")
        ),
        _ => format!(
            "leans to {}: every move a subtask, {} first",
            position.to_move.opponent(),
            first.join(", ")
        ),
    };
    record(dir, name, decision, budget, &outcome);
}

/// A decision line read back: (task, decision, budget, outcome), the time dropped.
pub fn read(dir: &Path) -> Vec<[String; 4]> {
    let text = std::fs::read_to_string(dir.join(DECISIONS_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            match f.as_slice() {
                [_, task, decision, budget, outcome] => Some([
                    task.to_string(),
                    decision.to_string(),
                    budget.to_string(),
                    outcome.to_string(),
                ]),
                _ => None,
            }
        })
        .collect()
}

/// The decision of a task solved whole on one rung of the ladder.
pub const SOLVE_WHOLE: &str = "solve whole";
/// The outcome of a rung below the top that ran out of its budget.
pub const NEXT_RUNG: &str = "over budget: next rung";
/// The decision that a task or a split's subtasks were over the quick pass's budget.
pub const QUICK_PASS: &str = "quick pass";
/// A shard written: its steps and bytes, and the time of its search, of choosing its
/// `Search` steps and of its check.
pub const SHARD_WRITTEN: &str = "shard written";
/// A split task's guessed move refuted: the subtasks under it are gone, and the next
/// guess's subtasks are other positions, whatever their names.
pub const GUESS_REFUTED: &str = "guess refuted";
/// The outcome of a rung whose search stopped because a subtask beside it settled its list.
pub const LIST_SETTLED: &str = "stopped: a subtask beside it settled its list";

/// The largest budget that task `name` ran out of on a rung below the top, as recorded in
/// `DIR/decisions.tsv` by earlier runs (0 when none): a resumed run starts above it.
///
/// Only lines after the last refuted guess of a task `name` is nested under count: a
/// subtask is named by its parent and its move, so the next guess's reply of the same
/// index and move has the same name but another position, and the rungs the old one ran
/// past say nothing about it.
pub fn passed_rungs(dir: &Path, name: &str) -> u64 {
    let lines = read(dir);
    lines[current_from(&lines, name)..]
        .iter()
        .filter(|[task, decision, _, outcome]| {
            task == name && decision == SOLVE_WHOLE && outcome == NEXT_RUNG
        })
        .filter_map(|[_, _, budget, _]| parse_nodes(budget.split(',').next().unwrap_or("")))
        .max()
        .unwrap_or(0)
}

/// The first of `lines` ([`read`]) that can be about the position task `name` has now:
/// the one after the last refuted guess ([`GUESS_REFUTED`]) of a task `name` is nested
/// under, or 0.
pub fn current_from(lines: &[[String; 4]], name: &str) -> usize {
    lines
        .iter()
        .rposition(|[task, decision, _, _]| decision == GUESS_REFUTED && nested_under(name, task))
        .map_or(0, |i| i + 1)
}

/// Whether the task `name` is a subtask (at any depth) of the task `above`.
fn nested_under(name: &str, above: &str) -> bool {
    name.len() > above.len() && name.starts_with(above) && name.as_bytes()[above.len()] == b'.'
}

/// A budget cell written by [`nodes`] read back: `10M nodes` is 10,000,000.
pub fn parse_nodes(cell: &str) -> Option<u64> {
    parse_count(cell.trim().strip_suffix(" nodes")?)
}

/// A node count as [`nodes`] and the command line write it: digits, optionally ending in
/// `K`, `M` or `G` (either case) for thousands, millions or billions. `None` for anything
/// else, or a count past `u64`.
pub fn parse_count(n: &str) -> Option<u64> {
    let scale = match n.as_bytes().last()?.to_ascii_uppercase() {
        b'G' => 1_000_000_000,
        b'M' => 1_000_000,
        b'K' => 1_000,
        _ => 1,
    };
    let digits = if scale == 1 { n } else { &n[..n.len() - 1] };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

/// Nodes as a budget cell: `10M`, `1.5G`.
pub fn nodes(n: u64) -> String {
    match n {
        n if n >= 1_000_000_000 && n % 1_000_000_000 == 0 => {
            format!("{}G nodes", n / 1_000_000_000)
        }
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M nodes", n / 1_000_000),
        n => format!("{n} nodes"),
    }
}

/// The time now as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    utc(secs)
}

/// `secs` since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian calendar).
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400 + 3661), "2000-02-29T01:01:01Z");
        assert_eq!(utc(1_795_000_000), "2026-11-18T11:06:40Z");
    }

    #[test]
    fn budgets_read_back_and_rungs_passed() {
        for n in [7, 1_000_000, 10_000_000, 3_000_000_000, 1_500_000] {
            assert_eq!(parse_nodes(&nodes(n)), Some(n), "{}", nodes(n));
        }
        assert_eq!(parse_nodes("10 M nodes"), None);
        assert_eq!(parse_nodes("10M"), None);
        let dir = std::env::temp_dir().join(format!("amazons-rungs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let _ = std::fs::remove_file(dir.join(DECISIONS_FILE));
        assert_eq!(passed_rungs(&dir, "a"), 0);
        let rung = |task: &str, n: u64, outcome: &str| {
            record(
                &dir,
                task,
                SOLVE_WHOLE,
                &format!("{}, 204 MiB table", nodes(n)),
                outcome,
            )
        };
        rung("a", 1_000_000, NEXT_RUNG);
        rung("a", 100_000_000, NEXT_RUNG);
        rung("a", 10_000_000, NEXT_RUNG);
        rung("a", 1_000_000_000, "over budget at the top rung");
        rung("b", 10_000_000_000, NEXT_RUNG);
        rung("a.001-x", 10_000_000_000, NEXT_RUNG);
        assert_eq!(passed_rungs(&dir, "a"), 100_000_000);
        assert_eq!(passed_rungs(&dir, "b"), 10_000_000_000);
        assert_eq!(passed_rungs(&dir, "c"), 0);
        // A refuted guess of a task above: the same name is now another position.
        rung("p.002-y", 10_000_000, NEXT_RUNG);
        rung("p.002-y.001-z", 10_000_000, NEXT_RUNG);
        rung("p.002-y.003-w", 10_000_000, NEXT_RUNG);
        rung("p1.002-y", 100_000_000, NEXT_RUNG);
        assert_eq!(passed_rungs(&dir, "p.002-y"), 10_000_000);
        assert_eq!(passed_rungs(&dir, "p.002-y.001-z"), 10_000_000);
        record(&dir, "p.002-y", GUESS_REFUTED, "-", "e1-e2xe3");
        assert_eq!(passed_rungs(&dir, "p.002-y"), 10_000_000, "its own guess");
        assert_eq!(passed_rungs(&dir, "p.002-y.001-z"), 0, "under the guess");
        rung("p.002-y.001-z", 1_000_000, NEXT_RUNG);
        assert_eq!(
            passed_rungs(&dir, "p.002-y.001-z"),
            1_000_000,
            "the new one"
        );
        record(&dir, "p", GUESS_REFUTED, "-", "b1-b2xb3");
        assert_eq!(passed_rungs(&dir, "p.002-y"), 0);
        assert_eq!(passed_rungs(&dir, "p.002-y.001-z"), 0, "two levels under");
        assert_eq!(passed_rungs(&dir, "p1.002-y"), 100_000_000, "not under p");
        assert_eq!(passed_rungs(&dir, "a"), 100_000_000);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn lines_are_appended_whole_and_read_back() {
        let dir = std::env::temp_dir().join(format!("amazons-decisions-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::fs::remove_file(dir.join(DECISIONS_FILE));
        std::thread::scope(|s| {
            for t in 0..4 {
                let dir = &dir;
                s.spawn(move || {
                    for i in 0..50 {
                        record(
                            dir,
                            &format!("t{t}"),
                            "solve\twhole",
                            &nodes(10_000_000),
                            &format!("{i}"),
                        );
                    }
                });
            }
        });
        let lines = read(&dir);
        assert_eq!(lines.len(), 200);
        assert!(lines
            .iter()
            .all(|l| l[1] == "solve whole" && l[2] == "10M nodes"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
