//! Command-line tests of `amazons` (perft, solve, check, show, bad input) and of `amazons-check` beside it.

use crate::common::{
    amazons, amazons_check_exe, ok, run_exe, s, shard_names, sharded, shards_in, Out, TempDir,
};
use amazons_checker::rules;
use amazons_format::{Color, Position};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Asserts a bad-input failure: exit code 2, one clear `error:` line on stderr, no panic.
fn assert_usage_error(args: &[&str]) -> String {
    let out = amazons(args);
    assert_eq!(out.code, 2, "amazons {args:?}: expected exit 2: {out:?}");
    let lines: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "amazons {args:?}: stderr {:?}", out.stderr);
    assert!(
        lines[0].starts_with("error:"),
        "amazons {args:?}: {:?}",
        lines[0]
    );
    assert!(
        !out.stderr.contains("panicked") && !out.stderr.contains("RUST_BACKTRACE"),
        "amazons {args:?} panicked: {}",
        out.stderr
    );
    lines[0].to_string()
}

// ---- perft ----

#[test]
fn perft_5x6_depth_1_is_410() {
    assert_eq!(ok(&["perft", "5x6", "1"]).last_line(), "410");
}

#[test]
fn perft_after_a_move_is_157() {
    let out = ok(&["perft", "5x6", "1", "--moves", "b1-b4xd4"]);
    assert_eq!(out.last_line(), "157");
}

#[test]
fn perft_from_a_grid_agrees_with_the_checker_rules() {
    for (side, flag) in [(Color::White, "white"), (Color::Black, "black")] {
        let out = ok(&["perft", "--position", ".X.|...|O#.", "--to-move", flag, "1"]);
        let p = Position::parse_grid(".X.|...|O#.", side).expect("grid");
        let expected = rules::legal_moves(&p).len();
        assert!(expected > 0);
        assert_eq!(out.last_line(), expected.to_string(), "{side} to move");
    }
    // The default side to move is White.
    let out = ok(&["perft", "--position", ".X.|...|O#.", "1"]);
    let p = Position::parse_grid(".X.|...|O#.", Color::White).expect("grid");
    assert_eq!(out.last_line(), rules::legal_moves(&p).len().to_string());
}

// ---- solve and check ----

#[test]
fn solve_4x4_writes_a_certificate_that_checks() {
    let dir = TempDir::new("cli", "solve4x4");
    let cert = dir.path("x.cert");
    let out = ok(&["solve", "4x4", "-q", "-o", s(&cert)]);
    assert_eq!(out.last_line(), "result: Black wins", "{}", out.stdout);
    assert!(cert.is_file(), "no certificate written");
    // No temporary file is left beside it.
    let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "x.cert")
        .collect();
    assert!(leftovers.is_empty(), "left behind: {leftovers:?}");

    let out = ok(&["check", s(&cert)]);
    assert!(
        out.last_line().starts_with("verified: Black wins"),
        "{}",
        out.stdout
    );
    // A directory is searched for *.cert files.
    let out = ok(&["check", s(&dir.0)]);
    assert!(out.last_line().starts_with("verified: Black wins"));

    if let Some(exe) = amazons_check_exe() {
        let out = run_exe(&exe, &[s(&cert)]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(
            out.last_line().starts_with("verified: Black wins"),
            "{out:?}"
        );
        let out = run_exe(&exe, &[]);
        assert_eq!(out.code, 2, "no arguments: {out:?}");
    }
}

/// Each df-pn number rule (`--numbers`) solves a board and writes a certificate that checks.
#[test]
fn every_number_rule_writes_a_certificate_that_checks() {
    let dir = TempDir::new("cli", "numbers");
    for rule in ["weak", "sum", "capped"] {
        let cert = dir.path(&format!("{rule}.cert"));
        let out = ok(&["solve", "4x4", "-q", "--numbers", rule, "-o", s(&cert)]);
        assert_eq!(
            out.last_line(),
            "result: Black wins",
            "{rule}: {}",
            out.stdout
        );
        let out = ok(&["check", s(&cert)]);
        assert!(
            out.last_line().starts_with("verified: Black wins"),
            "{rule}: {}",
            out.stdout
        );
    }
    let out = amazons(&["solve", "4x4", "-q", "--numbers", "product"]);
    assert_eq!(out.code, 2, "an unknown rule: {out:?}");
}

