//! Perfect entry indexing: queen placements ranked in colexicographic order within a region.
//!
//! The entries of one region of `n` squares are split into groups `(b, q)`: `b` blockers and
//! `q` normal queens. Simple tables hold the groups `(0, 1..=K)`, blocker tables the groups
//! `b >= 1, q >= 0, b + q <= K`. Within a group, the entry is
//! `rank(blocker indices) * C(n - b, q) + rank(normal indices among the non-blockers)`, where
//! the index of a square is its position in the region's ascending square order and `rank`
//! is the colex rank of a subset (the order of increasing bit masks).

/// Largest number of queens (blockers included) a table may hold.
pub const MAX_QUEENS: usize = 8;
/// Largest region (the 10x10 frame).
pub const MAX_SQUARES: usize = 100;

const fn build_binom() -> [[u64; MAX_QUEENS + 1]; MAX_SQUARES + 1] {
    let mut t = [[0u64; MAX_QUEENS + 1]; MAX_SQUARES + 1];
    let mut n = 0;
    while n <= MAX_SQUARES {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_QUEENS {
            if n > 0 {
                t[n][k] = t[n - 1][k - 1] + t[n - 1][k];
            }
            k += 1;
        }
        n += 1;
    }
    t
}
static BINOM: [[u64; MAX_QUEENS + 1]; MAX_SQUARES + 1] = build_binom();

/// `C(n, k)` for `n <= 100`, `k <= 8` (0 outside).
#[inline]
pub fn binom(n: u32, k: u32) -> u64 {
    if n as usize > MAX_SQUARES || k as usize > MAX_QUEENS {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Colex rank of the subset `mask` among subsets of the same size.
#[inline]
pub fn rank(mask: u128) -> u64 {
    rank_by(mask, binom)
}

/// [`rank`] with another table of binomial coefficients (e.g. one allowing more queens).
#[inline]
pub fn rank_by(mask: u128, binom: impl Fn(u32, u32) -> u64) -> u64 {
    let mut r = 0;
    let mut m = mask;
    let mut j = 1;
    while m != 0 {
        let i = m.trailing_zeros();
        m &= m - 1;
        r += binom(i, j);
        j += 1;
    }
    r
}

/// [`rank`] for masks within 64 bits.
#[inline]
pub fn rank64(mask: u64) -> u64 {
    rank_by(u128::from(mask), binom)
}

/// The `k`-subset of `{0..n}` with colex rank `r` (inverse of [`rank`]).
pub fn unrank(r: u64, k: u32, n: u32) -> u128 {
    unrank_by(r, k, n, binom)
}

/// [`unrank`] with another table of binomial coefficients (inverse of [`rank_by`]).
pub fn unrank_by(mut r: u64, k: u32, n: u32, binom: impl Fn(u32, u32) -> u64) -> u128 {
    let mut out = 0u128;
    let mut top = n;
    for j in (1..=k).rev() {
        let mut i = top;
        while i > 0 && binom(i - 1, j) > r {
            i -= 1;
        }
        // Largest i - 1 with C(i - 1, j) <= r.
        let pick = i.saturating_sub(1);
        out |= 1u128 << pick;
        r -= binom(pick, j);
        top = pick;
    }
    out
}

/// Removes the bits of `removed` from `mask`, packing the remaining positions down.
#[inline]
pub fn compress(mask: u128, removed: u128) -> u128 {
    let mut out = 0u128;
    let mut m = mask;
    while m != 0 {
        let i = m.trailing_zeros();
        m &= m - 1;
        let below = (removed & ((1u128 << i) - 1)).count_ones();
        out |= 1u128 << (i - below);
    }
    out
}

/// Inverse of [`compress`]: spreads the packed `mask` over the positions not in `removed`.
pub fn expand(mask: u128, removed: u128, n: u32) -> u128 {
    let mut out = 0u128;
    let mut k = 0;
    for i in 0..n {
        if removed >> i & 1 != 0 {
            continue;
        }
        if mask >> k & 1 != 0 {
            out |= 1u128 << i;
        }
        k += 1;
    }
    out
}

/// Next larger mask with the same number of bits (Gosper's hack); `None` past `n` bits.
#[inline]
pub fn next_combination(m: u128, n: u32) -> Option<u128> {
    if m == 0 {
        return None;
    }
    let c = m & m.wrapping_neg();
    let r = m.checked_add(c)?;
    let next = (((r ^ m) >> 2) / c) | r;
    (n >= 128 || next >> n == 0).then_some(next)
}

/// Which kind of table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Simple,
    Blocker,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Simple => "simple",
            Kind::Blocker => "blocker",
        }
    }
    pub(crate) fn code(self) -> u8 {
        match self {
            Kind::Simple => 1,
            Kind::Blocker => 2,
        }
    }
    pub(crate) fn from_code(c: u8) -> Option<Kind> {
        match c {
            1 => Some(Kind::Simple),
            2 => Some(Kind::Blocker),
            _ => None,
        }
    }
}

