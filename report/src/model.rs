//! The report's data model: the nodes of a certificate's proof tree kept for the browser (breadth first, up to a budget) and the drawn justification of each leaf.

use crate::walk::{self, children, kind, Edge, Walked};
use amazons_checker::rules;
use amazons_format::{Action, Cell, Certificate, Claim, Color, Move, Position, Step, Symmetry};
use std::collections::{HashMap, VecDeque};

/// One component of an outlast leaf's region `R` (the loser's queens and the empty squares
/// connected to them): its squares, empty squares, and the loser's exact one-player
/// maximum there when the checker computes it (at most `ONE_PLAYER_EXACT_LIMIT` empties).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionPart {
    pub squares: Vec<usize>,
    pub empties: usize,
    pub exact: Option<u32>,
}

/// SPEC 5.4: the winner's `moves` outside `R` (the `region`) against the loser's at most
/// `bound` moves inside it (`x`, `y`: spare moves of winner and loser).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlastLeaf {
    pub moves: Vec<Move>,
    pub region: Vec<RegionPart>,
    pub bound: u64,
    pub x: i32,
    pub y: i32,
    pub winner_to_move: bool,
}

/// The drawn justification of a leaf.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leaf {
    /// The loser to move has no action.
    NoMove,
    /// SPEC 5.8: the checker's exhaustive search decides the (small) position.
    Search,
    /// SPEC 5.4: see [`OutlastLeaf`].
    Outlast(OutlastLeaf),
    /// SPEC 5.5: the live components with their bounds; `s` = sum of bounds + x - y.
    Sum {
        parts: Vec<(Vec<usize>, i32, bool)>,
        s: i64,
    },
    /// SPEC 5.6: the claim mapped by `symmetry` (its position `cited`) was proven earlier;
    /// `node` is the kept node proving it, if it is among the kept nodes.
    Transposition {
        symmetry: Symmetry,
        cited: Position,
        node: Option<usize>,
    },
    /// SPEC 5.7: proven by the shard with this body hash.
    Shard { hash: [u8; 32] },
}

/// A node of the proof tree kept for the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Index of its step in the certificate.
    pub step: usize,
    pub parent: Option<usize>,
    pub depth: u32,
    pub edge: Edge,
    /// The rule of its step, an index into [`walk::KINDS`].
    pub kind: usize,
    /// Steps of its subproof in this file.
    pub size: u64,
    /// Steps of its subproof including the shards it cites (filled in by the report).
    pub total: u64,
    /// Its children's node ids `first..first + child_count`, when they were kept.
    pub first_child: Option<usize>,
    pub child_count: usize,
    /// Its claim's side to move and spare (the position follows from the parent and the edge).
    pub to_move: Color,
    pub spare: i32,
    /// The position, for nodes whose position does not follow from a move (parts of a sum).
    pub local: Option<Position>,
    /// The action a `Choice` step plays (even when its child is not kept).
    pub choice: Option<Action>,
    pub leaf: Option<Leaf>,
}

/// The nodes kept of one certificate: breadth first from the root, a node's children all
/// or none, at most `budget` nodes (and always the root).
pub fn keep(cert: &Certificate, walked: &Walked, budget: usize) -> Vec<Node> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut claims: Vec<Claim> = Vec::new();
    let mut proven_at: HashMap<Claim, usize> = HashMap::new();
    let size = |step: usize| u64::from(walked.sizes.get(step).copied().unwrap_or(0));
    let root = &cert.root;
    nodes.push(node(cert, root, 0, None, 0, Edge::Root, size(0)));
    claims.push(root.clone());
    let mut queue = VecDeque::from([0usize]);
    while let Some(id) = queue.pop_front() {
        let step_index = nodes[id].step;
        let Some(step) = cert.steps.get(step_index) else {
            continue;
        };
        let kids = children(&claims[id], step).unwrap_or_default();
        nodes[id].child_count = kids.len();
        if kids.is_empty() || nodes.len() + kids.len() > budget {
            continue;
        }
        let first = nodes.len();
        nodes[id].first_child = Some(first);
        let mut child_step = step_index + 1;
        let depth = nodes[id].depth + 1;
        for (edge, claim) in kids {
            let n = node(
                cert,
                &claim,
                child_step,
                Some(id),
                depth,
                edge,
                size(child_step),
            );
            child_step += n.size as usize;
            queue.push_back(nodes.len());
            nodes.push(n);
            claims.push(claim);
        }
    }
    // Leaves: drawn from their claims. Transpositions cite a claim proven earlier in
    // preorder; link to the first kept node with that claim.
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by_key(|&i| nodes[i].step);
    for &i in &order {
        proven_at.entry(claims[i].clone()).or_insert(i);
    }
    for i in 0..nodes.len() {
        let Some(step) = cert.steps.get(nodes[i].step) else {
            continue;
        };
        let leaf = leaf(&claims[i], step, &proven_at, nodes[i].step, &nodes);
        nodes[i].leaf = leaf;
    }
    nodes
}

