//! Quickcheck properties on random small games and random small Amazons areas.

use amazons_cgt::{
    search_first_player_wins, BoundKind, Class, GameId, GameStore, Outcome, Rational,
};
use amazons_format::{Board, Cell, Color, Position};
use quickcheck::{Arbitrary, Gen, QuickCheck};

/// A game tree (not canonical): the independent model for comparisons.
#[derive(Debug, Clone)]
struct Tree {
    left: Vec<Tree>,
    right: Vec<Tree>,
}

fn gen_tree(g: &mut Gen, depth: usize) -> Tree {
    if depth == 0 {
        return Tree {
            left: vec![],
            right: vec![],
        };
    }
    let nl = usize::arbitrary(g) % 3;
    let nr = usize::arbitrary(g) % 3;
    Tree {
        left: (0..nl).map(|_| gen_tree(g, depth - 1)).collect(),
        right: (0..nr).map(|_| gen_tree(g, depth - 1)).collect(),
    }
}

impl Arbitrary for Tree {
    fn arbitrary(g: &mut Gen) -> Tree {
        let d = 1 + usize::arbitrary(g) % 3;
        gen_tree(g, d)
    }
}

fn build(s: &mut GameStore, t: &Tree) -> GameId {
    let l: Vec<GameId> = t.left.iter().map(|x| build(s, x)).collect();
    let r: Vec<GameId> = t.right.iter().map(|x| build(s, x)).collect();
    s.game(&l, &r)
}

/// `t` built into a fresh store.
fn built(t: &Tree) -> (GameStore, GameId) {
    let mut s = GameStore::new();
    let g = build(&mut s, t);
    (s, g)
}

fn neg_tree(t: &Tree) -> Tree {
    Tree {
        left: t.right.iter().map(neg_tree).collect(),
        right: t.left.iter().map(neg_tree).collect(),
    }
}

/// Does `left_to_move` win in the formal sum `a + b` (plain game-tree search)?
fn sum_wins(a: &Tree, b: &Tree, left_to_move: bool) -> bool {
    let (ao, bo) = if left_to_move {
        (&a.left, &b.left)
    } else {
        (&a.right, &b.right)
    };
    ao.iter().any(|x| !sum_wins(x, b, !left_to_move))
        || bo.iter().any(|y| !sum_wins(a, y, !left_to_move))
}

fn qc(tests: u64) -> QuickCheck {
    QuickCheck::new().tests(tests).max_tests(tests * 10)
}

#[test]
fn games_plus_negative_is_zero_and_negation_is_an_involution() {
    fn prop(t: Tree) -> bool {
        let (mut s, g) = built(&t);
        let n = s.neg(g);
        let z = s.zero();
        s.add(g, n) == z && s.neg(n) == g
    }
    qc(300).quickcheck(prop as fn(Tree) -> bool);
}

#[test]
fn sums_commute_and_associate() {
    fn prop(a: Tree, b: Tree, c: Tree) -> bool {
        let mut s = GameStore::new();
        let (g, h, k) = (build(&mut s, &a), build(&mut s, &b), build(&mut s, &c));
        let gh = s.add(g, h);
        let hg = s.add(h, g);
        let gh_k = s.add(gh, k);
        let hk = s.add(h, k);
        let g_hk = s.add(g, hk);
        gh == hg && gh_k == g_hk
    }
    qc(200).quickcheck(prop as fn(Tree, Tree, Tree) -> bool);
}

#[test]
fn comparison_agrees_with_the_outcome_of_the_difference() {
    fn prop(a: Tree, b: Tree) -> bool {
        let mut s = GameStore::new();
        let (g, h) = (build(&mut s, &a), build(&mut s, &b));
        let nb = neg_tree(&b);
        // G >= H iff Left wins G - H moving second, i.e. Right moving first loses.
        let ge = !sum_wins(&a, &nb, false);
        let le = !sum_wins(&a, &nb, true);
        // The canonical form has the outcome of the tree it came from.
        let o = s.outcome(g);
        let zero = Tree {
            left: vec![],
            right: vec![],
        };
        let (left_first, right_first) = (sum_wins(&a, &zero, true), sum_wins(&a, &zero, false));
        s.ge(g, h) == ge
            && s.le(g, h) == le
            && o.left_wins_moving_first() == left_first
            && o.right_wins_moving_first() == right_first
    }
    qc(300).quickcheck(prop as fn(Tree, Tree) -> bool);
}

