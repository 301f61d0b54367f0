//! Tests of the Fig. 13 experiment: case selection, a tiny run, its tables and plots.

use super::*;

fn test_set() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/selfplay")
}

fn tiny(max_nodes: u64) -> Fig13Options {
    Fig13Options {
        boards: vec!["5x5".into()],
        positions: 3,
        from_end: vec![3],
        max_nodes,
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
fn cases_grow_in_empty_squares_and_come_from_the_games() {
    let cases = cases(&test_set(), "6x6", 12, 5).expect("cases");
    assert_eq!(cases.len(), 12);
    assert!(cases.windows(2).all(|w| w[0].empties <= w[1].empties));
    let set = crate::testset::load(&test_set().join("6x6.txt")).expect("set");
    let first = &set.games[0].1;
    // The smallest case of the first game is 5 plies before its end.
    assert!(cases
        .iter()
        .any(|c| c.game == set.games[0].0 && c.ply == first.len() - 5));
}

#[test]
fn a_tiny_run_writes_tables_and_plots() {
    let o = tiny(1_000_000);
    let runs = run(&test_set(), &o, &mut |_| {}).expect("run");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].rows.len(), 3);
    // Both solvers agree on every case.
    for row in &runs[0].rows {
        assert_eq!(row.len(), 2);
        assert!(row[0].winner.is_some());
        assert_eq!(row[0].winner, row[1].winner);
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
fn solves_over_the_budget_are_marked() {
    let o = Fig13Options {
        from_end: vec![8],
        positions: 1,
        ..tiny(50)
    };
    let runs = run(&test_set(), &o, &mut |_| {}).expect("run");
    let row = &runs[0].rows[0];
    assert!(row.iter().all(|m| m.winner.is_none()), "{row:?}");
    assert!(csv(&runs).contains("over budget"));
    assert!(markdown(&runs, &o).contains(">50"));
    let svg = crate::fig13_plot::svg(&runs[0], &o, false).expect("svg");
    assert!(svg.contains("node budget"));
}
