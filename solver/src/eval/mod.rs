//! Static evaluation after Song & Müller (2014): partition, area bounds, global verdict.
//!
//! # Why the sum of the area bounds bounds the position
//!
//! Basic areas are independent games, so their bounds add (combinatorial game sums).
//! Inside one mixed basic area `B` the improved partition yields territories `T` (sealed
//! from the opponent by the owner's blockers) and the remaining active area `R`; they
//! share blockers, so they are not independent games. Their bounds still add, by a
//! counting argument played in `B - L` with spares (Black second, for the lower bound
//! `L`; the upper bound is symmetric):
//!
//! * Black fills each of its territories with its normal queens and the blockers
//!   assigned to it (each blocker to at most one territory: the correction of seed 000),
//!   every blocker's first move shooting back onto its origin. So every territory stays
//!   sealed (an arrow replaces each blocker that moves) and its lower bound `p_T` is a
//!   line Black can always play. Black's safe move in `R` (if claimed) uses no blocker a
//!   territory relies on, and shoots back too.
//! * White can never enter a Black territory, so White's moves burn squares of White
//!   territories and of `R` only: at most `sum v(U) + v(R) - s_B` of them, where `s_B`
//!   is Black's safe move in `R`. That is the sum of the lower bounds `-v(U)` and
//!   `2 s_B - v(R)` and the `p_T`.
//! * Upper ends of territories are their empty-square counts (never a constrained value:
//!   the owner may break the blocker constraint when it suits him).
//!
//! Small mixed basic areas are instead searched whole (no split), which needs no such
//! argument. The global verdict applies the winner rules of [`Bounds::winner`].

pub mod cgt;
pub mod fill;
pub mod local;
pub mod partition;
pub mod static_rules;

#[cfg(test)]
mod tests;

pub use amazons_board::bounds;
pub use bounds::{Bound, BoundKind, Bounds, Rational};
pub use partition::{Area, AreaKind, Source};
pub use static_rules::Rule;

use crate::bitboard::Bb;
use crate::geometry::Geometry;
use crate::pos::Pos;
use amazons_format::Color;
use fill::{Filler, Solo};
use local::LocalSearch;
use partition::TerritoryPart;
use std::fmt;

/// Most assignments of shared blockers tried exhaustively before falling back to greedy.
const ASSIGNMENT_CAP: usize = 64;

/// Which evaluation components are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EvalConfig {
    /// Improved partition with blocker territories.
    pub blockers: bool,
    /// Safe-move rules on active areas.
    pub static_rules: bool,
    /// Local search of small mixed areas.
    pub local_search: bool,
    /// Local search only when queens plus empties is below this.
    pub local_limit: u32,
    /// Exhaustive one-player search for territories with at most 12 empties.
    pub exact_territories: bool,
    /// Exact combinatorial values (cgt crate) for mixed basic areas with at most this many
    /// empty squares, so that `*` and other infinitesimals are counted (paper IV-C2);
    /// 0 (the default) turns this off: computed on the fly the values cost more than they
    /// save on 4x4 and 5x4 (measured: 4x4 takes 0.7 s with 4, 17 s with 6, against 0.06 s).
    pub cgt_limit: u32,
}

impl Default for EvalConfig {
    fn default() -> EvalConfig {
        EvalConfig {
            blockers: true,
            static_rules: true,
            local_search: true,
            local_limit: 9,
            exact_territories: true,
            cgt_limit: 0,
        }
    }
}

/// Which global rule decided a position (paper II-D, IV-C2, IV-C1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GlobalRule {
    /// The sum of the area bounds.
    Sum,
    /// `*` and fuzzy infinitesimals counted apart.
    Infinitesimals,
    /// The side to move moves first in a hot area.
    HotLookahead,
}

/// Counts of the exactly known infinitesimal areas of an evaluation: `*`, other fuzzy,
/// positive and negative ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Infinitesimals {
    pub stars: u32,
    pub fuzzy: u32,
    pub positive: u32,
    pub negative: u32,
}

