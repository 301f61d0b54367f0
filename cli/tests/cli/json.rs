//! `--json` on solve, check, value, eval, perft and rank: one JSON object on stdout, whose
//! fields agree with the text output and with facts computed here by plain rules code.

use crate::common::{amazons, sharded, TempDir};
use amazons_checker::rules;
use amazons_format::{Color, Position};
use serde_json::Value;

fn text(args: &[&str]) -> String {
    let out = amazons(args);
    assert_eq!(out.code, 0, "amazons {args:?}: {}", out.stdout);
    out.stdout
}

/// Runs with `--json`; the output must be exactly one JSON object.
fn json_with_code(args: &[&str]) -> (Value, i32) {
    let mut all = args.to_vec();
    all.push("--json");
    let out = amazons(&all);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "amazons {all:?}: not one line:\n{}",
        out.stdout
    );
    let v: Value = serde_json::from_str(lines[0]).expect("valid JSON");
    assert!(v.is_object(), "{v}");
    (v, out.code)
}

fn json(args: &[&str]) -> Value {
    let (v, code) = json_with_code(args);
    assert_eq!(code, 0, "{args:?}: {v}");
    v
}

/// The value after `key: ` on a text line.
fn field<'a>(text: &'a str, key: &str) -> &'a str {
    text.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(": ")))
        .unwrap_or_else(|| panic!("no {key:?} line in:\n{text}"))
}

/// Leaves of the move tree, by the checker's plain rules.
fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    rules::legal_moves(pos)
        .into_iter()
        .map(|m| perft(&rules::play(pos, m), depth - 1))
        .sum()
}

/// Whether the side to move wins, by plain exhaustive search.
fn to_move_wins(pos: &Position) -> bool {
    rules::legal_moves(pos)
        .into_iter()
        .any(|m| !to_move_wins(&rules::play(pos, m)))
}

const SMALL: &str = "..X.|.##.|O...";

#[test]
fn perft_json_counts_the_leaves() {
    let v = json(&["perft", "5x4", "2"]);
    let start = Position::start("5x4").expect("start");
    assert_eq!(v["command"], "perft");
    assert_eq!(v["depth"], 2);
    assert_eq!(v["leaves"].as_u64(), Some(perft(&start, 2)));
    let t = text(&["perft", "5x4", "2"]);
    assert_eq!(v["leaves"].to_string(), t.lines().last().unwrap_or(""));
    assert_eq!(v["position"]["grid"], start.grid());
    assert_eq!(v["position"]["to_move"], "White");
    assert_eq!(v["position"]["board"], "5x4");
}

#[test]
fn solve_json_matches_the_certificate_and_a_plain_search() {
    let tmp = TempDir::new("json", "solve");
    for (side, color) in [("white", Color::White), ("black", Color::Black)] {
        let file = tmp.file(&format!("{side}.cert"));
        let args = [
            "solve",
            "--position",
            SMALL,
            "--to-move",
            side,
            "-q",
            "-o",
            &file,
        ];
        let v = json(&args);
        let pos = Position::parse_grid(SMALL, color).expect("grid");
        let winner = if to_move_wins(&pos) {
            color
        } else {
            color.opponent()
        };
        assert_eq!(v["command"], "solve");
        assert_eq!(v["sharded"], false);
        assert_eq!(v["winner"], winner.name());
        assert_eq!(v["to_move_wins"], winner == color);
        assert_eq!(v["first_move"].is_string(), winner == color, "{v}");
        // The certificate the object names is on disk and says the same.
        let bytes = std::fs::read(&file).expect("certificate written");
        let cert = amazons_format::decode(&bytes).expect("decodes");
        assert_eq!(v["certificate"]["path"], file.as_str());
        assert_eq!(v["certificate"]["bytes"].as_u64(), Some(bytes.len() as u64));
        assert_eq!(
            v["certificate"]["steps"].as_u64(),
            Some(cert.steps.len() as u64)
        );
        let body = amazons_format::file::verified_body(&bytes).expect("body");
        let hash: String = amazons_format::hash_body(body)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(v["certificate"]["blake3"], hash.as_str());
        assert_eq!(v["claim"], cert.root.describe().as_str());
        let nodes = &v["nodes"];
        assert_eq!(
            nodes["total"].as_u64(),
            Some(nodes["search"].as_u64().unwrap_or(0) + nodes["extraction"].as_u64().unwrap_or(0))
        );
        // Each `Search` step in the file is a subtree the solve says it replaced.
        assert_eq!(
            v["search_steps"]["replaced"].as_u64(),
            Some(search_steps(&cert))
        );
        let part = |k: &str| v["search_steps"][k].as_u64().unwrap_or(u64::MAX);
        assert!(part("priced") + part("cited") <= part("replaced"), "{v}");
        assert!(v["seconds"]["search_steps"].as_f64() >= Some(0.0), "{v}");
        // The text output of the same solve.
        let t = text(&args);
        assert_eq!(field(&t, "result"), format!("{} wins", winner.name()));
    }
}

