//! Command-line tests of a campaign that runs itself: ladder, decisions, ranking, resuming after kill -9, and safe directories.

use crate::common::{amazons, ok, s, shard_names, sharded, Out, TempDir};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The root hash a sharded solve prints.
fn root_hash(out: &Out) -> String {
    out.stdout
        .lines()
        .find_map(|l| l.split_once("root blake3 ").map(|(_, h)| h.to_string()))
        .unwrap_or_else(|| panic!("no root hash: {out:?}"))
}

/// The `task decision budget outcome` fields of every line of DIR/decisions.tsv.
fn decisions(dir: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(dir.join("decisions.tsv"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.split('\t').skip(1).map(str::to_string).collect())
        .collect()
}

/// Every file under `dir` with its bytes, sorted by path.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).expect("read")));
            }
        }
    }
    out.sort();
    out
}

/// The names of the uncompressed shards written so far, sorted.
fn shard_files(dir: &Path) -> Vec<String> {
    shard_names(dir, ".cert")
}

/// Rewrites the shard at `path` with `edit` applied to its certificate, re-encoded so that
/// its body hash matches (a change only the checker can find).
fn edit_shard(path: &Path, edit: impl FnOnce(&mut amazons_format::Certificate)) {
    let mut cert = amazons_format::decode(&std::fs::read(path).expect("read")).expect("shard");
    edit(&mut cert);
    std::fs::write(path, amazons_format::encode(&cert).expect("encode")).expect("write");
}

/// That the run `out` named shard file `name` as rejected by the checker and moved it to
/// `DIR/damaged/`.
fn assert_rejected_and_set_aside(out: &Out, dir: &Path, name: &str) {
    assert!(
        out.stderr.lines().any(|l| l.starts_with("damaged shard")
            && l.contains(name)
            && l.contains("rejected by the checker")),
        "{out:?}"
    );
    assert!(
        dir.join("damaged").join(name).is_file(),
        "{name} not moved aside"
    );
}

#[test]
fn rank_puts_nearly_refuted_moves_behind_by_the_proof_disproof_ratio() {
    // 5x4 after 2000 nodes: several moves have disproof number 1 (one Black reply seems
    // to refute them) and the smallest proof number of all, so ranked by proof number
    // alone one of them came first.
    let out = ok(&["rank", "5x4", "-q", "--top", "0", "--max-nodes", "2000"]);
    let numbers: Vec<(String, u64, u64)> = out
        .stdout
        .lines()
        .skip(2)
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                [_, m, "proof", pn, "disproof", dn] => {
                    Some((m.to_string(), pn.parse().ok()?, dn.parse().ok()?))
                }
                _ => None,
            }
        })
        .collect();
    assert!(numbers.len() > 10, "{}", out.stdout);
    let least_pn = numbers.iter().map(|n| n.1).min().expect("moves");
    assert!(
        numbers.iter().any(|n| n.2 == 1 && n.1 == least_pn),
        "a nearly refuted move with the least proof number exists: {numbers:?}"
    );
    assert!(numbers[0].2 > 1, "first move {:?}", numbers[0]);
    // Listed by proof / disproof ratio.
    for w in numbers.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        assert!(a.1 * b.2 <= b.1 * a.2, "{a:?} listed before {b:?}");
    }
}

#[test]
fn tasks_climb_the_ladder_then_split_and_every_decision_is_recorded() {
    let tmp = TempDir::new("campaign", "ladder");
    let dir = tmp.path("4x4");
    // Rungs of 40 and 150 nodes: some 4x4 tasks need more, so they are split.
    let out = ok(&sharded(
        "4x4",
        &dir,
        "--hash 8 --threads 1 -q --ladder 150,40",
    ));
    assert!(
        out.stdout
            .contains("ladder 40 nodes, 150 nodes; split 3 deep"),
        "{out:?}"
    );
    let d = decisions(&dir);
    let has = |f: &dyn Fn(&Vec<String>) -> bool| d.iter().any(f);
    assert!(has(&|l| l[1] == "table" && l[2] == "8 MiB"), "{d:?}");
    assert!(has(&|l| l[0] == "root" && l[1] == "task order"), "{d:?}");
    // A task over the first rung climbs to the second and is solved there.
    let climbed = d.iter().position(|l| {
        l[1] == "solve whole" && l[2].starts_with("40 nodes") && l[3] == "over budget: next rung"
    });
    let climbed = climbed.unwrap_or_else(|| panic!("no task climbed: {d:?}"));
    let task = &d[climbed][0];
    assert!(d[climbed + 1..]
        .iter()
        .any(|l| &l[0] == task && l[1] == "solve whole" && l[2].starts_with("150 nodes")));
    // A task over the top rung is split: a decision, and subtask shards.
    assert!(
        has(&|l| l[2].starts_with("150 nodes") && l[3] == "over budget at the top rung"),
        "{d:?}"
    );
    assert!(has(&|l| l[1] == "split"), "{d:?}");
    assert!(shard_files(&dir).iter().any(|f| f.matches('.').count() > 1));
    let done = d.iter().filter(|l| l[1] == "task done").count();
    assert_eq!(done, 44, "one `task done` per task");
    // The same result as a run with one budget.
    let plain = tmp.path("plain");
    let reference = ok(&sharded("4x4", &plain, "--hash 8 -q"));
    assert!(out.stdout.contains("result: Black wins"));
    assert_eq!(reference.stdout.lines().last(), out.stdout.lines().last());
    // --ladder and --max-nodes exclude each other.
    let both = amazons(&sharded(
        "4x4",
        &tmp.path("x"),
        "--ladder 10 --max-nodes 10",
    ));
    assert_eq!(both.code, 2, "{both:?}");
}

