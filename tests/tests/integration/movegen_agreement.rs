//! Property tests: the solver's bitboard move generator and the checker's plain rules agree exactly, and notation round-trips.

use crate::common::{random_position, solver_moves, Rng};
use amazons_checker::rules;
use amazons_format::{Board, Cell, Color, Move, Position};
use amazons_solver::{Geometry, OpponentLiberties, Pos};
use quickcheck::{Arbitrary, Gen, QuickCheck, TestResult};
use std::fmt;

/// A random reachable-looking position (see [`random_position`]) and a seed for the random
/// moves tried against it.
#[derive(Clone)]
struct Sample {
    position: Position,
    seed: u64,
}

impl fmt::Debug for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:?} ({} to move), seed {}",
            self.position.board,
            self.position.grid(),
            self.position.to_move,
            self.seed
        )
    }
}

impl Arbitrary for Sample {
    fn arbitrary(g: &mut Gen) -> Sample {
        let seed = u64::arbitrary(g);
        let mut rng = Rng(seed);
        Sample {
            position: random_position(&mut rng, 10, 30),
            seed,
        }
    }
}

/// Runs `property` on `tests` samples drawn from `seed`.
fn check(tests: u64, seed: u64, property: fn(Sample) -> TestResult) {
    QuickCheck::new()
        .tests(tests)
        .max_tests(tests * 2)
        .rng(Gen::from_size_and_seed(100, seed))
        .quickcheck(property);
}

/// One `#[test]` per property: `name: property, samples, seed;`, each run by [`check`].
macro_rules! property_tests {
    ($($name:ident: $property:ident, $tests:expr, $seed:expr;)*) => {
        $(
            #[test]
            fn $name() {
                check($tests, $seed, $property);
            }
        )*
    };
}

property_tests! {
    solver_and_checker_generate_the_same_moves_in_the_same_order: same_moves, 5000, 11;
    incremental_liberties_match_a_plain_count: liberties_agree, 2000, 14;
    solver_and_checker_agree_on_legality_of_random_moves: legality_agrees, 3000, 12;
    notation_round_trips_on_random_positions: notation_round_trips, 2000, 13;
}

fn same_moves(s: Sample) -> TestResult {
    let p = &s.position;
    let solver = solver_moves(p);
    let checker = rules::legal_moves(p);
    if solver != checker {
        return TestResult::error(format!(
            "move lists differ: solver {} moves, checker {}; only solver: {:?}; only checker: {:?}",
            solver.len(),
            checker.len(),
            solver
                .iter()
                .filter(|m| !checker.contains(m))
                .map(|m| m.notation(p.board))
                .collect::<Vec<_>>(),
            checker
                .iter()
                .filter(|m| !solver.contains(m))
                .map(|m| m.notation(p.board))
                .collect::<Vec<_>>()
        ));
    }
    if !checker.windows(2).all(|w| w[0] < w[1]) {
        return TestResult::error("checker moves not in strictly ascending canonical order");
    }
    let g = Geometry::new(p.board);
    let pos = Pos::from_position(p);
    if pos.count_moves(&g) != checker.len() as u64 {
        return TestResult::error("solver count_moves differs from the checker's list");
    }
    // The other side's moves too (the outlast rule and the checker use legal_moves_of).
    let mut flipped = p.clone();
    flipped.to_move = p.to_move.opponent();
    if solver_moves(&flipped) != rules::legal_moves_of(p, flipped.to_move) {
        return TestResult::error("move lists of the side not to move differ");
    }
    // Playing each move gives the same position in both engines.
    for &m in &checker {
        let a = pos.play(m).to_position(&g);
        let b = rules::play(p, m);
        if a != b {
            return TestResult::error(format!(
                "play {} differs: solver {} checker {}",
                m.notation(p.board),
                a.grid(),
                b.grid()
            ));
        }
    }
    TestResult::passed()
}

/// Empty cells 8-adjacent to a queen of `color`, counted cell by cell on the checker's
/// position (no bitboards).
fn plain_liberties(p: &Position, color: Color) -> u32 {
    let (w, h) = (p.board.width as i64, p.board.height as i64);
    let cell = |x: i64, y: i64| p.cells[p.board.square(x as usize, y as usize) as usize];
    let mut n = 0;
    for y in 0..h {
        for x in 0..w {
            if cell(x, y) != Cell::Empty {
                continue;
            }
            let near_queen = (-1..=1).any(|dy| {
                (-1..=1).any(|dx| {
                    let (nx, ny) = (x + dx, y + dy);
                    (dx, dy) != (0, 0)
                        && (0..w).contains(&nx)
                        && (0..h).contains(&ny)
                        && cell(nx, ny) == Cell::queen(color)
                })
            });
            n += u32::from(near_queen);
        }
    }
    n
}