impl Infinitesimals {
    /// Whether the side to move can move last among them: an odd number of `*` and no
    /// other fuzzy one, or a single other fuzzy one and an even number of `*` (see
    /// [`Evaluation::decide`]).
    fn last_move(&self) -> bool {
        (self.stars % 2 == 1 && self.fuzzy == 0)
            || (self.fuzzy == 1 && self.stars.is_multiple_of(2))
    }
}

/// The result of evaluating a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluation {
    pub areas: Vec<Area>,
    /// Sum of the area bounds.
    pub total: Bounds,
    /// The winner the total proves with the position's side to move.
    pub winner: Option<Color>,
    /// Sum of the bounds of every area that is not an exactly known infinitesimal.
    pub rest: Bounds,
    /// Exactly known infinitesimal areas.
    pub infinitesimals: Infinitesimals,
    /// Indices (into `areas`) of the areas known to be hot games, with thermograph bounds
    /// `[right stop, left stop]`.
    pub hot: Vec<usize>,
}

impl Evaluation {
    /// The winner with `to_move` to move when `extra` (e.g. spare moves) is added to the
    /// position: the bound rules of paper II-D on the total, then the infinitesimal rules of
    /// IV-C2. Black to move wins when the rest is at least 0 (lower bound 0, not relaxed),
    /// no infinitesimal is negative, and there is an odd number of `*` and no other fuzzy
    /// one, or a single other fuzzy one and an even number of `*`: Black moves in that `*`
    /// (to 0) or fuzzy game G (to a Left option G^L >= 0, which exists because Left wins a
    /// fuzzy game moving first), leaving pairs of `*` (each pair = 0), positive
    /// infinitesimals and a rest >= 0, so a sum >= 0 with White to move. White symmetric.
    ///
    /// Failing those, the hot-game lookahead of IV-C1: the side to move moves first in a
    /// hot area `H` with bounds `[r, l]` (stops) and keeps answering there until it is
    /// cold. For Black this is a move to the option `H^L` whose right stop is `l`, and a
    /// game is above every number below its right stop, so `H^L >= l - e`: replace `H`'s
    /// bounds by `[l - e, l]` and decide the total with White to move (White's case is the
    /// mirror, `[r, r + e]` with Black to move). Restricting the mover's strategy only
    /// lowers its result, so a win found this way is real; only a win for the mover is
    /// taken (a loss after one chosen move proves nothing), and the move privilege is
    /// spent, so this is not combined with the infinitesimal rule. Every hot area is tried
    /// (the paper takes the widest; any one is sound).
    pub fn decide(&self, to_move: Color, extra: Bounds) -> Option<Color> {
        self.decide_by(to_move, extra).map(|(w, _)| w)
    }

    /// [`Evaluation::decide`] and which rule decided.
    pub fn decide_by(&self, to_move: Color, extra: Bounds) -> Option<(Color, GlobalRule)> {
        if let Some(w) = (self.total + extra).winner(to_move) {
            return Some((w, GlobalRule::Sum));
        }
        if let Some(w) = self.by_infinitesimals(to_move, extra) {
            return Some((w, GlobalRule::Infinitesimals));
        }
        self.by_hot_lookahead(to_move, extra)
            .map(|w| (w, GlobalRule::HotLookahead))
    }

    /// IV-C1 (see [`Evaluation::decide`]).
    fn by_hot_lookahead(&self, to_move: Color, extra: Bounds) -> Option<Color> {
        self.hot.iter().find_map(|&h| {
            let b = self.areas[h].bounds;
            let moved = match to_move {
                Color::Black => Bounds {
                    lower: Bound {
                        value: b.upper.value,
                        kind: BoundKind::Relaxed,
                    },
                    upper: b.upper,
                },
                Color::White => Bounds {
                    lower: b.lower,
                    upper: Bound {
                        value: b.lower.value,
                        kind: BoundKind::Relaxed,
                    },
                },
            };
            let others: Bounds = self
                .areas
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != h)
                .map(|(_, a)| a.bounds)
                .sum();
            (others + moved + extra)
                .winner(to_move.opponent())
                .filter(|&w| w == to_move)
        })
    }

    /// IV-C2 (see [`Evaluation::decide`]).
    fn by_infinitesimals(&self, to_move: Color, extra: Bounds) -> Option<Color> {
        let rest = self.rest + extra;
        let n = &self.infinitesimals;
        let zero = Rational::int(0);
        let ok = match to_move {
            Color::Black => {
                n.negative == 0 && rest.lower.value == zero && rest.lower.kind != BoundKind::Relaxed
            }
            Color::White => {
                n.positive == 0 && rest.upper.value == zero && rest.upper.kind != BoundKind::Relaxed
            }
        };
        (n.last_move() && ok).then_some(to_move)
    }
}