/// Entry offsets of the groups for every region size.
#[derive(Debug, Clone)]
pub struct Layout {
    pub kind: Kind,
    pub max_queens: u32,
    /// `off[n][b][q]`: first entry of group `(b, q)` within a region of `n` squares.
    off: Vec<[[u64; MAX_QUEENS + 1]; MAX_QUEENS + 1]>,
    len: Vec<u64>,
}

impl Layout {
    pub fn new(kind: Kind, max_queens: u32) -> Layout {
        let k = max_queens.min(MAX_QUEENS as u32);
        let mut off = vec![[[0u64; MAX_QUEENS + 1]; MAX_QUEENS + 1]; MAX_SQUARES + 1];
        let mut len = vec![0u64; MAX_SQUARES + 1];
        for n in 0..=MAX_SQUARES as u32 {
            let mut at = 0u64;
            for (b, q) in groups(kind, k, n) {
                off[n as usize][b as usize][q as usize] = at;
                at += binom(n, b) * binom(n - b, q);
            }
            len[n as usize] = at;
        }
        Layout {
            kind,
            max_queens: k,
            off,
            len,
        }
    }

    /// Entries of a region of `n` squares.
    #[inline]
    pub fn len(&self, n: u32) -> u64 {
        self.len.get(n as usize).copied().unwrap_or(0)
    }

    /// First entry of group `(b, q)` in a region of `n` squares.
    #[inline]
    pub fn group_offset(&self, n: u32, b: u32, q: u32) -> u64 {
        self.off[n as usize][b as usize][q as usize]
    }

    /// Whether the group `(b, q)` exists for a region of `n` squares.
    #[inline]
    pub fn has_group(&self, n: u32, b: u32, q: u32) -> bool {
        let kind_ok = match self.kind {
            Kind::Simple => b == 0 && q >= 1,
            Kind::Blocker => b >= 1,
        };
        kind_ok && b + q <= self.max_queens && b + q <= n && (n as usize) <= MAX_SQUARES
    }

    /// The first entry of the group of `b` blockers and `q` normal queens in a region of
    /// `n` squares, if the table has that group and the index masks are `disjoint`.
    #[inline]
    fn group_base(&self, n: u32, (b, q): (u32, u32), disjoint: bool) -> Option<u64> {
        (self.has_group(n, b, q) && disjoint).then(|| self.off[n as usize][b as usize][q as usize])
    }

    /// Entry within the region for blocker indices `bm` and normal-queen indices `qm`
    /// (indices are positions in the region's ascending square order).
    #[inline]
    pub fn entry(&self, n: u32, bm: u128, qm: u128) -> Option<u64> {
        let (b, q) = (bm.count_ones(), qm.count_ones());
        let base = self.group_base(n, (b, q), bm & qm == 0)?;
        if b == 0 {
            Some(base + rank(qm))
        } else {
            Some(base + rank(bm) * binom(n - b, q) + rank(compress(qm, bm)))
        }
    }

