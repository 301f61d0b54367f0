//! The search rule (SPEC 5.8): accepted exactly when a plain minimax over `actions` and `after` says the winner wins, and rejected beyond the size limit.

use amazons_checker::proof::{actions, after, check, Failure};
use amazons_format::{Cell, Certificate, Claim, Color, Meta, Position, Step, SEARCH_LIMIT};

fn claim(grid: &str, to_move: Color, spare: i32, winner: Color) -> Claim {
    Claim {
        position: Position::parse_grid(grid, to_move).expect("test grid"),
        spare,
        winner,
    }
}

fn search(root: &Claim) -> Result<(), Failure> {
    let cert = Certificate {
        root: root.clone(),
        steps: vec![Step::Search],
        meta: Meta::default(),
    };
    check(&cert).map(|_| ()).map_err(|e| e.failure)
}

/// The game's definition, written out with the checker's action list and nothing else.
fn winner_wins(c: &Claim) -> bool {
    let x_to_move = c.position.to_move == c.winner;
    let mut children = actions(c).into_iter().map(|a| winner_wins(&after(c, a)));
    if x_to_move {
        children.any(|w| w)
    } else {
        children.all(|w| w)
    }
}

#[test]
fn search_accepts_a_win_and_counts_spare_moves() {
    // Black to move on X.O wins by a1-b1xa1; a White spare move answers it.
    assert_eq!(search(&claim("X.O", Color::Black, 0, Color::Black)), Ok(()));
    assert_eq!(
        search(&claim("X.O", Color::Black, -1, Color::White)),
        Ok(())
    );
    let f = search(&claim("X.O", Color::Black, -1, Color::Black));
    assert_eq!(f, Err(Failure::SearchLoses));
    // A Black spare move helps Black too: it is still Black's win.
    assert_eq!(search(&claim("X.O", Color::Black, 2, Color::Black)), Ok(()));
}

/// A Black queen, `empty` empty squares and a White queen in a row: on one rank if they fit
/// on 10 files, else on two (the rest of the lower rank arrows).
fn queens_apart(empty: usize) -> String {
    let cells = format!("X{}O", ".".repeat(empty));
    if cells.len() <= 10 {
        return cells;
    }
    let width = cells.len().div_ceil(2);
    let cells = format!("{cells:#<0$}", 2 * width);
    format!("{}|{}", &cells[..width], &cells[width..])
}

#[test]
fn search_beyond_the_limit_is_rejected() {
    let grid = queens_apart(SEARCH_LIMIT + 1);
    let f = search(&claim(&grid, Color::Black, 0, Color::Black));
    let empty = SEARCH_LIMIT + 1;
    assert_eq!(f, Err(Failure::SearchTooLarge { empty }));
    // At the limit the search decides: exactly one of the two claims is accepted.
    let grid = queens_apart(SEARCH_LIMIT);
    let black = search(&claim(&grid, Color::Black, 0, Color::Black));
    let white = search(&claim(&grid, Color::Black, 0, Color::White));
    assert!(
        matches!(
            (&black, &white),
            (Ok(()), Err(Failure::SearchLoses)) | (Err(Failure::SearchLoses), Ok(()))
        ),
        "{black:?} {white:?}"
    );
}

/// A deterministic pseudo-random source: `next(n)` is in `0..n`.
fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}

/// Checks `c` by a `Search` step: accepted exactly when plain minimax says its winner
/// wins, else `SearchLoses`; counts it in `(accepted, rejected)`.
fn agrees_with_minimax(c: &Claim, (accepted, rejected): &mut (usize, usize)) {
    let got = search(c);
    if winner_wins(c) {
        assert_eq!(got, Ok(()), "{}", c.describe());
        *accepted += 1;
    } else {
        assert_eq!(got, Err(Failure::SearchLoses), "{}", c.describe());
        *rejected += 1;
    }
}

/// [`agrees_with_minimax`] for the claims of both winners on `position` with `spare`.
fn both_claims_agree(position: &Position, spare: i32, counts: &mut (usize, usize)) {
    for winner in [Color::White, Color::Black] {
        let c = Claim {
            position: position.clone(),
            spare,
            winner,
        };
        agrees_with_minimax(&c, counts);
    }
}

