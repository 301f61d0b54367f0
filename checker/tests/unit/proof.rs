//! Proof-rule tests: each rule accepts a hand-built correct use and rejects a wrong one with the right failure.

use amazons_checker::proof::{
    after, check, check_bytes, CheckError, CheckFileError, Failure, Proven, Report,
};
use amazons_checker::rules;
use amazons_format::{
    encode, Action, Board, Cell, Certificate, Claim, Color, LocalClaim, Meta, Move, Position, Step,
    Symmetry,
};

const W: Color = Color::White;
const B: Color = Color::Black;

fn claim(grid: &str, to_move: Color, spare: i32, winner: Color) -> Claim {
    Claim {
        position: Position::parse_grid(grid, to_move).expect("test grid"),
        spare,
        winner,
    }
}

fn cert(root: &Claim, steps: Vec<Step>) -> Certificate {
    Certificate {
        root: root.clone(),
        steps,
        meta: Meta::default(),
    }
}

fn mv(root: &Claim, text: &str) -> Move {
    Move::parse(root.position.board, text).expect("test move")
}

fn choice(root: &Claim, text: &str) -> Step {
    Step::Choice(Action::Board(mv(root, text)))
}

fn outlast(root: &Claim, moves: &[&str]) -> Step {
    Step::Outlast {
        moves: moves.iter().map(|m| mv(root, m)).collect(),
    }
}

fn sum(parts: &[(i32, bool)]) -> Step {
    Step::Sum {
        parts: parts
            .iter()
            .map(|&(bound, strict)| LocalClaim { bound, strict })
            .collect(),
    }
}

fn ok(root: &Claim, steps: Vec<Step>) -> Report {
    match check(&cert(root, steps)) {
        Ok(report) => report,
        Err(e) => panic!("rejected:\n{e}"),
    }
}

fn err(root: &Claim, steps: Vec<Step>) -> CheckError {
    match check(&cert(root, steps)) {
        Ok(_) => panic!("accepted a wrong certificate"),
        Err(e) => e,
    }
}

fn failure(root: &Claim, steps: Vec<Step>) -> Failure {
    err(root, steps).failure
}

// ---- 5.1 Choice ----

#[test]
fn choice_accepted() {
    // White a1 moves; Black e1 is walled in by the arrow on d1.
    let root = claim("O..#X", W, 0, W);
    let report = ok(&root, vec![choice(&root, "a1-b1xa1"), Step::NoMove]);
    assert_eq!(report.steps, 2);
    assert_eq!(report.proven_claims, 2);
    assert_eq!(report.claim, "White wins 5x1 O..#X, White to move");
    // Taking a spare move is a choice too when White holds one.
    let with_spare = claim("O..#X", W, -1, W);
    ok(&with_spare, vec![Step::Choice(Action::Spare), Step::NoMove]);
}

#[test]
fn choice_of_an_illegal_action_is_rejected() {
    let root = claim("O..#X", W, 0, W);
    let f = failure(&root, vec![choice(&root, "a1-d1xc1"), Step::NoMove]);
    assert!(matches!(f, Failure::IllegalAction { .. }), "{f:?}");
    // A spare move White does not hold (Black holds it).
    let f = failure(&claim("O..#X", W, 1, W), vec![Step::Choice(Action::Spare)]);
    assert!(matches!(f, Failure::IllegalAction { .. }), "{f:?}");
    // Squares off the board: rejected, no panic.
    for (from, to, arrow) in [(0, 5, 0), (0, 1, 200), (255, 255, 255)] {
        let step = Step::Choice(Action::Board(Move { from, to, arrow }));
        let f = failure(&root, vec![step, Step::NoMove]);
        assert!(matches!(f, Failure::IllegalAction { .. }), "{f:?}");
    }
}

#[test]
fn choice_when_the_loser_is_to_move_is_rejected() {
    let root = claim("O..#X", B, 0, W);
    let f = failure(&root, vec![choice(&root, "a1-b1xa1"), Step::NoMove]);
    assert_eq!(f, Failure::ChoiceWrongSide { to_move: B });
}

// ---- 5.2 Reply-all ----

