//! Alpha-beta win/loss solver (paper V-A's `ab`): iterative deepening, a bounded table, static-evaluation, killer and history move ordering.
//!
//! Scores are from the side to move: [`WIN`] and `-WIN` are proven results (the game has
//! no draws and every board move fills a square, so the depth is bounded by the empty
//! squares plus spare moves); anything strictly between is a heuristic value from the
//! static evaluation at the depth horizon. The search is fail-soft negamax, and a node
//! stops at the first child it proves lost for the opponent, so a returned `WIN` always
//! rests on such a child and a returned `-WIN` on every child proven won: only those two
//! are stored as proven (depth-independent), every other value as a bound with its depth.
//! The same static evaluation as df-pn's decides nodes
//! ([`crate::search_base::SearchBase::verdict`]: no action, outlast, then the
//! evaluation's verdict), and its bound sums give the heuristic score. Proof extraction ([`crate::emit`]) reads the proven entries
//! through the [`Prover`] trait.

use crate::dfpn::Options;
use crate::emit::Prover;
use crate::geometry::{Geometry, Key};
use crate::pos::OpponentLiberties;
use crate::search_base::{SearchBase, Verdict};
use crate::state::State;
use amazons_format::{Action, Color, Move};

/// A proven win for the side to move.
pub const WIN: i32 = 30_000;
/// Window bounds beyond any score.
const INFINITY: i32 = 32_000;
/// Heuristic scores are clamped to this.
const HEURISTIC_CAP: i32 = 20_000;
/// Depth stored for proven entries.
const PROVEN_DEPTH: u8 = u8::MAX;
/// Plies with killer slots.
const MAX_PLY: usize = 128;
/// Nodes at remaining depth at least this order their children by the children's static
/// evaluation (cached in the table; nearer the horizon history and mobility order them).
const EVAL_ORDER_DEPTH: u32 = 2;

const BOUND_NONE: u8 = 0;
const BOUND_EXACT: u8 = 1;
const BOUND_LOWER: u8 = 2;
const BOUND_UPPER: u8 = 3;
const FLAG_PROVEN: u8 = 4;
const FLAG_EVAL: u8 = 8;
const FLAG_STAT: u8 = 16;

/// One table slot (24 bytes).
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    /// Key check (never 0 for a used slot).
    check: u64,
    /// Nodes spent below the entry (for proof extraction: the smallest proof first).
    work: u32,
    score: i16,
    /// The static score of the position, when `FLAG_STAT` is set.
    stat: i16,
    depth: u8,
    /// Bound type in the low two bits, then the flags.
    flags: u8,
    /// Best action: 0 none, 1 board move `mv`, 2 spare move.
    kind: u8,
    mv: [u8; 3],
}

impl Entry {
    fn bound(&self) -> u8 {
        self.flags & 3
    }
    fn proven(&self) -> bool {
        self.flags & FLAG_PROVEN != 0
    }
    fn action(&self) -> Option<Action> {
        match self.kind {
            1 => Some(Action::Board(Move {
                from: self.mv[0],
                to: self.mv[1],
                arrow: self.mv[2],
            })),
            2 => Some(Action::Spare),
            _ => None,
        }
    }
    fn set_action(&mut self, a: Option<Action>) {
        (self.kind, self.mv) = match a {
            Some(Action::Board(m)) => (1, [m.from, m.to, m.arrow]),
            Some(Action::Spare) => (2, [0; 3]),
            None => (0, [0; 3]),
        };
    }
}

/// The bounded table: two-slot buckets, the first kept for the deeper entry (proven ones
/// deepest), the second always replaced.
pub struct AbTable {
    slots: Vec<[Entry; 2]>,
    /// Entries written.
    pub stores: u64,
}

fn check_of(key: Key) -> u64 {
    (key as u64) | 1
}

impl AbTable {
    /// A table of `mib` MiB (at least one bucket).
    pub fn new(mib: usize) -> AbTable {
        let len = ((mib.max(1) << 20) / std::mem::size_of::<[Entry; 2]>()).max(1);
        AbTable {
            slots: vec![[Entry::default(); 2]; len],
            stores: 0,
        }
    }

    /// Entries the table holds at most.
    pub fn capacity(&self) -> usize {
        self.slots.len() * 2
    }

    /// Bytes per entry.
    pub const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

    fn index(&self, key: Key) -> usize {
        (((key >> 64) as u64 as u128 * self.slots.len() as u128) >> 64) as usize
    }

