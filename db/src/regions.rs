//! Polyking regions: 8-connected square sets in a 10x10 frame, canonical under the 8 symmetries.
//!
//! A [`Shape`] is a `u128` whose bit `y * FRAME + x` is the square at file `x`, rank `y` of a
//! 10x10 frame (the largest board, so every territory of every board fits). A shape is
//! *normalized* when its lowest file and lowest rank are 0, and *canonical* when it is the
//! numerically smallest normalized image under the eight symmetries (identity, reflections,
//! rotations). [`RegionIndex`] maps every normalized image of every stored region to the
//! region's id and the symmetry taking the image back to the canonical orientation, in an
//! open-addressing table, so a query never scans.

use std::collections::HashSet;

/// Side of the square frame (bit `y * FRAME + x`).
pub const FRAME: u32 = 10;
/// All squares of the frame.
pub const FRAME_ALL: u128 = (1u128 << (FRAME * FRAME)) - 1;
const ROW: u128 = (1u128 << FRAME) - 1;

/// A square set in the frame.
pub type Shape = u128;

const fn column(x: u32) -> u128 {
    let mut m = 0u128;
    let mut y = 0;
    while y < FRAME {
        m |= 1u128 << (y * FRAME + x);
        y += 1;
    }
    m
}
const NOT_FIRST: u128 = FRAME_ALL & !column(0);
const NOT_LAST: u128 = FRAME_ALL & !column(FRAME - 1);

/// The single square at file `x`, rank `y`.
#[inline]
pub fn bit(x: u32, y: u32) -> u128 {
    1u128 << (y * FRAME + x)
}

/// Bit `x` set when some square of `s` lies on file `x`.
#[inline]
pub fn columns(s: Shape) -> u32 {
    let mut t = s;
    let mut c = 0u128;
    while t != 0 {
        c |= t & ROW;
        t >>= FRAME;
    }
    c as u32
}

/// Translates `s` so that its lowest file and rank are 0; returns the shape and the shift
/// in bits (`s >> shift` is the normalized shape, for `s` and every subset of it).
#[inline]
pub fn normalize(s: Shape) -> (Shape, u32) {
    if s == 0 {
        return (0, 0);
    }
    let miny = s.trailing_zeros() / FRAME;
    let t = s >> (miny * FRAME);
    let minx = columns(t).trailing_zeros();
    (t >> minx, miny * FRAME + minx)
}

/// Width and height of the bounding rectangle of a normalized shape.
#[inline]
pub fn dims(s: Shape) -> (u32, u32) {
    if s == 0 {
        return (0, 0);
    }
    let w = 32 - columns(s).leading_zeros();
    let h = (127 - s.leading_zeros()) / FRAME + 1;
    (w, h)
}

/// Symmetry `t` (bit 0 mirrors files, bit 1 mirrors ranks, bit 2 then swaps the axes) of the
/// point `(x, y)` of a `w` x `h` rectangle; the image lies in the `h` x `w` rectangle when
/// the axes are swapped.
#[inline]
pub fn transform_point(t: u8, x: u32, y: u32, w: u32, h: u32) -> (u32, u32) {
    let x = if t & 1 != 0 { w - 1 - x } else { x };
    let y = if t & 2 != 0 { h - 1 - y } else { y };
    if t & 4 != 0 {
        (y, x)
    } else {
        (x, y)
    }
}

/// Image of a normalized shape under symmetry `t` (normalized again).
pub fn transform(s: Shape, t: u8) -> Shape {
    let (w, h) = dims(s);
    let mut out = 0u128;
    let mut r = s;
    while r != 0 {
        let b = r.trailing_zeros();
        r &= r - 1;
        let (x, y) = transform_point(t, b % FRAME, b / FRAME, w, h);
        out |= bit(x, y);
    }
    out
}

/// The canonical form of `s` (any translation): the smallest of its eight normalized images.
pub fn canonical(s: Shape) -> Shape {
    let (n, _) = normalize(s);
    (0..8u8).map(|t| transform(n, t)).min().unwrap_or(n)
}

/// Number of distinct fixed (translation-normalized) orientations of `s`.
pub fn orientations(s: Shape) -> usize {
    let (n, _) = normalize(s);
    let set: HashSet<Shape> = (0..8u8).map(|t| transform(n, t)).collect();
    set.len()
}