#[test]
fn reply_all_accepted_and_children_counted_exactly() {
    // Black's only move is a1-b1xa1; then White d1-e1xd1 walls Black in.
    let root = claim("X.#O.", B, 0, W);
    let proof = vec![Step::ReplyAll, choice(&root, "d1-e1xd1"), Step::NoMove];
    ok(&root, proof.clone());
    // A missing child: the steps run out, at the position after Black's reply.
    let e = err(&root, proof[..1].to_vec());
    assert_eq!(e.failure, Failure::OutOfSteps);
    assert_eq!(e.path, ["a1-b1xa1"]);
    assert_eq!(e.position.grid(), "#X#O.");
    // An extra step after the proof.
    let mut extra = proof.clone();
    extra.push(Step::NoMove);
    let e = err(&root, extra);
    assert_eq!(e.failure, Failure::TrailingSteps { count: 1 });
    assert_eq!(e.step, 3);
}

#[test]
fn reply_all_over_a_searched_tree_with_many_children() {
    // A small exhaustive search (test-only) writes a Choice/ReplyAll/NoMove proof.
    fn solve(c: &Claim) -> Option<Vec<Step>> {
        let mut actions: Vec<Action> = rules::legal_moves(&c.position)
            .into_iter()
            .map(Action::Board)
            .collect();
        if c.spares_of(c.position.to_move) > 0 {
            actions.push(Action::Spare);
        }
        if c.position.to_move == c.winner {
            actions.into_iter().find_map(|a| {
                let mut steps = vec![Step::Choice(a)];
                steps.extend(solve(&after(c, a))?);
                Some(steps)
            })
        } else if actions.is_empty() {
            Some(vec![Step::NoMove])
        } else {
            let mut steps = vec![Step::ReplyAll];
            for a in actions {
                steps.extend(solve(&after(c, a))?);
            }
            Some(steps)
        }
    }
    let (mut checked, mut replies) = (0, 0);
    for (grid, to_move, spare) in [("X..|..O", W, 0), ("X..|#.O", B, 0), ("X.#|..O", W, 1)] {
        for winner in [W, B] {
            let root = claim(grid, to_move, spare, winner);
            let Some(steps) = solve(&root) else { continue };
            replies += steps.iter().filter(|s| **s == Step::ReplyAll).count();
            let report = ok(&root, steps.clone());
            assert_eq!(report.steps, steps.len());
            // Dropping the last step, or the proof of the last child, is caught.
            let f = failure(&root, steps[..steps.len() - 1].to_vec());
            assert_eq!(f, Failure::OutOfSteps);
            checked += 1;
        }
    }
    assert_eq!(checked, 3, "each test position has a winner");
    assert!(replies > 3, "the proofs branch");
}

#[test]
fn reply_all_without_a_loser_action_is_rejected() {
    let root = claim("X#O.", B, 0, W);
    assert_eq!(
        failure(&root, vec![Step::ReplyAll]),
        Failure::ReplyAllNoAction
    );
    // ReplyAll is for the loser's turn only.
    let root = claim("X.#O.", W, 0, W);
    let f = failure(&root, vec![Step::ReplyAll]);
    assert_eq!(
        f,
        Failure::NotLoserToMove {
            step: "ReplyAll",
            to_move: W
        }
    );
}

// ---- 5.3 No move ----

#[test]
fn no_move_accepted_only_without_any_loser_action() {
    ok(&claim("X#O.", B, 0, W), vec![Step::NoMove]);
    // White holding spares does not matter when Black is stuck.
    ok(&claim("X#O.", B, -3, W), vec![Step::NoMove]);
    let f = failure(&claim("X.#O.", B, 0, W), vec![Step::NoMove]);
    assert_eq!(
        f,
        Failure::NoMoveHasAction {
            action: "a1-b1xa1".into()
        }
    );
    // A spare move is an action.
    let f = failure(&claim("X#O.", B, 1, W), vec![Step::NoMove]);
    assert_eq!(
        f,
        Failure::NoMoveHasAction {
            action: "spare".into()
        }
    );
}

// ---- 5.4 Outlast ----

