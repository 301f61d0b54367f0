//! Simple territory databases: the exact maximum number of moves of one colour's queens in a region.
//!
//! Every position of a region (each placement of 1..=K queens, the other squares empty) is
//! valued by a 1-ply lookup over all its moves into the already built smaller regions (see
//! [`super::build`]; the builder is the blocker one without blockers). The defect of a position is `empties - value` (seed 001: a region of
//! `n` squares with one amazon that can shoot `m` arrows has defect `n - m - 1`).

use super::index::{binom, groups, Kind};
use super::Table;

/// Defect figures of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefectStats {
    /// `histogram[k][d]`: positions with `k` queens (blockers included) and defect `d`.
    pub histogram: Vec<Vec<u64>>,
    /// Per queen count: regions with at least one defective placement.
    pub defective_regions: Vec<u64>,
}

/// Defect distribution of a table (simple or blocker), by number of queens.
pub fn defect_stats(t: &Table) -> DefectStats {
    defect_stats_upto(t, u32::MAX)
}

/// Defect distribution restricted to regions of at most `max_n` squares.
pub fn defect_stats_upto(t: &Table, max_n: u32) -> DefectStats {
    let k = t.max_queens as usize;
    let mut histogram = vec![Vec::new(); k + 1];
    let mut defective_regions = vec![0u64; k + 1];
    for (id, &c) in t.shapes.iter().enumerate() {
        let n = c.count_ones();
        if n > max_n {
            continue;
        }
        let base = t.offsets[id];
        let mut any = vec![false; k + 1];
        for (b, q) in groups(t.kind, k as u32, n) {
            let start = base + t.layout.group_offset(n, b, q);
            let e = n - b - q;
            let h = &mut histogram[(b + q) as usize];
            for i in 0..binom(n, b) * binom(n - b, q) {
                let v = t.values.get((start + i) as usize).copied().unwrap_or(0) as u32;
                let d = e.saturating_sub(v) as usize;
                if h.len() <= d {
                    h.resize(d + 1, 0);
                }
                h[d] += 1;
                any[(b + q) as usize] |= d > 0;
            }
        }
        for (r, a) in defective_regions.iter_mut().zip(any) {
            *r += a as u64;
        }
    }
    DefectStats {
        histogram,
        defective_regions,
    }
}

/// Seed 001's figures for one queen in regions of at most `max_n` squares: the largest defect
/// and the number of regions with some defective placement (`None` if the table lacks
/// regions of that size).
pub fn one_queen_figures(t: &Table, max_n: u32) -> Option<(u32, u64)> {
    if t.kind != Kind::Simple || (t.spec.max_size as u32) < max_n {
        return None;
    }
    let s = defect_stats_upto(t, max_n);
    let h = s.histogram.get(1)?;
    let max = h.iter().rposition(|&c| c > 0).unwrap_or(0) as u32;
    Some((max, s.defective_regions[1]))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::{build, Database, DbConfig};
    use super::*;

    /// Seed 001: for one queen in regions of size <= 7 the largest defect is 3, and 1138
    /// free regions have some defective placement.
    #[test]
    fn one_queen_defect_figures_match_seed() {
        let dir = tempdir("defects");
        let cfg = DbConfig {
            threads: 2,
            ..DbConfig::new((7, (0, 0), 1), (3, (0, 0), 1))
        };
        build(&dir, &cfg, &mut |_| {}).expect("build");
        let db = Database::open(&dir).expect("open");
        let (max, regions) = one_queen_figures(db.simple(), 7).expect("covered");
        assert_eq!(max, 3, "largest one-queen defect in regions of size <= 7");
        assert_eq!(
            regions, 1138,
            "free regions of size <= 7 with a defective placement"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    pub(crate) fn tempdir(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!(
            "amazons-db-test-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        d
    }
}
