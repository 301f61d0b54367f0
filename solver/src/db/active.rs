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

use super::build::{children, deposit, ChildComp};
use super::checkpoint;
use super::index::{compress, expand, next_combination};
use super::regions::{canonical, dims, enumerate, is_connected, RegionIndex, RegionSpec, Shape};
use super::regions::{normalize, squares, FRAME, FRAME_ALL};
use super::store::{check_start, hex, u32_at, u64_at, write_atomic, DbError, MAGIC, SENTINEL};
use super::view::index_mask;
use super::{embed, frame_geometry, thread_cpu_time, to_frame, Entry, Rng};
use crate::bitboard::Bb;
use crate::eval::bounds as eb;
use crate::geometry::Geometry;
use amazons_cgt::thermograph::Trajectory;
use amazons_cgt::{
    Bound, BoundKind, CgtError, Class, GameId, GameStore, InfKind, Outcome, Rational, Thermograph,
};
use amazons_format::{Board, Cell, Color, Position};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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
    /// Every area fitting 2x6 (hence 1xn and 2xn, n <= 6) or 3x4 (hence 3x3), any number
    /// of queens: 824 regions, 8.6 M positions; measured 53 s on one core of a loaded
    /// 2-core machine, 64 MB with all values stored (2.9 GB peak memory at most).
    pub fn quick() -> ActiveConfig {
        ActiveConfig {
            tiers: vec![Tier::new(2, 6, 12), Tier::new(3, 4, 12)],
            max_value_len: DEFAULT_VALUE_LEN,
        }
    }

    /// The default set: [`ActiveConfig::quick`] plus 3x5 and 4x4 areas with one queen of
    /// each colour: 7743 regions, 9.3 M positions; measured 74-92 s, 81 MB, 1 GB peak
    /// memory (the memo caches are cleared past a limit).
    pub fn standard() -> ActiveConfig {
        ActiveConfig {
            tiers: vec![
                Tier::new(2, 6, 12),
                Tier::new(3, 4, 12),
                Tier::new(3, 5, 1),
                Tier::new(4, 4, 1),
            ],
            max_value_len: DEFAULT_VALUE_LEN,
        }
    }

    /// The paper's full set (issue 5): 1xn, 2xn (n <= 6) and 3xn (n <= 5) with any number
    /// of queens, 3x6 with at most two queens each, 4x4 with at most two each: 28,814
    /// regions, 368.9 M positions, about 42 M distinct games. Hours of one thread and
    /// about 9 GB while building (see BENCHMARKS.md); the same tiers as
    /// `--tiers 2x6,3x4,3x5,3x6:2,4x4:2`, so either resumes the other's checkpoint.
    pub fn paper() -> ActiveConfig {
        ActiveConfig {
            tiers: vec![
                Tier::new(2, 6, 12),
                Tier::new(3, 4, 12),
                Tier::new(3, 5, 15),
                Tier::new(3, 6, 2),
                Tier::new(4, 4, 2),
            ],
            max_value_len: DEFAULT_VALUE_LEN,
        }
    }

    /// A tiny set for tests: areas fitting 2x4 or 3x3.
    pub fn tiny() -> ActiveConfig {
        ActiveConfig {
            tiers: vec![Tier::new(2, 4, 8), Tier::new(3, 3, 9)],
            max_value_len: DEFAULT_VALUE_LEN,
        }
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
        let cfg = ActiveConfig {
            tiers,
            max_value_len: DEFAULT_VALUE_LEN,
        };
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

// ----- layout -----

const NB: usize = MAX_AREA as usize + 1;

const fn build_binom() -> [[u64; NB]; NB] {
    let mut t = [[0u64; NB]; NB];
    let mut n = 0;
    while n < NB {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + t[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    t
}
static BINOM: [[u64; NB]; NB] = build_binom();

#[inline]
fn binom(n: u32, k: u32) -> u64 {
    if n as usize >= NB || k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Colex rank of a subset of `{0..MAX_AREA}`.
#[inline]
fn rank(mask: u128) -> u64 {
    super::index::rank_by(mask, binom)
}

/// The `k`-subset of `{0..n}` with colex rank `r`.
fn unrank(r: u64, k: u32, n: u32) -> u128 {
    super::index::unrank_by(r, k, n, binom)
}

/// Perfect index of the positions of a region of `n` squares with at most `cap` queens of
/// each colour: groups `(b, w)` (Black, White queen counts, `b + w >= 1`) in the order
/// `b = 0..=cap`, `w = 0..=cap`; within a group
/// `rank(black indices) * C(n - b, w) + rank(white indices among the non-Black squares)`.
#[derive(Debug, Clone)]
pub struct ActiveLayout {
    /// `off[cap][n][b][w]`, for the caps in use (`caps[i]` is the cap of `off[i]`).
    caps: Vec<u32>,
    off: Vec<Vec<[[u64; NB]; NB]>>,
    len: Vec<Vec<u64>>,
}

/// The groups `(b, w)` of a region of `n` squares with cap `cap`, in storage order.
pub fn active_groups(n: u32, cap: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for b in 0..=cap.min(n) {
        for w in 0..=cap.min(n - b) {
            if b + w >= 1 {
                v.push((b, w));
            }
        }
    }
    v
}

impl ActiveLayout {
    fn new(mut caps: Vec<u32>) -> ActiveLayout {
        caps.sort_unstable();
        caps.dedup();
        let mut off = Vec::new();
        let mut len = Vec::new();
        for &cap in &caps {
            let mut o = vec![[[0u64; NB]; NB]; NB];
            let mut l = vec![0u64; NB];
            for n in 0..NB as u32 {
                let mut at = 0u64;
                for (b, w) in active_groups(n, cap) {
                    o[n as usize][b as usize][w as usize] = at;
                    at += binom(n, b) * binom(n - b, w);
                }
                l[n as usize] = at;
            }
            off.push(o);
            len.push(l);
        }
        ActiveLayout { caps, off, len }
    }

    #[inline]
    fn cap_index(&self, cap: u32) -> Option<usize> {
        self.caps.iter().position(|&c| c == cap)
    }

    /// Entries of a region of `n` squares with cap index `ci`.
    #[inline]
    fn region_len(&self, ci: usize, n: u32) -> u64 {
        self.len[ci][n as usize]
    }

    /// The entry of Black index mask `bm` and White index mask `wm` within its region.
    #[inline]
    fn entry(&self, ci: usize, n: u32, bm: u128, wm: u128) -> Option<u64> {
        let (b, w) = (bm.count_ones(), wm.count_ones());
        let cap = self.caps[ci];
        if b > cap || w > cap || b + w == 0 || b + w > n || bm & wm != 0 || n as usize >= NB {
            return None;
        }
        let base = self.off[ci][n as usize][b as usize][w as usize];
        Some(base + rank(bm) * binom(n - b, w) + rank(compress(wm, bm)))
    }

    /// [`ActiveLayout::entry`] on 32-bit index masks (the build's hot path).
    #[inline]
    fn entry32(&self, ci: usize, n: u32, bm: u32, wm: u32) -> Option<u64> {
        let (b, w) = (bm.count_ones(), wm.count_ones());
        let cap = self.caps[ci];
        if b > cap || w > cap || b + w == 0 || b + w > n || bm & wm != 0 || n as usize >= NB {
            return None;
        }
        let base = self.off[ci][n as usize][b as usize][w as usize];
        // Colex ranks; White's indices among the non-Black squares.
        let (mut rb, mut rw) = (0u64, 0u64);
        let (mut m, mut j) = (bm, 1usize);
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            rb += BINOM[i][j.min(i)] * (j <= i) as u64;
            j += 1;
        }
        let (mut m, mut j) = (wm, 1usize);
        while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            let k = (i - (bm & ((1u32 << i) - 1)).count_ones()) as usize;
            rw += BINOM[k][j.min(k)] * (j <= k) as u64;
            j += 1;
        }
        Some(base + rb * binom(n - b, w) + rw)
    }

    /// Inverse of [`ActiveLayout::entry`].
    fn decode(&self, ci: usize, n: u32, e: u64) -> Option<(u128, u128)> {
        for (b, w) in active_groups(n, self.caps[ci]) {
            let base = self.off[ci][n as usize][b as usize][w as usize];
            let per = binom(n - b, w);
            let size = binom(n, b) * per;
            if e >= base && e < base + size {
                let i = e - base;
                let bm = unrank(i / per, b, n);
                let wm = expand(unrank(i % per, w, n - b), bm, n);
                return Some((bm, wm));
            }
        }
        None
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

// ----- the loaded table -----

/// A loaded active-area table.
#[derive(Debug, Clone)]
pub struct ActiveDb {
    pub config: ActiveConfig,
    pub path: PathBuf,
    pub shapes: Vec<Shape>,
    /// Cap index (into the layout's caps) per region.
    cap_of: Vec<u8>,
    offsets: Vec<u64>,
    layout: ActiveLayout,
    index: RegionIndex,
    pub thermographs: Vec<Thermograph>,
    pub records: Vec<Record>,
    /// Per record: paper bounds and exact bounds, converted.
    converted: Vec<(eb::Bounds, eb::Bounds)>,
    ids: Vec<u32>,
    /// Byte offset of the id table in the file and the id width.
    ids_at: u64,
    id_width: u8,
    pub hash: [u8; 32],
    pub file_bytes: u64,
}

/// A decoded active entry: region, Black and White queens (frame squares of the canonical
/// shape) and the record id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActivePosition {
    pub region: u32,
    pub shape: Shape,
    pub black: u128,
    pub white: u128,
    pub record: u32,
}

impl ActivePosition {
    /// The position on a board the size of the region's bounding rectangle (squares outside
    /// the region are arrows), Black to move.
    pub fn position(&self) -> Option<Position> {
        let (w, h) = dims(self.shape);
        let board = Board::new(w as usize, h as usize).ok()?;
        let mut pos = Position::empty(board, Color::Black);
        pos.cells.iter_mut().for_each(|c| *c = Cell::Arrow);
        let sq = |b: u32| board.square((b % FRAME) as usize, (b / FRAME) as usize) as usize;
        for b in squares(self.shape) {
            pos.cells[sq(b)] = Cell::Empty;
        }
        for b in squares(self.black) {
            pos.cells[sq(b)] = Cell::Black;
        }
        for b in squares(self.white) {
            pos.cells[sq(b)] = Cell::White;
        }
        Some(pos)
    }
}

fn offsets_and_caps(
    cfg: &ActiveConfig,
    shapes: &[Shape],
) -> Result<(ActiveLayout, Vec<u8>, Vec<u64>), DbError> {
    let caps: Vec<u32> = shapes
        .iter()
        .map(|&s| {
            let (w, h) = dims(s);
            cfg.cap(w, h)
        })
        .collect();
    let layout = ActiveLayout::new(caps.clone());
    let mut cap_of = Vec::with_capacity(shapes.len());
    let mut offsets = Vec::with_capacity(shapes.len() + 1);
    let mut at = 0u64;
    for (i, &s) in shapes.iter().enumerate() {
        let ci = layout
            .cap_index(caps[i])
            .ok_or_else(|| DbError::Build("cap missing from the layout".into()))?;
        cap_of.push(ci as u8);
        offsets.push(at);
        at += layout.region_len(ci, s.count_ones());
    }
    offsets.push(at);
    Ok((layout, cap_of, offsets))
}

impl ActiveDb {
    /// Number of positions stored.
    pub fn entries(&self) -> u64 {
        self.offsets.last().copied().unwrap_or(0)
    }

    /// Record id of entry `e`.
    #[inline]
    pub fn record_of(&self, e: u64) -> Option<u32> {
        self.ids.get(e as usize).copied()
    }

    /// Byte offset of entry `e`'s record id in the file, and the id width in bytes.
    pub fn id_offset(&self, e: u64) -> (u64, u8) {
        (self.ids_at + e * self.id_width as u64, self.id_width)
    }

    /// Decodes entry `e` (binary search over the regions).
    pub fn decode(&self, e: u64) -> Option<ActivePosition> {
        if e >= self.entries() {
            return None;
        }
        let id = self.offsets.partition_point(|&o| o <= e).checked_sub(1)?;
        let shape = *self.shapes.get(id)?;
        let sq: Vec<u32> = squares(shape).collect();
        let (bm, wm) = self.layout.decode(
            self.cap_of[id] as usize,
            shape.count_ones(),
            e - self.offsets[id],
        )?;
        Some(ActivePosition {
            region: id as u32,
            shape,
            black: deposit(bm, &sq),
            white: deposit(wm, &sq),
            record: self.record_of(e)?,
        })
    }

    fn answer(&self, e: u64) -> Option<ActiveEntry<'_>> {
        let rid = *self.ids.get(e as usize)?;
        let rec = self.records.get(rid as usize)?;
        let (bounds, exact_bounds) = *self.converted.get(rid as usize)?;
        Some(ActiveEntry {
            entry: e,
            record: rid,
            thermo_id: rec.thermo,
            thermograph: self.thermographs.get(rec.thermo as usize)?,
            class: rec.class,
            outcome: rec.outcome,
            bounds,
            exact_bounds,
            value: rec.value.as_deref(),
        })
    }

    /// The entry number of an area given in frame squares (any translation and
    /// orientation): `region` = queens plus empties, 8-connected.
    #[inline]
    fn entry_of_frame(&self, region: u128, black: u128, white: u128) -> Option<u64> {
        let (f, shift) = normalize(region);
        let loc = self.index.locate(f)?;
        let id = loc.id as usize;
        let ci = *self.cap_of.get(id)? as usize;
        let n = loc.canon.count_ones();
        let e = if loc.canon >> 64 == 0 {
            let c = loc.canon as u64;
            let map = |set: u128| -> u32 {
                let mut out = 0u32;
                let mut r = set >> shift;
                while r != 0 {
                    let b = r.trailing_zeros();
                    r &= r - 1;
                    let cb = loc.image(b) & 63;
                    out |= 1u32 << (c & ((1u64 << cb) - 1)).count_ones();
                }
                out
            };
            self.layout.entry32(ci, n, map(black), map(white))?
        } else {
            let bm = index_mask(&loc, black >> shift);
            let wm = index_mask(&loc, white >> shift);
            self.layout.entry(ci, n, bm, wm)?
        };
        Some(self.offsets.get(id)? + e)
    }

    /// The stored thermograph, class, outcome and bounds of the area `white | black |
    /// empties` (8-connected; everything else counts as blocked) on the board of `g`, in any
    /// orientation and position. `None` if the sets overlap, leave the board, the area is
    /// not connected or not covered.
    #[inline]
    pub fn lookup_active(
        &self,
        g: &Geometry,
        white: Bb,
        black: Bb,
        empties: Bb,
    ) -> Option<ActiveEntry<'_>> {
        let all = white | black | empties;
        if (white & black).any() || ((white | black) & empties).any() || (all - g.all).any() {
            return None;
        }
        if all.is_empty() {
            return None;
        }
        let (w, h) = (g.width, g.board.height as u32);
        let e = if g.len <= 64 {
            // Only the area's ranks, straight into the frame (at most 10 of them).
            let a = all.0 as u64;
            let miny = a.trailing_zeros() / w;
            let maxy = (63 - a.leading_zeros()) / w;
            if maxy - miny >= FRAME {
                return None;
            }
            let rowmask = (1u128 << w) - 1;
            let (mut f, mut b, mut q) = (0u128, 0u128, 0u128);
            for y in miny..=maxy {
                let (s, d) = (y * w, (y - miny) * FRAME);
                f |= ((all.0 >> s) & rowmask) << d;
                b |= ((black.0 >> s) & rowmask) << d;
                q |= ((white.0 >> s) & rowmask) << d;
            }
            self.entry_of_frame(f, b, q)?
        } else {
            self.entry_of_frame(
                to_frame(all.0, w, h),
                to_frame(black.0, w, h),
                to_frame(white.0, w, h),
            )?
        };
        self.answer(e)
    }

    /// [`ActiveDb::lookup_active`] for a whole `format::Position` that is one area (arrows
    /// are blocked squares).
    pub fn lookup_position(&self, p: &Position) -> Option<ActiveEntry<'_>> {
        let g = Geometry::new(p.board);
        let (mut w, mut b, mut e) = (Bb::EMPTY, Bb::EMPTY, Bb::EMPTY);
        for (i, c) in p.cells.iter().enumerate() {
            let s = Bb::from_square(i as u8);
            match c {
                Cell::White => w |= s,
                Cell::Black => b |= s,
                Cell::Empty => e |= s,
                Cell::Arrow => {}
            }
        }
        self.lookup_active(&g, w, b, e)
    }

    /// Loads the table `dir/active.amzdb`, checking every integrity condition.
    pub fn open(dir: &Path) -> Result<ActiveDb, DbError> {
        ActiveDb::open_with(dir, STREAM_FROM)
    }

    /// [`ActiveDb::open`], streaming files of at least `stream_from` bytes.
    fn open_with(dir: &Path, stream_from: u64) -> Result<ActiveDb, DbError> {
        let path = dir.join(ACTIVE_FILE);
        match std::fs::metadata(&path) {
            Ok(m) if m.len() >= stream_from.max((HEADER_LEN + TRAILER_LEN) as u64) => {
                open_streaming(&path, m.len())
            }
            _ => decode(&path, &super::store::read_file(&path)?),
        }
    }

    /// Opens the table in `dir`; if it is missing, corrupt, outdated or was built with
    /// another configuration, reports why through `notice` and rebuilds it.
    pub fn open_or_build(
        dir: &Path,
        cfg: &ActiveConfig,
        notice: &mut dyn FnMut(&str),
        progress: &mut dyn FnMut(&ActiveProgress),
    ) -> Result<(ActiveDb, Option<ActiveSummary>), DbError> {
        match ActiveDb::open(dir) {
            Ok(db) if db.config == *cfg => return Ok((db, None)),
            Ok(_) => {
                notice("active database parameters differ from the requested ones; rebuilding")
            }
            Err(e) if e.needs_rebuild() => notice(&format!("{e}; rebuilding")),
            Err(e) => return Err(e),
        }
        let summary = build_active(dir, cfg, progress)?;
        Ok((ActiveDb::open(dir)?, Some(summary)))
    }

    /// Number of regions of each size.
    pub fn regions_by_size(&self) -> Vec<(u32, usize)> {
        let mut v: Vec<(u32, usize)> = Vec::new();
        for s in &self.shapes {
            let n = s.count_ones();
            match v.last_mut() {
                Some((m, c)) if *m == n => *c += 1,
                _ => v.push((n, 1)),
            }
        }
        v
    }
}

