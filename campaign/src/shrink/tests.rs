//! Tests of re-solving shards for size: the rules and tries read from the decisions, the give-up rule, the targets, and only a smaller shard replacing one.

use super::*;
use crate::shard::{Budget, TIMES_FILE};
use amazons_format::{Move, Position};

fn tempdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("amazons-shrink-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// 5x5 after d1-d3xb3: three replies whose weak shards `sum` numbers make smaller
/// (and one that stays the same size), solved with weak numbers into `dir`.
fn campaign(dir: &Path) -> Plan {
    let root = Position::start("5x5").expect("5x5");
    let first = Move::parse(root.board, "d1-d3xb3").expect("move");
    let plan = Plan::new(&root, Some(first)).expect("plan");
    let opts = Options {
        hash_mib: 64,
        max_nodes: Some(2_000_000),
        ..Options::default()
    };
    let budget = Budget {
        only: ["37", "113", "84", "90"].map(String::from).to_vec(),
        ..Budget::threads(2)
    };
    let run = crate::shard::run(&plan, dir, &opts, budget, &|_| {});
    assert!(matches!(run, Err(ShardError::Skipped { .. })), "{run:?}");
    plan
}

fn body_hash(plan: &Plan, dir: &Path, task: &Task) -> [u8; 32] {
    let file = on_disk(&plan.shard_path(dir, task)).expect("shard on disk");
    let bytes = amazons_format::stored::read(&file).expect("read");
    amazons_format::hash_body(amazons_format::file::verified_body(&bytes).expect("body"))
}

#[test]
fn the_rule_of_each_shard_is_read_from_the_decisions() {
    let dir = tempdir("made");
    let lines = [
        "t\trun\tbudget\t1 thread(s)\tladder 1M nodes",
        "t\t001-a\ttask done\t-\tWhite wins",
        "t\trun\tbudget\t2 thread(s)\tladder 1M nodes; df-pn numbers capped",
        "t\t002-b\ttask done\t-\tWhite wins",
        "t\t001-a\tre-solved for size\tnumbers sum, 3M nodes\treplaced: 10 bytes stored against 20",
        "t\t002-b\tre-solved for size\tnumbers sum, 3M nodes\tkept the old shard: 30 against 20",
        "t\trun\tbudget\t2 thread(s)\tladder 1M nodes",
        "t\t003-c\ttask done\t-\tWhite wins",
        "t\t003-c\tre-solved for size\tnumbers sum, 1M nodes, as it goes\tover the budget: the old shard is kept",
        "t\t004-d\ttask done\t-\tWhite wins",
        "t\t004-d\tre-solved for size\tnumbers sum, 1M nodes, as it goes\tkept the old shard: 30 against 20",
        "t\t005-e.001-x\tre-solved for size\tnumbers sum, 1M nodes\treplaced: 10 bytes stored against 20",
        "t\t005-e.002-y\tre-solved for size\tnumbers sum, 1M nodes\treplaced: 10 bytes stored against 20",
        "t\t005-e\tguess refuted\t-\tb1-b2xb3",
        "t\t005-e.002-y\tre-solved for size\tnumbers sum, 1M nodes\treplaced: 10 bytes stored against 20",
    ];
    std::fs::write(dir.join(decisions::DECISIONS_FILE), lines.join("\n") + "\n").expect("write");
    let made = made_with(&dir);
    assert_eq!(made.get("001-a").map(String::as_str), Some("sum"));
    assert_eq!(made.get("002-b").map(String::as_str), Some("capped"));
    assert_eq!(made.get("003-c").map(String::as_str), Some("weak"));
    let tried = tried_with(&dir, "sum");
    assert!(tried.contains("001-a") && tried.contains("002-b"));
    // Over the smaller budget of a re-solve as the campaign went: `amazons shrink` may
    // try again with its own; a finished try counts.
    assert!(!tried.contains("003-c") && tried.contains("004-d"));
    // A subtask re-solved under a guess refuted since: its name is another position's
    // now, not tried yet; one re-solved again under the next guess is.
    assert!(!tried.contains("005-e.001-x") && tried.contains("005-e.002-y"));
    assert_eq!(made.get("003-c").map(String::as_str), Some("weak"));
    assert!(tried_with(&dir, "capped").is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn re_solving_as_it_goes_stops_after_a_run_of_failures_and_tries_again_later() {
    let line = |d: &str, b: &str, o: &str| ["t".to_string(), d.into(), b.into(), o.into()];
    let tried = |o: &str| line(RESOLVED, "numbers sum, 1M nodes, as it goes", o);
    let over = tried("over the budget: the old shard is kept");
    let kept = tried("kept the old shard: the new one is 30 bytes stored against 20");
    let replaced = tried("replaced: 10 bytes stored against 20");
    let passed = line(NOT_RESOLVED, "-", "why");
    let mut lines = vec![replaced.clone()];
    assert!(worth_trying(&lines).is_ok());
    lines.extend([over.clone(), kept.clone(), over.clone(), over.clone()]);
    assert!(worth_trying(&lines).is_ok(), "four failures in a row");
    // Tries by `amazons shrink` (no `as it goes`) do not count.
    lines.push(line(
        RESOLVED,
        "numbers sum, 3M nodes",
        "replaced: 1 bytes stored against 2",
    ));
    lines.push(over.clone());
    let why = worth_trying(&lines).expect_err("five failures in a row");
    assert!(why.contains("last 5 re-solves"), "{why}");
    for _ in 1..TRY_AGAIN_AFTER {
        lines.push(passed.clone());
    }
    assert!(worth_trying(&lines).is_err());
    lines.push(passed.clone());
    assert!(
        worth_trying(&lines).is_ok(),
        "one more is tried after ten passed over"
    );
    lines.push(over.clone());
    assert!(worth_trying(&lines).is_err(), "failed again: off again");
    lines.push(replaced);
    assert!(worth_trying(&lines).is_ok(), "a replacement turns it on");
}

#[test]
fn the_largest_shards_are_re_solved_and_only_smaller_ones_replace_them() {
    let dir = tempdir("replace");
    let plan = campaign(&dir);
    let targets = targets(&plan, &dir, Numbers::Sum, 3, &[], 2).expect("targets");
    assert_eq!(targets.len(), 3);
    assert!(targets.windows(2).all(|w| w[0].stored >= w[1].stored));
    let before: Vec<(String, u64, [u8; 32])> = targets
        .iter()
        .map(|t| (t.name.clone(), t.stored, t.done.hash))
        .collect();
    let opts = Options {
        hash_mib: 64,
        numbers: Numbers::Sum,
        ..Options::default()
    };
    let seen = Mutex::new(0);
    let outcomes = run(&plan, &dir, &opts, &targets, 2, &|_| {
        *seen.lock().expect("lock") += 1;
    })
    .expect("shrink");
    assert_eq!(outcomes.len(), 3);
    assert_eq!(*seen.lock().expect("lock"), 3);
    let times = std::fs::read_to_string(dir.join(TIMES_FILE)).expect("times");
    let mut replaced = 0;
    for (name, stored, hash) in before {
        let o = outcomes.iter().find(|o| o.name == name).expect("outcome");
        let task = plan.unique().find(|t| t.name == name).expect("task");
        let now = on_disk(&plan.shard_path(&dir, task)).expect("shard");
        let size = now.metadata().expect("size").len();
        // The shard on disk still proves the task.
        assert!(crate::shard::existing(&plan.shard_path(&dir, task), task).is_some());
        match o.verdict {
            Verdict::Replaced { old, new } => {
                replaced += 1;
                assert_eq!((old, new), (stored, size));
                assert!(new < old);
                assert_ne!(body_hash(&plan, &dir, task), hash);
                // The last line of times.tsv for the task is the new search.
                let last = times.lines().rfind(|l| l.starts_with(&name));
                assert_eq!(
                    last.and_then(|l| l.split('\t').nth(2)),
                    Some(o.nodes.to_string().as_str())
                );
            }
            Verdict::Kept { old, new } => {
                assert!(new >= old);
                assert_eq!(size, stored);
                assert_eq!(body_hash(&plan, &dir, task), hash);
            }
            Verdict::OverBudget { .. } => panic!("{name}: over 3 times its nodes"),
        }
    }
    // On 5x5, sum numbers make two of these three shards smaller.
    assert!(replaced >= 2, "{outcomes:?}");
    // Every attempt is recorded: a rerun with the same rule takes the next shard only,
    // and another rule takes these again.
    let again = super::targets(&plan, &dir, Numbers::Sum, 3, &[], 2).expect("targets");
    assert_eq!(again.len(), 1);
    assert!(outcomes.iter().all(|o| o.name != again[0].name));
    let capped = super::targets(&plan, &dir, Numbers::Capped, 4, &[], 2).expect("targets");
    assert_eq!(capped.len(), 4);
    // `--only` names tasks even when they were tried.
    let only = [outcomes[0].name.clone()];
    assert_eq!(
        super::targets(&plan, &dir, Numbers::Sum, 3, &only, 2)
            .expect("only")
            .len(),
        1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_the_whole_subtask_shards_of_open_splits_are_taken() {
    let files: Vec<String> = [
        "001-a.cert.zst",
        "002-b.000-x.cert",
        "002-b.001-y.cert.zst",
        "002-b.001-y.005-z.cert",
        "003-c.cert",
        "003-c.000-x.cert",
        "004-d.000-x.004-w.cert",
        "004-d.000-x.005-v.cert.zst",
        "004-d.000-x.tmp",
    ]
    .map(String::from)
    .to_vec();
    assert!(open_subtasks(&files, "001-a").is_empty());
    // 001-y is split and finished: its manifest cites 005-z.
    assert_eq!(open_subtasks(&files, "002-b"), ["002-b.000-x"]);
    // Under a finished task the subtask shards are cited (checked by `targets`, which
    // looks only under tasks without a shard), but the function itself sees 000-x.
    assert_eq!(open_subtasks(&files, "003-c"), ["003-c.000-x"]);
    assert_eq!(
        open_subtasks(&files, "004-d"),
        ["004-d.000-x.004-w", "004-d.000-x.005-v"]
    );
}

#[test]
fn a_subtask_shard_of_an_open_split_is_re_solved_where_it_is() {
    let dir = tempdir("subtask");
    let plan = campaign(&dir);
    // Task 37's shard, moved to stand for a subtask of the task: the task is open.
    let task = plan.unique().find(|t| t.index == 37).expect("task 37");
    let from = on_disk(&plan.shard_path(&dir, task)).expect("shard");
    let sub = format!("{}.000-a1-a2xa3", task.name);
    let zst = if from.extension().is_some_and(|e| e == "zst") {
        ".zst"
    } else {
        ""
    };
    let sub_path = dir.join("shards").join(format!("{sub}.cert"));
    let to = dir.join("shards").join(format!("{sub}.cert{zst}"));
    std::fs::rename(&from, &to).expect("move");
    let targets = targets(&plan, &dir, Numbers::Sum, 10, &[], 2).expect("targets");
    let t = targets
        .iter()
        .find(|t| t.name == sub)
        .expect("the subtask is a target");
    assert!(!t.task);
    assert_eq!(t.position, task.position);
    // `--only` with the open task takes its subtask shards.
    let only = super::targets(
        &plan,
        &dir,
        Numbers::Sum,
        0,
        std::slice::from_ref(&task.name),
        2,
    )
    .expect("only");
    assert_eq!(
        only.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        [sub.as_str()]
    );
    let opts = Options {
        hash_mib: 64,
        numbers: Numbers::Sum,
        ..Options::default()
    };
    let times = |d: &Path| std::fs::read_to_string(d.join(TIMES_FILE)).unwrap_or_default();
    let before = times(&dir);
    let outcomes = run(&plan, &dir, &opts, &only, 1, &|_| {}).expect("shrink");
    assert_eq!(outcomes.len(), 1);
    assert!(!matches!(outcomes[0].verdict, Verdict::OverBudget { .. }));
    // The shard on disk still proves the position; times.tsv holds tasks only.
    assert!(crate::shard::existing_at(&sub_path, &task.position).is_some());
    assert_eq!(t.path, sub_path);
    assert_eq!(times(&dir), before);
    let lines = decisions::read(&dir);
    assert!(lines.iter().any(|l| l[0] == sub && l[1] == RESOLVED));
    // Tried: a rerun takes it no more.
    let again = super::targets(&plan, &dir, Numbers::Sum, 10, &[], 2).expect("targets");
    assert!(again.iter().all(|t| t.name != sub));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn over_its_budget_a_task_keeps_its_shard_and_a_manifest_cites_the_shard_on_disk() {
    let dir = tempdir("budget");
    let plan = campaign(&dir);
    let targets = targets(&plan, &dir, Numbers::Sum, 1, &[], 2).expect("targets");
    let hash = targets[0].done.hash;
    let task = plan
        .unique()
        .find(|t| t.name == targets[0].name)
        .expect("a task");
    let tight = Options {
        hash_mib: 16,
        max_nodes: Some(1),
        numbers: Numbers::Sum,
        ..Options::default()
    };
    let out = run(&plan, &dir, &tight, &targets, 1, &|_| {}).expect("shrink");
    assert_eq!(out[0].verdict, Verdict::OverBudget { budget: 1 });
    assert_eq!(body_hash(&plan, &dir, task), hash);
    // Results read before a replacement are read again from disk.
    let mut results: Vec<Option<Done>> = vec![None; plan.tasks.len()];
    results[task.index] = Some(targets[0].done.clone());
    let full = Options {
        max_nodes: None,
        ..tight
    };
    let out = run(&plan, &dir, &full, &targets, 1, &|_| {}).expect("shrink");
    assert!(
        matches!(out[0].verdict, Verdict::Replaced { .. }),
        "{out:?}"
    );
    let fresh = crate::shard::refresh(&plan, &dir, results).expect("refresh");
    let now = fresh[task.index].as_ref().expect("done").hash;
    assert_ne!(now, hash);
    assert_eq!(now, body_hash(&plan, &dir, task));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_manifest_is_stale_once_a_shard_it_cites_is_replaced() {
    let dir = tempdir("stale");
    let root = Position::start("5x4").expect("5x4");
    let first = Move::parse(root.board, "b1-b2xd2").expect("move");
    let plan = Plan::new(&root, Some(first)).expect("plan");
    let opts = Options {
        hash_mib: 16,
        ..Options::default()
    };
    crate::shard::run(&plan, &dir, &opts, Budget::threads(1), &|_| {}).expect("solve");
    assert!(!crate::shard::manifest_stale(&plan, &dir));
    let mut tasks = plan.unique();
    let (a, b) = (tasks.next().expect("task"), tasks.next().expect("task"));
    let (pa, pb) = (plan.shard_path(&dir, a), plan.shard_path(&dir, b));
    std::fs::copy(on_disk(&pb).expect("b"), on_disk(&pa).expect("a")).expect("copy");
    assert!(crate::shard::manifest_stale(&plan, &dir));
    std::fs::remove_file(on_disk(&pa).expect("a")).expect("remove");
    assert!(crate::shard::manifest_stale(&plan, &dir));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_task_named_without_a_finished_shard_is_an_error() {
    let dir = tempdir("only");
    let plan = campaign(&dir);
    let err = targets(&plan, &dir, Numbers::Sum, 3, &["1".to_string()], 2);
    assert!(matches!(err, Err(ShardError::Task { .. })), "{err:?}");
    let err = targets(&plan, &dir, Numbers::Sum, 3, &["nonsense".to_string()], 2);
    assert!(matches!(err, Err(ShardError::NoSuchTask(_))), "{err:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
