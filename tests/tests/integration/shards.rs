//! Sharded solving: interrupted and resumed runs give the same root hash, tasks over budget are split, and the index reads a finished run.

use crate::common::small_options;
use amazons_campaign::shard::{self, Plan};
use amazons_checker::cli::DirShards;
use amazons_checker::{check_with, Failure};
use amazons_format::{Certificate, Move, Position, Step};
use std::path::{Path, PathBuf};

/// A fresh, empty directory for one test, removed when it goes out of scope unless the
/// test is failing (then it is left to look at).
pub(crate) struct TestDir(PathBuf);

impl std::ops::Deref for TestDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

pub(crate) fn fresh_dir(name: &str) -> TestDir {
    let dir = std::env::temp_dir().join(format!("amazons-shards-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create test dir");
    TestDir(dir)
}

/// 4x4 after a first move: small enough to solve in tests, with dozens of tasks.
pub(crate) fn plan_4x4() -> Plan {
    let root = Position::start("4x4").expect("4x4");
    Plan::new(&root, None).expect("plan")
}

/// [`plan_4x4`] solved on one thread into a fresh directory named after `name`.
fn solved_4x4(name: &str) -> (Plan, TestDir) {
    let plan = plan_4x4();
    let dir = fresh_dir(name);
    run(&plan, &dir, 1);
    (plan, dir)
}

fn root_hash(cert: &Certificate) -> [u8; 32] {
    let bytes = amazons_format::encode(cert).expect("encode");
    amazons_format::hash_body(amazons_format::file::verified_body(&bytes).expect("body"))
}

/// Whether a shard file name is a subtask's (`NNN-MOVE.MMM-REPLY.cert`).
fn is_subtask(name: &str) -> bool {
    name.matches('.').count() > 1
}

/// A sharded solve of `plan` into `dir` with the test options, within `budget`.
fn run_with(plan: &Plan, dir: &Path, budget: shard::Budget) -> (Certificate, Vec<shard::Done>) {
    shard::run(plan, dir, &small_options(), budget, &|_| {}).expect("sharded solve")
}

pub(crate) fn run(plan: &Plan, dir: &Path, threads: usize) -> (Certificate, Vec<shard::Done>) {
    run_with(plan, dir, shard::Budget::threads(threads))
}

#[test]
fn pending_lists_the_tasks_left_in_order_without_a_first_move() {
    let plan = plan_4x4();
    let dir = fresh_dir("pending");
    assert_eq!(shard::pending(&plan, &dir).len(), plan.unique().count());
    run(&plan, &dir, 2);
    assert!(shard::pending(&plan, &dir).is_empty(), "all solved");
    let unique: Vec<&shard::Task> = plan.unique().collect();
    let (a, b, c) = (unique[1], unique[3], unique[5]);
    // Task a: its shard removed. Task b: removed, with a subtask shard left by a split
    // (tried before). Task c: its shard corrupted (does not check, so to do again).
    for t in [a, b] {
        let path = plan.shard_path(&dir, t);
        std::fs::remove_file(&path).expect("remove shard");
    }
    let sub = dir
        .join("shards")
        .join(format!("{}.000-a1-a2xa3.cert", b.name));
    std::fs::write(&sub, b"partial").expect("write subtask file");
    let path = plan.shard_path(&dir, c);
    let mut bytes = std::fs::read(&path).expect("read shard");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, bytes).expect("corrupt shard");
    let left: Vec<&str> = shard::pending(&plan, &dir)
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    // Without a first move one winning task settles the root: the tasks tried before
    // keep their place (with one they go last: the campaign crate's unit tests).
    assert_eq!(left, [a.name.as_str(), b.name.as_str(), c.name.as_str()]);
    // Every task the run started is in started.tsv, and finished ones are in times.tsv.
    let started = std::fs::read_to_string(dir.join(shard::STARTED_FILE)).expect("started");
    assert_eq!(started.lines().count(), plan.unique().count());
    // Task d: removed, and started by a run that never finished it (killed).
    let d = unique[7];
    std::fs::remove_file(plan.shard_path(&dir, d)).expect("remove shard");
    let times = std::fs::read_to_string(dir.join(shard::TIMES_FILE)).expect("times");
    let kept: String = times
        .lines()
        .filter(|l| !l.starts_with(&format!("{}\t", d.name)))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(kept.len() < times.len(), "task d had a recorded time");
    std::fs::write(dir.join(shard::TIMES_FILE), kept).expect("write times");
    let left: Vec<&str> = shard::pending(&plan, &dir)
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(
        left,
        [
            a.name.as_str(),
            b.name.as_str(),
            c.name.as_str(),
            d.name.as_str()
        ]
    );
}

