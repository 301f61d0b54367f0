//! Proof extraction: turns a solved df-pn search into a certificate in checking order.
//!
//! Walks the proof tree in preorder. At the winner's turn it picks a proven child from
//! the table (re-searching the node when the table lost it); at the loser's turn it
//! lists every reply in canonical order. Positions already written become
//! transpositions; that memory is capped, and past the cap subtrees are written again.

use crate::bitboard::Bb;
use crate::dfpn::Search;
use crate::eval::partition::basic_partition;
use crate::eval::{BoundKind, Bounds, Evaluator};
use crate::geometry::Geometry;
use crate::search_base::SearchBase;
use crate::state::State;
use crate::sum::{local_state, restrict};
use amazons_format::fasthash::Fast;
use amazons_format::{Action, Color, LocalClaim, Step, Symmetry, MAX_SPARE};
use std::collections::HashSet;

/// Proven children tried for an immediate outlast before taking the least-work one.
const OUTLAST_PROBES: usize = 16;

/// Why a proof could not be written.
#[derive(Debug, thiserror::Error)]
pub enum EmitError {
    #[error(
        "internal error: no proven move for {winner} at a node the search called won ({grid})"
    )]
    NoProvenMove { winner: Color, grid: String },
    #[error("node budget ran out while re-searching during proof extraction")]
    Budget,
    /// The proof has more steps than allowed (`--max-steps`), or its steps, or the set of
    /// positions already written, no longer fit in memory. A sharded run splits such a
    /// task like one over its node budget.
    #[error("the proof is too large to write: {steps} steps written, {why}")]
    TooLarge { steps: usize, why: String },
}

/// What proof extraction needs from a search that solved a position: df-pn
/// ([`Search`]) and alpha-beta ([`crate::ab::AbSearch`]) both provide it.
pub trait Prover<'g> {
    /// The board, outlast detection, evaluator and counters of the search.
    fn base(&self) -> &SearchBase<'g>;
    fn base_mut(&mut self) -> &mut SearchBase<'g>;
    fn geometry(&self) -> &'g Geometry {
        self.base().g
    }
    /// Solves `st`: the winner, or `None` when the node budget ran out.
    fn solve(&mut self, st: &State) -> Option<Color>;
    /// Whether the node budget ran out.
    fn stopped(&self) -> bool {
        self.base().stopped
    }
    /// Nodes searched so far.
    fn nodes(&self) -> u64 {
        self.base().nodes
    }
    /// When the table holds `st` as lost for its side to move: the work behind that.
    fn lost_work(&self, st: &State) -> Option<u32>;
    /// [`Prover::lost_work`] of each of `states`, in order (a table may then start all
    /// their loads before reading any).
    fn lost_works(&self, states: &[State]) -> Vec<Option<u32>> {
        states.iter().map(|st| self.lost_work(st)).collect()
    }
    /// Whether the table holds `st` as decided by the static evaluation itself.
    fn is_eval_leaf(&self, st: &State) -> bool;
    /// Searches the children of `st` (never its own static evaluation) until it is
    /// decided; whether the side to move wins.
    fn research(&mut self, st: &State) -> bool;
    /// An outlast line for `x` in `st` (see [`crate::territory::Territory::outlast`]).
    fn outlast(&mut self, st: &State, x: Color) -> Option<Vec<amazons_format::Move>> {
        self.base_mut().outlast(st, x)
    }
    /// The static evaluator, when the search has one.
    fn evaluator<'s>(&'s mut self) -> Option<&'s mut Evaluator>
    where
        'g: 's,
    {
        self.base_mut().eval.as_mut()
    }
}

impl<'g> Prover<'g> for Search<'g> {
    fn base(&self) -> &SearchBase<'g> {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SearchBase<'g> {
        &mut self.base
    }
    fn lost_work(&self, st: &State) -> Option<u32> {
        match self.lookup(st) {
            Some((_, 0, work)) => Some(work),
            _ => None,
        }
    }
    fn lost_works(&self, states: &[State]) -> Vec<Option<u32>> {
        Search::lost_works(self, states)
    }
    fn is_eval_leaf(&self, st: &State) -> bool {
        Search::is_eval_leaf(self, st)
    }
    fn research(&mut self, st: &State) -> bool {
        let key = st.key(self.base.g);
        let (phi, _) = self.expand(st, key, crate::tt::INF, crate::tt::INF, 0);
        phi == 0
    }
    fn solve(&mut self, st: &State) -> Option<Color> {
        Search::solve(self, st)
    }
}

