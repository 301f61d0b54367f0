//! One certificate file's proof tree, read with the checker's plain rules: children of each step, subtree sizes, depths and rule counts.
//!
//! A certificate lists its steps in preorder and never states a child claim, so the tree
//! can only be read by deriving every child claim from its parent, as the checker does:
//! a `ReplyAll` has one child per action of the side to move (the checker's own move
//! generator, canonical order), a `Sum` one or two per live component. This walk does
//! that (without checking each step's condition) and records the size of every subtree.

use amazons_checker::{actions, after, live_components, part_claims, rules, MAX_DEPTH};
use amazons_format::{Action, Certificate, Claim, Step};

/// Names of the proof rules, indexed by [`kind`].
pub const KINDS: [&str; 8] = [
    "Choice",
    "ReplyAll",
    "NoMove",
    "Outlast",
    "Sum",
    "Transposition",
    "Shard",
    "Search",
];

/// Index of a step's rule in [`KINDS`].
pub fn kind(step: &Step) -> usize {
    match step {
        Step::Choice(_) => 0,
        Step::ReplyAll => 1,
        Step::NoMove => 2,
        Step::Outlast { .. } => 3,
        Step::Sum { .. } => 4,
        Step::Transposition { .. } => 5,
        Step::Shard { .. } => 6,
        Step::Search => 7,
    }
}

/// How a child claim arises from its parent: an action of the side to move, or a part of
/// a sum (`strict`: the second child of a strict part, the winner to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Root,
    Action(Action),
    Part {
        part: usize,
        bound: i32,
        strict: bool,
    },
}

/// The child claims of `step` at `claim`, in the order the certificate lists their proofs.
pub fn children(claim: &Claim, step: &Step) -> Result<Vec<(Edge, Claim)>, String> {
    let pos = &claim.position;
    match step {
        Step::Choice(action) => {
            let legal = match *action {
                Action::Board(m) => rules::is_legal(pos, m),
                Action::Spare => claim.spares_of(pos.to_move) >= 1,
            };
            if !legal {
                return Err(format!(
                    "Choice of an illegal action {}",
                    action.notation(pos.board)
                ));
            }
            Ok(vec![(Edge::Action(*action), after(claim, *action))])
        }
        Step::ReplyAll => Ok(actions(claim)
            .into_iter()
            .map(|a| (Edge::Action(a), after(claim, a)))
            .collect()),
        Step::Sum { parts } => {
            let live = live_components(pos);
            if live.len() != parts.len() {
                return Err(format!(
                    "Sum with {} parts where the position has {} live components",
                    parts.len(),
                    live.len()
                ));
            }
            Ok(part_claims(claim, &live, parts)
                .into_iter()
                .map(|p| {
                    let edge = Edge::Part {
                        part: p.part + 1,
                        bound: parts[p.part].bound,
                        strict: p.strict,
                    };
                    (edge, p.claim)
                })
                .collect())
        }
        Step::NoMove
        | Step::Outlast { .. }
        | Step::Transposition { .. }
        | Step::Shard { .. }
        | Step::Search => Ok(Vec::new()),
    }
}

/// What a walk of one certificate found.
#[derive(Debug, Clone, Default)]
pub struct Walked {
    /// Subtree size (steps) of every step, by step index.
    pub sizes: Vec<u32>,
    /// Steps per depth (the root at depth 0).
    pub depths: Vec<u64>,
    /// Steps per rule, indexed like [`KINDS`].
    pub rules: [u64; 8],
    /// The `Shard` steps: step index, depth and cited hash.
    pub shard_leaves: Vec<(usize, u32, [u8; 32])>,
}

struct Walker<'a> {
    steps: &'a [Step],
    next: usize,
    out: Walked,
}

/// A certificate whose steps do not form a proof tree of its root claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    pub step: usize,
    pub reason: String,
}

impl Walker<'_> {
    fn walk(&mut self, claim: &Claim, depth: usize) -> Result<u32, Malformed> {
        let here = self.next;
        let bad = |reason: String| Malformed { step: here, reason };
        if depth > MAX_DEPTH {
            return Err(bad(format!("deeper than {MAX_DEPTH} levels")));
        }
        let step = self
            .steps
            .get(here)
            .ok_or_else(|| bad("the steps end before the tree does".to_string()))?;
        self.next += 1;
        if self.out.depths.len() <= depth {
            self.out.depths.resize(depth + 1, 0);
        }
        self.out.depths[depth] += 1;
        self.out.rules[kind(step)] += 1;
        if let Step::Shard { hash } = step {
            self.out.shard_leaves.push((here, depth as u32, *hash));
        }
        let mut size: u32 = 1;
        for (_, child) in children(claim, step).map_err(bad)? {
            size = size.saturating_add(self.walk(&child, depth + 1)?);
        }
        self.out.sizes[here] = size;
        Ok(size)
    }
}

/// Walks the whole tree of `cert`: every step's subtree size, the depth histogram, the
/// rule counts and the shard leaves. Needs a deep stack ([`MAX_DEPTH`] levels of recursion).
pub fn walk(cert: &Certificate) -> Result<Walked, Malformed> {
    let mut walker = Walker {
        steps: &cert.steps,
        next: 0,
        out: Walked {
            sizes: vec![0; cert.steps.len()],
            ..Walked::default()
        },
    };
    walker.walk(&cert.root, 0)?;
    if walker.next != cert.steps.len() {
        return Err(Malformed {
            step: walker.next,
            reason: format!(
                "{} trailing steps after the tree",
                cert.steps.len() - walker.next
            ),
        });
    }
    Ok(walker.out)
}
