//! Endgame databases: simple and blocker territory tables and active-area tables, built in dependency order, stored hashed, audited independently.
//!
//! - [`regions`]: polyking regions, canonical under the 8 symmetries, and the index that finds
//!   a region in any orientation.
//! - [`index`]: the perfect index of a queen placement within its region.
//! - [`simple`], [`blocker`]: the per-region value computations (paper section III).
//! - [`store`]: the file format (header, hash, sentinel), atomic writes, typed errors.
//! - [`audit`](mod@audit): recomputation of entries with code that shares nothing with the
//!   builder.
//! - [`active`]: the active-area tables (thermographs of areas holding both colours), with
//!   [`checkpoint`] for resuming their build.
//!
//! A *simple* entry is the exact maximum number of moves the queens of one colour can make
//! alone in a region (queens plus empty squares, 8-connected). A *blocker* entry is the same
//! when some queens are blockers, whose first move must shoot back onto their origin square.
//! A region is covered when it has at most `max_size` squares or its bounding rectangle fits
//! `rect` in some orientation (both closed under the positions moves lead to).

pub mod active;
pub mod audit;
pub mod blocker;
mod build;
pub mod checkpoint;
pub mod index;
pub mod regions;
pub mod simple;
pub mod store;
mod view;

pub use audit::{audit, audit_db, AuditReport, Checked, Mismatch, TablesChecked};
pub use index::Kind;
pub use regions::{RegionSpec, Shape};
pub use simple::DefectStats;
pub use store::DbError;

use amazons_board::bitboard::Bb;
use amazons_board::geometry::Geometry;
use amazons_format::Board;
use index::{groups, Layout};
use regions::{dims, enumerate, transform_point, RegionIndex, FRAME};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use store::{encode, hex, write_atomic, Header, RawTable};
use view::{Part, View, NO_REGION};

/// File name of the simple table in the database directory.
pub const SIMPLE_FILE: &str = "simple.amzdb";
/// File name of the blocker table in the database directory.
pub const BLOCKER_FILE: &str = "blocker.amzdb";
/// Environment variable naming the database directory.
pub const DIR_ENV: &str = "AMAZONS_DB_DIR";
/// Database directory used when neither `--db-dir` nor [`DIR_ENV`] is given.
pub const DEFAULT_DIR: &str = "db-cache";

/// The database directory: `AMAZONS_DB_DIR` if set and non-empty, else `./db-cache`.
pub fn default_dir() -> PathBuf {
    match std::env::var_os(DIR_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(DEFAULT_DIR),
    }
}

/// Which territories to build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbConfig {
    /// Simple table: every region of at most this many squares (at most 10)...
    pub max_size: u8,
    /// ...plus every region whose bounding rectangle fits `(short, long)`; `(0, 0)` for none.
    pub rect: (u8, u8),
    /// Simple table: 1..=max_queens queens (at most 8).
    pub max_queens: u8,
    /// Blocker table regions (must be covered by the simple spec).
    pub blocker_max_size: u8,
    pub blocker_rect: (u8, u8),
    /// Blocker table: blockers plus normal queens, at most this many (at most `max_queens`).
    pub blocker_max_queens: u8,
    /// Worker threads for the build and the audit.
    pub threads: usize,
}

impl Default for DbConfig {
    /// The default set (measured: about 20 s on 2 cores, 60 MB): simple territories of every
    /// region with at most 9 squares or fitting 3x6, with up to 4 queens (covers the paper's
    /// 1xn, 2xn, 3xn simple databases for n <= 6, including 3x6 with 4 queens); blocker
    /// territories of every region with at most 8 squares or fitting 3x5, with up to 3
    /// queens in all (blockers plus normal queens).
    fn default() -> DbConfig {
        DbConfig::new((9, (3, 6), 4), (8, (3, 5), 3))
    }
}