// ----- build -----

/// A build progress report, sent after each region size and about every ten seconds
/// ([`BuildControl::report_every`]): between regions, within a long region, and while
/// the records (thermographs, classes, values) are derived.
#[derive(Debug, Clone)]
pub struct ActiveProgress {
    /// Deriving the records: `entries` counts the entries given a record so far and
    /// `games` the distinct games valued.
    pub records: bool,
    pub size: u32,
    pub max_size: u32,
    pub regions: usize,
    pub regions_total: usize,
    pub entries: u64,
    pub entries_total: u64,
    /// Distinct canonical games in the store so far.
    pub games: usize,
    /// Entries in the store's memo caches (cleared past a limit).
    pub cached: usize,
    /// In the middle of a region: its entries done and its entries in all.
    pub within: Option<(u64, u64)>,
    pub elapsed: Duration,
}

impl fmt::Display for ActiveProgress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.records {
            return write!(
                f,
                "records: {}/{} entries, {} games valued, {:.1?}",
                self.entries, self.entries_total, self.games, self.elapsed
            );
        }
        write!(
            f,
            "size {}/{}: {}/{} regions, {}/{} entries, {} games, {} cached, {:.1?}",
            self.size,
            self.max_size,
            self.regions,
            self.regions_total,
            self.entries,
            self.entries_total,
            self.games,
            self.cached,
            self.elapsed
        )?;
        if let Some((done, all)) = self.within {
            write!(f, " (in region {}: {done}/{all} entries)", self.regions + 1)?;
        }
        Ok(())
    }
}