    fn get(&self, key: Key) -> Option<Entry> {
        let c = check_of(key);
        self.slots[self.index(key)]
            .iter()
            .find(|e| e.check == c)
            .copied()
    }

    fn put(&mut self, key: Key, mut e: Entry) {
        e.check = check_of(key);
        self.stores += 1;
        let i = self.index(key);
        let b = &mut self.slots[i];
        if let Some(s) = b.iter_mut().find(|s| s.check == e.check) {
            // Never lose a proof or a cached static score to a weaker entry of the same key.
            if s.proven() && !e.proven() {
                return;
            }
            if s.flags & FLAG_STAT != 0 && e.flags & FLAG_STAT == 0 {
                e.stat = s.stat;
                e.flags |= FLAG_STAT;
            }
            *s = e;
        } else if e.depth >= b[0].depth || b[0].check == 0 {
            b[1] = b[0];
            b[0] = e;
        } else {
            b[1] = e;
        }
    }

    /// The fraction of slots in use.
    pub fn fill(&self) -> f64 {
        let used: usize = self
            .slots
            .iter()
            .map(|b| b.iter().filter(|e| e.check != 0).count())
            .sum();
        used as f64 / self.capacity() as f64
    }
}

/// What the static evaluation says about a node, from its side to move.
enum Static {
    /// Decided: `true` a win; `eval` when the evaluation (not a rule) decided it.
    Decided {
        win: bool,
        eval: bool,
    },
    Score(i32),
}

/// An alpha-beta search over one board.
pub struct AbSearch<'g> {
    /// Nodes (`base.nodes`): calls of the search routine plus positions evaluated only to
    /// order moves.
    pub base: SearchBase<'g>,
    pub tt: AbTable,
    /// Iterations of iterative deepening over all `solve` calls, and the last one's depth.
    pub iterations: u64,
    pub last_depth: u32,
    killers: Vec<[Option<Action>; 2]>,
    /// History counts by (from, to, arrow); spare moves in the last slot.
    history: Vec<u32>,
}

/// History slots: one per (from, to, arrow) of a 10x10 board, plus the spare move.
const HISTORY_LEN: usize = 100 * 100 * 100 + 1;

fn history_index(a: Action) -> usize {
    match a {
        Action::Board(m) => (m.from as usize * 100 + m.to as usize) * 100 + m.arrow as usize,
        Action::Spare => HISTORY_LEN - 1,
    }
}