#[test]
fn a_run_killed_with_sigkill_resumes_losing_only_the_tasks_in_flight() {
    let tmp = TempDir::new("campaign", "kill");
    let dir = tmp.path("5x4");
    fn args(dir: &Path) -> Vec<&str> {
        sharded("5x4", dir, "--first-move b1-b2xd2 --hash 16 --threads 1 -q")
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_amazons"))
        .args(args(&dir))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // Kill it (SIGKILL) once a few shards are written.
    while shard_files(&dir).len() < 5 {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let _ = child.kill();
    let _ = child.wait();
    let kept = shard_files(&dir).len();
    assert!(kept >= 5, "{kept} shards");
    let resumed = ok(&args(&dir));
    // Every shard written before the kill is resumed; only the task in flight is solved again.
    let tasks = resumed.line(false, "tasks: ");
    assert!(
        tasks.contains(&format!("({kept} resumed)")),
        "{tasks} after {kept} shards"
    );
    // The same result as a run never interrupted.
    let reference = ok(&args(&tmp.path("clean")));
    assert_eq!(root_hash(&resumed), root_hash(&reference));
}

#[test]
fn a_directory_of_another_plan_is_refused_untouched() {
    let tmp = TempDir::new("campaign", "plan");
    let dir = tmp.path("4x4");
    ok(&sharded("4x4", &dir, "--hash 8 -q"));
    let before = snapshot(&dir);
    let out = amazons(&sharded("4x4", &dir, "--first-move a2-b3xa2 --hash 8"));
    assert_eq!(out.code, 2, "{out:?}");
    let err = out.line(true, "error:");
    assert!(
        err.contains("no first move") && err.contains("first move a2-b3xa2"),
        "{err}"
    );
    assert!(snapshot(&dir) == before, "the directory was changed");
    // Another root (5x4) is refused too.
    let out = amazons(&sharded("5x4", &dir, "--hash 8"));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("5x4 start"), "{out:?}");
    assert!(snapshot(&dir) == before, "the directory was changed");
}

#[test]
fn damaged_and_altered_shards_are_named_and_moved_aside() {
    let tmp = TempDir::new("campaign", "damaged");
    let dir = tmp.path("4x4");
    let first = ok(&sharded("4x4", &dir, "--hash 8 -q"));
    let shards = dir.join("shards");
    let files = shard_files(&dir);
    // One shard with a flipped byte, one replaced by another task's shard.
    let damaged = shards.join(&files[2]);
    let mut bytes = std::fs::read(&damaged).expect("read");
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    std::fs::write(&damaged, &bytes).expect("write");
    let altered = shards.join(&files[6]);
    std::fs::copy(shards.join(&files[5]), &altered).expect("copy");
    let out = ok(&sharded("4x4", &dir, "--hash 8"));
    for f in [&files[2], &files[6]] {
        assert!(
            out.stderr
                .lines()
                .any(|l| l.starts_with("damaged shard") && l.contains(f.as_str())),
            "{f} not named: {}",
            out.stderr
        );
        assert!(dir.join("damaged").join(f).is_file(), "{f} not moved aside");
        assert!(shards.join(f).is_file(), "{f} not solved again");
    }
    assert!(
        out.stderr.contains("proves another position"),
        "{}",
        out.stderr
    );
    let d = decisions(&dir);
    assert_eq!(
        d.iter().filter(|l| l[1] == "damaged shard").count(),
        2,
        "{d:?}"
    );
    assert!(out.stdout.contains("(42 resumed)"), "{out:?}");
    assert_eq!(root_hash(&out), root_hash(&first));
}

#[test]
fn manifest_rebuilds_the_same_manifest_and_writes_none_that_does_not_check() {
    let tmp = TempDir::new("campaign", "manifest");
    let dir = tmp.path("4x4");
    let solved = ok(&sharded("4x4", &dir, "--hash 8 -q"));
    let path = dir.join("manifest.cert");
    let written = std::fs::read(&path).expect("manifest");
    let manifest = ["manifest", "4x4", "--shards", s(&dir)];
    std::fs::remove_file(&path).expect("remove manifest");
    let out = ok(&manifest);
    assert_eq!(root_hash(&out), root_hash(&solved));
    assert_eq!(
        std::fs::read(&path).expect("rebuilt"),
        written,
        "byte for byte"
    );

    // Each shard read as it is, then the manifest checked before it is written: a shard
    // of another task's position is named, and one whose claim was changed (its body
    // hash made to match) fails the check. Neither leaves a manifest behind.
    let files = shard_files(&dir);
    let (other, changed) = (
        dir.join("shards").join(&files[6]),
        dir.join("shards").join(&files[3]),
    );
    let keep = std::fs::read(&other).expect("read");
    std::fs::copy(dir.join("shards").join(&files[5]), &other).expect("copy");
    std::fs::remove_file(&path).expect("remove manifest");
    let out = amazons(&manifest);
    assert_ne!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains(files[6].as_str()), "{out:?}");
    assert!(out.stderr.contains("proves another position"), "{out:?}");
    assert!(!path.exists(), "no manifest written");
    std::fs::write(&other, keep).expect("restore");
    edit_shard(&changed, |cert| {
        assert_eq!(
            cert.root.winner,
            amazons_format::Color::Black,
            "4x4 is Black's"
        );
        cert.root.winner = amazons_format::Color::White;
    });
    let out = amazons(&manifest);
    assert_ne!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("does not check, so it was not written"),
        "{out:?}"
    );
    assert!(!path.exists(), "no manifest written");
    assert!(!dir.join("manifest.cert.zst").exists());
}