impl DbConfig {
    /// The simple and the blocker table, each as `(max_size, rect, max_queens)`: regions
    /// of at most `max_size` squares or fitting `rect`, with at most `max_queens` queens;
    /// the build uses all cores.
    pub fn new(simple: (u8, (u8, u8), u8), blocker: (u8, (u8, u8), u8)) -> DbConfig {
        DbConfig {
            max_size: simple.0,
            rect: simple.1,
            max_queens: simple.2,
            blocker_max_size: blocker.0,
            blocker_rect: blocker.1,
            blocker_max_queens: blocker.2,
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }

    pub fn simple_spec(&self) -> RegionSpec {
        RegionSpec {
            max_size: self.max_size,
            rect: self.rect,
        }
    }

    pub fn blocker_spec(&self) -> RegionSpec {
        RegionSpec {
            max_size: self.blocker_max_size,
            rect: self.blocker_rect,
        }
    }

    /// Checks the limits (frame, queen count, blocker set within the simple set).
    pub fn validate(&self) -> Result<(), DbError> {
        let err = |s: String| Err(DbError::Config(s));
        let rect_ok = |r: (u8, u8)| (r.0 == 0) == (r.1 == 0) && r.0 <= 10 && r.1 <= 10;
        if self.max_size > 10 {
            return err(format!("max_size {} > 10", self.max_size));
        }
        if !rect_ok(self.rect) || !rect_ok(self.blocker_rect) {
            return err("rectangle sides must be 1..=10 (or both 0 for none)".into());
        }
        if self.simple_spec().largest() == 0 {
            return err("the simple spec admits no region".into());
        }
        if !(1..=index::MAX_QUEENS as u8).contains(&self.max_queens) {
            return err(format!("max_queens {} outside 1..=8", self.max_queens));
        }
        if self.blocker_max_queens == 0 || self.blocker_max_queens > self.max_queens {
            return err(format!(
                "blocker_max_queens {} outside 1..=max_queens ({})",
                self.blocker_max_queens, self.max_queens
            ));
        }
        if !self.blocker_spec().within(&self.simple_spec()) {
            return err("the blocker regions must be covered by the simple regions".into());
        }
        Ok(())
    }
}

/// Where a build stands: the region size it is at of the largest, and the regions and
/// entries done of all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildCounts {
    pub size: u32,
    pub max_size: u32,
    pub regions: usize,
    pub regions_total: usize,
    pub entries: u64,
    pub entries_total: u64,
}

impl fmt::Display for BuildCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "size {}/{}: {}/{} regions, {}/{} entries",
            self.size,
            self.max_size,
            self.regions,
            self.regions_total,
            self.entries,
            self.entries_total
        )
    }
}

/// A build progress report, sent after each region size.
#[derive(Debug, Clone)]
pub struct Progress {
    pub kind: Kind,
    pub counts: BuildCounts,
    pub elapsed: Duration,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, counts) = (self.kind.name(), self.counts);
        write!(f, "{kind} {counts}, {:.1?}", self.elapsed)
    }
}

/// What a build wrote, per table.
#[derive(Debug, Clone)]
pub struct TableSummary {
    pub kind: Kind,
    pub path: PathBuf,
    pub regions: usize,
    pub entries: u64,
    pub file_bytes: u64,
    pub hash: String,
    pub build_time: Duration,
}

/// What a build wrote.
#[derive(Debug, Clone)]
pub struct Summary {
    pub simple: TableSummary,
    pub blocker: TableSummary,
    pub total_time: Duration,
}

/// The file part of a build summary: `N bytes (X bytes/entry), built in T, blake3 H, PATH`.
pub(crate) fn file_figures(
    bytes: u64,
    entries: u64,
    build_time: Duration,
    hash: &str,
    path: &Path,
) -> String {
    let per_entry = bytes as f64 / entries.max(1) as f64;
    format!(
        "{bytes} bytes ({per_entry:.3} bytes/entry), built in {build_time:.1?}, blake3 {hash}, {}",
        path.display()
    )
}

impl fmt::Display for TableSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:<7} {} regions, {} entries, {}",
            self.kind.name(),
            self.regions,
            self.entries,
            file_figures(
                self.file_bytes,
                self.entries,
                self.build_time,
                &self.hash,
                &self.path
            )
        )
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.simple)?;
        writeln!(f, "{}", self.blocker)?;
        write!(f, "total build time {:.1?}", self.total_time)
    }
}

