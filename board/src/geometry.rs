//! Per-board tables: ray masks, magic attack tables, neighbour shifts and Zobrist keys.

use crate::bitboard::Bb;
use amazons_format::Board;

/// A position's Zobrist key. 128 bits: the transposition table takes its bucket from the
/// high half and compares 48 bits of the low half, so keys that share a bucket are still
/// told apart by bits the bucket index did not use (see `tt`).
pub type Key = u128;

/// Direction steps (dx, dy). The first four increase the square index, the last four
/// decrease it.
const DIRS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (-1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// The squares reached along the eight `rays` of a square (as words of type `$w`) with
/// `occ` occupied; `$ray(b, d)` is the ray from square `b` in direction `d`. Directions
/// 0..4 increase the index, so the nearest blocker is the lowest bit; 4..8 the highest.
macro_rules! slide {
    ($rays:expr, $occ:expr, $ray:expr, $w:ty) => {{
        let (rays, occ, ray_from): ([$w; 8], $w, _) = ($rays, $occ, $ray);
        let mut out: $w = 0;
        for (d, &ray) in rays.iter().enumerate() {
            let block = ray & occ;
            out |= if block == 0 {
                ray
            } else {
                let b = if d < 4 {
                    block.trailing_zeros() as usize
                } else {
                    (<$w>::BITS - 1 - block.leading_zeros()) as usize
                };
                ray & !ray_from(b, d) & !((1 as $w) << b)
            };
        }
        out
    }};
}

/// Queen attacks on a board of at most 64 squares by table lookup (magic bitboards): per
/// square, one table for the four orthogonal rays and one for the four diagonal ones. A
/// table is indexed by `((occ & mask) * magic) >> shift`, where `mask` holds the squares
/// of its rays without their far ends (nothing lies behind them, so they block nothing),
/// and `magic` is a number found at start-up that sends every subset of `mask` with
/// different attacks to different indices. An occupied far end is removed after the
/// lookup.
#[derive(Debug, Clone)]
struct MagicTables {
    /// Per square, orthogonal then diagonal: `(mask, magic, shift, offset into table)`.
    entries: Vec<[(u64, u64, u32, usize); 2]>,
    table: Vec<u64>,
}

impl MagicTables {
    /// The tables of `board`, built once per process.
    fn shared(rays64: &[[u64; 8]], board: Board) -> std::sync::Arc<MagicTables> {
        use std::collections::HashMap;
        use std::sync::{Arc, Mutex, OnceLock};
        type Cache = Mutex<HashMap<(u8, u8), Arc<MagicTables>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        let key = (board.width, board.height);
        if let Some(t) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return t;
        }
        let t = Arc::new(MagicTables::new(rays64, board.width as i32));
        if let Ok(mut c) = cache.lock() {
            c.insert(key, t.clone());
        }
        t
    }

    fn new(rays64: &[[u64; 8]], width: i32) -> MagicTables {
        // The ray square farthest from `sq` (rays are straight lines).
        let far_end = |sq: usize, ray: u64| {
            let (sx, sy) = (sq as i32 % width, sq as i32 / width);
            let mut best = (-1, 0u64);
            let mut r = ray;
            while r != 0 {
                let b = r.trailing_zeros() as i32;
                let d = (b % width - sx).abs().max((b / width - sy).abs());
                if d > best.0 {
                    best = (d, 1 << b);
                }
                r &= r - 1;
            }
            best.1
        };
        let mut seed = 0x4D41_4749_4321_u64 ^ (rays64.len() as u64) << 32 ^ width as u64;
        let mut entries = Vec::with_capacity(rays64.len());
        let mut table = Vec::new();
        for (sq, rays) in rays64.iter().enumerate() {
            let mut e = [(0, 0, 0, 0); 2];
            for (kind, dirs) in [[0usize, 2, 4, 6], [1, 3, 5, 7]].iter().enumerate() {
                let mask = dirs
                    .iter()
                    .fold(0, |acc, &d| acc | (rays[d] & !far_end(sq, rays[d])));
                // Every subset of the mask (carry-rippler) with its attacks along the
                // group's rays (the other group's rays emptied).
                let group: [u64; 8] =
                    std::array::from_fn(|d| if dirs.contains(&d) { rays[d] } else { 0 });
                let mut subsets = Vec::new();
                let mut sub = 0u64;
                loop {
                    let att = slide!(group, sub, |b: usize, d: usize| rays64[b][d], u64);
                    subsets.push((sub, att));
                    sub = sub.wrapping_sub(mask) & mask;
                    if sub == 0 {
                        break;
                    }
                }
                // One index bit per mask bit; a spare bit more after many misses. Slots
                // are stamped with the try that filled them, so a miss clears nothing.
                let mut bits = mask.count_ones().max(1);
                let mut slots = vec![(0u32, 0u64); 1 << bits];
                let mut tries = 0u32;
                let (magic, shift) = loop {
                    tries += 1;
                    if tries.is_multiple_of(20_000) && bits < mask.count_ones() + 2 {
                        bits += 1;
                        slots = vec![(0, 0); 1 << bits];
                    }
                    let shift = 64 - bits;
                    // Sparse random candidates find magics fastest.
                    let m = splitmix(&mut seed) & splitmix(&mut seed) & splitmix(&mut seed);
                    let ok = subsets.iter().all(|&(sub, att)| {
                        let slot = &mut slots[(sub.wrapping_mul(m) >> shift) as usize];
                        if slot.0 != tries {
                            *slot = (tries, att);
                            true
                        } else {
                            slot.1 == att
                        }
                    });
                    if ok {
                        break (m, shift);
                    }
                };
                e[kind] = (mask, magic, shift, table.len());
                table.extend(
                    slots
                        .iter()
                        .map(|&(t, att)| if t == tries { att } else { 0 }),
                );
            }
            entries.push(e);
        }
        MagicTables { entries, table }
    }

    #[inline]
    fn attacks(&self, sq: u8, occ: u64) -> u64 {
        let [(m0, g0, s0, o0), (m1, g1, s1, o1)] = self.entries[sq as usize];
        (self.table[o0 + ((occ & m0).wrapping_mul(g0) >> s0) as usize]
            | self.table[o1 + ((occ & m1).wrapping_mul(g1) >> s1) as usize])
            & !occ
    }
}