/// Adds the named counters of `$from` to the same counters of `$to` (the parts of a total).
macro_rules! add_counters {
    ($to:expr, $from:expr; $($field:ident),+ $(,)?) => {
        $($to.$field += $from.$field;)+
    };
}
pub(crate) use add_counters;

/// Counts of areas by kind and by how their bounds were obtained (paper Fig. 15).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    pub evaluations: u64,
    pub wins: u64,
    /// Of the wins: by the infinitesimal rules (IV-C2) and by the hot-game lookahead
    /// (IV-C1) rather than by the sum of bounds alone.
    pub wins_infinitesimal: u64,
    pub wins_hot: u64,
    pub simple_heuristic: u64,
    pub simple_exact: u64,
    pub blocker_heuristic: u64,
    pub blocker_exact: u64,
    pub active_heuristic: u64,
    pub active_static: u64,
    pub active_search: u64,
    /// Active areas with an exact combinatorial value.
    pub active_value: u64,
}

impl Stats {
    fn record(&mut self, a: &Area) {
        let slot = match (a.kind, a.source) {
            (AreaKind::SimpleTerritory(_), Source::Exact) => &mut self.simple_exact,
            (AreaKind::SimpleTerritory(_), _) => &mut self.simple_heuristic,
            (AreaKind::BlockerTerritory(_), Source::Exact) => &mut self.blocker_exact,
            (AreaKind::BlockerTerritory(_), _) => &mut self.blocker_heuristic,
            (AreaKind::Active, Source::LocalSearch) => &mut self.active_search,
            (AreaKind::Active, Source::Exact) => &mut self.active_value,
            (AreaKind::Active, Source::StaticRules) => &mut self.active_static,
            (AreaKind::Active, _) => &mut self.active_heuristic,
            (AreaKind::Dead, _) => return,
        };
        *slot += 1;
    }

    /// Adds another counter set (e.g. from a parallel evaluator).
    pub fn merge(&mut self, o: &Stats) {
        add_counters!(self, o;
            evaluations, wins, wins_infinitesimal, wins_hot,
            simple_heuristic, simple_exact, blocker_heuristic, blocker_exact,
            active_heuristic, active_static, active_search, active_value,
        );
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "evaluations {}  (winner found {}: {} by infinitesimals, {} by hot lookahead)",
            self.evaluations, self.wins, self.wins_infinitesimal, self.wins_hot
        )?;
        writeln!(
            f,
            "simple-t:  heuristic {:>8}  exact  {:>8}",
            self.simple_heuristic, self.simple_exact
        )?;
        writeln!(
            f,
            "blk-t:     heuristic {:>8}  exact  {:>8}",
            self.blocker_heuristic, self.blocker_exact
        )?;
        write!(
            f,
            "active:    heuristic {:>8}  static {:>8}  search {:>8}  value {:>8}",
            self.active_heuristic, self.active_static, self.active_search, self.active_value
        )
    }
}

/// How much a bound end says at one value: tightened > plain > relaxed.
fn strength(kind: BoundKind) -> u8 {
    match kind {
        BoundKind::Relaxed => 0,
        BoundKind::Plain => 1,
        BoundKind::Tightened => 2,
    }
}