#[test]
fn outlast_blocker_must_shoot_back() {
    // Black a1 reaches b1 (M = 1); White c1 touches b1, so it is a blocker.
    let root = claim("X.O...", B, 0, W);
    ok(&root, vec![outlast(&root, &["c1-d1xc1"])]);
    let f = failure(&root, vec![outlast(&root, &["c1-d1xe1"])]);
    assert!(
        matches!(f, Failure::BlockerNoShootBack { index: 0, .. }),
        "{f:?}"
    );
    // After shooting back, the queen is an ordinary queen.
    let white = claim("X.O...", W, 0, W);
    ok(&white, vec![outlast(&white, &["c1-d1xc1", "d1-e1xf1"])]);
    // Moving into R (blocked) is illegal, and so is a square off the board.
    let f = failure(&root, vec![outlast(&root, &["c1-b1xc1"])]);
    assert!(matches!(f, Failure::OutlastIllegalMove { index: 0, .. }));
    let wild = Move {
        from: 2,
        to: 3,
        arrow: 250,
    };
    let steps = vec![Step::Outlast {
        moves: vec![mv(&root, "c1-d1xc1"), wild],
    }];
    let f = failure(&root, steps);
    assert!(matches!(f, Failure::OutlastIllegalMove { index: 1, .. }));
}

#[test]
fn outlast_inequality_is_exact_for_both_sides_to_move() {
    // Black: 2 moves (M = 2). White: 3 moves on `three`, 2 on `two`, 1 on `one`, so
    // the completion runs out exactly there.
    let three = ["e1-f1xe1", "f1-g1xf1", "g1-h1xg1"];
    let (three_squares, two, one) = ("X..#O...", "X..#O..#", "X..#O.##");
    let white = claim(three_squares, W, 0, W);
    ok(&white, vec![outlast(&white, &three)]);
    let white = claim(two, W, 0, W);
    let f = failure(&white, vec![outlast(&white, &three[..2])]);
    let expect = Failure::OutlastShort {
        k: 2,
        listed: 2,
        x: 0,
        m: 2,
        y: 0,
        winner_to_move: true,
    };
    assert_eq!(f, expect);
    assert!(
        f.to_string().contains("2 + 0 < M + y + 1 = 2 + 0 + 1"),
        "{f}"
    );
    let black = claim(two, B, 0, W);
    ok(&black, vec![outlast(&black, &three[..2])]);
    let black = claim(one, B, 0, W);
    let f = failure(&black, vec![outlast(&black, &three[..1])]);
    assert!(matches!(
        f,
        Failure::OutlastShort {
            k: 1,
            m: 2,
            winner_to_move: false,
            ..
        }
    ));
    // Spare moves count: Black's spare needs one more White move, White's spare one fewer.
    let black_spare = claim(three_squares, B, 1, W);
    ok(&black_spare, vec![outlast(&black_spare, &three)]);
    let black_spare = claim(two, B, 1, W);
    let f = failure(&black_spare, vec![outlast(&black_spare, &three[..2])]);
    assert!(matches!(f, Failure::OutlastShort { y: 1, .. }), "{f:?}");
    let white_spare = claim(one, B, -1, W);
    ok(&white_spare, vec![outlast(&white_spare, &three[..1])]);
}

