//! The build driver: regions level by level (by size), each level in parallel, in dependency order.
//!
//! Every move burns one square of the region (the arrow, or for a blocker its origin), so
//! every position a move leads to lies in regions with one square fewer: once all regions of
//! size `n - 1` are done, every region of size `n` can be computed by a 1-ply lookup. This is
//! the forward form of retrograde analysis used by the paper (section III-A).

use super::regions::{components, normalize, squares, Located, RegionIndex, Shape, FRAME};
use super::store::DbError;
use super::view::View;
use super::{BuildCounts, Kind, Progress};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// One part of the region left after a square is burnt, located in the index.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChildComp {
    /// The part's squares in the parent's (canonical) frame coordinates.
    pub mask: u128,
    /// Shift normalizing the part.
    pub shift: u32,
    pub loc: Located,
}

/// For every square `a` of the canonical region `c`, the located parts of `c - {a}`
/// (indexed by frame bit).
pub(crate) fn children(c: Shape, index: &RegionIndex) -> Result<Vec<Vec<ChildComp>>, DbError> {
    let mut out = vec![Vec::new(); (FRAME * FRAME) as usize];
    for a in squares(c) {
        let rest = c & !(1u128 << a);
        for comp in components(rest) {
            let (f, shift) = normalize(comp);
            let loc = index.locate(f).ok_or_else(|| {
                DbError::Build(format!(
                    "region set not closed: part {comp:#x} of {c:#x} minus square {a} is missing"
                ))
            })?;
            out[a as usize].push(ChildComp {
                mask: comp,
                shift,
                loc,
            });
        }
    }
    Ok(out)
}

/// Value of the position after a move: the sum over the parts of the burnt region.
#[inline]
pub(crate) fn child_value(
    view: &View<'_>,
    parts: &[ChildComp],
    blockers: u128,
    normals: u128,
) -> Result<u32, DbError> {
    let mut sum = 0;
    for p in parts {
        let (b, q) = (blockers & p.mask, normals & p.mask);
        if b | q == 0 {
            continue;
        }
        sum += view
            .value_located(&p.loc, b >> p.shift, q >> p.shift)
            .ok_or_else(|| {
                DbError::Build(format!(
                    "dependency order violated: part {:#x} (blockers {b:#x}, queens {q:#x}) not yet computed",
                    p.mask
                ))
            })?;
    }
    Ok(sum)
}

/// The frame squares of the index mask `m` over the ascending squares `sq`.
#[inline]
pub(crate) fn deposit(m: u128, sq: &[u32]) -> u128 {
    let mut out = 0u128;
    let mut r = m;
    while r != 0 {
        let i = r.trailing_zeros() as usize;
        r &= r - 1;
        out |= 1u128 << sq[i];
    }
    out
}

/// Values computed by one worker: `(first region of a block, values of the block)`.
type Blocks = Vec<(usize, Vec<u8>)>;

/// Computes every level of a table. `compute(region, done, out)` appends the values of all
/// entries of `region`, in layout order, reading smaller regions from `done` (the values of
/// all regions before the current level).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_levels<F>(
    kind: Kind,
    shapes: &[Shape],
    offsets: &[u64],
    values: &mut [u8],
    threads: usize,
    progress: &mut dyn FnMut(&Progress),
    t0: Instant,
    compute: F,
) -> Result<(), DbError>
where
    F: Fn(usize, &[u8], &mut Vec<u8>) -> Result<(), DbError> + Sync,
{
    const BLOCK: usize = 8;
    let max_size = shapes.last().map_or(0, |s| s.count_ones());
    let mut r0 = 0;
    while r0 < shapes.len() {
        let n = shapes[r0].count_ones();
        let mut r1 = r0;
        while r1 < shapes.len() && shapes[r1].count_ones() == n {
            r1 += 1;
        }
        let e0 = offsets[r0] as usize;
        let (done, rest) = values.split_at_mut(e0);
        let done: &[u8] = done;
        let next = AtomicUsize::new(r0);
        let compute = &compute;
        let results: Vec<Result<Blocks, DbError>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads.max(1))
                .map(|_| {
                    s.spawn(|| {
                        let mut out = Vec::new();
                        loop {
                            let a = next.fetch_add(BLOCK, Ordering::Relaxed);
                            if a >= r1 {
                                break;
                            }
                            let b = (a + BLOCK).min(r1);
                            let mut v = Vec::with_capacity((offsets[b] - offsets[a]) as usize);
                            for r in a..b {
                                compute(r, done, &mut v)?;
                            }
                            if v.len() as u64 != offsets[b] - offsets[a] {
                                return Err(DbError::Build(format!(
                                    "regions {a}..{b} produced {} values, expected {}",
                                    v.len(),
                                    offsets[b] - offsets[a]
                                )));
                            }
                            out.push((a, v));
                        }
                        Ok(out)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(DbError::Build("a build worker panicked".into())))
                })
                .collect()
        });
        for res in results {
            for (a, v) in res? {
                let at = offsets[a] as usize - e0;
                rest[at..at + v.len()].copy_from_slice(&v);
            }
        }
        progress(&Progress {
            kind,
            counts: BuildCounts {
                size: n,
                max_size,
                regions: r1,
                regions_total: shapes.len(),
                entries: offsets[r1],
                entries_total: offsets[shapes.len()],
            },
            elapsed: t0.elapsed(),
        });
        r0 = r1;
    }
    Ok(())
}
