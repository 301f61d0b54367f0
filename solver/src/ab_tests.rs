//! Tests of the alpha-beta solver: true winners, agreement with df-pn, checked certificates.

use super::*;
use crate::eval::EvalConfig;
use crate::pos::Pos;
use crate::solvers::{solve_with, SolverKind};
use crate::test_support::assert_true_winners;
use amazons_format::Position;

fn options(eval: Option<EvalConfig>) -> Options {
    Options {
        hash_mib: 4,
        eval,
        ..Options::default()
    }
}

/// With and without evaluation, and with spare moves held by either side, ab finds the
/// winner exhaustive search finds, on positions from random games on small boards, also
/// with a table so small that entries are lost.
#[test]
fn ab_finds_the_true_winner() {
    let variants: Vec<Options> = [None, Some(EvalConfig::default())]
        .into_iter()
        .flat_map(|eval| {
            [4, 0].map(|mib| Options {
                hash_mib: mib,
                ..options(eval)
            })
        })
        .collect();
    let checked = assert_true_winners(
        29,
        |game| game % 3 - 1,
        &variants,
        |g, opts, st| AbSearch::new(g, opts).solve(st),
    );
    assert_eq!(checked, 3 * 6 * 4);
}

/// Solves `position` with both searches; both certificates pass the checker and claim
/// the same winner.
fn same_verdict(position: &Position, eval: Option<EvalConfig>) -> Color {
    let mut winners = Vec::new();
    for kind in [SolverKind::Dfpn, SolverKind::Ab] {
        let s = solve_with(position, &options(eval), kind, "test").expect("solved");
        let report = amazons_checker::check(&s.certificate)
            .unwrap_or_else(|e| panic!("{kind} certificate of {}: {e}", position.describe()));
        assert!(
            report.claim.starts_with(&format!("{} wins", s.winner)),
            "{}",
            report.claim
        );
        winners.push(s.winner);
    }
    assert_eq!(winners[0], winners[1], "{}", position.describe());
    winners[0]
}

/// The 4x4 and 5x4 starts: ab and df-pn agree (with and without evaluation), and the
/// certificates ab's table gives check.
#[test]
fn ab_agrees_with_dfpn_on_small_boards() {
    let mut winners = Vec::new();
    for board in ["4x4", "5x4"] {
        let p = Position::start(board).expect("board");
        for eval in [None, Some(EvalConfig::default())] {
            winners.push(same_verdict(&p, eval));
        }
    }
    // Both sides win one of the two boards, so a solver stuck on one answer fails.
    assert!(winners.contains(&Color::White) && winners.contains(&Color::Black));
}

/// Positions of the self-play test set (5x5 and 6x6, the last plies of the first games):
/// ab and df-pn agree and both certificates check.
#[test]
fn ab_agrees_with_dfpn_on_test_set_positions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/selfplay");
    let mut solved = 0;
    let mut winners = std::collections::HashSet::new();
    for (board, games) in [("5x5", 4), ("6x6", 2)] {
        let set =
            crate::testset::load(&dir.join(crate::testset::file_name(board))).expect("test set");
        let start = Position::start(board).expect("board");
        for (_, moves) in set.games.iter().take(games) {
            // Positions 5, 7 and 9 plies before the end (small enough for a test).
            for back in [5, 7, 9] {
                let Some(n) = moves.len().checked_sub(back) else {
                    continue;
                };
                let mut p = Pos::from_position(&start);
                for &m in &moves[..n] {
                    p = p.play(m);
                }
                let g = Geometry::new(start.board);
                winners.insert(same_verdict(
                    &p.to_position(&g),
                    Some(EvalConfig::default()),
                ));
                solved += 1;
            }
        }
    }
    assert!(solved >= 15, "{solved} positions");
    assert_eq!(winners.len(), 2, "both sides win some positions");
}