/// A resumed run checks the shards on disk before it solves anything, so its progress
/// counts them all at once (the order among the others is `pending`'s).
#[test]
fn a_resumed_run_takes_the_finished_shards_first() {
    let (plan, dir) = solved_4x4("resumed-first");
    let unique: Vec<&shard::Task> = plan.unique().collect();
    for t in [unique[0], unique[2]] {
        std::fs::remove_file(plan.shard_path(&dir, t)).expect("remove shard");
    }
    let on_disk = unique.len() - 2;
    let seen = std::sync::Mutex::new(Vec::new());
    shard::run(
        &plan,
        &dir,
        &small_options(),
        shard::Budget::threads(1),
        &|p| {
            seen.lock().expect("lock").push((p.done, p.resumed));
        },
    )
    .expect("resumed run");
    let seen = seen.into_inner().expect("lock");
    assert!(
        seen.iter().any(|&(done, _)| done == unique.len()),
        "{seen:?}"
    );
    for &(done, resumed) in &seen {
        assert!(
            done == resumed || resumed == on_disk,
            "a task was solved before every shard on disk was counted: {seen:?}"
        );
    }
}

/// The times in `manifest.md`: of this run for the tasks it solved, from `times.tsv` for
/// the tasks an earlier run solved, `-` where none was recorded.
#[test]
fn a_resumed_manifest_lists_the_recorded_times() {
    let (plan, dir) = solved_4x4("times");
    let unique: Vec<&shard::Task> = plan.unique().collect();
    // Rewrite the record: a made-up time for the first task, none for the second.
    let times = std::fs::read_to_string(dir.join("times.tsv")).expect("times.tsv");
    let mut kept: Vec<String> = times
        .lines()
        .filter(|l| {
            let name = l.split('\t').next().unwrap_or_default();
            name != unique[0].name && name != unique[1].name
        })
        .map(str::to_string)
        .collect();
    kept.push(format!("{}\t987654321\t1", unique[0].name));
    std::fs::write(dir.join("times.tsv"), kept.join("\n") + "\n").expect("write times");
    // Task 2 is solved again by the rerun: its time is the rerun's.
    std::fs::remove_file(plan.shard_path(&dir, unique[2])).expect("remove shard");
    let (_, done) = run(&plan, &dir, 1);
    let md = std::fs::read_to_string(dir.join("manifest.md")).expect("manifest.md");
    let ms_of = |name: &str| -> String {
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no row for {name}"));
        row.split('|').nth(5).expect("ms column").trim().to_string()
    };
    assert_eq!(ms_of(&unique[0].name), "987654321");
    assert_eq!(ms_of(&unique[1].name), "-");
    let again = done
        .iter()
        .zip(&plan.tasks)
        .find(|(_, t)| t.name == unique[2].name)
        .map(|(d, _)| d)
        .expect("task 2 done");
    assert!(!again.resumed);
    assert_eq!(ms_of(&unique[2].name), again.millis.to_string());
}