fn node(
    cert: &Certificate,
    claim: &Claim,
    step: usize,
    parent: Option<usize>,
    depth: u32,
    edge: Edge,
    size: u64,
) -> Node {
    let local = matches!(edge, Edge::Part { .. }).then(|| claim.position.clone());
    Node {
        step,
        parent,
        depth,
        edge,
        kind: cert.steps.get(step).map(kind).unwrap_or(0),
        size,
        total: size,
        first_child: None,
        child_count: 0,
        to_move: claim.position.to_move,
        spare: claim.spare,
        local,
        choice: match cert.steps.get(step) {
            Some(Step::Choice(a)) => Some(*a),
            _ => None,
        },
        leaf: None,
    }
}

fn leaf(
    claim: &Claim,
    step: &Step,
    proven_at: &HashMap<Claim, usize>,
    here: usize,
    nodes: &[Node],
) -> Option<Leaf> {
    let pos = &claim.position;
    let (x_color, y_color) = (claim.winner, claim.winner.opponent());
    Some(match step {
        Step::NoMove => Leaf::NoMove,
        Step::Outlast { moves } => {
            let in_r = rules::region(pos, y_color);
            let mut region = Vec::new();
            let mut bound = 0u64;
            for comp in rules::components(pos.board, &in_r) {
                let empties = comp
                    .iter()
                    .filter(|&&sq| pos.cells.get(sq) == Some(&Cell::Empty))
                    .count();
                let exact = (empties <= amazons_format::ONE_PLAYER_EXACT_LIMIT)
                    .then(|| rules::one_player_max(&rules::restrict(pos, &comp), y_color));
                bound += exact.map_or(empties as u64, u64::from);
                region.push(RegionPart {
                    squares: comp,
                    empties,
                    exact,
                });
            }
            // The whole line: the listed moves and the checker's completion (SPEC 5.4).
            let mut exact = rules::OnePlayer::new(pos.board);
            let line = amazons_checker::outlast_line(claim, moves, &mut exact);
            Leaf::Outlast(OutlastLeaf {
                moves: line.unwrap_or_else(|_| moves.clone()),
                region,
                bound,
                x: claim.spares_of(x_color),
                y: claim.spares_of(y_color),
                winner_to_move: pos.to_move == x_color,
            })
        }
        Step::Sum { parts } => {
            let live = amazons_checker::live_components(pos);
            let mut s = i64::from(claim.spares_of(x_color)) - i64::from(claim.spares_of(y_color));
            s += parts.iter().map(|p| i64::from(p.bound)).sum::<i64>();
            Leaf::Sum {
                parts: live
                    .into_iter()
                    .zip(parts)
                    .map(|(comp, p)| (comp, p.bound, p.strict))
                    .collect(),
                s,
            }
        }
        Step::Transposition { symmetry } => {
            let cited = Claim {
                position: symmetry.apply(pos),
                spare: claim.spare,
                winner: claim.winner,
            };
            let node = proven_at
                .get(&cited)
                .copied()
                .filter(|&i| nodes[i].step as u64 + nodes[i].size <= here as u64);
            Leaf::Transposition {
                symmetry: *symmetry,
                cited: cited.position,
                node,
            }
        }
        Step::Shard { hash } => Leaf::Shard { hash: *hash },
        Step::Search => Leaf::Search,
        Step::Choice(_) | Step::ReplyAll => return None,
    })
}

/// The name of a rule, for display.
pub fn kind_name(kind: usize) -> &'static str {
    walk::KINDS.get(kind).copied().unwrap_or("?")
}