/// The search's move-ordering key, the opponent's liberties after a move, is computed
/// incrementally; it must equal a plain count on the position after the move.
fn liberties_agree(s: Sample) -> TestResult {
    let p = &s.position;
    let g = Geometry::new(p.board);
    let pos = Pos::from_position(p);
    let opp = p.to_move.opponent();
    if pos.liberties(&g, opp) != plain_liberties(p, opp) {
        return TestResult::error("liberties differ from the plain count");
    }
    let libs = OpponentLiberties::new(&g, &pos);
    for m in rules::legal_moves(p) {
        let (fast, plain) = (libs.after(m), plain_liberties(&rules::play(p, m), opp));
        if fast != plain {
            return TestResult::error(format!(
                "after {}: incremental {fast}, plain {plain}",
                m.notation(p.board)
            ));
        }
    }
    TestResult::passed()
}

fn legality_agrees(s: Sample) -> TestResult {
    let p = &s.position;
    let g = Geometry::new(p.board);
    let pos = Pos::from_position(p);
    let legal = rules::legal_moves(p);
    let mut rng = Rng(s.seed ^ 0xabcd);
    let n = p.board.len();
    let mut candidates: Vec<Move> = legal.clone();
    for _ in 0..300 {
        // Mostly on-board squares, sometimes off the board (square indices up to 127).
        let sq = |rng: &mut Rng| {
            if rng.chance(3) {
                rng.below(128) as u8
            } else {
                rng.below(n) as u8
            }
        };
        candidates.push(Move {
            from: sq(&mut rng),
            to: sq(&mut rng),
            arrow: sq(&mut rng),
        });
    }
    // Near misses: a legal move with one square changed.
    for &m in legal.iter().take(50) {
        let other = rng.below(n) as u8;
        candidates.push(match rng.below(3) {
            0 => Move { from: other, ..m },
            1 => Move { to: other, ..m },
            _ => Move { arrow: other, ..m },
        });
    }
    let mut legal_seen = 0;
    for m in candidates {
        let expected = legal.contains(&m);
        let (s_ok, c_ok) = (pos.is_legal(&g, m), rules::is_legal(p, m));
        if s_ok != expected || c_ok != expected {
            return TestResult::error(format!(
                "is_legal({}-{}x{} as squares) solver {s_ok} checker {c_ok}, in move list {expected}",
                m.from, m.to, m.arrow
            ));
        }
        legal_seen += usize::from(expected);
    }
    if legal_seen < legal.len() {
        return TestResult::error("a legal move was not accepted");
    }
    TestResult::passed()
}

fn notation_round_trips(s: Sample) -> TestResult {
    let p = &s.position;
    let board = p.board;
    if Board::parse(&board.to_string()).ok() != Some(board) {
        return TestResult::error(format!("board name {board} does not round-trip"));
    }
    let grid = p.grid();
    match Position::parse_grid(&grid, p.to_move) {
        Ok(q) if &q == p => {}
        other => return TestResult::error(format!("grid {grid:?} parses to {other:?}")),
    }
    if Color::parse(p.to_move.name()).ok() != Some(p.to_move) {
        return TestResult::error("colour name does not round-trip");
    }
    for m in rules::legal_moves(p) {
        let text = m.notation(board);
        if Move::parse(board, &text).ok() != Some(m) {
            return TestResult::error(format!("move {text} does not round-trip"));
        }
        if Move::parse(board, &text.to_ascii_uppercase()).ok() != Some(m) {
            return TestResult::error(format!("move {text} in capitals does not parse"));
        }
    }
    for sq in 0..board.len() as u8 {
        if board.parse_square(&board.square_name(sq)).ok() != Some(sq) {
            return TestResult::error(format!("square {sq} does not round-trip"));
        }
    }
    // The solver's conversion round-trips as well.
    let g = Geometry::new(board);
    if &Pos::from_position(p).to_position(&g) != p {
        return TestResult::error("Pos::from_position / to_position does not round-trip");
    }
    TestResult::passed()
}

#[test]
fn off_board_squares_never_parse() {
    for (w, h) in [(2, 2), (5, 4), (10, 10), (3, 9)] {
        let board = Board::new(w, h).expect("valid board");
        let file = (b'a' + w as u8) as char;
        assert!(board.parse_square(&format!("{file}1")).is_err());
        assert!(board.parse_square(&format!("a{}", h + 1)).is_err());
        assert!(board.parse_square("a0").is_err());
        assert!(Move::parse(board, &format!("a1-a1x{file}1")).is_err());
    }
}
