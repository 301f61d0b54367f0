//! Independent audit: recomputes stored entries with the checker's plain rules, sharing nothing with the builder.
//!
//! Each entry is turned into a `format::Position` on a board the size of the region's
//! bounding rectangle (squares outside the region are arrows, queens are Black).
//!
//! - Simple entries are recomputed by `amazons_checker::rules::one_player_max`, the
//!   checker's exhaustive one-player search on arrays and ray walks.
//! - Blocker entries need the shoot-back constraint, which the checker lacks. They are
//!   recomputed by [`blocker_max`] below: a small brute force over the checker's own move
//!   generator (`rules::legal_moves_of`) and `rules::play`, dropping every move of a
//!   blocker whose arrow does not land on its origin, memoized on the cells and the set of
//!   remaining blockers. It is deliberately separate from the builder (no bitboards, no
//!   regions, no tables, no symmetry) and exists only for this audit.

use super::regions::{dims, squares, FRAME};
use super::store::{value_offset, DbError};
use super::{Database, Entry, Kind, Rng, Table};
use amazons_checker::rules;
use amazons_format::{Board, Cell, Color, Position};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Mismatches kept in full in a report (all are counted).
const MAX_LISTED: usize = 100;

/// A stored entry that the independent recomputation disagrees with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub kind: Kind,
    /// Entry number in its table.
    pub entry: u64,
    /// Byte offset of the entry's value in the file.
    pub file_offset: u64,
    pub region: u32,
    /// The position (grid notation, `X` queens, `#` outside the region).
    pub position: String,
    /// Blocker squares (names on the grid's board).
    pub blockers: Vec<String>,
    pub stored: u8,
    pub recomputed: u32,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, entry, region) = (self.kind.name(), self.entry, self.region);
        write!(
            f,
            "{kind} entry {entry} (region {region}, file offset {}): position {}",
            self.file_offset, self.position
        )?;
        if !self.blockers.is_empty() {
            write!(f, " blockers {}", self.blockers.join(","))?;
        }
        write!(
            f,
            ": stored {}, recomputed {}",
            self.stored, self.recomputed
        )
    }
}

/// What an audit checked: the entries, in the words of its report.
pub trait Checked: fmt::Display {
    /// The audit's name in its report.
    const NAME: &'static str;
    /// What a sample's size counts per (e.g. " per table"), or "".
    const PER: &'static str;
}

/// Entries of the territory databases recomputed independently.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TablesChecked {
    pub simple: u64,
    pub blocker: u64,
}

impl fmt::Display for TablesChecked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self { simple, blocker } = self;
        write!(
            f,
            "{simple} simple and {blocker} blocker entries recomputed independently"
        )
    }
}

impl Checked for TablesChecked {
    const NAME: &'static str = "audit";
    const PER: &'static str = " per table";
}

/// What an audit checked (`C`) and found (mismatches `M`): of the territory databases by
/// default, of the active table as [`crate::active::ActiveAuditReport`].
#[derive(Debug, Clone)]
pub struct AuditReport<C = TablesChecked, M = Mismatch> {
    pub checked: C,
    /// Every mismatch found (up to 100 listed, the first by entry; see `mismatch_count`).
    pub mismatches: Vec<M>,
    pub mismatch_count: u64,
    /// `Some((size, seed))` for a sampled audit.
    pub sample: Option<(usize, u64)>,
    pub elapsed: Duration,
}

impl<C, M> AuditReport<C, M> {
    /// No mismatch.
    pub fn ok(&self) -> bool {
        self.mismatch_count == 0
    }
}

/// The report's text: `NAME of every entry: ` or `NAME of a sample of N entries[PER]
/// (seed S): `, then what was checked, the time, the mismatch count and each mismatch.
impl<C: Checked, M: fmt::Display> fmt::Display for AuditReport<C, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, per) = (C::NAME, C::PER);
        match self.sample {
            Some((n, seed)) => write!(f, "{name} of a sample of {n} entries{per} (seed {seed}): ")?,
            None => write!(f, "{name} of every entry: ")?,
        }
        writeln!(
            f,
            "{} in {:.1?}, {} mismatch(es)",
            self.checked, self.elapsed, self.mismatch_count
        )?;
        for m in &self.mismatches {
            writeln!(f, "  MISMATCH {m}")?;
        }
        Ok(())
    }
}

/// Audits the databases in `dir`: every entry (`sample = None`) or `size` entries per table
/// drawn with `seed`. Fails only if the files cannot be opened; mismatches are in the report.
pub fn audit(dir: &std::path::Path, sample: Option<(usize, u64)>) -> Result<AuditReport, DbError> {
    let db = Database::open(dir)?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    Ok(audit_db(&db, sample, threads))
}

fn choose(t: &Table, sample: Option<(usize, u64)>, salt: u64) -> Vec<u64> {
    let n = t.entries();
    match sample {
        Some((size, seed)) if (size as u64) < n => {
            let mut rng = Rng(seed ^ salt);
            let mut set = HashSet::with_capacity(size);
            while set.len() < size {
                set.insert(rng.below(n));
            }
            let mut v: Vec<u64> = set.into_iter().collect();
            v.sort_unstable();
            v
        }
        _ => (0..n).collect(),
    }
}

