//! Unit tests of the game store: numbers, printing, stops, comparisons and text bounds.

use super::*;

fn r(a: i64, b: i64) -> Rational {
    Rational::new(a, b).expect("valid")
}

#[test]
fn simplest_numbers() {
    assert_eq!(simplest_between(None, None), Rational::ZERO);
    assert_eq!(simplest_between(Some(r(1, 1)), None), r(2, 1));
    assert_eq!(simplest_between(None, Some(r(-1, 2))), r(-1, 1));
    assert_eq!(simplest_between(Some(r(0, 1)), Some(r(1, 1))), r(1, 2));
    assert_eq!(simplest_between(Some(r(1, 4)), Some(r(1, 2))), r(3, 8));
    assert_eq!(
        simplest_between(Some(r(-3, 1)), Some(r(5, 2))),
        Rational::ZERO
    );
    assert_eq!(simplest_between(Some(r(3, 2)), Some(r(4, 1))), r(2, 1));
}

#[test]
fn id_at_inverts_index_and_stops_at_the_end() {
    let mut s = GameStore::new();
    let games = [s.zero(), s.star(), s.up(), s.integer(-3)];
    for g in games {
        assert_eq!(s.id_at(g.index()), Some(g));
    }
    assert_eq!(s.id_at(s.len()), None);
    assert!(s.id_at(s.len() - 1).is_some());
}

#[test]
fn number_up_star_forms_print_like_cgsuite() {
    let mut s = GameStore::new();
    let z = s.zero();
    let st = s.star();
    let up = s.up();
    let one = s.integer(1);
    let half = s.number(r(1, 2));
    let cases: Vec<(GameId, &str)> = vec![
        (z, "0"),
        (st, "*"),
        (up, "^"),
        (s.game(&[z, st], &[z]), "^*"),
        (s.game(&[z], &[z, st]), "v*"),
        (s.add(up, up), "^^"),
        (s.nimber(3), "*3"),
        (s.add(half, st), "1/2*"),
        (s.game(&[one], &[z]), "{1|0}"),
        (s.neg(up), "v"),
    ];
    for (g, text) in cases {
        assert_eq!(s.display(g), text);
        assert_eq!(s.parse(text), Ok(g), "{text}");
    }
    let three_up = s.parse("^3").expect("parse");
    assert_eq!(s.nus(three_up).map(|n| n.ups), Some(3));
    let pm = s.parse("{1|-1}").expect("parse");
    assert_eq!(s.display(pm), "+-1");
    let g = s.parse("{4||2|0}").expect("parse");
    assert_eq!(s.display(g), "{4||2|0}");
    assert_eq!(s.display_braces(g), "{4|{2|0}}");
    // Reversible options are bypassed: {*|*} = 0, {^|^}... and dominated ones removed.
    assert_eq!(s.game(&[st], &[st]), z);
    assert_eq!(s.game(&[z, one], &[]), s.integer(2));
    assert!(s.parse("{1|").is_err());
    assert!(s.parse("1/3").is_err());
}

#[test]
fn stops_and_comparisons() {
    let mut s = GameStore::new();
    let g = s.parse("{3|{1|-1}}").expect("parse");
    assert_eq!(s.left_stop(g), r(3, 1));
    assert_eq!(s.right_stop(g), r(1, 1));
    let one = s.integer(1);
    let three = s.integer(3);
    let minus_one = s.integer(-1);
    assert!(s.confused(g, three));
    assert!(s.gt(g, minus_one));
    assert!(!s.lt(g, one));
    let up = s.up();
    let st = s.star();
    let z = s.zero();
    assert!(s.gt(up, z));
    assert!(s.confused(st, z));
    assert!(s.confused(up, st));
    assert_eq!(s.outcome(up), Outcome::L);
}

/// Every game of the 4x2 area `x...|o...` (CGSuite's example): the bound never
/// exceeds the text, and `display_within` agrees with `display` at the edge.
#[test]
fn text_bounds_hold_for_every_game_of_an_area() {
    let p = amazons_format::Position::parse_grid("x...|o...", amazons_format::Color::Black)
        .expect("grid");
    let mut s = GameStore::new();
    s.value_of_area(&p).expect("value");
    for i in 0..s.len() {
        let g = GameId(i as u32);
        let full = s.display(g);
        assert!(
            s.text_lower_bound(g, usize::MAX / 2) <= full.len(),
            "{full}"
        );
        let n = full.len();
        assert_eq!(s.display_within(g, n).as_deref(), Some(full.as_str()));
        assert_eq!(s.display_within(g, n - 1), None, "{full}");
    }
}

#[test]
fn display_within_is_the_display_when_it_fits() {
    let mut s = GameStore::new();
    let texts = [
        "0",
        "^*",
        "+-{1,{2|0}}",
        "{4||2|0}",
        "+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}",
        "1+(1/2).Tiny",
    ];
    let mut games: Vec<GameId> = texts.iter().map(|t| s.parse(t).expect("parse")).collect();
    // Deeper games whose text grows fast: {g | -g} nested.
    let mut g = s.parse("{1|0}").expect("parse");
    for _ in 0..6 {
        let minus = s.neg(g);
        let one = s.integer(1);
        let next = s.game(&[g, one], &[minus]);
        games.push(next);
        g = next;
    }
    for g in games {
        let full = s.display(g);
        assert!(
            s.text_lower_bound(g, usize::MAX / 2) <= full.len(),
            "{full}"
        );
        for max in [
            0,
            1,
            3,
            full.len().saturating_sub(1),
            full.len(),
            full.len() + 5,
        ] {
            let within = s.display_within(g, max);
            let expected = (full.len() <= max).then(|| full.clone());
            assert_eq!(within, expected, "{full} within {max}");
        }
    }
}