/// One loaded table.
#[derive(Debug, Clone)]
pub struct Table {
    pub kind: Kind,
    pub spec: RegionSpec,
    pub max_queens: u8,
    /// Canonical regions by table-local id, sorted by size then key.
    pub shapes: Vec<Shape>,
    /// `offsets[id]`: first entry of region `id`; `offsets[len]` = number of entries.
    pub offsets: Vec<u64>,
    pub layout: Layout,
    pub values: Vec<u8>,
    pub hash: [u8; 32],
    pub file_bytes: u64,
    pub path: PathBuf,
}

/// A decoded entry: the region, its blockers and normal queens (frame squares of the
/// canonical shape), and the stored value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub region: u32,
    pub shape: Shape,
    pub blockers: u128,
    pub normals: u128,
    pub value: u8,
}

impl Entry {
    /// Empty squares of the region.
    pub fn empties(&self) -> u128 {
        self.shape & !(self.blockers | self.normals)
    }
}

fn offsets_of(shapes: &[Shape], layout: &Layout) -> Vec<u64> {
    let mut v = Vec::with_capacity(shapes.len() + 1);
    let mut at = 0u64;
    for s in shapes {
        v.push(at);
        at += layout.len(s.count_ones());
    }
    v.push(at);
    v
}

impl Table {
    fn from_raw(path: PathBuf, raw: RawTable) -> Table {
        let layout = Layout::new(raw.header.kind, raw.header.max_queens as u32);
        let offsets = offsets_of(&raw.shapes, &layout);
        Table {
            kind: raw.header.kind,
            spec: raw.header.spec,
            max_queens: raw.header.max_queens,
            shapes: raw.shapes,
            offsets,
            layout,
            values: raw.values,
            hash: raw.hash,
            file_bytes: raw.file_bytes,
            path,
        }
    }

    pub fn entries(&self) -> u64 {
        self.offsets.last().copied().unwrap_or(0)
    }

    /// Decodes entry `e` (binary search over the regions; for audits and statistics, not
    /// for queries).
    pub fn decode(&self, e: u64) -> Option<Entry> {
        if e >= self.entries() {
            return None;
        }
        let id = self.offsets.partition_point(|&o| o <= e).checked_sub(1)?;
        let shape = *self.shapes.get(id)?;
        let sq: Vec<u32> = regions::squares(shape).collect();
        let (bm, qm) = self
            .layout
            .decode(shape.count_ones(), e - self.offsets[id])?;
        Some(Entry {
            region: id as u32,
            shape,
            blockers: build::deposit(bm, &sq),
            normals: build::deposit(qm, &sq),
            value: *self.values.get(e as usize)?,
        })
    }

    /// Number of regions of each size.
    pub fn regions_by_size(&self) -> Vec<(u32, usize)> {
        regions::sizes(&self.shapes)
    }

    fn part(&self) -> Part<'_> {
        Part {
            offsets: &self.offsets,
            layout: &self.layout,
            values: &self.values,
        }
    }
}

/// The loaded databases.
#[derive(Debug, Clone)]
pub struct Database {
    dir: PathBuf,
    simple: Table,
    blocker: Table,
    index: RegionIndex,
    s2b: Vec<u32>,
}

fn frame_geometry() -> Geometry {
    Geometry::new(Board {
        width: FRAME as u8,
        height: FRAME as u8,
    })
}

fn blocker_map(index: &RegionIndex, simple_len: usize, shapes: &[Shape]) -> Option<Vec<u32>> {
    let mut s2b = vec![NO_REGION; simple_len];
    for (bid, &s) in shapes.iter().enumerate() {
        let loc = index.locate(s)?;
        *s2b.get_mut(loc.id as usize)? = bid as u32;
    }
    Some(s2b)
}

/// Builds both tables into `dir` (simple first: the blocker table depends on it), writing
/// each file atomically. `progress` is called after every region size.
pub fn build(
    dir: &Path,
    cfg: &DbConfig,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Summary, DbError> {
    cfg.validate()?;
    let start = Instant::now();

    // Simple territories.
    let shapes = enumerate(cfg.simple_spec());
    let index = RegionIndex::new(shapes.clone());
    let simple = build_table(dir, Kind::Simple, cfg, &shapes, &index, None, progress)?;

    // Blocker territories.
    let bshapes = enumerate(cfg.blocker_spec());
    let s2b = blocker_map(&index, shapes.len(), &bshapes)
        .ok_or_else(|| DbError::Build("a blocker region is not a simple region".into()))?;
    let below = Some((simple.part(), &s2b[..]));
    let blocker = build_table(dir, Kind::Blocker, cfg, &bshapes, &index, below, progress)?;
    Ok(Summary {
        simple: simple.summary,
        blocker: blocker.summary,
        total_time: start.elapsed(),
    })
}

/// A table just built: its layout, region offsets, values and what was written.
struct Built {
    layout: Layout,
    offsets: Vec<u64>,
    values: Vec<u8>,
    summary: TableSummary,
}

impl Built {
    fn part(&self) -> Part<'_> {
        Part {
            offsets: &self.offsets,
            layout: &self.layout,
            values: &self.values,
        }
    }
}

