//! `amazons play`: the user takes the losing side against a certificate's winning strategy.
//!
//! The program answers every move from the certificate ([`crate::strategy`]): through
//! shards and transpositions, and, where the stored proof ends in a leaf it justifies
//! statically (outlast, sum), by solving the current position, which the leaf proved won.

use crate::strategy::{Kind, Node, Strategy, StrategyError, Tree};
use crate::{Geometry, Options, Pos};
use amazons_checker::rules;
use amazons_format::{Color, Move, Position, Step, Symmetry};
use std::io::{BufRead, Write};
use std::rc::Rc;

/// Why a game could not go on.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Strategy(#[from] StrategyError),
    #[error("solving the position failed: {0}")]
    Solve(#[from] crate::SolveError),
    #[error("{0}")]
    Lost(String),
    #[error("terminal: {0}")]
    Io(#[from] std::io::Error),
}

/// The winning side: the strategy and where the game is in it.
pub struct Player {
    pub strategy: Strategy,
    node: Option<Node>,
    opts: Options,
    /// Moves answered from a stored proof / found by solving.
    pub from_proof: usize,
    pub solved: usize,
    /// Why the certificate could not be followed, where it could not (a missing or damaged
    /// shard, a malformed proof): the program then solves instead. Drained by [`run`].
    pub notes: Vec<String>,
}

impl Player {
    /// A player following `strategy`, solving past its leaves with `opts`.
    pub fn new(strategy: Strategy, opts: Options) -> Player {
        let node = Some(strategy.root());
        Player {
            strategy,
            node,
            opts,
            from_proof: 0,
            solved: 0,
            notes: Vec::new(),
        }
    }

    /// The side the strategy wins for.
    pub fn winner(&self) -> Color {
        self.strategy.claim().winner
    }

    /// The winner's move in `actual` (the winner to move).
    pub fn choose(&mut self, actual: &Position) -> Result<Move, PlayError> {
        if let Some(node) = self.node.take() {
            match self.proof_move(node, actual) {
                Ok(Some(m)) => return Ok(m),
                Ok(None) => {}
                Err(e) => self.notes.push(e.to_string()),
            }
        }
        self.solved += 1;
        self.solve_move(actual)
    }

    /// The proof's move at `node`, if it has one there.
    fn proof_move(&mut self, node: Node, actual: &Position) -> Result<Option<Move>, StrategyError> {
        let (node, kind) = self.strategy.resolve(node, actual)?;
        let Kind::Choice(m) = kind else {
            return Ok(None);
        };
        if !rules::is_legal(actual, m) {
            return Err(StrategyError::Game(format!(
                "the proof's move {} is illegal here",
                m.notation(actual.board)
            )));
        }
        self.node = Some(Strategy::after_choice(&node));
        self.from_proof += 1;
        Ok(Some(m))
    }

    /// Follows the loser's move `m`, played in `actual`.
    pub fn observe(&mut self, actual: &Position, m: Move) {
        let Some(node) = self.node.take() else {
            return;
        };
        let next = match self.strategy.resolve(node, actual) {
            Ok((node, Kind::ReplyAll)) => Strategy::after_reply(&node, actual, m).map(Some),
            Ok(_) => Ok(None),
            Err(e) => Err(e),
        };
        match next {
            Ok(node) => self.node = node,
            Err(e) => self.notes.push(e.to_string()),
        }
    }

    /// A winning move found by solving `actual` (past a leaf of the stored proof). The new
    /// proof is followed from then on, until it ends in a leaf in turn.
    fn solve_move(&mut self, actual: &Position) -> Result<Move, PlayError> {
        let (m, node) = solve_move(actual, self.winner(), &self.opts)?;
        self.node = node;
        Ok(m)
    }
}

/// A winning move for `me` (to move in `actual`, which `me` wins) found by solving, and
/// where to go on in the new proof (none when it ends in a leaf right away).
pub fn solve_move(
    actual: &Position,
    me: Color,
    opts: &Options,
) -> Result<(Move, Option<Node>), PlayError> {
    let solve = |position: &Position| crate::solve(position, opts, "amazons play");
    let solved = solve(actual)?;
    if solved.winner != me {
        return Err(PlayError::Lost(format!(
            "the solver finds {} wins {}",
            solved.winner,
            actual.describe()
        )));
    }
    let tree = Rc::new(Tree::new(solved.certificate));
    match tree.cert.steps.first() {
        Some(Step::Choice(amazons_format::Action::Board(m))) if rules::is_legal(actual, *m) => {
            let m = *m;
            let node = Node {
                tree,
                step: 1,
                sym: Symmetry::Identity,
            };
            return Ok((m, Some(node)));
        }
        // The territory argument: its first move keeps the winner's region.
        Some(Step::Outlast { moves }) => {
            let first = crate::compact::outlast_first_move(&tree.cert.root, moves);
            if let Some(m) = first.filter(|&m| rules::is_legal(actual, m)) {
                return Ok((m, None));
            }
        }
        _ => {}
    }
    // Decided statically (a sum): find a move after which the winner still wins.
    let g = Geometry::new(actual.board);
    for m in Pos::from_position(actual).moves(&g) {
        let next = rules::play(actual, m);
        let solved = solve(&next)?;
        if solved.winner == me {
            let node = Node {
                tree: Rc::new(Tree::new(solved.certificate)),
                step: 0,
                sym: Symmetry::Identity,
            };
            return Ok((m, Some(node)));
        }
    }
    Err(PlayError::Lost(format!(
        "no winning move found in {}",
        actual.describe()
    )))
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The side to move had no move: the other side won.
    Won(Color),
    /// The user quit (or the input ended).
    Quit,
}

/// Plays one game on a terminal: the program takes the winner's side, the user the other;
/// moves are read from `input` one a line (`quit` or the end of input stops).
pub fn run(
    player: &mut Player,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Outcome, PlayError> {
    let me = player.winner();
    let you = me.opponent();
    let mut position = player.strategy.claim().position.clone();
    writeln!(
        out,
        "The certificate proves: {}.\nYou play {you}, the program plays {me}. Moves like \
         b1-b4xd4; 'moves' lists yours, 'quit' stops.",
        player.strategy.claim().describe()
    )?;
    loop {
        write!(out, "\n{}", position.render())?;
        let legal = rules::legal_moves(&position);
        if legal.is_empty() {
            let winner = position.to_move.opponent();
            writeln!(
                out,
                "{} has no move: {winner} wins{}",
                position.to_move,
                if winner == me {
                    "."
                } else {
                    " (you beat the proof!)"
                }
            )?;
            return Ok(Outcome::Won(winner));
        }
        if position.to_move == me {
            let m = player.choose(&position)?;
            for note in player.notes.drain(..) {
                writeln!(
                    out,
                    "(the certificate cannot be followed here: {note}; the program solves instead)"
                )?;
            }
            writeln!(out, "{me} plays {}", m.notation(position.board))?;
            position = rules::play(&position, m);
            continue;
        }
        let m = loop {
            write!(out, "your move ({you})> ")?;
            out.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(out, "\nend of input: game left unfinished")?;
                return Ok(Outcome::Quit);
            }
            let text = line.trim();
            match text.to_ascii_lowercase().as_str() {
                "" => continue,
                "quit" | "exit" | "q" => {
                    writeln!(out, "game left unfinished")?;
                    return Ok(Outcome::Quit);
                }
                "moves" | "help" | "?" => {
                    let list: Vec<String> =
                        legal.iter().map(|m| m.notation(position.board)).collect();
                    writeln!(out, "your {} moves: {}", list.len(), list.join(" "))?;
                    continue;
                }
                _ => {}
            }
            match Move::parse(position.board, text) {
                Err(e) => writeln!(out, "not a move: {e}")?,
                Ok(m) if !legal.contains(&m) => writeln!(
                    out,
                    "illegal move {}: {}",
                    m.notation(position.board),
                    why_illegal(&position, m)
                )?,
                Ok(m) => break m,
            }
        };
        writeln!(out, "{you} plays {}", m.notation(position.board))?;
        player.observe(&position, m);
        position = rules::play(&position, m);
    }
}

/// A short reason why `m` is not legal for the side to move.
fn why_illegal(position: &Position, m: Move) -> String {
    let board = position.board;
    let own = amazons_format::Cell::queen(position.to_move);
    if position.cells[m.from as usize] != own {
        return format!(
            "no {} queen on {}",
            position.to_move,
            board.square_name(m.from)
        );
    }
    let moved = Move { arrow: m.from, ..m };
    let queen_ok = rules::legal_moves(position)
        .iter()
        .any(|l| l.from == m.from && l.to == m.to)
        || rules::is_legal(position, moved);
    if !queen_ok {
        return format!(
            "the queen cannot go from {} to {} (straight or diagonal lines over empty squares)",
            board.square_name(m.from),
            board.square_name(m.to)
        );
    }
    format!(
        "the arrow cannot fly from {} to {}",
        board.square_name(m.to),
        board.square_name(m.arrow)
    )
}
