//! SGF out and in: a certificate's winning strategy as an SGF game tree, and positions from SGF files.
//!
//! `amazons export CERT --sgf OUT` writes the first plies of the strategy: at the
//! winner's turns the proof's move (one variation), at the loser's turns every reply (one
//! variation each), through shards and transpositions as `amazons play` follows them;
//! where the proof ends in a leaf it justifies statically, the winner's move is found by
//! solving (marked by a comment), unless solving is switched off (the line then ends
//! with a comment naming the leaf).

use crate::play::{solve_move, PlayError};
use crate::strategy::{Kind, Node, Strategy, StrategyError};
use crate::Options;
use amazons_checker::rules;
use amazons_format::sgf::{self, SgfError, Variation};
use amazons_format::{Color, Move, Position};

/// Why an SGF file gives no position.
#[derive(Debug, thiserror::Error)]
pub enum SgfPositionError {
    #[error(transparent)]
    Sgf(#[from] SgfError),
    #[error("move {ply} ({sgf}[...], {color}) is played with {to_move} to move")]
    WrongTurn {
        ply: usize,
        sgf: &'static str,
        color: Color,
        to_move: Color,
    },
    #[error("move {ply} ({text}) is illegal in {position}")]
    Illegal {
        ply: usize,
        text: String,
        position: String,
    },
}

/// The position an SGF text describes: the root's setup, then the main line's moves (each
/// checked: the right side to move, a legal move).
pub fn position_from_sgf(text: &str) -> Result<Position, SgfPositionError> {
    let game = sgf::read_game(text)?;
    let mut pos = game.setup;
    for (i, (color, m)) in game.moves.into_iter().enumerate() {
        if color != pos.to_move {
            return Err(SgfPositionError::WrongTurn {
                ply: i + 1,
                sgf: sgf::sgf_letter(color),
                color,
                to_move: pos.to_move,
            });
        }
        if !rules::is_legal(&pos, m) {
            return Err(SgfPositionError::Illegal {
                ply: i + 1,
                text: m.notation(pos.board),
                position: pos.describe(),
            });
        }
        pos = rules::play(&pos, m);
    }
    Ok(pos)
}

/// How to export.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Plies (single moves) from the root.
    pub plies: usize,
    /// Solve past the proof's leaves (else a line ends at a leaf).
    pub solve_leaves: bool,
    /// The solver's options for those solves.
    pub opts: Options,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportStats {
    /// Moves (SGF nodes below the root).
    pub nodes: usize,
    /// Winner's moves found by solving past a leaf.
    pub solved: usize,
    /// Lines ended at a leaf (without solving).
    pub leaves: usize,
}

/// The strategy's first plies as an SGF text, and what it holds.
pub fn export(
    strategy: &mut Strategy,
    source: &str,
    eo: &ExportOptions,
) -> Result<(String, ExportStats), PlayError> {
    let claim = strategy.claim().clone();
    if claim.spare != 0 {
        return Err(StrategyError::Game("the claim holds spare moves: not a game".into()).into());
    }
    let mut stats = ExportStats::default();
    let root = strategy.root();
    let (children, _) = expand(
        strategy,
        Some(root),
        &claim.position,
        eo.plies,
        eo,
        &mut stats,
    )?;
    let comment = format!(
        "{}. The winning strategy's first {} plies from {source}: every reply of {} at its turns, \
         the proof's move for {}. SGF's B is this project's White, W its Black.",
        claim.describe(),
        eo.plies,
        claim.winner.opponent(),
        claim.winner
    );
    Ok((sgf::write(&claim.position, &comment, &children), stats))
}

/// The variation of move `m` from `actual`, `child` its strategy node (or past a leaf),
/// with `plies - 1` plies below it and the note of where the proof ends as its comment.
fn variation(
    strategy: &mut Strategy,
    child: Option<Node>,
    actual: &Position,
    m: Move,
    plies: usize,
    eo: &ExportOptions,
    stats: &mut ExportStats,
) -> Result<Variation, PlayError> {
    let next = rules::play(actual, m);
    let (children, comment) = expand(strategy, child, &next, plies - 1, eo, stats)?;
    stats.nodes += 1;
    Ok(Variation {
        color: actual.to_move,
        mv: m,
        comment,
        children,
    })
}

/// The variations from `actual` (at `node` of the strategy, or past a leaf) for `plies`
/// more plies, and a note when the proof ends here in a leaf and nothing follows.
fn expand(
    strategy: &mut Strategy,
    node: Option<Node>,
    actual: &Position,
    plies: usize,
    eo: &ExportOptions,
    stats: &mut ExportStats,
) -> Result<(Vec<Variation>, Option<String>), PlayError> {
    if plies == 0 || rules::legal_moves(actual).is_empty() {
        return Ok((Vec::new(), None));
    }
    let winner = strategy.claim().winner;
    let (node, kind) = match node {
        Some(node) => {
            let (node, kind) = strategy.resolve(node, actual)?;
            (Some(node), kind)
        }
        None => (None, Kind::Leaf("past")),
    };
    let mut out = Vec::new();
    match (kind, &node) {
        (Kind::Choice(m), Some(node)) => {
            let child = Some(Strategy::after_choice(node));
            out.push(variation(strategy, child, actual, m, plies, eo, stats)?);
        }
        (Kind::ReplyAll, _) | (Kind::Leaf(_) | Kind::NoMove, _) if actual.to_move != winner => {
            let replying = matches!(kind, Kind::ReplyAll);
            for m in rules::legal_moves(actual) {
                let child = match (node.as_ref(), replying, plies > 1) {
                    (Some(node), true, true) => Some(Strategy::after_reply(node, actual, m)?),
                    _ => None,
                };
                out.push(variation(strategy, child, actual, m, plies, eo, stats)?);
            }
        }
        (Kind::Leaf(leaf), _) if eo.solve_leaves => {
            let (m, child) = solve_move(actual, winner, &eo.opts)?;
            stats.solved += 1;
            let mut v = variation(strategy, child, actual, m, plies, eo, stats)?;
            let found = if leaf == "past" {
                "found by solving (past the proof's leaf)".to_string()
            } else {
                format!("found by solving: the proof ends in a {leaf} leaf here")
            };
            v.comment = Some(v.comment.map_or(found.clone(), |n| format!("{found}; {n}")));
            out.push(v);
        }
        (Kind::Leaf(leaf), _) => {
            stats.leaves += 1;
            let note = if leaf == "past" {
                "the proof ended in a leaf before this position".to_string()
            } else {
                format!("the proof ends here in a {leaf} leaf")
            };
            return Ok((Vec::new(), Some(note)));
        }
        (kind, _) => {
            return Err(StrategyError::Game(format!(
                "the proof's step ({kind:?}) does not fit {} to move",
                actual.to_move
            ))
            .into())
        }
    }
    Ok((out, None))
}