/// More than `least` claims accepted and more than `least` rejected among `counts`.
fn both_verdicts_seen((accepted, rejected): (usize, usize), least: usize) {
    assert!(
        accepted > least && rejected > least,
        "{accepted} accepted / {rejected} rejected"
    );
}

/// White or Black, from `next`.
fn either_side(next: &mut impl FnMut(u64) -> u64) -> Color {
    if next(2) == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// A cell drawn for a mostly walled position: empty 3 times in 10, a queen of each side
/// once, an arrow otherwise.
fn sparse_cell(next: &mut impl FnMut(u64) -> u64) -> Cell {
    match next(10) {
        0..=2 => Cell::Empty,
        3 => Cell::White,
        4 => Cell::Black,
        _ => Cell::Arrow,
    }
}

/// At most `empty` empty squares and three queens a side.
fn small(cells: &[Cell], empty: usize) -> bool {
    let count = |cell: Cell| cells.iter().filter(|&&c| c == cell).count();
    count(Cell::Empty) <= empty && count(Cell::White) <= 3 && count(Cell::Black) <= 3
}

#[test]
fn search_agrees_with_plain_minimax_on_many_small_positions() {
    // Deterministic pseudo-random 3x3 positions with at most SEARCH_LIMIT empty squares,
    // spares and either side to move; the claim for each winner is accepted exactly when
    // minimax says so.
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    let mut counts = (0, 0);
    for _ in 0..400 {
        let cells: Vec<Cell> = (0..9)
            .map(|_| match next(10) {
                0..=2 => Cell::Empty,
                3 | 4 => Cell::White,
                5 | 6 => Cell::Black,
                _ => Cell::Arrow,
            })
            .collect();
        if cells.iter().filter(|&&c| c == Cell::Empty).count() > SEARCH_LIMIT {
            continue;
        }
        let to_move = either_side(&mut next);
        let mut position = Position::parse_grid("...|...|...", to_move).expect("3x3");
        position.cells = cells;
        let spare = next(5) as i32 - 2;
        both_claims_agree(&position, spare, &mut counts);
    }
    both_verdicts_seen(counts, 50);
}

#[test]
fn search_agrees_with_plain_minimax_on_boards_of_several_shapes() {
    // Deterministic pseudo-random positions on boards from 6x2 to 2x6, with up to three
    // queens a side and at most 5 empty squares: long rays in every direction, queens
    // walled in and queens with one empty neighbour, so the search's ray masks and its
    // test for a side without a board move meet every case the plain action list does.
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let shapes = [
        "......|......",
        "..|..|..|..|..|..",
        "....|....|....",
        "...|...|...|...",
    ];
    let (mut counts, mut stuck) = ((0, 0), 0);
    for round in 0..600 {
        let to_move = either_side(&mut next);
        let mut position =
            Position::parse_grid(shapes[round % shapes.len()], to_move).expect("test board");
        let cells: Vec<Cell> = (0..position.cells.len())
            .map(|_| match next(12) {
                0..=3 => Cell::Empty,
                4 => Cell::White,
                5 => Cell::Black,
                _ => Cell::Arrow,
            })
            .collect();
        if !small(&cells, 5) {
            continue;
        }
        position.cells = cells;
        let spare = next(5) as i32 - 2;
        let c = Claim {
            position,
            spare,
            winner: to_move,
        };
        stuck += usize::from(actions(&c).is_empty());
        both_claims_agree(&c.position, spare, &mut counts);
    }
    both_verdicts_seen(counts, 100);
    assert!(
        stuck > 10,
        "only {stuck} positions where the side to move has no action"
    );
}

#[test]
fn a_search_within_a_budget_gives_up_past_it_and_forgets_what_it_left() {
    // A small position whose side to move has actions and loses: every one of its actions
    // is searched, so more than one state.
    let grids = [
        "X..O|...#",
        "X..O|..##",
        "X...|..O#",
        "X..|.#.|..O",
        "X...O|....#",
    ];
    let c = (grids.iter())
        .flat_map(|g| [Color::White, Color::Black].map(|m| claim(g, m, 0, m.opponent())))
        .find(|c| !actions(c).is_empty() && winner_wins(c))
        .expect("one of them is lost for the side to move");
    let pos = &c.position;
    let mut game = amazons_checker::rules::GameSearch::new(pos.board);
    let truth = false;
    assert_eq!(
        game.mover_wins_within(pos, 0, 1),
        None,
        "one state is not enough"
    );
    // After giving up, the memo holds nothing unsettled: the plain search is still right.
    assert_eq!(game.mover_wins(pos, 0), truth);
    assert_eq!(game.mover_wins_within(pos, 0, u64::MAX), Some(truth));
    // The least budget that settles it is found, and one less is not enough.
    let least = (1..100_000)
        .find(|&b| game.mover_wins_within(pos, 0, b).is_some())
        .expect("settled within 100,000 states");
    assert!(least > 1);
    assert_eq!(game.mover_wins_within(pos, 0, least), Some(truth));
    assert_eq!(game.mover_wins_within(pos, 0, least - 1), None);
}

#[test]
fn search_agrees_with_plain_minimax_on_positions_walled_into_rooms() {
    // Deterministic pseudo-random positions on 7x3 and 3x7 boards cut by a wall of arrows
    // into two rooms, at most 7 empty squares: many have a room that holds queens of one
    // side only, where the side's moves there are a count that the other side cannot
    // touch (the sum of SPEC 5.5, inside one search).
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let (mut counts, mut one_sided) = ((0, 0), 0);
    for round in 0..300 {
        // The grid, then which squares are the wall, and which lie before and after it.
        type Side = fn(usize) -> bool;
        let (grid, wall, before, after): (&str, Side, Side, Side) = if round % 2 == 0 {
            (
                "...#...|...#...|...#...",
                |sq| sq % 7 == 3,
                |sq| sq % 7 < 3,
                |sq| sq % 7 > 3,
            )
        } else {
            (
                "...|...|...|###|...|...|...",
                |sq| sq / 3 == 3,
                |sq| sq / 3 < 3,
                |sq| sq / 3 > 3,
            )
        };
        let to_move = either_side(&mut next);
        let mut position = Position::parse_grid(grid, to_move).expect("test board");
        for sq in (0..21).filter(|&sq| !wall(sq)) {
            position.cells[sq] = sparse_cell(&mut next);
        }
        if !small(&position.cells, 7) {
            continue;
        }
        // A room (one side of the wall) with an empty square and queens of one colour.
        let room = |side: Side| {
            let has = |cell: Cell| (0..21).any(|sq| side(sq) && position.cells[sq] == cell);
            has(Cell::Empty) && (has(Cell::White) != has(Cell::Black))
        };
        one_sided += usize::from(room(before) || room(after));
        let spare = next(5) as i32 - 2;
        both_claims_agree(&position, spare, &mut counts);
    }
    both_verdicts_seen(counts, 50);
    assert!(
        one_sided > 50,
        "only {one_sided} positions with a one-sided room"
    );
}

#[test]
fn search_agrees_with_plain_minimax_past_square_63() {
    // The search holds sets of squares in 64-bit masks on boards of at most 64 squares and
    // in 128-bit ones above (`rules::GameSearch`): positions whose queens and empty squares lie on the last
    // squares of a 10x10 board (84 to 99, past any 64-bit mask) and of 8x8 (52 to 63), the
    // rest arrows.
    let mut next = xorshift(0x0123_4567_89ab_cdef);
    let mut counts = (0, 0);
    for round in 0..200 {
        let (width, height, live) = if round % 2 == 0 {
            (10, 10, 16)
        } else {
            (8, 8, 12)
        };
        let grid = vec!["#".repeat(width); height].join("|");
        let to_move = either_side(&mut next);
        let mut position = Position::parse_grid(&grid, to_move).expect("test board");
        let squares = width * height;
        for sq in squares - live..squares {
            position.cells[sq] = sparse_cell(&mut next);
        }
        if !small(&position.cells, 6) {
            continue;
        }
        let spare = next(3) as i32 - 1;
        both_claims_agree(&position, spare, &mut counts);
    }
    both_verdicts_seen(counts, 30);
}
