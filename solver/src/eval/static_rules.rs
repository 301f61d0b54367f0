//! Safe-move rules: static proofs that a player (P) can make one move in an active area
//! whatever the opponent (O) does there (paper IV-A4/5; Müller 2001 rules 1-4 as
//! reconstructed here, and the paper's rules 5 and 6).
//!
//! # What a safe move buys, and why at most one per player per area
//!
//! Let the area have `v` empty squares. Every move inside it (queen and arrow stay in
//! the area) lowers the number of its empty squares by exactly one, so the two players
//! together make at most `v` moves there. Suppose P can always make one move there:
//! P's strategy answers O's first move in the area at once with that move (or makes it
//! earlier). Then O makes at most `v - 1` moves in the area and P at least one, so P's
//! count minus O's is at least `2 - v`: the bound moves by 2. In the spare-move game
//! `G - l` this is exactly the counting argument: P second, P's replies (the safe move
//! plus its spares) are never fewer than O's possible moves. P answers immediately, so
//! the safe move only has to survive ONE opponent move; two safe moves could depend on
//! each other (one O move threatening both), so we claim at most one per player and area.
//!
//! # The condition all rules establish
//!
//! "P has a move in the area now, and after any single O move in the area P still has
//! one." P's move is always "step to an adjacent empty square (AES) and shoot back onto
//! the origin": it is legal whenever the queen has an AES, and it leaves an arrow where
//! the queen stood, so if the queen is a blocker the territory it seals stays sealed.
//! An O move (queen `o` to `d`, arrow to `a`) can take away an AES only by putting its
//! queen or its arrow on it; it can add one: its origin `o` becomes empty unless the
//! arrow lands back on it. Only P queens that no other area relies on are eligible
//! (`mine`); every O queen of the area is a threat (`theirs`), blockers included.
//!
//! Everything is computed on the area in isolation (all other squares walls). In the
//! real position O has no further ways to fill area squares in one move: an empty square
//! outside the area is never 8-adjacent to one inside it (they would be in one area), so
//! no line of empties joins them; O moves leaving the area only vacate squares.

use crate::bitboard::Bb;
use crate::geometry::Geometry;
use std::fmt;

/// The rule that proved a safe move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    /// An AES that no single opponent move can fill.
    One,
    /// At least three AES among the eligible queens.
    Two,
    /// Exactly two AES that no single opponent move fills together.
    Three,
    /// Exhaustive one-ply check over every opponent move.
    Four,
    /// One AES; every opponent move that burns it frees a square next to our queen.
    Five,
    /// Two AES; every opponent move that fills both frees a square next to our queen.
    Six,
}

