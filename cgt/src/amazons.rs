//! Plain Amazons move generation on `format::Position` and the canonical value of a small area (Left = Black, Right = White).

use crate::bits::{to_bits, Bits, Rays, DIRS};
use crate::error::CgtError;
use crate::fx::FxBuild;
use crate::game::{GameId, GameStore};
use amazons_format::{Board, Cell, Color, Move, Position, Square};
use std::collections::{HashMap, HashSet};

/// The default limit on the number of new positions `value_of_area` may evaluate.
pub const DEFAULT_FOLLOWER_LIMIT: usize = 1_000_000;

/// Empty squares a queen on `from` reaches along the eight rays.
fn rays(board: Board, cells: &[Cell], from: Square, out: &mut Vec<Square>) {
    let (w, h) = (board.width as i32, board.height as i32);
    let (x0, y0) = board.coords(from);
    for (dx, dy) in DIRS {
        let (mut x, mut y) = (x0 as i32 + dx, y0 as i32 + dy);
        while x >= 0 && y >= 0 && x < w && y < h {
            let sq = board.square(x as usize, y as usize);
            if cells[sq as usize] != Cell::Empty {
                break;
            }
            out.push(sq);
            x += dx;
            y += dy;
        }
    }
}

/// All legal moves of `color` in the cells of `position` (whoever is to move).
pub fn moves(position: &Position, color: Color) -> Vec<Move> {
    moves_in(position.board, &position.cells, color)
}

fn moves_in(board: Board, cells: &[Cell], color: Color) -> Vec<Move> {
    let queen = Cell::queen(color);
    let mut out = Vec::new();
    let mut cells = cells.to_vec();
    let mut tos = Vec::new();
    let mut arrows = Vec::new();
    for from in 0..cells.len() {
        if cells[from] != queen {
            continue;
        }
        let from = from as Square;
        tos.clear();
        rays(board, &cells, from, &mut tos);
        cells[from as usize] = Cell::Empty;
        for &to in &tos {
            arrows.clear();
            rays(board, &cells, to, &mut arrows);
            for &arrow in &arrows {
                out.push(Move { from, to, arrow });
            }
        }
        cells[from as usize] = queen;
    }
    out
}

/// The cells after `mv` by `color`.
pub fn apply(cells: &[Cell], mv: Move, color: Color) -> Vec<Cell> {
    let mut c = cells.to_vec();
    c[mv.from as usize] = Cell::Empty;
    c[mv.to as usize] = Cell::queen(color);
    c[mv.arrow as usize] = Cell::Arrow;
    c
}

/// Number of positions reachable by any sequence of moves by either player (not
/// necessarily alternating), the position itself included. `usize::MAX` for an invalid
/// position.
pub fn followers(position: &Position) -> usize {
    followers_limited(position, usize::MAX).unwrap_or(usize::MAX)
}

/// [`followers`] with a limit: an error once more than `limit` positions are found.
pub fn followers_limited(position: &Position, limit: usize) -> Result<usize, CgtError> {
    let start = to_bits(position)?;
    let rays = Rays::new(position.board);
    let mut seen: HashSet<Bits, FxBuild> = HashSet::default();
    let mut stack = vec![start];
    seen.insert(start);
    let mut kids = Vec::new();
    while let Some(b) = stack.pop() {
        for black in [true, false] {
            rays.children(b, black, &mut kids);
            for &c in &kids {
                if !seen.contains(&c) {
                    if seen.len() >= limit {
                        return Err(CgtError::TooComplex { limit });
                    }
                    seen.insert(c);
                    stack.push(c);
                }
            }
        }
    }
    Ok(seen.len())
}

/// Whether `first`, moving first in `position` (alternating play, the last player to move
/// wins), wins: a plain exhaustive search, independent of the game values (for audits).
pub fn search_first_player_wins(position: &Position, first: Color) -> Result<bool, CgtError> {
    search_first_player_wins_limited(position, first, DEFAULT_FOLLOWER_LIMIT)
}

/// [`search_first_player_wins`] with a limit on the number of positions searched.
pub fn search_first_player_wins_limited(
    position: &Position,
    first: Color,
    limit: usize,
) -> Result<bool, CgtError> {
    let b = to_bits(position)?;
    let rays = Rays::new(position.board);
    let mut memo: HashMap<(Bits, bool), bool, FxBuild> = HashMap::default();
    search(&rays, b, first == Color::Black, &mut memo, limit)
}

fn search(
    rays: &Rays,
    b: Bits,
    black: bool,
    memo: &mut HashMap<(Bits, bool), bool, FxBuild>,
    limit: usize,
) -> Result<bool, CgtError> {
    if let Some(&w) = memo.get(&(b, black)) {
        return Ok(w);
    }
    if memo.len() >= limit {
        return Err(CgtError::TooComplex { limit });
    }
    let mut kids = Vec::new();
    rays.children(b, black, &mut kids);
    let mut win = false;
    for c in kids {
        if !search(rays, c, !black, memo, limit)? {
            win = true;
            break;
        }
    }
    memo.insert((b, black), win);
    Ok(win)
}