#[test]
fn a_resumed_shard_that_fails_the_final_check_is_moved_aside_with_the_manifest_removed() {
    let tmp = TempDir::new("campaign", "final-check");
    let dir = tmp.path("4x4");
    let first = ok(&sharded("4x4", &dir, "--hash 8 -q"));
    // A shard whose proof lost its last step, its claim (Black wins, which settles
    // nothing) kept and its body hash made to match: a resumed run takes it as it is, and
    // the final check rejects the manifest.
    let name = shard_files(&dir)[3].clone();
    let changed = dir.join("shards").join(&name);
    edit_shard(&changed, |cert| {
        assert_eq!(cert.root.winner, amazons_format::Color::Black);
        cert.steps.pop();
    });
    std::fs::remove_file(dir.join("manifest.cert")).expect("remove manifest");
    let out = amazons(&sharded("4x4", &dir, "--hash 8 -q"));
    assert_ne!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("the checker rejected the manifest"),
        "{out:?}"
    );
    let task = name.trim_end_matches(".cert");
    assert!(
        out.stderr.contains(&format!(
            "1 shard(s) this run resumed failed the checker and were moved aside ({task})"
        )),
        "{out:?}"
    );
    assert!(
        out.stderr
            .lines()
            .any(|l| l.starts_with("damaged shard") && l.contains(&name)),
        "{out:?}"
    );
    assert!(dir.join("damaged").join(&name).is_file(), "moved aside");
    for file in ["manifest.cert", "manifest.cert.zst", "manifest.md"] {
        assert!(!dir.join(file).exists(), "{file} left behind");
    }
    // As the message says, the next run solves that task again and proves 4x4 for Black,
    // with the first run's manifest.
    let out = ok(&sharded("4x4", &dir, "--hash 8"));
    assert_eq!(out.last_line(), "result: Black wins", "{out:?}");
    assert_eq!(root_hash(&out), root_hash(&first));
}

#[test]
fn solve_checks_its_output_path_before_solving() {
    let tmp = TempDir::new("campaign", "output");
    for target in [tmp.path("missing/x.cert"), tmp.0.clone()] {
        let out = amazons(&["solve", "4x4", "-o", s(&target)]);
        assert_eq!(out.code, 2, "{out:?}");
        assert!(out.stderr.starts_with("error:"), "{out:?}");
        assert!(out.stderr.contains(s(&target)), "{out:?}");
        assert!(!out.stdout.contains("nodes:"), "solved anyway: {out:?}");
    }
    assert_eq!(
        std::fs::read_dir(&tmp.0).expect("dir").count(),
        0,
        "no file left"
    );
}

