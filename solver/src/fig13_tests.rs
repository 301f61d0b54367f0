//! Tests of the Fig. 13 experiment: case selection, a tiny run, its tables and plots, the give-up rule and the journal.

use super::*;

fn test_set() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/selfplay")
}

fn tiny(max_nodes: u64) -> Fig13Options {
    Fig13Options {
        boards: vec!["5x5".into()],
        positions: 3,
        min_empties: vec![6],
        max_empties: vec![8],
        give_up_after: 1,
        max_nodes: vec![max_nodes],
        journal_only: false,
        ab_log2: 14,
        dfpn_log2: 14,
        plain_mib: 2,
        // ab and plain df-pn only: the databases are not built in tests.
        configs: SolverConfig::paper()
            .into_iter()
            .filter(|c| !(c.simple || c.blocker || c.active))
            .collect(),
        db: None,
        active: None,
    }
}

#[test]
fn cases_spread_evenly_are_distinct_and_come_from_the_games() {
    let cases = cases(&test_set(), "6x6", 30, 8, None).expect("cases");
    assert_eq!(cases.len(), 30);
    assert!(cases.windows(2).all(|w| w[0].empties <= w[1].empties));
    // From 8 empty squares up to the start (28): the largest case is the start itself.
    assert_eq!(cases[0].empties, 8);
    let start = Position::start("6x6").expect("start");
    assert_eq!(cases[29].position, start);
    assert_eq!(cases[29].ply, 0);
    // No position twice, although every game starts with the same position.
    let distinct: std::collections::HashSet<String> = cases
        .iter()
        .map(|c| format!("{} {}", c.position.grid(), c.position.to_move))
        .collect();
    assert_eq!(distinct.len(), 30);
    // Each case is the position of its game after `ply` moves.
    let set = crate::testset::load(&test_set().join("6x6.txt")).expect("set");
    let g = Geometry::new(start.board);
    for c in &cases {
        let moves = &set
            .games
            .iter()
            .find(|(n, _)| *n == c.game)
            .expect("game")
            .1;
        let mut p = Pos::from_position(&start);
        for &m in &moves[..c.ply] {
            p = p.play(m);
        }
        assert_eq!(p.to_position(&g), c.position);
        assert_eq!(p.empty(&g).count(), c.empties);
    }
}

#[test]
fn sizes_without_enough_positions_fall_back_to_smaller_ones() {
    // Ten targets between 15 and 17 on 5x5, whose start has 17 empty squares: the start
    // is taken once, the other targets of its size take 16 or 15.
    let cases = cases(&test_set(), "5x5", 10, 15, None).expect("cases");
    assert_eq!(cases.len(), 10);
    assert_eq!(cases.iter().filter(|c| c.empties == 17).count(), 1);
    assert!(cases.iter().all(|c| (15..=17).contains(&c.empties)));
}