/// Runs `amazons check` (and `amazons-check` when available) on `file`, expecting `code`
/// and no panic.
fn assert_check_exit(file: &Path, code: i32) {
    let mut runs = vec![("amazons check", amazons(&["check", s(file)]))];
    if let Some(exe) = amazons_check_exe() {
        runs.push(("amazons-check", run_exe(&exe, &[s(file)])));
    }
    for (name, out) in runs {
        assert_eq!(out.code, code, "{name} {}: {out:?}", file.display());
        assert!(!out.stderr.contains("panicked"), "{name}: {}", out.stderr);
        assert!(!out.stderr.trim().is_empty(), "{name}: no error message");
        assert!(!out.stdout.contains("verified:"), "{name}: {}", out.stdout);
    }
}

#[test]
fn tampered_truncated_and_missing_certificates_fail_with_the_right_exit_code() {
    let dir = TempDir::new("cli", "tamper");
    let cert = dir.path("x.cert");
    ok(&["solve", "4x4", "-q", "--hash", "16", "-o", s(&cert)]);
    let bytes = std::fs::read(&cert).expect("read certificate");

    // A wrong proof with a valid file layout: the root winner flipped, re-encoded.
    let mut wrong = amazons_format::decode(&bytes).expect("decode");
    wrong.root.winner = wrong.root.winner.opponent();
    let tampered = dir.path("tampered.cert");
    std::fs::write(&tampered, amazons_format::encode(&wrong).expect("encode")).expect("write");
    assert_check_exit(&tampered, 1);

    // A flipped body byte breaks the hash: the file is unreadable.
    let mut flipped = bytes.clone();
    let mid = 52 + (bytes.len() - 60) / 2;
    flipped[mid] ^= 0x20;
    let flipped_path = dir.path("flipped.cert");
    std::fs::write(&flipped_path, flipped).expect("write");
    assert_check_exit(&flipped_path, 2);

    let truncated = dir.path("truncated.cert");
    std::fs::write(&truncated, &bytes[..bytes.len() - 1]).expect("write");
    assert_check_exit(&truncated, 2);

    assert_check_exit(&dir.path("missing.cert"), 2);

    // Unreadable takes precedence over wrong when both occur.
    let out = amazons(&["check", s(&tampered), s(&truncated), s(&cert)]);
    assert_eq!(out.code, 2, "{out:?}");
    let out = amazons(&["check", s(&tampered), s(&cert)]);
    assert_eq!(out.code, 1, "{out:?}");
}

/// Reads the first `n` positions of an MCGS test file: `(grid, black_wins_moving_first)`.
fn mcgs_black_outcomes(n: usize) -> Vec<(String, bool)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/mcgs/amazons_3x4.test");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("missing MCGS test data {}: {e}", path.display()));
    text.lines()
        .filter_map(|line| {
            let (grid, rest) = line.split_once('{')?;
            let grid = grid.trim();
            if !grid.contains('|') {
                return None;
            }
            let black_wins = if rest.contains("B win") {
                true
            } else if rest.contains("B loss") {
                false
            } else {
                panic!("no Black outcome in {line:?}")
            };
            Some((grid.to_string(), black_wins))
        })
        .take(n)
        .collect()
}

#[test]
fn solve_an_mcgs_position_with_black_to_move() {
    let dir = TempDir::new("cli", "mcgs");
    let cases = mcgs_black_outcomes(6);
    assert_eq!(cases.len(), 6, "MCGS file too short");
    for (i, (grid, black_wins)) in cases.iter().enumerate() {
        let cert = dir.path(&format!("p{i}.cert"));
        let out = ok(&[
            "solve",
            "--position",
            grid,
            "--to-move",
            "black",
            "--hash",
            "16",
            "-q",
            "-o",
            s(&cert),
        ]);
        let winner = if *black_wins { "Black" } else { "White" };
        assert_eq!(
            out.last_line(),
            format!("result: {winner} wins"),
            "{grid} Black to move: {}",
            out.stdout
        );
        let out = ok(&["check", s(&cert)]);
        assert!(
            out.last_line()
                .starts_with(&format!("verified: {winner} wins")),
            "{}",
            out.stdout
        );
    }
}

// ---- show ----

