//! The table size of a campaign from the machine's free memory, and the table a search of N nodes fills.

/// The share of `MemAvailable` a campaign's tables may use, in percent: the rest is the
/// margin for proofs being extracted, checked and written (some GB per thread for a task
/// with tens of millions of steps), other processes and the page cache.
pub const SHARE_PERCENT: usize = 50;

/// Smallest table a rung of the ladder gets, in MiB.
pub const MIN_TABLE_MIB: usize = 16;

/// Entries a MiB of table holds (64-byte buckets of four slots).
const ENTRIES_PER_MIB: u64 = (1 << 20) / 64 * 4;

/// The `MemAvailable` line of `/proc/meminfo`, in MiB.
pub fn mem_available_mib(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// A table size chosen from free memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The whole table of the run, in MiB (shared among its threads).
    pub mib: usize,
    /// `MemAvailable` when it was chosen, in MiB.
    pub available_mib: usize,
}

impl Choice {
    /// [`SHARE_PERCENT`] of `available_mib` (at least [`MIN_TABLE_MIB`]).
    pub fn from_available(available_mib: usize) -> Choice {
        Choice {
            mib: (available_mib * SHARE_PERCENT / 100).max(MIN_TABLE_MIB),
            available_mib,
        }
    }

    /// The choice for this machine, from `/proc/meminfo`; `None` where it cannot be read.
    pub fn for_this_machine() -> Option<Choice> {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        mem_available_mib(&text).map(Choice::from_available)
    }
}

/// The table in MiB that a solve of `nodes` search nodes fills: about one entry per node
/// in the main table, which gets three quarters of a solve's memory (the rest goes to the
/// extraction's plain search, see [`amazons_solver::main_search_options`]). At least
/// [`MIN_TABLE_MIB`].
pub fn table_for_nodes(nodes: u64) -> usize {
    let main = nodes.div_ceil(ENTRIES_PER_MIB);
    let whole = main.saturating_mul(4).div_ceil(3);
    usize::try_from(whole)
        .unwrap_or(usize::MAX)
        .max(MIN_TABLE_MIB)
}

/// The nodes a solve with a table of `mib` MiB can keep (the inverse of
/// [`table_for_nodes`]).
pub fn nodes_for_table(mib: usize) -> u64 {
    (mib as u64).saturating_mul(3) / 4 * ENTRIES_PER_MIB
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn available_memory_is_read_and_shared_with_a_margin() {
        let meminfo =
            "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   20480000 kB\n";
        assert_eq!(mem_available_mib(meminfo), Some(20000));
        assert_eq!(mem_available_mib("MemTotal: 5 kB\n"), None);
        let c = Choice::from_available(20000);
        assert_eq!(c.mib, 10000);
        assert_eq!(Choice::from_available(3).mib, MIN_TABLE_MIB);
    }

    #[test]
    fn a_table_for_n_nodes_holds_n_nodes() {
        for nodes in [10_000_000u64, 100_000_000, 1_000_000_000] {
            let mib = table_for_nodes(nodes);
            assert!(nodes_for_table(mib) >= nodes, "{nodes}: {mib} MiB");
            assert!(
                nodes_for_table(mib - 2) < nodes,
                "{nodes}: {mib} MiB is more than needed"
            );
        }
        assert_eq!(table_for_nodes(1), MIN_TABLE_MIB);
    }
}