impl Rule {
    pub fn number(self) -> u8 {
        match self {
            Rule::One => 1,
            Rule::Two => 2,
            Rule::Three => 3,
            Rule::Four => 4,
            Rule::Five => 5,
            Rule::Six => 6,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule {}", self.number())
    }
}

/// All single opponent moves in the isolated area, grouped by origin and destination:
/// `(o, d, arrows from d with o vacated)`.
fn opponent_moves(g: &Geometry, empties: Bb, theirs: Bb) -> Vec<(u8, u8, Bb)> {
    let occ = g.all - empties;
    let mut out = Vec::new();
    for o in theirs.iter() {
        let lifted = occ - Bb::from_square(o);
        for d in g.queen_attacks(o, occ).iter() {
            out.push((o, d, g.queen_attacks(d, lifted | Bb::from_square(d))));
        }
    }
    out
}

/// The AES of the eligible queens `mine` within the squares `free`.
fn aes(g: &Geometry, mine: Bb, free: Bb) -> Bb {
    g.dilate(mine) & free
}

/// Whether some eligible queen is next to `sq`.
fn next_to_mine(g: &Geometry, mine: Bb, sq: u8) -> bool {
    (g.neighbours(sq) & mine).any()
}

/// Rule 4, the exhaustive one-ply check: P has an AES now and after every opponent move.
pub fn one_ply_check(g: &Geometry, empties: Bb, mine: Bb, theirs: Bb) -> bool {
    if aes(g, mine, empties).is_empty() {
        return false;
    }
    opponent_moves(g, empties, theirs)
        .iter()
        .all(|&(o, d, arrows)| {
            let after = (empties | Bb::from_square(o)) - Bb::from_square(d);
            arrows
                .iter()
                .all(|a| aes(g, mine, after - Bb::from_square(a)).any())
        })
}

/// Finds a safe move for the eligible queens `mine` against the opponent queens
/// `theirs` in the area with empty squares `empties`; the first rule that applies.
///
/// Every rule is a sufficient condition for the one-ply condition and rule 4 is that
/// condition itself, so this returns `Some` exactly when [`one_ply_check`] holds (a
/// property test checks it). It never lists all opponent moves: an O move can take away
/// an AES only by landing its queen or its arrow on it, so only those moves are
/// examined. An arrow from `d` (queen lifted from `o`) reaches `e` exactly when `d` is
/// on a clear line from `e` with `o` lifted, so the squares that can shoot at `e` are
/// one ray lookup from `e`, not one per destination.
pub fn safe_move(g: &Geometry, empties: Bb, mine: Bb, theirs: Bb) -> Option<Rule> {
    let u = aes(g, mine, empties);
    if u.is_empty() {
        // No move now: if O never plays here, P never gets one.
        return None;
    }
    let occ = g.all - empties;
    // Per O queen `o`: its destinations, and for each AES `e` the destinations from
    // which its arrow can reach `e` (`shooters`, at most two AES matter below).
    let threats = |o: u8| {
        let lifted = occ - Bb::from_square(o);
        let dests = g.queen_attacks(o, occ);
        (lifted, dests)
    };
    let shooters = |e: u8, lifted: Bb, dests: Bb| g.queen_attacks(e, lifted) & dests;

    // Rule 1. An AES that is neither a destination nor an arrow target of any single O
    // move cannot be taken away before P answers; P steps there when it wants.
    let mut open = u;
    for o in theirs.iter() {
        let (lifted, dests) = threats(o);
        open = open - dests;
        for e in open.iter() {
            if shooters(e, lifted, dests).any() {
                open = open - Bb::from_square(e);
            }
        }
        if open.is_empty() {
            break;
        }
    }
    if open.any() {
        return Some(Rule::One);
    }
    // Rule 2. An O move fills at most two squares (its destination and its arrow) and
    // empties one; with three or more AES one survives every O move.
    if u.count() >= 3 {
        return Some(Rule::Two);
    }
    let mut it = u.iter();
    let e = it.next()?;
    let f = it.next();
    if let Some(f) = f {
        // Two AES. A killer is an O queen with a move that fills both: its queen on one
        // and its arrow on the other (a clear line between them once it has left).
        let (mut any_killer, mut killers_next_to_mine) = (false, true);
        for o in theirs.iter() {
            let (lifted, dests) = threats(o);
            if (dests & u).any() && g.queen_attacks(e, lifted).has(f) {
                any_killer = true;
                killers_next_to_mine &= next_to_mine(g, mine, o);
            }
        }
        // Rule 3. Two AES; no single O move puts its queen on one and its arrow on the
        // other, so one of them survives.
        if !any_killer {
            return Some(Rule::Three);
        }
        // Rule 6 (paper Fig. 8 right). Two AES; every O move that fills both has its
        // queen on one AES and its arrow on the other, so its origin o is left empty
        // (the arrow is not on o). If o is next to an eligible P queen, that queen now
        // has the AES o.
        if killers_next_to_mine {
            return Some(Rule::Six);
        }
    } else {
        // Rule 5 (paper Fig. 8 left). One AES e. An O queen that can move onto e kills
        // it for good (it may shoot back onto its origin), so no O queen may reach e.
        // Otherwise e dies only by an arrow from some d != e; the queen has left its
        // origin o and the arrow is on e, not on o, so o is empty afterwards. If every
        // such o is next to an eligible P queen, P keeps a move.
        let mut ok = true;
        for o in theirs.iter() {
            let (lifted, dests) = threats(o);
            if dests.has(e) || (shooters(e, lifted, dests).any() && !next_to_mine(g, mine, o)) {
                ok = false;
                break;
            }
        }
        if ok {
            return Some(Rule::Five);
        }
    }
    // Rule 4. None of the patterns applies: check exhaustively every O move that lands
    // its queen or its arrow on an AES (one ply, no search). Any other O move leaves
    // all of `u` empty, and P's queens do not move, so P keeps those AES.
    let keeps_one = |o: u8, d: u8, a: u8| {
        let after = ((empties | Bb::from_square(o)) - Bb::from_square(d)) - Bb::from_square(a);
        aes(g, mine, after).any()
    };
    for o in theirs.iter() {
        let (lifted, dests) = threats(o);
        for d in (dests & u).iter() {
            let arrows = g.queen_attacks(d, lifted | Bb::from_square(d));
            if !arrows.iter().all(|a| keeps_one(o, d, a)) {
                return None;
            }
        }
        for a in u.iter() {
            let from = shooters(a, lifted, dests) - u;
            if !from.iter().all(|d| keeps_one(o, d, a)) {
                return None;
            }
        }
    }
    Some(Rule::Four)
}