/// `b` plus its eight-neighbourhood, within the frame.
#[inline]
pub fn dilate(b: u128) -> u128 {
    let row = b | ((b & NOT_LAST) << 1) | ((b & NOT_FIRST) >> 1);
    (row | (row << FRAME) | (row >> FRAME)) & FRAME_ALL
}

/// The squares of `within` 8-connected to `seed` (seed included).
#[inline]
pub fn flood(seed: u128, within: u128) -> u128 {
    let mut r = seed & within;
    loop {
        let next = r | (dilate(r) & within);
        if next == r {
            return r;
        }
        r = next;
    }
}

/// Whether `s` is non-empty and 8-connected.
pub fn is_connected(s: Shape) -> bool {
    s != 0 && flood(s & s.wrapping_neg(), s) == s
}

/// The 8-connected components of `s`, ordered by their lowest square.
pub fn components(s: Shape) -> Vec<Shape> {
    let mut out = Vec::new();
    let mut rest = s;
    while rest != 0 {
        let c = flood(rest & rest.wrapping_neg(), rest);
        out.push(c);
        rest &= !c;
    }
    out
}

/// Which regions a set holds: every polyking of at most `max_size` squares, plus every one
/// whose bounding rectangle fits `rect` (short side, long side) in some orientation. Both
/// conditions are closed under taking connected subsets, so a database over such a set
/// holds every position its moves lead to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegionSpec {
    pub max_size: u8,
    /// `(short, long)`; `(0, 0)` for none.
    pub rect: (u8, u8),
}

impl RegionSpec {
    /// Whether a region of `size` squares with a `w` x `h` bounding rectangle belongs.
    pub fn admits(&self, size: u32, w: u32, h: u32) -> bool {
        let (a, b) = (
            self.rect.0.min(self.rect.1) as u32,
            self.rect.0.max(self.rect.1) as u32,
        );
        size <= self.max_size as u32 || (w.min(h) <= a && w.max(h) <= b)
    }

    /// Upper bound on the size of an admitted region.
    pub fn largest(&self) -> u32 {
        (self.max_size as u32).max(self.rect.0 as u32 * self.rect.1 as u32)
    }

    /// Whether every region this spec admits is admitted by `other` (a sufficient test).
    pub fn within(&self, other: &RegionSpec) -> bool {
        let (a, b) = (self.rect.0.min(self.rect.1), self.rect.0.max(self.rect.1));
        let (c, d) = (
            other.rect.0.min(other.rect.1),
            other.rect.0.max(other.rect.1),
        );
        let rect_ok =
            a == 0 || (a <= c && b <= d) || (a as u32 * b as u32) <= other.max_size as u32;
        self.max_size <= other.max_size && rect_ok
    }
}

/// All admitted regions, canonical, sorted by size and then by key. Grows size `n` from size
/// `n - 1` (every connected set has a square whose removal leaves it connected).
pub fn enumerate(spec: RegionSpec) -> Vec<Shape> {
    let mut all = Vec::new();
    if spec.largest() == 0 || !spec.admits(1, 1, 1) {
        return all;
    }
    let mut level: Vec<Shape> = vec![1];
    all.extend_from_slice(&level);
    for n in 2..=spec.largest() {
        let mut next: HashSet<Shape> = HashSet::new();
        for &s in &level {
            let (w, h) = dims(s);
            let pts: Vec<(i32, i32)> = squares(s)
                .map(|b| ((b % FRAME) as i32, (b / FRAME) as i32))
                .collect();
            let mut tried: u128 = 0;
            for &(x, y) in &pts {
                for dy in -1..=1 {
                    for dx in -1..=1 {
                        let (nx, ny) = (x + dx, y + dy);
                        let inside = nx >= 0 && ny >= 0 && nx < FRAME as i32 && ny < FRAME as i32;
                        if inside && (s | tried) & bit(nx as u32, ny as u32) != 0 {
                            continue;
                        }
                        if inside {
                            tried |= bit(nx as u32, ny as u32);
                        }
                        let (ox, oy) = ((-nx).max(0), (-ny).max(0));
                        let nw = (w as i32 - 1).max(nx) + ox + 1;
                        let nh = (h as i32 - 1).max(ny) + oy + 1;
                        if nw > FRAME as i32
                            || nh > FRAME as i32
                            || !spec.admits(n, nw as u32, nh as u32)
                        {
                            continue;
                        }
                        let mut t = 0u128;
                        for &(px, py) in pts.iter().chain(std::iter::once(&(nx, ny))) {
                            t |= bit((px + ox) as u32, (py + oy) as u32);
                        }
                        next.insert(canonical(t));
                    }
                }
            }
        }
        let mut v: Vec<Shape> = next.into_iter().collect();
        v.sort_unstable();
        all.extend_from_slice(&v);
        level = v;
    }
    all
}

