//! Tests of the quick pass: a split's subtasks, and a run's own tasks with a fixed first move.

use super::tests::{black_to_move, legal_moves, small_table, tempdir};
use super::*;

/// What refuting each White reply after Black's winning move costs, in nodes (solved
/// whole with [`small_table`]), with Black's position and move.
fn reply_costs() -> (Position, Move, Vec<u64>) {
    let (p, _, winning) = black_to_move();
    let g = Geometry::new(p.board);
    let after = Pos::from_position(&p).play(winning).to_position(&g);
    let opts = small_table();
    let costs: Vec<u64> = legal_moves(&after)
        .into_iter()
        .map(|m| {
            let child = Pos::from_position(&after).play(m).to_position(&g);
            let solved = amazons_solver::solve(&child, &opts, "test").expect("solve");
            solved.certificate.meta.nodes
        })
        .collect();
    (p, winning, costs)
}

/// The quick budget between the cheapest and the dearest reply, and a ladder with it
/// and a top rung far above every reply.
fn quick_ladder(costs: &[u64]) -> (u64, u64, crate::ladder::Ladder) {
    let (least, most) = (costs.iter().min().copied(), costs.iter().max().copied());
    let (Some(least), Some(most)) = (least, most) else {
        panic!("White has replies");
    };
    let quick = most / 2;
    assert!(least < quick, "some replies are cheap: {costs:?}");
    let ladder = crate::ladder::Ladder::new(vec![quick, most * 50]).expect("ladder");
    (quick, most * 50, ladder)
}