/// The query heuristic of seed 000 (Song's thesis, ch. 4.2.3) for blockers shared by
/// several territories, when there are too many assignments to try: each territory (those
/// with the most shared blockers first, then the smallest) goes to the *weakest* of its
/// free shared blockers, the one whose
/// largest other territory is smallest (ties: the lower square); the territory's other
/// shared blockers stay free for their other territories (for the query they are
/// walls). `sizes[i]` is territory i's size, `shared` lists each shared blocker with the
/// territories it blocks. Returns `(blocker, territory)` pairs, each blocker at most once;
/// any such assignment is sound (see `assign_blockers`), only its strength varies.
fn weakest_blocker_assignment(sizes: &[u32], shared: &[(u8, Vec<usize>)]) -> Vec<(u8, usize)> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    let blockers_of = |t: usize| shared.iter().filter(|(_, o)| o.contains(&t)).count();
    order.sort_by_key(|&i| (std::cmp::Reverse(blockers_of(i)), sizes[i], i));
    let mut taken = vec![false; shared.len()];
    let mut out = Vec::new();
    for t in order {
        let weakest = shared
            .iter()
            .enumerate()
            .filter(|(k, (_, opts))| !taken[*k] && opts.contains(&t))
            .min_by_key(|(_, (b, opts))| {
                let other = opts
                    .iter()
                    .filter(|&&u| u != t)
                    .map(|&u| sizes[u])
                    .max()
                    .unwrap_or(0);
                (other, *b)
            })
            .map(|(k, (b, _))| (k, *b));
        if let Some((k, b)) = weakest {
            taken[k] = true;
            out.push((b, t));
        }
    }
    out
}

/// The more informative of two lower bounds on the same game.
fn tighter_lower(a: Bound, b: Bound) -> Bound {
    if (a.value, strength(a.kind)) >= (b.value, strength(b.kind)) {
        a
    } else {
        b
    }
}

/// The more informative of two upper bounds on the same game.
fn tighter_upper(a: Bound, b: Bound) -> Bound {
    if (-a.value, strength(a.kind)) >= (-b.value, strength(b.kind)) {
        a
    } else {
        b
    }
}

/// The static evaluator with its caches and statistics.
#[derive(Debug, Default)]
pub struct Evaluator {
    pub config: EvalConfig,
    filler: Filler,
    local: LocalSearch,
    values: cgt::Values,
    pub stats: Stats,
}

/// Signed bounds of a territory of `owner` with guaranteed `lo` and `v` empties.
fn territory_bounds(owner: Color, lo: u32, hi: u32) -> Bounds {
    let b = Bounds::new(lo as i64, hi as i64);
    match owner {
        Color::Black => b,
        Color::White => -b,
    }
}

impl Evaluator {
    pub fn new(config: EvalConfig) -> Evaluator {
        Evaluator {
            config,
            ..Evaluator::default()
        }
    }

    /// An evaluator that takes territory values from the simple and blocker territory
    /// databases where they cover a territory (paper IV-B1, IV-B3).
    pub fn with_database(config: EvalConfig, db: std::sync::Arc<crate::db::Database>) -> Evaluator {
        Evaluator {
            config,
            filler: Filler::with_database(db),
            ..Evaluator::default()
        }
    }

    /// Territory values answered by the databases so far.
    pub fn db_hits(&self) -> u64 {
        self.filler.db_hits
    }

    /// Starts counting blocker territory queries by shape (see [`fill::BlockerShape`]).
    pub fn enable_census(&mut self) {
        self.filler.census = Some(Default::default());
    }

    /// The blocker territory queries counted since [`Evaluator::enable_census`].
    pub fn census(&self) -> Option<&std::collections::HashMap<fill::BlockerShape, [u64; 2]>> {
        self.filler.census.as_ref()
    }

    /// An evaluator with any of the databases: territory values from `db`, and the
    /// values of whole active areas (paper IV-B2), hence `*` and infinitesimal counting,
    /// from `active`.
    pub fn with_databases(
        config: EvalConfig,
        db: Option<std::sync::Arc<crate::db::Database>>,
        active: Option<std::sync::Arc<crate::db::active::ActiveDb>>,
    ) -> Evaluator {
        Evaluator {
            config,
            filler: db.map(Filler::with_database).unwrap_or_default(),
            values: active.map(cgt::Values::with_active).unwrap_or_default(),
            ..Evaluator::default()
        }
    }

