//! The perfect index of an active table: the positions of each region in colex order of their queen sets.

use super::MAX_AREA;
use crate::index::compress;

const NB: usize = MAX_AREA as usize + 1;

const fn build_binom() -> [[u64; NB]; NB] {
    let mut t = [[0u64; NB]; NB];
    let mut n = 0;
    while n < NB {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + t[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    t
}
static BINOM: [[u64; NB]; NB] = build_binom();

#[inline]
pub(super) fn binom(n: u32, k: u32) -> u64 {
    if n as usize >= NB || k > n {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// Colex rank of a subset of `{0..MAX_AREA}`.
#[inline]
fn rank(mask: u128) -> u64 {
    crate::index::rank_by(mask, binom)
}

/// The `k`-subset of `{0..n}` with colex rank `r`.
fn unrank(r: u64, k: u32, n: u32) -> u128 {
    crate::index::unrank_by(r, k, n, binom)
}

/// Perfect index of the positions of a region of `n` squares with at most `cap` queens of
/// each colour: groups `(b, w)` (Black, White queen counts, `b + w >= 1`) in the order
/// `b = 0..=cap`, `w = 0..=cap`; within a group
/// `rank(black indices) * C(n - b, w) + rank(white indices among the non-Black squares)`.
#[derive(Debug, Clone)]
pub struct ActiveLayout {
    /// `off[cap][n][b][w]`, for the caps in use (`caps[i]` is the cap of `off[i]`).
    pub(super) caps: Vec<u32>,
    off: Vec<Vec<[[u64; NB]; NB]>>,
    len: Vec<Vec<u64>>,
}

/// The groups `(b, w)` of a region of `n` squares with cap `cap`, in storage order.
pub fn active_groups(n: u32, cap: u32) -> Vec<(u32, u32)> {
    let mut v = Vec::new();
    for b in 0..=cap.min(n) {
        for w in 0..=cap.min(n - b) {
            if b + w >= 1 {
                v.push((b, w));
            }
        }
    }
    v
}

impl ActiveLayout {
    pub(super) fn new(mut caps: Vec<u32>) -> ActiveLayout {
        caps.sort_unstable();
        caps.dedup();
        let mut off = Vec::new();
        let mut len = Vec::new();
        for &cap in &caps {
            let mut o = vec![[[0u64; NB]; NB]; NB];
            let mut l = vec![0u64; NB];
            for n in 0..NB as u32 {
                let mut at = 0u64;
                for (b, w) in active_groups(n, cap) {
                    o[n as usize][b as usize][w as usize] = at;
                    at += binom(n, b) * binom(n - b, w);
                }
                l[n as usize] = at;
            }
            off.push(o);
            len.push(l);
        }
        ActiveLayout { caps, off, len }
    }

    #[inline]
    pub(super) fn cap_index(&self, cap: u32) -> Option<usize> {
        self.caps.iter().position(|&c| c == cap)
    }

    /// Entries of a region of `n` squares with cap index `ci`.
    #[inline]
    pub(super) fn region_len(&self, ci: usize, n: u32) -> u64 {
        self.len[ci][n as usize]
    }

    /// The first entry of the group of `b` Black and `w` White queens in a region of `n`
    /// squares with queen cap `ci`, if there is such a group and the queens' index masks
    /// are `disjoint`.
    #[inline]
    fn group_base(&self, ci: usize, n: u32, (b, w): (u32, u32), disjoint: bool) -> Option<u64> {
        let cap = self.caps[ci];
        if b > cap || w > cap || b + w == 0 || b + w > n || !disjoint || n as usize >= NB {
            return None;
        }
        Some(self.off[ci][n as usize][b as usize][w as usize])
    }

    /// The entry of Black index mask `bm` and White index mask `wm` within its region.
    #[inline]
    pub(super) fn entry(&self, ci: usize, n: u32, bm: u128, wm: u128) -> Option<u64> {
        let (b, w) = (bm.count_ones(), wm.count_ones());
        let base = self.group_base(ci, n, (b, w), bm & wm == 0)?;
        Some(base + rank(bm) * binom(n - b, w) + rank(compress(wm, bm)))
    }

    /// [`ActiveLayout::entry`] on 32-bit index masks (the build's hot path).
    #[inline]
    pub(super) fn entry32(&self, ci: usize, n: u32, bm: u32, wm: u32) -> Option<u64> {
        let (b, w) = (bm.count_ones(), wm.count_ones());
        let base = self.group_base(ci, n, (b, w), bm & wm == 0)?;
        // Colex ranks; White's indices among the non-Black squares.
        let (mut rb, mut rw) = (0u64, 0u64);
        let (mut m, mut j) = (bm, 1usize);
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            rb += BINOM[i][j.min(i)] * (j <= i) as u64;
            j += 1;
        }
        let (mut m, mut j) = (wm, 1usize);
        while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            let k = (i - (bm & ((1u32 << i) - 1)).count_ones()) as usize;
            rw += BINOM[k][j.min(k)] * (j <= k) as u64;
            j += 1;
        }
        Some(base + rb * binom(n - b, w) + rw)
    }

    /// Inverse of [`ActiveLayout::entry`].
    pub(super) fn decode(&self, ci: usize, n: u32, e: u64) -> Option<(u128, u128)> {
        let base = |b: u32, w: u32| self.off[ci][n as usize][b as usize][w as usize];
        let groups = active_groups(n, self.caps[ci]);
        crate::index::decode_entry(e, n, groups, base, binom, unrank)
    }
}