/// What a build wrote.
#[derive(Debug, Clone)]
pub struct ActiveSummary {
    pub path: PathBuf,
    pub config: ActiveConfig,
    pub regions: usize,
    pub entries: u64,
    /// Entries with queens of both colours.
    pub mixed_entries: u64,
    pub games: usize,
    pub thermographs: usize,
    pub records: usize,
    pub file_bytes: u64,
    pub hash: String,
    pub build_time: Duration,
    /// Distinct games whose thermograph-implied outcome (paper II-D2) differs from the exact
    /// one, with an example value.
    pub thermo_outcome_disagreements: (u64, Option<String>),
    /// Distinct games for which a plain or tightened thermograph bound does not hold
    /// exactly, with an example value.
    pub thermo_bound_unsound: (u64, Option<String>),
    /// Regions whose values came from a checkpoint (0: built from the start).
    pub resumed_regions: usize,
    /// Why a checkpoint found in the directory was not used, if one was not.
    pub checkpoint_set_aside: Option<String>,
}

/// The key that ties a checkpoint to its build.
fn checkpoint_key(cfg: &ActiveConfig, regions: usize, entries: u64) -> String {
    format!(
        "{}; {regions} regions; {entries} entries; format {ACTIVE_VERSION}",
        cfg.describe()
    )
}

impl fmt::Display for ActiveSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "active  {}: {} regions, {} entries ({} with both colours), {} distinct games, {} thermographs, {} records",
            self.config.describe(),
            self.regions,
            self.entries,
            self.mixed_entries,
            self.games,
            self.thermographs,
            self.records
        )?;
        writeln!(
            f,
            "        {} bytes ({:.3} bytes/entry), built in {:.1?}, blake3 {}, {}",
            self.file_bytes,
            self.file_bytes as f64 / self.entries.max(1) as f64,
            self.build_time,
            self.hash,
            self.path.display()
        )?;
        if self.resumed_regions > 0 {
            writeln!(
                f,
                "        resumed from a checkpoint after {} of {} regions",
                self.resumed_regions, self.regions
            )?;
        }
        if let Some(why) = &self.checkpoint_set_aside {
            writeln!(
                f,
                "        a checkpoint in the directory was not used: {why}"
            )?;
        }
        write!(
            f,
            "        thermograph-implied outcome differs from the exact one for {} games{}; unsound thermograph bounds for {} games{}",
            self.thermo_outcome_disagreements.0,
            self.thermo_outcome_disagreements
                .1
                .as_ref()
                .map_or(String::new(), |v| format!(" (e.g. {v})")),
            self.thermo_bound_unsound.0,
            self.thermo_bound_unsound
                .1
                .as_ref()
                .map_or(String::new(), |v| format!(" (e.g. {v})")),
        )
    }
}

/// One part of the region left after an arrow burns a square: its squares (parent frame
/// coordinates), where its entries start, and each square's index in the part's canonical
/// square order (so a child's entry needs no symmetry work).
struct KidPart {
    mask: u128,
    ci: usize,
    n: u32,
    base: u64,
    map: [u8; (FRAME * FRAME) as usize],
}

fn kid_parts(
    c: Shape,
    index: &RegionIndex,
    cap_of: &[u8],
    offsets: &[u64],
) -> Result<Vec<Vec<KidPart>>, DbError> {
    let kids = children(c, index)?;
    Ok(kids
        .iter()
        .map(|parts: &Vec<ChildComp>| {
            parts
                .iter()
                .map(|p| {
                    let mut map = [u8::MAX; (FRAME * FRAME) as usize];
                    for b in squares(p.mask) {
                        map[b as usize] =
                            index_mask(&p.loc, 1u128 << (b - p.shift)).trailing_zeros() as u8;
                    }
                    let id = p.loc.id as usize;
                    KidPart {
                        mask: p.mask,
                        ci: cap_of[id] as usize,
                        n: p.loc.canon.count_ones(),
                        base: offsets[id],
                        map,
                    }
                })
                .collect()
        })
        .collect())
}

/// Builds the canonical value of every position of one region, appending them in layout
/// order to `ids`. The memo caches are cleared whenever they pass `cache_limit` entries
/// (checked after every position): one large region alone can fill more memory than the
/// machine has (a size-17 region of the paper's set did), and values do not depend on
/// what the caches still hold.
#[allow(clippy::too_many_arguments)]
fn build_region(
    store: &mut GameStore,
    g: &Geometry,
    index: &RegionIndex,
    layout: &ActiveLayout,
    cap_of: &[u8],
    offsets: &[u64],
    c: Shape,
    ci: usize,
    ids: &mut Vec<GameId>,
    cache_limit: usize,
    tick: &mut dyn FnMut(&GameStore, u64),
) -> Result<(), DbError> {
    let n = c.count_ones();
    let mut positions = 0u32;
    let sq: Vec<u32> = squares(c).collect();
    let kids = kid_parts(c, index, cap_of, offsets)?;
    let zero = store.zero();
    let mut left = Vec::new();
    let mut right = Vec::new();
    for (b, w) in active_groups(n, layout.caps[ci]) {
        let mut bm = if b == 0 { 0 } else { (1u128 << b) - 1 };
        loop {
            let black = deposit(bm, &sq);
            let mut wp = if w == 0 { 0 } else { (1u128 << w) - 1 };
            loop {
                let white = deposit(expand(wp, bm, n), &sq);
                let v = if (black | white) == c {
                    zero
                } else {
                    moves_of(
                        store, g, layout, ids, c, &kids, black, white, true, &mut left,
                    )?;
                    moves_of(
                        store, g, layout, ids, c, &kids, black, white, false, &mut right,
                    )?;
                    store.game(&left, &right)
                };
                ids.push(v);
                if store.cache_len() > cache_limit {
                    store.clear_caches();
                }
                positions = positions.wrapping_add(1);
                if positions.is_multiple_of(TICK_EVERY) {
                    tick(store, ids.len() as u64);
                }
                match next_combination(wp, n - b) {
                    Some(x) if w > 0 => wp = x,
                    _ => break,
                }
            }
            match next_combination(bm, n) {
                Some(x) if b > 0 => bm = x,
                _ => break,
            }
        }
    }
    Ok(())
}

#[inline]
fn mapped(set: u128, map: &[u8; (FRAME * FRAME) as usize]) -> u32 {
    let mut out = 0u32;
    let mut r = set;
    while r != 0 {
        let b = r.trailing_zeros();
        r &= r - 1;
        out |= 1u32 << map[b as usize];
    }
    out
}