#[test]
fn a_shards_path_that_is_a_file_is_a_usage_error_and_the_file_is_kept() {
    let tmp = TempDir::new("campaign", "shards-file");
    std::fs::create_dir_all(&tmp.0).expect("dir");
    let file = tmp.path("notes.txt");
    std::fs::write(&file, b"keep me").expect("write");
    for args in [
        vec!["solve", "4x4", "--shards", s(&file)],
        vec!["tasks", "4x4", "--shards", s(&file)],
    ] {
        let out = amazons(&args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(
            out.stderr
                .contains(&format!("{} is a file, not a directory", s(&file))),
            "{args:?}: {out:?}"
        );
    }
    assert_eq!(std::fs::read(&file).expect("read"), b"keep me");
}

/// A run of every task holds its directory alone: another run there is refused (exit 2)
/// before it writes anything, with the holder the lock file names; runs given `--only`
/// share a directory; `prune` and `compact` wait for every run.
#[test]
fn a_directory_another_run_holds_is_refused_before_anything_is_written() {
    use std::io::Write;
    let tmp = TempDir::new("campaign", "held");
    let dir = tmp.path("4x4");
    std::fs::create_dir_all(&dir).expect("dir");
    let holder = "pid 4242, since 2026-12-08T00:00:00Z";
    // Another run of every task holds it, as that run's lock shows.
    let mut lock = std::fs::File::create(dir.join("run.lock")).expect("lock file");
    lock.write_all(holder.as_bytes()).expect("write");
    lock.try_lock().expect("lock");
    let whole = sharded("4x4", &dir, "--hash 8 -q");
    let mut chosen = whole.clone();
    chosen.extend(["--only", "0"]);
    for args in [&whole, &chosen] {
        let out = amazons(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        let said = format!("{} is in use by another run ({holder})", s(&dir));
        assert!(out.stderr.contains(&said), "{out:?}");
    }
    let names = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&dir), vec!["run.lock".to_string()], "nothing written");
    // Runs of chosen tasks work beside each other, not beside a run of every task.
    lock.unlock().expect("unlock");
    lock.try_lock_shared().expect("shared lock");
    let out = ok(&chosen);
    assert!(
        out.stdout.contains("tasks chosen by --only are finished"),
        "{out:?}"
    );
    assert_eq!(
        amazons(&whole).code,
        2,
        "a run of every task waits for them"
    );
    drop(lock);
    let out = ok(&whole);
    assert!(out.stdout.contains("result: "), "{out:?}");
    // Nor are its shards pruned or rewritten while a run works in it.
    let lock = std::fs::File::open(dir.join("run.lock")).expect("lock file");
    lock.try_lock_shared().expect("shared lock");
    for args in [vec!["prune", s(&dir)], vec!["compact", s(&dir)]] {
        let out = amazons(&args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stderr.contains("is in use by another run"), "{out:?}");
    }
    drop(lock);
    ok(&["prune", s(&dir)]);
    ok(&["compact", s(&dir)]);
}

#[test]
fn a_finished_resume_ranks_nothing_and_reports_at_once() {
    let tmp = TempDir::new("campaign", "finished");
    let dir = tmp.path("4x4");
    ok(&sharded("4x4", &dir, "--hash 8 -q"));
    let ranked = |d: &Path| decisions(d).iter().filter(|l| l[1] == "task order").count();
    assert_eq!(ranked(&dir), 1, "the first run ranks its tasks");
    // The nodes the first run recorded, task by task (times.tsv: name, ms, nodes).
    let nodes: u64 = std::fs::read_to_string(dir.join("times.tsv"))
        .expect("times.tsv")
        .lines()
        .filter_map(|l| l.split('\t').nth(2)?.parse::<u64>().ok())
        .sum();
    assert!(nodes > 0);
    let out = ok(&sharded("4x4", &dir, "--hash 8"));
    assert_eq!(ranked(&dir), 1, "the resumed run ranked again");
    let mut err = out.stderr.lines();
    let so_far = format!("campaign so far: tasks 44/44, {nodes} nodes");
    assert!(
        err.next().is_some_and(|l| l.starts_with(&so_far)),
        "{}",
        out.stderr
    );
    assert!(
        err.next()
            .is_some_and(|l| l.starts_with("progress: tasks 0/44")),
        "{}",
        out.stderr
    );
    // One line per task, then the overall line.
    assert_eq!(
        out.stderr
            .lines()
            .filter(|l| l.starts_with("task: "))
            .count(),
        44
    );
    assert!(out
        .stderr
        .lines()
        .last()
        .is_some_and(|l| l.starts_with("progress: tasks 44/44")));
}

#[test]
fn index_shows_a_campaign_in_progress_with_its_figures() {
    let tmp = TempDir::new("campaign", "index");
    let certs = tmp.path("certs");
    let dir = certs.join("4x4-partial");
    let partial = amazons(&sharded("4x4", &dir, "-q --hash 8 --max-nodes 400"));
    assert_eq!(partial.code, 1, "{partial:?}");
    let times = std::fs::read_to_string(dir.join("times.tsv")).expect("times");
    let nodes: u64 = times
        .lines()
        .filter_map(|l| l.split('\t').nth(2)?.parse::<u64>().ok())
        .sum();
    // `amazons index` on the directory: its output, and the cells of the campaign's row
    // of index.md.
    let index = || {
        let out = ok(&["index", s(&certs)]);
        let index = std::fs::read_to_string(certs.join("index.md")).expect("index");
        let row = index
            .lines()
            .find(|l| l.starts_with("| 4x4-partial/ |"))
            .unwrap_or_else(|| panic!("{index}"))
            .to_string();
        let cells: Vec<String> = row.split('|').map(|c| c.trim().to_string()).collect();
        (out, row, cells)
    };
    let (out, row, cells) = index();
    let proved = shard_files(&dir).len();
    assert_eq!(cells[4], format!("{proved} / 44"), "{row}");
    assert_eq!(cells[5], nodes.to_string(), "{row}");
    // The open tasks ran past the budget: the time they need is unknown, so no estimate.
    assert_eq!(cells[7], "-", "no estimate of the hours left: {row}");
    assert!(
        out.stdout
            .contains(&format!("tasks {proved}/44, {nodes} nodes")),
        "{out:?}"
    );
    assert!(
        out.stdout.contains(&format!(
            "no estimate ({} open tasks already ran past a budget)",
            44 - proved
        )),
        "{out:?}"
    );
    // Without the record of tasks started, the open ones are untried: the mean time of
    // the tasks solved so far gives an estimate.
    std::fs::remove_file(dir.join("started.tsv")).expect("started.tsv");
    let (_, row, cells) = index();
    assert_ne!(cells[7], "-", "an estimate of the hours left: {row}");
}

