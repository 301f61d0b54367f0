//! Building an active-area table by retrograde analysis over regions, with checkpoints and progress reports.

use super::file::encode;
use super::layout::{active_groups, binom, ActiveLayout};
use super::table::offsets_and_caps;
use super::{
    thermograph_outcome, ActiveConfig, Record, ACTIVE_FILE, ACTIVE_VERSION, CACHE_LIMIT,
    TICK_EVERY, TRAILER_LEN,
};
use crate::build::{children, deposit, ChildComp};
use crate::checkpoint;
use crate::frame_geometry;
use crate::index::{expand, next_combination};
use crate::regions::{squares, FRAME};
use crate::regions::{RegionIndex, Shape};
use crate::store::{hex, write_atomic, DbError};
use crate::view::index_mask;
use crate::BuildCounts;
use amazons_board::bitboard::Bb;
use amazons_board::geometry::Geometry;
use amazons_cgt::{BoundKind, GameId, GameStore, Thermograph};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A build progress report, sent after each region size and about every ten seconds
/// ([`BuildControl::report_every`]): between regions, within a long region, and while
/// the records (thermographs, classes, values) are derived.
#[derive(Debug, Clone)]
pub struct ActiveProgress {
    /// Deriving the records: `counts.entries` counts the entries given a record so far and
    /// `games` the distinct games valued.
    pub records: bool,
    pub counts: BuildCounts,
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
        let c = &self.counts;
        if self.records {
            return write!(
                f,
                "records: {}/{} entries, {} games valued, {:.1?}",
                c.entries, c.entries_total, self.games, self.elapsed
            );
        }
        write!(
            f,
            "{c}, {} games, {} cached, {:.1?}",
            self.games, self.cached, self.elapsed
        )?;
        if let Some((done, all)) = self.within {
            write!(f, " (in region {}: {done}/{all} entries)", c.regions + 1)?;
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
        let ActiveSummary {
            regions,
            entries,
            mixed_entries,
            games,
            thermographs,
            records,
            ..
        } = self;
        writeln!(
            f,
            "active  {}: {regions} regions, {entries} entries ({mixed_entries} with both \
             colours), {games} distinct games, {thermographs} thermographs, {records} records",
            self.config.describe()
        )?;
        writeln!(
            f,
            "        {}",
            crate::file_figures(
                self.file_bytes,
                *entries,
                self.build_time,
                &self.hash,
                &self.path
            )
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

pub(super) fn record_of(store: &mut GameStore, g: GameId, thermo: u32, max_len: u16) -> Record {
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
pub(super) struct Distinct<T> {
    pub(super) items: Vec<T>,
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
    pub(super) fn with_hash(hash: fn(&T) -> u64) -> Self {
        Distinct {
            items: Vec::new(),
            newest: HashMap::new(),
            next: Vec::new(),
            hash,
        }
    }

    /// The number of `item`, keeping it if it is new.
    pub(super) fn id(&mut self, item: T) -> u32 {
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

/// When a build keeps its progress on disk ([`checkpoint`]). A build finds its own
/// checkpoint in `dir` and resumes from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoints {
    /// Write a checkpoint after a region once this long has passed since the build (or the
    /// last checkpoint) started, and at the end of the values phase if it took that long;
    /// `None`: never.
    pub every: Option<Duration>,
    /// Stop with [`DbError::Stopped`] right after the first checkpoint written once at least
    /// this many regions are done, as if killed there (to test resuming).
    pub stop_after_regions: Option<usize>,
}

impl Default for Checkpoints {
    /// Every 20 minutes: a few seconds per GB of store, against at most 20 minutes of work
    /// lost to a kill.
    fn default() -> Self {
        Checkpoints {
            every: Some(Duration::from_secs(20 * 60)),
            stop_after_regions: None,
        }
    }
}

/// How a build runs: its checkpoints, its memory for caches, its progress reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildControl {
    pub checkpoints: Checkpoints,
    /// Memo-cache entries (comparisons, sums, option lists) beyond which the caches are
    /// cleared (checked after every position). Clearing changes no value, only what must
    /// be recomputed: a larger limit spends memory to keep comparisons that later
    /// positions and regions repeat.
    pub cache_limit: usize,
    /// Time between progress lines (also within a region, and in the records phase).
    pub report_every: Duration,
}

impl Default for BuildControl {
    fn default() -> Self {
        BuildControl {
            checkpoints: Checkpoints::default(),
            cache_limit: CACHE_LIMIT,
            report_every: Duration::from_secs(10),
        }
    }
}

/// What a build lays out before it values anything: the regions in build order, their
/// index, the entry layout with each region's capacity class, the offsets of the
/// regions' entries, and the key that ties a checkpoint to this build.
struct Plan {
    shapes: Vec<Shape>,
    index: RegionIndex,
    layout: ActiveLayout,
    cap_of: Vec<u8>,
    offsets: Vec<u64>,
    key: String,
}

impl Plan {
    /// The plan of a build of `cfg`, once `cfg` is found valid.
    fn new(cfg: &ActiveConfig) -> Result<Plan, DbError> {
        cfg.validate()?;
        let shapes = cfg.regions();
        let (layout, cap_of, offsets) = offsets_and_caps(cfg, &shapes)?;
        Ok(Plan {
            key: checkpoint_key(cfg, shapes.len(), offsets[shapes.len()]),
            index: RegionIndex::new(shapes.clone()),
            shapes,
            layout,
            cap_of,
            offsets,
        })
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
    let t0 = Instant::now();
    let Plan {
        shapes,
        index,
        layout,
        cap_of,
        offsets,
        key,
    } = Plan::new(cfg)?;
    let total = offsets[shapes.len()];
    let g = frame_geometry();
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
        counts: BuildCounts {
            size: shapes[r].count_ones(),
            max_size,
            regions: r + 1,
            regions_total: shapes.len(),
            entries: offsets[r + 1],
            entries_total: total,
        },
        within: None,
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
                let at = progress_at(false, (r, store.len(), store.cache_len()));
                progress(&ActiveProgress {
                    counts: BuildCounts {
                        regions: r,
                        entries,
                        ..at.counts
                    },
                    within: Some((entries - offsets[r], offsets[r + 1] - offsets[r])),
                    ..at
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
            .checkpoints
            .every
            .is_some_and(|every| last_checkpoint.elapsed() >= every);
        if due {
            checkpoint::write(dir, &key, r + 1, &ids, &store)?;
            last_checkpoint = Instant::now();
            if control
                .checkpoints
                .stop_after_regions
                .is_some_and(|n| r + 1 >= n)
            {
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
