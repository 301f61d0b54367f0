//! The untrusted Amazons solver: bitboard rules engine, df-pn search, certificate output.
//!
//! The solver may be as clever as it likes; nothing it claims is believed until the
//! independent `amazons-checker` accepts the certificate it writes.

pub mod ab;
pub mod compact;
pub mod dfpn;
pub mod emit;
pub mod eval;
pub mod export;
pub mod fig13;
pub mod fig13_journal;
pub mod fig13_plot;
pub mod play;
pub mod pos;
pub mod search_base;
pub mod solvers;
pub mod state;
pub mod strategy;
pub mod sum;
pub mod territory;
#[cfg(test)]
mod test_support;
pub mod testset;
pub mod trim;
pub mod tt;

pub use amazons_board::{bitboard, geometry};
pub use amazons_db as db;

use amazons_format::{Certificate, Color, Move, Position};
use std::time::Duration;

pub use dfpn::{Options, Search};
pub use geometry::Geometry;
pub use pos::{perft, OpponentLiberties, Pos};
pub use state::State;

/// Why a solve produced no certificate.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error("node budget of {0} nodes exhausted before the position was solved")]
    Budget(u64),
    #[error(transparent)]
    Emit(#[from] emit::EmitError),
}

/// A solved position with its certificate.
#[derive(Debug, Clone)]
pub struct Solved {
    pub winner: Color,
    /// The winning first move when the side to move wins.
    pub first_move: Option<Move>,
    pub certificate: Certificate,
    /// df-pn nodes of the search (excluding extraction re-searches).
    pub search_nodes: u64,
    /// All nodes, including re-searches during extraction.
    pub total_nodes: u64,
    pub search_time: Duration,
    pub extract_time: Duration,
    pub researches: u64,
    /// Sum steps written, and sum attempts that did not add up.
    pub sums: u64,
    pub sum_failures: u64,
    /// Areas seen by the static evaluation, by kind and source of their bounds (paper
    /// Fig. 15), nodes it decided, and territory values the databases answered.
    pub eval_stats: Option<eval::Stats>,
    pub eval_wins: u64,
    pub db_hits: u64,
}

/// Solves `position` and writes the proof as a certificate (not yet checked).
pub fn solve(position: &Position, opts: &Options, note: &str) -> Result<Solved, SolveError> {
    solve_state(position, 0, opts, note)
}

/// The options of a solve's main search: with evaluation, a quarter of the memory goes
/// to the extraction's plain search, so the main table gets three quarters.
pub fn main_search_options(opts: &Options) -> Options {
    Options {
        hash_mib: if opts.eval.is_some() {
            (opts.hash_mib * 3 / 4).max(1)
        } else {
            opts.hash_mib
        },
        ..opts.clone()
    }
}

/// Solves `position` with `spare` spare moves (SPEC section 2: `> 0` Black holds them).
pub fn solve_state(
    position: &Position,
    spare: i32,
    opts: &Options,
    note: &str,
) -> Result<Solved, SolveError> {
    solvers::solve_dfpn_state(position, spare, opts, note)
}

/// The board moves of the side to move, most promising first, after a df-pn search of
/// `position` within `opts.max_nodes`, in the order of [`promise_order`].
pub fn rank_moves(position: &Position, opts: &Options) -> Vec<Move> {
    rank_and_lean(position, opts).0
}

/// [`rank_moves`], and whether the search leaned towards a win for the side to move
/// (its proof number at most its disproof number; `true` when it proved the win).
pub fn rank_and_lean(position: &Position, opts: &Options) -> (Vec<Move>, bool) {
    ranking(position, opts).order_and_lean()
}

/// The order of [`ranking`] on two moves' (proof, disproof) numbers for a win of the side
/// to move: proved wins first, then open moves by the ratio of proof to disproof number
/// (smaller first; equal ratios by the smaller proof number), then moves the search never
/// reached, and proved losses last. Both numbers count: a move whose disproof number is
/// 1 is nearly refuted (one reply seems to settle it), however small its proof number,
/// so it does not come first as it would by proof number alone (6x5's self-blocking
/// b1-a1xb1). Equal keys keep move order (the sort is stable).
pub fn promise_order(a: Option<(u32, u32)>, b: Option<(u32, u32)>) -> std::cmp::Ordering {
    let class = |n: Option<(u32, u32)>| match n {
        Some((0, _)) => 0,
        Some((_, 0)) => 3,
        Some(_) => 1,
        None => 2,
    };
    class(a).cmp(&class(b)).then_with(|| match (a, b) {
        (Some((pa, da)), Some((pb, db))) if class(a) == 1 => {
            // pa / da against pb / db, without division.
            (u64::from(pa) * u64::from(db))
                .cmp(&(u64::from(pb) * u64::from(da)))
                .then(pa.cmp(&pb))
        }
        _ => std::cmp::Ordering::Equal,
    })
}

/// What a budget-limited df-pn search says about a position and each of its moves.
#[derive(Debug, Clone)]
pub struct Ranking {
    /// The root's (proof, disproof) numbers for a win of the side to move; `None` if the
    /// search never stored it.
    pub root: Option<(u32, u32)>,
    /// The root's outcome, when the search settled it within the budget.
    pub winner: Option<Color>,
    /// Whether the search leans towards a win for the side to move (see [`rank_and_lean`]).
    pub lean: bool,
    /// Search nodes spent.
    pub nodes: u64,
    /// The board moves, most promising first, each with its child's (proof, disproof)
    /// numbers for a win of the side to move at the root (`None`: never reached).
    pub moves: Vec<(Move, Option<(u32, u32)>)>,
}