/// The number of regions of each size, `(size, count)`, in `shapes` sorted by size.
pub fn sizes(shapes: &[Shape]) -> Vec<(u32, usize)> {
    let mut v: Vec<(u32, usize)> = Vec::new();
    for s in shapes {
        let n = s.count_ones();
        match v.last_mut() {
            Some((m, c)) if *m == n => *c += 1,
            _ => v.push((n, 1)),
        }
    }
    v
}

/// The squares (bit indices) of `s`, ascending.
#[inline]
pub fn squares(s: Shape) -> impl Iterator<Item = u32> {
    let mut r = s;
    std::iter::from_fn(move || {
        if r == 0 {
            None
        } else {
            let b = r.trailing_zeros();
            r &= r - 1;
            Some(b)
        }
    })
}

/// Where a fixed shape sits in the database: the region id, its canonical shape, and the
/// symmetry taking the fixed shape (of size `w` x `h`) onto the canonical one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located {
    pub id: u32,
    pub canon: Shape,
    pub t: u8,
    pub w: u8,
    pub h: u8,
    /// The frame bit of the canonical image of the fixed square `(x, y)` is
    /// `c0 + AFFINE[t].0 * x + AFFINE[t].1 * y` (see [`Located::image`]).
    pub c0: u8,
}

/// Per symmetry: the change of the canonical frame bit per step in x and in y.
pub const AFFINE: [(i32, i32); 8] = {
    let mut t = [(0i32, 0i32); 8];
    let mut i = 0;
    while i < 8 {
        let sx = if i & 1 != 0 { -1 } else { 1 };
        let sy = if i & 2 != 0 { -1 } else { 1 };
        t[i] = if i & 4 != 0 {
            (FRAME as i32 * sx, sy)
        } else {
            (sx, FRAME as i32 * sy)
        };
        i += 1;
    }
    t
};

impl Located {
    /// Canonical frame bit of the fixed frame bit `b` (branch-free form of
    /// [`transform_point`]).
    #[inline]
    pub fn image(&self, b: u32) -> u32 {
        let (ax, ay) = AFFINE[(self.t & 7) as usize];
        (self.c0 as i32 + ax * (b % FRAME) as i32 + ay * (b / FRAME) as i32) as u32
    }
}

/// Largest number of regions an index can hold (ids are packed into 28 bits).
pub const MAX_REGIONS: usize = 1 << 28;

/// One 32-byte slot (half a cache line): the fixed shape with the region id in its top
/// bits, and the canonical shape with the symmetry and the fixed shape's size in its top
/// bits. Everything a query needs comes from this one memory access.
#[derive(Debug, Clone, Copy, Default)]
#[repr(align(32))]
struct Slot {
    key: u128,
    meta: u128,
}

/// Open-addressing map (linear probing, load <= 2/3) from every fixed orientation of every
/// region to [`Located`].
#[derive(Debug, Clone)]
pub struct RegionIndex {
    shapes: Vec<Shape>,
    slots: Vec<Slot>,
    mask: usize,
}

