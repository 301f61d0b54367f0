//! `amazons check` and `amazons-check` on manifests: thread counts, damaged and missing shards, non-canonical bodies, unfinished directories.

use crate::common::{amazons_check_exe, run_exe, s, scratch, sharded, shards_in, EXE};
use std::path::Path;

/// Runs `amazons check ARGS` and `amazons-check ARGS` (when built); returns their results.
fn both(args: &[&str]) -> Vec<(i32, String, String)> {
    let mut check = vec!["check"];
    check.extend_from_slice(args);
    let mut out = vec![run_exe(Path::new(EXE), &check).parts()];
    if let Some(exe) = amazons_check_exe() {
        out.push(run_exe(&exe, args).parts());
    }
    for (code, _, stderr) in &out {
        assert!(!stderr.contains("panicked"), "{code}: {stderr}");
    }
    out
}

fn solve(args: &[&str]) {
    let (code, out, err) = run_exe(Path::new(EXE), args).parts();
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_4x4_certificate_with_a_padded_varint_is_damaged_for_both_checkers() {
    let dir = scratch("check-cli", "padded");
    let cert = dir.join("4x4.cert");
    solve(&["solve", "4x4", "-q", "--hash", "16", "-o", s(&cert)]);
    let bytes = std::fs::read(&cert).expect("read");
    assert!(both(&[s(&cert)]).iter().all(|r| r.0 == 0));
    // The body starts with the root claim (22 bytes on 4x4), then the steps' count.
    let body = &bytes[52..bytes.len() - 8];
    let at = 2 + 1 + 16 + 3;
    let end = at
        + body[at..]
            .iter()
            .position(|b| b & 0x80 == 0)
            .expect("a varint")
        + 1;
    assert!(end - at < 9, "room to pad the count");
    let mut padded = body[..end].to_vec();
    padded[end - 1] |= 0x80;
    padded.push(0x00);
    padded.extend_from_slice(&body[end..]);
    let file = dir.join("padded.cert");
    std::fs::write(&file, amazons_format::file::frame(&padded)).expect("write");
    for (code, stdout, stderr) in both(&[s(&file)]) {
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert!(stderr.contains("not canonical"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `ok` line without its timing (`, 28 ms)`).
fn untimed(stdout: &str) -> String {
    let line = |l: &str| match l.rsplit_once(", ") {
        Some((head, tail)) if tail.ends_with(" ms)") => head.to_string(),
        _ => l.to_string(),
    };
    stdout.lines().map(line).collect::<Vec<_>>().join("\n")
}

#[test]
fn manifests_check_alike_on_any_thread_count_and_damage_exits_2() {
    let dir = scratch("check-cli", "threads");
    let run = dir.join("4x4");
    solve(&sharded("4x4", &run, "-q --hash 8"));
    let manifest = run.join("manifest.cert");
    assert!(manifest.is_file(), "an uncompressed manifest");
    let one = both(&["--threads", "1", s(&manifest)]);
    let two = both(&["--threads", "2", s(&manifest)]);
    for (a, b) in one.iter().zip(&two) {
        assert_eq!((a.0, b.0), (0, 0), "{a:?} {b:?}");
        assert!(a.1.contains(" shards, "), "{}", a.1);
        assert_eq!(untimed(&a.1), untimed(&b.1));
    }

    // A wrong proof: two shard steps swapped (each shard proves the other's claim).
    let cert = amazons_format::decode(&std::fs::read(&manifest).expect("read")).expect("decode");
    let shard_steps: Vec<usize> = (0..cert.steps.len())
        .filter(|&i| matches!(cert.steps[i], amazons_format::Step::Shard { .. }))
        .collect();
    let mut swapped = cert.clone();
    swapped.steps.swap(shard_steps[0], shard_steps[1]);
    let wrong = run.join("swapped.cert");
    std::fs::write(&wrong, amazons_format::encode(&swapped).expect("encode")).expect("write");
    let one = both(&["--threads", "1", s(&wrong)]);
    let two = both(&["--threads", "2", s(&wrong)]);
    for (a, b) in one.iter().zip(&two) {
        assert_eq!((a.0, b.0), (1, 1), "{a:?} {b:?}");
        assert!(a.2.contains("proves a different claim"), "{}", a.2);
        assert_eq!(a.2, b.2, "the same message on 1 and 2 threads");
    }
    std::fs::remove_file(&wrong).expect("remove");

    // A damaged shard (a body byte flipped: its hash fails) and a missing one exit 2.
    let shard = shards_in(&run, ".cert").swap_remove(0);
    let good = std::fs::read(&shard).expect("read");
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 20] ^= 0x01;
    std::fs::write(&shard, &bad).expect("write");
    for (code, _, stderr) in both(&[s(&manifest)]) {
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("missing or damaged") && stderr.contains("unreadable"),
            "{stderr}"
        );
    }
    std::fs::remove_file(&shard).expect("remove");
    for (code, _, stderr) in both(&["--threads", "1", s(&manifest)]) {
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.contains("no shard file with this body hash"),
            "{stderr}"
        );
    }
    std::fs::write(&shard, &good).expect("restore");

    // Without its manifest the directory is an unfinished result: it says so, and each
    // shard is checked as a certificate of its own position (no claim about the board).
    std::fs::remove_file(&manifest).expect("remove the manifest");
    let files = shards_in(&run, "");
    let shards = files.len();
    assert!(shards > 1, "a sharded 4x4 has several shards");
    for (code, stdout, stderr) in both(&[s(&run)]) {
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stderr.contains(&format!("unfinished: {shards} shard files")),
            "{stderr}"
        );
        assert!(
            stderr.contains("manifest") && stderr.contains("missing"),
            "{stderr}"
        );
        let verified: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("verified:"))
            .collect();
        assert_eq!(verified.len(), shards, "{stdout}");
        assert!(
            !verified.iter().any(|l| l.contains("4x4 start")),
            "{stdout}"
        );
    }
    // Its shards are checked one per thread, reported in the order of their names.
    let without_times = |out: &str| -> Vec<String> {
        (out.lines())
            .map(|l| l.split(", ").next().unwrap_or(l).to_string())
            .collect()
    };
    let one: Vec<_> = both(&["--threads", "1", s(&run)]);
    let two: Vec<_> = both(&["--threads", "2", s(&run)]);
    for ((c1, out1, _), (c2, out2, _)) in one.iter().zip(&two) {
        assert_eq!((c1, without_times(out1)), (c2, without_times(out2)));
    }
    let names: Vec<&str> = (two[0].1.lines())
        .filter(|l| l.contains(": ok ("))
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert_eq!(names.len(), shards);
    // A damaged shard of an unfinished result is still an unreadable input.
    let victim = &files[0];
    let mut bytes = std::fs::read(victim).expect("read a shard");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    std::fs::write(victim, &bytes).expect("damage a shard");
    for (code, _, stderr) in both(&[s(&run)]) {
        assert_eq!(code, 2, "{stderr}");
    }
    // An empty shards directory holds nothing to check.
    for f in &files {
        std::fs::remove_file(f).expect("remove a shard");
    }
    for (code, _, stderr) in both(&[s(&run)]) {
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("unfinished: 0 shard files"), "{stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