/// The `Search` steps of a certificate.
fn search_steps(cert: &amazons_format::Certificate) -> u64 {
    let search = |s: &&amazons_format::Step| matches!(s, amazons_format::Step::Search);
    cert.steps.iter().filter(search).count() as u64
}

#[test]
fn solve_json_reports_the_search_steps_it_wrote() {
    // SMALL (9 empty squares) is settled within its price as one `Search` step; written
    // as extracted, it keeps its whole subtree and the solve says it replaced nothing.
    let tmp = TempDir::new("json", "search-steps");
    let mut counts = Vec::new();
    for extra in [None, Some("--as-extracted")] {
        let file = tmp.file(&format!("{}.cert", extra.is_some()));
        let mut args = vec!["solve", "--position", SMALL, "-q", "-o", &file];
        args.extend(extra);
        let v = json(&args);
        let bytes = std::fs::read(&file).expect("certificate written");
        let cert = amazons_format::decode(&bytes).expect("decodes");
        assert_eq!(
            v["search_steps"]["replaced"].as_u64(),
            Some(search_steps(&cert)),
            "{v}"
        );
        counts.push((search_steps(&cert), cert.steps.len()));
        if extra.is_none() {
            let t = text(&args);
            let line = field(&t, "search steps");
            assert!(
                line.starts_with(&format!("{} subtrees", search_steps(&cert))),
                "{t}"
            );
        }
    }
    let [(compact, compact_len), (extracted, extracted_len)] = counts[..] else {
        panic!("two solves");
    };
    assert_eq!(compact, 1, "the whole proof is one search");
    assert_eq!((compact_len, extracted), (1, 0));
    assert!(extracted_len > 1);
}

#[test]
fn sharded_solve_json_names_the_manifest() {
    let tmp = TempDir::new("json", "sharded");
    let dir = tmp.path("4x4");
    let args = sharded("4x4", &dir, "--threads 1 --hash 16 -q");
    let v = json(&args);
    assert_eq!(v["sharded"], true);
    assert_eq!(v["winner"], "Black");
    let manifest = dir.join("manifest.cert");
    assert_eq!(v["manifest"], manifest.to_str().expect("utf-8"));
    let bytes = std::fs::read(&manifest).expect("manifest");
    let cert = amazons_format::decode(&bytes).expect("decodes");
    assert_eq!(v["claim"], cert.root.describe().as_str());
    let shard_files = std::fs::read_dir(dir.join("shards"))
        .expect("shards")
        .count() as u64;
    assert_eq!(v["shards"].as_u64(), Some(shard_files));
    // Resumed: every task found on disk, the same root hash. The fresh run's final check
    // skipped the shards it had checked as it wrote them; the resumed run, a new process,
    // checks every one again: the counts agree.
    let again = json(&args);
    assert_eq!(again["resumed"], again["tasks"]);
    assert_eq!(again["root_blake3"], v["root_blake3"]);
    assert!(v["shard_steps"].as_u64().is_some_and(|n| n > 0), "{v}");
    assert_eq!(again["shard_steps"], v["shard_steps"]);
    assert_eq!(again["shards"], v["shards"]);
}

#[test]
fn check_json_reports_each_file_and_the_exit_code() {
    let tmp = TempDir::new("json", "check");
    let good = tmp.file("good.cert");
    text(&["solve", "--position", SMALL, "-q", "-o", &good]);
    let (v, code) = json_with_code(&["check", &good]);
    assert_eq!(code, 0);
    assert_eq!(v["verified"], true);
    assert_eq!(v["exit_code"], 0);
    let t = text(&["check", &good]);
    assert_eq!(v["files"][0]["claim"], field(&t, "verified"));
    assert_eq!(v["files"][0]["status"], "ok");
    // A well-formed certificate with a wrong claim: the root winner flipped.
    let mut cert = amazons_format::decode(&std::fs::read(&good).expect("read")).expect("decode");
    let wrong = tmp.file("wrong.cert");
    cert.root.winner = cert.root.winner.opponent();
    std::fs::write(&wrong, amazons_format::encode(&cert).expect("encode")).expect("write");
    let (v, code) = json_with_code(&["check", &good, &wrong]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["files"][0]["status"], "ok");
    assert_eq!(v["files"][1]["status"], "wrong");
    assert!(v["files"][1]["error"]
        .as_str()
        .is_some_and(|e| !e.is_empty()));
    let missing = tmp.file("missing.cert");
    let (v, code) = json_with_code(&["check", &wrong, &missing]);
    assert_eq!(code, 2);
    assert_eq!(v["exit_code"], 2);
    assert_eq!(v["files"][1]["status"], "unreadable");
}