    /// Active areas answered by the active-area database so far.
    pub fn active_hits(&self) -> u64 {
        self.values.db_hits
    }

    /// Starts counting active-area database lookups (see [`cgt::ActiveCensus`]).
    pub fn enable_active_census(&mut self) {
        self.values.census = Some(Box::default());
    }

    /// The active-area database lookups counted since [`Evaluator::enable_active_census`].
    pub fn active_census(&self) -> Option<&cgt::ActiveCensus> {
        self.values.census.as_deref()
    }

    /// Stops using the simple (`simple`) or blocker (`blocker`) territory table of the
    /// territory databases (for experiments that switch them one by one).
    pub fn skip_territory_tables(&mut self, simple: bool, blocker: bool) {
        self.filler.skip_simple = simple;
        self.filler.skip_blocker = blocker;
    }

    /// Partitions `pos`, bounds every area, and sums the bounds.
    pub fn evaluate(&mut self, g: &Geometry, pos: &Pos) -> Evaluation {
        let hits_before = self.values.db_hits;
        let empty = pos.empty(g);
        let mut areas = Vec::new();
        let mut classes = Vec::new();
        for basic in partition::basic_partition(g, pos) {
            let mixed = (basic & pos.black).any() && (basic & pos.white).any();
            let small = (basic & empty).count() <= self.config.cgt_limit;
            if mixed {
                let known = match self.values.lookup(g, pos, basic) {
                    Some(v) => Some(v),
                    None if small => self.values.area(g, pos, basic),
                    None => None,
                };
                if let Some((class, mut bounds)) = known {
                    use amazons_cgt::Class;
                    // Thermograph bounds are relaxed where the static ones may be plain:
                    // both bound the same game, so each end takes the more informative
                    // (never for infinitesimals, which are counted apart exactly).
                    if !matches!(class, Class::Star | Class::Infinitesimal(_)) {
                        let stat: Bounds = self
                            .static_parts(g, pos, basic)
                            .iter()
                            .map(|a| a.bounds)
                            .sum();
                        bounds = Bounds {
                            lower: tighter_lower(bounds.lower, stat.lower),
                            upper: tighter_upper(bounds.upper, stat.upper),
                        };
                    }
                    classes.push((areas.len(), class));
                    areas.push(Area {
                        squares: basic,
                        blockers: Bb::EMPTY,
                        kind: AreaKind::Active,
                        bounds,
                        source: Source::Exact,
                        relied: Bb::EMPTY,
                        safe_black: None,
                        safe_white: None,
                    });
                    continue;
                }
            }
            let has_black = (basic & pos.black).any();
            let has_white = (basic & pos.white).any();
            if !(has_black && has_white) {
                let owner = if has_black {
                    Color::Black
                } else {
                    Color::White
                };
                areas.push(self.simple_territory(g, pos, basic, owner));
            } else {
                let parts = self.static_parts(g, pos, basic);
                areas.extend(parts);
            }
        }
        let total: Bounds = areas.iter().map(|a| a.bounds).sum();
        let mut ev = Evaluation {
            rest: total,
            total,
            winner: None,
            infinitesimals: Infinitesimals::default(),
            hot: Vec::new(),
            areas,
        };
        // Infinitesimals known exactly are counted apart from the rest (paper IV-C2).
        let mut rest = Bounds::zero();
        let mut counted = vec![false; ev.areas.len()];
        for &(i, class) in &classes {
            use amazons_cgt::{Class, InfKind};
            let slot = match class {
                Class::Star => &mut ev.infinitesimals.stars,
                Class::Infinitesimal(InfKind::Fuzzy) => &mut ev.infinitesimals.fuzzy,
                Class::Infinitesimal(InfKind::Positive) => &mut ev.infinitesimals.positive,
                Class::Infinitesimal(InfKind::Negative) => &mut ev.infinitesimals.negative,
                Class::Infinitesimal(InfKind::Zero) => {
                    counted[i] = true;
                    continue;
                }
                Class::Hot => {
                    ev.hot.push(i);
                    continue;
                }
                _ => continue,
            };
            *slot += 1;
            counted[i] = true;
        }
        for (a, c) in ev.areas.iter().zip(&counted) {
            if !c {
                rest += a.bounds;
            }
        }
        ev.rest = rest;
        let verdict = ev.decide_by(pos.side, Bounds::zero());
        ev.winner = verdict.map(|(w, _)| w);
        if let Some(c) = self.values.census.as_mut() {
            if self.values.db_hits > hits_before {
                c.evals_with_hit += 1;
                c.decided_with_hit += verdict.is_some() as u64;
            }
        }
        self.stats.evaluations += 1;
        self.stats.wins += ev.winner.is_some() as u64;
        match verdict {
            Some((_, GlobalRule::Infinitesimals)) => self.stats.wins_infinitesimal += 1,
            Some((_, GlobalRule::HotLookahead)) => self.stats.wins_hot += 1,
            _ => {}
        }
        for a in &ev.areas {
            self.stats.record(a);
        }
        ev
    }