/// A campaign whose split tasks are left open: the index row names each with the
/// subtasks that have a shard, of all in the list it works on.
#[test]
fn index_shows_how_far_each_open_split_has_got() {
    let tmp = TempDir::new("campaign", "index-splits");
    let certs = tmp.path("certs");
    let dir = certs.join("5x5");
    let args = "--first-move d1-d3xb3 -q --hash 8 --max-nodes 2000 --split-depth 1";
    let partial = amazons(&sharded("5x5", &dir, args));
    assert_eq!(partial.code, 1, "tasks left open: {partial:?}");
    ok(&["index", s(&certs)]);
    let index = std::fs::read_to_string(certs.join("index.md")).expect("index");
    let row = index
        .lines()
        .find(|l| l.starts_with("| 5x5/ |"))
        .unwrap_or_else(|| panic!("{index}"));
    let (_, splits) = row
        .split_once("subtasks with a shard, per level: ")
        .unwrap_or_else(|| panic!("no split named: {row}"));
    // The first one named: NAME A of B, A its subtask shards on disk (one level deep).
    let first = splits.split(", ").next().expect("one split");
    let words: Vec<&str> = first.split(' ').collect();
    let [name, with, "of", all, ..] = words.as_slice() else {
        panic!("{first}")
    };
    let with: usize = with.parse().expect("a count");
    let all: usize = all.trim_end_matches(')').parse().expect("a count");
    let on_disk = shard_files(&dir)
        .iter()
        .filter(|f| f.starts_with(&format!("{name}.")))
        .count();
    assert_eq!(with, on_disk, "{row}");
    assert!(with > 0, "some subtasks proved: {row}");
    assert!(with < all, "an open split has subtasks left: {row}");
}

#[test]
fn a_settled_root_stops_the_tasks_in_flight_without_splitting_them() {
    let tmp = TempDir::new("campaign", "settled");
    let dir = tmp.path("5x4");
    // 5x4 is a first-player win: the first winning move settles the root, and the other
    // thread's task, if one is in flight, stops instead of climbing the ladder or splitting.
    let out = ok(&sharded("5x4", &dir, "--hash 16 --threads 2 -q"));
    assert!(out.stdout.contains("result: White wins"), "{out:?}");
    let d = decisions(&dir);
    let won = d
        .iter()
        .position(|l| l[1] == "task done" && l[3].starts_with("White wins"))
        .unwrap_or_else(|| panic!("no winning task: {d:?}"));
    let winner = &d[won][0];
    for l in &d[won + 1..] {
        assert!(!l[0].starts_with(winner.as_str()), "{l:?}");
        assert!(l[1] != "split", "a split after the root was settled: {l:?}");
        if l[1] == "task left open" {
            assert_eq!(l[3], "stopped: the run is over");
        }
    }
}

#[test]
fn a_resumed_run_takes_the_recorded_task_order_without_ranking_again() {
    let tmp = TempDir::new("campaign", "order");
    let dir = tmp.path("4x4");
    // A budget too small for some tasks: each run ends with open tasks (exit 1).
    let args = sharded("4x4", &dir, "--hash 8 --max-nodes 400 --guess-order");
    for run in 0..2 {
        let out = amazons(&args);
        assert_eq!(out.code, 1, "run {run}: {out:?}");
        // The ranking search prints nothing itself: the run says it is ranking, once.
        let ranking = out.stderr.matches("ranking the tasks first").count();
        assert_eq!(ranking, usize::from(run == 0), "run {run}: {}", out.stderr);
    }
    let d = decisions(&dir);
    let orders: Vec<&Vec<String>> = d.iter().filter(|l| l[1] == "task order").collect();
    assert_eq!(orders.len(), 2, "{d:?}");
    assert_eq!(orders[0][2], "400 nodes", "the first run ranks");
    assert_eq!(orders[1][2], "recorded", "the second reuses its order");
    assert_eq!(orders[0][3], orders[1][3]);
    let order = std::fs::read_to_string(dir.join("order.tsv")).expect("order.tsv");
    assert_eq!(order.lines().count(), 88, "every first move of 4x4");
}