    /// [`Layout::entry`] for regions of at most 64 squares.
    #[inline]
    pub fn entry64(&self, n: u32, bm: u64, qm: u64) -> Option<u64> {
        let (b, q) = (bm.count_ones(), qm.count_ones());
        let base = self.group_base(n, (b, q), bm & qm == 0)?;
        if b == 0 {
            return Some(base + rank64(qm));
        }
        // Normal-queen indices among the non-blockers.
        let mut packed = 0u64;
        let mut m = qm;
        while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            packed |= 1u64 << (i - (bm & ((1u64 << i) - 1)).count_ones());
        }
        Some(base + rank64(bm) * binom(n - b, q) + rank64(packed))
    }

    /// Inverse of [`Layout::entry`]: the blocker and normal index masks of an entry.
    pub fn decode(&self, n: u32, e: u64) -> Option<(u128, u128)> {
        let base = |b: u32, q: u32| self.off[n as usize][b as usize][q as usize];
        let groups = groups(self.kind, self.max_queens, n);
        decode_entry(e, n, groups, base, binom, unrank)
    }
}

/// The groups `(b, q)` of a table kind for regions of `n` squares, in storage order.
pub fn groups(kind: Kind, k: u32, n: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    match kind {
        Kind::Simple => {
            for q in 1..=k.min(n) {
                v.push((0, q));
            }
        }
        Kind::Blocker => {
            for b in 1..=k.min(n) {
                for q in 0..=(k - b).min(n - b) {
                    v.push((b, q));
                }
            }
        }
    }
    v
}

/// Inverse of an entry index within a region of `n` squares: the index masks of entry `e`
/// (the first group's, then the second's among the squares the first leaves), given the
/// region's groups `(a, b)`, the first entry of each (`base`), and the table's binomial
/// and unranking.
pub(crate) fn decode_entry(
    e: u64,
    n: u32,
    groups: impl IntoIterator<Item = (u32, u32)>,
    base: impl Fn(u32, u32) -> u64,
    binom: fn(u32, u32) -> u64,
    unrank: fn(u64, u32, u32) -> u128,
) -> Option<(u128, u128)> {
    for (a, b) in groups {
        let base = base(a, b);
        let per = binom(n - a, b);
        let size = binom(n, a) * per;
        if e >= base && e < base + size {
            let i = e - base;
            let am = unrank(i / per, a, n);
            return Some((am, expand(unrank(i % per, b, n - a), am, n)));
        }
    }
    None
}

/// Iterates the `k`-subsets of `n` positions in colex (rank) order.
pub(crate) fn for_each_subset<E>(
    n: u32,
    k: u32,
    mut f: impl FnMut(u128) -> Result<(), E>,
) -> Result<(), E> {
    let mut m = (1u128 << k) - 1;
    loop {
        f(m)?;
        match next_combination(m, n) {
            Some(x) => m = x,
            None => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_is_a_bijection_in_mask_order() {
        for (n, k) in [(7u32, 3u32), (12, 4), (18, 2)] {
            let mut m = (1u128 << k) - 1;
            let mut r = 0;
            loop {
                assert_eq!(rank(m), r);
                assert_eq!(unrank(r, k, n), m);
                r += 1;
                match next_combination(m, n) {
                    Some(x) => m = x,
                    None => break,
                }
            }
            assert_eq!(r, binom(n, k));
        }
    }

    #[test]
    fn layout_decodes_what_it_encodes() {
        for kind in [Kind::Simple, Kind::Blocker] {
            let l = Layout::new(kind, 3);
            for n in 1..9u32 {
                for e in 0..l.len(n) {
                    let (bm, qm) = l.decode(n, e).expect("in range");
                    assert_eq!(l.entry(n, bm, qm), Some(e));
                }
                assert!(l.decode(n, l.len(n)).is_none());
            }
        }
    }
}
