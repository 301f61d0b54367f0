//! Rules tests: move counts checked by hand or by an independent count, legality, regions and one-player maxima.

use amazons_checker::rules::*;
use amazons_format::{Cell, Color, Move, Position};

fn grid(text: &str, to_move: Color) -> Position {
    Position::parse_grid(text, to_move).expect("test grid")
}

fn mv(pos: &Position, text: &str) -> Move {
    Move::parse(pos.board, text).expect("test move")
}

#[test]
fn start_move_counts() {
    // 88 for 4x4 comes from an independent count (a separate script); the others are the
    // published figures for these starts.
    for (name, count) in [("4x4", 88), ("5x6", 410), ("6x4", 256), ("standard", 2176)] {
        let p = Position::start(name).expect("start");
        assert_eq!(legal_moves(&p).len(), count, "{name}");
    }
    let p = Position::start("5x6").expect("start");
    let after = play(&p, mv(&p, "b1-b4xd4"));
    assert_eq!(after.to_move, Color::Black);
    assert_eq!(legal_moves(&after).len(), 157);
}

#[test]
fn tiny_positions_counted_by_hand() {
    // a1 queen, b1 c1 empty: to b1 (arrows a1, c1), to c1 (arrows b1, a1) = 4.
    let p = grid("O..", Color::White);
    let moves: Vec<String> = legal_moves(&p)
        .iter()
        .map(|m| m.notation(p.board))
        .collect();
    assert_eq!(moves, ["a1-b1xa1", "a1-b1xc1", "a1-c1xa1", "a1-c1xb1"]);
    // Black to move has no queen.
    assert!(legal_moves(&grid("O..", Color::Black)).is_empty());
    // 2x2 with a queen in a corner: 3 targets, each with 3 arrow squares (the other two
    // empties and the vacated square) = 9.
    assert_eq!(legal_moves(&grid("..|X.", Color::Black)).len(), 9);
    // A queen blocked by an arrow and a queen has nothing.
    assert!(legal_moves(&grid("#O|X#", Color::White)).is_empty());
}

#[test]
fn moves_are_canonical_and_agree_with_is_legal() {
    let mut positions = vec![
        Position::start("4x4").expect("start"),
        Position::start("5x4").expect("start"),
        grid("X.#.|.O..|#..X|O...", Color::Black),
    ];
    let p = Position::start("5x6").expect("start");
    positions.push(play(&p, mv(&p, "b1-b4xd4")));
    for p in positions {
        let moves = legal_moves(&p);
        assert!(moves.windows(2).all(|w| w[0] < w[1]), "sorted and distinct");
        let n = p.board.len() as u8;
        let mut count = 0;
        for from in 0..n {
            for to in 0..n {
                for arrow in 0..n {
                    let m = Move { from, to, arrow };
                    let legal = is_legal(&p, m);
                    assert_eq!(legal, moves.binary_search(&m).is_ok(), "{m:?}");
                    count += usize::from(legal);
                }
            }
        }
        assert_eq!(count, moves.len());
    }
}

#[test]
fn off_board_squares_are_illegal_not_panics() {
    let p = Position::start("4x4").expect("start");
    for m in [(1, 16, 0), (200, 5, 1), (1, 5, 255)] {
        let m = Move {
            from: m.0,
            to: m.1,
            arrow: m.2,
        };
        assert!(!is_legal(&p, m));
    }
    // Not a queen line (knight jump), and a move onto its own square.
    assert!(!is_legal(&p, mv(&p, "b1-c3xc4")));
    assert!(!is_legal(&p, mv(&p, "b1-b1xb2")));
    // The arrow may land on the vacated square, and pass over it.
    assert!(is_legal(&p, mv(&p, "b1-b2xb1")));
    assert!(is_legal(
        &grid("....|....|....|.O..", Color::White),
        mv(&p, "b1-b2xb1")
    ));
    let q = grid("....|....|....|.O..", Color::White);
    assert!(is_legal(
        &q,
        Move::parse(q.board, "b1-b3xb1").expect("move")
    ));
    assert!(is_legal(
        &q,
        Move::parse(q.board, "b1-b2xb1").expect("move")
    ));
    let r = grid("O.X.", Color::White);
    assert!(!is_legal(
        &r,
        Move::parse(r.board, "a1-d1xc1").expect("move")
    ));
}

#[test]
fn play_moves_queen_and_arrow() {
    let p = grid("O..", Color::White);
    let q = play(&p, mv(&p, "a1-c1xa1"));
    assert_eq!(q.grid(), "#.O");
    assert_eq!(q.to_move, Color::Black);
}

