//! Transposition table for df-pn: fixed size in MiB, 4-way buckets, least-work replacement.

/// Proof and disproof numbers at or above this are infinite.
pub const INF: u32 = u32::MAX / 2;

/// One slot: `[key, phi << 32 | delta, work]`. Plain zeroed words, so a large table is
/// allocated lazily by the operating system.
type Entry = [u64; 3];

const WAYS: usize = 4;

/// What the table remembers of a node: proof number `phi` and disproof number `delta`
/// for the side to move, and the work spent on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stored {
    pub phi: u32,
    pub delta: u32,
    pub work: u32,
}

/// A bounded hash table; memory is fixed at creation.
pub struct Table {
    entries: Vec<Entry>,
    buckets: usize,
    pub stores: u64,
    pub overwrites: u64,
}

impl Table {
    /// A table using about `mib` MiB (at least one bucket).
    pub fn new(mib: usize) -> Table {
        let bytes = mib.saturating_mul(1 << 20);
        let buckets = (bytes / (std::mem::size_of::<Entry>() * WAYS)).max(1);
        Table {
            entries: vec![[0u64; 3]; buckets * WAYS],
            buckets,
            stores: 0,
            overwrites: 0,
        }
    }

    /// Number of entries the table holds at most.
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (((key as u128) * (self.buckets as u128)) >> 64) as usize * WAYS
    }

    #[inline]
    fn fix(key: u64) -> u64 {
        key.max(1)
    }

    #[inline]
    pub fn get(&self, key: u64) -> Option<Stored> {
        let key = Self::fix(key);
        let b = self.bucket(key);
        self.entries[b..b + WAYS]
            .iter()
            .find(|e| e[0] == key)
            .map(|e| Stored {
                phi: (e[1] >> 32) as u32,
                delta: e[1] as u32,
                work: e[2] as u32,
            })
    }

    #[inline]
    pub fn put(&mut self, key: u64, phi: u32, delta: u32, work: u32) {
        let key = Self::fix(key);
        let b = self.bucket(key);
        self.stores += 1;
        let slot = &mut self.entries[b..b + WAYS];
        let idx = match slot.iter().position(|e| e[0] == key) {
            Some(i) => i,
            None => {
                let i = match slot.iter().position(|e| e[0] == 0) {
                    Some(i) => i,
                    None => {
                        self.overwrites += 1;
                        // Keep proven entries over unproven ones of similar work.
                        let value = |e: &Entry| {
                            let solved = e[1] >> 32 == 0 || e[1] as u32 == 0;
                            e[2] * if solved { 4 } else { 1 }
                        };
                        (0..WAYS).min_by_key(|&i| value(&slot[i])).unwrap_or(0)
                    }
                };
                i
            }
        };
        slot[idx] = [key, (phi as u64) << 32 | delta as u64, work as u64];
    }

    /// Fraction of slots in use, sampled over the first 4096 buckets.
    pub fn fill(&self) -> f64 {
        let n = self.entries.len().min(4096 * WAYS);
        self.entries[..n].iter().filter(|e| e[0] != 0).count() as f64 / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_replaces_within_the_memory_bound() {
        let mut t = Table::new(1);
        let cap = t.capacity();
        assert!(cap * std::mem::size_of::<Entry>() <= 1 << 20);
        for k in 1..(cap as u64 * 3) {
            t.put(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), 1, 1, (k % 7) as u32);
        }
        assert_eq!(t.capacity(), cap);
        let k = 12345u64.wrapping_mul(0xDEAD_BEEF);
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
}