/// The values of the positions `black` (or White) can move to, into `out` (sorted, dedup).
#[allow(clippy::too_many_arguments)]
fn moves_of(
    store: &mut GameStore,
    g: &Geometry,
    layout: &ActiveLayout,
    ids: &[GameId],
    c: Shape,
    kids: &[Vec<KidPart>],
    black: u128,
    white: u128,
    black_moves: bool,
    out: &mut Vec<GameId>,
) -> Result<(), DbError> {
    out.clear();
    let empties = c & !(black | white);
    let occ = g.all - Bb(empties);
    let own = if black_moves { black } else { white };
    for q in Bb(own).iter() {
        let qb = Bb::from_square(q);
        let lifted = occ - qb;
        for to in (g.queen_attacks(q, occ) & Bb(empties)).iter() {
            let tb = Bb::from_square(to);
            let moved = (Bb(own) - qb) | tb;
            let (nb, nw) = if black_moves {
                (moved.0, white)
            } else {
                (black, moved.0)
            };
            for a in g.queen_attacks(to, lifted | tb).iter() {
                let mut v = None;
                for p in &kids[a as usize] {
                    let (pb, pw) = (nb & p.mask, nw & p.mask);
                    if pb | pw == 0 {
                        continue;
                    }
                    let e = layout
                        .entry32(p.ci, p.n, mapped(pb, &p.map), mapped(pw, &p.map))
                        .map(|e| p.base + e)
                        .filter(|&e| (e as usize) < ids.len())
                        .ok_or_else(|| {
                            DbError::Build(format!(
                                "part {:#x} (black {pb:#x}, white {pw:#x}) of region {c:#x} is not built yet",
                                p.mask
                            ))
                        })?;
                    let pv = ids[e as usize];
                    v = Some(match v {
                        None => pv,
                        Some(x) => store.add(x, pv),
                    });
                }
                out.push(v.unwrap_or_else(|| store.zero()));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(())
}

fn record_of(store: &mut GameStore, g: GameId, thermo: u32, max_len: u16) -> Record {
    Record {
        thermo,
        class: store.classify(g),
        outcome: store.outcome(g),
        exact: store.bounds(g),
        value: (max_len > 0)
            .then(|| store.display_within(g, max_len as usize))
            .flatten(),
    }
}

/// Whether the paper's thermograph bounds hold for `g` (plain: `G >= x`, tightened `G > x`).
fn thermo_bounds_sound(store: &mut GameStore, g: GameId, th: &Thermograph) -> bool {
    let (lo, hi) = th.bounds();
    let l = store.number(lo.value);
    let h = store.number(hi.value);
    let lo_ok = match lo.kind {
        BoundKind::Plain => store.le(l, g),
        BoundKind::Tightened => store.lt(l, g),
        BoundKind::Relaxed => true,
    };
    let hi_ok = match hi.kind {
        BoundKind::Plain => store.le(g, h),
        BoundKind::Tightened => store.lt(g, h),
        BoundKind::Relaxed => true,
    };
    lo_ok && hi_ok
}

/// Distinct values numbered in first-seen order, each kept once: found by a hash, and
/// values with equal hashes are chained and compared (a map keyed by the values would hold
/// every record twice, and records with value texts are most of a large build's end).
struct Distinct<T> {
    items: Vec<T>,
    /// Hash to the newest item with it; older ones with the same hash chain through `next`.
    newest: HashMap<u64, u32>,
    next: Vec<u32>,
    hash: fn(&T) -> u64,
}

impl<T: std::hash::Hash + Eq> Default for Distinct<T> {
    fn default() -> Self {
        Distinct::with_hash(|item| {
            use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
            BuildHasherDefault::<DefaultHasher>::default().hash_one(item)
        })
    }
}

impl<T: Eq> Distinct<T> {
    fn with_hash(hash: fn(&T) -> u64) -> Self {
        Distinct {
            items: Vec::new(),
            newest: HashMap::new(),
            next: Vec::new(),
            hash,
        }
    }

    /// The number of `item`, keeping it if it is new.
    fn id(&mut self, item: T) -> u32 {
        let hash = (self.hash)(&item);
        let mut at = self.newest.get(&hash).copied();
        while let Some(i) = at {
            if self.items[i as usize] == item {
                return i;
            }
            at = Some(self.next[i as usize]).filter(|&n| n != u32::MAX);
        }
        let i = self.items.len() as u32;
        self.items.push(item);
        self.next
            .push(self.newest.insert(hash, i).unwrap_or(u32::MAX));
        i
    }
}

/// How a build keeps its progress on disk ([`checkpoint`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildControl {
    /// Write a checkpoint after a region once this long has passed since the build (or the
    /// last checkpoint) started, and at the end of the values phase if it took that long;
    /// `None`: never. A build finds its own checkpoint in `dir` and resumes from it.
    pub checkpoint_every: Option<Duration>,
    /// Stop with [`DbError::Stopped`] right after the first checkpoint written once at least
    /// this many regions are done, as if killed there (to test resuming).
    pub stop_after_regions: Option<usize>,
    /// Memo-cache entries (comparisons, sums, option lists) beyond which the caches are
    /// cleared (checked after every position). Clearing changes no value, only what must
    /// be recomputed: a larger limit spends memory to keep comparisons that later
    /// positions and regions repeat.
    pub cache_limit: usize,
    /// Time between progress lines (also within a region, and in the records phase).
    pub report_every: Duration,
}

impl Default for BuildControl {
    /// A checkpoint every 20 minutes: a few seconds per GB of store, against at most 20
    /// minutes of work lost to a kill.
    fn default() -> Self {
        BuildControl {
            checkpoint_every: Some(Duration::from_secs(20 * 60)),
            stop_after_regions: None,
            cache_limit: CACHE_LIMIT,
            report_every: Duration::from_secs(10),
        }
    }
}

/// Builds the active-area table into `dir` (atomically), with checkpoints every 20
/// minutes ([`BuildControl::default`]). Single-threaded: every value lives in one
/// [`GameStore`].
pub fn build_active(
    dir: &Path,
    cfg: &ActiveConfig,
    progress: &mut dyn FnMut(&ActiveProgress),
) -> Result<ActiveSummary, DbError> {
    build_active_with(dir, cfg, &BuildControl::default(), progress)
}

/// [`build_active`] with checkpoints as `control` says. A checkpoint in `dir` of the same
/// build (configuration, regions, entries) is resumed; one of another build, or a damaged
/// one, is left aside (and replaced by this build's first checkpoint). The table does not
/// depend on where the build was resumed: game ids are given in the same order either way.
pub fn build_active_with(
    dir: &Path,
    cfg: &ActiveConfig,
    control: &BuildControl,
    progress: &mut dyn FnMut(&ActiveProgress),
) -> Result<ActiveSummary, DbError> {
    cfg.validate()?;
    let t0 = Instant::now();
    let g = frame_geometry();
    let shapes = cfg.regions();
    let index = RegionIndex::new(shapes.clone());
    let (layout, cap_of, offsets) = offsets_and_caps(cfg, &shapes)?;
    let total = offsets[shapes.len()];
    let key = checkpoint_key(cfg, shapes.len(), total);
    let resumed = match checkpoint::read(dir, &key, total) {
        Ok(saved)
            if saved.regions <= shapes.len()
                && saved.ids.len() as u64 == offsets[saved.regions] =>
        {
            Ok(saved)
        }
        Ok(saved) => Err(Some(checkpoint::Found::Damaged(format!(
            "{} entries for {} regions",
            saved.ids.len(),
            saved.regions
        )))),
        Err(found) => Err((found != checkpoint::Found::None).then_some(found)),
    };
    let (first, mut ids, mut store, found) = match resumed {
        Ok(saved) => {
            let mut ids = saved.ids;
            ids.reserve_exact(total as usize - ids.len());
            (saved.regions, ids, saved.store, None)
        }
        Err(found) => (
            0,
            Vec::with_capacity(total as usize),
            GameStore::new(),
            found,
        ),
    };
    let mut last_checkpoint = Instant::now();
    let max_size = shapes.last().map_or(0, |s| s.count_ones());
    // A report after region `r` with `games` games and `cached` cache entries.
    let progress_at = |records: bool, (r, games, cached): (usize, usize, usize)| ActiveProgress {
        records,
        size: shapes[r].count_ones(),
        max_size,
        regions: r + 1,
        regions_total: shapes.len(),
        entries: offsets[r + 1],
        within: None,
        entries_total: total,
        games,
        cached,
        elapsed: t0.elapsed(),
    };
    let mut last_values_report = Instant::now();
    if first > 0 {
        // Resumed: where from, at once.
        progress(&progress_at(false, (first - 1, store.len(), 0)));
    }
    for (r, &c) in shapes.iter().enumerate().skip(first) {
        // Within a large region (one of size 17 takes many minutes), a line every 10 s too.
        let mut tick = |store: &GameStore, entries: u64| {
            if last_values_report.elapsed() >= control.report_every {
                last_values_report = Instant::now();
                progress(&ActiveProgress {
                    regions: r,
                    entries,
                    within: Some((entries - offsets[r], offsets[r + 1] - offsets[r])),
                    ..progress_at(false, (r, store.len(), store.cache_len()))
                });
            }
        };
        build_region(
            &mut store,
            &g,
            &index,
            &layout,
            &cap_of,
            &offsets,
            c,
            cap_of[r] as usize,
            &mut ids,
            control.cache_limit,
            &mut tick,
        )?;
        if ids.len() as u64 != offsets[r + 1] {
            return Err(DbError::Build(format!(
                "region {r} produced {} entries, expected {}",
                ids.len() as u64 - offsets[r],
                offsets[r + 1] - offsets[r]
            )));
        }
        // A line at the end of every region size, and every 10 s within the large ones.
        let last_of_size =
            !matches!(shapes.get(r + 1), Some(s) if s.count_ones() == c.count_ones());
        if last_of_size || last_values_report.elapsed() >= control.report_every {
            last_values_report = Instant::now();
            let at = (r, store.len(), store.cache_len());
            progress(&progress_at(false, at));
        }
        // A checkpoint when it is due; after the last region too, so that a kill in the
        // records phase does not cost the values.
        let due = control
            .checkpoint_every
            .is_some_and(|every| last_checkpoint.elapsed() >= every);
        if due {
            checkpoint::write(dir, &key, r + 1, &ids, &store)?;
            last_checkpoint = Instant::now();
            if control.stop_after_regions.is_some_and(|n| r + 1 >= n) {
                return Err(DbError::Stopped { regions: r + 1 });
            }
        }
    }

    // Records: per distinct game, deduplicated by content. The record ids are written
    // over the game ids in place (one per-entry vector, not two), a game's record is
    // remembered in a vector indexed by game, and the memo caches are bounded as in the
    // values phase: the largest tables are short of memory here, not of time.
    let mut ids: Vec<u32> = ids.into_iter().map(|g| g.index() as u32).collect();
    let mut thermographs: Distinct<Thermograph> = Distinct::default();
    let mut records: Distinct<Record> = Distinct::default();
    let mut game_rec: Vec<u32> = vec![u32::MAX; store.len()];
    let mut games = 0usize;
    let mut disagree = (0u64, None);
    let mut unsound = (0u64, None);
    let mut mixed = 0u64;
    let mut last_report = Instant::now();
    for r in 0..shapes.len() {
        for e in offsets[r]..offsets[r + 1] {
            let gi = ids[e as usize] as usize;
            let rid = match game_rec.get(gi) {
                Some(&x) if x != u32::MAX => x,
                _ => {
                    let gid = store.id_at(gi).ok_or_else(|| {
                        DbError::Build(format!("entry {e} names game {gi}, not in the store"))
                    })?;
                    let th = store.thermograph(gid);
                    let th_outcome = thermograph_outcome(&th);
                    if !thermo_bounds_sound(&mut store, gid, &th) {
                        unsound.0 += 1;
                        if unsound.1.is_none() {
                            unsound.1 = Some(store.display(gid));
                        }
                    }
                    let tid = thermographs.id(th);
                    let rec = record_of(&mut store, gid, tid, cfg.max_value_len);
                    if th_outcome != rec.outcome {
                        disagree.0 += 1;
                        if disagree.1.is_none() {
                            disagree.1 = Some(store.display(gid));
                        }
                    }
                    let rid = records.id(rec);
                    game_rec[gi] = rid;
                    games += 1;
                    if store.cache_len() > control.cache_limit {
                        store.clear_caches();
                    }
                    rid
                }
            };
            ids[e as usize] = rid;
        }
        if last_report.elapsed() >= control.report_every {
            last_report = Instant::now();
            let at = (r, games, store.cache_len());
            progress(&progress_at(true, at));
        }
    }
    // Count entries with both colours.
    for (r, &c) in shapes.iter().enumerate() {
        let n = c.count_ones();
        let ci = cap_of[r] as usize;
        for (b, w) in active_groups(n, layout.caps[ci]) {
            if b > 0 && w > 0 {
                mixed += binom(n, b) * binom(n - b, w);
            }
        }
    }
    drop(store);
    drop(game_rec);
    let (thermographs, records) = (thermographs.items, records.items);
    let bytes = encode(cfg, &shapes, &thermographs, &records, &ids);
    let path = write_atomic(dir, ACTIVE_FILE, &bytes)?;
    checkpoint::remove(dir)?;
    Ok(ActiveSummary {
        resumed_regions: first,
        checkpoint_set_aside: found.map(|f| match f {
            checkpoint::Found::OtherBuild(key) => format!("it was of another build ({key})"),
            checkpoint::Found::Damaged(why) => format!("it was damaged: {why}"),
            checkpoint::Found::None => String::new(),
        }),
        path,
        config: cfg.clone(),
        regions: shapes.len(),
        entries: total,
        mixed_entries: mixed,
        games,
        thermographs: thermographs.len(),
        records: records.len(),
        file_bytes: bytes.len() as u64,
        hash: hex(&bytes[bytes.len() - TRAILER_LEN..bytes.len() - 8]),
        build_time: t0.elapsed(),
        thermo_outcome_disagreements: disagree,
        thermo_bound_unsound: unsound,
    })
}

// ----- file format -----
//
// | offset | size | field |
// |---|---|---|
// | 0 | 8 | magic `AMZDB\0\r\n` (as the territory files) |
// | 8 | 4 | format version ([`ACTIVE_VERSION`]) |
// | 12 | 1 | kind 3 (active) |
// | 13 | 1 | tier count `T` |
// | 14 | 1 | reserved, zero |
// | 15 | 1 | record id width in bytes (2, 3 or 4) |
// | 16 | 2 | largest stored value length in characters (0: no values) |
// | 18 | 2 | reserved, zero |
// | 20 | 4 | region count `R` |
// | 24 | 8 | entry count `E` |
// | 32 | 4 T | tiers: short, long, max queens per colour, 0 |
// | | 16 R | canonical region shapes, sorted by size then key |
// | | | thermograph count `H` (u32), then per thermograph both walls: point count (u16), points `(t, x)` as four i64 (t num, t den, x num, x den), tail slope (two i64) |
// | | | record count `C` (u32), then per record: thermograph id (u32), class (tag u8, number two i64, infinitesimal kind u8), outcome (u8), exact lower and upper bound (value two i64, kind u8 each), value length (u32, 0 for none) and UTF-8 text (only when values are stored) |
// | | width E | record id per entry, in [`ActiveLayout`] order |
// | end - 40 | 32 | blake3 hash of every byte before it |
// | end - 8 | 8 | sentinel `AMZDBEND` |

fn put_rat(out: &mut Vec<u8>, r: Rational) {
    out.extend_from_slice(&r.numer().to_le_bytes());
    out.extend_from_slice(&r.denom().to_le_bytes());
}

fn put_traj(out: &mut Vec<u8>, t: &Trajectory) {
    out.extend_from_slice(&(t.points().len() as u16).to_le_bytes());
    for &(tt, x) in t.points() {
        put_rat(out, tt);
        put_rat(out, x);
    }
    put_rat(out, t.tail_slope());
}

fn inf_code(k: InfKind) -> u8 {
    match k {
        InfKind::Zero => 0,
        InfKind::Positive => 1,
        InfKind::Negative => 2,
        InfKind::Fuzzy => 3,
    }
}

fn inf_of(c: u8) -> Option<InfKind> {
    Some(match c {
        0 => InfKind::Zero,
        1 => InfKind::Positive,
        2 => InfKind::Negative,
        3 => InfKind::Fuzzy,
        _ => return None,
    })
}

fn outcome_code(o: Outcome) -> u8 {
    match o {
        Outcome::L => 0,
        Outcome::R => 1,
        Outcome::P => 2,
        Outcome::N => 3,
    }
}

fn outcome_from(c: u8) -> Option<Outcome> {
    Some(match c {
        0 => Outcome::L,
        1 => Outcome::R,
        2 => Outcome::P,
        3 => Outcome::N,
        _ => return None,
    })
}

fn put_bound(out: &mut Vec<u8>, b: Bound) {
    put_rat(out, b.value);
    out.push(match b.kind {
        BoundKind::Plain => 0,
        BoundKind::Tightened => 1,
        BoundKind::Relaxed => 2,
    });
}

fn put_record(out: &mut Vec<u8>, r: &Record, values: bool) {
    out.extend_from_slice(&r.thermo.to_le_bytes());
    let (tag, x, k) = match r.class {
        Class::Number(x) => (0u8, x, InfKind::Zero),
        Class::Star => (1, Rational::ZERO, InfKind::Fuzzy),
        Class::Infinitesimal(k) => (2, Rational::ZERO, k),
        Class::Tepid(x, k) => (3, x, k),
        Class::Hot => (4, Rational::ZERO, InfKind::Zero),
    };
    out.push(tag);
    put_rat(out, x);
    out.push(inf_code(k));
    out.push(outcome_code(r.outcome));
    put_bound(out, r.exact.0);
    put_bound(out, r.exact.1);
    if values {
        let v = r.value.as_deref().unwrap_or("");
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v.as_bytes());
    }
}

/// Serializes a table.
fn encode(
    cfg: &ActiveConfig,
    shapes: &[Shape],
    thermographs: &[Thermograph],
    records: &[Record],
    ids: &[u32],
) -> Vec<u8> {
    let width: u8 = if records.len() <= 1 << 16 {
        2
    } else if records.len() <= 1 << 24 {
        3
    } else {
        4
    };
    let mut out = Vec::with_capacity(HEADER_LEN + 16 * shapes.len() + width as usize * ids.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&ACTIVE_VERSION.to_le_bytes());
    out.push(ACTIVE_KIND);
    out.push(cfg.tiers.len() as u8);
    out.push(0);
    out.push(width);
    out.extend_from_slice(&cfg.max_value_len.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(shapes.len() as u32).to_le_bytes());
    out.extend_from_slice(&(ids.len() as u64).to_le_bytes());
    for t in &cfg.tiers {
        out.extend_from_slice(&[t.rect.0, t.rect.1, t.max_per_color, 0]);
    }
    for s in shapes {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out.extend_from_slice(&(thermographs.len() as u32).to_le_bytes());
    for th in thermographs {
        put_traj(&mut out, &th.left);
        put_traj(&mut out, &th.right);
    }
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    for r in records {
        put_record(&mut out, r, cfg.max_value_len > 0);
    }
    for &id in ids {
        out.extend_from_slice(&id.to_le_bytes()[..width as usize]);
    }
    let hash = blake3::hash(&out);
    out.extend_from_slice(hash.as_bytes());
    out.extend_from_slice(&SENTINEL);
    out
}

/// Where a [`Cur`] reads from: bytes in memory, or a file read in order (so that a table of
/// several gigabytes is decoded without a copy of the whole file in memory).
enum Src<'a> {
    Slice(&'a [u8]),
    Stream {
        r: std::io::BufReader<std::fs::File>,
        len: usize,
        buf: Vec<u8>,
        /// Hash of the bytes read so far (from the start of the file).
        hasher: Box<blake3::Hasher>,
    },
}

/// A bounds-checked reader over the body of a file whose hash already matched.
struct Cur<'a> {
    src: Src<'a>,
    at: usize,
    path: &'a Path,
}

impl<'a> Cur<'a> {
    fn bad(&self, what: &str) -> DbError {
        DbError::Malformed {
            path: self.path.to_path_buf(),
            reason: format!("{what} (at byte {})", self.at),
        }
    }
    /// Bytes left before the end of the body.
    fn remaining(&self) -> usize {
        match &self.src {
            Src::Slice(b) => b.len() - self.at,
            Src::Stream { len, .. } => len - self.at,
        }
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], DbError> {
        if self.remaining() < n {
            return Err(self.bad(&format!("{what} runs past the end of the data")));
        }
        let at = self.at;
        self.at += n;
        match &mut self.src {
            Src::Slice(b) => Ok(&b[at..at + n]),
            Src::Stream { r, buf, hasher, .. } => {
                use std::io::Read;
                buf.resize(n, 0);
                r.read_exact(buf).map_err(|source| DbError::Io {
                    path: self.path.to_path_buf(),
                    source,
                })?;
                hasher.update(buf);
                Ok(&buf[..])
            }
        }
    }
    fn u8(&mut self, what: &str) -> Result<u8, DbError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, DbError> {
        let s = self.take(2, what)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, DbError> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn i64(&mut self, what: &str) -> Result<i64, DbError> {
        let s = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(i64::from_le_bytes(a))
    }
    fn rat(&mut self, what: &str) -> Result<Rational, DbError> {
        let (n, d) = (self.i64(what)?, self.i64(what)?);
        match Rational::new(n, d) {
            Some(r) if r.numer() == n && r.denom() == d => Ok(r),
            _ => Err(self.bad(&format!("{what}: {n}/{d} is not a reduced rational"))),
        }
    }
    fn traj(&mut self) -> Result<Trajectory, DbError> {
        let k = self.u16("wall point count")? as usize;
        let mut pts = Vec::with_capacity(k);
        for _ in 0..k {
            pts.push((self.rat("wall point")?, self.rat("wall point")?));
        }
        let tail = self.rat("wall tail slope")?;
        let t = Trajectory::from_points(pts.clone(), tail)
            .ok_or_else(|| self.bad("invalid thermograph wall"))?;
        if t.points() != pts.as_slice() {
            return Err(self.bad("thermograph wall not in simplest form"));
        }
        Ok(t)
    }
    fn bound(&mut self) -> Result<Bound, DbError> {
        let value = self.rat("bound value")?;
        let kind = match self.u8("bound kind")? {
            0 => BoundKind::Plain,
            1 => BoundKind::Tightened,
            2 => BoundKind::Relaxed,
            k => return Err(self.bad(&format!("unknown bound kind {k}"))),
        };
        Ok(Bound { value, kind })
    }
}

/// Decodes and validates an active-area file: magic, version, sentinel, hash, header, tiers,
/// regions (canonical, connected, sorted, covered, entry count consistent), thermographs,
/// records (thermograph ids in range, codes valid) and every record id (in range).
pub fn decode(path: &Path, bytes: &[u8]) -> Result<ActiveDb, DbError> {
    check_start(path, bytes, ACTIVE_VERSION)?;
    if bytes[bytes.len() - 8..] != SENTINEL {
        return Err(DbError::BadSentinel(path.to_path_buf()));
    }
    let body = bytes.len() - TRAILER_LEN;
    let hash = blake3::hash(&bytes[..body]);
    if hash.as_bytes()[..] != bytes[body..body + 32] {
        return Err(DbError::HashMismatch(path.to_path_buf()));
    }
    let mut cur = Cur {
        src: Src::Slice(&bytes[..body]),
        at: HEADER_LEN,
        path,
    };
    decode_checked(
        path,
        &bytes[..HEADER_LEN],
        &mut cur,
        bytes.len() as u64,
        hash,
    )
}

/// Files from this size on are decoded by [`open_streaming`] rather than read whole.
const STREAM_FROM: u64 = 64 << 20;

/// Loads a large table in two passes over the file: the first checks the sentinel and the
/// hash, the second decodes (and hashes again, so that a file changed between the passes
/// is refused); neither holds the whole file in memory, so the peak is the decoded table
/// alone (for the paper's 7.2 GB set, about 60% of reading it whole). The checks and
/// errors are those of [`decode`].
fn open_streaming(path: &Path, len: u64) -> Result<ActiveDb, DbError> {
    use std::io::{BufReader, Read, Seek, SeekFrom};
    let io = |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let body = len - TRAILER_LEN as u64;
    // The header and the trailer, as one short "file" for the start checks.
    let mut ends = vec![0u8; HEADER_LEN + TRAILER_LEN];
    f.read_exact(&mut ends[..HEADER_LEN]).map_err(io)?;
    f.seek(SeekFrom::Start(body)).map_err(io)?;
    f.read_exact(&mut ends[HEADER_LEN..]).map_err(io)?;
    check_start(path, &ends, ACTIVE_VERSION)?;
    if ends[ends.len() - 8..] != SENTINEL {
        return Err(DbError::BadSentinel(path.to_path_buf()));
    }
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut hasher = blake3::Hasher::new();
    let read = hasher
        .update_reader(BufReader::with_capacity(1 << 20, (&f).take(body)))
        .map_err(io)?
        .count();
    let hash = hasher.finalize();
    if read != body || hash.as_bytes()[..] != ends[HEADER_LEN..HEADER_LEN + 32] {
        return Err(DbError::HashMismatch(path.to_path_buf()));
    }
    f.seek(SeekFrom::Start(HEADER_LEN as u64)).map_err(io)?;
    let mut again = Box::new(blake3::Hasher::new());
    again.update(&ends[..HEADER_LEN]);
    let mut cur = Cur {
        src: Src::Stream {
            r: BufReader::with_capacity(1 << 20, f),
            len: body as usize,
            buf: Vec::new(),
            hasher: again,
        },
        at: HEADER_LEN,
        path,
    };
    let db = decode_checked(path, &ends[..HEADER_LEN], &mut cur, len, hash)?;
    match cur.src {
        Src::Stream { hasher, .. } if cur.at == body as usize && hasher.finalize() == hash => {
            Ok(db)
        }
        _ => Err(DbError::HashMismatch(path.to_path_buf())),
    }
}

/// The rest of [`decode`], once magic, version, sentinel and hash are known to be right:
/// `bytes` is the header, `cur` reads the body after it.
fn decode_checked(
    path: &Path,
    bytes: &[u8],
    cur: &mut Cur<'_>,
    file_bytes: u64,
    hash: blake3::Hash,
) -> Result<ActiveDb, DbError> {
    let p = || path.to_path_buf();
    let malformed = |reason: String| DbError::Malformed { path: p(), reason };
    if bytes[12] != ACTIVE_KIND {
        return Err(malformed(format!(
            "kind {} is not an active-area table",
            bytes[12]
        )));
    }
    let ntiers = bytes[13] as usize;
    let width = bytes[15];
    if bytes[14] != 0 || bytes[18..20] != [0, 0] {
        return Err(malformed("reserved header bits are not zero".into()));
    }
    if !(2..=4).contains(&width) {
        return Err(malformed(format!("record id width {width}")));
    }
    let regions = u32_at(bytes, 20) as usize;
    let entries = u64_at(bytes, 24);
    let mut tiers = Vec::with_capacity(ntiers);
    for _ in 0..ntiers {
        let t = cur.take(4, "tier")?;
        if t[3] != 0 {
            return Err(malformed("reserved tier byte is not zero".into()));
        }
        tiers.push(Tier::new(t[0], t[1], t[2]));
    }
    let config = ActiveConfig {
        tiers,
        max_value_len: u16::from_le_bytes([bytes[16], bytes[17]]),
    };
    config.validate().map_err(|e| malformed(e.to_string()))?;
    if regions > cur.remaining() / 16 {
        return Err(malformed(format!("{regions} regions do not fit the file")));
    }
    let mut shapes = Vec::with_capacity(regions);
    let mut prev: Option<(u32, Shape)> = None;
    for i in 0..regions {
        let mut a = [0u8; 16];
        a.copy_from_slice(cur.take(16, "region")?);
        let s = u128::from_le_bytes(a);
        let n = s.count_ones();
        let (w, h) = dims(s);
        if s & !FRAME_ALL != 0 || !is_connected(s) || canonical(s) != s || config.cap(w, h) == 0 {
            return Err(malformed(format!(
                "region {i} is not a canonical covered region"
            )));
        }
        if prev.is_some_and(|pk| pk >= (n, s)) {
            return Err(malformed(format!("region {i} is out of order")));
        }
        prev = Some((n, s));
        shapes.push(s);
    }
    let (layout, cap_of, offsets) = offsets_and_caps(&config, &shapes)?;
    if offsets[shapes.len()] != entries {
        return Err(malformed(format!(
            "header says {entries} entries, the regions need {}",
            offsets[shapes.len()]
        )));
    }
    let nth = cur.u32("thermograph count")? as usize;
    let mut thermographs = Vec::with_capacity(nth.min(1 << 20));
    for _ in 0..nth {
        let left = cur.traj()?;
        let right = cur.traj()?;
        thermographs.push(Thermograph { left, right });
    }
    let nrec = cur.u32("record count")? as usize;
    let mut records = Vec::with_capacity(nrec.min(1 << 20));
    for i in 0..nrec {
        let thermo = cur.u32("record thermograph id")?;
        if thermo as usize >= nth {
            return Err(malformed(format!(
                "record {i} names thermograph {thermo} of {nth}"
            )));
        }
        let tag = cur.u8("class tag")?;
        let x = cur.rat("class number")?;
        let k = cur.u8("infinitesimal kind")?;
        let kind = inf_of(k).ok_or_else(|| malformed(format!("record {i}: kind {k}")))?;
        let class = match tag {
            0 => Class::Number(x),
            1 => Class::Star,
            2 => Class::Infinitesimal(kind),
            3 => Class::Tepid(x, kind),
            4 => Class::Hot,
            _ => return Err(malformed(format!("record {i}: class tag {tag}"))),
        };
        let oc = cur.u8("outcome")?;
        let outcome =
            outcome_from(oc).ok_or_else(|| malformed(format!("record {i}: outcome {oc}")))?;
        let exact = (cur.bound()?, cur.bound()?);
        let value = if config.max_value_len > 0 {
            let len = cur.u32("value length")? as usize;
            if len > config.max_value_len as usize {
                return Err(malformed(format!("record {i}: value of {len} bytes")));
            }
            let s = cur.take(len, "value text")?;
            let v = String::from_utf8(s.to_vec())
                .map_err(|_| malformed(format!("record {i}: value is not UTF-8")))?;
            (len > 0).then_some(v)
        } else {
            None
        };
        records.push(Record {
            thermo,
            class,
            outcome,
            exact,
            value,
        });
    }
    let ids_at = cur.at as u64;
    let need = (entries as u128) * width as u128;
    if need != cur.remaining() as u128 {
        return Err(malformed(format!(
            "{} bytes of record ids, {entries} entries of {width} bytes need {need}",
            cur.remaining()
        )));
    }
    let mut ids = Vec::with_capacity(entries as usize);
    // In pieces of at most 1 Mi ids, so that a streamed file needs no buffer of them all.
    let mut left = entries as usize;
    while left > 0 {
        let n = left.min(1 << 20);
        left -= n;
        let raw = cur.take(n * width as usize, "record ids")?;
        match width {
            2 => ids.extend(
                raw.chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32),
            ),
            3 => ids.extend(
                raw.chunks_exact(3)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], 0])),
            ),
            _ => ids.extend(
                raw.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            ),
        }
    }
    if let Some(i) = ids.iter().position(|&r| r as usize >= nrec) {
        return Err(malformed(format!(
            "entry {i} names record {} of {nrec}",
            ids[i]
        )));
    }
    let converted = records
        .iter()
        .map(|r| {
            let th = &thermographs[r.thermo as usize];
            (to_eval_bounds(th.bounds()), to_eval_bounds(r.exact))
        })
        .collect();
    let index = RegionIndex::new(shapes.clone());
    let digest = *hash.as_bytes();
    Ok(ActiveDb {
        config,
        path: p(),
        shapes,
        cap_of,
        offsets,
        layout,
        index,
        thermographs,
        records,
        converted,
        ids,
        ids_at,
        id_width: width,
        hash: digest,
        file_bytes,
    })
}