#[test]
fn progress_counts_the_nodes_of_running_and_finished_tasks() {
    let plan = plan_4x4();
    let dir = fresh_dir("progress");
    let reports = std::sync::Mutex::new(Vec::new());
    let (_, done) = shard::run(
        &plan,
        &dir,
        &small_options(),
        shard::Budget::threads(2),
        &|p| {
            reports.lock().expect("lock").push(p.clone());
        },
    )
    .expect("sharded solve");
    let reports = reports.into_inner().expect("lock");
    let unique = plan.unique().count();
    // One report at every task end, and periodic ones if the run is slow.
    assert!(reports.len() >= unique);
    for pair in reports.windows(2) {
        assert!(
            pair[0].searched <= pair[1].searched,
            "the live count never goes back"
        );
    }
    let last = reports.last().expect("reports");
    assert_eq!(last.done, unique);
    let solved: u64 = done
        .iter()
        .filter(|d| d.mirror_of.is_none())
        .map(|d| d.nodes)
        .sum();
    assert_eq!(last.nodes, solved);
    assert!(
        reports.iter().all(|p| p.running.len() <= 2),
        "at most one task per thread runs"
    );
    assert!(last.running.is_empty(), "nothing runs after the last task");
    // Every task's search adds to the live count, and so do its proof extraction's.
    assert!(
        last.searched >= solved,
        "{} searched < {solved} in finished tasks",
        last.searched
    );
}

fn running(name: &str, secs: u64, subtasks: usize) -> shard::Running {
    shard::Running {
        name: name.into(),
        elapsed: std::time::Duration::from_secs(secs),
        subtasks,
        levels: Vec::new(),
        rung: None,
        left: None,
        rung_pace: None,
    }
}

#[test]
fn progress_lines_name_the_long_running_tasks() {
    let p = shard::Progress {
        done: 3,
        total: 10,
        resumed: 1,
        nodes: 1000,
        searched: 5000,
        elapsed: std::time::Duration::from_secs(100),
        last: "002-a1-a2xa3 (Black wins, 5 ms)".into(),
        running: vec![
            running("044-b1-c2xa4", 150, 0),
            running("049-b1-c2xd4", 20, 0),
            running("050-b1-c2xd5", 600, 12),
        ],
        helped: 0,
        finished: false,
        pass: None,
    };
    let line = p.line();
    assert!(
        line.starts_with("tasks 3/10 (1 resumed), 5000 nodes, 50 nodes/s"),
        "{line}"
    );
    assert!(
        line.ends_with("; running 044-b1-c2xa4 (2 min), 050-b1-c2xd5 (10 min, 12 subtask shards)"),
        "{line}"
    );
    assert!(
        !line.contains("049"),
        "tasks under a minute are not listed: {line}"
    );
    assert!(!line.contains("idle"), "{line}");
    let helped = shard::Progress { helped: 7, ..p }.line();
    assert!(
        helped.contains(", 7 subtasks solved by idle threads; last 002-a1-a2xa3"),
        "{helped}"
    );
}

#[test]
fn subtask_shards_count_a_split_tasks_finished_subtasks() {
    let dir = fresh_dir("subtask-count");
    let shards = dir.join("shards");
    std::fs::create_dir_all(&shards).expect("create shards");
    assert_eq!(shard::subtask_shards(&dir, "006-a5-a3xa4"), 0);
    for file in [
        "006-a5-a3xa4.000-a3-b2xa1.cert",
        "006-a5-a3xa4.001-a3-b2xb1.cert.zst",
        "006-a5-a3xa4.001-a3-b2xb1.000-b6-b5xb4.cert",
        // Not finished subtasks of 006: the task's own shard, a temporary file, another task.
        "006-a5-a3xa4.cert",
        "006-a5-a3xa4.002-a3-b2xc2.cert.tmp",
        "007-a5-a3xa5.000-a3-b2xa1.cert",
    ] {
        std::fs::write(shards.join(file), b"x").expect("write");
    }
    assert_eq!(shard::subtask_shards(&dir, "006-a5-a3xa4"), 3);
    assert_eq!(shard::subtask_shards(&dir, "007-a5-a3xa5"), 1);
    assert_eq!(shard::subtask_shards(&dir, "008-a5-a3xa6"), 0);
}

