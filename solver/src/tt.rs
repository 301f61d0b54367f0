//! Transposition table for df-pn: fixed size in MiB, 4-way buckets of one cache line, least-work replacement.

use crate::geometry::Key;

/// Proof and disproof numbers at or above this are infinite.
pub const INF: u32 = u32::MAX / 2;

const WAYS: usize = 4;

/// One bucket: `WAYS` slots of two words, `[check << 16 | work code, phi << 32 | delta]`,
/// in 64 bytes, so a probe touches one cache line (large tables are page-aligned).
/// `check` is 48 bits of the key's low half (never 0: a zero word marks an empty slot);
/// the bucket index comes from the key's high half. Keys in one bucket agree on the index
/// bits anyway, so only `check` tells them apart: an absent key matches one of the
/// `WAYS` slots with probability about `WAYS * 2^-48` per probe (with a 32-bit check it
/// was `WAYS * 2^-32`, a few false hits in a run of billions of probes). The work is kept
/// as a 16-bit float code ([`work_code`]). Plain zeroed words, so a large table is
/// allocated lazily by the operating system.
type Bucket = [u64; 2 * WAYS];

/// Bits of the key's low half compared on a probe.
const CHECK_BITS: u32 = 48;

/// The 16-bit code of a work count: exact below 2048, above that the top 11 bits and the
/// shift (a float with a 10-bit mantissa), so codes are ordered as the counts are and
/// [`work_of`] is at most 1/1024 below the count.
#[inline]
fn work_code(work: u32) -> u64 {
    if work < 2048 {
        return work as u64;
    }
    let shift = 31 - work.leading_zeros() - 10;
    ((shift as u64) << 10) + (work >> shift) as u64
}

/// The work count a [`work_code`] stands for (rounded down).
#[inline]
fn work_of(code: u64) -> u32 {
    let code = code as u32 & 0xFFFF;
    if code < 2048 {
        return code;
    }
    let shift = (code >> 10) - 1;
    (code - (shift << 10)) << shift
}

/// What the table remembers of a node: proof number `phi` and disproof number `delta`
/// for the side to move, and the work spent on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stored {
    pub phi: u32,
    pub delta: u32,
    pub work: u32,
}

/// The table's memory: an anonymous map with transparent huge pages requested (a probe
/// of a large table then rarely misses the TLB as well as the cache), or a plain vector
/// where mapping fails.
enum Memory {
    Map(memmap2::MmapMut),
    Vec(Vec<Bucket>),
}

/// A bounded hash table; memory is fixed at creation.
pub struct Table {
    memory: Memory,
    len: usize,
    /// Buckets written since the memory was last clean (`None` once there are too many to
    /// list: then all of it is wiped), so a reused table is wiped cheaply after a small task.
    dirty: Option<Vec<u32>>,
    pub stores: u64,
    pub overwrites: u64,
}

/// An empty dirty list, for tables whose bucket indices fit in `u32`.
fn clean_list(len: usize) -> Option<Vec<u32>> {
    (len <= u32::MAX as usize).then(Vec::new)
}

/// Tables kept per thread for reuse at most: a sharded run's thread uses a small table
/// for its tasks' first rung, a ranking table, and its whole share for the higher rungs,
/// each with the extraction's table beside it.
const POOL: usize = 5;