#[test]
fn region_and_components() {
    // Black a1 reaches b1 (White c1 stops the flood); White c1 reaches b1 and d1; the arrow
    // on e1 cuts off f1 g1, another component.
    let p = grid("X.O.#..", Color::White);
    let r = region(&p, Color::Black);
    assert_eq!(r, [true, true, false, false, false, false, false]);
    let r = region(&p, Color::White);
    assert_eq!(r, [false, true, true, true, false, false, false]);
    assert_eq!(partition(&p), vec![vec![0, 1, 2, 3], vec![5, 6]]);
    // Diagonal contact connects.
    let q = grid(".#|#.", Color::White);
    assert_eq!(partition(&q), vec![vec![1, 2]]);
    assert_eq!(restrict(&p, &[5, 6]).grid(), "#####..");
    assert_eq!(restrict(&p, &[5, 6]).cells[6], Cell::Empty);
}

#[test]
fn one_player_maxima_by_hand() {
    // A corridor: one move per empty square.
    assert_eq!(one_player_max(&grid("X...", Color::White), Color::Black), 3);
    assert_eq!(one_player_max(&grid("X...", Color::White), Color::White), 0);
    // Sealed queen: nothing.
    assert_eq!(one_player_max(&grid("X#", Color::White), Color::Black), 0);
    // Defective: queen b2 with empties a1 and c1 only; after going to either corner it must
    // shoot back (the other corner is out of line), so only 1 of the 2 squares is usable.
    let d = grid("#X#|.#.", Color::White);
    assert_eq!(one_player_max(&d, Color::Black), 1);
    // Two queens sharing one square: only one of them gets it.
    assert_eq!(one_player_max(&grid("X.X", Color::White), Color::Black), 1);
    // 2x3 open room with a queen in a corner: all 5 empties can be used.
    assert_eq!(
        one_player_max(&grid("..|..|X.", Color::White), Color::Black),
        5
    );
    // A queen on c1 entering the room a2 b2 a3 b3 through b2 (shooting back onto c1), then
    // using a2 a3 b3: all 4 empties.
    assert_eq!(
        one_player_max(&grid("..#|..#|##X", Color::White), Color::Black),
        4
    );
}

#[test]
fn one_player_max_agrees_with_a_naive_search() {
    // The naive reference: every move of every queen on the whole board, memoized on cells.
    fn naive(
        p: &Position,
        color: Color,
        memo: &mut std::collections::HashMap<Vec<Cell>, u32>,
    ) -> u32 {
        if let Some(&v) = memo.get(&p.cells) {
            return v;
        }
        let best = legal_moves_of(p, color)
            .into_iter()
            .map(|m| {
                let mut q = p.clone();
                q.to_move = color;
                1 + naive(&play(&q, m), color, memo)
            })
            .max()
            .unwrap_or(0);
        memo.insert(p.cells.clone(), best);
        best
    }
    let mut next = crate::xorshift(0x2545_f491_4f6c_dd1d);
    let cells = [
        Cell::Empty,
        Cell::Empty,
        Cell::Empty,
        Cell::Arrow,
        Cell::Black,
        Cell::White,
    ];
    let mut seen_defective = 0;
    for _ in 0..150 {
        let mut p = Position::parse_grid("....|....|....", Color::White).expect("grid");
        for c in p.cells.iter_mut() {
            *c = cells[(next() % cells.len() as u64) as usize];
        }
        let empties = p.cells.iter().filter(|&&c| c == Cell::Empty).count() as u32;
        let fast = one_player_max(&p, Color::Black);
        assert_eq!(
            fast,
            naive(&p, Color::Black, &mut Default::default()),
            "{}",
            p.grid()
        );
        seen_defective += usize::from(fast < empties && p.queens(Color::Black) > 0);
    }
    assert!(seen_defective > 5);
}

#[test]
fn first_move_is_the_first_canonical_move_that_obeys_shoot_back() {
    // Positions along pseudo-random games from several starts, with pseudo-random
    // shoot-back squares: `first_move` must be the first move of the full sorted list that
    // obeys them, for both colours.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut compared = 0;
    for name in ["4x4", "5x4", "4x5", "5x6", "6x4"] {
        let mut p = Position::start(name).expect("start");
        loop {
            for color in [Color::White, Color::Black] {
                let shoot_back: Vec<bool> = (0..p.cells.len()).map(|_| next() % 2 == 0).collect();
                let want = legal_moves_of(&p, color)
                    .into_iter()
                    .find(|m| !shoot_back[m.from as usize] || m.arrow == m.from);
                assert_eq!(first_move(p.board, &p.cells, color, &shoot_back), want);
                compared += 1;
            }
            let moves = legal_moves(&p);
            if moves.is_empty() {
                break;
            }
            p = play(&p, moves[(next() % moves.len() as u64) as usize]);
        }
    }
    assert!(compared > 50, "{compared}");
}