#[test]
fn interrupted_run_resumes_to_the_same_root_hash() {
    let plan = plan_4x4();
    let dir = fresh_dir("resume");
    let unique: Vec<&shard::Task> = plan.unique().collect();
    let (full, done) = run(&plan, &dir, 2);
    assert_eq!(done.len(), plan.tasks.len());
    let shards = DirShards::scan(&dir.join("shards"));
    let report = check_with(&full, &shards).expect("manifest checks");
    assert_eq!(report.shards, unique.len());
    // The 4x4 start is mirror-symmetric: half of the first moves mirror the other half and
    // are proven by transposition in the manifest, not by shards of their own.
    assert_eq!(unique.len() * 2, plan.tasks.len());
    let transpositions = full
        .steps
        .iter()
        .filter(|s| matches!(s, Step::Transposition { .. }))
        .count();
    assert_eq!(transpositions, plan.tasks.len() - unique.len());
    assert_eq!(
        full.root.winner,
        amazons_format::Color::Black,
        "4x4 is a second-player win"
    );

    // Simulate a kill part-way: some shards never written, one left as a stray temporary
    // file (what an interrupted atomic write leaves), the manifest not yet written.
    for task in unique.iter().skip(unique.len() / 2) {
        std::fs::remove_file(plan.shard_path(&dir, task)).expect("remove shard");
    }
    std::fs::write(dir.join("shards").join(".000-x.cert.999.tmp"), b"partial").expect("tmp");
    std::fs::remove_file(dir.join("manifest.cert")).expect("remove manifest");
    assert!(
        shard::collect(&plan, &dir).is_err(),
        "missing shards are noticed"
    );

    let (resumed, done2) = run(&plan, &dir, 2);
    let skipped = done2
        .iter()
        .filter(|d| d.resumed && d.mirror_of.is_none())
        .count();
    assert_eq!(
        skipped,
        unique.len() / 2,
        "finished shards are skipped, not re-solved"
    );
    assert_eq!(
        root_hash(&resumed),
        root_hash(&full),
        "same root hash after resuming"
    );
    let shards = DirShards::scan(&dir.join("shards"));
    check_with(&resumed, &shards).expect("resumed manifest checks");

    // A corrupt shard on disk is not trusted: it is solved again.
    let victim = plan.shard_path(&dir, &plan.tasks[0]);
    let mut bytes = std::fs::read(&victim).expect("read shard");
    let n = bytes.len();
    bytes[n / 2] ^= 0x55;
    std::fs::write(&victim, &bytes).expect("corrupt shard");
    let (again, done3) = run(&plan, &dir, 1);
    assert!(!done3[0].resumed, "a corrupt shard is re-solved");
    assert_eq!(root_hash(&again), root_hash(&full));
}

