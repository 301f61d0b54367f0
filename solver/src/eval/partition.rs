//! Board partition: basic areas (8-connected queens and empties) and the improved
//! partition that cuts blocker territories out of mixed areas (paper II-A3, II-B).
//!
//! Reachability is 8-connectivity: a queen (or its arrows) can ever reach an empty square
//! only through a chain of 8-adjacent empty squares (or squares of its own colour's
//! queens, which may move away), so a part of a mixed area that is not 8-connected to any
//! opponent queen through such squares is inaccessible to the opponent as long as the
//! owner's queens on its boundary (the blockers) do not move. The improved partition
//! relies on the blocker constraint to keep it so: a blocker's first move must shoot back
//! onto its origin, which leaves an arrow where the blocker stood.

use super::bounds::Bounds;
use super::static_rules::Rule;
use crate::bitboard::Bb;
use crate::geometry::Geometry;
use crate::pos::Pos;
use amazons_format::Color;
use std::fmt;

/// The type of an area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AreaKind {
    /// Queens of both colours and at least one empty square.
    Active,
    /// Queens of one colour only, sharing nothing with other areas.
    SimpleTerritory(Color),
    /// Empties inaccessible to the opponent, sealed by blockers of the owner.
    BlockerTerritory(Color),
    /// Only queens or only empty squares; nobody can move there.
    Dead,
}

impl fmt::Display for AreaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AreaKind::Active => f.write_str("active"),
            AreaKind::SimpleTerritory(c) => write!(f, "simple territory ({c})"),
            AreaKind::BlockerTerritory(c) => write!(f, "blocker territory ({c})"),
            AreaKind::Dead => f.write_str("dead"),
        }
    }
}

/// How an area's bounds were obtained (for the paper's Fig. 15 statistics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// Plodding for territories, `[-v, v]` for active areas.
    Heuristic,
    /// Safe-move rules improved the active-area bounds.
    StaticRules,
    /// Local alpha-beta search of the whole area.
    LocalSearch,
    /// Exhaustive one-player search of a territory.
    Exact,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Heuristic => "heuristic",
            Source::StaticRules => "static rules",
            Source::LocalSearch => "local search",
            Source::Exact => "exact",
        })
    }
}

/// One area of the (improved) partition with its bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Area {
    /// Empty squares plus queens, blockers included.
    pub squares: Bb,
    /// Queens this area shares with other areas.
    pub blockers: Bb,
    pub kind: AreaKind,
    pub bounds: Bounds,
    pub source: Source,
    /// Blockers whose moves this area's lower bound (for their owner) depends on; no
    /// other area may use them.
    pub relied: Bb,
    /// The safe-move rule that fired for Black and for White (active areas).
    pub safe_black: Option<Rule>,
    pub safe_white: Option<Rule>,
}

impl Area {
    /// The empty squares of the area.
    pub fn empties(&self, g: &Geometry, pos: &Pos) -> Bb {
        self.squares & pos.empty(g)
    }

    /// (width, height) of the minimum bounding rectangle of the area's squares.
    pub fn size(&self, g: &Geometry) -> (u32, u32) {
        let w = g.width;
        let (mut x0, mut x1, mut y0, mut y1) = (u32::MAX, 0, u32::MAX, 0);
        for sq in self.squares.iter() {
            let (x, y) = (sq as u32 % w, sq as u32 / w);
            x0 = x0.min(x);
            x1 = x1.max(x);
            y0 = y0.min(y);
            y1 = y1.max(y);
        }
        if x0 == u32::MAX {
            (0, 0)
        } else {
            (x1 - x0 + 1, y1 - y0 + 1)
        }
    }
}

/// The basic partition: 8-connected components of queens and empty squares that hold at
/// least one queen and one empty square (dead components are dropped), ordered by their
/// smallest square; the live components of SPEC 5.5.
pub fn basic_partition(g: &Geometry, pos: &Pos) -> Vec<Bb> {
    let empty = pos.empty(g);
    let queens = pos.white | pos.black;
    let within = empty | queens;
    let mut rest = within;
    let mut out = Vec::new();
    while let Some(sq) = rest.first() {
        let comp = g.flood(Bb::from_square(sq), within);
        rest = rest - comp;
        if (comp & empty).any() && (comp & queens).any() {
            out.push(comp);
        }
    }
    out
}