/// The move lines of `amazons rank`: (move, what follows it).
fn rank_lines(out: &Out) -> Vec<(String, String)> {
    (out.stdout.lines().skip(2))
        .map(|l| {
            let mut w = l.split_whitespace();
            let (_, m) = (w.next(), w.next().expect("a move"));
            (m.to_string(), w.collect::<Vec<_>>().join(" "))
        })
        .collect()
}

#[test]
fn rank_lists_every_move_and_its_verdicts_agree_with_solve() {
    // 4x4 is a second-player win: with a budget that settles it, every move is lost.
    // `2M` as the help and the ladder's records write node counts.
    let out = ok(&["rank", "4x4", "-q", "--top", "0", "--max-nodes", "2M"]);
    assert!(
        out.stdout
            .lines()
            .next()
            .is_some_and(|l| l.contains("proved: Black wins")),
        "{}",
        out.stdout
    );
    let lines = rank_lines(&out);
    let moves: usize = ok(&["perft", "4x4", "1"])
        .last_line()
        .parse()
        .expect("count");
    assert_eq!(lines.len(), moves, "one line per legal move");
    assert!(lines.iter().all(|(_, v)| v == "proved loss"), "{lines:?}");

    // Black to move wins after b1-a1xb1: the first move listed is a proved win, and an
    // independent solve after it agrees; a move listed as lost is a White win.
    let rank = |top| {
        let args = ["rank", "4x4", "--moves", "b1-a1xb1", "-q", "--top", top];
        ok(&[&args[..], &["--max-nodes", "2000000"]].concat())
    };
    let out = rank("0");
    let lines = rank_lines(&out);
    let (best, verdict) = &lines[0];
    assert_eq!(verdict, "proved win", "{}", out.stdout);
    let after = format!("b1-a1xb1 {best}");
    let dir = TempDir::new("cli", "rank");
    let cert = dir.path("best.cert");
    let solved = ok(&["solve", "4x4", "--moves", &after, "-q", "-o", s(&cert)]);
    assert_eq!(solved.last_line(), "result: Black wins");
    if let Some((lost, _)) = lines.iter().find(|(_, v)| v == "proved loss") {
        let after = format!("b1-a1xb1 {lost}");
        let solved = ok(&["solve", "4x4", "--moves", &after, "-q", "-o", s(&cert)]);
        assert_eq!(solved.last_line(), "result: White wins");
    }
    // --top keeps the order and cuts the list.
    assert_eq!(rank_lines(&rank("3")), lines[..3].to_vec());
    // A budget of no nodes settles nothing: refused before any search, by every command.
    for args in [
        &["rank", "4x4", "--max-nodes", "0"][..],
        &["solve", "4x4", "--max-nodes", "0K"],
        &[
            "solve",
            "4x4",
            "--shards",
            "/nonexistent/x",
            "--ladder",
            "0,5",
        ],
    ] {
        let out = amazons(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(
            out.stderr.contains("a node budget must be at least 1"),
            "{args:?}: {out:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: {out:?}");
    }
    let out = amazons(&["rank", "4x4", "--max-nodes", "2.5M"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("`2.5M` is not a node count"), "{out:?}");
    assert_usage_error(&["rank", "4x4", "--moves", "z9-z8xz7"]);
}

#[test]
fn rank_with_lost_moves_lists_them_as_given_after_the_others() {
    // 5x4 after 20000 nodes is open; its best move, given as --lost, is listed as given
    // after every open move, and another move comes first.
    let rank = |extra: &[&str]| {
        let args = ["rank", "5x4", "-q", "--top", "0", "--max-nodes", "20000"];
        rank_lines(&ok(&[&args[..], extra].concat()))
    };
    let first = rank(&[]);
    let best = first[0].0.clone();
    assert!(first[0].1.starts_with("proof"), "{first:?}");
    let next = rank(&["--lost", &best]);
    assert_eq!(next.len(), first.len(), "every move listed");
    assert_ne!(next[0].0, best);
    let at = next.iter().position(|(m, _)| *m == best).expect("listed");
    assert_eq!(next[at].1, "lost (--lost)", "{next:?}");
    assert!(
        next[at + 1..].iter().all(|(_, v)| v == "proved loss"),
        "{next:?}"
    );
    // Every move given as lost: Black wins, as far as the givens go, and says so.
    let mut args = vec!["rank", "5x4", "-q", "--max-nodes", "20000"];
    for (m, _) in &first {
        args.extend(["--lost", m.as_str()]);
    }
    let all = ok(&args);
    let head = all.stdout.lines().next().unwrap_or_default();
    assert!(
        head.ends_with("proved: Black wins (taking the --lost moves as lost)"),
        "{head}"
    );
    let err = assert_usage_error(&["rank", "5x4", "--lost", "b1-b9xb1"]);
    assert!(err.contains("--lost: bad move \"b1-b9xb1\""), "{err}");
    let err = assert_usage_error(&["rank", "5x4", "--lost", "a1-a1xa1"]);
    assert!(err.contains("--lost a1-a1xa1: not a legal move"), "{err}");
}

#[test]
fn show_draws_coordinates() {
    let out = ok(&["show", "4x4"]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["a", "b", "c", "d"]),
        "no file letters: {}",
        out.stdout
    );
    for rank in 1..=4 {
        assert!(
            lines
                .iter()
                .any(|l| l.split_whitespace().next() == Some(&rank.to_string())
                    && l.split_whitespace().count() == 5),
            "no rank {rank} row: {}",
            out.stdout
        );
    }
    let start = Position::start("4x4").expect("4x4 start");
    assert!(
        lines.contains(&format!("grid: {}", start.grid()).as_str()),
        "{}",
        out.stdout
    );
}

// ---- bad input ----

#[test]
fn bad_inputs_exit_2_with_one_error_line() {
    let m = assert_usage_error(&["perft", "7y3", "1"]);
    assert!(m.contains("7y3"), "{m}");
    let m = assert_usage_error(&["perft", "11x11", "1"]);
    assert!(m.contains("11x11") || m.contains("10x10"), "{m}");
    let m = assert_usage_error(&["perft", "--position", "..|...", "1"]);
    assert!(m.contains("ragged"), "{m}");
    let m = assert_usage_error(&["perft", "--position", ".Z.|...", "1"]);
    assert!(m.contains('Z'), "{m}");
    let m = assert_usage_error(&["perft", "4x4", "1", "--moves", "a1-a2xa3"]);
    assert!(m.contains("--moves a1-a2xa3: not a legal move"), "{m}");
    let m = assert_usage_error(&["perft", "4x4", "abc"]);
    assert!(m.contains("abc"), "{m}");
    let m = assert_usage_error(&["perft", "4x4", "1", "--moves", "b1-b2"]);
    assert!(m.starts_with("error: --moves: bad move \"b1-b2\""), "{m}");
    assert_usage_error(&[
        "perft",
        "--position",
        ".X.|...|O#.",
        "--to-move",
        "red",
        "1",
    ]);
    assert_usage_error(&["solve", "7y3"]);
    assert_usage_error(&["show", "3x3"]);
    assert_usage_error(&["show"]);
    assert_usage_error(&["show", "4x4", "--position", "..|.."]);
    let m = assert_usage_error(&["bench", "--boards", "4x4", "--threads", "0"]);
    assert!(m.contains("thread"), "{m}");
    let m = assert_usage_error(&["bench", "--boards", "4x4", "--solver", "fast"]);
    assert!(m.contains("fast"), "{m}");
    let m = assert_usage_error(&["db", "build-active", "--tiers", "3x5:0"]);
    assert!(m.contains("3x5:0"), "{m}");
    let dir = TempDir::new("cli", "zero-threads");
    let m = assert_usage_error(&sharded("4x4", &dir.path("s"), "--threads 0"));
    assert!(m.contains("thread"), "{m}");
    // The split's retry factor needs a sharded solve and is a number (clap's own
    // messages, with a usage hint after the error line).
    let shards = dir.path("s");
    for (args, names) in [
        (vec!["solve", "4x4", "--escalate", "8"], "--shards"),
        (
            vec!["solve", "4x4", "--shards", s(&shards), "--escalate", "x"],
            "--escalate",
        ),
    ] {
        let out = amazons(&args);
        assert_eq!(out.code, 2, "amazons {args:?}: {out:?}");
        assert!(out.stderr.starts_with("error:"), "{}", out.stderr);
        assert!(out.stderr.contains(names), "{}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
    assert!(!shards.exists(), "nothing written");
    // A table larger than any machine's memory used to abort in the allocator.
    for hash in ["0", "99999999999"] {
        let m = assert_usage_error(&["solve", "4x4", "--hash", hash]);
        assert!(m.contains("--hash"), "{m}");
    }
}

/// `amazons bench --threads 1,2`: the sharded rows name the winner's first move and give
/// the same root hash with either thread count (tasks are independent of scheduling).
#[test]
fn bench_times_sharded_solves_with_each_thread_count() {
    let out = ok(&[
        "bench",
        "--boards",
        "5x4",
        "--solver",
        "full",
        "--threads",
        "1,2",
        "--hash",
        "16",
    ]);
    let rows: Vec<Vec<&str>> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("| 5x4 | b1-b2xd2 |"))
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 2, "{}", out.stdout);
    assert_eq!((rows[0][3], rows[1][3]), ("1", "2"), "{}", out.stdout);
    // Same task count, nodes and root hash.
    assert_eq!(rows[0][4..6], rows[1][4..6], "{}", out.stdout);
    assert_eq!(rows[0][10], rows[1][10], "{}", out.stdout);
    assert!(rows[0][10].len() == 18, "{}", out.stdout);
}

/// The batch-system route: `amazons tasks` prints one command per task; running them (here
/// with `sh`, as GNU parallel or a Slurm array job would) and then `amazons manifest`
/// assembles a manifest that checks, identical to the one `solve --shards` writes.
#[test]
fn tasks_run_elsewhere_assemble_into_a_checked_manifest() {
    let tmp = TempDir::new("cli", "tasks");
    let dir = tmp.path("result");
    let setup = ["4x4", "--moves", "b1-b2xb3", "--first-move", "c4-c2xc3"];
    let mut args = vec!["tasks"];
    args.extend(setup);
    args.extend(["--shards", s(&dir), "--hash", "8"]);
    let tasks = ok(&args);
    let lines: Vec<&str> = tasks.stdout.lines().collect();
    assert!(
        lines.len() > 5,
        "one line per White reply: {}",
        tasks.stdout
    );
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_amazons"))
        .parent()
        .expect("binary directory");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let pending = || -> Vec<String> {
        let mut a = vec!["tasks"];
        a.extend(setup);
        a.extend(["--shards", s(&dir), "--hash", "8", "--pending"]);
        ok(&a).stdout.lines().map(str::to_string).collect()
    };
    assert_eq!(
        pending(),
        lines,
        "nothing solved yet: every task is pending"
    );
    for (i, line) in lines.iter().enumerate() {
        if i == 2 {
            // Two tasks done: `--pending` lists the others, for resubmitting.
            assert_eq!(pending(), lines[2..], "the two solved tasks are left out");
        }
        assert!(line.starts_with("amazons solve --position "), "{line}");
        let status = Command::new("sh")
            .arg("-c")
            .arg(line)
            .env("PATH", &path)
            .status()
            .expect("run a task");
        assert!(status.success(), "task failed: {line}");
    }
    assert!(pending().is_empty(), "all tasks solved");
    let mut args = vec!["manifest"];
    args.extend(setup);
    args.extend(["--shards", s(&dir)]);
    let out = ok(&args);
    assert!(
        out.last_line().starts_with("verified: Black wins"),
        "{out:?}"
    );
    let checked = ok(&["check", s(&dir.join("manifest.cert"))]);
    assert!(
        checked
            .stdout
            .contains(&format!("in {} shards", lines.len())),
        "{checked:?}"
    );

    // The same split solved in one go by `solve --shards` proves the same claim, and a
    // shard removed afterwards makes the manifest unreadable for the checker.
    let dir2 = tmp.path("direct");
    let mut args = vec!["solve"];
    args.extend(setup);
    args.extend(["--shards", s(&dir2), "--threads", "2", "-q", "--hash", "16"]);
    let out = ok(&args);
    assert_eq!(out.last_line(), "result: Black wins");
    let first_shard = shards_in(&dir2, ".cert").swap_remove(0);
    std::fs::remove_file(first_shard).expect("remove a shard");
    let out = amazons(&["check", s(&dir2.join("manifest.cert"))]);
    assert_eq!(
        out.code, 2,
        "a manifest citing a missing shard is unreadable: {out:?}"
    );
    assert!(out.stderr.contains("no shard file"), "{out:?}");
}

#[test]
fn index_lists_certificates_and_sharded_results_and_fills_the_readme_table() {
    let tmp = TempDir::new("cli", "index");
    let dir = tmp.path("certs");
    std::fs::create_dir_all(&dir).expect("mkdir");
    ok(&[
        "solve",
        "4x4",
        "-q",
        "--hash",
        "8",
        "-o",
        s(&dir.join("4x4.cert")),
    ]);
    // A finished sharded result and an unfinished one (budget too small for some tasks).
    ok(&sharded("4x4", &dir.join("4x4-sharded"), "-q --hash 8"));
    let partial = amazons(&sharded(
        "4x4",
        &dir.join("4x4-partial"),
        "-q --hash 8 --max-nodes 400",
    ));
    assert_eq!(partial.code, 1, "{partial:?}");
    // An open task split by hand: its subtask shard (a copy of another shard) is counted.
    let decisions =
        std::fs::read_to_string(dir.join("4x4-partial/decisions.tsv")).expect("decisions");
    let open_task = decisions
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|f| f.get(2) == Some(&"task left open"))
        .and_then(|f| f.get(1).map(|n| n.to_string()))
        .expect("a task left open");
    let donor = shards_in(&dir.join("4x4-partial"), ".cert").swap_remove(0);
    std::fs::copy(
        &donor,
        dir.join("4x4-partial/shards")
            .join(format!("{open_task}.000-a1-a2xa3.cert")),
    )
    .expect("subtask shard");
    std::fs::write(
        dir.join("README.md"),
        "# Results\n\n<!-- index:start -->\nold table\n<!-- index:end -->\n\nMore text.\n",
    )
    .expect("readme");
    ok(&["index", s(&dir)]);
    let index = std::fs::read_to_string(dir.join("index.md")).expect("index.md");
    assert!(index.contains("| 4x4.cert | 4x4 | Black wins 4x4 start, White to move |"));
    assert!(index.contains("| 4x4-sharded/manifest.cert (44 shards) | 4x4 | Black wins"));
    assert!(index.contains("## In progress"), "{index}");
    assert!(
        index.contains("| 4x4-partial/ | 4x4 start, White to move | - |"),
        "{index}"
    );
    assert!(
        index.contains(" (open ones: 1 subtask shards) |"),
        "{index}"
    );
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("readme");
    assert!(!readme.contains("old table"), "{readme}");
    assert!(readme.contains("| 4x4.cert | 4x4 |"), "{readme}");
    assert!(readme.starts_with("# Results\n\n<!-- index:start -->\n| file |"));
    assert!(
        readme.ends_with("<!-- index:end -->\n\nMore text.\n"),
        "{readme}"
    );
    // A damaged shard of the finished result: exit 2 as `check` gives, nothing rewritten.
    let victim = shards_in(&dir.join("4x4-sharded"), ".cert").swap_remove(0);
    let mut bytes = std::fs::read(&victim).expect("read");
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    std::fs::write(&victim, &bytes).expect("write");
    let out = amazons(&["index", s(&dir)]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("manifest.cert does not check"),
        "{out:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("index.md")).expect("index.md"),
        index
    );
}