#[test]
fn runs_that_split_the_tasks_with_only_share_a_directory_and_give_the_same_root_hash() {
    let plan = plan_4x4();
    let whole = fresh_dir("only-whole");
    let (full, _) = run(&plan, &whole, 1);
    let unique: Vec<&shard::Task> = plan.unique().collect();
    let dir = fresh_dir("only-split");
    let budget = |only: Vec<String>| shard::Budget {
        threads: 1,
        only,
        ..Default::default()
    };
    // The first run takes tasks by number, name and move; the second all the others.
    let (a, b, c) = (unique[0], unique[1], unique[2]);
    let first = vec![
        a.index.to_string(),
        b.name.clone(),
        c.name.split_once('-').expect("NNN-MOVE").1.to_string(),
    ];
    match shard::run(&plan, &dir, &small_options(), budget(first), &|_| {}) {
        Err(shard::ShardError::Skipped { skipped, total }) => {
            assert_eq!(total, unique.len());
            assert_eq!(
                skipped,
                unique.len() - 3,
                "only the three selected tasks ran"
            );
        }
        other => panic!("a run of some tasks must end without a manifest: {other:?}"),
    }
    let names: Vec<String> = [a, b, c]
        .iter()
        .map(|t| format!("{}.cert", t.name))
        .collect();
    assert_eq!(
        shard::shard_names(&dir),
        names,
        "shards of the selected tasks only"
    );
    assert!(!dir.join("manifest.cert").exists());

    // The rest, selected by number: the three shards on disk are resumed, not solved.
    let rest: Vec<String> = unique[3..]
        .iter()
        .map(|t| format!("{:03}", t.index))
        .collect();
    let (manifest, done) = shard::run(&plan, &dir, &small_options(), budget(rest), &|_| {})
        .expect("the last run finishes the result");
    let resumed: Vec<usize> = done
        .iter()
        .zip(&plan.tasks)
        .filter(|(d, _)| d.resumed && d.mirror_of.is_none())
        .map(|(_, t)| t.index)
        .collect();
    assert_eq!(resumed, vec![a.index, b.index, c.index]);
    assert_eq!(
        root_hash(&manifest),
        root_hash(&full),
        "same result as one run"
    );
    check_with(&manifest, &DirShards::scan(&dir.join("shards"))).expect("manifest checks");

    // A selector that names no task is refused before anything runs.
    let bad = fresh_dir("only-bad");
    let only = vec!["z9-z8xz7".into()];
    let err = shard::run(&plan, &bad, &small_options(), budget(only), &|_| {});
    assert!(matches!(err, Err(shard::ShardError::NoSuchTask(s)) if s == "z9-z8xz7"));
    assert!(!bad.join("plan.txt").exists(), "nothing written");

    // Selecting a mirrored task solves the task it mirrors (which proves both).
    let mirrored = (plan.tasks.iter())
        .find(|t| t.mirror.is_some())
        .expect("the 4x4 start has mirrored tasks");
    let (j, _) = mirrored.mirror.expect("mirror");
    let via = fresh_dir("only-mirror");
    let only = vec![mirrored.index.to_string()];
    let err = shard::run(&plan, &via, &small_options(), budget(only), &|_| {});
    assert!(
        matches!(err, Err(shard::ShardError::Skipped { .. })),
        "{err:?}"
    );
    assert_eq!(
        shard::shard_names(&via),
        vec![format!("{}.cert", plan.tasks[j].name)],
        "the mirrored task's original was solved"
    );
}

#[test]
fn tasks_whose_proof_is_over_the_step_limit_are_split_and_still_check() {
    let plan = plan_4x4();
    let capped = |max_steps| amazons_solver::Options {
        max_steps: Some(max_steps),
        hash_mib: 4,
        ..small_options()
    };
    // A plain solve over the limit fails with a typed error instead of writing anything.
    let root = Position::start("4x4").expect("4x4");
    let err = amazons_solver::solve(&root, &capped(50), "test").expect_err("over the limit");
    assert!(
        matches!(
            err,
            amazons_solver::SolveError::Emit(amazons_solver::emit::EmitError::TooLarge {
                steps: 50,
                ..
            })
        ),
        "{err}"
    );
    // Sharded with splitting, the big tasks become manifests of smaller shards.
    let dir = fresh_dir("max-steps");
    let budget = shard::Budget {
        threads: 1,
        split_depth: 3,
        ..Default::default()
    };
    let (manifest, _) =
        shard::run(&plan, &dir, &capped(500), budget, &|_| {}).expect("split solve");
    let names = shard::shard_names(&dir);
    assert!(
        names.iter().any(|n| is_subtask(n)),
        "some task was split into subtasks"
    );
    let report = check_with(&manifest, &DirShards::scan(&dir.join("shards"))).expect("checks");
    assert_eq!(report.shards, names.len());
    assert_eq!(manifest.root.winner, amazons_format::Color::Black);
    // Every shard that is not a split task's manifest keeps to the limit.
    for n in &names {
        let bytes = std::fs::read(dir.join("shards").join(n)).expect("read shard");
        let cert = amazons_format::decode(&bytes).expect("decode");
        let is_manifest = cert.steps.iter().any(|s| matches!(s, Step::Shard { .. }));
        assert!(
            is_manifest || cert.steps.len() <= 500,
            "{n}: {} steps",
            cert.steps.len()
        );
    }
}

