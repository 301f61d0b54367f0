//! Value lookup on frame coordinates, shared by the builder (partial tables) and queries.

use super::index::Layout;
use super::regions::{components, normalize, Located, RegionIndex, Shape};

/// Marks a simple region that has no blocker table entry.
pub(crate) const NO_REGION: u32 = u32::MAX;

/// One table as slices: the first entry of each region (by table-local id), the layout,
/// and the values known so far (a prefix while building).
#[derive(Clone, Copy)]
pub(crate) struct Part<'a> {
    pub offsets: &'a [u64],
    pub layout: &'a Layout,
    pub values: &'a [u8],
}

/// The simple table, and the blocker table with the map from simple region ids to blocker
/// region ids (the blocker regions are a subset of the simple ones).
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub index: &'a RegionIndex,
    pub simple: Part<'a>,
    pub blocker: Option<(Part<'a>, &'a [u32])>,
}

/// Positions in the canonical square order of the squares `sqs` of a fixed shape located at
/// `loc` (bit `i` set for the `i`-th square of the canonical region).
#[inline]
pub(crate) fn index_mask(loc: &Located, sqs: u128) -> u128 {
    let mut out = 0u128;
    let mut r = sqs;
    while r != 0 {
        let b = r.trailing_zeros();
        r &= r - 1;
        let cb = loc.image(b);
        out |= 1u128 << (loc.canon & ((1u128 << cb) - 1)).count_ones();
    }
    out
}

/// [`index_mask`] for canonical shapes within the low 64 frame bits.
#[inline]
pub(crate) fn index_mask64(loc: &Located, canon: u64, sqs: u128) -> u64 {
    let mut out = 0u64;
    let mut r = sqs;
    while r != 0 {
        let b = r.trailing_zeros();
        r &= r - 1;
        let cb = loc.image(b) & 63;
        out |= 1u64 << (canon & ((1u64 << cb) - 1)).count_ones();
    }
    out
}

impl View<'_> {
    /// Value of the region located at `loc` with `blockers` and `normals` given in the
    /// coordinates of the located (normalized, fixed) shape. `None` if not stored yet or not
    /// covered.
    #[inline]
    pub fn value_located(&self, loc: &Located, blockers: u128, normals: u128) -> Option<u32> {
        if blockers | normals == 0 {
            return Some(0);
        }
        let (part, id) = if blockers == 0 {
            (self.simple, loc.id)
        } else {
            let (p, s2b) = self.blocker?;
            let b = *s2b.get(loc.id as usize)?;
            if b == NO_REGION {
                return None;
            }
            (p, b)
        };
        let n = loc.canon.count_ones();
        let e = if loc.canon >> 64 == 0 {
            let c = loc.canon as u64;
            let (bm, qm) = (
                index_mask64(loc, c, blockers),
                index_mask64(loc, c, normals),
            );
            part.layout.entry64(n, bm, qm)?
        } else {
            part.layout
                .entry(n, index_mask(loc, blockers), index_mask(loc, normals))?
        };
        let at = part.offsets.get(id as usize)? + e;
        part.values.get(at as usize).map(|&v| v as u32)
    }

    /// Value of `region` (frame squares, any translation) with `blockers` and `normals`
    /// (subsets of it): the sum over its 8-connected parts. `None` if some part with queens
    /// is not covered.
    pub fn value(&self, region: Shape, blockers: u128, normals: u128) -> Option<u32> {
        if (blockers | normals) & !region != 0 || blockers & normals != 0 {
            return None;
        }
        if blockers | normals == 0 {
            return Some(0);
        }
        let (f, shift) = normalize(region);
        if let Some(loc) = self.index.locate(f) {
            return self.value_located(&loc, blockers >> shift, normals >> shift);
        }
        let comps = components(region);
        if comps.len() <= 1 {
            return None;
        }
        let mut sum = 0;
        for c in comps {
            if (blockers | normals) & c != 0 {
                sum += self.value(c, blockers & c, normals & c)?;
            }
        }
        Some(sum)
    }
}