/// A resumed run neither climbs the rungs a task already ran past (decisions.tsv) nor
/// trusts a split task's shard whose subtask shard is gone: that shard is set aside by
/// name and its task solved again, and the result checks.
#[test]
fn a_resumed_run_skips_passed_rungs_and_resolves_a_shard_missing_a_subtask() {
    let tmp = TempDir::new("campaign", "resume-rungs");
    let dir = tmp.path("4x4");
    let flags = "--hash 8 --threads 1 -q --ladder 150,40";
    ok(&sharded("4x4", &dir, flags));
    let d = decisions(&dir);
    // A subtask (its name has a dot) that ran past 40 nodes and was solved at 150.
    let climbed = d
        .iter()
        .find(|l| {
            l[0].contains('.')
                && l[1] == "solve whole"
                && l[2].starts_with("150 nodes")
                && l[3].contains("wins")
        })
        .map(|l| l[0].clone())
        .unwrap_or_else(|| panic!("no subtask solved on the second rung: {d:?}"));
    let parent = climbed.split('.').next().expect("parent").to_string();
    std::fs::remove_file(dir.join("shards").join(format!("{climbed}.cert")))
        .expect("subtask shard");
    std::fs::remove_file(dir.join("manifest.cert")).expect("manifest");
    ok(&sharded("4x4", &dir, flags));
    let after = decisions(&dir)[d.len()..].to_vec();
    assert!(
        after.iter().any(|l| l[0] == parent
            && l[1] == "damaged shard"
            && l[3].contains("cites a shard that is not on disk")),
        "{after:?}"
    );
    assert!(dir.join("damaged").join(format!("{parent}.cert")).is_file());
    let mine: Vec<&Vec<String>> = after.iter().filter(|l| l[0] == climbed).collect();
    assert!(
        mine.iter()
            .any(|l| l[2] == "150 nodes" && l[3].starts_with("resumed")),
        "{mine:?}"
    );
    assert!(
        !mine.iter().any(|l| l[2].starts_with("40 nodes")),
        "{mine:?}"
    );
    let manifest = dir.join("manifest.cert");
    let check = ok(&["check", s(&manifest)]);
    assert!(check.stdout.contains("verified: Black wins"), "{check:?}");
}

#[test]
fn a_resumed_subtask_shard_that_fails_its_split_check_is_moved_aside_and_solved_again() {
    let tmp = TempDir::new("campaign", "resume-bad-subtask");
    let dir = tmp.path("4x4");
    let flags = "--hash 8 --threads 1 -q --ladder 150,40";
    let first = ok(&sharded("4x4", &dir, flags));
    // A subtask shard whose proof lost its last step (its claim and position kept, its
    // body hash made to match), and its split task's shard removed, so that the resumed
    // run takes the subtask as it is and writes the split task's shard again.
    let subtask = shard_files(&dir)
        .into_iter()
        .find(|f| f.matches('.').count() == 2)
        .expect("a subtask shard");
    let parent = subtask.split('.').next().expect("parent").to_string();
    edit_shard(&dir.join("shards").join(&subtask), |cert| {
        cert.steps.pop();
    });
    std::fs::remove_file(dir.join("shards").join(format!("{parent}.cert"))).expect("parent");
    std::fs::remove_file(dir.join("manifest.cert")).expect("manifest");
    // The split task's check rejects it: the subtask is moved aside, the task left open.
    let out = amazons(&sharded("4x4", &dir, flags));
    assert_ne!(out.code, 0, "{out:?}");
    assert_rejected_and_set_aside(&out, &dir, &subtask);
    assert!(
        !out.stderr.contains("the checker rejected the manifest"),
        "caught at the split task's check, not the final one: {out:?}"
    );
    assert!(!dir.join("shards").join(format!("{parent}.cert")).exists());
    assert!(!dir.join("manifest.cert").exists());
    // The next run solves the subtask again and writes the first run's manifest.
    let out = ok(&sharded("4x4", &dir, flags));
    assert_eq!(root_hash(&out), root_hash(&first));
}