// ----- audit -----

/// A stored entry the separate recomputation disagrees with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveMismatch {
    pub entry: u64,
    /// Byte offset of the entry's record id in the file.
    pub file_offset: u64,
    pub region: u32,
    /// The position (grid notation, `X` Black, `O` White, `#` outside the region).
    pub position: String,
    pub record: u32,
    /// What disagrees.
    pub what: String,
}

impl fmt::Display for ActiveMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "active entry {} (region {}, record {}, file offset {}): position {}: {}",
            self.entry, self.region, self.record, self.file_offset, self.position, self.what
        )
    }
}

/// What an active audit checked and found.
#[derive(Debug, Clone)]
pub struct ActiveAuditReport {
    pub checked: u64,
    /// Entries whose value recomputation exceeded [`AUDIT_LIMIT`] (outcomes still checked).
    pub value_skipped: u64,
    pub mismatches: Vec<ActiveMismatch>,
    pub mismatch_count: u64,
    pub sample: Option<(usize, u64)>,
    pub elapsed: Duration,
}

impl ActiveAuditReport {
    pub fn ok(&self) -> bool {
        self.mismatch_count == 0
    }
}

impl fmt::Display for ActiveAuditReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.sample {
            Some((n, seed)) => {
                write!(f, "active audit of a sample of {n} entries (seed {seed}): ")?
            }
            None => write!(f, "active audit of every entry: ")?,
        }
        writeln!(
            f,
            "{} entries checked (outcomes by plain search for both sides to move, thermograph-implied outcomes, values recomputed by a fresh store; {} too complex to revalue) in {:.1?}, {} mismatch(es)",
            self.checked, self.value_skipped, self.elapsed, self.mismatch_count
        )?;
        for m in &self.mismatches {
            writeln!(f, "  MISMATCH {m}")?;
        }
        Ok(())
    }
}