/// Builds the table of `kind` region size by region size and writes it atomically into
/// `dir`. A region's values are computed from the finished smaller regions of this table
/// and, for the blocker table, from the simple table and its map to blocker region ids
/// (`simple`).
fn build_table(
    dir: &Path,
    kind: Kind,
    cfg: &DbConfig,
    shapes: &[Shape],
    index: &RegionIndex,
    simple: Option<(Part<'_>, &[u32])>,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Built, DbError> {
    let g = frame_geometry();
    let (name, spec, max_queens) = match kind {
        Kind::Simple => (SIMPLE_FILE, cfg.simple_spec(), cfg.max_queens),
        Kind::Blocker => (BLOCKER_FILE, cfg.blocker_spec(), cfg.blocker_max_queens),
    };
    let t0 = Instant::now();
    let layout = Layout::new(kind, max_queens as u32);
    let offsets = offsets_of(shapes, &layout);
    let total = offsets[shapes.len()];
    let mut values = vec![0u8; total as usize];
    build::run_levels(
        kind,
        shapes,
        &offsets,
        &mut values,
        cfg.threads,
        progress,
        t0,
        |r, done, out| {
            let part = Part {
                offsets: &offsets,
                layout: &layout,
                values: done,
            };
            let view = match simple {
                None => View {
                    index,
                    simple: part,
                    blocker: None,
                },
                Some((simple, s2b)) => View {
                    index,
                    simple,
                    blocker: Some((part, s2b)),
                },
            };
            blocker::compute_region(kind, &g, &view, shapes[r], max_queens as u32, out)
        },
    )?;
    let header = Header {
        kind,
        spec,
        max_queens,
        regions: shapes.len() as u32,
        entries: total,
    };
    let summary = write_table(dir, name, &header, shapes, &values, t0)?;
    Ok(Built {
        layout,
        offsets,
        values,
        summary,
    })
}

/// Encodes one table, writes it atomically as `dir/name`, and summarises it.
fn write_table(
    dir: &Path,
    name: &str,
    header: &Header,
    shapes: &[Shape],
    values: &[u8],
    started: Instant,
) -> Result<TableSummary, DbError> {
    let bytes = encode(header, shapes, values);
    let path = write_atomic(dir, name, &bytes)?;
    Ok(TableSummary {
        kind: header.kind,
        path,
        regions: shapes.len(),
        entries: header.entries,
        file_bytes: bytes.len() as u64,
        hash: hex(&bytes[bytes.len() - 40..bytes.len() - 8]),
        build_time: started.elapsed(),
    })
}

/// `ROW_OF[w][sq]` = `sq / w` for squares below 64 (no division on the query path).
static ROW_OF: [[u8; 64]; FRAME as usize + 1] = {
    let mut t = [[0u8; 64]; FRAME as usize + 1];
    let mut w = 1;
    while w <= FRAME as usize {
        let mut s = 0;
        while s < 64 {
            t[w][s] = (s / w) as u8;
            s += 1;
        }
        w += 1;
    }
    t
};

/// Converts board squares (width `w`, `h` ranks) to frame squares.
#[inline]
fn to_frame(b: u128, w: u32, h: u32) -> u128 {
    if w == FRAME {
        return b;
    }
    let mask = (1u128 << w) - 1;
    let mut out = 0u128;
    for y in 0..h {
        out |= ((b >> (y * w)) & mask) << (y * FRAME);
    }
    out
}

impl Database {
    /// Loads both tables from `dir` (once, into memory), checking every integrity condition
    /// of [`store::decode`]. A missing or corrupt file is a typed error; the caller rebuilds.
    pub fn open(dir: &Path) -> Result<Database, DbError> {
        let load = |name: &str, kind: Kind| -> Result<Table, DbError> {
            let path = dir.join(name);
            let raw = store::read(&path)?;
            if raw.header.kind != kind {
                return Err(DbError::Malformed {
                    path,
                    reason: format!("holds a {} table", raw.header.kind.name()),
                });
            }
            Ok(Table::from_raw(path, raw))
        };
        let simple = load(SIMPLE_FILE, Kind::Simple)?;
        let blocker = load(BLOCKER_FILE, Kind::Blocker)?;
        let index = RegionIndex::new(simple.shapes.clone());
        let s2b = blocker_map(&index, simple.shapes.len(), &blocker.shapes).ok_or_else(|| {
            DbError::Malformed {
                path: blocker.path.clone(),
                reason: "a blocker region is not in the simple table".into(),
            }
        })?;
        Ok(Database {
            dir: dir.to_path_buf(),
            simple,
            blocker,
            index,
            s2b,
        })
    }

    /// Opens the databases in `dir`; if they are missing, corrupt, outdated or were built
    /// with other parameters than `cfg`, reports why through `notice` and rebuilds them.
    pub fn open_or_build(
        dir: &Path,
        cfg: &DbConfig,
        notice: &mut dyn FnMut(&str),
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<(Database, Option<Summary>), DbError> {
        store::open_or_rebuild(
            "database",
            || Database::open(dir),
            |db| db.config_matches(cfg),
            || build(dir, cfg, progress),
            notice,
        )
    }

    /// Whether the loaded tables were built with the parameters of `cfg` (threads aside).
    pub fn config_matches(&self, cfg: &DbConfig) -> bool {
        self.config()
            == DbConfig {
                threads: cfg.threads,
                ..cfg.clone()
            }
    }

    /// The parameters the loaded tables were built with (`threads` is the machine default).
    pub fn config(&self) -> DbConfig {
        let (s, b) = (&self.simple, &self.blocker);
        DbConfig::new(
            (s.spec.max_size, s.spec.rect, s.max_queens),
            (b.spec.max_size, b.spec.rect, b.max_queens),
        )
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn simple(&self) -> &Table {
        &self.simple
    }

    pub fn blocker(&self) -> &Table {
        &self.blocker
    }

    fn view(&self) -> View<'_> {
        View {
            index: &self.index,
            simple: self.simple.part(),
            blocker: Some((self.blocker.part(), &self.s2b)),
        }
    }

    /// Exact maximum number of moves of `queens` (one colour) alone in the territory
    /// `queens | empties`, on any board, in any orientation. A territory of several
    /// 8-connected parts is the sum of its parts. `None` when some part holding queens is
    /// not covered (or the sets overlap or leave the board).
    #[inline]
    pub fn lookup_simple(&self, g: &Geometry, queens: Bb, empties: Bb) -> Option<u8> {
        self.lookup_blocker(g, queens, Bb::EMPTY, empties)
    }

    /// Exact maximum number of moves in a blocker territory: `blockers` must shoot back onto
    /// their origin on their first move, `normal_queens` move freely. With no blockers this
    /// is [`Database::lookup_simple`].
    #[inline]
    pub fn lookup_blocker(
        &self,
        g: &Geometry,
        normal_queens: Bb,
        blockers: Bb,
        empties: Bb,
    ) -> Option<u8> {
        let queens = normal_queens | blockers;
        let all = queens | empties;
        if (normal_queens & blockers).any() || (queens & empties).any() || (all - g.all).any() {
            return None;
        }
        let (w, h) = (g.width, g.board.height as u32);
        if g.len <= 64 {
            if let Some(v) =
                self.lookup_small(w, all.0 as u64, blockers.0 as u64, normal_queens.0 as u64)
            {
                return Some(v);
            }
        }
        let region = to_frame(all.0, w, h);
        let b = to_frame(blockers.0, w, h);
        let q = to_frame(normal_queens.0, w, h);
        self.view()
            .value(region, b, q)
            .and_then(|v| u8::try_from(v).ok())
    }

    /// Fast path for boards of at most 64 squares and connected stored regions of at most
    /// 6 ranks (their normalized frame form fits 64 bits): one pass over the region's ranks,
    /// one slot probe, one value read. `None` sends the query down the general path.
    #[inline]
    fn lookup_small(&self, w: u32, all: u64, blockers: u64, normals: u64) -> Option<u8> {
        if all == 0 {
            return None;
        }
        let row_of = &ROW_OF[(w as usize).min(FRAME as usize)];
        let miny = row_of[all.trailing_zeros() as usize] as u32;
        let maxy = row_of[(63 - all.leading_zeros()) as usize] as u32;
        if maxy - miny >= 6 {
            return None;
        }
        let rowmask = (1u64 << w) - 1;
        let (mut f, mut b, mut q) = (0u64, 0u64, 0u64);
        for y in miny..=maxy {
            let (s, d) = (y * w, (y - miny) * FRAME);
            f |= ((all >> s) & rowmask) << d;
            b |= ((blockers >> s) & rowmask) << d;
            q |= ((normals >> s) & rowmask) << d;
        }
        let mut cols = f;
        for _ in 0..5 {
            cols |= cols >> FRAME;
        }
        let minx = (cols & ((1 << FRAME) - 1)).trailing_zeros();
        let loc = self.index.locate((f >> minx) as u128)?;
        self.view()
            .value_located(&loc, (b >> minx) as u128, (q >> minx) as u128)
            .and_then(|v| u8::try_from(v).ok())
    }
}

/// Statistics of one table.
#[derive(Debug, Clone)]
pub struct TableStats {
    pub kind: Kind,
    pub path: PathBuf,
    pub spec: RegionSpec,
    pub max_queens: u8,
    pub file_bytes: u64,
    pub hash: String,
    pub regions_by_size: Vec<(u32, usize)>,
    pub entries: u64,
    /// By total number of queens (blockers included).
    pub defects: DefectStats,
}

/// Statistics of the databases.
#[derive(Debug, Clone)]
pub struct Stats {
    pub simple: TableStats,
    pub blocker: TableStats,
    /// Seed 001's figures: largest one-queen defect in regions of size <= 7, and the number
    /// of such regions with a defective placement (if the simple table covers size 7).
    pub one_queen_size7: Option<(u32, u64)>,
}

fn table_stats(t: &Table) -> TableStats {
    TableStats {
        kind: t.kind,
        path: t.path.clone(),
        spec: t.spec,
        max_queens: t.max_queens,
        file_bytes: t.file_bytes,
        hash: hex(&t.hash),
        regions_by_size: t.regions_by_size(),
        entries: t.entries(),
        defects: simple::defect_stats(t),
    }
}

/// Region counts, entries, defect distributions, file sizes and hashes.
pub fn stats(dir: &Path) -> Result<Stats, DbError> {
    let db = Database::open(dir)?;
    Ok(stats_db(&db))
}

/// [`stats`] of a loaded database.
pub fn stats_db(db: &Database) -> Stats {
    Stats {
        simple: table_stats(&db.simple),
        blocker: table_stats(&db.blocker),
        one_queen_size7: simple::one_queen_figures(&db.simple, 7),
    }
}

impl fmt::Display for TableStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} table {}: regions of <= {} squares or fitting {}x{}, up to {} queens",
            self.kind.name(),
            self.path.display(),
            self.spec.max_size,
            self.spec.rect.0,
            self.spec.rect.1,
            self.max_queens
        )?;
        writeln!(
            f,
            "  file {} bytes, {} entries ({:.3} bytes/entry), blake3 {}",
            self.file_bytes,
            self.entries,
            self.file_bytes as f64 / self.entries.max(1) as f64,
            self.hash
        )?;
        let regions: usize = self.regions_by_size.iter().map(|r| r.1).sum();
        write!(f, "  {regions} regions by size:")?;
        for (n, c) in &self.regions_by_size {
            write!(f, " {n}:{c}")?;
        }
        writeln!(f)?;
        for (k, h) in self.defects.histogram.iter().enumerate() {
            if h.is_empty() {
                continue;
            }
            write!(
                f,
                "  {k} queen(s): {} regions with a defective placement; positions by defect:",
                self.defects.defective_regions[k]
            )?;
            for (d, c) in h.iter().enumerate() {
                if *c > 0 {
                    write!(f, " {d}:{c}")?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.simple, self.blocker)?;
        if let Some((max, regions)) = self.one_queen_size7 {
            writeln!(
                f,
                "one queen, regions of <= 7 squares: largest defect {max}, {regions} regions with a defective placement"
            )?;
        }
        Ok(())
    }
}

