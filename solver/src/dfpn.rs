//! Depth-first proof-number search (df-pn) with terminal and outlast detection.
//!
//! Proof numbers are kept from the point of view of the side to move: `phi` is the
//! effort to prove that the side to move wins, `delta` the effort to prove it loses.
//! Child thresholds use the 1+epsilon trick of Pawlewicz and Lew to limit thrashing.

use crate::eval::{EvalConfig, Evaluator};
use crate::geometry::{Geometry, Key};
use crate::pos::OpponentLiberties;
use crate::search_base::{SearchBase, Verdict};
use crate::state::State;
use crate::tt::{Table, INF};
use amazons_format::{Action, Color};
use std::time::{Duration, Instant};

/// Search settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Transposition table size in MiB.
    pub hash_mib: usize,
    /// Stop after this many nodes (the result is then unknown).
    pub max_nodes: Option<u64>,
    /// Print a progress line to stderr about once a second.
    pub progress: bool,
    /// Static evaluation (paper section IV) used to stop the search early; `None` for
    /// terminal and outlast detection only.
    pub eval: Option<EvalConfig>,
    /// Territory databases for the evaluation (paper section III), when loaded.
    pub db: Option<std::sync::Arc<crate::db::Database>>,
    /// The active-area (combinatorial game) database, when loaded.
    pub active_db: Option<std::sync::Arc<crate::db::active::ActiveDb>>,
    /// Counters that every search with these options adds its nodes to as it goes (in
    /// steps of 4096, the rest when it ends): the live node count of a run that has many
    /// searches at once, such as a sharded solve, and of one of its tasks.
    pub live_nodes: Vec<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// How a node's disproof number is made from its children's proof numbers.
    pub numbers: Numbers,
    /// Give up proof extraction past this many certificate steps (see
    /// [`crate::emit::EmitError::TooLarge`]); `None`: only memory bounds it.
    pub max_steps: Option<u64>,
}

/// How df-pn combines the children's proof numbers into a node's disproof number (every
/// move of the side to move must be refuted to disprove the node).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Numbers {
    /// The sum over the children (plain df-pn). Amazons positions transpose heavily (moves
    /// in separate areas commute), so the sum counts shared subtrees many times over.
    Sum,
    /// Weak proof numbers (Ueda et al. 2008): the largest child number plus one for each
    /// other child not yet refuted. Not inflated by transpositions. Most 6x4 and 4x7
    /// tasks take a half to a tenth of the sum's time, and the two hardest 6x4 tasks
    /// went from over an hour to minutes; 5x5 and some 5x6 replies are slower
    /// (BENCHMARKS.md, "Weak proof numbers").
    #[default]
    Weak,
    /// Between the two: the largest child number plus, for each other child not yet
    /// refuted, its number up to [`CAPPED_AT`]. A child that looks hard counts for more
    /// than one that looks easy, as in the sum, but no child counts for more than a few, so
    /// a subtree shared by many children is not counted many times over.
    Capped,
}

/// The most one child other than the largest adds to a disproof number under
/// [`Numbers::Capped`].
pub const CAPPED_AT: u64 = 8;

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mib: 256,
            max_nodes: None,
            progress: false,
            eval: Some(EvalConfig::default()),
            db: None,
            active_db: None,
            live_nodes: Vec::new(),
            numbers: Numbers::default(),
            max_steps: None,
        }
    }
}

impl Options {
    /// The static evaluator of these options, with their databases; `None` without
    /// evaluation.
    pub fn evaluator(&self) -> Option<Evaluator> {
        self.eval
            .map(|cfg| Evaluator::with_databases(cfg, self.db.clone(), self.active_db.clone()))
    }
}

struct Kid {
    action: Action,
    key: Key,
    phi: u32,
    delta: u32,
    /// Tie-break among equal disproof numbers, lower first: the opponent's liberties
    /// (empty squares next to its queens) after the action.
    order: u32,
}

/// A df-pn search over one board.
pub struct Search<'g> {
    /// Nodes (`base.nodes`): expansions (calls of the main search routine).
    pub base: SearchBase<'g>,
    pub tt: Table,
    start: Instant,
    last_report: Instant,
    /// The key of the position `solve` was called on, and its latest `(phi, delta)`
    /// while its children are searched (for the progress line).
    root: (Key, u32, u32),
    /// Child lists of finished expansions, reused by the next ones (an expansion of an
    /// early position has hundreds of children; allocating the list each time was a
    /// tenth of the search time).
    spare_kids: Vec<Vec<Kid>>,
    live: Vec<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    numbers: Numbers,
}