#[test]
fn outlast_completion_plays_the_first_legal_moves() {
    // An empty list: the checker plays e1-f1xe1, f1-g1xf1, g1-h1xg1 itself.
    let white = claim("X..#O...", W, 0, W);
    ok(&white, vec![outlast(&white, &[])]);
    let mut exact = rules::OnePlayer::new(white.position.board);
    let line = amazons_checker::outlast_line(&white, &[], &mut exact).expect("accepted");
    let want: Vec<Move> = ["e1-f1xe1", "f1-g1xf1", "g1-h1xg1"]
        .iter()
        .map(|m| mv(&white, m))
        .collect();
    assert_eq!(line, want);
    // A listed prefix is kept and completed from where it ends.
    let line = amazons_checker::outlast_line(&white, &want[..1], &mut exact).expect("accepted");
    assert_eq!(line, want);
    // Completion that runs out is rejected, naming the listed and completed counts.
    let white = claim("X..#O..#", W, 0, W);
    let f = failure(&white, vec![outlast(&white, &[])]);
    assert_eq!(
        f,
        Failure::OutlastShort {
            k: 2,
            listed: 0,
            x: 0,
            m: 2,
            y: 0,
            winner_to_move: true
        }
    );
    assert!(f.to_string().contains("0 listed moves, 2 completed"), "{f}");
    // A blocker's completed move shoots back: Black a2 reaches b2, White c2 touches b2. Its
    // first legal move is c2-d1xe1, which would open the wall, so the completion plays
    // c2-d1xc2, the first one that shoots back.
    let root = claim("X.O...|###...", W, 0, W);
    let first = rules::legal_moves_of(&root.position, W).first().copied();
    assert_eq!(first, Some(mv(&root, "c2-d1xe1")));
    let mut exact = rules::OnePlayer::new(root.position.board);
    let line = amazons_checker::outlast_line(&root, &[], &mut exact).expect("accepted");
    assert_eq!(line.first(), Some(&mv(&root, "c2-d1xc2")));
    let root = claim("X.O...", W, 0, W);
    // Completion never excuses a listed move: an illegal one is still rejected.
    let f = failure(&root, vec![outlast(&root, &["c1-b1xc1"])]);
    assert!(matches!(f, Failure::OutlastIllegalMove { index: 0, .. }));
}

#[test]
fn outlast_uses_the_exact_one_player_maximum() {
    // Black b2 with empties a1 and c1: going to either corner forces the arrow back onto
    // b2 (the other corner is out of line), so Black has 1 move, not 2. White e2 has 2 moves
    // on the first board, 1 on the second.
    let root = claim("#X##O.|.#.#..", W, 0, W);
    ok(&root, vec![outlast(&root, &["e2-f2xe2", "f2-f1xf2"])]);
    ok(&root, vec![outlast(&root, &[])]);
    let root = claim("#X##O.|.#.###", W, 0, W);
    let f = failure(&root, vec![outlast(&root, &["e2-f2xe2"])]);
    assert!(
        matches!(f, Failure::OutlastShort { k: 1, m: 1, .. }),
        "{f:?}"
    );
    // Large regions count one move per empty square: 13 empties > 12.
    let big = claim("X....|.....|....#|#####|O....", B, 0, W);
    let f = failure(&big, vec![outlast(&big, &["a1-b1xa1", "b1-c1xb1"])]);
    assert!(matches!(f, Failure::OutlastShort { m: 13, .. }), "{f:?}");
}

// ---- 5.5 Sum ----

/// 5x3: Black a3 with b3 (worth 1 move to Black), White a1 with b1 c1 (2 moves to White),
/// a dead White queen on e3, arrows elsewhere. Components: {a1 b1 c1}, {a3 b3}, {e3} (dead).
const TWO_AREAS: &str = "X.##O|#####|O..##";

/// A Sum step over [`TWO_AREAS`] with `parts`, then the first child of each part.
fn two_area_sum(root: &Claim, parts: &[(i32, bool)]) -> Vec<Step> {
    vec![
        sum(parts),
        // "White wins a1 b1 c1 with Black to move holding 2 spares": Black spares, White
        // moves.
        Step::ReplyAll,
        choice(root, "a1-b1xa1"),
        Step::ReplyAll,
        choice(root, "b1-c1xb1"),
        Step::NoMove,
        // "White wins a3 b3 with Black to move, White holding spares": Black moves, White
        // spares.
        Step::ReplyAll,
        Step::Choice(Action::Spare),
        Step::NoMove,
    ]
}

#[test]
fn sum_over_two_components_with_spares_accepted() {
    for to_move in [W, B] {
        let root = claim(TWO_AREAS, to_move, 0, W);
        let steps = two_area_sum(&root, &[(2, false), (-1, false)]);
        let report = ok(&root, steps);
        assert_eq!(report.steps, 9);
        assert_eq!(report.proven_claims, 9);
    }
}