#[test]
fn printing_round_trips_through_the_parser() {
    fn prop(t: Tree) -> bool {
        let (mut s, g) = built(&t);
        let text = s.display(g);
        let braces = s.display_braces(g);
        s.parse(&text) == Ok(g) && s.parse(&braces) == Ok(g)
    }
    qc(300).quickcheck(prop as fn(Tree) -> bool);
}

#[derive(Debug, Clone, Copy)]
struct Dyadic(Rational);

impl Arbitrary for Dyadic {
    fn arbitrary(g: &mut Gen) -> Dyadic {
        let num = i64::from(i8::arbitrary(g));
        let k = u32::arbitrary(g) % 5;
        Dyadic(Rational::new(num, 1 << k).unwrap_or(Rational::ZERO))
    }
}

#[test]
fn thermograph_of_a_number_is_a_vertical_mast() {
    fn prop(x: Dyadic) -> bool {
        let x = x.0;
        let mut s = GameStore::new();
        let g = s.number(x);
        let th = s.thermograph(g);
        let temp = th.temperature();
        // Integers: a mast from -1; m/2^k: a mast from -1/2^k (CGSuite's convention).
        let expected_temp = if x.is_integer() {
            Rational::MINUS_ONE
        } else {
            -Rational::new(1, x.denom()).unwrap_or(Rational::ONE)
        };
        let mast_ok = [temp, temp + Rational::ONE, Rational::int(7)]
            .iter()
            .all(|&t| th.left.value_at(t) == x && th.right.value_at(t) == x);
        let integer_ok =
            !x.is_integer() || (th.left.points().len() == 1 && th.right.points().len() == 1);
        let class_ok = match s.classify(g) {
            Class::Number(y) => y == x,
            Class::Infinitesimal(amazons_cgt::InfKind::Zero) => x == Rational::ZERO,
            _ => false,
        };
        let (lo, hi) = th.bounds();
        temp == expected_temp
            && mast_ok
            && integer_ok
            && class_ok
            && th.mast_value() == x
            && lo.value == x
            && hi.value == x
            && lo.kind == BoundKind::Plain
            && hi.kind == BoundKind::Plain
    }
    qc(300).quickcheck(prop as fn(Dyadic) -> bool);
}

/// A random small Amazons area: 3x3, 4x2, 3x2, 2x2 or 4x1, at most 7 empty squares, at
/// least one queen.
#[derive(Debug, Clone)]
struct Area(Position);

fn gen_area(g: &mut Gen, max_empty: usize) -> Position {
    let boards = [(3, 3), (4, 2), (2, 4), (3, 2), (2, 2), (4, 1), (2, 3)];
    let (w, h) = boards[usize::arbitrary(g) % boards.len()];
    let board = Board::new(w, h).unwrap_or(Board {
        width: 3,
        height: 3,
    });
    loop {
        let cells: Vec<Cell> = (0..board.len())
            .map(|_| match u8::arbitrary(g) % 8 {
                0 | 1 => Cell::Black,
                2 | 3 => Cell::White,
                4 => Cell::Arrow,
                _ => Cell::Empty,
            })
            .collect();
        let empties = cells.iter().filter(|&&c| c == Cell::Empty).count();
        let queens = cells
            .iter()
            .filter(|&&c| c == Cell::Black || c == Cell::White)
            .count();
        if empties <= max_empty && queens > 0 && queens <= 4 {
            return Position {
                board,
                cells,
                to_move: Color::Black,
            };
        }
    }
}

impl Arbitrary for Area {
    fn arbitrary(g: &mut Gen) -> Area {
        Area(gen_area(g, 7))
    }
}

/// Two areas side by side with a column of arrows between them, the second negated
/// (colours swapped): the board of `G - H`.
fn difference_board(a: &Position, b: &Position) -> Position {
    let h = a.board.height.max(b.board.height) as usize;
    let w = a.board.width as usize + 1 + b.board.width as usize;
    let board = Board::new(w, h).unwrap_or(a.board);
    let mut p = Position::empty(board, Color::Black);
    for c in p.cells.iter_mut() {
        *c = Cell::Arrow;
    }
    for y in 0..a.board.height as usize {
        for x in 0..a.board.width as usize {
            p.cells[board.square(x, y) as usize] = a.cells[a.board.square(x, y) as usize];
        }
    }
    let off = a.board.width as usize + 1;
    for y in 0..b.board.height as usize {
        for x in 0..b.board.width as usize {
            p.cells[board.square(off + x, y) as usize] =
                match b.cells[b.board.square(x, y) as usize] {
                    Cell::Black => Cell::White,
                    Cell::White => Cell::Black,
                    c => c,
                };
        }
    }
    p
}