/// Writes the proof that `winner` wins `root` as steps in checking order.
pub struct Emitter<'a, 'g, M: Prover<'g> = Search<'g>> {
    /// The search that solved the root (possibly with static evaluation).
    main: &'a mut M,
    /// A search without static evaluation, used inside subtrees whose root the main
    /// search decided by evaluation alone: it finds proofs that end in moves, territory
    /// and sum arguments the checker can verify.
    plain: Option<Search<'g>>,
    in_plain: bool,
    pub steps: Vec<Step>,
    done: HashSet<State, Fast>,
    done_cap: usize,
    /// Nodes re-searched because the table had lost them.
    pub researches: u64,
    /// Sum steps written, and attempts that did not add up.
    pub sums: u64,
    pub sum_failures: u64,
    /// Whether to try sum steps at all (see [`Emitter::plan_sum`] for where).
    pub use_sums: bool,
    /// The most steps the proof may have (`usize::MAX`: no limit but memory).
    pub max_steps: usize,
    /// The checker's one-player search, for shortening outlast lists (its memo is kept).
    exact: Option<amazons_checker::rules::OnePlayer>,
    /// The outlast line last found for a child chosen because it closes at once, with
    /// its state and winner: the child's own step takes it instead of finding it again.
    closing: Option<(State, Color, Vec<amazons_format::Move>)>,
}

/// A sum step ready to write: the local claims and the local states to prove.
struct SumPlan {
    parts: Vec<LocalClaim>,
    children: Vec<State>,
}

