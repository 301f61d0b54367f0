//! Tests of re-solving for size as a run goes: a split's new subtask shards, and the tables such a re-solve starts from.

use super::tests::{legal_moves, tempdir};
use super::*;

#[test]
fn a_split_shrinks_its_new_subtask_shards_and_cites_the_ones_on_disk() {
    use crate::shrink::{AsYouGo, NOT_RESOLVED, RESOLVED};
    use amazons_solver::dfpn::Numbers;
    // 5x5 after d1-d3xb3 and a Black reply: White wins; its winning move is the guess, and
    // Black's replies to it are the subtasks, solved whole with weak numbers.
    let root = Position::start("5x5").expect("5x5");
    let first = Move::parse(root.board, "d1-d3xb3").expect("move");
    let plan = Plan::new(&root, Some(first)).expect("plan");
    let task = plan.unique().find(|t| t.index == 37).expect("task 37");
    let p = task.position.clone();
    let opts = Options {
        hash_mib: 64,
        ..Options::default()
    };
    assert_ne!(
        opts.numbers,
        Numbers::Sum,
        "the run's own rule differs from the shrink's"
    );
    let whole = amazons_solver::solve(&p, &opts, "test").expect("solve");
    assert_eq!(whole.winner, Color::White);
    let Some(Step::Choice(Action::Board(guess))) = whole.certificate.steps.first().cloned() else {
        panic!("a move first");
    };
    let mut order = vec![guess];
    order.extend(legal_moves(&p).into_iter().filter(|&m| m != guess));
    let pool = Pool::default();
    let dir = tempdir("shrink-subtasks");
    let go = AsYouGo {
        over: 0,
        numbers: Numbers::Sum,
    };
    let cx = Split::new(&dir, &root, &opts, &pool).shrinking(Some(go));
    record_split(&dir, "t", &p, &order, true);
    let done = prove_position(&cx, &p, "t", 1).expect("proved");
    assert_eq!(done.winner, Color::White);
    let subtasks = subtask_shards(&dir, "t");
    assert!(subtasks > 1, "the guess's replies are subtasks");
    let lines = crate::decisions::read(&dir);
    let resolved: Vec<&[String; 4]> = lines.iter().filter(|l| l[1] == RESOLVED).collect();
    // Each new subtask shard re-solved once, or passed over after a run of failures.
    let passed = lines.iter().filter(|l| l[1] == NOT_RESOLVED).count();
    assert_eq!(resolved.len() + passed, subtasks);
    let mut replaced = 0;
    for [name, _, budget, outcome] in resolved {
        assert!(name.starts_with("t."), "{name}: a subtask");
        assert!(budget.starts_with("numbers sum, "), "{budget}");
        assert!(budget.ends_with(crate::shrink::AS_IT_GOES), "{budget}");
        if outcome.starts_with("replaced") {
            replaced += 1;
        } else {
            assert!(
                outcome.starts_with("kept the old shard") || outcome.starts_with("over the budget"),
                "{outcome}"
            );
        }
    }
    assert!(replaced > 0, "sum numbers make some subtask shard smaller");
    // The split's manifest checks with the subtask shards beside it: it cites the hashes
    // of the shards on disk, the replaced ones too.
    let again = existing_at(&shard_file(&dir, "t"), &p).expect("the split checks");
    assert_eq!(again.hash, done.hash);
    // A resumed run finds the task done and re-solves nothing.
    let cx = Split::new(&dir, &root, &opts, &pool).shrinking(Some(go));
    prove_position(&cx, &p, "t", 1).expect("resumed");
    let after = crate::decisions::read(&dir);
    assert_eq!(after.len(), lines.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_re_solve_for_size_starts_from_empty_tables_when_tables_are_kept() {
    use crate::shrink::{AsYouGo, RESOLVED};
    use amazons_solver::dfpn::Numbers;
    // 5x5 after d1-d3xb3 and Black's reply 37: a task big enough for its shard to be
    // re-solved with sum numbers.
    let root = Position::start("5x5").expect("5x5");
    let first = Move::parse(root.board, "d1-d3xb3").expect("move");
    let plan = Plan::new(&root, Some(first)).expect("plan");
    let p = plan
        .unique()
        .find(|t| t.index == 37)
        .expect("task 37")
        .position
        .clone();
    let opts = Options {
        hash_mib: 64,
        ..Options::default()
    };
    let dir = tempdir("resolve-fresh");
    let go = AsYouGo {
        over: 0,
        numbers: Numbers::Sum,
    };
    // On a thread of its own that keeps its tables from one search to the next, as a
    // campaign's threads do with --shared-table: the task's weak solve, then its re-solve.
    let (d, r, o, q) = (dir.clone(), root.clone(), opts.clone(), p.clone());
    std::thread::spawn(move || {
        amazons_solver::tt::keep_entries(true);
        let done = solve_position(&d, &q, "t", &r, &o, false).expect("solved");
        let at = ("t", &q, shard_file(&d, "t"));
        crate::shrink::after_subtask(&d, &r, &o, at, &done, go).expect("re-solved");
        assert!(
            amazons_solver::tt::keeping(),
            "the thread keeps its tables again"
        );
    })
    .join()
    .expect("the campaign thread");
    let lines = crate::decisions::read(&dir);
    let outcome = &lines.iter().find(|l| l[1] == RESOLVED).expect("re-solved")[3];
    // The re-solve's nodes are those of a sum-numbers solve from empty tables (a thread
    // of its own holds no table), not fewer from the weak solve's entries.
    let fresh_dir = tempdir("resolve-fresh-alone");
    let alone_dir = fresh_dir.clone();
    let sum = Options {
        numbers: Numbers::Sum,
        ..opts
    };
    let alone = std::thread::spawn(move || {
        solve_bytes(&fresh_dir, &p, "t", &root, &sum, false)
            .map(|s| s.done.nodes)
            .ok()
    })
    .join()
    .expect("the lone thread")
    .expect("solved alone");
    assert!(
        outcome.contains(&format!("({alone} nodes, ")),
        "{outcome}: against {alone} nodes from empty tables"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&alone_dir);
}
