//! Proof extraction: turns a solved df-pn search into a certificate in checking order.
//!
//! Walks the proof tree in preorder. At the winner's turn it picks a proven child from
//! the table (re-searching the node when the table lost it); at the loser's turn it
//! lists every reply in canonical order. Positions already written become
//! transpositions; that memory is capped, and past the cap subtrees are written again.

use crate::dfpn::Search;
use crate::state::State;
use crate::sum::{live_components, local_state, restrict};
use amazons_format::{Action, Color, LocalClaim, Step, Symmetry, MAX_SPARE};
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
    /// Sum steps written, and attempts that did not add up.
    pub sums: u64,
    pub sum_failures: u64,
    /// Whether to try sum steps at all.
    pub use_sums: bool,
}

/// A sum step ready to write: the local claims and the local states to prove.
struct SumPlan {
    parts: Vec<LocalClaim>,
    children: Vec<State>,
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
            sums: 0,
            sum_failures: 0,
            use_sums: true,
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
        } else if let Some(plan) = self.plan_sum(st, x)? {
            self.sums += 1;
            self.steps.push(Step::Sum { parts: plan.parts });
            for child in plan.children {
                self.prove(&child, x)?;
            }
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

    /// Whether `x` wins `st`, by a (cheap, local) search.
    fn wins(&mut self, st: &State, x: Color) -> Result<bool, EmitError> {
        let w = self.search.solve(st);
        if self.search.stopped() {
            return Err(EmitError::Budget);
        }
        Ok(w == Some(x))
    }

    /// Plans a sum step (SPEC 5.5) when the position splits into two or more live
    /// components: each component's bound is the largest `a` with "X wins the local
    /// position, Y to move, Y holding `a` spare moves", found by local searches.
    fn plan_sum(&mut self, st: &State, x: Color) -> Result<Option<SumPlan>, EmitError> {
        if !self.use_sums {
            return Ok(None);
        }
        let g = self.search.g;
        let comps = live_components(g, &st.pos);
        if comps.len() < 2 {
            return Ok(None);
        }
        let y = x.opponent();
        let mut locals = Vec::with_capacity(comps.len());
        let mut bounds = Vec::with_capacity(comps.len());
        for &comp in &comps {
            let local = restrict(g, &st.pos, comp);
            let limit = ((comp & local.empty(g)).count() as i32 + 1).min(MAX_SPARE);
            let mut a = 0;
            if self.wins(&local_state(&local, x, 0, y), x)? {
                while a < limit && self.wins(&local_state(&local, x, a + 1, y), x)? {
                    a += 1;
                }
            } else {
                loop {
                    a -= 1;
                    if a < -limit {
                        // Cannot happen (X holding more spares than there are squares wins).
                        self.sum_failures += 1;
                        return Ok(None);
                    }
                    if self.wins(&local_state(&local, x, a, y), x)? {
                        break;
                    }
                }
            }
            locals.push(local);
            bounds.push(a);
        }
        let s: i64 = bounds.iter().map(|&a| a as i64).sum::<i64>() + st.spares_of(x) as i64 - st.spares_of(y) as i64;
        let mut strict = vec![false; comps.len()];
        if s < 0 {
            self.sum_failures += 1;
            return Ok(None);
        }
        if s == 0 && st.side() == x {
            let mut found = false;
            for i in 0..comps.len() {
                if self.wins(&local_state(&locals[i], x, bounds[i], x), x)? {
                    strict[i] = true;
                    found = true;
                    break;
                }
            }
            if !found {
                self.sum_failures += 1;
                return Ok(None);
            }
        }
        let mut parts = Vec::with_capacity(comps.len());
        let mut children = Vec::new();
        for i in 0..comps.len() {
            parts.push(LocalClaim {
                bound: bounds[i],
                strict: strict[i],
            });
            children.push(local_state(&locals[i], x, bounds[i], y));
            if strict[i] {
                children.push(local_state(&locals[i], x, bounds[i], x));
            }
        }
        Ok(Some(SumPlan { parts, children }))
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
                let (phi, _) = self.search.expand(st, key, crate::tt::INF, crate::tt::INF, 0);
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
