//! Tests of the sharded solve: plans, records, splits, guesses, helpers and manifests.

use super::*;

pub(super) fn tempdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "amazons-shard-{tag}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("shards")).expect("temp dir");
    d
}

#[test]
fn tasks_with_subtask_shards_count_as_tried() {
    let d = tempdir("tried");
    let shards = d.join("shards");
    for f in [
        "001-b1-a1xc1.cert",
        "002-b1-a1xd1.cert.zst",
        "044-b1-c2xa4.131-b4-b3xb4.cert.zst",
        "049-b1-b3xc2.025-f3-e2xd2.cert",
        "049-b1-b3xc2.091-b4-d4xd3.cert",
        "notes.txt",
        "050-b1-b3xc3.tmp",
    ] {
        std::fs::write(shards.join(f), b"x").expect("write");
    }
    let mut tried: Vec<String> = tried_before(&shards).into_iter().collect();
    tried.sort();
    assert_eq!(tried, ["044-b1-c2xa4", "049-b1-b3xc2"]);
    assert!(tried_before(&d.join("missing")).is_empty());
    let _ = std::fs::remove_dir_all(&d);
}

/// Options with a 4 MiB table: enough for the 4x4 positions of these tests.
pub(super) fn small_table() -> Options {
    Options {
        hash_mib: 4,
        ..Options::default()
    }
}

/// 4x4 after White's first move: Black (to move) wins, with some winning and some
/// losing moves; returns the position, a losing and a winning Black move.
pub(super) fn black_to_move() -> (Position, Move, Move) {
    let root = Position::start("4x4").expect("4x4");
    let g = Geometry::new(root.board);
    let pos = Pos::from_position(&root);
    let after = pos.play(pos.moves(&g)[0]);
    let opts = small_table();
    let (mut losing, mut winning) = (None, None);
    for m in after.moves(&g) {
        let child = after.play(m).to_position(&g);
        let w = amazons_solver::solve(&child, &opts, "test")
            .expect("solve")
            .winner;
        match w {
            Color::White if losing.is_none() => losing = Some(m),
            Color::Black if winning.is_none() => winning = Some(m),
            _ => {}
        }
    }
    let p = after.to_position(&g);
    (
        p,
        losing.expect("a losing move"),
        winning.expect("a winning move"),
    )
}

/// A subtask outcome: `winner` wins (the other figures are placeholders).
pub(super) fn won_by(winner: Color) -> Done {
    Done {
        winner,
        hash: [0; 32],
        nodes: 1,
        millis: 1,
        bytes: 1,
        resumed: false,
        mirror_of: None,
    }
}

/// What most split tests start from: Black to move with a losing and a winning move
/// ([`black_to_move`]), a small table, a fresh directory named after `tag` and a pool.
pub(super) fn setup(tag: &str) -> (Position, Move, Move, Options, PathBuf, Pool) {
    let (p, losing, winning) = black_to_move();
    (
        p,
        losing,
        winning,
        small_table(),
        tempdir(tag),
        Pool::default(),
    )
}

/// A wrong proven entry in a table kept from an earlier task (as a key collision
/// leaves one) makes extraction find no proven move; the task is then solved once
/// more from empty tables and its shard written, instead of the run ending.
#[test]
fn a_task_whose_kept_table_lies_is_solved_again_from_empty_tables() {
    let (p, _, _) = black_to_move();
    let g = Geometry::new(p.board);
    let key = amazons_solver::State::from_position(&p, 0).key(&g);
    let opts = Options {
        hash_mib: 16,
        ..Options::default()
    };
    let poison = || {
        // The size `solve` gives its main table, so the next table reuses this memory.
        let mut t =
            amazons_solver::tt::Table::new(amazons_solver::main_search_options(&opts).hash_mib);
        // Black (to move) wins, but the entry says the side to move has lost.
        t.put(key, amazons_solver::tt::INF, 0, 1000);
        drop(t);
    };
    let d = tempdir("poisoned");
    amazons_solver::tt::keep_entries(true);
    poison();
    // Without the retry the poisoned search fails as a run once did.
    let failed = amazons_solver::solve(&p, &opts, "poisoned");
    assert!(
        matches!(
            failed,
            Err(amazons_solver::SolveError::Emit(
                amazons_solver::emit::EmitError::NoProvenMove { .. }
            ))
        ),
        "the poisoned table should break extraction"
    );
    poison();
    let done = solve_position(&d, &p, "000-poisoned", &p, &opts, false);
    let kept = amazons_solver::tt::keeping();
    amazons_solver::tt::keep_entries(false);
    amazons_solver::tt::release_spare();
    let done = done.unwrap_or_else(|_| panic!("the retry should prove the task"));
    assert_eq!(done.winner, Color::Black);
    assert!(kept, "the retry restores the kept-table mode");
    assert_eq!(shard_names(&d), ["000-poisoned.cert"]);
    let _ = std::fs::remove_dir_all(&d);
}