#[test]
fn a_resumed_subtask_shard_that_would_settle_its_split_is_checked_first() {
    let tmp = TempDir::new("campaign", "resume-decisive");
    let dir = tmp.path("4x4");
    let flags = "--hash 8 --threads 1 -q --ladder 150,40";
    let first = ok(&sharded("4x4", &dir, flags));
    // A split task with several subtask shards: none settles the split on its own (a
    // guess's replies are all won by the guess, a lost task's moves all refuted). One of
    // them with its claim changed to the other side would settle it, and the split's other
    // shards would be removed as no longer needed.
    let files = shard_files(&dir);
    let sub = |f: &String| f.matches('.').count() == 2;
    let parent = (files.iter().filter(|f| sub(f)))
        .map(|f| f.split('.').next().expect("parent").to_string())
        .find(|p| {
            files
                .iter()
                .filter(|f| sub(f) && f.starts_with(&format!("{p}.")))
                .count()
                >= 2
        })
        .expect("a split task with two subtask shards");
    let siblings: Vec<&String> = (files.iter())
        .filter(|f| sub(f) && f.starts_with(&format!("{parent}.")))
        .collect();
    let forged = siblings[0].clone();
    edit_shard(&dir.join("shards").join(&forged), |cert| {
        cert.root.winner = cert.root.winner.opponent();
    });
    std::fs::remove_file(dir.join("shards").join(format!("{parent}.cert"))).expect("parent");
    std::fs::remove_file(dir.join("manifest.cert")).expect("manifest");
    let out = amazons(&sharded("4x4", &dir, flags));
    assert_rejected_and_set_aside(&out, &dir, &forged);
    for f in &siblings[1..] {
        assert!(dir.join("shards").join(f).is_file(), "{f} was removed");
    }
    let out = ok(&sharded("4x4", &dir, flags));
    assert_eq!(root_hash(&out), root_hash(&first));
}

#[test]
fn sample_solves_a_seeded_sample_of_the_tasks_within_the_budget() {
    let args = [
        "sample",
        "4x4",
        "--first-move",
        "b1-b2xb3",
        "--tasks",
        "3",
        "--hash",
        "8",
    ];
    let out = ok(&args);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{out:?}");
    for (i, l) in lines[..3].iter().enumerate() {
        assert!(l.ends_with(&format!("({}/3)", i + 1)), "{l}");
        assert!(l.contains(" wins, "), "solved within 10M nodes: {l}");
    }
    assert!(
        out.last_line()
            .starts_with("sample: 3 of 3 tasks solved within 10M nodes (100%)"),
        "{out:?}"
    );
    assert_eq!(
        ok(&args).stdout,
        out.stdout,
        "the same seed, the same tasks"
    );
    let mut seeded = args.to_vec();
    seeded.extend(["--seed", "9"]);
    let other = ok(&seeded);
    assert_ne!(other.stdout.lines().next(), out.stdout.lines().next());
    // A budget too small for any task: each is reported open, and counted at the budget.
    let tiny = ok(&[
        "sample",
        "4x4",
        "--tasks",
        "2",
        "--max-nodes",
        "1",
        "--hash",
        "8",
    ]);
    assert!(tiny.stdout.contains(": over 1 nodes, "), "{tiny:?}");
    assert!(
        tiny.last_line().starts_with("sample: 0 of 2 tasks"),
        "{tiny:?}"
    );
    let none = amazons(&["sample", "4x4", "--tasks", "0"]);
    assert_eq!(none.code, 2, "{none:?}");
    assert!(
        none.stderr.contains("--tasks must be at least 1"),
        "{none:?}"
    );
    let no_budget = amazons(&["sample", "4x4", "--max-nodes", "0"]);
    assert_eq!(no_budget.code, 2, "{no_budget:?}");
    assert!(
        no_budget
            .stderr
            .contains("a node budget must be at least 1"),
        "{no_budget:?}"
    );
    assert_eq!(
        amazons(&["sample", "4x4", "--first-move", "a1-a1xa1"]).code,
        2
    );
}

/// A run given `--only` ends with exit 0 once its tasks are finished, saying how many are
/// left to other runs and writing no manifest; the run that finds every other shard on
/// disk writes it.
#[test]
fn a_run_with_only_succeeds_and_leaves_the_manifest_to_the_last_run() {
    let dir = TempDir::new("campaign", "only");
    let first = amazons(&sharded("4x4", &dir.0, "--only 0,1 --threads 1 --hash 16"));
    assert_eq!(first.code, 0, "{first:?}");
    let done = first.line(false, "done: ");
    assert!(done.contains("left to other runs"), "{done}");
    assert!(!dir.0.join("manifest.cert").exists());
    let names = shard_files(&dir.0);
    assert_eq!(names.len(), 2, "{names:?}");
    let json = amazons(&sharded(
        "4x4",
        &dir.0,
        "--only 2 --threads 1 --hash 16 --json",
    ));
    assert_eq!(json.code, 0, "{json:?}");
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    assert!(v["manifest"].is_null(), "{v}");
    assert!(
        v["left_to_other_runs"].as_u64().is_some_and(|n| n > 0),
        "{v}"
    );
    assert_eq!(v["tasks_total"].as_u64(), Some(44), "{v}");
    // The rest, without --only: the manifest, the three shards above resumed.
    let all = ok(&sharded("4x4", &dir.0, "--threads 1 --hash 16"));
    assert!(dir.0.join("manifest.cert").exists(), "{all:?}");
    assert!(all.stdout.contains("(3 resumed)"), "{}", all.stdout);
}

