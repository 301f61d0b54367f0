//! Blocker territory databases (paper III-A, Fig. 6): a blocker's first move must shoot back onto its origin.
//!
//! A position has `B >= 1` blockers, `Q` normal queens and `E` empties in a region. A normal
//! queen moves and shoots freely; a blocker's first move must shoot its arrow back onto the
//! square it came from (so the opponent stays shut out), after which it is a normal queen.
//! The positions a move leads to therefore have one square fewer (the arrow square, or the
//! blocker's origin) and `b <= B` blockers: they live in smaller blocker regions, or, once no
//! blockers are left, in the simple table, which is built first. Building region sizes in
//! increasing order is the dependency order of the paper's Fig. 6.

use super::build::{child_value, children, deposit, ChildComp};
use super::index::{expand, for_each_subset, groups, Kind};
use super::regions::{squares, Shape};
use super::store::DbError;
use super::view::View;
use amazons_board::bitboard::Bb;
use amazons_board::geometry::Geometry;

/// Appends the values of every position of canonical region `c` in the table `kind`
/// (blocker: at least one blocker, at most `k` queens in all; simple: 1..=`k` queens and
/// no blockers, so a simple position is a blocker position without blockers), in layout
/// order.
pub(crate) fn compute_region(
    kind: Kind,
    g: &Geometry,
    view: &View<'_>,
    c: Shape,
    k: u32,
    out: &mut Vec<u8>,
) -> Result<(), DbError> {
    let n = c.count_ones();
    let sq: Vec<u32> = squares(c).collect();
    let kids = children(c, view.index)?;
    for (b, q) in groups(kind, k, n) {
        for_each_subset(n, b, |bm| {
            let blockers = deposit(bm, &sq);
            for_each_subset(n - b, q, |qm| {
                let spread = if bm == 0 { qm } else { expand(qm, bm, n) };
                out.push(best(g, view, c, blockers, deposit(spread, &sq), &kids)?);
                Ok(())
            })
        })?;
    }
    Ok(())
}

/// The maximum over all moves (normal queens freely, blockers shooting back) of 1 + the
/// value after the move (0 without moves). With no blockers, the simple table's value.
fn best(
    g: &Geometry,
    view: &View<'_>,
    c: Shape,
    blockers: u128,
    normals: u128,
    kids: &[Vec<ChildComp>],
) -> Result<u8, DbError> {
    let empties = c & !(blockers | normals);
    let e = empties.count_ones();
    if e == 0 {
        return Ok(0);
    }
    let occ = g.all - Bb(empties);
    let mut best = 0u32;
    // Blockers first: their moves are few and usually fill the most.
    for q in Bb(blockers).iter() {
        let qb = 1u128 << q;
        for to in g.queen_attacks(q, occ).iter() {
            let nq = normals | 1u128 << to;
            let v = 1 + child_value(view, &kids[q as usize], blockers & !qb, nq)?;
            if v > best {
                best = v;
                if best == e {
                    return Ok(best as u8);
                }
            }
        }
    }
    for q in Bb(normals).iter() {
        let qb = Bb::from_square(q);
        let lifted = occ - qb;
        for to in g.queen_attacks(q, occ).iter() {
            let tb = Bb::from_square(to);
            let nq = (normals & !qb.0) | tb.0;
            for a in g.queen_attacks(to, lifted | tb).iter() {
                let v = 1 + child_value(view, &kids[a as usize], blockers, nq)?;
                if v > best {
                    best = v;
                    if best == e {
                        return Ok(best as u8);
                    }
                }
            }
        }
    }
    Ok(best as u8)
}