impl<'g> AbSearch<'g> {
    /// A search with `opts.hash_mib` MiB of table, the node budget and the evaluation
    /// (and databases) of `opts`.
    pub fn new(g: &'g Geometry, opts: &Options) -> AbSearch<'g> {
        AbSearch {
            base: SearchBase::new(g, opts),
            tt: AbTable::new(opts.hash_mib),
            iterations: 0,
            last_depth: 0,
            killers: vec![[None; 2]; MAX_PLY],
            history: vec![0; HISTORY_LEN],
        }
    }

    /// Solves `st` by iterative deepening: the winner, or `None` if the budget ran out.
    pub fn solve(&mut self, st: &State) -> Option<Color> {
        self.deepen(st, false)
    }

    fn deepen(&mut self, st: &State, skip_root_eval: bool) -> Option<Color> {
        let key = st.key(self.base.g);
        // Every board move fills a square and every spare move spends one: at this depth
        // every leaf is terminal, so the root is decided.
        let horizon = st.pos.empty(self.base.g).count() + st.spare.unsigned_abs() + 1;
        for depth in 1..=horizon.max(1) {
            self.iterations += 1;
            self.last_depth = depth;
            let v = self.search(st, key, depth, -INFINITY, INFINITY, 0, skip_root_eval);
            if self.base.stopped {
                return None;
            }
            if self.base.progress {
                eprintln!(
                    "ab: depth {depth}, score {v}, {} nodes, table {:.0}% full",
                    self.base.nodes,
                    self.tt.fill() * 100.0
                );
            }
            if v >= WIN {
                return Some(st.side());
            }
            if v <= -WIN {
                return Some(st.side().opponent());
            }
        }
        None
    }

    fn tick(&mut self) {
        self.base.nodes += 1;
        if self.base.nodes >= self.base.max_nodes {
            self.base.stopped = true;
        }
    }

    /// The static decision or score of `st` (see [`Static`]).
    fn evaluate(&mut self, st: &State) -> Static {
        let e = match self.base.verdict(st) {
            Verdict::Rule(win) => return Static::Decided { win, eval: false },
            Verdict::Eval(win) => return Static::Decided { win, eval: true },
            Verdict::Open(e) => e,
        };
        let g = self.base.g;
        let (me, you) = (st.side(), st.side().opponent());
        // Mobility: liberties of the side to move minus the opponent's.
        let mobility = st.pos.liberties(g, me) as i32 - st.pos.liberties(g, you) as i32;
        let Some(e) = e else {
            return Static::Score(mobility);
        };
        // Twice the midpoint of the bounds on the score (Black's view), spares included.
        let black = e.total.lower.value.floor() + e.total.upper.value.ceil() + 2 * st.spare as i64;
        let mine = match me {
            Color::Black => black,
            Color::White => -black,
        };
        let s = (mine * 16).clamp(-(HEURISTIC_CAP as i64), HEURISTIC_CAP as i64) as i32;
        Static::Score((s + mobility).clamp(-HEURISTIC_CAP, HEURISTIC_CAP))
    }

    /// The static score of a position known to the table, or evaluated now (and stored):
    /// `±WIN` when decided. Counts a node when it evaluates.
    fn static_score(&mut self, st: &State, key: Key) -> i32 {
        if let Some(e) = self.tt.get(key) {
            if e.proven() {
                return e.score as i32;
            }
            if e.flags & FLAG_STAT != 0 {
                return e.stat as i32;
            }
        }
        self.tick();
        match self.evaluate(st) {
            Static::Decided { win, eval } => {
                self.store_proven(key, win, eval, 1, None);
                if win {
                    WIN
                } else {
                    -WIN
                }
            }
            Static::Score(s) => {
                self.tt.put(
                    key,
                    Entry {
                        stat: s as i16,
                        flags: BOUND_NONE | FLAG_STAT,
                        ..Entry::default()
                    },
                );
                s
            }
        }
    }

    fn store_proven(&mut self, key: Key, win: bool, eval: bool, work: u32, a: Option<Action>) {
        let mut e = Entry {
            work: if eval { 0 } else { work.max(1) },
            score: if win { WIN as i16 } else { -WIN as i16 },
            depth: PROVEN_DEPTH,
            flags: BOUND_EXACT | FLAG_PROVEN | if eval { FLAG_EVAL } else { 0 },
            ..Entry::default()
        };
        e.set_action(a);
        self.tt.put(key, e);
    }

    /// Fail-soft negamax to `depth`. `skip_eval`: search this node's children, taking
    /// neither its static decision nor its table entry (proof extraction opening a node
    /// the evaluation decided or whose proving children the table lost).
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        st: &State,
        key: Key,
        depth: u32,
        alpha: i32,
        beta: i32,
        ply: usize,
        skip_eval: bool,
    ) -> i32 {
        self.tick();
        if self.base.stopped {
            return 0;
        }
        let start_nodes = self.base.nodes;
        let entry = self.tt.get(key);
        let mut tt_move = None;
        let mut prior_work = 0;
        let mut stat = None;
        if let Some(e) = entry {
            // Opening a node (`skip_eval`): its children are searched whatever the table
            // says about the node itself.
            if e.proven() && !skip_eval {
                return e.score as i32;
            }
            let usable = e.depth as u32 >= depth && !e.proven() && !skip_eval;
            match e.bound() {
                BOUND_EXACT if usable => return e.score as i32,
                BOUND_LOWER if usable && e.score as i32 >= beta => return e.score as i32,
                BOUND_UPPER if usable && e.score as i32 <= alpha => return e.score as i32,
                _ => {}
            }
            tt_move = e.action();
            prior_work = e.work;
            if e.flags & FLAG_STAT != 0 {
                stat = Some(e.stat as i32);
            }
        }
        if !skip_eval && stat.is_none() && entry.is_none_or(|e| !e.proven()) {
            match self.evaluate(st) {
                Static::Decided { win, eval } => {
                    self.store_proven(key, win, eval, 1, None);
                    return if win { WIN } else { -WIN };
                }
                Static::Score(s) => stat = Some(s),
            }
        }
        if depth == 0 {
            let s = stat.unwrap_or(0);
            let mut e = Entry {
                score: s as i16,
                stat: s as i16,
                depth: 0,
                flags: BOUND_EXACT | FLAG_STAT,
                work: prior_work,
                ..Entry::default()
            };
            e.set_action(tt_move);
            self.tt.put(key, e);
            return s;
        }
        let actions = self.ordered(st, depth, ply, tt_move);
        if actions.is_empty() {
            self.store_proven(key, false, false, 1, None);
            return -WIN;
        }
        let (mut best, mut best_action) = (-INFINITY, None);
        for a in actions {
            let child = st.play(a);
            let ck = child.key(self.base.g);
            let v = -self.search(
                &child,
                ck,
                depth - 1,
                -beta,
                -alpha.max(best),
                ply + 1,
                false,
            );
            if self.base.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_action = Some(a);
            }
            if best >= WIN || best >= beta {
                self.reward(a, depth, ply);
                break;
            }
        }
        let work =
            prior_work.saturating_add((self.base.nodes - start_nodes).min(u32::MAX as u64) as u32);
        if best >= WIN || best <= -WIN {
            self.store_proven(key, best >= WIN, false, work, best_action);
        } else {
            let bound = if best <= alpha {
                BOUND_UPPER
            } else if best >= beta {
                BOUND_LOWER
            } else {
                BOUND_EXACT
            };
            let mut e = Entry {
                work,
                score: best as i16,
                stat: stat.unwrap_or(0) as i16,
                depth: depth.min(PROVEN_DEPTH as u32 - 1) as u8,
                flags: bound | if stat.is_some() { FLAG_STAT } else { 0 },
                ..Entry::default()
            };
            e.set_action(best_action);
            self.tt.put(key, e);
        }
        best
    }

    /// Killer and history update for a move that cut off (or proved the node).
    fn reward(&mut self, a: Action, depth: u32, ply: usize) {
        let h = &mut self.history[history_index(a)];
        *h = h.saturating_add(depth * depth);
        if let Some(k) = self.killers.get_mut(ply) {
            if k[0] != Some(a) {
                k[1] = k[0];
                k[0] = Some(a);
            }
        }
    }

    /// The actions of `st`, best first: the table's move, the killers of this ply, then
    /// by the children's static scores (at `depth >= EVAL_ORDER_DEPTH` with an
    /// evaluation) or by history, ties by fewer opponent liberties.
    fn ordered(
        &mut self,
        st: &State,
        depth: u32,
        ply: usize,
        tt_move: Option<Action>,
    ) -> Vec<Action> {
        let g = self.base.g;
        let actions = st.actions(g);
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        let by_eval = self.base.eval.is_some() && depth >= EVAL_ORDER_DEPTH;
        let libs = OpponentLiberties::new(g, &st.pos);
        let mut keyed: Vec<(i64, Action)> = Vec::with_capacity(actions.len());
        for a in actions {
            let k = if Some(a) == tt_move {
                i64::MAX
            } else if Some(a) == killers[0] {
                i64::MAX - 1
            } else if Some(a) == killers[1] {
                i64::MAX - 2
            } else {
                let hist = self.history[history_index(a)] as i64;
                let opp_libs = match a {
                    Action::Board(m) => libs.after(m) as i64,
                    Action::Spare => libs.count() as i64,
                };
                if by_eval {
                    let child = st.play(a);
                    let s = self.static_score(&child, child.key(g)) as i64;
                    // The child's score is the opponent's: lower is better for us.
                    (-s << 32) + (hist.min(1 << 24) << 6) - opp_libs
                } else {
                    (hist << 8) - opp_libs
                }
            };
            keyed.push((k, a));
        }
        // Stable: equal keys keep the canonical order.
        keyed.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
        keyed.into_iter().map(|(_, a)| a).collect()
    }
}

impl<'g> Prover<'g> for AbSearch<'g> {
    fn solve(&mut self, st: &State) -> Option<Color> {
        AbSearch::solve(self, st)
    }
    fn base(&self) -> &SearchBase<'g> {
        &self.base
    }
    fn base_mut(&mut self) -> &mut SearchBase<'g> {
        &mut self.base
    }
    fn lost_work(&self, st: &State) -> Option<u32> {
        let e = self.tt.get(st.key(self.base.g))?;
        (e.proven() && (e.score as i32) <= -WIN).then_some(e.work)
    }
    fn is_eval_leaf(&self, st: &State) -> bool {
        self.tt
            .get(st.key(self.base.g))
            .is_some_and(|e| e.proven() && e.flags & FLAG_EVAL != 0)
    }
    fn research(&mut self, st: &State) -> bool {
        self.deepen(st, true) == Some(st.side())
    }
}

#[cfg(test)]
#[path = "ab_tests.rs"]
mod tests;