/// A temporary directory holding `4x4/`, a finished sharded solve of the 4x4 start (44
/// shards and a manifest).
fn sharded_4x4(tag: &str) -> (TempDir, PathBuf) {
    let tmp = TempDir::new("cli", tag);
    let dir = tmp.path("4x4");
    ok(&sharded("4x4", &dir, "-q --hash 8"));
    (tmp, dir)
}

#[test]
fn compressed_certificates_and_shards_check_resume_and_reject_damage() {
    let (tmp, dir) = sharded_4x4("compress");
    let single = tmp.path("4x4.cert");
    ok(&["solve", "4x4", "-q", "--hash", "8", "-o", s(&single)]);
    let out = ok(&["compress", s(&dir), s(&single)]);
    assert!(out.stdout.starts_with("compressed 46 files"), "{out:?}");
    assert!(!single.exists() && tmp.path("4x4.cert.zst").is_file());
    assert!(dir.join("manifest.cert.zst").is_file() && !dir.join("manifest.cert").exists());
    let checked = ok(&["check", s(&dir), s(&tmp.path("4x4.cert.zst"))]);
    assert!(checked.stdout.contains("in 44 shards"), "{checked:?}");
    // A rerun finds every compressed shard and keeps the compressed manifest.
    let again = ok(&sharded("4x4", &dir, "--hash 8"));
    assert!(again.stdout.contains("(44 resumed)"), "{again:?}");
    assert!(!dir.join("manifest.cert").exists());
    // A damaged compressed shard fails the manifest's check.
    let victim = shards_in(&dir, ".cert.zst").swap_remove(0);
    let mut bytes = std::fs::read(&victim).expect("read");
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    std::fs::write(&victim, &bytes).expect("write");
    let out = amazons(&["check", s(&dir.join("manifest.cert.zst"))]);
    assert_ne!(out.code, 0, "{out:?}");
}