/// A territory cut out of a mixed basic area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerritoryPart {
    pub owner: Color,
    /// Its empty squares (one 8-connected component inaccessible to the opponent).
    pub empties: Bb,
    /// Owner queens inside it: every neighbour is one of its empties, an arrow or
    /// another normal queen, so they can move freely without opening it.
    pub normals: Bb,
    /// Owner queens adjacent to its empties that also touch something else; they must
    /// obey the blocker constraint.
    pub blockers: Bb,
}

impl TerritoryPart {
    pub fn squares(&self) -> Bb {
        self.empties | self.normals | self.blockers
    }
}

/// The improved partition of one mixed basic area.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub territories: Vec<TerritoryPart>,
    /// Empty squares reachable by both colours (the remaining active area).
    pub active_empties: Bb,
    /// The remaining active area: the basic area minus territory empties and normal
    /// queens (blockers stay in it).
    pub active_squares: Bb,
}

/// Squares of `within` reachable by `color`'s queens through empties and own queens.
fn reach(g: &Geometry, pos: &Pos, basic: Bb, color: Color) -> Bb {
    let q = pos.queens(color) & basic;
    let empty = pos.empty(g) & basic;
    g.flood(q, empty | q) & empty
}

/// Cuts the blocker territories out of the mixed basic area `basic`.
pub fn improved_partition(g: &Geometry, pos: &Pos, basic: Bb) -> Split {
    let empty = pos.empty(g) & basic;
    let black_reach = reach(g, pos, basic, Color::Black);
    let white_reach = reach(g, pos, basic, Color::White);
    let mut territories = Vec::new();
    let mut active_squares = basic;
    for (owner, only) in [
        (Color::Black, empty - white_reach),
        (Color::White, empty - black_reach),
    ] {
        let mut rest = only;
        while let Some(sq) = rest.first() {
            let comp = g.flood(Bb::from_square(sq), only);
            rest = rest - comp;
            let adjacent = pos.queens(owner) & g.dilate(comp);
            // Greatest fixpoint: a queen is normal if all its neighbours are territory
            // empties, arrows or other normal queens. Then the closure (empties plus
            // normals) is bordered only by arrows, the board edge and blockers.
            let mut normals = adjacent;
            loop {
                let allowed = comp | pos.arrows | normals;
                let next = Bb(normals
                    .iter()
                    .filter(|&q| (g.neighbours(q) - allowed).is_empty())
                    .fold(0u128, |acc, q| acc | 1u128 << q));
                if next == normals {
                    break;
                }
                normals = next;
            }
            territories.push(TerritoryPart {
                owner,
                empties: comp,
                normals,
                blockers: adjacent - normals,
            });
            active_squares = active_squares - comp - normals;
        }
    }
    let active_empties = empty & black_reach & white_reach;
    Split {
        territories,
        active_empties,
        active_squares: if active_empties.any() {
            active_squares
        } else {
            Bb::EMPTY
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amazons_format::Position;

    fn setup(grid: &str) -> (Geometry, Pos) {
        let p = Position::parse_grid(grid, Color::White).expect("grid");
        (Geometry::new(p.board), Pos::from_position(&p))
    }

    #[test]
    fn basic_partition_drops_dead_areas() {
        // Left: a queen pair with two empties; right: an empty pocket with no queen and a
        // walled-in queen.
        let (g, p) = setup("X.#.#|O.###|####X");
        let parts = basic_partition(&g, &p);
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].count(), 4);
    }

    #[test]
    fn blocker_territory_is_cut_out() {
        // a3 is reachable only past the Black queen b2.
        let (g, p) = setup(".##|#X.|#.O");
        let parts = basic_partition(&g, &p);
        assert_eq!(parts.len(), 1);
        let s = improved_partition(&g, &p, parts[0]);
        assert_eq!(s.territories.len(), 1);
        let t = s.territories[0];
        assert_eq!(t.owner, Color::Black);
        assert_eq!(t.empties.count(), 1);
        assert_eq!(t.blockers, p.black);
        assert!(t.normals.is_empty());
        assert_eq!(s.active_empties.count(), 2);
        assert!(s
            .active_squares
            .has(g.board.parse_square("b2").expect("sq")));
    }
}
