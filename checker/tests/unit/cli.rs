//! CLI tests: exit codes for verified, wrong and unreadable inputs, and directory walking.

use amazons_checker::cli::run;
use amazons_format::{encode, Certificate, Claim, Color, Meta, Position, Step};
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("amazons-checker-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn write(path: &PathBuf, steps: Vec<Step>) {
    let cert = Certificate {
        root: Claim {
            position: Position::parse_grid("X#O.", Color::Black).expect("grid"),
            spare: 0,
            winner: Color::White,
        },
        steps,
        meta: Meta::default(),
    };
    std::fs::write(path, encode(&cert).expect("encode")).expect("write");
}

#[test]
fn exit_codes() {
    let dir = scratch("codes");
    let good = dir.join("good.cert");
    let wrong = dir.join("wrong.cert");
    let junk = dir.join("junk.cert");
    write(&good, vec![Step::NoMove]);
    write(&wrong, vec![Step::ReplyAll]);
    std::fs::write(&junk, b"not a certificate").expect("write");
    let missing = dir.join("missing.cert");
    assert_eq!(run(std::slice::from_ref(&good), 2), 0);
    assert_eq!(run(&[good.clone(), good.clone()], 2), 0);
    assert_eq!(run(&[good.clone(), wrong.clone()], 2), 1);
    assert_eq!(run(std::slice::from_ref(&junk), 2), 2);
    assert_eq!(run(std::slice::from_ref(&missing), 2), 2);
    assert_eq!(run(&[wrong.clone(), missing], 2), 2);
    assert_eq!(run(&[], 2), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn directories_are_walked_for_cert_files() {
    let dir = scratch("walk");
    let empty = dir.join("empty");
    let nested = dir.join("a/b");
    std::fs::create_dir_all(&empty).expect("mkdir");
    std::fs::create_dir_all(&nested).expect("mkdir");
    assert_eq!(run(std::slice::from_ref(&empty), 2), 2, "no .cert files");
    write(&nested.join("one.cert"), vec![Step::NoMove]);
    std::fs::write(dir.join("a/notes.txt"), b"ignored").expect("write");
    assert_eq!(run(std::slice::from_ref(&dir), 2), 0);
    write(&dir.join("a/bad.cert"), vec![Step::NoMove, Step::NoMove]);
    assert_eq!(run(std::slice::from_ref(&dir), 2), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The binary answers `--version` and `--help` with exit 0 on stdout, and an unknown
/// option with exit 2.
#[test]
fn binary_version_help_and_bad_option() {
    let exe = env!("CARGO_BIN_EXE_amazons-check");
    let run = |arg: &str| {
        std::process::Command::new(exe)
            .arg(arg)
            .output()
            .expect("run")
    };
    let version = run("--version");
    assert_eq!(version.status.code(), Some(0));
    let text = String::from_utf8_lossy(&version.stdout);
    assert_eq!(
        text.trim(),
        format!("amazons-check {}", env!("CARGO_PKG_VERSION"))
    );
    let help = run("--help");
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("--threads N"));
    assert_eq!(run("--no-such-option").status.code(), Some(2));
}