#[inline]
fn slot(k: u128, mask: usize) -> usize {
    let x = (k as u64) ^ ((k >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let x = (x ^ (x >> 31)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (x ^ (x >> 32)) as usize & mask
}

impl RegionIndex {
    /// Indexes canonical `shapes` (region id = position in the list; at most
    /// [`MAX_REGIONS`], further ones are not indexed).
    pub fn new(mut shapes: Vec<Shape>) -> RegionIndex {
        shapes.truncate(MAX_REGIONS - 1);
        let cap = (shapes.len() * 8 * 3 / 2).next_power_of_two().max(16);
        let mut idx = RegionIndex {
            shapes,
            slots: vec![Slot::default(); cap],
            mask: cap - 1,
        };
        for id in 0..idx.shapes.len() {
            let c = idx.shapes[id];
            for t in 0..8u8 {
                let f = transform(c, t);
                let Some(u) = (0..8u8).find(|&u| transform(f, u) == c) else {
                    continue;
                };
                let (w, h) = dims(f);
                let (x0, y0) = transform_point(u, 0, 0, w, h);
                let c0 = y0 * FRAME + x0;
                let key = f | (id as u128) << 100;
                let meta = c
                    | (u as u128) << 100
                    | (w as u128) << 104
                    | (h as u128) << 108
                    | (c0 as u128) << 112;
                let mut i = slot(f, idx.mask);
                while idx.slots[i].key != 0 && idx.slots[i].key & FRAME_ALL != f {
                    i = (i + 1) & idx.mask;
                }
                idx.slots[i] = Slot { key, meta };
            }
        }
        idx
    }

    /// The canonical regions, by id.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// Finds a normalized fixed shape.
    #[inline]
    pub fn locate(&self, f: Shape) -> Option<Located> {
        if f == 0 || f & !FRAME_ALL != 0 {
            return None;
        }
        let mut i = slot(f, self.mask);
        loop {
            let s = self.slots[i];
            if s.key & FRAME_ALL == f {
                return Some(Located {
                    id: (s.key >> 100) as u32,
                    canon: s.meta & FRAME_ALL,
                    t: (s.meta >> 100) as u8 & 7,
                    w: (s.meta >> 104) as u8 & 15,
                    h: (s.meta >> 108) as u8 & 15,
                    c0: (s.meta >> 112) as u8 & 127,
                });
            }
            if s.key == 0 {
                return None;
            }
            i = (i + 1) & self.mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_size(v: &[Shape], max: u32) -> Vec<usize> {
        (1..=max)
            .map(|n| v.iter().filter(|s| s.count_ones() == n).count())
            .collect()
    }

    /// Free and fixed polyking counts for sizes 1..7 (seed 001, Müller & Tegos 2002).
    #[test]
    fn polyking_counts_match_known_table() {
        let v = enumerate(RegionSpec {
            max_size: 7,
            rect: (0, 0),
        });
        assert_eq!(by_size(&v, 7), [1, 2, 5, 22, 94, 524, 3031]);
        let fixed: Vec<usize> = (1..=7)
            .map(|n| {
                v.iter()
                    .filter(|s| s.count_ones() == n)
                    .map(|&s| orientations(s))
                    .sum()
            })
            .collect();
        assert_eq!(fixed, [1, 4, 20, 110, 638, 3832, 23592]);
        assert_eq!(v.len(), 3679);
        assert_eq!(fixed.iter().sum::<usize>(), 28197);
    }

    /// Connected subsets of the 3x6 rectangle up to symmetry (checked against an independent
    /// brute force over all 2^18 subsets, done once in Python: 25096).
    #[test]
    fn rectangle_regions_are_complete() {
        let v = enumerate(RegionSpec {
            max_size: 0,
            rect: (3, 6),
        });
        assert_eq!(v.len(), 25096);
        // Brute force for 2x5: every subset of the rectangle, canonicalized.
        let mut set = HashSet::new();
        for m in 1u32..(1 << 10) {
            let mut s = 0u128;
            for i in 0..10 {
                if m >> i & 1 != 0 {
                    s |= bit(i % 2, i / 2);
                }
            }
            if is_connected(s) {
                set.insert(canonical(s));
            }
        }
        let v25 = enumerate(RegionSpec {
            max_size: 0,
            rect: (2, 5),
        });
        assert_eq!(v25.len(), set.len());
        assert!(v25.iter().all(|s| set.contains(s)));
    }

    #[test]
    fn index_finds_every_orientation() {
        let v = enumerate(RegionSpec {
            max_size: 5,
            rect: (0, 0),
        });
        let idx = RegionIndex::new(v.clone());
        for (id, &c) in v.iter().enumerate() {
            for t in 0..8 {
                let f = transform(c, t);
                let loc = idx.locate(f).expect("orientation indexed");
                assert_eq!(loc.id as usize, id);
                assert_eq!(transform(f, loc.t), c);
                for b in squares(f) {
                    let (x, y) =
                        transform_point(loc.t, b % FRAME, b / FRAME, loc.w as u32, loc.h as u32);
                    assert_eq!(loc.image(b), y * FRAME + x);
                }
            }
        }
        assert!(idx.locate(0b101).is_none(), "disconnected shape is absent");
    }
}
