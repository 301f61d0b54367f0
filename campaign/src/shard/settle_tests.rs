//! Tests of settling a subtask list: the searches in it and in lists nested in it stop.

use super::tests::{setup, won_by};
use super::*;
use amazons_solver::dfpn::aborted;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// Whether a search on this thread would stop while it works in `list`.
fn stops_within(list: &SubList) -> bool {
    let _within = Within::list(list);
    aborted()
}

#[test]
fn a_settled_list_stops_the_searches_in_it_and_in_the_lists_nested_in_it() {
    let (p, losing, winning, _, dir, _) = setup("settle-flags");
    let after = |m| amazons_checker::rules::play(&p, m);
    let items = |name: &str| {
        vec![
            (after(losing), format!("{name}.0")),
            (after(winning), format!("{name}.1")),
        ]
    };
    let outer = SubList::new(items("t"), 1, Color::Black, None);
    // A list made while this thread works in `outer` is nested in it; one made outside
    // it is not.
    let inner = {
        let _within = Within::list(&outer);
        SubList::new(items("t.0"), 0, Color::Black, None)
    };
    let beside = SubList::new(items("u"), 0, Color::Black, None);
    assert!(!stops_within(&outer) && !stops_within(&inner) && !stops_within(&beside));
    assert_eq!((outer.claim(), outer.claim()), (Some(0), Some(1)));
    // A subtask the list's decisive side does not win settles nothing.
    outer.put(0, Ok(won_by(Color::White)));
    assert!(!stops_within(&outer) && !stops_within(&inner));
    outer.put(1, Ok(won_by(Color::Black)));
    assert!(stops_within(&outer), "settled: its subtasks in flight stop");
    assert!(stops_within(&inner), "a list nested in it stops too");
    assert!(!stops_within(&beside), "another list goes on");
    assert!(
        !aborted(),
        "outside every list, this thread's flags are as they were"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_subtask_in_flight_stops_once_another_settles_its_list() {
    let (p, _, winning, opts, dir, pool) = setup("settle-in-flight");
    // Counts every node the searches of this test make.
    let nodes = Arc::new(AtomicU64::new(0));
    // One rung far above what the helper's search makes in this test unless it is
    // stopped: 6x5 from its start is not solved in 20 M nodes. A rung holds no more
    // nodes than its table, so the table is one that holds them.
    const RUNG: u64 = 20_000_000;
    let opts = Options {
        live_nodes: vec![nodes.clone()],
        hash_mib: crate::memory::table_for_nodes(RUNG),
        ..opts
    };
    let ladder = crate::ladder::Ladder::new(vec![RUNG]).expect("ladder");
    let cx = Split::new(&dir, &p, &opts, &pool).climbing(Some(&ladder), opts.hash_mib);
    let long = Position::start("6x5").expect("6x5");
    let items = vec![
        (long, "t.0".to_string()),
        (amazons_checker::rules::play(&p, winning), "t.1".to_string()),
    ];
    // As in a split of Black's moves: a Black win settles the list.
    let list = Arc::new(SubList::new(items, 0, Color::Black, None));
    pool.publish(&list);
    std::thread::scope(|scope| {
        // A helper takes the long subtask.
        let helper = scope.spawn(|| pool.help_once(&cx));
        let t = Instant::now();
        while nodes.load(Ordering::SeqCst) == 0 {
            assert!(
                t.elapsed() < Duration::from_secs(60),
                "the helper's search began"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // The owner proves the next one, a Black win: the list is settled.
        assert_eq!(list.claim(), Some(1));
        let (position, name) = &list.items[1];
        list.put(1, prove_position(&cx, position, name, 0));
        assert!(helper.join().expect("the helper ends"));
    });
    let results = list.take_results();
    assert!(
        matches!(results[0], Some(Err(Attempt::Budget))),
        "{:?}",
        results[0]
    );
    assert!(matches!(&results[1], Some(Ok(d)) if d.winner == Color::Black));
    let made = nodes.load(Ordering::SeqCst);
    assert!(
        made < RUNG / 10,
        "the long search stopped early: {made} nodes"
    );
    let log =
        std::fs::read_to_string(dir.join(crate::decisions::DECISIONS_FILE)).expect("decisions");
    let stopped = log
        .lines()
        .find(|l| l.contains("\tt.0\t"))
        .expect("t.0's rung");
    assert!(
        stopped.ends_with(crate::decisions::LIST_SETTLED),
        "{stopped}"
    );
    assert!(!shard_file(&dir, "t.0").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