/// Audits the active table in `dir`.
pub fn audit_active_dir(
    dir: &Path,
    sample: Option<(usize, u64)>,
) -> Result<ActiveAuditReport, DbError> {
    let db = ActiveDb::open(dir)?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    Ok(audit_active(&db, sample, threads))
}

/// Entries to check: all, or `size` drawn with `seed` among the entries with both colours
/// (single-colour entries are numbers; they are drawn only when `size` exceeds the rest).
fn choose(db: &ActiveDb, sample: Option<(usize, u64)>) -> Vec<u64> {
    let n = db.entries();
    match sample {
        Some((size, seed)) if (size as u64) < n => {
            let mut rng = Rng(seed ^ 0xAC71_7E00);
            let mut set = HashSet::with_capacity(size);
            let mut tries = 0u64;
            while set.len() < size && tries < 64 * size as u64 + 1000 {
                tries += 1;
                let e = rng.below(n);
                if db.decode(e).is_some_and(|p| p.black != 0 && p.white != 0) {
                    set.insert(e);
                }
            }
            let mut v: Vec<u64> = set.into_iter().collect();
            v.sort_unstable();
            v
        }
        _ => (0..n).collect(),
    }
}

/// Audits a loaded table with `threads` workers.
pub fn audit_active(
    db: &ActiveDb,
    sample: Option<(usize, u64)>,
    threads: usize,
) -> ActiveAuditReport {
    let start = Instant::now();
    let entries = choose(db, sample);
    let found = Mutex::new((0u64, Vec::new(), 0u64));
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                let mut store = GameStore::new();
                let mut local = (0u64, Vec::new(), 0u64);
                loop {
                    let a = next.fetch_add(32, Ordering::Relaxed);
                    if a >= entries.len() {
                        break;
                    }
                    for &e in &entries[a..(a + 32).min(entries.len())] {
                        // Bounded memory: a few hundred MB of games and of memo caches
                        // per thread (large areas of a big table fill both fast).
                        if store.len() > 2_000_000 {
                            store = GameStore::new();
                        } else if store.cache_len() > AUDIT_CACHE_LIMIT {
                            store.clear_caches();
                        }
                        let (m, skipped) = check_entry(db, e, &mut store);
                        local.2 += skipped as u64;
                        if let Some(m) = m {
                            local.0 += 1;
                            local.1.push(m);
                        }
                    }
                }
                if let Ok(mut g) = found.lock() {
                    g.0 += local.0;
                    g.1.extend(local.1);
                    g.2 += local.2;
                }
            });
        }
    });
    let (count, mut list, skipped) = found.into_inner().unwrap_or_default();
    list.sort_by_key(|m: &ActiveMismatch| m.entry);
    list.truncate(100);
    ActiveAuditReport {
        checked: entries.len() as u64,
        value_skipped: skipped,
        mismatches: list,
        mismatch_count: count,
        sample,
        elapsed: start.elapsed(),
    }
}