#[test]
fn shrink_replaces_large_shards_by_smaller_ones_and_rewrites_the_manifest() {
    let tmp = TempDir::new("campaign", "shrink");
    let dir = tmp.path("5x5");
    let flags = "--first-move d1-d3xb3 --hash 64 --max-nodes 2000000 -q";
    let first = ok(&sharded("5x5", &dir, flags));
    let shrink = [
        "shrink",
        s(&dir),
        "--largest",
        "3",
        "--numbers",
        "sum",
        "--hash",
        "64",
    ];
    let out = ok(&shrink);
    // One line per shard, then the summary, then the manifest written again and checked.
    let replaced = out.stdout.matches(": replaced, ").count();
    assert!(replaced >= 2, "{out:?}");
    assert_eq!(out.stdout.matches(" [").count(), 3, "{out:?}");
    assert!(
        out.stdout
            .contains(&format!("shrink: {replaced} of 3 shards replaced")),
        "{out:?}"
    );
    assert!(
        out.stdout.contains("verified: White wins 5x5 start"),
        "{out:?}"
    );
    let shrunk = root_hash(&out);
    assert_ne!(shrunk, root_hash(&first));
    let recorded = decisions(&dir)
        .iter()
        .filter(|d| d[1] == "re-solved for size")
        .count();
    assert_eq!(recorded, 3);
    // Both checkers accept the new manifest, and a resumed solve writes the same one.
    ok(&["check", s(&dir.join("manifest.cert"))]);
    assert_eq!(root_hash(&ok(&sharded("5x5", &dir, flags))), shrunk);
    // A rerun takes the next three shards, not the ones tried.
    let again = ok(&shrink);
    for line in out.stdout.lines().filter(|l| l.contains(" [")) {
        let name = line.split(':').next().expect("name");
        assert!(!again.stdout.contains(&format!("{name}:")), "{again:?}");
    }
}

#[test]
fn shrink_refuses_bad_input_with_exit_code_2() {
    let tmp = TempDir::new("campaign", "shrink-bad");
    let out = amazons(&["shrink", &tmp.file("nothing-here")]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("not a campaign directory"), "{out:?}");
    let dir = tmp.path("4x4");
    ok(&sharded("4x4", &dir, "--hash 8 -q"));
    let out = amazons(&["shrink", s(&dir), "--only", "e9-e8xe7"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("--only"), "{out:?}");
    let out = amazons(&["shrink", s(&dir), "--threads", "0"]);
    assert_eq!(out.code, 2, "{out:?}");
}

#[test]
fn a_campaign_re_solves_its_large_shards_with_sum_numbers_as_it_goes() {
    let tmp = TempDir::new("campaign", "as-you-go");
    let (plain, shrunk) = (tmp.path("plain"), tmp.path("shrunk"));
    let flags = "--first-move d1-d3xb3 --hash 64 --max-nodes 2000000 -q";
    let first = ok(&sharded("5x5", &plain, flags));
    let out = ok(&sharded(
        "5x5",
        &shrunk,
        &format!("{flags} --shrink-over 16"),
    ));
    // With --max-nodes it is off by default.
    assert!(decisions(&plain)
        .iter()
        .all(|d| d[1] != "re-solved for size"));
    let tries: Vec<Vec<String>> = decisions(&shrunk)
        .into_iter()
        .filter(|d| d[1] == "re-solved for size")
        .collect();
    // Every shard over 16 KiB was tried, with sum numbers, and some got smaller.
    let big = shard_names(&plain, ".cert")
        .into_iter()
        .filter(|n| {
            std::fs::metadata(plain.join("shards").join(n))
                .expect("size")
                .len()
                > 16 * 1024
        })
        .count();
    assert!(big > 0);
    // Or passed over after five tries in a row replaced nothing.
    let passed = decisions(&shrunk)
        .into_iter()
        .filter(|d| d[1] == "not re-solved for size")
        .count();
    assert_eq!(tries.len() + passed, big, "{tries:?}");
    assert!(tries.iter().all(|d| d[2].starts_with("numbers sum, ")));
    assert!(tries.iter().all(|d| d[2].ends_with(", as it goes")));
    assert!(
        tries.iter().any(|d| d[3].starts_with("replaced: ")),
        "{tries:?}"
    );
    let budget = decisions(&shrunk)
        .into_iter()
        .find(|d| d[0] == "run" && d[1] == "budget")
        .expect("budget line");
    assert!(budget[3].contains("shards over 16 KiB re-solved with sum numbers"));
    // The same claim, a smaller proof, and both checkers accept it.
    assert_ne!(root_hash(&out), root_hash(&first));
    let size = |d: &Path| -> u64 {
        shard_names(d, ".cert")
            .iter()
            .map(|n| {
                std::fs::metadata(d.join("shards").join(n))
                    .expect("size")
                    .len()
            })
            .sum()
    };
    assert!(size(&shrunk) < size(&plain));
    ok(&["check", s(&shrunk.join("manifest.cert"))]);
    // Nothing counts as resumed in the run that solved it all.
    assert!(out.stdout.contains("tasks: 138 (0 resumed)"), "{out:?}");
}