/// `compress` shares the files among threads: a damaged file stops it with an error that
/// names the file, which stays as it was, and every other file is left in exactly one
/// form that still reads back (so the run directory still checks once it is mended).
#[test]
fn compress_stops_at_a_damaged_file_and_loses_nothing() {
    let (_tmp, dir) = sharded_4x4("compress-damaged");
    let files = shards_in(&dir, "");
    let victim = files[files.len() / 2].clone();
    let good = std::fs::read(&victim).expect("read");
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 3] ^= 0x10;
    std::fs::write(&victim, &bad).expect("write");
    let out = amazons(&["compress", s(&dir)]);
    assert_ne!(out.code, 0, "{out:?}");
    let name = victim.file_name().and_then(|n| n.to_str()).expect("name");
    assert!(
        out.stderr.contains(name) && out.stderr.contains("not a valid certificate file"),
        "{out:?}"
    );
    assert_eq!(std::fs::read(&victim).expect("still there"), bad);
    let mut zst = victim.clone().into_os_string();
    zst.push(".zst");
    assert!(!PathBuf::from(zst).exists());
    for f in &files {
        let mut z = f.clone().into_os_string();
        z.push(".zst");
        assert!(
            f.exists() != PathBuf::from(z).exists(),
            "{} in one form",
            f.display()
        );
    }
    // Mended, the directory compresses and checks.
    std::fs::write(&victim, &good).expect("mend");
    ok(&["compress", s(&dir)]);
    assert!(files.iter().all(|f| !f.exists()));
    ok(&["check", s(&dir)]);
}