thread_local! {
    /// Memory of dropped tables, for the next table of the same size on this thread: a
    /// sharded run solves many tasks in a row, and a fresh table of huge pages costs a
    /// kernel wipe of all of it even when the task touches a little.
    static SPARE: std::cell::RefCell<Vec<Table>> = const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// Whether a reused table keeps its entries (see [`keep_entries`]).
    static KEEP: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Frees the memory of the tables kept for reuse on this thread (e.g. after a one-off
/// search on a thread that will not search again at that size).
pub fn release_spare() {
    let _ = SPARE.try_with(|spare| {
        if let Ok(mut spare) = spare.try_borrow_mut() {
            spare.clear();
        }
    });
}

/// On this thread, let the next tables of the same size start with the entries of the
/// previous ones instead of empty: consecutive tasks of a sharded solve then share what
/// they proved (positions recur across tasks), as in the paper's 5x6 run "with a shared
/// hash table". Entries are facts about positions (Amazons has no repetitions), and every
/// certificate is checked, so this is safe; but a task's certificate then depends on the
/// tasks solved before it on its thread, so shard bytes are no longer reproducible.
pub fn keep_entries(keep: bool) {
    KEEP.with(|k| k.set(keep));
}

/// Whether reused tables on this thread keep their entries ([`keep_entries`]).
pub fn keeping() -> bool {
    KEEP.with(|k| k.get())
}

/// Runs `f` with this thread's new tables starting empty ([`keep_entries`] off), then
/// restores the setting it found.
pub fn from_empty_tables<T>(f: impl FnOnce() -> T) -> T {
    let keep = keeping();
    keep_entries(false);
    let out = f();
    keep_entries(keep);
    out
}

thread_local! {
    /// Whether a search on this thread that runs out of budget leaves its table to the
    /// next search of the same position (see [`carry`]).
    static CARRY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The table so left, with the key of the position it was searching.
    static CARRIED: std::cell::RefCell<Option<(Key, Table)>> = const { std::cell::RefCell::new(None) };
}

/// On this thread, let the main table of a solve that runs out of its node budget be
/// taken up, entries and all, by the next solve of the same position with a table of the
/// same size ([`Table::carried`]), so that a task climbing a ladder of budgets goes on
/// from where its last rung stopped instead of starting again. Entries are facts about
/// positions (and proof-number estimates), so the next solve's proof is as sound as one
/// from an empty table; it only depends on the rungs climbed before it. `false` leaves a
/// table already left in place ([`drop_carried`] hands it back).
pub fn carry(on: bool) {
    let _ = CARRY.try_with(|c| c.set(on));
}

/// Hands a table left by [`carry`] and not taken up to the pool of spare tables (wiped
/// when it is reused).
pub fn drop_carried() {
    let left = CARRIED.try_with(|c| c.borrow_mut().take()).ok().flatten();
    drop(left);
}

/// Leaves `table`, the main table of a solve of the position with `key` that ran out of
/// budget, to the next solve of that position, when carrying is on ([`carry`]).
pub fn leave(key: Key, table: Table) {
    if CARRY.try_with(|c| c.get()).unwrap_or(false) {
        let old = CARRIED
            .try_with(|c| c.borrow_mut().replace((key, table)))
            .ok()
            .flatten();
        drop(old);
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        if self.len < 1 << 16 {
            return;
        }
        // `try_with`: during thread teardown the pool is gone and the memory is freed.
        let _ = SPARE.try_with(|spare| {
            let Ok(mut spare) = spare.try_borrow_mut() else {
                return;
            };
            if spare.len() < POOL {
                spare.push(Table {
                    memory: std::mem::replace(&mut self.memory, Memory::Vec(Vec::new())),
                    len: std::mem::take(&mut self.len),
                    dirty: self.dirty.take(),
                    stores: 0,
                    overwrites: 0,
                });
            }
        });
    }
}

impl Table {
    /// A table using about `mib` MiB (at least one bucket): reused memory of an earlier
    /// table of this size on this thread (wiped), or a fresh map.
    pub fn new(mib: usize) -> Table {
        let len = Self::len_for(mib);
        let reused = SPARE
            .try_with(|spare| {
                let mut spare = spare.try_borrow_mut().ok()?;
                let i = spare.iter().position(|t| t.len == len)?;
                Some(spare.swap_remove(i))
            })
            .ok()
            .flatten();
        if let Some(mut t) = reused {
            if !KEEP.with(|k| k.get()) {
                t.wipe();
            }
            return t;
        }
        let size = len * std::mem::size_of::<Bucket>();
        let memory = match memmap2::MmapMut::map_anon(size) {
            // Page-aligned and a whole number of buckets, so the casts below succeed.
            Ok(map) if bytemuck::try_cast_slice::<u8, Bucket>(&map).is_ok() => {
                // Only advice: without huge pages the table still works.
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                Memory::Map(map)
            }
            _ => Memory::Vec(vec![[0u64; 2 * WAYS]; len]),
        };
        Table {
            memory,
            len,
            dirty: clean_list(len),
            stores: 0,
            overwrites: 0,
        }
    }

    /// The table a solve of the position with `key` left on this thread ([`leave`]),
    /// with its entries, when its size is `mib` MiB; `None` otherwise (a table left for
    /// another position or size then goes to the pool of spare tables).
    pub fn carried(key: Key, mib: usize) -> Option<Table> {
        let len = Self::len_for(mib);
        let (k, t) = CARRIED.try_with(|c| c.borrow_mut().take()).ok().flatten()?;
        (k == key && t.len == len).then_some(t)
    }

    /// A table of one bucket, holding no memory worth keeping: what a search keeps once
    /// its table was left to the next one.
    pub fn placeholder() -> Table {
        Table {
            memory: Memory::Vec(vec![[0u64; 2 * WAYS]]),
            len: 1,
            dirty: clean_list(1),
            stores: 0,
            overwrites: 0,
        }
    }

    fn len_for(mib: usize) -> usize {
        (mib.saturating_mul(1 << 20) / std::mem::size_of::<Bucket>()).max(1)
    }

    /// Empties the table: the listed dirty buckets, or all of it.
    fn wipe(&mut self) {
        match self.dirty.take() {
            Some(list) => {
                let buckets = self.buckets_mut();
                for &b in &list {
                    buckets[b as usize] = [0; 2 * WAYS];
                }
            }
            None => self.buckets_mut().fill([0; 2 * WAYS]),
        }
        self.dirty = clean_list(self.len);
        self.stores = 0;
        self.overwrites = 0;
    }

    #[inline]
    fn buckets(&self) -> &[Bucket] {
        match &self.memory {
            Memory::Map(map) => bytemuck::cast_slice(map),
            Memory::Vec(v) => v,
        }
    }

    #[inline]
    fn buckets_mut(&mut self) -> &mut [Bucket] {
        match &mut self.memory {
            Memory::Map(map) => bytemuck::cast_slice_mut(map),
            Memory::Vec(v) => v,
        }
    }

    /// Number of entries the table holds at most.
    pub fn capacity(&self) -> usize {
        self.len * WAYS
    }

    #[inline]
    fn bucket(&self, key: Key) -> usize {
        let high = (key >> 64) as u64;
        (((high as u128) * (self.len as u128)) >> 64) as usize
    }

    #[inline]
    fn check(key: Key) -> u64 {
        (key as u64 & ((1 << CHECK_BITS) - 1)).max(1)
    }

    /// Reads the first word of `key`'s bucket: touching the buckets of many keys (a
    /// node's children) in a row, before any `get`, lets the processor overlap their
    /// cache misses instead of waiting for each in turn (a prefetch without `unsafe`).
    #[inline]
    pub fn touch(&self, key: Key) -> u64 {
        self.buckets()[self.bucket(key)][0]
    }

    #[inline]
    pub fn get(&self, key: Key) -> Option<Stored> {
        let check = Self::check(key);
        let b = &self.buckets()[self.bucket(key)];
        (0..WAYS)
            .find(|&i| b[2 * i] >> 16 == check)
            .map(|i| Stored {
                phi: (b[2 * i + 1] >> 32) as u32,
                delta: b[2 * i + 1] as u32,
                work: work_of(b[2 * i]),
            })
    }

    #[inline]
    pub fn put(&mut self, key: Key, phi: u32, delta: u32, work: u32) {
        let check = Self::check(key);
        let bi = self.bucket(key);
        self.stores += 1;
        let (mut overwrote, mut newly_dirty) = (false, false);
        let b = &mut self.buckets_mut()[bi];
        let idx = match (0..WAYS).find(|&i| b[2 * i] >> 16 == check) {
            Some(i) => i,
            None => match (0..WAYS).find(|&i| b[2 * i] == 0) {
                Some(i) => {
                    // Slots fill in order and are never emptied: slot 0 free means the
                    // bucket was clean until now.
                    newly_dirty = i == 0;
                    i
                }
                None => {
                    overwrote = true;
                    // Keep proven entries over unproven ones of similar work.
                    let value = |i: usize| {
                        let pd = b[2 * i + 1];
                        let solved = pd >> 32 == 0 || pd as u32 == 0;
                        (work_of(b[2 * i]) as u64) * if solved { 4 } else { 1 }
                    };
                    (0..WAYS).min_by_key(|&i| value(i)).unwrap_or(0)
                }
            },
        };
        b[2 * idx] = check << 16 | work_code(work);
        b[2 * idx + 1] = (phi as u64) << 32 | delta as u64;
        self.overwrites += overwrote as u64;
        if newly_dirty {
            let cap = self.len / 16;
            if let Some(list) = self.dirty.as_mut() {
                if list.len() < cap {
                    list.push(bi as u32);
                } else {
                    self.dirty = None;
                }
            }
        }
    }

    /// Fraction of slots in use, sampled over the first 4096 buckets.
    pub fn fill(&self) -> f64 {
        let n = self.len.min(4096);
        let used: usize = self.buckets()[..n]
            .iter()
            .map(|b| (0..WAYS).filter(|&i| b[2 * i] != 0).count())
            .sum();
        used as f64 / (n * WAYS) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The search nodes of solving `p` within `budget` nodes (`None` when over it).
    fn search_nodes(p: &amazons_format::Position, budget: u64) -> Option<u64> {
        let opts = crate::Options {
            hash_mib: 16,
            max_nodes: Some(budget),
            ..crate::Options::default()
        };
        crate::solve(p, &opts, "test").ok().map(|s| s.search_nodes)
    }

    #[test]
    fn a_solve_over_budget_leaves_its_table_to_the_next_solve_of_its_position() {
        let p = amazons_format::Position::start("5x4").expect("5x4");
        let other = amazons_format::Position::start("4x4").expect("4x4");
        let whole = search_nodes(&p, u64::MAX).expect("5x4 within any budget");
        let other_whole = search_nodes(&other, u64::MAX).expect("4x4");
        let budget = whole / 2;
        // Without carrying, a second solve starts again from an empty table.
        assert_eq!(search_nodes(&p, budget), None);
        assert_eq!(search_nodes(&p, u64::MAX), Some(whole));
        carry(true);
        assert_eq!(search_nodes(&p, budget), None);
        let went_on = search_nodes(&p, u64::MAX).expect("5x4");
        // A table left for another position is not used.
        assert_eq!(search_nodes(&p, budget), None);
        let another = search_nodes(&other, u64::MAX);
        // Without carrying, a solve over budget leaves nothing.
        carry(false);
        assert_eq!(search_nodes(&p, budget), None);
        assert_eq!(search_nodes(&p, u64::MAX), Some(whole));
        carry(true);
        assert_eq!(search_nodes(&p, budget), None);
        carry(false);
        drop_carried();
        assert!(went_on < whole - budget / 2, "{went_on} of {whole}");
        assert_eq!(another, Some(other_whole));
        // Ending carrying drops what was left: the next solve starts afresh.
        assert_eq!(search_nodes(&p, budget), None);
        assert_eq!(search_nodes(&p, u64::MAX), Some(whole));
    }

    #[test]
    fn stores_and_replaces_within_the_memory_bound() {
        let mut t = Table::new(1);
        let cap = t.capacity();
        assert!(cap * 16 <= 1 << 20);
        for k in 1..(cap as u64 * 3) {
            t.put(spread(k), 1, 1, (k % 7) as u32);
        }
        assert_eq!(t.capacity(), cap);
        let k = spread(12345);
        t.put(k, 0, INF, 100);
        assert_eq!(
            t.get(k),
            Some(Stored {
                phi: 0,
                delta: INF,
                work: 100
            })
        );
    }

    /// A key with both halves spread from `k`.
    fn spread(k: u64) -> Key {
        let hi = k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (hi as Key) << 64 | (hi ^ 0xDEAD_BEEF).wrapping_mul(0xBF58_476D_1CE4_E5B9) as Key
    }

    #[test]
    fn keys_sharing_a_bucket_are_told_apart_by_their_low_bits() {
        let mut t = Table::new(1);
        // Same high half (same bucket), low halves that differ only above bit 32: the
        // old 32-bit check took these for one key.
        let a: Key = 0xABCD << 64 | 0x0000_0001_0000_0007;
        let b: Key = 0xABCD << 64 | 0x0000_0002_0000_0007;
        assert_eq!(t.bucket(a), t.bucket(b));
        t.put(a, 1, 2, 3);
        assert_eq!(t.get(b), None, "an absent key is not found");
        t.put(b, 4, 5, 6);
        assert_eq!(t.get(a).map(|s| (s.phi, s.delta, s.work)), Some((1, 2, 3)));
        assert_eq!(t.get(b).map(|s| (s.phi, s.delta, s.work)), Some((4, 5, 6)));
        // A key whose low half is zero is still stored (the check is never 0).
        let z: Key = 0x1234_5678 << 64;
        t.put(z, 7, 8, 9);
        assert_eq!(t.get(z).map(|s| s.work), Some(9));
        assert!(t.fill() > 0.0);
        let _ = t.touch(Key::MAX);
    }

    #[test]
    fn work_codes_are_exact_when_small_ordered_and_close() {
        for w in 0..2048u32 {
            assert_eq!(work_of(work_code(w)), w);
        }
        let mut last = 0;
        let samples = (0..2_000_000u32)
            .map(|i| i.wrapping_mul(2_654_435_761) >> (i % 32))
            .chain([2048, 2049, 4095, 4096, u32::MAX / 2, u32::MAX - 1, u32::MAX]);
        let mut sorted: Vec<u32> = samples.collect();
        sorted.sort_unstable();
        for w in sorted {
            let code = work_code(w);
            assert!(code <= 0xFFFF, "{w}: code {code} needs more than 16 bits");
            assert!(code >= last, "{w}: codes out of order");
            last = code;
            let back = work_of(code);
            assert!(
                back <= w && (w - back) as u64 * 1024 <= w as u64,
                "{w} -> {back}"
            );
        }
    }

    #[test]
    fn a_reused_table_starts_empty() {
        let keys: Vec<Key> = (1..2000u64).map(spread).collect();
        // Few entries (wiped by the dirty list), then many (wiped whole).
        for n in [10usize, 1999] {
            let mut t = Table::new(8);
            for &k in &keys[..n] {
                t.put(k, 1, 2, 3);
            }
            assert!(t.get(keys[0]).is_some());
            drop(t);
            let t = Table::new(8);
            assert!(keys.iter().all(|&k| t.get(k).is_none()), "n = {n}");
            assert_eq!(t.fill(), 0.0);
        }
        // The dirty list gives up past a sixteenth of the buckets.
        let mut t = Table::new(8);
        for k in 1..(t.len as u64) {
            t.put(spread(k), 1, 1, 1);
        }
        assert!(t.dirty.is_none());
        drop(t);
        let t = Table::new(8);
        assert_eq!(t.fill(), 0.0);
    }
}