    /// Static bounds of a mixed basic area: the blocker split (or the plain active area),
    /// and a local search where small enough. Both bound the same value, so each end may
    /// take whichever is tighter.
    fn static_parts(&mut self, g: &Geometry, pos: &Pos, basic: Bb) -> Vec<Area> {
        let empty = pos.empty(g);
        let mut parts = Vec::new();
        if self.config.blockers {
            self.split_area(g, pos, basic, &mut parts);
        } else {
            parts.push(self.active_area(g, pos, basic, basic & empty, Bb::EMPTY, Bb::EMPTY));
        }
        if self.config.local_search && basic.count() < self.config.local_limit {
            let (vb, vw) = self.local.values(g, pos, basic);
            let local = Bounds::relaxed(vw as i64, vb as i64);
            let split: Bounds = parts.iter().map(|a| a.bounds).sum();
            let lower = tighter_lower(local.lower, split.lower);
            let upper = tighter_upper(local.upper, split.upper);
            if (lower, upper) != (split.lower, split.upper) {
                parts = vec![Area {
                    squares: basic,
                    blockers: Bb::EMPTY,
                    kind: AreaKind::Active,
                    bounds: Bounds { lower, upper },
                    source: Source::LocalSearch,
                    relied: Bb::EMPTY,
                    safe_black: None,
                    safe_white: None,
                }];
            }
        }
        parts
    }

    fn simple_territory(&mut self, g: &Geometry, pos: &Pos, basic: Bb, owner: Color) -> Area {
        let s = Solo {
            queens: basic & pos.queens(owner),
            empties: basic & pos.empty(g),
            blockers: Bb::EMPTY,
        };
        let v = s.empties.count();
        let fill = self.filler.fill(g, s, self.config.exact_territories, &[]);
        // A simple territory is an independent one-player game: its exact value bounds
        // both ends.
        let hi = if fill.exact { fill.moves } else { v };
        Area {
            squares: basic,
            blockers: Bb::EMPTY,
            kind: AreaKind::SimpleTerritory(owner),
            bounds: territory_bounds(owner, fill.moves, hi),
            source: if fill.exact {
                Source::Exact
            } else {
                Source::Heuristic
            },
            relied: Bb::EMPTY,
            safe_black: None,
            safe_white: None,
        }
    }

    /// Lower bound of territory `t` filled by its normal queens and the blockers `with`.
    /// Blockers that other areas rely on are freed first when `prefer_free` lists them
    /// (most useful in the active area first).
    fn territory_fill(
        &mut self,
        g: &Geometry,
        t: &TerritoryPart,
        with: Bb,
        prefer_free: &[u8],
    ) -> fill::Fill {
        let s = Solo {
            queens: t.normals | with,
            empties: t.empties,
            blockers: with,
        };
        self.filler
            .fill(g, s, self.config.exact_territories, prefer_free)
    }