impl GameStore {
    /// The canonical value of an Amazons position (Left options = Black moves, Right
    /// options = White moves, whoever is to move), with the default follower limit.
    pub fn value_of_area(&mut self, position: &Position) -> Result<GameId, CgtError> {
        self.value_of_area_with_limit(position, DEFAULT_FOLLOWER_LIMIT)
    }

    /// [`GameStore::value_of_area`] evaluating at most `limit` new positions.
    pub fn value_of_area_with_limit(
        &mut self,
        position: &Position,
        limit: usize,
    ) -> Result<GameId, CgtError> {
        let b = to_bits(position)?;
        let rays = Rays::new(position.board);
        let mut budget = limit;
        let dims = (position.board.width, position.board.height);
        self.area_value(dims, &rays, b, &mut budget, limit)
    }

    fn area_value(
        &mut self,
        dims: (u8, u8),
        rays: &Rays,
        b: Bits,
        budget: &mut usize,
        limit: usize,
    ) -> Result<GameId, CgtError> {
        let k = (dims.0, dims.1, b);
        if let Some(&g) = self.area_cache.get(&k) {
            return Ok(g);
        }
        // Independent areas add up; dead squares do not matter.
        let parts = rays.split(b);
        if parts.len() != 1 || parts[0] != b {
            let mut g = self.zero();
            for part in parts {
                let v = self.area_value(dims, rays, part, budget, limit)?;
                g = self.add(g, v);
            }
            self.area_cache.insert(k, g);
            return Ok(g);
        }
        if *budget == 0 {
            return Err(CgtError::TooComplex { limit });
        }
        *budget -= 1;
        let mut kids = Vec::new();
        rays.children(b, true, &mut kids);
        let mut l = Vec::with_capacity(kids.len());
        for &c in &kids {
            l.push(self.area_value(dims, rays, c, budget, limit)?);
        }
        rays.children(b, false, &mut kids);
        let mut r = Vec::with_capacity(kids.len());
        for &c in &kids {
            r.push(self.area_value(dims, rays, c, budget, limit)?);
        }
        let g = self.game(&l, &r);
        self.area_cache.insert(k, g);
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_areas() {
        let mut s = GameStore::new();
        // One Black queen with one empty square: 1 move.
        let p = Position::parse_grid("X.", Color::Black).expect("grid");
        let g = s.value_of_area(&p).expect("value");
        assert_eq!(s.display(g), "1");
        let p = Position::parse_grid("X.O", Color::Black).expect("grid");
        let g = s.value_of_area(&p).expect("value");
        assert_eq!(s.display(g), "*");
        assert_eq!(followers(&p), 3);
    }

    /// Unit tests hash option lists by their lengths only (see `option_hash`), so nearly
    /// every game here is found through a collision chain; the value must still be CGSuite's,
    /// and interning must still give each canonical game one id.
    #[test]
    fn colliding_option_hashes_change_no_value() {
        let mut s = GameStore::new();
        let p = Position::parse_grid("x...|o...", Color::Black).expect("grid");
        let g = s.value_of_area(&p).expect("value");
        let published = "+-{3,{4|0,{1|0,*}},{4|{0,{1/2|0}|v},+-1,+-{1,{2|0}}}}";
        assert_eq!(s.display(g), published);
        let games = s.len();
        assert_eq!(s.parse(published).expect("parse"), g);
        let mut fresh = GameStore::new();
        assert_eq!(
            fresh
                .parse(published)
                .map(|h| fresh.display(h))
                .expect("parse"),
            published
        );
        assert_eq!(
            s.len(),
            games,
            "parsing the same value interned no new game"
        );
    }

    #[test]
    fn clearing_the_caches_changes_no_value() {
        let mut s = GameStore::new();
        let grids = ["X..|O..", "X.|O.|..", "X...|O..#", "X..O.."];
        let first: Vec<(GameId, String)> = grids
            .iter()
            .map(|grid| {
                let p = Position::parse_grid(grid, Color::Black).expect("grid");
                let g = s.value_of_area(&p).expect("value");
                (g, format!("{:?}", s.thermograph(g)))
            })
            .collect();
        assert!(s.cache_len() > 0);
        s.clear_caches();
        assert_eq!(s.cache_len(), 0);
        for (grid, (g, th)) in grids.iter().zip(&first) {
            let p = Position::parse_grid(grid, Color::Black).expect("grid");
            // The area itself is remembered; recompute a sum and a thermograph afresh.
            let again = s.value_of_area(&p).expect("value");
            assert_eq!(again, *g, "{grid}");
            assert_eq!(&format!("{:?}", s.thermograph(again)), th, "{grid}");
            let twice = s.add(again, again);
            let neg = s.neg(again);
            assert_eq!(s.add(twice, neg), again, "{grid}: G + G - G = G");
        }
    }
}
