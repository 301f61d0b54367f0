//! Proof extraction: turns a solved df-pn search into a certificate in checking order.
//!
//! Walks the proof tree in preorder. At the winner's turn it picks a proven child from
//! the table (re-searching the node when the table lost it); at the loser's turn it
//! lists every reply in canonical order. Positions already written become
//! transpositions; that memory is capped, and past the cap subtrees are written again.

use crate::dfpn::Search;
use crate::state::State;
use crate::tt::INF;
use amazons_format::{Action, Color, Step, Symmetry};
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
    done: HashSet<State>,
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

    /// Appends the proof that `x` wins `st`.
    pub fn prove(&mut self, st: &State, x: Color) -> Result<(), EmitError> {
        let g = self.search.g;
        let y = x.opponent();
        if self.done.contains(st) {
            self.steps.push(Step::Transposition {
                symmetry: Symmetry::Identity,
            });
            return Ok(());
        }
        if st.side() == y && !st.can_act(g, y) {
            self.steps.push(Step::NoMove);
        } else if let Some(moves) =
            self.search
                .terr
                .outlast(g, &st.pos, x, st.spares_of(x), st.spares_of(y))
        {
            self.steps.push(Step::Outlast { moves });
        } else if st.side() == x {
            let a = self.winning_action(st, x)?;
            self.steps.push(Step::Choice(a));
            self.prove(&st.play(a), x)?;
        } else {
            self.steps.push(Step::ReplyAll);
            for a in st.actions(g) {
                self.prove(&st.play(a), x)?;
            }
        }
        if self.done.len() < self.done_cap {
            self.done.insert(*st);
        }
        Ok(())
    }

    /// An action of `x` (to move) to a state the table proves lost for the opponent,
    /// preferring the least work; re-searches once if none is known.
    pub fn winning_action(&mut self, st: &State, x: Color) -> Result<Action, EmitError> {
        let g = self.search.g;
        let y = x.opponent();
        for attempt in 0..2 {
            let mut best: Option<(u32, Action)> = None;
            for a in st.actions(g) {
                let c = st.play(a);
                if !c.can_act(g, y) {
                    return Ok(a);
                }
                if let Some((_, 0, work)) = self.search.lookup(&c) {
                    if best.is_none_or(|(w, _)| work < w) {
                        best = Some((work, a));
                    }
                }
            }
            if let Some((_, a)) = best {
                return Ok(a);
            }
            if attempt == 0 {
                self.researches += 1;
                let key = st.key(g);
                let (phi, _) = self.search.mid(st, key, INF, INF);
                if self.search.stopped() {
                    return Err(EmitError::Budget);
                }
                if phi != 0 {
                    break;
                }
            }
        }
        // Last resort: a child decided statically but evicted from the table.
        for a in st.actions(g) {
            let c = st.play(a);
            if self
                .search
                .terr
                .outlast(g, &c.pos, x, c.spares_of(x), c.spares_of(y))
                .is_some()
            {
                return Ok(a);
            }
        }
        Err(EmitError::NoProvenMove {
            winner: x,
            grid: st.to_position(g).grid(),
        })
    }
}