/// A small deterministic generator (splitmix64) for samples and benchmarks.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// Places a decoded entry on the board of `g` under symmetry `t` at offset `(dx, dy)`:
/// `(normal queens, blockers, empties)`, or `None` if it does not fit.
pub fn embed(entry: &Entry, g: &Geometry, t: u8, dx: u32, dy: u32) -> Option<(Bb, Bb, Bb)> {
    let (w, h) = dims(entry.shape);
    let (bw, bh) = (g.width, g.board.height as u32);
    let map = |set: u128| -> Option<Bb> {
        let mut out = Bb::EMPTY;
        for b in regions::squares(set) {
            let (x, y) = transform_point(t, b % FRAME, b / FRAME, w, h);
            let (x, y) = (x + dx, y + dy);
            if x >= bw || y >= bh {
                return None;
            }
            out |= Bb::from_square((y * bw + x) as u8);
        }
        Some(out)
    };
    Some((
        map(entry.normals)?,
        map(entry.blockers)?,
        map(entry.empties())?,
    ))
}

/// Mean CPU time (wall time where the thread's CPU time is unavailable) of one warm
/// [`Database::lookup_blocker`] / [`Database::lookup_simple`] query:
/// `n` queries cycling through 256 territories sampled from both tables (half with
/// blockers), placed in random orientations and positions on a 6x6 board.
pub fn bench_lookup(db: &Database, n: usize) -> Duration {
    bench_lookup_spread(db, n, 256)
}