#[test]
fn tasks_over_budget_are_split_or_left_open() {
    let plan = plan_4x4();
    let tight = amazons_solver::Options {
        max_nodes: Some(400),
        hash_mib: 4,
        ..small_options()
    };
    let budget = |split_depth| shard::Budget {
        threads: 2,
        split_depth,
        ..Default::default()
    };

    // Without splitting, tasks over the budget stay open; the others are written.
    let dir = fresh_dir("open");
    let e = shard::run(&plan, &dir, &tight, budget(0), &|_| {}).expect_err("open tasks");
    let shard::ShardError::Unfinished { open, total, .. } = e else {
        panic!("expected unfinished tasks, got {e}");
    };
    assert!(open > 0 && open < total, "{open} of {total} open");
    assert_eq!(plan.proved(&dir), total - open);
    assert!(
        !dir.join("manifest.cert").exists(),
        "no manifest while tasks are open"
    );
    // The plan file lets a later run (or `amazons index`) find the plan again.
    let again = Plan::read(&dir).expect("plan file");
    assert_eq!(again.root, plan.root);
    assert_eq!(again.first, plan.first);
    // A run without the budget finishes the open tasks and keeps the others.
    let (_, done) = run(&plan, &dir, 2);
    let resumed = done
        .iter()
        .filter(|d| d.resumed && d.mirror_of.is_none())
        .count();
    assert_eq!(resumed, total - open);

    // With splitting, big tasks become manifests of subtasks, and the whole checks.
    let dir = fresh_dir("split");
    let (manifest, _) = shard::run(&plan, &dir, &tight, budget(3), &|_| {}).expect("split solve");
    let nested = shard::shard_names(&dir)
        .iter()
        .filter(|n| is_subtask(n))
        .count();
    assert!(nested > 0, "some task was split into subtasks");
    let shards = DirShards::scan(&dir.join("shards"));
    let report = check_with(&manifest, &shards).expect("split manifest checks");
    assert!(
        report.shards > plan.unique().count(),
        "nested shards are checked too"
    );
    // Every shard on disk is part of the proof: a refuted guess leaves none behind.
    let files = shard::shard_names(&dir).len();
    assert_eq!(report.shards, files, "shards on disk outside the proof");
    assert_eq!(
        manifest.root.winner,
        amazons_format::Color::Black,
        "4x4 is a second-player win"
    );
    // Idle threads take over subtasks, but the shards do not depend on who solved them:
    // one thread with the same table per thread (half the memory) gives the same root hash.
    let alone = fresh_dir("split-alone");
    let half = amazons_solver::Options {
        hash_mib: tight.hash_mib / 2,
        ..tight.clone()
    };
    let (one, _) = shard::run(
        &plan,
        &alone,
        &half,
        shard::Budget {
            threads: 1,
            ..budget(3)
        },
        &|_| {},
    )
    .expect("split solve on one thread");
    assert_eq!(root_hash(&one), root_hash(&manifest));
    // Resuming a split run re-solves nothing and gives the same root hash.
    let (again, done) =
        shard::run(&plan, &dir, &tight, budget(3), &|_| {}).expect("resumed split solve");
    assert!(done.iter().all(|d| d.resumed));
    assert_eq!(root_hash(&again), root_hash(&manifest));
    // A damaged subtask shard is noticed by the checker.
    let victim = (shard::shard_names(&dir).into_iter())
        .find(|n| is_subtask(n))
        .map(|n| dir.join("shards").join(n))
        .expect("a subtask shard");
    std::fs::remove_file(&victim).expect("remove a subtask shard");
    let shards = DirShards::scan(&dir.join("shards"));
    let e = check_with(&manifest, &shards).expect_err("missing subtask shard");
    // Found missing inside the split task's own manifest (or a deeper one).
    let Failure::ShardWrong { detail, .. } = &e.failure else {
        panic!("expected a failure inside a split shard, got {e}");
    };
    assert!(
        detail
            .to_string()
            .contains("no shard file with this body hash"),
        "{e}"
    );
}

