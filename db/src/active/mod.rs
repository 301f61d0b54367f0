//! Active-area databases: thermographs (and optionally canonical values) of every area holding
//! queens of both colours whose region is covered, built by retrograde analysis over the
//! territory databases' region machinery, stored hashed, audited by a separate route.
//!
//! # Coverage
//!
//! A configuration is a list of [`Tier`]s: a rectangle `(short, long)` and a cap on the
//! queens of each colour. A position is covered when its region (queens plus empty squares,
//! 8-connected) fits the rectangle of some tier in some orientation and neither colour has
//! more queens than the largest cap among the tiers admitting the region. Moves shrink the
//! region (the arrow burns a square) and never add queens, so the set is closed under moves:
//! every child of a covered position splits into covered parts. Single-colour areas (numbers)
//! are stored as well (the build needs them), so [`ActiveDb::lookup_active`] answers for
//! them too.
//!
//! # Build
//!
//! Regions come from [`super::regions::enumerate`] (canonical under the 8 symmetries, so
//! positions are deduplicated by symmetry) and are processed by size: every child of a
//! region of `n` squares lies in regions of `n - 1` squares. Each position's canonical value
//! is `{ Black moves | White moves }` in one [`GameStore`], where a child's value is the sum
//! of the values of its parts, read from the entries already built (1-ply lookups, as
//! [`super::build`] does for territories). From the canonical values come the subzero
//! thermograph, the exact class ([`GameStore::classify`]), the outcome class and the exact
//! bounds ([`GameStore::bounds`]).
//!
//! # Storage
//!
//! Positions share few thermographs and few value records, so the file holds a thermograph
//! table, a record table (thermograph id, class, outcome, exact bounds, optionally the
//! canonical value in CGSuite notation) and one record id per position, in the perfect
//! index order of [`ActiveLayout`]. The file has the territory files' framing: magic,
//! version, header, blake3 hash of everything before it, sentinel; written atomically.
//!
//! # Audit
//!
//! [`audit_active`] recomputes sampled entries with code the builder does not use: the
//! outcome for both sides to move by `amazons_cgt::search_first_player_wins` (plain
//! exhaustive alternating search), the outcome the stored thermograph implies
//! (paper II-D2), and the thermograph, class (and value) by `GameStore::value_of_area` in a
//! fresh store (its own move generator on a `format::Position`, no regions, no symmetry, no
//! tables).
//!
//! [`GameStore`]: amazons_cgt::GameStore
//! [`GameStore::classify`]: amazons_cgt::GameStore::classify
//! [`GameStore::bounds`]: amazons_cgt::GameStore::bounds

mod audit;
mod build;
mod file;
mod layout;
mod report;
mod table;

#[cfg(test)]
mod tests;

pub use audit::{audit_active, audit_active_dir, ActiveAuditReport, ActiveChecked, ActiveMismatch};
pub use build::{
    build_active, build_active_with, ActiveProgress, ActiveSummary, BuildControl, Checkpoints,
};
pub use file::decode;
pub use layout::{active_groups, ActiveLayout};
pub use report::{class_name, value_report, value_report_with_limit};
use table::offsets_and_caps;
pub use table::{bench_active_lookup, ActiveDb, ActivePosition};

use crate::regions::FRAME;
use crate::regions::{enumerate, RegionSpec, Shape};
use crate::store::DbError;
use amazons_board::bounds as eb;
use amazons_cgt::{Bound, Class, Outcome, Rational, Thermograph};
use std::collections::HashSet;

/// File name of the active-area table in the database directory.
pub const ACTIVE_FILE: &str = "active.amzdb";
/// Format version of active-area files.
pub const ACTIVE_VERSION: u32 = 1;
/// Kind byte of active-area files (territory files use 1 and 2).
pub const ACTIVE_KIND: u8 = 3;
/// Largest region (squares) an active table may hold.
pub const MAX_AREA: u32 = 20;
const HEADER_LEN: usize = 32;
const TRAILER_LEN: usize = 40;
/// Follower limit of the audit's recomputation by `value_of_area`.
pub const AUDIT_LIMIT: usize = 400_000;
/// Memo-cache entries of an audit thread's store beyond which it clears them.
const AUDIT_CACHE_LIMIT: usize = 4_000_000;
/// Memo-cache entries of the game store beyond which a build clears the caches, by
/// default (about 1-2 GB of hash maps; [`BuildControl::cache_limit`]).
pub const CACHE_LIMIT: usize = 20_000_000;

/// Positions of a region between two looks at the clock for a progress line.
const TICK_EVERY: u32 = 1 << 10;

/// Values of at most this many characters are stored by the preset configurations.
pub const DEFAULT_VALUE_LEN: u16 = 120;

// ----- coverage -----

/// One coverage tier: regions fitting `rect` (short side, long side) in some orientation,
/// with at most `max_per_color` queens of each colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tier {
    pub rect: (u8, u8),
    pub max_per_color: u8,
}

