//! The table size of a campaign from the machine's free memory, and the table a search of N nodes fills.

/// The share of the available memory a campaign's tables may use, in percent: the rest is
/// the margin for proofs being extracted, checked and written (some GB per thread for a
/// task with tens of millions of steps), other processes and the page cache.
pub const SHARE_PERCENT: usize = 50;

/// Smallest table a rung of the ladder gets, in MiB.
pub const MIN_TABLE_MIB: usize = 16;

/// Entries a MiB of table holds (64-byte buckets of four slots).
const ENTRIES_PER_MIB: u64 = (1 << 20) / 64 * 4;

/// A line `NAME: N kB` of `/proc/meminfo`, in MiB.
fn meminfo_mib(meminfo: &str, name: &str) -> Option<usize> {
    let line = meminfo
        .lines()
        .find(|l| l.split(':').next() == Some(name))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// The `MemAvailable` line of `/proc/meminfo`, in MiB.
pub fn mem_available_mib(meminfo: &str) -> Option<usize> {
    meminfo_mib(meminfo, "MemAvailable")
}

/// The memory not yet promised to any process, in MiB: `MemTotal` less `Committed_AS`.
/// A table is mapped at once but only takes memory as its pages are first written, so
/// `MemAvailable` does not yet count the untouched part of another campaign's fresh table;
/// `Committed_AS` does.
pub fn uncommitted_mib(meminfo: &str) -> Option<usize> {
    let total = meminfo_mib(meminfo, "MemTotal")?;
    Some(total.saturating_sub(meminfo_mib(meminfo, "Committed_AS")?))
}

/// A table size chosen from free memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The whole table of the run, in MiB (shared among its threads).
    pub mib: usize,
    /// The memory available when it was chosen, in MiB: the smaller of `MemAvailable` and
    /// the memory not yet promised ([`uncommitted_mib`]).
    pub available_mib: usize,
    /// `MemAvailable` then, when it was the larger (other processes had memory promised
    /// that they had not used yet).
    pub mem_available_mib: Option<usize>,
}

impl Choice {
    /// [`SHARE_PERCENT`] of `available_mib` (at least [`MIN_TABLE_MIB`]).
    pub fn from_available(available_mib: usize) -> Choice {
        Choice {
            mib: (available_mib * SHARE_PERCENT / 100).max(MIN_TABLE_MIB),
            available_mib,
            mem_available_mib: None,
        }
    }

    /// The choice for the memory `meminfo` (`/proc/meminfo`'s text) describes: from
    /// `MemAvailable`, or from the memory not yet promised where that is less.
    pub fn from_meminfo(meminfo: &str) -> Option<Choice> {
        let available = mem_available_mib(meminfo)?;
        match uncommitted_mib(meminfo) {
            Some(free) if free < available => Some(Choice {
                mem_available_mib: Some(available),
                ..Choice::from_available(free)
            }),
            _ => Some(Choice::from_available(available)),
        }
    }

    /// The choice for this machine, from `/proc/meminfo`; `None` where it cannot be read.
    pub fn for_this_machine() -> Option<Choice> {
        Choice::from_meminfo(&std::fs::read_to_string("/proc/meminfo").ok()?)
    }

    /// How the choice was made, for the run's `table:` line and `decisions.tsv`.
    pub fn describe(&self, threads: usize) -> String {
        let of = match self.mem_available_mib {
            None => format!("{} MiB available", self.available_mib),
            Some(m) => format!(
                "{} MiB not yet promised to any process, less than the {m} MiB available",
                self.available_mib
            ),
        };
        format!(
            "{} MiB from free memory ({SHARE_PERCENT}% of {of}), {} MiB per thread",
            self.mib,
            self.mib / threads.max(1)
        )
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
    fn memory_promised_but_not_yet_used_is_not_available() {
        // Nothing promised beyond what is in use: MemAvailable decides.
        let idle = "MemTotal: 24576000 kB\nMemAvailable: 20480000 kB\nCommitted_AS: 2048000 kB\n";
        assert_eq!(uncommitted_mib(idle), Some(22000));
        let c = Choice::from_meminfo(idle).expect("choice");
        assert_eq!(
            (c.mib, c.available_mib, c.mem_available_mib),
            (10000, 20000, None)
        );
        assert_eq!(
            c.describe(2),
            "10000 MiB from free memory (50% of 20000 MiB available), 5000 MiB per thread"
        );
        // Another campaign's 12,000 MiB table, mapped but a quarter written: MemAvailable
        // still counts the rest as free, the memory promised does not.
        let busy = "MemTotal: 24576000 kB\nMemAvailable: 17408000 kB\nCommitted_AS: 14336000 kB\n";
        let c = Choice::from_meminfo(busy).expect("choice");
        assert_eq!(
            (c.mib, c.available_mib, c.mem_available_mib),
            (5000, 10000, Some(17000))
        );
        assert!(
            c.describe(1).contains("(50% of 10000 MiB not yet promised to any process, less than the 17000 MiB available)"),
            "{}",
            c.describe(1)
        );
        // Promised more than there is: the smallest table.
        let over = "MemTotal: 1024 kB\nMemAvailable: 1024 kB\nCommitted_AS: 4096 kB\n";
        assert_eq!(
            Choice::from_meminfo(over).map(|c| c.mib),
            Some(MIN_TABLE_MIB)
        );
        // Without Committed_AS, MemAvailable alone; without MemAvailable, no choice.
        let old = "MemTotal: 24576000 kB\nMemAvailable: 20480000 kB\n";
        assert_eq!(Choice::from_meminfo(old).map(|c| c.mib), Some(10000));
        assert_eq!(Choice::from_meminfo("MemTotal: 5 kB\n"), None);
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