/// Checks one entry: `(mismatch, value recomputation skipped)`.
fn check_entry(db: &ActiveDb, e: u64, store: &mut GameStore) -> (Option<ActiveMismatch>, bool) {
    let file_offset = db.id_offset(e).0;
    let mk = |region: u32, position: String, record: u32, what: String| ActiveMismatch {
        entry: e,
        file_offset,
        region,
        position,
        record,
        what,
    };
    let Some(ap) = db.decode(e) else {
        return (
            Some(mk(
                u32::MAX,
                "(undecodable)".into(),
                u32::MAX,
                "cannot decode".into(),
            )),
            false,
        );
    };
    let Some(pos) = ap.position() else {
        return (
            Some(mk(
                ap.region,
                "(no position)".into(),
                ap.record,
                "no board".into(),
            )),
            false,
        );
    };
    let Some(ans) = db.answer(e) else {
        return (
            Some(mk(
                ap.region,
                pos.grid(),
                ap.record,
                "record missing".into(),
            )),
            false,
        );
    };
    let mut problems = Vec::new();
    // 1. Outcomes by plain exhaustive search, both sides to move.
    let b = amazons_cgt::search_first_player_wins(&pos, Color::Black);
    let w = amazons_cgt::search_first_player_wins(&pos, Color::White);
    if let (Ok(b), Ok(w)) = (b, w) {
        let searched = outcome_of(b, w);
        if searched != ans.outcome {
            problems.push(format!(
                "stored outcome {:?}, plain search gives {searched:?} (Black first wins: {b}, White first wins: {w})",
                ans.outcome
            ));
        }
        let implied = thermograph_outcome(ans.thermograph);
        if implied != searched {
            problems.push(format!(
                "stored thermograph implies outcome {implied:?}, plain search gives {searched:?}"
            ));
        }
    }
    // 2. Value, thermograph and class by a fresh store (its own move generator).
    let mut skipped = false;
    match store.value_of_area_with_limit(&pos, AUDIT_LIMIT) {
        Ok(gid) => {
            let th = store.thermograph(gid);
            if th != *ans.thermograph {
                problems.push(format!(
                    "stored thermograph {} recomputed {}",
                    ans.thermograph.point_string().replace('\n', " / "),
                    th.point_string().replace('\n', " / ")
                ));
            }
            let class = store.classify(gid);
            if class != ans.class {
                problems.push(format!(
                    "stored class {:?}, recomputed {class:?}",
                    ans.class
                ));
            }
            if let Some(v) = ans.value {
                let d = store.display(gid);
                if d != v {
                    problems.push(format!("stored value {v}, recomputed {d}"));
                }
            }
        }
        Err(_) => skipped = true,
    }
    let m =
        (!problems.is_empty()).then(|| mk(ap.region, pos.grid(), ap.record, problems.join("; ")));
    (m, skipped)
}