    /// Improved partition of a mixed basic area; pushes its territories and active rest.
    fn split_area(&mut self, g: &Geometry, pos: &Pos, basic: Bb, areas: &mut Vec<Area>) {
        let split = partition::improved_partition(g, pos, basic);
        if split.territories.is_empty() {
            areas.push(self.active_area(g, pos, basic, split.active_empties, Bb::EMPTY, Bb::EMPTY));
            return;
        }
        let mut relied = Bb::EMPTY;
        let mut all_blockers = Bb::EMPTY;
        for owner in [Color::Black, Color::White] {
            let terrs: Vec<TerritoryPart> = split
                .territories
                .iter()
                .filter(|t| t.owner == owner)
                .copied()
                .collect();
            // Free first the blockers touching most active empties and opponent queens:
            // they are the likeliest to give a safe move in the active area.
            let useful = split.active_empties | pos.queens(owner.opponent());
            let mut prefer: Vec<u8> = terrs
                .iter()
                .fold(Bb::EMPTY, |acc, t| acc | t.blockers)
                .iter()
                .collect();
            prefer.sort_by_key(|&b| std::cmp::Reverse((g.neighbours(b) & useful).count()));
            for (t, a) in terrs.iter().zip(self.assign_blockers(g, &terrs)) {
                let f = self.territory_fill(g, t, a, &prefer);
                relied |= f.relied;
                // Shared: blockers of this territory that are also in another area.
                let others = split.active_squares
                    | split
                        .territories
                        .iter()
                        .filter(|u| u.empties != t.empties)
                        .fold(Bb::EMPTY, |acc, u| acc | u.blockers);
                all_blockers |= t.blockers;
                areas.push(Area {
                    squares: t.squares(),
                    blockers: t.blockers & others,
                    kind: AreaKind::BlockerTerritory(owner),
                    bounds: territory_bounds(owner, f.moves, t.empties.count()),
                    source: if f.exact {
                        Source::Exact
                    } else {
                        Source::Heuristic
                    },
                    relied: f.relied,
                    safe_black: None,
                    safe_white: None,
                });
            }
        }
        if split.active_empties.any() {
            let shared = split.active_squares & all_blockers;
            areas.push(self.active_area(
                g,
                pos,
                split.active_squares,
                split.active_empties,
                shared,
                relied,
            ));
        }
    }

    /// For the territories of one owner in one basic area: which blockers may fill each
    /// (disjoint sets). Up to [`ASSIGNMENT_CAP`] assignments are tried exhaustively (which
    /// dominates any heuristic); beyond, [`weakest_blocker_assignment`] decides. A blocker blocking several territories can enter only one of them
    /// (after its shoot-back the others stay sealed by the arrow, but it is gone), so
    /// every assignment of shared blockers to one of their territories is sound; the one
    /// with the largest total lower bound is chosen (greedy to the largest territory if
    /// there are too many). This generalizes the paper's correction: a blocker between a
    /// 1- and a 2-square territory is counted only for the 2-square one.
    fn assign_blockers(&mut self, g: &Geometry, terrs: &[TerritoryPart]) -> Vec<Bb> {
        let mut shared = Bb::EMPTY;
        let mut seen = Bb::EMPTY;
        for t in terrs {
            shared |= seen & t.blockers;
            seen |= t.blockers;
        }
        let base: Vec<Bb> = terrs.iter().map(|t| t.blockers - shared).collect();
        let shared_list: Vec<(u8, Vec<usize>)> = shared
            .iter()
            .map(|b| {
                let opts = (0..terrs.len())
                    .filter(|&i| terrs[i].blockers.has(b))
                    .collect();
                (b, opts)
            })
            .collect();
        let combos = shared_list
            .iter()
            .try_fold(1usize, |acc, (_, o)| acc.checked_mul(o.len()))
            .unwrap_or(usize::MAX);
        if combos > ASSIGNMENT_CAP {
            let sizes: Vec<u32> = terrs.iter().map(|t| t.empties.count()).collect();
            let mut out = base;
            for (b, i) in weakest_blocker_assignment(&sizes, &shared_list) {
                out[i] |= Bb::from_square(b);
            }
            return out;
        }
        let mut best: Option<(u32, Vec<Bb>)> = None;
        for mut code in 0..combos {
            let mut sets = base.clone();
            for (b, opts) in &shared_list {
                sets[opts[code % opts.len()]] |= Bb::from_square(*b);
                code /= opts.len();
            }
            let total: u32 = terrs
                .iter()
                .zip(&sets)
                .map(|(t, &s)| self.territory_fill(g, t, s, &[]).moves)
                .sum();
            if best.as_ref().is_none_or(|(v, _)| total > *v) {
                best = Some((total, sets));
            }
        }
        best.map(|(_, s)| s).unwrap_or(base)
    }