#[test]
fn a_table_shared_between_tasks_still_gives_a_checked_manifest() {
    let plan = plan_4x4();
    let dir = fresh_dir("shared");
    let shared_table = shard::Budget {
        shared_table: true,
        ..shard::Budget::threads(1)
    };
    let (manifest, done) = run_with(&plan, &dir, shared_table);
    let shards = DirShards::scan(&dir.join("shards"));
    check_with(&manifest, &shards).expect("manifest checks");
    assert_eq!(manifest.root.winner, amazons_format::Color::Black);
    // Later tasks found positions proven by earlier ones: fewer nodes than separate tables.
    let shared: u64 = done
        .iter()
        .filter(|d| d.mirror_of.is_none())
        .map(|d| d.nodes)
        .sum();
    let _ = std::fs::remove_dir_all(&*dir);
    let (_, alone) = run(&plan, &dir, 1);
    let separate: u64 = alone
        .iter()
        .filter(|d| d.mirror_of.is_none())
        .map(|d| d.nodes)
        .sum();
    assert!(
        shared < separate,
        "shared {shared} against separate {separate}"
    );
}

#[test]
fn a_first_player_win_stops_at_the_first_winning_task() {
    // 5x4 is a first-player win: with the tasks ranked by a short search, the run stops
    // once a task White wins is found, and the manifest cites that task alone.
    let dir = fresh_dir("first-win");
    let root = Position::start("5x4").expect("5x4");
    let plan = Plan::new(&root, None).expect("plan");
    let guess_order = shard::Budget {
        guess_order: true,
        ..shard::Budget::threads(1)
    };
    let (manifest, done) = run_with(&plan, &dir, guess_order);
    assert_eq!(manifest.root.winner, amazons_format::Color::White);
    assert!(matches!(
        manifest.steps[..],
        [Step::Choice(_), Step::Shard { .. }]
    ));
    assert_eq!(done.len(), 1);
    let shards = DirShards::scan(&dir.join("shards"));
    check_with(&manifest, &shards).expect("manifest checks");
    let written = shard::shard_names(&dir).len();
    assert!(
        written < plan.unique().count(),
        "stopped early: {written} of {} tasks",
        plan.unique().count()
    );
}

#[test]
fn the_index_names_the_first_move_a_run_without_one_found() {
    // 5x4 without a fixed first move: the index row of the finished result gives the move
    // of the task White won, which the plan does not record.
    let top = fresh_dir("index-first");
    let dir = top.join("5x4");
    let root = Position::start("5x4").expect("5x4");
    let plan = Plan::new(&root, None).expect("plan");
    assert!(plan.first.is_none());
    let (manifest, _) = run(&plan, &dir, 1);
    let Step::Choice(amazons_format::Action::Board(won)) = manifest.steps[0] else {
        panic!(
            "a first-player win starts with White's move: {:?}",
            manifest.steps[0]
        );
    };
    let index = amazons_campaign::index::build(&top, &mut |_| {}).expect("index");
    let row = (index.markdown.lines())
        .find(|l| l.starts_with("| 5x4/manifest"))
        .unwrap_or_else(|| panic!("no row for 5x4/: {}", index.markdown));
    let cells: Vec<&str> = row.split(" | ").collect();
    assert_eq!(cells[3], won.notation(root.board), "{row}");
    // The solve time is that of the task the manifest cites, not of every task in the plan
    // (the run never solves most first moves once one wins).
    let task = (plan.unique())
        .find(|t| t.mv == won)
        .expect("the winning move is a task");
    let (ms, timed) = shard::recorded_millis(&dir, std::iter::once(task.name.as_str()));
    assert_eq!(timed, 1, "the winning task's time is recorded");
    assert_eq!(cells[5], ms.to_string(), "{row}");

    // `amazons manifest` rebuilds the same manifest from the shards on disk, though most
    // first moves were never solved.
    let written = amazons_format::stored::read(&dir.join("manifest.cert")).expect("manifest");
    assert!(
        shard::collect(&plan, &dir).is_err(),
        "not every task is on disk"
    );
    std::fs::remove_file(dir.join("manifest.cert")).expect("remove manifest");
    let (single, done) = shard::collect_result(&plan, &dir).expect("the winning task");
    assert_eq!(single.tasks.len(), 1);
    assert_eq!(single.tasks[0].mv, won);
    let again = shard::assemble(&single, &dir, &done).expect("assemble");
    assert_eq!(again, manifest);
    let rewritten = amazons_format::stored::read(&dir.join("manifest.cert")).expect("written");
    assert_eq!(rewritten, written, "byte for byte");
}

