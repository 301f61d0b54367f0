//! Per-board tables: ray masks, neighbour shifts and Zobrist keys.

use crate::bitboard::Bb;
use amazons_format::Board;

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
    /// The same rays as 64-bit words, for boards of at most 64 squares (empty otherwise):
    /// every board of the paper's table fits, and 64-bit operations are about twice as
    /// fast as 128-bit ones here.
    rays64: Vec<[u64; 8]>,
    /// Zobrist keys: `[sq][0]` White queen, `[sq][1]` Black queen, `[sq][2]` arrow.
    zobrist: Vec<[u64; 3]>,
    pub zobrist_black_to_move: u64,
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
        let rays64 = if len <= 64 {
            rays.iter()
                .map(|r| std::array::from_fn(|d| r[d].0 as u64))
                .collect()
        } else {
            Vec::new()
        };
        let mut seed = 0x5EED_A3A2_0115_u64 ^ ((w as u64) << 8 | h as u64);
        let zobrist = (0..len)
            .map(|_| {
                [
                    splitmix(&mut seed),
                    splitmix(&mut seed),
                    splitmix(&mut seed),
                ]
            })
            .collect();
        Geometry {
            board,
            width: w as u32,
            len,
            all,
            not_first_file: all - first,
            not_last_file: all - last,
            rays,
            rays64,
            zobrist,
            zobrist_black_to_move: splitmix(&mut seed),
        }
    }

    /// Squares a queen on `sq` reaches, with `occ` the occupied squares.
    #[inline]
    pub fn queen_attacks(&self, sq: u8, occ: Bb) -> Bb {
        if let Some(rays) = self.rays64.get(sq as usize) {
            return Bb(u128::from(self.queen_attacks64(rays, occ.0 as u64)));
        }
        let rays: [u128; 8] = std::array::from_fn(|d| self.rays[sq as usize][d].0);
        Bb(slide!(
            rays,
            occ.0,
            |b: usize, d: usize| self.rays[b][d].0,
            u128
        ))
    }

    /// [`Self::queen_attacks`] on a board of at most 64 squares.
    #[inline]
    fn queen_attacks64(&self, rays: &[u64; 8], occ: u64) -> u64 {
        slide!(*rays, occ, |b: usize, d: usize| self.rays64[b][d], u64)
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
        let b = Bb::from_square(sq);
        self.dilate(b) - b
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
    pub fn zobrist(&self, sq: u8, piece: usize) -> u64 {
        self.zobrist[sq as usize][piece]
    }
}