#[test]
fn rank_json_lists_the_moves_in_the_text_order() {
    let args = ["rank", "4x4", "--max-nodes", "2000", "--top", "0", "-q"];
    let v = json(&args);
    let start = Position::start("4x4").expect("start");
    let legal = rules::legal_moves(&start);
    assert_eq!(v["move_count"].as_u64(), Some(legal.len() as u64));
    let moves = v["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), legal.len());
    let t = text(&args);
    let text_moves: Vec<&str> = t
        .lines()
        .skip(2)
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    let json_moves: Vec<&str> = moves.iter().filter_map(|m| m["move"].as_str()).collect();
    assert_eq!(json_moves, text_moves);
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(m["rank"].as_u64(), Some(i as u64 + 1));
    }
    let top = json(&["rank", "4x4", "--max-nodes", "2000", "--top", "3", "-q"]);
    assert_eq!(top["moves"].as_array().map(Vec::len), Some(3));
    assert_eq!(top["lost_given"].as_array().map(Vec::len), Some(0));
    // A --lost move is listed as given, with the status saying so.
    let first = json_moves[0];
    let given = json(&[&args[..], &["--lost", first]].concat());
    assert_eq!(given["lost_given"][0].as_str(), Some(first), "{given}");
    let listed = given["moves"].as_array().expect("moves");
    let entry = listed.iter().find(|m| m["move"].as_str() == Some(first));
    assert_eq!(
        entry.map(|m| m["status"].clone()),
        Some("given lost".into())
    );
}

#[test]
fn eval_json_agrees_with_the_text() {
    for grid in [SMALL, "X.#O|..#.|..#."] {
        let v = json(&["eval", "--position", grid]);
        let t = text(&["eval", "--position", grid]);
        let verdict = field(&t, "verdict");
        match v["winner"].as_str() {
            Some(w) => assert!(verdict.starts_with(&format!("{w} wins")), "{verdict} / {v}"),
            None => assert!(verdict.starts_with("unknown"), "{verdict} / {v}"),
        }
        let areas = v["areas"].as_array().expect("areas");
        let area_lines = t
            .lines()
            .filter(|l| l.len() > 3 && l.as_bytes()[0].is_ascii_uppercase() && &l[1..3] == "  ")
            .count();
        assert_eq!(areas.len(), area_lines, "{t}");
        // Every area's squares are on the board and not arrows.
        let pos = Position::parse_grid(grid, Color::White).expect("grid");
        for a in areas {
            for sq in a["squares"].as_array().expect("squares") {
                let sq = pos
                    .board
                    .parse_square(sq.as_str().expect("name"))
                    .expect("square");
                assert_ne!(pos.cells[sq as usize], amazons_format::Cell::Arrow);
            }
        }
    }
}

#[test]
fn value_json_has_the_text_fields() {
    let v = json(&["value", "--position", SMALL]);
    let t = text(&["value", "--position", SMALL]);
    for (key, line) in [
        ("value", "value"),
        ("temperature", "temperature"),
        ("mean", "mean"),
        ("left_stop", "left stop"),
        ("right_stop", "right stop"),
        ("class", "class"),
        ("outcome", "outcome"),
        ("bounds_exact", "bounds (exact)"),
    ] {
        assert_eq!(v[key], field(&t, line), "{key}");
    }
    // The outcome class against a plain search: P means the side to move loses.
    let white = Position::parse_grid(SMALL, Color::White).expect("grid");
    let black = Position::parse_grid(SMALL, Color::Black).expect("grid");
    let first = v["outcome"].as_str().expect("outcome").chars().next();
    let expect = match (to_move_wins(&black), to_move_wins(&white)) {
        (true, true) => 'N',
        (false, false) => 'P',
        (true, false) => 'L',
        (false, true) => 'R',
    };
    assert_eq!(first, Some(expect));
}