// ----- value report -----

/// Class in words.
pub fn class_name(c: &Class) -> String {
    let inf = |k: &InfKind| match k {
        InfKind::Zero => "zero",
        InfKind::Positive => "positive",
        InfKind::Negative => "negative",
        InfKind::Fuzzy => "fuzzy",
    };
    match c {
        Class::Number(x) => format!("number {x}"),
        Class::Star => "star (*)".into(),
        Class::Infinitesimal(k) => format!("infinitesimal ({})", inf(k)),
        Class::Tepid(x, k) => format!("number {x} plus a {} infinitesimal", inf(k)),
        Class::Hot => "hot".into(),
    }
}

fn outcome_words(o: Outcome) -> &'static str {
    match o {
        Outcome::L => "L (Black wins whoever starts)",
        Outcome::R => "R (White wins whoever starts)",
        Outcome::P => "P (the second player wins)",
        Outcome::N => "N (the first player wins)",
    }
}

fn bound_text(b: &Bound, lower: bool) -> String {
    match (b.kind, lower) {
        (BoundKind::Plain, true) => format!("[{}", b.value),
        (BoundKind::Plain, false) => format!("{}]", b.value),
        (BoundKind::Tightened, true) => format!("({}", b.value),
        (BoundKind::Tightened, false) => format!("{})", b.value),
        (BoundKind::Relaxed, true) => format!("[{}-e", b.value),
        (BoundKind::Relaxed, false) => format!("{}+e]", b.value),
    }
}

/// The report of `amazons value --position GRID`, with the default follower limit.
pub fn value_report(position: &Position) -> Result<String, CgtError> {
    value_report_with_limit(position, amazons_cgt::DEFAULT_FOLLOWER_LIMIT)
}

/// The report of `amazons value`: canonical value, thermograph points (`L: (x, t) ...`,
/// `R: ...`), temperature, mean, stops, class, outcome and bounds of the position's areas
/// (all of them together, Left = Black). Fails if evaluating it needs more than `limit`
/// positions.
pub fn value_report_with_limit(position: &Position, limit: usize) -> Result<String, CgtError> {
    let mut store = GameStore::new();
    let g = store.value_of_area_with_limit(position, limit)?;
    let th = store.thermograph(g);
    let class = store.classify(g);
    let outcome = store.outcome(g);
    let exact = store.bounds(g);
    let paper = th.bounds();
    let mut s = String::new();
    let _ = writeln!(s, "position: {}", position.grid());
    let _ = writeln!(s, "value: {}", store.display(g));
    let _ = writeln!(s, "thermograph:");
    let _ = writeln!(s, "{}", th.point_string());
    let _ = writeln!(s, "temperature: {}", th.temperature());
    let _ = writeln!(s, "mean: {}", th.mast_value());
    let _ = writeln!(s, "left stop: {}", th.left_stop());
    let _ = writeln!(s, "right stop: {}", th.right_stop());
    let _ = writeln!(s, "class: {}", class_name(&class));
    let _ = writeln!(s, "outcome: {}", outcome_words(outcome));
    let _ = writeln!(
        s,
        "bounds (thermograph): {}, {}",
        bound_text(&paper.0, true),
        bound_text(&paper.1, false)
    );
    let _ = writeln!(
        s,
        "bounds (exact): {}, {}",
        bound_text(&exact.0, true),
        bound_text(&exact.1, false)
    );
    Ok(s)
}

// ----- statistics and benchmark -----

impl fmt::Display for ActiveDb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "active table {}: {}",
            self.path.display(),
            self.config.describe()
        )?;
        writeln!(
            f,
            "  file {} bytes, {} entries ({:.3} bytes/entry), {} thermographs, {} records, blake3 {}",
            self.file_bytes,
            self.entries(),
            self.file_bytes as f64 / self.entries().max(1) as f64,
            self.thermographs.len(),
            self.records.len(),
            hex(&self.hash)
        )?;
        let regions: usize = self.shapes.len();
        write!(f, "  {regions} regions by size:")?;
        for (n, c) in self.regions_by_size() {
            write!(f, " {n}:{c}")?;
        }
        writeln!(f)
    }
}

/// Mean CPU time of one warm [`ActiveDb::lookup_active`] query: `n` queries cycling through
/// 256 areas with queens of both colours sampled from the table, placed in random
/// orientations and positions on a 6x6 board.
pub fn bench_active_lookup(db: &ActiveDb, n: usize) -> Duration {
    let g = Geometry::new(Board {
        width: 6,
        height: 6,
    });
    let mut rng = Rng(0xAC71_BE7C);
    let mut queries = Vec::new();
    let mut tries = 0;
    while queries.len() < 256 && tries < 100_000 && db.entries() > 0 {
        tries += 1;
        let Some(ap) = db.decode(rng.below(db.entries())) else {
            continue;
        };
        if ap.black == 0 || ap.white == 0 {
            continue;
        }
        let entry = Entry {
            region: ap.region,
            shape: ap.shape,
            blockers: ap.black,
            normals: ap.white,
            value: 0,
        };
        let sym = rng.below(8) as u8;
        let (dx, dy) = (rng.below(6) as u32, rng.below(6) as u32);
        if let Some((w, b, e)) = embed(&entry, &g, sym, dx, dy) {
            queries.push((w, b, e));
        }
    }
    if queries.is_empty() || n == 0 {
        return Duration::ZERO;
    }
    let mut acc = 0u64;
    let start = Instant::now();
    let cpu0 = thread_cpu_time();
    for i in 0..n {
        let (w, b, e) = queries[i % queries.len()];
        let v = db.lookup_active(&g, std::hint::black_box(w), b, e);
        acc += std::hint::black_box(v).map_or(0, |x| x.thermo_id as u64);
    }
    let elapsed = match (cpu0, thread_cpu_time()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => start.elapsed(),
    };
    std::hint::black_box(acc);
    Duration::from_nanos((elapsed.as_nanos() / n as u128) as u64)
}

#[cfg(test)]
#[path = "active_tests.rs"]
mod tests;
