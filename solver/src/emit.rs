//! Proof extraction: turns a solved df-pn search into a certificate in checking order.
//!
//! Walks the proof tree in preorder. At the winner's turn it picks a proven child from
//! the table (re-searching the node when the table lost it); at the loser's turn it
//! lists every reply in canonical order. Positions already written become
//! transpositions; that memory is capped, and past the cap subtrees are written again.

use crate::dfpn::Search;
use crate::pos::Pos;
use crate::tt::INF;
use amazons_format::{Action, Color, Move, Step, Symmetry};
use std::collections::HashSet;

/// Why a proof could not be written.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error(
        "internal error: no proven move for {winner} at a node the search called won ({grid})"
    )]
    NoProvenMove { winner: Color, grid: String },
    #[error("node budget ran out while re-searching during proof extraction")]
    Budget,
}

/// Writes the proof that `winner` wins `root` as steps in checking order.
pub struct Emitter<'a, 'g> {
    search: &'a mut Search<'g>,
    pub steps: Vec<Step>,
    done: HashSet<Pos>,
    done_cap: usize,
    /// Nodes re-searched because the table had lost them.
    pub researches: u64,
}

impl<'a, 'g> Emitter<'a, 'g> {
    /// `done_cap` bounds the number of remembered proven positions.
    pub fn new(search: &'a mut Search<'g>, done_cap: usize) -> Emitter<'a, 'g> {
        Emitter {
            search,
            steps: Vec::new(),
            done: HashSet::new(),
            done_cap,
            researches: 0,
        }
    }

    /// Appends the proof that `x` wins `pos`.
    pub fn prove(&mut self, pos: &Pos, x: Color) -> Result<(), EmitError> {
        let g = self.search.g;
        if self.done.contains(pos) {
            self.steps.push(Step::Transposition {
                symmetry: Symmetry::Identity,
            });
            return Ok(());
        }
        if pos.side != x && !pos.can_move(g, pos.side) {
            self.steps.push(Step::NoMove);
        } else if let Some(moves) = self.search.terr.outlast(g, pos, x) {
            self.steps.push(Step::Outlast { moves });
        } else if pos.side == x {
            let m = self.winning_move(pos, x)?;
            self.steps.push(Step::Choice(Action::Board(m)));
            self.prove(&pos.play(m), x)?;
        } else {
            self.steps.push(Step::ReplyAll);
            for m in pos.moves(g) {
                self.prove(&pos.play(m), x)?;
            }
        }
        if self.done.len() < self.done_cap {
            self.done.insert(*pos);
        }
        Ok(())
    }

    /// A move of `x` (to move) to a position the table proves lost for the opponent,
    /// preferring the least work; re-searches once if none is known.
    pub fn winning_move(&mut self, pos: &Pos, x: Color) -> Result<Move, EmitError> {
        let g = self.search.g;
        for attempt in 0..2 {
            let mut best: Option<(u32, Move)> = None;
            for m in pos.moves(g) {
                let c = pos.play(m);
                if !c.can_move(g, c.side) {
                    return Ok(m);
                }
                if let Some((_, 0, work)) = self.search.lookup(&c) {
                    if best.is_none_or(|(w, _)| work < w) {
                        best = Some((work, m));
                    }
                }
            }
            if let Some((_, m)) = best {
                return Ok(m);
            }
            if attempt == 0 {
                self.researches += 1;
                let key = pos.key(g);
                let (phi, _) = self.search.mid(pos, key, INF, INF);
                if self.search.stopped() {
                    return Err(EmitError::Budget);
                }
                if phi != 0 {
                    break;
                }
            }
        }
        // Last resort: a child decided statically but evicted from the table.
        for m in pos.moves(g) {
            let c = pos.play(m);
            if self.search.terr.outlast(g, &c, x).is_some() {
                return Ok(m);
            }
        }
        Err(EmitError::NoProvenMove {
            winner: x,
            grid: pos.to_position(g).grid(),
        })
    }
}
