//! Helpers shared by the solver's unit tests: exhaustive win/loss search and random positions.

use crate::db::Rng;
use crate::dfpn::Options;
use crate::geometry::{Geometry, Key};
use crate::state::State;
use amazons_format::{Color, Position};
use std::collections::HashMap;

/// Plain memoized win/loss search: whether the side to move wins `st`.
pub(crate) fn mover_wins(g: &Geometry, st: &State, memo: &mut HashMap<Key, bool>) -> bool {
    let key = st.key(g);
    if let Some(&w) = memo.get(&key) {
        return w;
    }
    let w = st
        .actions(g)
        .into_iter()
        .any(|a| !mover_wins(g, &st.play(a), memo));
    memo.insert(key, w);
    w
}

/// A small board and positions on it, each with its winner by exhaustive search.
pub(crate) struct Positions {
    pub board: &'static str,
    pub g: Geometry,
    pub positions: Vec<(State, Color)>,
}

/// Six positions from random games (drawn from `Rng(seed)`) on each of 4x4, 5x4 and 4x5,
/// at least 0, 3 and 4 plies in plus up to 5 more, game `k` starting with `spare(k)`
/// spare moves; both sides win some of the 18.
pub(crate) fn random_positions(seed: u64, spare: impl Fn(i32) -> i32) -> Vec<Positions> {
    let mut rng = Rng(seed);
    let mut memo = HashMap::new();
    let mut black = 0;
    let mut out = Vec::new();
    for (board, min_plies) in [("4x4", 0), ("5x4", 3), ("4x5", 4)] {
        let start = Position::start(board).expect("board");
        let g = Geometry::new(start.board);
        memo.clear();
        let mut positions = Vec::new();
        for game in 0..6 {
            let mut st = State::from_position(&start, spare(game));
            let plies = min_plies + rng.below(6) as usize;
            for _ in 0..plies {
                let actions = st.actions(&g);
                if actions.is_empty() {
                    break;
                }
                st = st.play(actions[rng.below(actions.len() as u64) as usize]);
            }
            let truth = if mover_wins(&g, &st, &mut memo) {
                st.side()
            } else {
                st.side().opponent()
            };
            black += (truth == Color::Black) as usize;
            positions.push((st, truth));
        }
        out.push(Positions {
            board,
            g,
            positions,
        });
    }
    assert!(
        (1..18).contains(&black),
        "both sides win some: {black} of 18 Black"
    );
    out
}

/// Asserts that `solve` finds the winner exhaustive search finds on every position of
/// [`random_positions`]`(seed, spare)`, with each of `variants`; returns the number of
/// solves checked.
pub(crate) fn assert_true_winners(
    seed: u64,
    spare: impl Fn(i32) -> i32,
    variants: &[Options],
    mut solve: impl FnMut(&Geometry, &Options, &State) -> Option<Color>,
) -> usize {
    let mut checked = 0;
    for set in random_positions(seed, spare) {
        for (st, truth) in &set.positions {
            for o in variants {
                assert_eq!(
                    solve(&set.g, o, st),
                    Some(*truth),
                    "{} hash {} MiB, eval {}, {:?} numbers: {st:?}",
                    set.board,
                    o.hash_mib,
                    o.eval.is_some(),
                    o.numbers
                );
                checked += 1;
            }
        }
    }
    checked
}