#[test]
fn sum_with_the_wrong_part_count_is_rejected() {
    let root = claim(TWO_AREAS, W, 0, W);
    let f = failure(&root, vec![sum(&[(2, false)])]);
    assert_eq!(
        f,
        Failure::SumPartCount {
            expected: 2,
            got: 1
        }
    );
    let f = failure(&root, vec![sum(&[(1, false), (1, false), (0, false)])]);
    assert!(matches!(f, Failure::SumPartCount { got: 3, .. }));
}

#[test]
fn sum_that_does_not_add_up_is_rejected() {
    // s = 2 - 2 = 0 with the winner to move and no strict part.
    let root = claim(TWO_AREAS, W, 0, W);
    let f = failure(&root, vec![sum(&[(2, false), (-2, false)])]);
    assert_eq!(f, Failure::SumShort { s: 0 });
    // s = 0 is enough with the loser to move.
    let black = claim(TWO_AREAS, B, 0, W);
    let steps = two_area_sum(&black, &[(2, false), (-2, false)]);
    ok(&black, steps);
    // Spares in the claim enter s: White holding one more spare lifts s to 1.
    let spare = claim(TWO_AREAS, W, -1, W);
    let steps = two_area_sum(&spare, &[(2, false), (-2, false)]);
    ok(&spare, steps);
    // Bounds beyond MAX_SPARE.
    let f = failure(&root, vec![sum(&[(101, false), (-1, false)])]);
    assert_eq!(
        f,
        Failure::BoundOutOfRange {
            part: 1,
            bound: 101
        }
    );
}

#[test]
fn sum_with_a_strict_part_needs_the_extra_child() {
    // s = 0 with White to move: accepted because part 2 claims a3 b3 > -2 strictly.
    let root = claim(TWO_AREAS, W, 0, W);
    let steps = two_area_sum(&root, &[(2, false), (-2, true)]);
    let strict_child = vec![
        Step::Choice(Action::Spare),
        Step::ReplyAll,
        Step::Choice(Action::Spare),
        Step::NoMove,
    ];
    let mut full = steps.clone();
    full.extend(strict_child);
    ok(&root, full);
    let e = err(&root, steps);
    assert_eq!(e.failure, Failure::OutOfSteps);
    assert_eq!(e.path, ["[part 2 strict, bound -2]"]);
    assert_eq!(e.position.to_move, W);
    assert_eq!(e.spare, -2);
}

#[test]
fn sum_children_are_checked_with_their_own_claims() {
    // Claiming a1 b1 c1 is worth 3 to White: the local proof cannot finish.
    let root = claim(TWO_AREAS, W, 0, W);
    let steps = two_area_sum(&root, &[(3, false), (-1, false)]);
    let e = err(&root, steps);
    assert_eq!(e.path[0], "[part 1, bound 3]");
    assert_eq!(e.position.grid(), "#####|#####|##O##");
    assert_eq!(e.path.len(), 5);
}

// ---- 5.6 Transposition ----

#[test]
fn transposition_of_a_proven_claim_accepted_also_by_symmetry() {
    // Two mirror-image areas: part 2's local claim is part 1's mirrored by FlipFiles.
    let root = claim("#####|#####|O.#.O", B, 0, W);
    let part1 = [Step::ReplyAll, choice(&root, "a1-b1xa1"), Step::NoMove];
    let with = |symmetry| {
        let mut steps = vec![sum(&[(1, false), (1, false)])];
        steps.extend(part1.iter().cloned());
        steps.push(Step::Transposition { symmetry });
        steps
    };
    ok(&root, with(Symmetry::FlipFiles));
    let f = failure(&root, with(Symmetry::FlipRanks));
    assert_eq!(
        f,
        Failure::TranspositionNotProven {
            symmetry: Symmetry::FlipRanks
        }
    );
    let f = failure(&root, with(Symmetry::Transpose));
    assert!(matches!(f, Failure::SymmetryDoesNotFit { .. }), "{f:?}");
    // Identity: Black's move-then-spare and spare-then-move reach the same claim.
    let root = claim("X.#O...", B, 1, W);
    let steps = vec![
        Step::ReplyAll,
        choice(&root, "d1-e1xd1"),
        Step::ReplyAll,
        choice(&root, "e1-f1xe1"),
        Step::NoMove,
        choice(&root, "d1-e1xd1"),
        Step::ReplyAll,
        Step::Transposition {
            symmetry: Symmetry::Identity,
        },
    ];
    ok(&root, steps);
}

