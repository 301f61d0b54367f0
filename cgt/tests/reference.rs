//! Reference data: CGSuite's 4x2 canonical form, the MCGS thermographs and outcome classes.

use amazons_cgt::{followers, GameId, GameStore, Thermograph};
use amazons_format::{Color, Position};
use std::path::PathBuf;
use std::time::Instant;

fn data(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/mcgs")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
}

/// The value of the area in `grid` (Black to move).
fn value(s: &mut GameStore, grid: &str) -> GameId {
    let p = Position::parse_grid(grid, Color::Black).expect("grid");
    s.value_of_area(&p).expect("value")
}

const REF_4X2: &str = "+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}";

#[test]
fn canonical_form_of_4x2_matches_cgsuite() {
    let start = Instant::now();
    let mut s = GameStore::new();
    let g = value(&mut s, "x...|o...");
    let shown = s.display(g);
    let parsed = s.parse(REF_4X2).expect("parse reference");
    eprintln!(
        "4x2: {shown} ({:?}, {} games stored)",
        start.elapsed(),
        s.len()
    );
    assert_eq!(g, parsed, "structurally different from CGSuite: {shown}");
    assert_eq!(shown, REF_4X2);
    let start = Instant::now();
    let p = Position::parse_grid("x...|o...", Color::Black).expect("grid");
    assert_eq!(followers(&p), 2784);
    eprintln!("followers: {:?}", start.elapsed());
}

/// Parses `amazons_3x3_thermographs.test`: grid, then `L:` and `R:` lines in braces.
fn thermograph_cases() -> Vec<(String, (String, String))> {
    let text = data("amazons_3x3_thermographs.test");
    let mut out = Vec::new();
    let mut grid: Option<String> = None;
    let mut l: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if t.len() >= 11 && t.chars().all(|c| ".XO#|".contains(c)) {
            grid = Some(t.to_string());
        } else if let Some(rest) = t.strip_prefix("L:") {
            l = Some(rest.trim().to_string());
        } else if let Some(rest) = t.strip_prefix("R:") {
            let g = grid.take().expect("grid before R:");
            out.push((
                g,
                (l.take().expect("L: before R:"), rest.trim().to_string()),
            ));
        }
    }
    out
}

/// Gives `check` the value of each case's grid, all in one store, with the grid and the
/// expected result; then prints how long that took.
fn check_values<T>(
    what: &str,
    cases: &[(String, T)],
    mut check: impl FnMut(&mut GameStore, GameId, &str, &T),
) {
    let mut s = GameStore::new();
    let start = Instant::now();
    for (grid, expected) in cases {
        let g = value(&mut s, grid);
        check(&mut s, g, grid, expected);
    }
    eprintln!(
        "{} {what}: {:?}, {} games stored",
        cases.len(),
        start.elapsed(),
        s.len()
    );
}

#[test]
fn ten_thermographs_match_cgsuite_point_for_point() {
    let cases = thermograph_cases();
    assert_eq!(cases.len(), 10);
    check_values("thermographs", &cases, |s, g, grid, (l, r)| {
        let th = s.thermograph(g);
        let shown = s.display(g);
        assert_eq!(th.left.point_string(), *l, "{grid} = {shown}: left wall");
        assert_eq!(th.right.point_string(), *r, "{grid} = {shown}: right wall");
        // The parser round-trips the reference.
        assert_eq!(Thermograph::parse_wall(l).expect("parse"), th.left);
        assert_eq!(Thermograph::parse_wall(r).expect("parse"), th.right);
        eprintln!("{grid}: {shown}  T={}", th.temperature());
    });
}

fn outcome_cases(name: &str) -> Vec<(String, (bool, bool))> {
    let text = data(name);
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((grid, rest)) = line.trim().split_once(" {") else {
            continue;
        };
        if !grid.chars().all(|c| ".XO#|".contains(c)) || grid.is_empty() {
            continue;
        }
        let b = rest.contains("B win");
        assert!(b || rest.contains("B loss"), "{line}");
        let w = rest.contains("W win");
        assert!(w || rest.contains("W loss"), "{line}");
        out.push((grid.to_string(), (b, w)));
    }
    out
}

#[test]
fn mcgs_outcomes_for_both_sides_to_move() {
    let mut cases = outcome_cases("amazons_3x3.test");
    cases.extend(outcome_cases("amazons_3x4.test"));
    assert_eq!(cases.len(), 113);
    check_values("outcomes", &cases, |s, g, grid, &wins| {
        let o = s.outcome(g);
        assert_eq!(
            (o.left_wins_moving_first(), o.right_wins_moving_first()),
            wins,
            "{grid} = {}",
            s.display(g)
        );
    });
}