    /// An active area: `[-v, v]`, improved by at most one safe move per player, never
    /// using blockers in `relied`.
    fn active_area(
        &mut self,
        g: &Geometry,
        pos: &Pos,
        squares: Bb,
        empties: Bb,
        blockers: Bb,
        relied: Bb,
    ) -> Area {
        let v = empties.count() as i64;
        let (mut safe_black, mut safe_white) = (None, None);
        if self.config.static_rules {
            let black = squares & pos.black;
            let white = squares & pos.white;
            safe_black = static_rules::safe_move(g, empties, black - relied, white);
            safe_white = static_rules::safe_move(g, empties, white - relied, black);
        }
        let sb = safe_black.is_some() as i64;
        let sw = safe_white.is_some() as i64;
        Area {
            squares,
            blockers,
            kind: AreaKind::Active,
            bounds: Bounds::new(-v + 2 * sb, v - 2 * sw),
            source: if sb + sw > 0 {
                Source::StaticRules
            } else {
                Source::Heuristic
            },
            relied: Bb::EMPTY,
            safe_black,
            safe_white,
        }
    }
}

/// Draws the partition (each area a letter; `+` a square shared by several areas) next
/// to the position, then lists each area and the verdict.
pub fn render(ev: &Evaluation, g: &Geometry, pos: &Pos) -> String {
    let letter = |i: usize| (b'A' + (i % 26) as u8) as char;
    let (w, h) = (g.board.width as usize, g.board.height as usize);
    let mut out = String::new();
    for y in (0..h).rev() {
        out.push_str(&format!("{:>2} ", y + 1));
        let mut right = String::new();
        for x in 0..w {
            let sq = g.board.square(x, y);
            let c = if pos.white.has(sq) {
                'O'
            } else if pos.black.has(sq) {
                'X'
            } else if pos.arrows.has(sq) {
                '#'
            } else {
                '.'
            };
            out.push(' ');
            out.push(c);
            let owners: Vec<usize> = (0..ev.areas.len())
                .filter(|&i| ev.areas[i].squares.has(sq))
                .collect();
            right.push(' ');
            right.push(match owners.as_slice() {
                [] if c == '#' => '#',
                [] => '-',
                [i] => letter(*i),
                _ => '+',
            });
        }
        out.push_str("   ");
        out.push_str(&right);
        out.push('\n');
    }
    out.push_str(&g.board.files_line());
    for (i, a) in ev.areas.iter().enumerate() {
        let (aw, ah) = a.size(g);
        let mut line = format!(
            "{}  {:<26} {}x{}  empties {:>2}  queens X{} O{}  {:<12} {}",
            letter(i),
            a.kind.to_string(),
            aw,
            ah,
            a.empties(g, pos).count(),
            (a.squares & pos.black).count(),
            (a.squares & pos.white).count(),
            a.bounds.to_string(),
            a.source
        );
        if let Some(r) = a.safe_black {
            line.push_str(&format!("  Black safe move ({r})"));
        }
        if let Some(r) = a.safe_white {
            line.push_str(&format!("  White safe move ({r})"));
        }
        if a.blockers.any() {
            let names: Vec<String> = a.blockers.iter().map(|s| g.board.square_name(s)).collect();
            line.push_str(&format!("  blockers {}", names.join(" ")));
        }
        if a.relied.any() {
            let names: Vec<String> = a.relied.iter().map(|s| g.board.square_name(s)).collect();
            line.push_str(&format!("  uses {}", names.join(" ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!(
        "total {}  {} to move  winner: {}\n",
        ev.total,
        pos.side,
        ev.winner.map_or("unknown", |c| c.name())
    ));
    out
}