/// `db audit` audits an active-area table beside the territory tables (CI's route;
/// mismatches are tested in `db::active::tests`), unless `--active-sample 0`.
#[test]
fn db_audit_covers_the_active_table() {
    let dir = TempDir::new("cli", "audit");
    let d = s(&dir.0);
    ok(&[
        "db",
        "build",
        "--db-dir",
        d,
        "--max-size",
        "8",
        "--max-queens",
        "3",
    ]);
    let built = ok(&["db", "build-active", "--db-dir", d, "--tiers", "2x3,1x5"]);
    assert!(built.stdout.contains("2x3 (<=6 each)"), "{}", built.stdout);
    let audit = |sample, active_sample| {
        let args = ["db", "audit", "--db-dir", d, "--sample", sample];
        ok(&[&args[..], &["--active-sample", active_sample]].concat())
    };
    let out = audit("200", "300");
    assert!(out.stdout.contains("active audit"), "{}", out.stdout);
    assert_eq!(out.last_line(), "audit: ok");
    let skipped = audit("20", "0");
    assert!(
        !skipped.stdout.contains("active audit"),
        "{}",
        skipped.stdout
    );
    // `--active-db` uses the table that is there, whatever its tiers, without rebuilding.
    let cert = dir.path("4x4.cert");
    let solved = ok(&[
        "solve",
        "4x4",
        "--active-db",
        "--db-dir",
        d,
        "-q",
        "-o",
        s(&cert),
    ]);
    assert_eq!(solved.last_line(), "result: Black wins");
    assert!(
        solved
            .stderr
            .contains("active database: 2x3 (<=6 each), 1x5 (<=5 each)")
            && !solved.stderr.contains("rebuild")
            && !solved.stderr.contains("building"),
        "{}",
        solved.stderr
    );
}