/// The values of `areas` in one fresh store, or `None` if one cannot be valued.
fn valued<const N: usize>(areas: [&Position; N]) -> Option<(GameStore, [GameId; N])> {
    let mut s = GameStore::new();
    let ids: Vec<GameId> = areas
        .iter()
        .map(|p| s.value_of_area(p).ok())
        .collect::<Option<_>>()?;
    Some((s, ids.try_into().ok()?))
}

#[test]
fn area_values_agree_with_exhaustive_search() {
    fn prop(a: Area) -> bool {
        let Some((mut s, [g])) = valued([&a.0]) else {
            return false;
        };
        let o = s.outcome(g);
        let b = search_first_player_wins(&a.0, Color::Black);
        let w = search_first_player_wins(&a.0, Color::White);
        b == Ok(o.left_wins_moving_first()) && w == Ok(o.right_wins_moving_first())
    }
    qc(200).quickcheck(prop as fn(Area) -> bool);
}

#[test]
fn area_sums_cancel_commute_and_match_combined_boards() {
    fn prop(a: Area, b: Area) -> bool {
        let Some((mut s, [g, h])) = valued([&a.0, &b.0]) else {
            return false;
        };
        let z = s.zero();
        let ng = s.neg(g);
        let gh = s.add(g, h);
        let hg = s.add(h, g);
        gh == hg && s.add(g, ng) == z && s.neg(ng) == g
    }
    qc(100).quickcheck(prop as fn(Area, Area) -> bool);
}

#[derive(Debug, Clone)]
struct SmallArea(Position);

impl Arbitrary for SmallArea {
    fn arbitrary(g: &mut Gen) -> SmallArea {
        SmallArea(gen_area(g, 4))
    }
}

#[test]
fn area_comparison_agrees_with_search_on_the_difference() {
    fn prop(a: SmallArea, b: SmallArea) -> bool {
        let Some((mut s, [g, h])) = valued([&a.0, &b.0]) else {
            return false;
        };
        let d = difference_board(&a.0, &b.0);
        let Ok(dv) = s.value_of_area(&d) else {
            return false;
        };
        let diff = s.sub(g, h);
        // G >= H iff Left (Black) wins G - H moving second.
        let Ok(white_first) = search_first_player_wins(&d, Color::White) else {
            return false;
        };
        let Ok(black_first) = search_first_player_wins(&d, Color::Black) else {
            return false;
        };
        dv == diff && s.ge(g, h) != white_first && s.le(g, h) != black_first
    }
    qc(100).quickcheck(prop as fn(SmallArea, SmallArea) -> bool);
}

#[test]
fn thermograph_bounds_never_claim_more_than_the_exact_bounds() {
    fn prop(a: Area) -> bool {
        let Some((mut s, [g])) = valued([&a.0]) else {
            return false;
        };
        let (tlo, thi) = s.thermograph_bounds(g);
        let (elo, ehi) = s.bounds(g);
        let implied = |t: BoundKind, e: BoundKind| match t {
            BoundKind::Relaxed => true,
            BoundKind::Plain => e != BoundKind::Relaxed,
            BoundKind::Tightened => e == BoundKind::Tightened,
        };
        let th = s.thermograph(g);
        // Stops agree with the canonical stops, and the classes agree (but for `*`).
        let stops = th.left_stop() == s.left_stop(g) && th.right_stop() == s.right_stop(g);
        let class = match (s.classify(g), th.classify()) {
            (Class::Star, Class::Infinitesimal(amazons_cgt::InfKind::Fuzzy)) => true,
            (x, y) => x == y,
        };
        tlo.value == elo.value
            && thi.value == ehi.value
            && implied(tlo.kind, elo.kind)
            && implied(thi.kind, ehi.kind)
            && stops
            && class
    }
    qc(200).quickcheck(prop as fn(Area) -> bool);
}

#[test]
fn outcome_classes_of_simple_games() {
    let mut s = GameStore::new();
    for (text, o) in [
        ("0", Outcome::P),
        ("*", Outcome::N),
        ("^", Outcome::L),
        ("v", Outcome::R),
        ("+-1", Outcome::N),
        ("1/2", Outcome::L),
        ("-3", Outcome::R),
        ("^*", Outcome::N),
        ("{1|-1/4}", Outcome::N),
        ("*2", Outcome::N),
    ] {
        let g = s.parse(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.outcome(g), o, "{text}");
        assert_eq!(s.display(g), text);
    }
}