/// Precomputed tables for one board size.
#[derive(Debug, Clone)]
pub struct Geometry {
    pub board: Board,
    pub width: u32,
    pub len: u32,
    /// All squares of the board.
    pub all: Bb,
    not_first_file: Bb,
    not_last_file: Bb,
    /// `rays[sq][dir]`: the squares from `sq` (exclusive) to the edge in `dir` (one
    /// cache-friendly row per square).
    rays: Vec<[Bb; 8]>,
    /// `neighbours[sq]`: the squares 8-adjacent to `sq` (read on every step of a plodding
    /// line, where shifting a 128-bit set each time cost more than the rest of the step).
    neighbours: Vec<Bb>,
    /// Attack tables for boards of at most 64 squares (shared by every geometry of the
    /// board size: finding the magics takes up to half a second on 8x8).
    magic: Option<std::sync::Arc<MagicTables>>,
    /// Zobrist keys: `[sq][0]` White queen, `[sq][1]` Black queen, `[sq][2]` arrow.
    zobrist: Vec<[Key; 3]>,
    pub zobrist_black_to_move: Key,
}

/// Two [`splitmix`] draws as one 128-bit Zobrist key.
fn splitmix128(state: &mut u64) -> Key {
    let hi = splitmix(state);
    (hi as Key) << 64 | splitmix(state) as Key
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Geometry {
    pub fn new(board: Board) -> Geometry {
        let (w, h) = (board.width as i32, board.height as i32);
        let len = (w * h) as u32;
        let mut all = Bb::EMPTY;
        let mut first = Bb::EMPTY;
        let mut last = Bb::EMPTY;
        for y in 0..h {
            for x in 0..w {
                let sq = board.square(x as usize, y as usize);
                all |= Bb::from_square(sq);
                if x == 0 {
                    first |= Bb::from_square(sq);
                }
                if x == w - 1 {
                    last |= Bb::from_square(sq);
                }
            }
        }
        let rays = (0..len)
            .map(|sq| {
                std::array::from_fn(|d| {
                    let (dx, dy) = DIRS[d];
                    let (mut x, mut y) = ((sq as i32) % w, (sq as i32) / w);
                    let mut ray = Bb::EMPTY;
                    loop {
                        x += dx;
                        y += dy;
                        if x < 0 || y < 0 || x >= w || y >= h {
                            break;
                        }
                        ray |= Bb::from_square((y * w + x) as u8);
                    }
                    ray
                })
            })
            .collect::<Vec<[Bb; 8]>>();
        let magic = (len <= 64).then(|| {
            let rays64: Vec<[u64; 8]> = rays
                .iter()
                .map(|r| std::array::from_fn(|d| r[d].0 as u64))
                .collect();
            MagicTables::shared(&rays64, board)
        });
        let mut seed = 0x5EED_A3A2_0115_u64 ^ ((w as u64) << 8 | h as u64);
        let zobrist = (0..len)
            .map(|_| {
                [
                    splitmix128(&mut seed),
                    splitmix128(&mut seed),
                    splitmix128(&mut seed),
                ]
            })
            .collect();
        let mut geometry = Geometry {
            board,
            width: w as u32,
            len,
            all,
            not_first_file: all - first,
            not_last_file: all - last,
            rays,
            neighbours: Vec::new(),
            magic,
            zobrist,
            zobrist_black_to_move: splitmix128(&mut seed),
        };
        geometry.neighbours = (0..len as u8)
            .map(|sq| {
                let b = Bb::from_square(sq);
                geometry.dilate(b) - b
            })
            .collect();
        geometry
    }

    /// Squares a queen on `sq` reaches, with `occ` the occupied squares.
    #[inline]
    pub fn queen_attacks(&self, sq: u8, occ: Bb) -> Bb {
        match &self.magic {
            Some(t) => Bb(u128::from(t.attacks(sq, occ.0 as u64))),
            None => self.walk_attacks(sq, occ),
        }
    }

    /// [`Self::queen_attacks`] by walking the rays (boards of more than 64 squares).
    fn walk_attacks(&self, sq: u8, occ: Bb) -> Bb {
        let rays: [u128; 8] = std::array::from_fn(|d| self.rays[sq as usize][d].0);
        Bb(slide!(
            rays,
            occ.0,
            |b: usize, d: usize| self.rays[b][d].0,
            u128
        ))
    }

    /// The set plus its eight-neighbourhood, within the board.
    #[inline]
    pub fn dilate(&self, b: Bb) -> Bb {
        let row = b | Bb((b & self.not_last_file).0 << 1) | Bb((b & self.not_first_file).0 >> 1);
        (row | Bb(row.0 << self.width) | Bb(row.0 >> self.width)) & self.all
    }

    /// The squares 8-adjacent to `sq`.
    #[inline]
    pub fn neighbours(&self, sq: u8) -> Bb {
        self.neighbours[usize::from(sq)]
    }

    /// Flood fill: the squares of `within` 8-connected to `seeds` (seeds included).
    #[inline]
    pub fn flood(&self, seeds: Bb, within: Bb) -> Bb {
        let mut r = seeds;
        loop {
            let next = r | (self.dilate(r) & within);
            if next == r {
                return r;
            }
            r = next;
        }
    }

    #[inline]
    pub fn zobrist(&self, sq: u8, piece: usize) -> Key {
        self.zobrist[sq as usize][piece]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The magic tables give the attacks of walking the rays, for every square of every
    /// board of 1 to 64 squares (sides 1 to 10), with random and edge-case occupancies.
    #[test]
    fn magic_tables_agree_with_walking_the_rays() {
        let mut seed = 7u64;
        let mut boards = 0;
        for w in 1..=10u8 {
            for h in 1..=10u8 {
                if (w as u32) * (h as u32) > 64 {
                    continue;
                }
                boards += 1;
                let g = Geometry::new(Board {
                    width: w,
                    height: h,
                });
                let magic = g.magic.as_ref().expect("tables for at most 64 squares");
                let all = g.all.0 as u64;
                for sq in 0..g.len as u8 {
                    for k in 0..200 {
                        let occ = match k {
                            0 => 0,
                            1 => all,
                            _ => splitmix(&mut seed) & splitmix(&mut seed) & all,
                        };
                        let walked = g.walk_attacks(sq, Bb(u128::from(occ)));
                        assert_eq!(
                            u128::from(magic.attacks(sq, occ)),
                            walked.0,
                            "{w}x{h} square {sq}"
                        );
                    }
                }
            }
        }
        assert!(boards > 50);
        // Larger boards walk the rays.
        let g = Geometry::new(Board {
            width: 10,
            height: 10,
        });
        assert!(g.magic.is_none());
    }

    /// The table of neighbours holds, for every square of every board of sides 1 to 10,
    /// exactly the squares a king's step away (by coordinates, not by shifting sets).
    #[test]
    fn neighbours_are_the_squares_a_kings_step_away() {
        for w in 1..=10u8 {
            for h in 1..=10u8 {
                let board = Board {
                    width: w,
                    height: h,
                };
                let g = Geometry::new(board);
                for sq in 0..g.len as u8 {
                    let (x, y) = (i32::from(sq) % i32::from(w), i32::from(sq) / i32::from(w));
                    let mut expected = Bb::EMPTY;
                    for (dx, dy) in DIRS {
                        let (nx, ny) = (x + dx, y + dy);
                        if (0..i32::from(w)).contains(&nx) && (0..i32::from(h)).contains(&ny) {
                            expected |= Bb::from_square((ny * i32::from(w) + nx) as u8);
                        }
                    }
                    assert_eq!(g.neighbours(sq), expected, "{w}x{h} square {sq}");
                }
            }
        }
    }
}
