//! Command-line tests of the alpha-beta solver: `solve --solver ab`, bad solver names, `bench --search`.

use crate::common::amazons;
use std::path::PathBuf;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("ab-cli-{}-{name}", std::process::id()))
}

#[test]
fn solve_with_ab_writes_a_certificate_that_checks() {
    for (board, winner) in [("4x4", "Black"), ("5x4", "White")] {
        let cert = temp(&format!("{board}.cert"));
        let path = cert.to_str().expect("utf-8 path");
        let (code, out, err) = amazons(&[
            "solve", board, "--solver", "ab", "-q", "--hash", "16", "-o", path,
        ])
        .parts();
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(
            out.lines().last(),
            Some(format!("result: {winner} wins").as_str()),
            "{out}"
        );
        let (code, out, _) = amazons(&["check", path]).parts();
        assert_eq!(code, 0, "{out}");
        assert!(out.contains(&format!("verified: {winner} wins")), "{out}");
        let _ = std::fs::remove_file(&cert);
    }
}

#[test]
fn unknown_solver_and_sharded_ab_are_usage_errors() {
    let (code, _, err) = amazons(&["solve", "4x4", "--solver", "minimax"]).parts();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("minimax"), "{err}");
    let dir = temp("shards");
    let path = dir.to_str().expect("utf-8 path");
    let (code, _, err) = amazons(&["solve", "4x4", "--solver", "ab", "--shards", path]).parts();
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--shards"), "{err}");
    assert!(!dir.exists(), "nothing written");
}

#[test]
fn bench_runs_both_searches() {
    let (code, out, err) = amazons(&[
        "bench", "--boards", "4x4", "--solver", "full", "--search", "ab,dfpn", "--hash", "16",
    ])
    .parts();
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| 4x4 | ab full evaluation | Black |"),
        "{out}"
    );
    assert!(
        out.contains("| 4x4 | dfpn full evaluation | Black |"),
        "{out}"
    );
}