#[test]
fn transposition_of_an_unproven_claim_is_rejected() {
    // Citing itself.
    let root = claim("O..X", B, 0, W);
    let own = Step::Transposition {
        symmetry: Symmetry::Identity,
    };
    let f = failure(&root, vec![own.clone()]);
    assert!(matches!(f, Failure::TranspositionNotProven { .. }));
    // Citing an ancestor still being proven: one live component and bound 0 give a child
    // claim equal to the root.
    let e = err(&root, vec![sum(&[(0, false)]), own]);
    assert!(matches!(e.failure, Failure::TranspositionNotProven { .. }));
    assert_eq!(e.path, ["[part 1, bound 0]"]);
}

/// A random claim on `board` (spare within the checked range).
fn random_claim(board: Board, next: &mut impl FnMut() -> u64) -> Claim {
    let cells = [Cell::Empty, Cell::White, Cell::Black, Cell::Arrow];
    let color = |bit: u64| if bit == 0 { W } else { B };
    Claim {
        position: Position {
            board,
            cells: (0..board.len())
                .map(|_| cells[next() as usize % 4])
                .collect(),
            to_move: color(next() % 2),
        },
        spare: (next() % 201) as i32 - 100,
        winner: color(next() % 2),
    }
}

#[test]
fn proven_claims_are_told_apart_exactly_on_narrow_and_wide_boards() {
    let mut next = crate::xorshift(0x5eed_c1a1);
    // 7x8 (56 squares) is the largest board of at most 59 squares, 6x10 the smallest above.
    for (w, h, narrow) in [
        (1, 1, true),
        (5, 6, true),
        (7, 8, true),
        (6, 10, false),
        (10, 10, false),
    ] {
        let board = Board::new(w, h).expect("board");
        let fresh = || Proven::new(board, 0);
        assert_eq!(matches!(fresh(), Proven::Narrow(_)), narrow, "{w}x{h}");
        // Every claim differing from `base` in one thing: a cell, the side to move, the
        // winner or the spare (by one, or to either end of its range).
        let base = random_claim(board, &mut next);
        let mut others = Vec::new();
        for sq in 0..board.len() {
            for cell in [Cell::Empty, Cell::White, Cell::Black, Cell::Arrow] {
                let mut other = base.clone();
                other.position.cells[sq] = cell;
                others.push(other);
            }
        }
        let mut other = base.clone();
        other.position.to_move = base.position.to_move.opponent();
        others.push(other);
        let mut other = base.clone();
        other.winner = base.winner.opponent();
        others.push(other);
        for spare in [base.spare - 1, base.spare + 1, -100, 100] {
            others.push(Claim {
                spare: spare.clamp(-100, 100),
                ..base.clone()
            });
        }
        others.retain(|other| *other != base);
        assert!(others.len() >= 3 * board.len() + 3, "{w}x{h}");
        let mut proven = fresh();
        proven.insert(&base);
        assert!(
            proven.contains(&base),
            "{w}x{h}: the same claim has the same key"
        );
        for other in &others {
            assert!(
                !proven.contains(other),
                "{w}x{h}: {other:?} taken for {base:?}"
            );
        }
        // Random claims (on 1x1 many are equal): the set agrees with a set of claims.
        let (mut proven, mut claims) = (fresh(), std::collections::HashSet::new());
        for _ in 0..500 {
            let claim = random_claim(board, &mut next);
            proven.insert(&claim);
            claims.insert(claim);
        }
        for _ in 0..500 {
            let claim = random_claim(board, &mut next);
            assert_eq!(
                proven.contains(&claim),
                claims.contains(&claim),
                "{w}x{h}: {claim:?}"
            );
        }
        assert!(claims.iter().all(|claim| proven.contains(claim)));
    }
}

// ---- Checking order, limits, errors ----

