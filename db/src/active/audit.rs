//! Auditing an active table by a separate route: plain search, the thermograph's outcome and a fresh `value_of_area`.

use super::table::ActiveDb;
use super::{outcome_of, thermograph_outcome, AUDIT_CACHE_LIMIT, AUDIT_LIMIT};
use crate::audit::{AuditReport, Checked};
use crate::store::DbError;
use crate::Rng;
use amazons_cgt::GameStore;
use amazons_format::Color;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

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

/// Entries of an active table checked: outcomes, thermographs and values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActiveChecked {
    pub entries: u64,
    /// Entries whose value recomputation exceeded [`AUDIT_LIMIT`] (outcomes still checked).
    pub value_skipped: u64,
}

impl Checked for ActiveChecked {
    const NAME: &'static str = "active audit";
    const PER: &'static str = "";
}

impl fmt::Display for ActiveChecked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} entries checked (outcomes by plain search for both sides to move, \
             thermograph-implied outcomes, values recomputed by a fresh store; {} too complex \
             to revalue)",
            self.entries, self.value_skipped
        )
    }
}

/// What an active audit checked and found.
pub type ActiveAuditReport = AuditReport<ActiveChecked, ActiveMismatch>;

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
        checked: ActiveChecked {
            entries: entries.len() as u64,
            value_skipped: skipped,
        },
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