impl Tier {
    pub const fn new(short: u8, long: u8, max_per_color: u8) -> Tier {
        Tier {
            rect: (short, long),
            max_per_color,
        }
    }

    fn admits(&self, w: u32, h: u32) -> bool {
        let (a, b) = (
            self.rect.0.min(self.rect.1) as u32,
            self.rect.0.max(self.rect.1) as u32,
        );
        w.min(h) <= a && w.max(h) <= b
    }
}

/// Which active areas to build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveConfig {
    pub tiers: Vec<Tier>,
    /// Also store the canonical value (CGSuite notation) of every distinct game whose
    /// notation has at most this many characters ("where small"); 0 for none.
    pub max_value_len: u16,
}

impl ActiveConfig {
    /// These tiers, storing the canonical values of up to [`DEFAULT_VALUE_LEN`] characters.
    pub fn of(tiers: Vec<Tier>) -> ActiveConfig {
        ActiveConfig {
            tiers,
            max_value_len: DEFAULT_VALUE_LEN,
        }
    }

    /// Every area fitting 2x6 (hence 1xn and 2xn, n <= 6) or 3x4 (hence 3x3), any number
    /// of queens: 824 regions, 8.6 M positions; measured 53 s on one core of a loaded
    /// 2-core machine, 64 MB with all values stored (2.9 GB peak memory at most).
    pub fn quick() -> ActiveConfig {
        ActiveConfig::of(vec![Tier::new(2, 6, 12), Tier::new(3, 4, 12)])
    }

    /// The default set: [`ActiveConfig::quick`] plus 3x5 and 4x4 areas with one queen of
    /// each colour: 7743 regions, 9.3 M positions; measured 74-92 s, 81 MB, 1 GB peak
    /// memory (the memo caches are cleared past a limit).
    pub fn standard() -> ActiveConfig {
        ActiveConfig::quick().with(&[Tier::new(3, 5, 1), Tier::new(4, 4, 1)])
    }

    /// The paper's full set: 1xn, 2xn (n <= 6) and 3xn (n <= 5) with any number
    /// of queens, 3x6 with at most two queens each, 4x4 with at most two each: 28,814
    /// regions, 368.9 M positions, about 42 M distinct games. Hours of one thread and
    /// about 9 GB while building (see BENCHMARKS.md); the same tiers as
    /// `--tiers 2x6,3x4,3x5,3x6:2,4x4:2`, so either resumes the other's checkpoint.
    pub fn paper() -> ActiveConfig {
        ActiveConfig::quick().with(&[Tier::new(3, 5, 15), Tier::new(3, 6, 2), Tier::new(4, 4, 2)])
    }

    /// These tiers followed by `more`.
    fn with(mut self, more: &[Tier]) -> ActiveConfig {
        self.tiers.extend_from_slice(more);
        self
    }

    /// A tiny set for tests: areas fitting 2x4 or 3x3.
    pub fn tiny() -> ActiveConfig {
        ActiveConfig::of(vec![Tier::new(2, 4, 8), Tier::new(3, 3, 9)])
    }

    /// Checks the limits (tier count, rectangle sizes, caps).
    pub fn validate(&self) -> Result<(), DbError> {
        let err = |s: String| Err(DbError::Config(s));
        if self.tiers.is_empty() || self.tiers.len() > 16 {
            return err(format!("{} tiers (need 1..=16)", self.tiers.len()));
        }
        for t in &self.tiers {
            let (a, b) = t.rect;
            if a == 0 || b == 0 || a as u32 * b as u32 > MAX_AREA || a.max(b) as u32 > FRAME {
                return err(format!(
                    "tier rectangle {a}x{b}: sides must be >= 1 and the area <= {MAX_AREA}"
                ));
            }
            if t.max_per_color == 0 {
                return err("a tier must allow at least one queen of each colour".into());
            }
        }
        Ok(())
    }

    /// The queen cap (per colour) of a region with a `w` x `h` bounding rectangle (0 if no
    /// tier admits it).
    pub fn cap(&self, w: u32, h: u32) -> u32 {
        self.tiers
            .iter()
            .filter(|t| t.admits(w, h))
            .map(|t| t.max_per_color as u32)
            .max()
            .unwrap_or(0)
            .min(w * h)
    }

    /// Every covered region, canonical, sorted by size then key.
    pub fn regions(&self) -> Vec<Shape> {
        let mut set: HashSet<Shape> = HashSet::new();
        for t in &self.tiers {
            set.extend(enumerate(RegionSpec {
                max_size: 0,
                rect: t.rect,
            }));
        }
        let mut v: Vec<Shape> = set.into_iter().collect();
        v.sort_unstable_by_key(|&s| (s.count_ones(), s));
        v
    }

    /// Number of positions (entries) a table of this configuration holds.
    pub fn entry_count(&self) -> Result<u64, DbError> {
        self.validate()?;
        let shapes = self.regions();
        let (_, _, offsets) = offsets_and_caps(self, &shapes)?;
        Ok(offsets[shapes.len()])
    }