#[test]
fn split_tasks_where_the_side_to_move_loses_become_one_subtask_per_move() {
    // 5x4 with White's winning first move fixed: every task is a Black reply that loses,
    // so when such a task is over budget the split must make every Black move a subtask
    // (a fixed Black move could never be proven). The result is a White win that checks.
    let root = Position::start("5x4").expect("5x4");
    let winning = Move::parse(root.board, "b1-b2xd2").expect("move");
    let plan = Plan::new(&root, Some(winning)).expect("plan");
    let dir = fresh_dir("and-split");
    // A quarter of what the whole position after the move needs: the hardest replies do
    // not fit (measured, so that the test does not depend on how good the search is).
    let small = amazons_solver::Options {
        hash_mib: 4,
        ..small_options()
    };
    let after = amazons_checker::rules::play(&root, winning);
    let whole = amazons_solver::solve(&after, &small, "amazons-tests").expect("solves whole");
    assert_eq!(whole.winner, amazons_format::Color::White);
    let opts = amazons_solver::Options {
        max_nodes: Some((whole.search_nodes / 4).max(1)),
        ..small
    };
    let budget = shard::Budget {
        threads: 2,
        split_depth: 3,
        guess_order: true,
        ..Default::default()
    };
    let (manifest, _) = shard::run(&plan, &dir, &opts, budget, &|_| {}).expect("solve");
    assert_eq!(manifest.root.winner, amazons_format::Color::White);
    let shards = DirShards::scan(&dir.join("shards"));
    let report = check_with(&manifest, &shards).expect("manifest checks");
    let tasks = plan.unique().count();
    assert!(
        report.shards > tasks,
        "some reply was split: {} shards for {tasks} tasks",
        report.shards
    );
}

#[test]
fn without_a_first_move_a_free_thread_helps_a_split_task_before_opening_the_next() {
    // 5x4 is a first-player win, and at 5,000 nodes a task is split: one won task settles
    // the root, so the second thread, once its own task is done, takes subtasks of the
    // split in flight (here the runs' tasks were split hundreds of times) instead of the
    // next first move. Opening first moves instead, it helped with none.
    let root = Position::start("5x4").expect("5x4");
    let plan = Plan::new(&root, None).expect("plan");
    let dir = fresh_dir("help-first");
    let tight = amazons_solver::Options {
        max_nodes: Some(5_000),
        hash_mib: 4,
        ..small_options()
    };
    let budget = shard::Budget {
        threads: 2,
        split_depth: 3,
        guess_order: true,
        ..Default::default()
    };
    let helped = std::sync::atomic::AtomicUsize::new(0);
    let (manifest, _) = shard::run(&plan, &dir, &tight, budget, &|p| {
        helped.fetch_max(p.helped, std::sync::atomic::Ordering::SeqCst);
    })
    .expect("sharded solve");
    assert_eq!(manifest.root.winner, amazons_format::Color::White);
    let shards = DirShards::scan(&dir.join("shards"));
    check_with(&manifest, &shards).expect("manifest checks");
    let helped = helped.into_inner();
    assert!(
        helped > 0,
        "no subtask solved by a thread other than its owner"
    );
}