impl Drop for Search<'_> {
    fn drop(&mut self) {
        for live in &self.live {
            live.fetch_add(
                self.base.nodes % LIVE_STEP,
                std::sync::atomic::Ordering::Relaxed,
            );
        }
    }
}

/// Nodes between two additions to [`Options::live_nodes`].
const LIVE_STEP: u64 = 4096;

/// A flag that stops searches once set (see [`abort_on_any`]).
pub type AbortFlag = std::sync::Arc<std::sync::atomic::AtomicBool>;

thread_local! {
    /// Flags that stop every search on this thread once one is set (see [`abort_on_any`]).
    static ABORT: std::cell::RefCell<Vec<AbortFlag>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Makes every search on this thread stop, as if over its node budget, within
/// [`LIVE_STEP`] nodes of `flag` being set (`None`: never): a sharded run whose root is
/// settled, or that failed, ends the searches still in flight instead of finishing them.
pub fn abort_on(flag: Option<AbortFlag>) {
    abort_on_any(flag.into_iter().collect());
}

/// The same for several flags, any one of which stops the searches (the run's, and those
/// of the subtask lists a thread works in, each nested in the last); returns the flags it
/// replaces, so that a caller can put them back.
pub fn abort_on_any(flags: Vec<AbortFlag>) -> Vec<AbortFlag> {
    ABORT
        .try_with(|a| std::mem::replace(&mut *a.borrow_mut(), flags))
        .unwrap_or_default()
}

/// The flags that stop this thread's searches ([`abort_on_any`]).
pub fn abort_flags() -> Vec<AbortFlag> {
    ABORT.try_with(|a| a.borrow().clone()).unwrap_or_default()
}

/// Whether one of this thread's abort flags ([`abort_on_any`]) is set.
pub fn aborted() -> bool {
    ABORT
        .try_with(|a| {
            a.borrow()
                .iter()
                .any(|f| f.load(std::sync::atomic::Ordering::Relaxed))
        })
        .unwrap_or(false)
}

impl<'g> Search<'g> {
    pub fn new(g: &'g Geometry, opts: &Options) -> Search<'g> {
        Search::with_table(g, opts, Table::new(opts.hash_mib))
    }

    /// A search with this table (e.g. one an earlier search left, [`crate::tt::carry`]).
    pub fn with_table(g: &'g Geometry, opts: &Options, tt: Table) -> Search<'g> {
        let now = Instant::now();
        Search {
            base: SearchBase::new(g, opts),
            tt,
            start: now,
            last_report: now,
            root: (0, 1, 1),
            spare_kids: Vec::new(),
            live: opts.live_nodes.clone(),
            numbers: opts.numbers,
        }
    }

    /// Solves `st`: the winner, or `None` if the node budget ran out first.
    pub fn solve(&mut self, st: &State) -> Option<Color> {
        let key = st.key(self.base.g);
        self.root = (key, 1, 1);
        let (phi, delta) = self.mid(st, key, INF, INF);
        if phi == 0 {
            Some(st.side())
        } else if delta == 0 {
            Some(st.side().opponent())
        } else {
            None
        }
    }

    /// The stored `(phi, delta, work)` of a state, if any.
    pub fn lookup(&self, st: &State) -> Option<(u32, u32, u32)> {
        self.tt
            .get(st.key(self.base.g))
            .map(|s| (s.phi, s.delta, s.work))
    }

    /// For each of `states`, the work behind it when the table holds it as lost for its
    /// side to move. The table loads of all of them are started before any is read, so
    /// that their cache misses overlap (as for a node's children in the search).
    pub fn lost_works(&self, states: &[State]) -> Vec<Option<u32>> {
        let keys: Vec<Key> = states.iter().map(|st| st.key(self.base.g)).collect();
        let touched = keys.iter().fold(0u64, |acc, &k| acc ^ self.tt.touch(k));
        std::hint::black_box(touched);
        (keys.iter())
            .map(|&k| self.tt.get(k).filter(|s| s.delta == 0).map(|s| s.work))
            .collect()
    }

    /// Whether the table holds `st` as decided by the static evaluation itself (stored
    /// with work 0), i.e. without a move or territory argument behind it.
    pub fn is_eval_leaf(&self, st: &State) -> bool {
        matches!(self.lookup(st), Some((p, d, 0)) if p == 0 || d == 0)
    }

    /// Static decision from the side to move: `(phi, delta, work)` with work 1 for
    /// terminal and outlast decisions and 0 for decisions of the evaluation.
    fn evaluate(&mut self, st: &State) -> Option<(u32, u32, u32)> {
        let (win, work) = match self.base.verdict(st) {
            Verdict::Rule(win) => (win, 1),
            Verdict::Eval(win) => (win, 0),
            Verdict::Open(_) => return None,
        };
        Some(if win { (0, INF, work) } else { (INF, 0, work) })
    }

    fn tick(&mut self) {
        if self.base.nodes >= self.base.max_nodes {
            self.base.stopped = true;
        }
        if !self.base.nodes.is_multiple_of(LIVE_STEP) {
            return;
        }
        if aborted() {
            self.base.stopped = true;
        }
        for live in &self.live {
            live.fetch_add(LIVE_STEP, std::sync::atomic::Ordering::Relaxed);
        }
        if self.base.progress {
            let now = Instant::now();
            if now.duration_since(self.last_report) >= Duration::from_secs(1) {
                self.last_report = now;
                let secs = now.duration_since(self.start).as_secs_f64();
                eprintln!(
                    "progress: {} nodes, {:.0} nodes/s, {:.1} s, table {:.0}% full, root proof/disproof numbers {}/{}",
                    self.base.nodes,
                    self.base.nodes as f64 / secs.max(1e-9),
                    secs,
                    self.tt.fill() * 100.0,
                    self.root.1,
                    self.root.2
                );
            }
        }
    }

    fn children(&mut self, st: &State, key: Key) -> Vec<Kid> {
        let g = self.base.g;
        let piece = match st.side() {
            Color::White => 0,
            Color::Black => 1,
        };
        let mut kids = self.spare_kids.pop().unwrap_or_default();
        kids.clear();
        // Move ordering (only among children of equal disproof number): moves that leave
        // the opponent fewer liberties first. A move empties `from` and fills `to` and
        // the arrow square, so the count is a few bit operations per child.
        let libs = OpponentLiberties::new(g, &st.pos);
        st.pos.for_each_move(g, |m| {
            let ck = key
                ^ g.zobrist(m.from, piece)
                ^ g.zobrist(m.to, piece)
                ^ g.zobrist(m.arrow, 2)
                ^ g.zobrist_black_to_move;
            kids.push(Kid {
                action: Action::Board(m),
                key: ck,
                phi: 1,
                delta: 1,
                order: libs.after(m),
            });
        });
        if st.spares_of(st.side()) > 0 {
            kids.push(Kid {
                action: Action::Spare,
                key: st.play(Action::Spare).key(g),
                phi: 1,
                delta: 1,
                order: u32::MAX,
            });
        }
        // Start every child's table load before reading any: the misses overlap.
        let touched = kids.iter().fold(0u64, |acc, k| acc ^ self.tt.touch(k.key));
        std::hint::black_box(touched);
        for k in kids.iter_mut() {
            if let Some(s) = self.tt.get(k.key) {
                k.phi = s.phi;
                k.delta = s.delta;
            } else {
                // A child where the opponent cannot act is lost for it. After a board
                // move that is: no liberties (`order`, the same count as `can_move`)
                // and no spare moves (a board move does not change them).
                let stuck = match k.action {
                    Action::Board(_) => k.order == 0 && st.spares_of(st.side().opponent()) == 0,
                    Action::Spare => {
                        let c = st.play(k.action);
                        !c.can_act(g, c.side())
                    }
                };
                if stuck {
                    k.phi = INF;
                    k.delta = 0;
                }
            }
        }
        kids
    }

    /// The proof and disproof numbers of a new node as its first expansion would set
    /// them if none of its children were in the table: `(0, INF)` if some action leaves
    /// the opponent without one, else `(1, number of actions)`. Computed without listing
    /// the children or probing the table for them. Almost every node is expanded once and
    /// left at once, because its disproof number already reaches the threshold, and the
    /// child probes of those expansions (64 per node on 6x4, 99.6% of them misses) were
    /// most of the search time. The children are probed when the node is entered again.
    fn first_numbers(&self, st: &State) -> (u32, u32) {
        let g = self.base.g;
        let me = st.side();
        let opp = OpponentLiberties::new(g, &st.pos);
        let libs = opp.count();
        if st.spares_of(me.opponent()) == 0 {
            // The opponent is stuck after a spare move if it has no liberties now, and
            // after a board move only if it has at most two now: a move fills two squares.
            if libs == 0 && st.spares_of(me) > 0 {
                return (0, INF);
            }
            if libs <= 2 {
                let mut stuck = false;
                st.pos.for_each_move(g, |m| stuck |= opp.after(m) == 0);
                if stuck {
                    return (0, INF);
                }
            }
        }
        let n = st.pos.count_moves(g) + u64::from(st.spares_of(me) > 0);
        (1, n.min(INF as u64 - 1) as u32)
    }

    /// The df-pn main routine: searches `pos` until its proof or disproof number reaches
    /// its threshold, and returns `(phi, delta)`.
    pub fn mid(&mut self, st: &State, key: Key, th_phi: u32, th_delta: u32) -> (u32, u32) {
        self.base.nodes += 1;
        self.tick();
        let prior_work = match self.tt.get(key) {
            Some(s) => {
                if s.phi >= th_phi || s.delta >= th_delta || self.base.stopped {
                    return (s.phi, s.delta);
                }
                s.work
            }
            None => {
                if let Some((p, d, work)) = self.evaluate(st) {
                    self.tt.put(key, p, d, work);
                    return (p, d);
                }
                if self.base.stopped {
                    return (1, 1);
                }
                let (p, d) = self.first_numbers(st);
                if p >= th_phi || d >= th_delta {
                    self.tt.put(key, p, d, 1);
                    return (p, d);
                }
                0
            }
        };
        self.expand(st, key, th_phi, th_delta, prior_work)
    }

    /// Searches the children of `st` (never its static evaluation) until the node's
    /// proof or disproof number reaches its threshold. Used by `mid`, and by proof
    /// extraction to open a node that the evaluation decided without a move.
    pub fn expand(
        &mut self,
        st: &State,
        key: Key,
        th_phi: u32,
        th_delta: u32,
        prior_work: u32,
    ) -> (u32, u32) {
        let start_nodes = self.base.nodes;
        let mut kids = self.children(st, key);
        loop {
            let (mut phi, mut delta2, mut best) = (INF, INF, 0usize);
            // `open`: children not yet refuted (proof number above 0), `maxphi` the
            // largest of their proof numbers (for the weak and the capped numbers).
            let (mut sum, mut infinite) = (0u64, false);
            // `capped`: the sum of their proof numbers, each cut to CAPPED_AT.
            let (mut maxphi, mut open, mut capped) = (0u64, 0u64, 0u64);
            for (i, k) in kids.iter().enumerate() {
                if k.phi > 0 {
                    open += 1;
                    maxphi = maxphi.max(k.phi as u64);
                    capped += (k.phi as u64).min(CAPPED_AT);
                }
                if k.delta < phi || (k.delta == phi && k.order < kids[best].order) {
                    delta2 = phi;
                    phi = k.delta;
                    best = i;
                } else if k.delta < delta2 {
                    delta2 = k.delta;
                }
                if k.phi >= INF {
                    infinite = true;
                } else {
                    sum += k.phi as u64;
                }
            }
            let delta = if infinite {
                INF
            } else {
                match self.numbers {
                    Numbers::Sum => sum,
                    Numbers::Weak => (maxphi + open).saturating_sub(1),
                    Numbers::Capped => maxphi + capped - maxphi.min(CAPPED_AT),
                }
                .min(INF as u64 - 1) as u32
            };
            if key == self.root.0 {
                self.root = (key, phi, delta);
            }
            if phi >= th_phi || delta >= th_delta || self.base.stopped {
                let spent = (self.base.nodes - start_nodes).min(u32::MAX as u64) as u32;
                self.tt
                    .put(key, phi, delta, prior_work.saturating_add(spent).max(1));
                self.spare_kids.push(kids);
                return (phi, delta);
            }
            // What the other children add to the disproof number: the child's threshold
            // is what brings the node's number to its own threshold.
            let others = match self.numbers {
                Numbers::Sum => sum - kids[best].phi as u64,
                Numbers::Weak => open.saturating_sub(1) + u64::from(kids[best].phi == 0),
                Numbers::Capped => capped - (kids[best].phi as u64).min(CAPPED_AT),
            };
            let th_phi_c = (th_delta as u64).saturating_sub(others).min(INF as u64) as u32;
            let eps = delta2.saturating_add(1).max(delta2 + delta2 / 4);
            let th_delta_c = th_phi.min(eps).min(INF);
            let child = st.play(kids[best].action);
            let (p, d) = self.mid(&child, kids[best].key, th_phi_c, th_delta_c);
            kids[best].phi = p;
            kids[best].delta = d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Rng;
    use crate::test_support::assert_true_winners;
    use amazons_format::Position;

    /// What the first expansion of `st` computes from its children with an empty table:
    /// `(min delta, sum phi)`, a stuck child giving `(INF, 0)`. With every child at
    /// `(1, 1)` the weak numbers give the same (largest 1, plus one per other child).
    fn numbers_from_children(search: &mut Search, st: &State) -> (u32, u32) {
        let kids = search.children(st, st.key(search.base.g));
        let phi = kids.iter().map(|k| k.delta).min().unwrap_or(INF);
        let delta = if kids.iter().any(|k| k.phi >= INF) {
            INF
        } else {
            kids.iter()
                .map(|k| k.phi as u64)
                .sum::<u64>()
                .min(INF as u64 - 1) as u32
        };
        (phi, delta)
    }

    /// Both number rules, with and without evaluation, find the winner that exhaustive
    /// search finds, on positions from random games on small boards.
    #[test]
    fn every_number_rule_finds_the_true_winner() {
        let variants: Vec<Options> = [Numbers::Sum, Numbers::Weak, Numbers::Capped]
            .into_iter()
            .flat_map(|numbers| {
                [None, Some(EvalConfig::default())].map(|eval| Options {
                    hash_mib: 4,
                    eval,
                    numbers,
                    ..Options::default()
                })
            })
            .collect();
        let checked = assert_true_winners(
            11,
            |_| 0,
            &variants,
            |g, opts, st| Search::new(g, opts).solve(st),
        );
        assert_eq!(checked, 3 * 6 * 6);
    }

    #[test]
    fn first_numbers_are_those_of_a_first_expansion_without_the_table() {
        let mut rng = Rng(6);
        let (mut checked, mut stuck) = (0, 0);
        for board in ["4x4", "5x4", "4x5", "5x5", "6x4"] {
            let start = Position::start(board).expect("board");
            let g = Geometry::new(start.board);
            let opts = Options {
                hash_mib: 1,
                eval: None,
                ..Options::default()
            };
            let mut search = Search::new(&g, &opts);
            for game in 0..40 {
                // Random games to the end, with spare moves held by either side, so that
                // positions with few liberties (stuck children) come up.
                let spare = game % 5 - 2;
                let mut st = State::from_position(&start, spare);
                loop {
                    let actions = st.actions(&g);
                    if actions.is_empty() {
                        break;
                    }
                    // A node without actions never reaches first_numbers (it is terminal).
                    let lazy = search.first_numbers(&st);
                    assert_eq!(
                        lazy,
                        numbers_from_children(&mut search, &st),
                        "{board}: {st:?}"
                    );
                    checked += 1;
                    stuck += (lazy.0 == 0) as usize;
                    st = st.play(actions[rng.below(actions.len() as u64) as usize]);
                }
            }
        }
        assert!(checked > 1000, "{checked} positions");
        assert!(stuck > 10, "{stuck} positions with a stuck child");
    }

    /// The batched table reads of proof extraction give, child by child, what one read
    /// each gives: after a solve, over the children of positions along random games.
    #[test]
    fn lost_works_read_the_table_as_lost_work_does() {
        let mut rng = Rng(9);
        let start = Position::start("5x4").expect("board");
        let g = Geometry::new(start.board);
        let opts = Options {
            hash_mib: 8,
            ..Options::default()
        };
        let mut search = Search::new(&g, &opts);
        let (mut lost, mut open) = (0, 0);
        for _ in 0..20 {
            let mut st = State::from_position(&start, 0);
            while !st.actions(&g).is_empty() {
                search.solve(&st);
                let actions = st.actions(&g);
                let children: Vec<State> = actions.iter().map(|&a| st.play(a)).collect();
                let one_by_one: Vec<Option<u32>> = children
                    .iter()
                    .map(|c| crate::emit::Prover::lost_work(&search, c))
                    .collect();
                assert_eq!(search.lost_works(&children), one_by_one, "{st:?}");
                lost += one_by_one.iter().filter(|w| w.is_some()).count();
                open += one_by_one.iter().filter(|w| w.is_none()).count();
                st = st.play(actions[rng.below(actions.len() as u64) as usize]);
            }
        }
        assert!(lost > 100 && open > 100, "{lost} lost, {open} not");
    }
}