impl<'a, 'g, M: Prover<'g>> Emitter<'a, 'g, M> {
    /// `done_cap` bounds the number of remembered proven positions.
    pub fn new(main: &'a mut M, plain: Option<Search<'g>>, done_cap: usize) -> Emitter<'a, 'g, M> {
        Emitter {
            main,
            plain,
            in_plain: false,
            steps: Vec::new(),
            done: HashSet::default(),
            done_cap,
            researches: 0,
            sums: 0,
            sum_failures: 0,
            use_sums: true,
            max_steps: usize::MAX,
            exact: None,
            closing: None,
        }
    }

    /// Appends `step`, or fails with [`EmitError::TooLarge`] past `max_steps` or when the
    /// step vector cannot grow (instead of aborting the process on a failed allocation:
    /// under a memory limit a big proof otherwise kills a whole sharded run).
    fn push(&mut self, step: Step) -> Result<(), EmitError> {
        let steps = self.steps.len();
        if steps >= self.max_steps {
            return Err(EmitError::TooLarge {
                steps,
                why: format!("the limit is {}", self.max_steps),
            });
        }
        if steps == self.steps.capacity() {
            self.steps
                .try_reserve(steps.max(1024))
                .map_err(|e| EmitError::TooLarge {
                    steps,
                    why: format!("no memory for more: {e}"),
                })?;
        }
        self.steps.push(step);
        Ok(())
    }

    /// The search in use: the plain one inside evaluation-decided subtrees.
    fn s(&mut self) -> &mut dyn Prover<'g> {
        match (self.in_plain, self.plain.as_mut()) {
            (true, Some(p)) => p,
            _ => &mut *self.main,
        }
    }

    /// Nodes searched by the plain search.
    pub fn plain_nodes(&self) -> u64 {
        self.plain.as_ref().map_or(0, |p| p.base.nodes)
    }

    /// Appends the proof that `x` wins `st`.
    pub fn prove(&mut self, st: &State, x: Color) -> Result<(), EmitError> {
        let enter = !self.in_plain && self.plain.is_some() && self.main.is_eval_leaf(st);
        if enter {
            self.in_plain = true;
        }
        let result = self.prove_here(st, x);
        if enter {
            self.in_plain = false;
        }
        result
    }

    fn prove_here(&mut self, st: &State, x: Color) -> Result<(), EmitError> {
        let g = self.main.geometry();
        let y = x.opponent();
        if self.done.contains(st) {
            return self.push(Step::Transposition {
                symmetry: Symmetry::Identity,
            });
        }
        if st.side() == y && !st.can_act(g, y) {
            self.push(Step::NoMove)?;
        } else if let Some(moves) = self.closing_line(st, x) {
            // Only the prefix the checker's completion needs (SPEC 5.4).
            let claim = amazons_format::Claim {
                position: st.to_position(g),
                spare: st.spare,
                winner: x,
            };
            let exact = self
                .exact
                .get_or_insert_with(|| amazons_checker::rules::OnePlayer::new(g.board));
            let moves = crate::compact::shortest_outlast(&claim, &moves, exact);
            self.push(Step::Outlast { moves })?;
        } else if let Some(plan) = self.plan_sum(st, x)? {
            self.sums += 1;
            self.push(Step::Sum { parts: plan.parts })?;
            for child in plan.children {
                self.prove(&child, x)?;
            }
        } else if st.side() == x {
            let a = self.winning_action(st, x)?;
            self.push(Step::Choice(a))?;
            self.prove(&st.play(a), x)?;
        } else {
            self.push(Step::ReplyAll)?;
            for a in st.actions(g) {
                self.prove(&st.play(a), x)?;
            }
        }
        // Remembering is optional: past the cap, or without memory to grow, subtrees are
        // written again instead.
        if self.done.len() < self.done_cap
            && (self.done.len() < self.done.capacity() || self.done.try_reserve(1).is_ok())
        {
            self.done.insert(*st);
        }
        Ok(())
    }

    /// Whether `x` wins `st`, by a (cheap, local) search.
    fn wins(&mut self, st: &State, x: Color) -> Result<bool, EmitError> {
        let w = self.s().solve(st);
        if self.s().stopped() {
            return Err(EmitError::Budget);
        }
        Ok(w == Some(x))
    }

    /// For each component, what the main evaluator's bounds say about the local claims
    /// "X wins the component, Y to move, Y holding `a` spare moves": they hold for
    /// `a <= lo` (the component is `>= a` from X's side) and fail for `a > hi`. Hints
    /// only: a claim taken from them is still proved below, so a wrong hint can make
    /// extraction fail but never writes a false step.
    fn eval_ranges(&mut self, st: &State, x: Color, comps: &[Bb]) -> Option<Vec<(i32, i32)>> {
        let g = self.main.geometry();
        let ev = self.main.evaluator()?.evaluate(g, &st.pos);
        let ranges = comps
            .iter()
            .map(|&comp| {
                let b: Bounds = ev
                    .areas
                    .iter()
                    .filter(|a| (a.squares & comp).any())
                    .map(|a| a.bounds)
                    .sum();
                let relaxed = |k: BoundKind| k == BoundKind::Relaxed;
                let (lo, hi) = match x {
                    Color::Black => (
                        if relaxed(b.lower.kind) {
                            b.lower.value.ceil() - 1
                        } else {
                            b.lower.value.floor()
                        },
                        b.upper.value.floor(),
                    ),
                    // White's side of the component is its negative.
                    Color::White => (
                        if relaxed(b.upper.kind) {
                            -b.upper.value.floor() - 1
                        } else {
                            -b.upper.value.ceil()
                        },
                        -b.lower.value.ceil(),
                    ),
                };
                let clamp = |v: i64| v.clamp(-(MAX_SPARE as i64) - 1, MAX_SPARE as i64 + 1) as i32;
                (clamp(lo), clamp(hi))
            })
            .collect();
        Some(ranges)
    }

    /// Plans a sum step (SPEC 5.5) when the position splits into two or more live
    /// components. A component's bound `a` is proven by the local search "X wins the
    /// local position, Y to move, Y holding `a` spare moves". Components X loses at
    /// `a = 0` need their exact (largest) negative bound; the others start at 0 and are
    /// raised one spare at a time only until the sum is enough (SPEC 5.5: `s >= 1`, or
    /// `s >= 0` with Y to move), so slack is never paid for with searches. Small bounds
    /// also make the local certificates smaller. The evaluator's bounds on each
    /// component ([`Emitter::eval_ranges`]) skip searches whose answer they already
    /// give, and give up at once on a sum that cannot add up.
    fn plan_sum(&mut self, st: &State, x: Color) -> Result<Option<SumPlan>, EmitError> {
        // With an evaluator, only inside evaluation-decided subtrees: elsewhere the main
        // table already holds a proof by moves, and following it costs far less than the
        // local searches (and the local proofs) of a sum step. On 5x6 replies this made
        // extraction 3-13 times cheaper and the certificates up to half the size.
        if !self.use_sums || (self.plain.is_some() && !self.in_plain) {
            return Ok(None);
        }
        let g = self.main.geometry();
        let comps = basic_partition(g, &st.pos);
        if comps.len() < 2 {
            return Ok(None);
        }
        let y = x.opponent();
        let spares = st.spares_of(x) as i64 - st.spares_of(y) as i64;
        let ranges = self.eval_ranges(st, x, &comps);
        let limits: Vec<i32> = comps
            .iter()
            .map(|&comp| ((comp & st.pos.empty(g)).count() as i32 + 1).min(MAX_SPARE))
            .collect();
        let range = |i: usize| ranges.as_ref().map_or((i32::MIN, i32::MAX), |r| r[i]);
        let best: i64 = (0..comps.len())
            .map(|i| range(i).1.min(limits[i]) as i64)
            .sum::<i64>()
            + spares;
        if best < 0 {
            self.sum_failures += 1;
            return Ok(None);
        }
        let mut locals = Vec::with_capacity(comps.len());
        let mut bounds = Vec::with_capacity(comps.len());
        // Largest bound a raise may reach, or `None` when the bound is already exact.
        let mut room = Vec::with_capacity(comps.len());
        for (i, &comp) in comps.iter().enumerate() {
            let local = restrict(g, &st.pos, comp);
            let (lo, hi) = range(i);
            let limit = limits[i];
            let mut a = 0;
            if lo >= 0 || (hi >= 0 && self.wins(&local_state(&local, x, 0, y), x)?) {
                room.push(Some(limit.min(hi)));
            } else {
                a = hi.min(0);
                loop {
                    if a < -limit {
                        // Cannot happen (X holding more spares than there are squares wins).
                        self.sum_failures += 1;
                        return Ok(None);
                    }
                    if a < 0 && (a <= lo || self.wins(&local_state(&local, x, a, y), x)?) {
                        break;
                    }
                    a -= 1;
                }
                room.push(None);
            }
            locals.push(local);
            bounds.push(a);
        }
        let mut s: i64 = bounds.iter().map(|&a| a as i64).sum::<i64>() + spares;
        let reachable = s + room.iter().flatten().map(|&l| l as i64).sum::<i64>();
        if reachable < 0 {
            self.sum_failures += 1;
            return Ok(None);
        }
        let target = i64::from(st.side() == x);
        for i in 0..comps.len() {
            let Some(limit) = room[i] else { continue };
            let lo = range(i).0;
            while s < target
                && bounds[i] < limit
                && (bounds[i] < lo
                    || self.wins(&local_state(&locals[i], x, bounds[i] + 1, y), x)?)
            {
                bounds[i] += 1;
                s += 1;
            }
        }
        let mut strict = vec![false; comps.len()];
        if s < 0 {
            self.sum_failures += 1;
            return Ok(None);
        }
        if s == 0 && st.side() == x {
            // Every bound is now the largest: one part must be strict.
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

    /// The winner's move sequence of an outlast step (SPEC 5.4) proving `x` wins `st`.
    fn outlast_line(&mut self, st: &State, x: Color) -> Option<Vec<amazons_format::Move>> {
        self.s().outlast(st, x)
    }

    /// An action of `x` (to move) to a state the table proves lost for the opponent,
    /// preferring the least work; re-searches once if none is known.
    pub fn winning_action(&mut self, st: &State, x: Color) -> Result<Action, EmitError> {
        let g = self.main.geometry();
        let y = x.opponent();
        for attempt in 0..2 {
            let actions = st.actions(g);
            let children: Vec<State> = actions.iter().map(|&a| st.play(a)).collect();
            if let Some(i) = children.iter().position(|c| !c.can_act(g, y)) {
                return Ok(actions[i]);
            }
            let works = self.s().lost_works(&children);
            let mut proven: Vec<(u32, Action)> = (works.into_iter().zip(actions))
                .filter_map(|(work, a)| Some((work?, a)))
                .collect();
            // Prefer a child that closes at once with an outlast step, then the least work.
            proven.sort_by_key(|&(w, _)| w);
            for &(_, a) in proven.iter().take(OUTLAST_PROBES) {
                if self.closes(&st.play(a), x) {
                    return Ok(a);
                }
            }
            // Else any action closing at once: its proof is one step, where the least work
            // (1 for a child the evaluation decided) can still need a long one.
            if !proven.is_empty() {
                if let Some(a) = self.first_closing(st, x) {
                    return Ok(a);
                }
            }
            if let Some(&(_, a)) = proven.first() {
                return Ok(a);
            }
            if attempt == 0 {
                self.researches += 1;
                let won = self.s().research(st);
                if self.s().stopped() {
                    return Err(EmitError::Budget);
                }
                if !won {
                    break;
                }
            }
        }
        // Last resort: a child decided statically but evicted from the table.
        self.first_closing(st, x)
            .ok_or_else(|| EmitError::NoProvenMove {
                winner: x,
                grid: st.to_position(g).grid(),
            })
    }

    /// The first action of `x` (to move) in canonical order after which an outlast step
    /// closes the child at once.
    fn first_closing(&mut self, st: &State, x: Color) -> Option<Action> {
        let g = self.main.geometry();
        st.actions(g)
            .into_iter()
            .find(|&a| self.closes(&st.play(a), x))
    }

    /// Whether an outlast step for `x` closes `child` at once; its line is kept for the
    /// child's step (see [`Emitter::closing_line`]).
    fn closes(&mut self, child: &State, x: Color) -> bool {
        self.closing = self.outlast_line(child, x).map(|moves| (*child, x, moves));
        self.closing.is_some()
    }

    /// [`Emitter::outlast_line`], taken from the last [`Emitter::closes`] when that
    /// found it for the same state and winner.
    fn closing_line(&mut self, st: &State, x: Color) -> Option<Vec<amazons_format::Move>> {
        match self.closing.take() {
            Some((kept, winner, moves)) if kept == *st && winner == x => Some(moves),
            _ => self.outlast_line(st, x),
        }
    }
}