impl Ranking {
    /// The moves in order, most promising first, without their numbers.
    pub fn order(&self) -> Vec<Move> {
        self.moves.iter().map(|&(m, _)| m).collect()
    }

    /// [`Ranking::order`] and [`Ranking::lean`], as [`rank_and_lean`] gives them.
    pub fn order_and_lean(&self) -> (Vec<Move>, bool) {
        (self.order(), self.lean)
    }
}

/// The df-pn search of [`rank_and_lean`], with the numbers behind the order.
pub fn ranking(position: &Position, opts: &Options) -> Ranking {
    ranking_knowing(position, opts, &[])
}

/// [`ranking`], with the moves `lost` known to lose for the side to move (a split's
/// refuted guesses): before the search, the table holds each of their children as won by
/// the opponent, so the budget goes to the other moves and they rank last, as proved
/// losses. Without this a second ranking of the same position spends its budget as the
/// first did and returns the same order (6x5's split tasks ranked again after a refuted
/// guess listed it first again). The root's numbers and lean are then those of the
/// moves not yet refuted.
pub fn ranking_knowing(position: &Position, opts: &Options, lost: &[Move]) -> Ranking {
    use amazons_format::Action;
    let g = Geometry::new(position.board);
    let root = State::from_position(position, 0);
    let mut search = Search::new(&g, opts);
    for &m in lost {
        let child = root.play(Action::Board(m));
        // Kept over every searched entry: the table replaces the entries of least work.
        search.tt.put(child.key(&g), 0, tt::INF, u32::MAX);
    }
    let winner = search.solve(&root);
    let numbers = search.lookup(&root).map(|(phi, delta, _)| (phi, delta));
    let lean = numbers.is_none_or(|(phi, delta)| phi <= delta);
    let mut moves: Vec<(Move, Option<(u32, u32)>)> = root
        .actions(&g)
        .into_iter()
        .filter_map(|a| match a {
            Action::Board(m) => Some(m),
            Action::Spare => None,
        })
        .map(|m| {
            // The child's numbers are the opponent's: its disproof number is the mover's
            // proof number.
            let child = root.play(Action::Board(m));
            (m, search.lookup(&child).map(|(phi, delta, _)| (delta, phi)))
        })
        .collect();
    moves.sort_by(|a, b| promise_order(a.1, b.1));
    Ranking {
        root: numbers,
        winner,
        lean,
        nodes: search.base.nodes,
        moves,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proved wins first, then by proof / disproof ratio (a disproof number of 1 behind a
    /// larger proof number with a larger disproof number), unreached moves, proved losses.
    #[test]
    fn moves_are_ordered_by_proof_disproof_ratio() {
        let mut v = [
            (0, Some((0, 100))),
            (1, Some((400, 1))),
            (2, Some((500, 50))),
            (3, Some((100, 0))),
            (4, None),
            (5, Some((40, 4))),
            (6, Some((0, 3))),
        ];
        v.sort_by(|a, b| promise_order(a.1, b.1));
        let order: Vec<i32> = v.iter().map(|x| x.0).collect();
        assert_eq!(order, vec![0, 6, 5, 2, 1, 4, 3]);
    }

    /// Moves known lost are ranked as proved losses, after every move the search left
    /// open, and the best move of the first ranking, once known lost, is not the best
    /// of the next; with every move known lost the root is proved lost.
    #[test]
    fn a_ranking_knowing_lost_moves_ranks_them_last_and_searches_the_others() {
        let p = Position::start("5x4").unwrap();
        let opts = Options {
            hash_mib: 16,
            max_nodes: Some(20_000),
            ..Options::default()
        };
        let first = ranking(&p, &opts);
        assert_eq!(first.winner, None, "the budget does not settle 5x4");
        let best = first.moves[0].0;
        let next = ranking_knowing(&p, &opts, &[best]);
        assert_eq!(next.winner, None);
        assert_ne!(next.moves[0].0, best);
        let at = next.moves.iter().position(|&(m, _)| m == best).unwrap();
        assert!(
            next.moves[at..]
                .iter()
                .all(|(_, n)| matches!(n, Some((_, 0)))),
            "{best:?} among the proved losses, after every open move: {:?}",
            &next.moves[at..]
        );
        let all: Vec<Move> = first.order();
        let none_left = ranking_knowing(&p, &opts, &all);
        assert_eq!(none_left.winner, Some(Color::Black));
        assert!(!none_left.lean);
    }

    /// States with spare moves are solved, and their certificates (which use spare
    /// actions in choices and replies) pass the independent checker.
    #[test]
    fn spare_move_states_are_solved_and_certified() {
        let opts = Options {
            hash_mib: 4,
            ..Options::default()
        };
        for grid in ["X..|...|..O", "X.#|#..|.#O", "O..#|....|#..X"] {
            for side in [Color::White, Color::Black] {
                let p = Position::parse_grid(grid, side).unwrap();
                let mut winners = Vec::new();
                for spare in -3..=3 {
                    let s = solve_state(&p, spare, &opts, "test").unwrap();
                    amazons_checker::check(&s.certificate).unwrap();
                    winners.push(s.winner);
                }
                // More spare moves for Black can never turn a Black win into a loss.
                let first_black = winners.iter().position(|&w| w == Color::Black);
                if let Some(i) = first_black {
                    assert!(
                        winners[i..].iter().all(|&w| w == Color::Black),
                        "{grid} {side}: {winners:?}"
                    );
                }
                assert_eq!(winners[0], Color::White, "White with 3 spares wins {grid}");
                assert_eq!(winners[6], Color::Black, "Black with 3 spares wins {grid}");
            }
        }
    }
}
