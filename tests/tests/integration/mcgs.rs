//! MCGS/CGSuite outcomes of 3x3 and 3x4 positions: the solver agrees, and every certificate checks (also after a file round trip).

use crate::common::{foundation_options, mcgs_positions, small_options, sum_options};
use amazons_format::{decode, encode, Color, Position};

#[test]
fn mcgs_files_hold_113_positions() {
    let positions = mcgs_positions();
    let by_file = |name: &str| positions.iter().filter(|p| p.0 == name).count();
    assert_eq!(by_file("amazons_3x3.test"), 55);
    assert_eq!(by_file("amazons_3x4.test"), 58);
    assert_eq!(positions.len(), 113);
}

#[test]
fn solver_matches_mcgs_outcomes_and_certificates_check() {
    let positions = mcgs_positions();
    assert_eq!(positions.len(), 113, "MCGS position count");
    let mut failures = Vec::new();
    // Both the foundation solver and the full static evaluation must agree with CGSuite.
    for (config, opts) in [
        ("foundation", foundation_options()),
        ("evaluation", small_options()),
        ("evaluation, sum numbers", sum_options()),
    ] {
        for (file, grid, black_wins_moving, white_wins_moving) in &positions {
            for (to_move, mover_wins) in [
                (Color::Black, *black_wins_moving),
                (Color::White, *white_wins_moving),
            ] {
                let position = Position::parse_grid(grid, to_move)
                    .unwrap_or_else(|e| panic!("{file}: bad grid {grid:?}: {e}"));
                let expected = if mover_wins {
                    to_move
                } else {
                    to_move.opponent()
                };
                let solved = amazons_solver::solve(&position, &opts, "amazons-tests")
                    .unwrap_or_else(|e| panic!("{config}: {grid} {to_move}: {e}"));
                let cert = &solved.certificate;
                if solved.winner != expected {
                    failures.push(format!(
                    "{config}: {file} {grid} {to_move} to move: solver says {} wins, MCGS says {expected}",
                    solved.winner
                ));
                    continue;
                }
                assert_eq!(cert.root.position, position);
                assert_eq!(cert.root.winner, expected);
                assert_eq!(cert.root.spare, 0);
                if let Err(e) = amazons_checker::check(cert) {
                    failures.push(format!("{file} {grid} {to_move} to move: rejected:\n{e}"));
                    continue;
                }
                let bytes = encode(cert).expect("encode");
                let back = decode(&bytes).expect("decode what was just encoded");
                assert_eq!(
                    &back, cert,
                    "{grid}: file round trip changed the certificate"
                );
                if let Err(e) = amazons_checker::check_bytes(&bytes) {
                    failures.push(format!(
                        "{file} {grid} {to_move} to move: file rejected: {e}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