/// As [`bench_lookup`] with `distinct` different territories; large values (e.g. 100 000)
/// measure queries that miss the CPU caches and TLB.
pub fn bench_lookup_spread(db: &Database, n: usize, distinct: usize) -> Duration {
    let g = Geometry::new(Board {
        width: 6,
        height: 6,
    });
    let mut rng = Rng(0xBE7C_4A11);
    let mut queries = Vec::with_capacity(distinct);
    let mut tries = 0;
    while queries.len() < distinct && tries < 100 * distinct.max(1) {
        tries += 1;
        let t = if rng.below(2) == 0 {
            &db.simple
        } else {
            &db.blocker
        };
        if t.entries() == 0 {
            continue;
        }
        let Some(e) = t.decode(rng.below(t.entries())) else {
            continue;
        };
        let sym = rng.below(8) as u8;
        let (dx, dy) = (rng.below(6) as u32, rng.below(6) as u32);
        if let Some(q) = embed(&e, &g, sym, dx, dy) {
            queries.push(q);
        }
    }
    if queries.is_empty() || n == 0 {
        return Duration::ZERO;
    }
    let mut acc = 0u64;
    for &(q, b, e) in &queries {
        acc += db.lookup_blocker(&g, q, b, e).unwrap_or(0) as u64;
    }
    let start = Instant::now();
    let cpu0 = thread_cpu_time();
    for i in 0..n {
        let (q, b, e) = queries[i % queries.len()];
        let v = db.lookup_blocker(&g, std::hint::black_box(q), b, e);
        acc += std::hint::black_box(v).unwrap_or(0) as u64;
    }
    let elapsed = match (cpu0, thread_cpu_time()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => start.elapsed(),
    };
    std::hint::black_box(acc);
    Duration::from_nanos((elapsed.as_nanos() / n as u128) as u64)
}

/// CPU time of the calling thread (Linux `/proc/thread-self/schedstat`), so benchmarks are
/// not inflated by other processes sharing the cores; `None` elsewhere.
fn thread_cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Number of entries a region of `n` squares has in a table of `kind` with up to
/// `max_queens` queens (for sizing a build).
pub fn entries_per_region(kind: Kind, max_queens: u32, n: u32) -> u64 {
    groups(kind, max_queens, n)
        .into_iter()
        .map(|(b, q)| index::binom(n, b) * index::binom(n - b, q))
        .sum()
}

#[cfg(test)]
mod tests;