/// Runs `exe args` with its standard output a pipe whose reading end is closed before the
/// program writes (as `... | head` does once it has enough), and returns the exit code and
/// standard error.
fn run_into_closed_pipe(exe: &Path, args: &[&str]) -> (i32, String) {
    let mut child = Command::new(exe)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for the child");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    // perft 5x5 3 and the check of a solved 5x4 take long enough that every line is
    // written after the pipe is closed; each used to panic (exit 101).
    let dir = TempDir::new("cli", "closed-pipe");
    let cert = dir.path("5x4.cert");
    ok(&["solve", "5x4", "-q", "-o", s(&cert)]);
    let exe = Path::new(env!("CARGO_BIN_EXE_amazons"));
    for args in [vec!["perft", "5x5", "3"], vec!["check", s(&cert)]] {
        let (code, stderr) = run_into_closed_pipe(exe, &args);
        assert!(!stderr.contains("panicked"), "amazons {args:?}: {stderr}");
        assert_eq!(code, 0, "amazons {args:?}: {stderr}");
    }
    if let Some(check) = amazons_check_exe() {
        let (code, stderr) = run_into_closed_pipe(&check, &[s(&cert)]);
        assert!(!stderr.contains("panicked"), "amazons-check: {stderr}");
        assert_eq!(code, 0, "amazons-check: {stderr}");
    }
}