/// The legal moves of `p` in the solver's generation order.
pub(super) fn legal_moves(p: &Position) -> Vec<Move> {
    Pos::from_position(p).moves(&Geometry::new(p.board))
}

/// The first `n` moves of `p` (in generation order) after which the side to move
/// loses, each found by a whole solve.
fn losing_moves(p: &Position, n: usize) -> Vec<Move> {
    let g = Geometry::new(p.board);
    let pos = Pos::from_position(p);
    pos.moves(&g)
        .into_iter()
        .filter(|&m| {
            let child = pos.play(m).to_position(&g);
            amazons_solver::solve(&child, &small_table(), "test")
                .expect("solve")
                .winner
                != p.to_move
        })
        .take(n)
        .collect()
}

#[test]
fn split_progress_follows_the_first_split_subtask_in_flight_level_by_level() {
    let p = Position::start("4x4").expect("4x4");
    let list = |names: &[&str]| {
        std::sync::Arc::new(SubList::new(
            names.iter().map(|n| (p.clone(), n.to_string())).collect(),
            1,
            Color::White,
            None,
        ))
    };
    let proved = || won_by(Color::Black);
    let pool = Pool::default();
    let top = list(&["t.000-a", "t.001-b", "t.002-c", "t.003-d"]);
    let deeper = list(&["t.002-c.000-x", "t.002-c.001-y"]);
    let other = list(&["u.000-z"]);
    for l in [&top, &deeper, &other] {
        pool.open_list(l);
    }
    // Nothing claimed: no subtask in flight to follow.
    assert_eq!(pool.levels("t"), vec![(0, 4)]);
    for _ in 0..3 {
        top.claim();
    }
    top.put(0, Ok(proved()));
    // 001 is in flight but not split; 002 is split, with one of two proved.
    deeper.claim();
    deeper.put(0, Ok(proved()));
    assert_eq!(pool.levels("t"), vec![(1, 4), (1, 2)]);
    // One of four top subtasks proved in 1 ms: three left at that pace, or slower if the
    // wall time since the list began is longer (see `pace_left` below).
    let left = pool.time_left("t").expect("a pace");
    assert!(left >= Duration::from_millis(3), "{left:?}");
    assert_eq!(pool.time_left("u"), None, "nothing proved yet");
    assert_eq!(pool.time_left("t.000-a"), None, "not split");
    // A subtask found on disk counts as proved but sets no pace.
    top.put(
        1,
        Ok(Done {
            resumed: true,
            millis: 1_000_000,
            ..proved()
        }),
    );
    let left = pool.time_left("t").expect("a pace");
    assert!(
        left >= Duration::from_millis(2) && left < Duration::from_secs(60),
        "the resumed subtask's 1,000 s set no pace: {left:?}"
    );
    assert_eq!(pool.levels("u"), vec![(0, 1)]);
    assert!(pool.levels("t.000-a").is_empty());
    assert!(pool.levels("v").is_empty());
    // A subtask in flight for long slows the pace: 10 s of wall time since the list
    // began and one subtask proved (in 1 ms of its own) make 10 s a subtask.
    assert_eq!(
        pace_left(Duration::from_secs(10), 1, 1, 3),
        Some(Duration::from_secs(30))
    );
    assert_eq!(
        pace_left(Duration::from_millis(1), 8_000, 2, 3),
        Some(Duration::from_secs(12))
    );
    assert_eq!(pace_left(Duration::from_secs(10), 0, 0, 3), None);
    let counter = pool.set_rung("t", 1_000_000_000);
    assert_eq!(pool.rung("t").as_deref(), Some("1G nodes"));
    assert_eq!(pool.rung("u"), None);
    assert_eq!(
        pool.rung_pace("t"),
        None,
        "no pace before the search counts nodes"
    );
    counter.fetch_add(250_000_000, Ordering::Relaxed);
    let pace = pool.rung_pace("t").expect("a pace once it counts");
    assert_eq!(pace.share, 0.25);
    pool.clear_rung("t");
    assert_eq!(pool.rung("t"), None);
    pool.close_list(&deeper);
    assert_eq!(pool.levels("t"), vec![(2, 4)]);
    // A second pass over the split's hard subtasks counts those proved in the first.
    let mut second = SubList::new(
        vec![(p.clone(), "w.007-q".to_string())],
        1,
        Color::White,
        None,
    );
    second.earlier = 5;
    pool.open_list(&std::sync::Arc::new(second));
    assert_eq!(pool.levels("w"), vec![(5, 6)]);
    let line = Progress {
        done: 0,
        total: 1,
        resumed: 0,
        nodes: 0,
        searched: 0,
        elapsed: Duration::from_secs(1),
        last: "none yet".into(),
        running: vec![Running {
            name: "t".into(),
            elapsed: Duration::from_secs(300),
            subtasks: 9,
            levels: vec![(46, 180), (3, 25)],
            rung: Some("1G nodes".into()),
            left: Some(Duration::from_secs(8 * 3600 + 1800)),
            rung_pace: None,
        }],
        helped: 0,
        finished: false,
        pass: None,
    }
    .line();
    assert!(
        line.ends_with(
            "; running t (5 min, on the 1G nodes rung, 9 subtask shards; subtasks proved per level 46/180 > 3/25, about 8.5 h left at this pace)"
        ),
        "{line}"
    );
}

