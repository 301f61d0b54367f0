//! A loaded active-area table: lookups of areas on a board, decoded entries, statistics and a lookup benchmark.

use super::file::{decode, open_streaming, STREAM_FROM};
use super::layout::ActiveLayout;
use super::{ActiveConfig, ActiveEntry, Record, ACTIVE_FILE, HEADER_LEN, TRAILER_LEN};
use crate::build::deposit;
use crate::regions::{dims, RegionIndex, Shape};
use crate::regions::{normalize, squares, FRAME};
use crate::store::{hex, DbError};
use crate::view::{index_mask, index_mask64};
use crate::{embed, thread_cpu_time, to_frame, Entry, Rng};
use amazons_board::bitboard::Bb;
use amazons_board::bounds as eb;
use amazons_board::geometry::Geometry;
use amazons_cgt::Thermograph;
use amazons_format::{Board, Cell, Position};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A loaded active-area table.
#[derive(Debug, Clone)]
pub struct ActiveDb {
    pub config: ActiveConfig,
    pub path: PathBuf,
    pub shapes: Vec<Shape>,
    /// Cap index (into the layout's caps) per region.
    pub(super) cap_of: Vec<u8>,
    pub(super) offsets: Vec<u64>,
    pub(super) layout: ActiveLayout,
    pub(super) index: RegionIndex,
    pub thermographs: Vec<Thermograph>,
    pub records: Vec<Record>,
    /// Per record: paper bounds and exact bounds, converted.
    pub(super) converted: Vec<(eb::Bounds, eb::Bounds)>,
    pub(super) ids: Vec<u32>,
    /// Byte offset of the id table in the file and the id width.
    pub(super) ids_at: u64,
    pub(super) id_width: u8,
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
        let pieces = [(self.black, Cell::Black), (self.white, Cell::White)];
        crate::audit::region_position(self.shape, &pieces).map(|(pos, _)| pos)
    }
}

pub(super) fn offsets_and_caps(
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

    pub(super) fn answer(&self, e: u64) -> Option<ActiveEntry<'_>> {
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
            // Areas of more than MAX_AREA (20) squares have no entry, so the masks fit 32 bits.
            let map = |set: u128| index_mask64(&loc, c, set >> shift) as u32;
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
    pub(super) fn open_with(dir: &Path, stream_from: u64) -> Result<ActiveDb, DbError> {
        let path = dir.join(ACTIVE_FILE);
        match std::fs::metadata(&path) {
            Ok(m) if m.len() >= stream_from.max((HEADER_LEN + TRAILER_LEN) as u64) => {
                open_streaming(&path, m.len())
            }
            _ => decode(&path, &crate::store::read_file(&path)?),
        }
    }

    /// Number of regions of each size.
    pub fn regions_by_size(&self) -> Vec<(u32, usize)> {
        crate::regions::sizes(&self.shapes)
    }
}

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