/// `prune` removes exactly the shard files the manifest does not reach: a dry run only
/// lists them, `--max-mib` caps the removal, the result checks as before, and it refuses
/// a directory without a manifest or one whose manifest cites a missing shard.
#[test]
fn prune_removes_only_the_shards_the_manifest_does_not_need() {
    let (tmp, dir) = sharded_4x4("prune");
    let shards = dir.join("shards");
    let listing = || shard_names(&dir, "");
    let before = listing();
    let out = ok(&["prune", s(&dir), "--dry-run"]);
    assert!(
        out.stdout
            .contains("44 shards needed by the manifest, 0 not needed"),
        "{out:?}"
    );
    // Two certificates nobody cites, as a refuted guess leaves them (one compressed).
    for (name, moves) in [("900-x.cert", "b1-b2xb3"), ("901-y.cert", "b1-b3xb2")] {
        ok(&[
            "solve",
            "4x4",
            "--moves",
            moves,
            "-q",
            "--hash",
            "8",
            "-o",
            s(&shards.join(name)),
        ]);
    }
    ok(&["compress", s(&shards.join("901-y.cert"))]);
    let out = ok(&["prune", s(&dir), "--dry-run"]);
    assert!(
        out.stdout
            .contains("44 shards needed by the manifest, 2 not needed"),
        "{out:?}"
    );
    assert!(
        out.stdout.contains("900-x.cert") && out.stdout.contains("901-y.cert.zst"),
        "{out:?}"
    );
    assert_eq!(listing().len(), 46, "a dry run removes nothing");
    let out = ok(&["prune", s(&dir), "--max-mib", "0"]);
    assert!(out.stdout.contains("removed 0 files"), "{out:?}");
    assert_eq!(listing().len(), 46, "nothing fits in 0 MiB");
    let out = ok(&["prune", s(&dir)]);
    assert!(out.stdout.contains("removed 2 files"), "{out:?}");
    assert_eq!(listing(), before, "exactly the two unneeded files went");
    let checked = ok(&["check", s(&dir.join("manifest.cert"))]);
    assert!(checked.stdout.contains("in 44 shards"), "{checked:?}");

    // A needed shard missing: an error, and the unneeded file stays.
    ok(&[
        "solve",
        "4x4",
        "--moves",
        "b1-b2xb3",
        "-q",
        "--hash",
        "8",
        "-o",
        s(&shards.join("900-x.cert")),
    ]);
    let needed = shards.join(&before[0]);
    std::fs::remove_file(&needed).expect("remove a needed shard");
    let out = amazons(&["prune", s(&dir)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("nothing is pruned"), "{out:?}");
    assert!(shards.join("900-x.cert").is_file());
    // No manifest (an unfinished result): a usage error.
    std::fs::remove_file(dir.join("manifest.cert")).expect("remove the manifest");
    let line = assert_usage_error(&["prune", s(&dir)]);
    assert!(line.contains("no manifest"), "{line}");
    assert_usage_error(&["prune", s(&tmp.path("nowhere"))]);
}

#[test]
fn testset_without_its_game_files_says_where_they_are_before_building_anything() {
    let tmp = TempDir::new("cli", "testset");
    let dir = tmp.path("games");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let db = tmp.path("db");
    for sub in ["fig13", "table", "blockers"] {
        let args = [
            "testset",
            sub,
            "--dir",
            s(&dir),
            "--boards",
            "5x5",
            "--db-dir",
            s(&db),
        ];
        let line = assert_usage_error(&args);
        assert!(line.contains("no game file for 5x5"), "{line}");
        assert!(line.contains("tests/data/selfplay"), "{line}");
        assert!(!db.exists(), "{sub}: no database built");
    }
}
