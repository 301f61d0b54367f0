//! Perft: the solver's counts against ground truth in `data/perft.txt`, and against a plain perft on the checker's rules.

use crate::common::{data_dir, random_position, Rng};
use amazons_checker::rules;
use amazons_format::{Move, Position};
use amazons_solver::{perft, Geometry, Pos};

/// One line of `data/perft.txt`.
#[derive(Debug)]
struct Case {
    line: usize,
    board: String,
    moves: Vec<String>,
    depth: u32,
    count: u64,
}

impl Case {
    /// The position after the case's moves, played with the checker's rules (each checked
    /// legal there).
    fn position(&self) -> Position {
        let mut p = Position::start(&self.board)
            .unwrap_or_else(|e| panic!("perft.txt:{}: bad board: {e}", self.line));
        for text in &self.moves {
            let m = Move::parse(p.board, text)
                .unwrap_or_else(|e| panic!("perft.txt:{}: {e}", self.line));
            assert!(
                rules::is_legal(&p, m),
                "perft.txt:{}: illegal move {text}",
                self.line
            );
            p = rules::play(&p, m);
        }
        p
    }
}

fn cases() -> Vec<Case> {
    let path = data_dir().join("perft.txt");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let [board, moves, depth, count] = fields.as_slice() else {
            panic!("perft.txt:{}: expected 4 fields: {line:?}", i + 1);
        };
        out.push(Case {
            line: i + 1,
            board: board.to_string(),
            moves: if *moves == "-" {
                Vec::new()
            } else {
                moves.split_whitespace().map(str::to_string).collect()
            },
            depth: depth.parse().expect("depth is a number"),
            count: count.parse().expect("count is a number"),
        });
    }
    out
}

/// A plain recursive perft on the checker's rules (arrays and ray walks).
fn checker_perft(p: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => rules::legal_moves(p).len() as u64,
        _ => rules::legal_moves(p)
            .into_iter()
            .map(|m| checker_perft(&rules::play(p, m), depth - 1))
            .sum(),
    }
}

fn solver_perft(p: &Position, depth: u32) -> u64 {
    let g = Geometry::new(p.board);
    perft(&g, &Pos::from_position(p), depth)
}

#[test]
fn perft_file_has_the_ground_truth_cases() {
    let cases = cases();
    assert!(cases.len() >= 6, "perft.txt lost cases: {}", cases.len());
    for must in [
        ("5x6", 0, 1),
        ("5x6", 1, 1),
        ("6x4", 0, 1),
        ("standard", 0, 1),
        ("standard", 0, 2),
        ("5x6", 0, 3),
    ] {
        assert!(
            cases
                .iter()
                .any(|c| (c.board.as_str(), c.moves.len(), c.depth) == must),
            "perft.txt lacks {must:?}"
        );
    }
}

/// Asserts that `perft` gives every count of perft.txt.
fn assert_ground_truth(perft: fn(&Position, u32) -> u64) {
    for case in cases() {
        let p = case.position();
        assert_eq!(
            perft(&p, case.depth),
            case.count,
            "perft.txt:{}: {case:?}",
            case.line
        );
    }
}

#[test]
fn solver_perft_matches_ground_truth() {
    assert_ground_truth(solver_perft);
}

#[test]
fn checker_perft_matches_ground_truth() {
    assert_ground_truth(checker_perft);
}

#[test]
fn solver_and_checker_perft_agree_on_small_starts() {
    for (board, max_depth) in [("4x4", 3), ("5x4", 2), ("4x5", 2)] {
        let p = Position::start(board).expect("small start");
        for depth in 1..=max_depth {
            let (s, c) = (solver_perft(&p, depth), checker_perft(&p, depth));
            assert_eq!(s, c, "{board} depth {depth}");
            assert!(s > 0);
        }
    }
    // Black to move from the same starts (not a reachable start, still a position).
    let mut p = Position::start("4x4").expect("4x4 start");
    p.to_move = amazons_format::Color::Black;
    assert_eq!(solver_perft(&p, 2), checker_perft(&p, 2));
}

#[test]
fn solver_and_checker_perft_agree_on_random_positions() {
    let mut rng = Rng(0x5eed_0001);
    for i in 0..40 {
        let p = random_position(&mut rng, 6, 6);
        let depth = if p.board.len() <= 16 { 3 } else { 2 };
        assert_eq!(
            solver_perft(&p, depth),
            checker_perft(&p, depth),
            "case {i}: {} {} to move, depth {depth}",
            p.grid(),
            p.to_move
        );
    }
}