/// Audits a loaded database with `threads` workers.
pub fn audit_db(db: &Database, sample: Option<(usize, u64)>, threads: usize) -> AuditReport {
    let start = Instant::now();
    let mut report = AuditReport {
        checked: TablesChecked::default(),
        mismatches: Vec::new(),
        mismatch_count: 0,
        sample,
        elapsed: Duration::ZERO,
    };
    for (t, salt) in [(db.simple(), 0x51u64), (db.blocker(), 0xB1)] {
        let entries = choose(t, sample, salt);
        let found = Mutex::new((0u64, Vec::new()));
        let next = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..threads.max(1) {
                s.spawn(|| loop {
                    let a = next.fetch_add(64, Ordering::Relaxed);
                    if a >= entries.len() {
                        break;
                    }
                    for &e in &entries[a..(a + 64).min(entries.len())] {
                        if let Some(m) = check_entry(t, e) {
                            if let Ok(mut g) = found.lock() {
                                g.0 += 1;
                                g.1.push(m);
                            }
                        }
                    }
                });
            }
        });
        let (count, mut list) = found.into_inner().unwrap_or_default();
        list.sort_by_key(|m: &Mismatch| m.entry);
        list.truncate(MAX_LISTED);
        report.mismatch_count += count;
        report.mismatches.extend(list);
        match t.kind {
            Kind::Simple => report.checked.simple = entries.len() as u64,
            Kind::Blocker => report.checked.blocker = entries.len() as u64,
        }
    }
    report.elapsed = start.elapsed();
    report
}

/// The position of an entry on a board the size of its region, and the blocker squares.
pub fn entry_position(e: &Entry) -> Option<(Position, Vec<usize>)> {
    let (pos, sq) = region_position(e.shape, &[(e.blockers | e.normals, Cell::Black)])?;
    Some((pos, squares(e.blockers).map(sq).collect()))
}

/// Region `shape` on a board the size of its bounding rectangle (squares outside it
/// arrows, the rest empty), Black to move, with each `(squares, cell)` of `pieces`
/// placed in turn; and the board square of each frame square.
pub(crate) fn region_position(
    shape: u128,
    pieces: &[(u128, Cell)],
) -> Option<(Position, impl Fn(u32) -> usize)> {
    let (w, h) = dims(shape);
    let board = Board::new(w as usize, h as usize).ok()?;
    let mut pos = Position::empty(board, Color::Black);
    pos.cells.iter_mut().for_each(|c| *c = Cell::Arrow);
    let sq = move |b: u32| board.square((b % FRAME) as usize, (b / FRAME) as usize) as usize;
    for b in squares(shape) {
        pos.cells[sq(b)] = Cell::Empty;
    }
    for &(set, cell) in pieces {
        for b in squares(set) {
            pos.cells[sq(b)] = cell;
        }
    }
    Some((pos, sq))
}

/// Recomputes entry `e` of `t`; a mismatch if it disagrees (or cannot be decoded).
fn check_entry(t: &Table, e: u64) -> Option<Mismatch> {
    let stored = t.values.get(e as usize).copied().unwrap_or(u8::MAX);
    let mismatch =
        |region: u32, position: String, blockers: Vec<String>, recomputed: u32| Mismatch {
            kind: t.kind,
            entry: e,
            file_offset: value_offset(t.shapes.len() as u32, e),
            region,
            position,
            blockers,
            stored,
            recomputed,
        };
    let Some(entry) = t.decode(e) else {
        return Some(mismatch(
            u32::MAX,
            "(undecodable entry)".into(),
            Vec::new(),
            u32::MAX,
        ));
    };
    let Some((pos, blockers)) = entry_position(&entry) else {
        return Some(mismatch(
            entry.region,
            "(no position)".into(),
            Vec::new(),
            u32::MAX,
        ));
    };
    let recomputed = match t.kind {
        Kind::Simple => rules::one_player_max(&pos, Color::Black),
        Kind::Blocker => blocker_max(&pos, &blockers),
    };
    (recomputed != stored as u32).then(|| {
        let names = blockers
            .iter()
            .map(|&s| pos.board.square_name(s as u8))
            .collect();
        mismatch(entry.region, pos.grid(), names, recomputed)
    })
}

/// The largest number of moves Black can make alone in `pos` when the queens on `blockers`
/// must shoot their first arrow back onto their own square. Exhaustive, memoized, using
/// only the checker's move generator; independent of the database builder.
pub fn blocker_max(pos: &Position, blockers: &[usize]) -> u32 {
    if !pos.is_valid() {
        return 0;
    }
    let empties = pos.cells.iter().filter(|&&c| c == Cell::Empty).count() as u32;
    let mut is_blocker = vec![false; pos.cells.len()];
    for &b in blockers {
        if let Some(x) = is_blocker.get_mut(b) {
            *x = true;
        }
    }
    let mut memo = HashMap::new();
    search(pos, &mut is_blocker, empties, &mut memo)
}

fn search(
    pos: &Position,
    is_blocker: &mut Vec<bool>,
    empties: u32,
    memo: &mut HashMap<(Vec<Cell>, Vec<bool>), u32>,
) -> u32 {
    if empties == 0 {
        return 0;
    }
    let key = (pos.cells.clone(), is_blocker.clone());
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    let mut best = 0;
    for m in rules::legal_moves_of(pos, Color::Black) {
        let from = m.from as usize;
        if is_blocker[from] && m.arrow != m.from {
            continue;
        }
        let next = rules::play(pos, m);
        let was = is_blocker[from];
        is_blocker[from] = false;
        best = best.max(1 + search(&next, is_blocker, empties - 1, memo));
        is_blocker[from] = was;
        if best == empties {
            break;
        }
    }
    memo.insert(key, best);
    best
}