#[test]
fn a_refuted_guess_leaves_no_shards_and_every_move_split_finds_the_win() {
    let (p, losing, winning, opts, dir, pool) = setup("guess");
    // A sibling whose name shares a prefix must survive the clean-up.
    std::fs::write(dir.join("shards").join("t0.cert"), b"x").expect("write");
    let cx = Split::new(&dir, &p, &opts, &pool);
    let refuted = prove_guess(&cx, &p, losing, "t", 1).expect("no error");
    assert!(refuted.is_none(), "the losing guess is refuted");
    assert_eq!(
        shard_names(&dir),
        vec!["t0.cert".to_string()],
        "refuted shards removed"
    );

    // Every move a subtask, losing move first: the winning move proves the task alone.
    let order = vec![losing, winning];
    let found = prove_every_move(&cx, &p, &order, Some(2), "t", 1).expect("found");
    assert_eq!(found.0.tasks.len(), 1);
    assert_eq!(found.1[0].winner, Color::Black);
    let done = finish_split(&dir, &p, "t", &p, found, Instant::now()).expect("manifest");
    assert_eq!(done.winner, Color::Black);
    let cert = amazons_format::decode(
        &amazons_format::stored::read(&shard_file(&dir, "t")).expect("read"),
    )
    .expect("decode");
    let shards = amazons_checker::cli::DirShards::scan(&dir.join("shards"));
    amazons_checker::check_with(&cert, &shards).expect("the split manifest checks");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_guess_solves_its_replies_in_a_recorded_order_and_a_proved_refutation_needs_no_subtask() {
    let (p, losing, winning, opts, dir, pool) = setup("replies");
    let g = Geometry::new(p.board);
    let cx = Split::new(&dir, &p, &opts, &pool);
    let after = |m: Move| Pos::from_position(&p).play(m).to_position(&g);

    // After the losing guess the ordering search (a quarter of the guess budget)
    // proves White's win: the guess is refuted without a subtask, and nothing recorded.
    assert_eq!(reply_order(&cx, &after(losing), losing, "t", &p), None);
    let refuted = prove_guess(&cx, &p, losing, "t", 1).expect("no error");
    assert!(refuted.is_none(), "the losing guess is refuted");
    assert!(shard_names(&dir).is_empty(), "no subtask shard written");
    assert_eq!(split_lines(&dir, "replies"), 0);

    // After the winning guess: every White reply once, recorded with the guess first.
    let mut legal = Pos::from_position(&after(winning)).moves(&g);
    let order = reply_order(&cx, &after(winning), winning, "t", &p).expect("an order");
    let key = |m: &Move| m.notation(p.board);
    let mut sorted = order.clone();
    sorted.sort_by_key(key);
    legal.sort_by_key(key);
    assert_eq!(sorted, legal, "a permutation of the replies");
    assert_eq!(
        recorded_replies(&dir, "t", &p, winning),
        Some(order.clone())
    );
    assert_eq!(recorded_replies(&dir, "t", &p, losing), None, "per guess");
    // A rerun takes the recorded order (the last line for the guess) without searching.
    let reversed: Vec<Move> = order.iter().rev().copied().collect();
    let line: Vec<Move> = std::iter::once(winning).chain(reversed.clone()).collect();
    split_line(&dir, "t", &p, "replies", &line);
    assert_eq!(
        reply_order(&cx, &after(winning), winning, "t", &p),
        Some(reversed)
    );
    assert_eq!(split_lines(&dir, "replies"), 2, "no new search recorded");
    // Another position with the same name does not take it.
    let other = after(losing);
    assert_eq!(recorded_replies(&dir, "t", &other, winning), None);

    // The guess is proved with its replies in that order; the manifest checks.
    let (sub, done) = prove_guess(&cx, &p, winning, "t", 1)
        .expect("no error")
        .expect("the winning guess holds");
    assert!(done.iter().all(|d| d.winner == Color::Black));
    let done = finish_split(&dir, &p, "t", &p, (sub, done), Instant::now()).expect("manifest");
    assert_eq!(done.winner, Color::Black);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn limited_tries_move_on_past_lost_moves_and_settle_a_loss_once_every_move_is_tried() {
    let (p, losing, winning, opts, dir, pool) = setup("tries");
    let cx = Split::new(&dir, &p, &opts, &pool);
    // One try per call, losing move first: the first call proves it lost and stays
    // open; the next goes on to the winning move instead of trying the lost one again.
    let order = vec![losing, winning];
    let first = prove_every_move(&cx, &p, &order, Some(1), "t", 1);
    assert!(
        matches!(first, Err(Attempt::Budget)),
        "open after one lost try"
    );
    let found = prove_every_move(&cx, &p, &order, Some(1), "t", 1).expect("found");
    assert_eq!(found.0.tasks.len(), 1);
    assert_eq!(found.0.tasks[0].mv, winning);
    assert_eq!(found.1[0].winner, Color::Black);

    // White to move and losing: each call settles one more move; once all are lost
    // the split proves the loss with one subtask per move.
    let lost = amazons_checker::rules::play(&p, winning);
    let moves = Plan::new(&lost, None).expect("plan").unique().count();
    let cx = Split::new(&dir, &lost, &opts, &pool);
    let mut calls = 0;
    let (plan, done) = loop {
        calls += 1;
        assert!(calls <= moves + 1, "a call settles at least one move");
        match prove_every_move(&cx, &lost, &[], Some(1), "u", 1) {
            Ok(found) => break found,
            Err(Attempt::Budget) => {}
            Err(Attempt::Failed(e)) => panic!("{e}"),
        }
    };
    assert_eq!(calls, moves, "one new move per call, the loss on the last");
    assert_eq!(plan.unique().count(), moves);
    assert!(done.iter().all(|d| d.winner == Color::Black));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn idle_threads_take_subtasks_in_order_and_a_decisive_one_settles_the_list() {
    let (p, losing, winning, opts, dir, pool) = setup("pool");
    let cx = Split::new(&dir, &p, &opts, &pool);
    let after = |m| amazons_checker::rules::play(&p, m);
    let items = vec![
        (after(losing), "t.0".to_string()),
        (after(winning), "t.1".to_string()),
        (after(losing), "t.2".to_string()),
    ];
    // As in a split of Black's moves: a Black win settles the list.
    let list = std::sync::Arc::new(SubList::new(items, 0, Color::Black, None));
    pool.publish(&list);
    // An idle thread takes the first subtask (a White win: the list goes on).
    assert!(pool.help_once(&cx));
    assert_eq!(pool.helped.load(Ordering::SeqCst), 1);
    assert_eq!(pool.active.load(Ordering::SeqCst), 0);
    // The owner takes the next one in order: a Black win, which settles the list.
    assert_eq!(list.claim(), Some(1));
    let (position, name) = &list.items[1];
    list.put(1, prove_position(&cx, position, name, 0));
    assert_eq!(list.claim(), None, "settled: no further subtask starts");
    assert!(!pool.help_once(&cx), "nothing left to help with");
    assert_eq!(list.outstanding(), 0);
    let winners: Vec<Option<Color>> = list
        .take_results()
        .into_iter()
        .map(|r| r.map(|r| r.expect("proved").winner))
        .collect();
    assert_eq!(winners, vec![Some(Color::White), Some(Color::Black), None]);
    assert_eq!(
        shard_names(&dir),
        vec!["t.0.cert".to_string(), "t.1.cert".to_string()]
    );
    pool.withdraw(&list);
    assert!(pool.lists().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_free_thread_waits_for_a_resumed_split_only_until_its_subtasks_are_open() {
    let (p, losing, _, _, dir, pool) = setup("resplit");
    let after = amazons_checker::rules::play(&p, losing);
    let split_before: std::collections::HashSet<String> = ["t".to_string()].into();
    let wait = Duration::from_secs(120);
    let taken_now = |name: &'static str| [(name, Instant::now())].into_iter();
    // Taken a moment ago, split by an earlier run, no subtasks open yet: wait.
    assert!(pool.resplit_pending(&split_before, taken_now("t"), wait));
    // A task no earlier run split, or one taken longer ago than the wait: do not.
    assert!(!pool.resplit_pending(&split_before, taken_now("u"), wait));
    let long_ago = Instant::now().checked_sub(Duration::from_secs(121));
    if let Some(then) = long_ago {
        let taken = [("t", then)].into_iter();
        assert!(!pool.resplit_pending(&split_before, taken, wait));
    }
    // Its subtasks open: help with them instead (another task's list does not count).
    let other = std::sync::Arc::new(SubList::new(
        vec![(after.clone(), "u.0".into())],
        0,
        Color::Black,
        None,
    ));
    pool.open_list(&other);
    assert!(pool.resplit_pending(&split_before, taken_now("t"), wait));
    let list = std::sync::Arc::new(SubList::new(
        vec![(after, "t.0".into())],
        0,
        Color::Black,
        None,
    ));
    pool.open_list(&list);
    assert!(!pool.resplit_pending(&split_before, taken_now("t"), wait));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_quick_pass_with_subtasks_over_its_budget_has_more_to_come() {
    let (p, losing, _, _, dir, pool) = setup("more-to-come");
    let after = |m| amazons_checker::rules::play(&p, m);
    let items = || {
        vec![
            (after(losing), "t.0".to_string()),
            (after(losing), "t.1".to_string()),
        ]
    };
    // A quick pass (capped): nothing over its budget yet, then one over it.
    let quick = std::sync::Arc::new(SubList::new(items(), 0, Color::Black, Some(10)));
    pool.open_list(&quick);
    assert!(!pool.more_to_come());
    assert_eq!(quick.claim(), Some(0));
    quick.put(0, Err(Attempt::Budget));
    assert!(pool.more_to_come(), "its second list follows");
    // Settled by a decisive subtask: nothing follows.
    assert_eq!(quick.claim(), Some(1));
    quick.put(1, Ok(won_by(Color::Black)));
    assert!(!pool.more_to_come());
    pool.close_list(&quick);
    // A list that is not a quick pass never has a second one.
    let plain = std::sync::Arc::new(SubList::new(items(), 0, Color::Black, None));
    pool.open_list(&plain);
    assert_eq!(plain.claim(), Some(0));
    plain.put(0, Err(Attempt::Budget));
    assert!(!pool.more_to_come());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The first steps of the certificate in shard `name` of `dir`.
fn first_steps(dir: &Path, name: &str) -> Vec<Step> {
    let path = on_disk(&shard_file(dir, name)).expect("on disk");
    let bytes = amazons_format::stored::read(&path).expect("read");
    let cert = amazons_format::decode(&bytes).expect("decode");
    cert.steps.into_iter().take(2).collect()
}

fn split_lines(dir: &Path, kind: &str) -> usize {
    std::fs::read_to_string(dir.join(SPLITS_FILE))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.split('\t').nth(3) == Some(kind))
        .count()
}

#[test]
fn a_recorded_split_is_followed_without_searching_again() {
    let (p, losing, winning) = black_to_move();
    let mut ranked = legal_moves(&p);
    ranked.retain(|&m| m != losing && m != winning);
    let opts = small_table(); // no node budget: unrecorded, the task is solved whole
    let pool = Pool::default();
    // Every legal move, these two first.
    let ranking =
        |a: Move, b: Move| -> Vec<Move> { [a, b].into_iter().chain(ranked.clone()).collect() };

    // The recorded guess is fixed at once, although the task fits the budget.
    let dir = tempdir("recorded");
    let cx = Split::new(&dir, &p, &opts, &pool);
    let order = ranking(winning, losing);
    record_split(&dir, "t", &p, &order, true);
    let done = prove_position(&cx, &p, "t", 1).expect("proved");
    assert_eq!(done.winner, Color::Black);
    assert_eq!(
        first_steps(&dir, "t"),
        vec![Step::Choice(Action::Board(winning)), Step::ReplyAll]
    );
    assert_eq!(split_lines(&dir, "lean"), 1, "no new ranking recorded");
    let _ = std::fs::remove_dir_all(&dir);

    // A guess refuted in an earlier run is not tried again.
    let dir = tempdir("refuted");
    let cx = Split::new(&dir, &p, &opts, &pool);
    let order = ranking(losing, winning);
    record_split(&dir, "t", &p, &order, true);
    record_refuted(&dir, "t", &p, losing);
    assert_eq!(
        recorded_split(&dir, "t", &p),
        Some(Recorded {
            ranked: order.clone(),
            lean: true,
            refuted: vec![losing],
            escalated: false,
        })
    );
    prove_position(&cx, &p, "t", 1).expect("proved");
    assert_eq!(
        first_steps(&dir, "t"),
        vec![Step::Choice(Action::Board(winning)), Step::ReplyAll]
    );
    assert_eq!(
        split_lines(&dir, "refuted"),
        1,
        "the losing guess was not retried"
    );
    // A new ranking for the task starts afresh: no guess refuted yet.
    record_split(&dir, "t", &p, &order, false);
    assert_eq!(
        recorded_split(&dir, "t", &p),
        Some(Recorded {
            ranked: order.clone(),
            lean: false,
            refuted: vec![],
            escalated: false,
        })
    );
    let _ = std::fs::remove_dir_all(&dir);

    // A record that does not fit the position is ignored: the task is solved whole.
    let dir = tempdir("stale");
    let cx = Split::new(&dir, &p, &opts, &pool);
    let other = amazons_checker::rules::play(&p, winning);
    record_split(&dir, "t", &other, &order, true);
    record_split(&dir, "u", &p, &order[1..], true); // not every legal move
    assert_eq!(recorded_split(&dir, "t", &p), None);
    assert_eq!(recorded_split(&dir, "u", &p), None);
    prove_position(&cx, &p, "t", 1).expect("proved");
    assert!(
        !first_steps(&dir, "t")
            .iter()
            .any(|s| matches!(s, Step::Shard { .. })),
        "solved whole, not split"
    );
    assert_eq!(shard_names(&dir), vec!["t.cert".to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn after_refuted_guesses_and_a_failed_retry_tries_bound_the_moves_a_run_walks_through() {
    let (p, losing, winning, opts, dir, pool) = setup("tries-budget");
    let lost = losing_moves(&p, GUESSES + 1);
    assert!(
        lost.len() > GUESSES && lost[0] == losing,
        "enough losing moves"
    );
    // A recorded split: three refuted guesses, the retry failed, then more losing
    // moves than the old fixed three tries, and the winning one.
    let mut order = legal_moves(&p);
    order.retain(|m| *m != winning && !lost.contains(m));
    for (i, &m) in lost.iter().chain([&winning]).enumerate() {
        order.insert(GUESSES + i, m);
    }
    record_split(&dir, "t", &p, &order, true);
    for &m in &order[..GUESSES] {
        record_refuted(&dir, "t", &p, m);
    }
    split_line(&dir, "t", &p, "escalated", &[]);
    let subtasks = |dir: &Path| -> Vec<String> {
        shard_names(dir)
            .into_iter()
            .filter(|f| f.starts_with("t.") && f != "t.cert")
            .collect()
    };
    let named = |m: Move, f: &[String]| f.iter().any(|f| f.contains(&m.notation(p.board)));

    // One try: the losing move is proved lost, and the task stays open.
    let cx = Split::new(&dir, &p, &opts, &pool).trying(1);
    assert!(matches!(
        prove_position(&cx, &p, "t", 1),
        Err(Attempt::Budget)
    ));
    let tried = subtasks(&dir);
    assert_eq!(tried.len(), 1, "one move tried");
    assert!(named(losing, &tried), "the losing move, first in order");
    assert!(!shard_names(&dir).contains(&"t.cert".to_string()));

    // No bound: the run goes on past every lost move to the winning one, which
    // proves the task alone.
    let cx = Split::new(&dir, &p, &opts, &pool).trying(0);
    let done = prove_position(&cx, &p, "t", 1).expect("proved");
    assert_eq!(done.winner, Color::Black);
    let steps = first_steps(&dir, "t");
    assert!(
        steps.iter().any(|s| matches!(s, Step::Shard { .. })),
        "a split"
    );
    assert!(shard_names(&dir).contains(&"t.cert".to_string()));
    let kept = subtasks(&dir);
    assert_eq!(
        kept.len(),
        1,
        "the lost move's shard is not part of the proof"
    );
    assert!(named(winning, &kept), "the winning move's shard is");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A refuted guess is followed by a new ranking of the task, recorded with the
/// refuted guesses after it, and the next guess is that ranking's best move, not the
/// next move of the ranking that chose the refuted guess.
#[test]
fn a_refuted_guess_is_followed_by_a_new_ranking_of_the_task() {
    let (p, _, _, opts, dir, pool) = setup("rerank");
    let moves = legal_moves(&p);
    let lost = losing_moves(&p, 2);
    assert_eq!(lost.len(), 2, "two losing moves");
    // The recorded ranking puts two losing moves first: without a new ranking the
    // second guess would be refuted too.
    let mut order = moves.clone();
    order.retain(|m| !lost.contains(m));
    order.splice(0..0, lost.iter().copied());
    record_split(&dir, "t", &p, &order, true);
    let cx = Split::new(&dir, &p, &opts, &pool);
    let done = prove_position(&cx, &p, "t", 1).expect("proved");
    assert_eq!(done.winner, Color::Black);
    let splits = split_lines(&dir, "lean") + split_lines(&dir, "no-lean");
    assert_eq!(splits, 2, "the recorded ranking and one new one");
    let recorded = recorded_split(&dir, "t", &p).expect("a recorded split");
    assert_eq!(recorded.refuted, vec![lost[0]], "one guess refuted, kept");
    assert!(recorded.lean);
    assert_ne!(recorded.ranked[0], lost[1]);
    // The new ranking knew the refuted guess as lost: it is ranked last.
    assert_eq!(
        recorded.ranked.last(),
        Some(&lost[0]),
        "{:?}",
        recorded.ranked
    );
    assert!(
        !losing_moves(&p, moves.len()).contains(&recorded.ranked[0]),
        "the new ranking's best move wins"
    );
    // The proof is the split under that move: its replies' shards are on disk.
    let first = recorded.ranked[0].notation(p.board);
    assert!(shard_names(&dir)
        .iter()
        .any(|f| f.starts_with("t.") && f != "t.cert"));
    let steps = first_steps(&dir, "t");
    assert!(
        steps
            .iter()
            .any(|s| matches!(s, Step::Choice(Action::Board(m)) if m.notation(p.board) == first)),
        "the manifest plays {first}: {steps:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_split_whose_guesses_are_all_refuted_is_retried_whole_once_with_the_escalated_budget() {
    let (p, _, winning) = black_to_move();
    let whole = amazons_solver::solve(&p, &small_table(), "test").expect("solve");
    let with = |nodes: u64| Options {
        max_nodes: Some(nodes),
        ..small_table()
    };
    let small = with(whole.certificate.meta.nodes / 4);
    assert!(
        matches!(
            amazons_solver::solve(&p, &small, "test"),
            Err(amazons_solver::SolveError::Budget(_))
        ),
        "the task is over the small budget"
    );
    // A recorded split whose three guesses were refuted, the winning move last.
    let mut order = legal_moves(&p);
    order.retain(|&m| m != winning);
    order.push(winning);
    let record = |dir: &Path| {
        record_split(dir, "t", &p, &order, true);
        for &m in &order[..GUESSES] {
            record_refuted(dir, "t", &p, m);
        }
    };
    let pool = Pool::default();

    // Eight times the budget is enough: the task is solved whole, and the subtask
    // shards of the old guesses go (a sibling sharing the prefix stays).
    let dir = tempdir("escalate");
    record(&dir);
    for f in [
        "t.005-a1-b1xc1.cert",
        "t.005-a1-b1xc1.002-b2-b3xb4.cert.zst",
        "t0.cert",
    ] {
        std::fs::write(dir.join("shards").join(f), b"x").expect("write");
    }
    let cx = Split::new(&dir, &p, &small, &pool).escalating(8);
    let done = prove_position(&cx, &p, "t", 1).expect("proved whole");
    assert_eq!(done.winner, Color::Black);
    assert!(
        !first_steps(&dir, "t")
            .iter()
            .any(|s| matches!(s, Step::Shard { .. })),
        "one certificate, not a manifest"
    );
    // (Written compressed: the directory held a compressed shard.)
    assert_eq!(
        shard_names(&dir),
        vec!["t.cert.zst".to_string(), "t0.cert".to_string()]
    );
    assert_eq!(split_lines(&dir, "escalated"), 0);
    let _ = std::fs::remove_dir_all(&dir);

    // A retry that fails too is recorded, and a rerun does not repeat it.
    let dir = tempdir("escalate-fail");
    record(&dir);
    let tiny = with(1);
    // (Three tries per run, as before --tries: with every move tried, this task
    // gets proved even within the tiny budget.)
    let cx = Split::new(&dir, &p, &tiny, &pool)
        .escalating(4)
        .trying(GUESSES);
    for run in 0..2 {
        assert!(
            matches!(prove_position(&cx, &p, "t", 1), Err(Attempt::Budget)),
            "open after run {run}"
        );
        assert_eq!(split_lines(&dir, "escalated"), 1, "one retry in all");
        assert_eq!(
            recorded_split(&dir, "t", &p).map(|r| r.escalated),
            Some(true)
        );
    }
    // A new ranking of the task starts afresh.
    record_split(&dir, "t", &p, &order, true);
    assert_eq!(
        recorded_split(&dir, "t", &p).map(|r| r.escalated),
        Some(false)
    );
    let _ = std::fs::remove_dir_all(&dir);

    // Without escalation the split goes on move by move: no whole retry.
    let dir = tempdir("no-escalate");
    record(&dir);
    let cx = Split::new(&dir, &p, &small, &pool);
    if prove_position(&cx, &p, "t", 1).is_ok() {
        assert!(
            first_steps(&dir, "t")
                .iter()
                .any(|s| matches!(s, Step::Shard { .. })),
            "a split, not a whole solve"
        );
    }
    assert_eq!(split_lines(&dir, "escalated"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_thread_is_alone_once_every_task_is_taken_and_no_other_works() {
    let pool = Pool::default();
    pool.active.store(1, Ordering::SeqCst);
    assert!(!pool.alone(), "tasks are left for the other threads");
    pool.all_taken.store(true, Ordering::SeqCst);
    assert!(pool.alone());
    pool.active.store(2, Ordering::SeqCst);
    assert!(!pool.alone(), "another thread works");
}

#[test]
fn a_task_left_open_goes_last_with_a_first_move_and_keeps_its_place_without() {
    let root = Position::start("4x4").expect("4x4");
    let g = Geometry::new(root.board);
    let first = Pos::from_position(&root).moves(&g)[0];
    for fixed in [Some(first), None] {
        let d = tempdir(if fixed.is_some() {
            "last-and"
        } else {
            "last-or"
        });
        let plan = Plan::new(&root, fixed).expect("plan");
        let names: Vec<String> = plan.unique().map(|t| t.name.clone()).collect();
        // An earlier run started the first two tasks and finished only the second, and
        // split the third (a subtask shard of it is on disk).
        std::fs::write(
            d.join(STARTED_FILE),
            format!("{}\n{}\n", names[0], names[1]),
        )
        .expect("started");
        std::fs::write(d.join(TIMES_FILE), format!("{}\t5\t10\n", names[1])).expect("times");
        let sub = d
            .join("shards")
            .join(format!("{}.000-a1-a2xa3.cert", names[2]));
        std::fs::write(sub, b"partial").expect("subtask file");
        let order: Vec<String> = pending(&plan, &d).iter().map(|t| t.name.clone()).collect();
        assert_eq!(
            order.len(),
            names.len(),
            "no shard on disk: every task pending"
        );
        let mut work: Vec<&Task> = plan.unique().collect();
        let open = tried_last(&plan, &mut work, &d);
        assert_eq!(
            open.len(),
            2,
            "the unfinished start and the split task: {open:?}"
        );
        if fixed.is_some() {
            let n = names.len();
            assert_eq!(
                order[n - 2..],
                [names[0].clone(), names[2].clone()],
                "every reply is needed: the hard ones last, in order"
            );
            assert_eq!(order[0], names[1]);
        } else {
            assert_eq!(order, names, "one win settles the root: ranked order kept");
        }
        record_resume_order(&plan, &d, &open);
        let log = std::fs::read_to_string(d.join(crate::decisions::DECISIONS_FILE))
            .expect("decision recorded");
        assert!(log.contains("resume order"), "{log}");
        assert!(log.contains(&names[0]), "{log}");
        assert_eq!(log.contains("so last"), fixed.is_some(), "{log}");
        let _ = std::fs::remove_dir_all(&d);
    }
}

#[test]
fn shards_are_written_compressed_where_the_directory_keeps_them_compressed() {
    let (p, losing, winning) = black_to_move();
    let g = Geometry::new(p.board);
    let after = |m| Pos::from_position(&p).play(m).to_position(&g);
    let dir = tempdir("stored-form");
    let shards = dir.join("shards");
    // A fresh directory: as it is.
    solve_position(&dir, &after(winning), "a", &p, &small_table(), false).expect("solved");
    assert!(shards.join("a.cert").is_file());
    // Compressed as `amazons compress` does: from now on new shards come compressed.
    let plain = std::fs::read(shards.join("a.cert")).expect("read");
    let packed = amazons_format::stored::compress(&plain).expect("compress");
    std::fs::write(shards.join("a.cert.zst"), &packed).expect("write");
    std::fs::remove_file(shards.join("a.cert")).expect("remove");
    let done =
        solve_position(&dir, &after(losing), "b", &p, &small_table(), false).expect("solved");
    assert!(shards.join("b.cert.zst").is_file(), "written compressed");
    assert!(!shards.join("b.cert").exists(), "in one form only");
    assert_eq!(
        existing_at(&shard_file(&dir, "b"), &after(losing)).map(|d| d.hash),
        Some(done.hash),
        "read back from the compressed form"
    );
    // The same shard again: the compressed file with these bytes is kept as it is.
    solve_position(&dir, &after(winning), "a", &p, &small_table(), false).expect("solved");
    assert_eq!(
        std::fs::read(shards.join("a.cert.zst")).expect("read"),
        packed,
        "kept"
    );
    assert!(!shards.join("a.cert").exists());
    // Every whole solve's time is kept, for what the campaign has cost so far.
    let spent = std::fs::read_to_string(dir.join(SPENT_FILE)).expect("spent.tsv");
    let solves: Vec<&str> = spent
        .lines()
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect();
    assert_eq!(solves, ["a", "b", "a"], "{spent}");
    assert!(spent.lines().all(|l| l.ends_with("\tsolve")), "{spent}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_written_shard_is_recorded_with_its_steps_and_where_its_time_went() {
    let (p, _, winning) = black_to_move();
    let g = Geometry::new(p.board);
    let position = Pos::from_position(&p).play(winning).to_position(&g);
    for as_extracted in [false, true] {
        let dir = tempdir(&format!("shard-written-{as_extracted}"));
        solve_position(&dir, &position, "a", &p, &small_table(), as_extracted).expect("solved");
        let cert = amazons_format::stored::read(&shard_file(&dir, "a"))
            .ok()
            .and_then(|bytes| amazons_format::decode(&bytes).ok())
            .expect("the shard decodes");
        let searches = (cert.steps.iter())
            .filter(|s| matches!(s, amazons_format::Step::Search))
            .count();
        let log = crate::decisions::read(&dir);
        let written: Vec<_> = (log.iter())
            .filter(|[_, decision, _, _]| decision == crate::decisions::SHARD_WRITTEN)
            .collect();
        assert_eq!(written.len(), 1, "{log:?}");
        let [task, _, _, outcome] = written[0];
        assert_eq!(task, "a");
        let head = format!("{} steps ({searches} of them `Search`", cert.steps.len());
        assert!(outcome.starts_with(&head), "{outcome} / {head}");
        assert!(outcome.contains(" s check"), "{outcome}");
        assert_eq!(searches == 0, as_extracted, "{outcome}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
