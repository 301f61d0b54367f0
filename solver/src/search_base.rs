//! What df-pn and alpha-beta share besides their tables: the board, outlast detection, the evaluator, the node counters and budget, and the static verdict on a state.

use crate::dfpn::Options;
use crate::eval::{Bounds, Evaluation, Evaluator};
use crate::geometry::Geometry;
use crate::state::State;
use crate::territory::Territory;
use amazons_format::{Color, Move};

/// The part of a search ([`crate::dfpn::Search`], [`crate::ab::AbSearch`]) that is not its
/// table or its move ordering.
pub struct SearchBase<'g> {
    pub g: &'g Geometry,
    pub terr: Territory,
    /// The static evaluator, when enabled.
    pub eval: Option<Evaluator>,
    /// Nodes decided by the static evaluation (beyond terminal and outlast).
    pub eval_wins: u64,
    /// Nodes searched, as the search counts them.
    pub nodes: u64,
    pub(crate) max_nodes: u64,
    /// The node budget ran out (or the search was aborted).
    pub(crate) stopped: bool,
    /// Progress lines on stderr.
    pub(crate) progress: bool,
}

/// The static verdict on a state, from its side to move.
pub enum Verdict {
    /// Decided by a rule: the side to move cannot act (lost), or a side has an outlast
    /// line; `true` a win.
    Rule(bool),
    /// Decided by the static evaluation; `true` a win.
    Eval(bool),
    /// Not decided: the evaluation, when the search has an evaluator.
    Open(Option<Evaluation>),
}

impl<'g> SearchBase<'g> {
    /// The board `g`, the evaluation (and databases), the node budget and the progress
    /// flag of `opts`, no node searched yet.
    pub fn new(g: &'g Geometry, opts: &Options) -> SearchBase<'g> {
        SearchBase {
            g,
            terr: Territory::new(),
            eval: opts.evaluator(),
            eval_wins: 0,
            nodes: 0,
            max_nodes: opts.max_nodes.unwrap_or(u64::MAX),
            stopped: false,
            progress: opts.progress,
        }
    }

    /// The static decision on `st`: no action, an outlast line for the side to move then
    /// for its opponent, then the evaluation's verdict (counted in `eval_wins`).
    pub fn verdict(&mut self, st: &State) -> Verdict {
        let g = self.g;
        let me = st.side();
        if !st.can_act(g, me) {
            return Verdict::Rule(false);
        }
        for (who, win) in [(me, true), (me.opponent(), false)] {
            if self.outlast(st, who).is_some() {
                return Verdict::Rule(win);
            }
        }
        let Some(ev) = self.eval.as_mut() else {
            return Verdict::Open(None);
        };
        let e = ev.evaluate(g, &st.pos);
        // Spare moves are an integer held by one side: Black's count is `+spare`.
        match e.decide(me, Bounds::exact(st.spare as i64)) {
            Some(w) => {
                self.eval_wins += 1;
                Verdict::Eval(w == me)
            }
            None => Verdict::Open(Some(e)),
        }
    }

    /// An outlast line for `x` in `st` (see [`Territory::outlast`]).
    pub fn outlast(&mut self, st: &State, x: Color) -> Option<Vec<Move>> {
        let (xs, ys) = (st.spares_of(x), st.spares_of(x.opponent()));
        self.terr.outlast(self.g, &st.pos, x, xs, ys)
    }
}