#[test]
fn a_tiny_run_writes_tables_and_plots() {
    let o = tiny(1_000_000);
    let runs = run(&test_set(), &o, None, &mut |_| {}).expect("run");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].rows.len(), 3);
    // Both solvers agree on every case.
    for row in &runs[0].rows {
        assert_eq!(row.len(), 2);
        assert!(row[0].winner().is_some());
        assert_eq!(row[0].winner(), row[1].winner());
    }
    let table = csv(&runs);
    assert_eq!(table.lines().count(), 1 + 3 * 2);
    let md = markdown(&runs, &o);
    assert!(md.contains("| 1 |") && md.contains("| ab | 3/3 |"), "{md}");
    let dir = std::env::temp_dir().join(format!("fig13-test-{}", std::process::id()));
    let written = write_all(&dir, &runs, &o).expect("written");
    assert_eq!(written.len(), 4);
    let svg = std::fs::read_to_string(dir.join("fig13-5x5.svg")).expect("svg");
    assert!(svg.starts_with("<svg") && svg.contains("dfpn") && svg.contains("ab"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solves_over_the_budget_are_marked_and_the_configuration_gives_up() {
    let o = Fig13Options {
        min_empties: vec![12],
        max_empties: vec![14],
        positions: 3,
        give_up_after: 2,
        ..tiny(50)
    };
    let runs = run(&test_set(), &o, None, &mut |_| {}).expect("run");
    let rows = &runs[0].rows;
    // Over the budget twice in a row, then not run.
    for row in &rows[..2] {
        assert!(row.iter().all(Measure::over_budget), "{row:?}");
    }
    assert!(rows[2].iter().all(|m| m.outcome == Outcome::NotRun));
    let table = csv(&runs);
    assert!(table.contains("over budget") && table.contains("not run"));
    let md = markdown(&runs, &o);
    assert!(md.contains(">50") && md.contains("| ab | 0/2 |"), "{md}");
    let svg = crate::fig13_plot::svg(&runs[0], &o, false).expect("svg");
    assert!(svg.contains("node budget"));
    // Without the rule every case is run.
    let all = run(
        &test_set(),
        &Fig13Options {
            give_up_after: 0,
            ..o.clone()
        },
        None,
        &mut |_| {},
    )
    .expect("run");
    assert!(all[0].rows[2].iter().all(Measure::over_budget));
}

#[test]
fn a_rerun_takes_the_journal_and_solves_nothing_again() {
    let dir = std::env::temp_dir().join(format!("fig13-journal-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = tiny(1_000_000);
    let mut solved = 0;
    let first = run(&test_set(), &o, Some(&dir), &mut |l| {
        solved += usize::from(l.contains(" nodes") && !l.ends_with("(journal)"))
    })
    .expect("run");
    assert_eq!(solved, 6);
    assert!(dir.join("fig13.csv").exists() && dir.join("fig13-5x5.svg").exists());
    // A crash in the middle of a line: the cut line is dropped and solved again.
    let path = dir.join("fig13-5x5.journal");
    let text = std::fs::read_to_string(&path).expect("journal");
    assert_eq!(text.lines().count(), 1 + 6);
    let cut = text.trim_end().rfind('\n').expect("lines") + 1 + 10;
    std::fs::write(&path, &text[..cut]).expect("cut");
    let mut lines = Vec::new();
    let second = run(&test_set(), &o, Some(&dir), &mut |l| {
        lines.push(l.to_string())
    })
    .expect("rerun");
    let again: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("nodes") && !l.ends_with("(journal)"))
        .collect();
    assert_eq!(again.len(), 1, "{lines:?}");
    let counts = |runs: &[BoardRun]| -> Vec<(Outcome, u64, u64)> {
        runs[0]
            .rows
            .iter()
            .flatten()
            .map(|m| (m.outcome, m.search.nodes, m.extraction.nodes))
            .collect()
    };
    assert_eq!(counts(&first), counts(&second));
    // From the journal alone: the same numbers, nothing solved.
    let only = Fig13Options {
        journal_only: true,
        ..o.clone()
    };
    let mut solved = 0;
    let third = run(&test_set(), &only, Some(&dir), &mut |l| {
        solved += usize::from(l.contains(" nodes") && !l.ends_with("(journal)"))
    })
    .expect("journal only");
    assert_eq!((solved, counts(&third)), (0, counts(&first)));
    // An empty journal: nothing run.
    let empty = dir.join("empty");
    let none = run(&test_set(), &only, Some(&empty), &mut |_| {}).expect("empty");
    assert!(none[0]
        .rows
        .iter()
        .flatten()
        .all(|m| m.outcome == Outcome::NotRun));
    // Other settings: the journal is refused.
    let other = Fig13Options {
        max_nodes: vec![999],
        ..o.clone()
    };
    assert!(matches!(
        run(&test_set(), &other, Some(&dir), &mut |_| {}),
        Err(Fig13Error::Usage(_))
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