/// The fields of every line of `DIR/decisions.tsv`.
fn decisions(dir: &Path) -> Vec<Vec<String>> {
    let log =
        std::fs::read_to_string(dir.join(crate::decisions::DECISIONS_FILE)).expect("decisions");
    log.lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn a_quick_pass_proves_the_easy_replies_before_the_hard_ones() {
    let (p, winning, costs) = reply_costs();
    let (quick, top, ladder) = quick_ladder(&costs);
    let opts = small_table();
    let dir = tempdir("quick-pass");
    let pool = Pool::default();
    let cx = Split::new(&dir, &p, &opts, &pool)
        .climbing(Some(&ladder), opts.hash_mib)
        .quick(Some(quick));
    let (_, done) = prove_guess(&cx, &p, winning, "t", 1)
        .expect("no failure")
        .expect("the guess holds");
    assert!(done.iter().all(|d| d.winner == Color::Black));
    let lines = decisions(&dir);
    let at = lines
        .iter()
        .position(|f| f[1] == "t" && f[2] == crate::decisions::QUICK_PASS)
        .expect("a quick pass left some replies for later");
    let hard: Vec<&str> = lines[at][4]
        .split_once(": ")
        .expect("names")
        .1
        .split(", ")
        .collect();
    assert!(!hard.is_empty() && hard.len() < costs.len(), "{hard:?}");
    for (i, f) in lines.iter().enumerate() {
        if f[2] != crate::decisions::SOLVE_WHOLE || !f[1].starts_with("t.") {
            continue;
        }
        if hard.contains(&f[1].as_str()) {
            // A hard reply climbs past the quick budget only after the quick pass.
            let big = f[3].starts_with(&crate::decisions::nodes(top));
            assert_eq!(big, i > at, "{}", lines[i].join(" "));
        } else {
            assert!(
                i < at,
                "an easy reply is proved in the quick pass: {}",
                f.join(" ")
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_a_first_move_every_task_has_its_quick_passes_before_any_climbs_higher() {
    let (p, winning, costs) = reply_costs();
    let (quick, top, ladder) = quick_ladder(&costs);
    let plan = Plan::new(&p, Some(winning)).expect("plan");
    let budget = |threads| Budget {
        threads,
        ladder: Some(ladder.clone()),
        quick: Some(quick),
        ..Budget::default()
    };
    let dir = tempdir("top-quick");
    let seen = Mutex::new(Vec::new());
    let note = |p: &Progress| seen.lock().expect("lines").push(p.line());
    let (manifest, done) =
        run(&plan, &dir, &small_table(), budget(1), &note).expect("every reply refuted");
    // The progress line says which pass is under way.
    let seen = seen.into_inner().expect("lines");
    let first = seen
        .iter()
        .position(|l| l.contains("; pass 1 of 2 (each task within "));
    let second = seen
        .iter()
        .position(|l| l.contains("; pass 2 of 2 (the rest as usual)"));
    assert!(
        matches!((first, second), (Some(a), Some(b)) if a < b),
        "{seen:#?}"
    );
    assert_eq!(manifest.root.winner, Color::Black);
    assert!(done.iter().all(|d| d.winner == Color::Black));
    let lines = decisions(&dir);
    let hard: Vec<&str> = lines
        .iter()
        .filter(|f| f[2] == crate::decisions::QUICK_PASS)
        .map(|f| f[1].as_str())
        .collect();
    assert!(
        !hard.is_empty() && hard.len() < plan.unique().count(),
        "some tasks, not all, are over the quick budget: {hard:?}"
    );
    let whole = |f: &Vec<String>| f[2] == crate::decisions::SOLVE_WHOLE;
    let high = |f: &Vec<String>| f[3].starts_with(&crate::decisions::nodes(top));
    let last_quick = lines.iter().rposition(|f| whole(f) && !high(f));
    let first_high = lines.iter().position(|f| whole(f) && high(f));
    let (Some(last_quick), Some(first_high)) = (last_quick, first_high) else {
        panic!("both rungs were used: {lines:?}");
    };
    assert!(last_quick < first_high, "{lines:?}");
    // The capped pass takes the tasks least promising first: here, without a ranking,
    // in reverse move order.
    let mut first_seen: Vec<&str> = Vec::new();
    for f in lines.iter().filter(|f| whole(f) && !high(f)) {
        if !first_seen.contains(&f[1].as_str()) {
            first_seen.push(&f[1]);
        }
    }
    let mut descending = first_seen.clone();
    descending.sort_by(|a, b| b.cmp(a));
    assert_eq!(first_seen, descending, "task names start with their index");
    assert_eq!(first_seen.len(), plan.unique().count());
    for f in lines.iter().filter(|f| whole(f) && high(f)) {
        assert!(
            hard.contains(&f[1].as_str()),
            "only a deferred task climbs: {f:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Two threads: a task deferred while the other thread is idle is still taken.
    let dir = tempdir("top-quick-2");
    let (_, done) =
        run(&plan, &dir, &small_table(), budget(2), &|_| {}).expect("every reply refuted");
    assert!(done.iter().all(|d| d.winner == Color::Black));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_passes_over_a_runs_tasks_need_a_first_move_and_a_ladder() {
    let (_, _, costs) = reply_costs();
    let (quick, _, ladder) = quick_ladder(&costs);
    let budget = Budget {
        ladder: Some(ladder),
        quick: Some(quick),
        ..Budget::default()
    };
    let root = Position::start("4x4").expect("4x4");
    let first = legal_moves(&root)[0];
    let without = Plan::new(&root, None).expect("plan");
    assert_eq!(top_passes(&without, &budget), [None]);
    let with_first = Plan::new(&root, Some(first)).expect("plan");
    assert_eq!(top_passes(&with_first, &budget), [Some(quick), None]);
    let no_ladder = Budget {
        ladder: None,
        ..budget.clone()
    };
    assert_eq!(top_passes(&with_first, &no_ladder), [None]);
    // The default ladder: every task within 10M nodes, then within 100M, then the rest.
    let ladder = crate::ladder::Ladder::default();
    let default = Budget {
        quick: ladder.quick(),
        ladder: Some(ladder),
        ..budget
    };
    assert_eq!(
        top_passes(&with_first, &default),
        [Some(10_000_000), Some(100_000_000), None]
    );
}

#[test]
fn a_resume_does_not_write_down_again_what_earlier_runs_recorded() {
    let (p, winning, costs) = reply_costs();
    let (quick, _, ladder) = quick_ladder(&costs);
    let plan = Plan::new(&p, Some(winning)).expect("plan");
    let budget = Budget {
        threads: 1,
        ladder: Some(ladder),
        quick: Some(quick),
        ..Budget::default()
    };
    let dir = tempdir("quick-resume");
    run(&plan, &dir, &small_table(), budget.clone(), &|_| {}).expect("every reply refuted");
    let quick_lines = |dir: &Path| -> Vec<(String, String)> {
        (decisions(dir).into_iter())
            .filter(|f| f[2] == crate::decisions::QUICK_PASS)
            .map(|f| (f[1].clone(), f[3].clone()))
            .collect()
    };
    let hard = quick_lines(&dir);
    assert!(!hard.is_empty(), "some tasks were over the quick budget");
    // The hard tasks' shards are lost (as after kill -9 in their last seconds): the rerun
    // solves them again, past the quick rung at once, without a second note of either.
    for task in plan.unique() {
        if hard.iter().any(|(name, _)| *name == task.name) {
            std::fs::remove_file(plan.shard_path(&dir, task)).expect("a shard");
        }
    }
    std::fs::remove_file(dir.join("manifest.cert")).expect("the manifest");
    run(&plan, &dir, &small_table(), budget, &|_| {}).expect("every reply refuted");
    assert_eq!(quick_lines(&dir), hard, "each quick pass noted once");
    let started = std::fs::read_to_string(dir.join(STARTED_FILE)).expect("started.tsv");
    let names: Vec<&str> = started.lines().collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(names.len(), unique.len(), "{names:?}");
    assert!(hard.iter().all(|(name, _)| names.contains(&name.as_str())));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rung_on_a_table_of_the_same_size_goes_on_from_the_entries_of_the_rung_below() {
    // 5x4's start takes tens of thousands of nodes: a search the rungs cut short.
    let p = Position::start("5x4").expect("5x4");
    let opts = Options {
        hash_mib: 64,
        ..Options::default()
    };
    let whole = amazons_solver::solve(&p, &opts, "test").expect("solve");
    let nodes = whole.search_nodes;
    // The lowest rung gets a table of its own size (16 MiB); the two above it the whole
    // table (64 MiB), so the top rung goes on from where the middle one stopped.
    let ladder =
        crate::ladder::Ladder::new(vec![nodes / 8, nodes / 2, nodes * 50]).expect("ladder");
    let dir = tempdir("carry");
    let pool = Pool::default();
    let cx = Split::new(&dir, &p, &opts, &pool).climbing(Some(&ladder), opts.hash_mib);
    let done = prove_position(&cx, &p, "t", 0).expect("proved whole");
    assert_eq!(done.winner, whole.winner);
    let rungs: Vec<Vec<String>> = decisions(&dir)
        .into_iter()
        .filter(|f| f[1] == "t" && f[2] == crate::decisions::SOLVE_WHOLE)
        .collect();
    assert_eq!(rungs.len(), 3, "{rungs:?}");
    let going_on = |f: &Vec<String>| f[3].contains("going on from the last rung's entries");
    assert!(!going_on(&rungs[0]) && !going_on(&rungs[1]), "{rungs:?}");
    assert!(going_on(&rungs[2]), "{rungs:?}");
    assert_eq!(rungs[1][4], crate::decisions::NEXT_RUNG);
    // The top rung needed fewer nodes than a solve from an empty table.
    assert!(
        done.nodes < whole.total_nodes,
        "{} of {}",
        done.nodes,
        whole.total_nodes
    );
    // The shard it wrote was checked and is on disk.
    assert!(on_disk(&dir.join("shards").join("t.cert")).is_some());
    let _ = std::fs::remove_dir_all(&dir);
}