#[test]
fn depth_limit_is_1000_levels() {
    // Black d1 is walled in; {a1 b1} is the only live component, so each Sum has one child.
    let root = claim("O.#X", B, 0, W);
    let chain = |n: usize| {
        let mut steps = vec![sum(&[(0, false)]); n];
        steps.push(Step::NoMove);
        steps
    };
    let report = ok(&root, chain(1000));
    assert_eq!(report.proven_claims, 2);
    let e = err(&root, chain(1001));
    assert_eq!(e.failure, Failure::TooDeep);
    assert_eq!(e.path.len(), 1001);
}

#[test]
fn spare_range_and_trailing_steps() {
    for spare in [101, -101, i32::MIN, i32::MAX] {
        let f = failure(&claim("X#O.", B, spare, W), vec![Step::NoMove]);
        assert_eq!(f, Failure::SpareOutOfRange { spare });
    }
    ok(&claim("X#O.", B, -100, W), vec![Step::NoMove]);
    let e = err(&claim("X#O.", B, 0, W), vec![Step::NoMove, Step::NoMove]);
    assert_eq!(e.failure, Failure::TrailingSteps { count: 1 });
    assert!(e.path.is_empty());
    assert_eq!(
        failure(&claim("X#O.", B, 0, W), vec![]),
        Failure::OutOfSteps
    );
}

#[test]
fn invalid_root_is_rejected_without_panic() {
    let mut root = claim("X#O.", B, 0, W);
    root.position.cells.pop();
    let e = err(&root, vec![Step::NoMove]);
    assert_eq!(e.failure, Failure::InvalidRoot);
    assert!(e.to_string().contains("(invalid position)"));
}

#[test]
fn error_display_shows_rule_path_and_position() {
    let root = claim("X.#O.", B, 0, W);
    let text = err(&root, vec![Step::ReplyAll]).to_string();
    assert!(text.contains("ran out of steps"), "{text}");
    assert!(text.contains("path: a1-b1xa1"), "{text}");
    assert!(text.contains("claim: White wins, no spare moves"), "{text}");
    assert!(text.contains(" 1  # X # O ."), "{text}");
    let text = err(&root, vec![Step::NoMove]).to_string();
    assert!(
        text.contains("step 0: NoMove: the loser still has"),
        "{text}"
    );
    assert!(text.contains("path: (root)"), "{text}");
}

#[test]
fn check_bytes_separates_unreadable_from_wrong() {
    let root = claim("X#O.", B, 0, W);
    let good = encode(&cert(&root, vec![Step::NoMove])).expect("encode");
    assert!(check_bytes(&good).is_ok());
    let mut flipped = good.clone();
    flipped[60] ^= 1;
    assert!(matches!(
        check_bytes(&flipped),
        Err(CheckFileError::Unreadable(_))
    ));
    let wrong = encode(&cert(&root, vec![Step::ReplyAll])).expect("encode");
    assert!(matches!(check_bytes(&wrong), Err(CheckFileError::Wrong(_))));
}

#[test]
fn random_steps_never_panic() {
    // Replace each step of good certificates by arbitrary steps (wild squares included).
    let mut next = crate::xorshift(0x9e37_79b9_7f4a_7c15);
    let root = claim(TWO_AREAS, W, 0, W);
    let base = two_area_sum(&root, &[(2, false), (-1, false)]);
    for _ in 0..3000 {
        let mut steps = base.clone();
        let i = (next() % steps.len() as u64) as usize;
        let r = next();
        let sq = |k: u32| ((r >> k) % 20) as u8;
        let m = Move {
            from: sq(0),
            to: sq(8),
            arrow: sq(16),
        };
        steps[i] = match r % 7 {
            0 => Step::Choice(Action::Board(m)),
            1 => Step::Outlast {
                moves: vec![m; (r >> 24) as usize % 3],
            },
            2 => sum(&[((r >> 24) as i32 % 5 - 2, r & 8 == 0); 2]),
            3 => Step::Transposition {
                symmetry: Symmetry::ALL[(r >> 24) as usize % 8],
            },
            4 => Step::ReplyAll,
            5 => Step::NoMove,
            _ => Step::Choice(Action::Spare),
        };
        let _ = check(&cert(&root, steps));
    }
}