    /// Parses a tier list such as `2x6:12,3x4:12,3x5:2` (rectangle, then the queen cap per
    /// colour; a tier without `:N` allows any number), with the default value length, and
    /// validates it.
    pub fn parse_tiers(text: &str) -> Result<ActiveConfig, DbError> {
        let bad = |t: &str, why: &str| DbError::Config(format!("tier {t:?}: {why}"));
        let mut tiers = Vec::new();
        for t in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let (rect, cap) = match t.split_once(':') {
                Some((r, c)) => (r, Some(c)),
                None => (t, None),
            };
            let (a, b) = rect
                .split_once('x')
                .ok_or_else(|| bad(t, "expected AxB or AxB:N, e.g. 3x5:2"))?;
            let num = |x: &str| {
                x.trim()
                    .parse::<u8>()
                    .map_err(|_| bad(t, "sides and caps are numbers from 1 to 255"))
            };
            let (a, b) = (num(a)?, num(b)?);
            let cap = match cap {
                Some(c) => num(c)?,
                None => a.saturating_mul(b),
            };
            if cap == 0 {
                return Err(bad(t, "the queen cap must be at least 1"));
            }
            tiers.push(Tier::new(a.min(b), a.max(b), cap));
        }
        let cfg = ActiveConfig::of(tiers);
        cfg.validate()?;
        Ok(cfg)
    }

    /// A one-line description, e.g. `2x6 (<=12 each), 3x4 (<=12 each), values`.
    pub fn describe(&self) -> String {
        let mut s: Vec<String> = self
            .tiers
            .iter()
            .map(|t| format!("{}x{} (<={} each)", t.rect.0, t.rect.1, t.max_per_color))
            .collect();
        if self.max_value_len > 0 {
            s.push(format!(
                "canonical values up to {} characters",
                self.max_value_len
            ));
        }
        s.join(", ")
    }
}

// ----- records -----

/// What is stored per distinct game (or per distinct thermograph/class/outcome/bounds
/// combination when values are not stored).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Record {
    pub thermo: u32,
    /// Exact class from the canonical value (`*` recognised).
    pub class: Class,
    pub outcome: Outcome,
    /// Exact bounds from the canonical value: `(lower, upper)` = right and left stops, plain
    /// when `G >= rs` (`G <= ls`), tightened when moreover `G != rs`, relaxed otherwise.
    pub exact: (Bound, Bound),
    /// Canonical value in CGSuite notation, when values are stored.
    pub value: Option<String>,
}

/// The outcome class a thermograph implies (paper II-D2): Black moving first wins iff the
/// left stop is positive, or zero with the left wall diagonal just below temperature 0;
/// symmetrically for White with the right wall.
pub fn thermograph_outcome(th: &Thermograph) -> Outcome {
    let (ls, rs) = (th.left_stop(), th.right_stop());
    let black = ls > Rational::ZERO || (ls == Rational::ZERO && !th.left_vertical_below_zero());
    let white = rs < Rational::ZERO || (rs == Rational::ZERO && !th.right_vertical_below_zero());
    outcome_of(black, white)
}

fn outcome_of(black_first_wins: bool, white_first_wins: bool) -> Outcome {
    match (black_first_wins, white_first_wins) {
        (true, true) => Outcome::N,
        (true, false) => Outcome::L,
        (false, true) => Outcome::R,
        (false, false) => Outcome::P,
    }
}

/// `eval` bounds of `cgt` bounds `(lower, upper)`.
pub fn to_eval_bounds(b: (Bound, Bound)) -> eb::Bounds {
    eb::Bounds {
        lower: b.0,
        upper: b.1,
    }
}

/// The answer of an active-area lookup.
#[derive(Debug, Clone, Copy)]
pub struct ActiveEntry<'a> {
    /// Entry number in the table.
    pub entry: u64,
    pub record: u32,
    pub thermo_id: u32,
    pub thermograph: &'a Thermograph,
    /// Exact class (`Number`, `Star`, `Infinitesimal(kind)`, `Tepid`, `Hot`).
    pub class: Class,
    /// Outcome class (who wins moving first, each side).
    pub outcome: Outcome,
    /// The paper's bounds from the thermograph (II-D1/II-D2): left/right stops at
    /// temperature 0, plain where the wall is vertical just below 0, relaxed where diagonal;
    /// equal stops give the four infinitesimal shapes.
    pub bounds: eb::Bounds,
    /// Bounds from the canonical value (always sound, at least as tight).
    pub exact_bounds: eb::Bounds,
    /// Canonical value (CGSuite notation), if stored.
    pub value: Option<&'a str>,
}

impl ActiveEntry<'_> {
    pub fn left_stop(&self) -> Rational {
        self.thermograph.left_stop()
    }
    pub fn right_stop(&self) -> Rational {
        self.thermograph.right_stop()
    }
    pub fn temperature(&self) -> Rational {
        self.thermograph.temperature()
    }
}
