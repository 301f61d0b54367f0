//! Command-line tests of `amazons report`: a report written and its summary, bad input refused with exit code 2.

use crate::common::scratch;
use std::path::Path;
use std::process::{Command, Output};

fn amazons(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amazons"))
        .args(args)
        .output()
        .expect("amazons runs")
}

fn cert(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../certificates")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn report_writes_a_directory_and_says_the_verdict() {
    let tmp = scratch("report-cli", "ok");
    let out = tmp.join("r");
    let run = amazons(&["report", &cert("5x4.cert.zst"), "-o", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(0), "{stdout}");
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        last.starts_with("checker: verified: White wins 5x4 start, White to move"),
        "{last}"
    );
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("b1-b2xd2"));
    assert!(out.join("data/f0p0.js").is_file());
    // --no-check says so; rerunning replaces the report.
    let run = amazons(&[
        "report",
        &cert("5x4.cert.zst"),
        "-o",
        out.to_str().unwrap(),
        "--no-check",
    ]);
    assert_eq!(run.status.code(), Some(0));
    assert!(std::fs::read_to_string(out.join("index.html"))
        .unwrap()
        .contains("not checked"));
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn bad_input_is_refused_with_exit_code_2() {
    let tmp = scratch("report-cli", "bad");
    let out = tmp.join("r");
    let missing = tmp.join("none.cert");
    let run = amazons(&[
        "report",
        missing.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).starts_with("error: "));
    assert!(!out.exists());
    // A directory without a manifest, and an output path that is not a report.
    let run = amazons(&["report", tmp.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    std::fs::write(tmp.join("keep.txt"), "x").unwrap();
    let run = amazons(&[
        "report",
        &cert("5x4.cert.zst"),
        "-o",
        tmp.join("keep.txt").to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(tmp.join("keep.txt")).unwrap(), "x");
    let _ = std::fs::remove_dir_all(&tmp);
}
