//! Following a certificate's winning strategy move by move, through shards and transpositions.
//!
//! A certificate lists its proof in preorder (SPEC 4) without subtree sizes, so the child
//! of a `ReplyAll` for a given reply is found by walking the subtrees of the replies before
//! it (with the checker's own move generator, which fixes their order); the subtree ends
//! found are remembered. A `Transposition` cites a claim proven earlier in the same file:
//! the walk finds a step that proves it (completed before the citing step) and the cursor
//! goes on there, with the symmetry that maps the game's position onto the stored one. A
//! `Shard` continues in the cited file (found by its declared hash in the shard directory,
//! its body hash and root claim checked). Nothing else is checked here: following a
//! strategy needs only its structure, and every move played is checked for legality.

use amazons_checker::{after, Shards};
use amazons_format::{Action, Certificate, Claim, Move, Position, Step, Symmetry};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Deeper proofs than this are refused (the checker's own bound).
const MAX_DEPTH: usize = amazons_checker::MAX_DEPTH;

/// Why a strategy cannot be followed.
#[derive(Debug, thiserror::Error)]
pub enum StrategyError {
    #[error("{path}: cannot read: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("{0}: no manifest.cert.zst or manifest.cert in this directory")]
    NoManifest(PathBuf),
    #[error("the certificate is malformed at step {step}: {reason}")]
    Malformed { step: u32, reason: String },
    #[error("shard {0} is not in the shard directory")]
    ShardMissing(String),
    #[error("shard {hash}: {reason}")]
    ShardBad { hash: String, reason: String },
    #[error("the certificate cites a claim at step {0} that it does not prove earlier")]
    CitedMissing(u32),
    #[error("{0}")]
    Game(String),
}

/// Lower-case hex of a hash.
pub fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// The claims of the children of `step` at `claim`, in the order the checker visits them
/// (SPEC 5); an error when a sum's parts do not match the live components.
pub fn step_children(step: &Step, claim: &Claim) -> Result<Vec<Claim>, &'static str> {
    Ok(match step {
        Step::Choice(action) => vec![after(claim, *action)],
        Step::ReplyAll => loser_actions(claim)
            .into_iter()
            .map(|a| after(claim, a))
            .collect(),
        Step::Sum { parts } => {
            let live = amazons_checker::live_components(&claim.position);
            if live.len() != parts.len() {
                return Err("a sum's parts do not match the components");
            }
            amazons_checker::part_claims(claim, &live, parts)
                .into_iter()
                .map(|p| p.claim)
                .collect()
        }
        Step::NoMove
        | Step::Outlast { .. }
        | Step::Transposition { .. }
        | Step::Shard { .. }
        | Step::Search => Vec::new(),
    })
}

/// One certificate file: its steps and what walking them has found so far.
#[derive(Debug)]
pub struct Tree {
    pub cert: Certificate,
    /// End (exclusive) of the subtree starting at a step, for the steps walked.
    ends: RefCell<HashMap<u32, u32>>,
    /// Where cited claims were found proven (claim -> step).
    cited: RefCell<HashMap<Claim, u32>>,
}

/// How a walk stops early.
enum Stop {
    Found(u32),
    Bad(StrategyError),
}

impl From<StrategyError> for Stop {
    fn from(e: StrategyError) -> Stop {
        Stop::Bad(e)
    }
}

impl Tree {
    /// A tree over a decoded certificate.
    pub fn new(cert: Certificate) -> Tree {
        Tree {
            cert,
            ends: RefCell::new(HashMap::new()),
            cited: RefCell::new(HashMap::new()),
        }
    }

    fn step(&self, i: u32) -> Result<&Step, StrategyError> {
        self.cert
            .steps
            .get(i as usize)
            .ok_or_else(|| StrategyError::Malformed {
                step: i,
                reason: "the proof ends before this claim's step".into(),
            })
    }

    /// The claims of a step's children, in the order the checker visits them (SPEC 5).
    pub fn children(&self, i: u32, claim: &Claim) -> Result<Vec<Claim>, StrategyError> {
        step_children(self.step(i)?, claim).map_err(|reason| StrategyError::Malformed {
            step: i,
            reason: reason.to_string(),
        })
    }

    /// The end of the subtree at step `i` proving `claim`; with a `target`, stops at the
    /// first step proving it whose subtree ends at or before `limit`.
    fn walk(
        &self,
        i: u32,
        claim: &Claim,
        depth: usize,
        target: Option<(&Claim, u32)>,
    ) -> Result<u32, Stop> {
        if target.is_none() {
            if let Some(&end) = self.ends.borrow().get(&i) {
                return Ok(end);
            }
        }
        if depth > MAX_DEPTH {
            return Err(Stop::Bad(StrategyError::Malformed {
                step: i,
                reason: "the proof is nested too deep".into(),
            }));
        }
        let mut next = i + 1;
        for child in self.children(i, claim)? {
            next = self.walk(next, &child, depth + 1, target)?;
        }
        self.ends.borrow_mut().insert(i, next);
        if let Some((t, limit)) = target {
            if t == claim && next <= limit {
                return Err(Stop::Found(i));
            }
        }
        Ok(next)
    }

    /// The end (exclusive) of the subtree at step `i` proving `claim`.
    pub fn end(&self, i: u32, claim: &Claim) -> Result<u32, StrategyError> {
        match self.walk(i, claim, 0, None) {
            Ok(end) => Ok(end),
            Err(Stop::Bad(e)) => Err(e),
            Err(Stop::Found(_)) => Err(StrategyError::Malformed {
                step: i,
                reason: "internal: a search without a target found one".into(),
            }),
        }
    }

    /// The step of a child of step `i` (proving `claim`): the `k`-th in checking order.
    pub fn child_step(&self, i: u32, claim: &Claim, k: usize) -> Result<u32, StrategyError> {
        let children = self.children(i, claim)?;
        let mut at = i + 1;
        for child in children.iter().take(k) {
            at = self.end(at, child)?;
        }
        Ok(at)
    }

    /// A step proving `cited` whose subtree ends before step `before` (the checker's
    /// "proven earlier in checking order").
    pub fn find_cited(&self, cited: &Claim, before: u32) -> Result<u32, StrategyError> {
        if let Some(&step) = self.cited.borrow().get(cited) {
            return Ok(step);
        }
        match self.walk(0, &self.cert.root, 0, Some((cited, before))) {
            Err(Stop::Found(step)) => {
                self.cited.borrow_mut().insert(cited.clone(), step);
                Ok(step)
            }
            Err(Stop::Bad(e)) => Err(e),
            Ok(_) => Err(StrategyError::CitedMissing(before)),
        }
    }
}

/// The loser's actions in the checker's order (SPEC 2): board moves, then a spare move.
fn loser_actions(claim: &Claim) -> Vec<Action> {
    amazons_checker::actions(claim)
}

/// The image of a move under a symmetry.
pub fn map_move(sym: Symmetry, board: amazons_format::Board, m: Move) -> Move {
    Move {
        from: sym.map(board, m.from),
        to: sym.map(board, m.to),
        arrow: sym.map(board, m.arrow),
    }
}

/// The move that `sym` maps onto `m`.
pub fn unmap_move(sym: Symmetry, board: amazons_format::Board, m: Move) -> Move {
    let back = |target: u8| {
        (0..board.len() as u8)
            .find(|&sq| sym.map(board, sq) == target)
            .unwrap_or(target)
    };
    Move {
        from: back(m.from),
        to: back(m.to),
        arrow: back(m.arrow),
    }
}

/// A place in the strategy: a step of a file, and the symmetry mapping the game's position
/// onto the claim that step proves (the stored claim is `sym.apply(game position)`).
#[derive(Debug, Clone)]
pub struct Node {
    pub tree: Rc<Tree>,
    pub step: u32,
    pub sym: Symmetry,
}

/// What a resolved node does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The winner plays this move (in the game's frame).
    Choice(Move),
    /// The loser is to move; every reply has a subtree.
    ReplyAll,
    /// The loser has no move.
    NoMove,
    /// A leaf the stored proof justifies statically (outlast, sum); named.
    Leaf(&'static str),
}

/// A certificate (file or sharded directory) to follow.
pub struct Strategy {
    root: Rc<Tree>,
    /// The directory of the shard files, when the certificate has one.
    shard_dir: PathBuf,
    shards: Option<amazons_checker::cli::DirShards>,
    /// Shard files entered so far.
    pub shards_entered: usize,
    /// Transpositions followed so far.
    pub transpositions: usize,
}

/// Reads and decodes a certificate file (plain or compressed).
fn read_cert(path: &Path) -> Result<Certificate, StrategyError> {
    let read = |reason: String| StrategyError::Read {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = amazons_format::stored::read(path).map_err(|e| read(e.to_string()))?;
    let cert = amazons_format::decode(&bytes).map_err(|e| read(e.to_string()))?;
    if !cert.root.position.is_valid() {
        return Err(read("its root position is malformed".into()));
    }
    Ok(cert)
}

impl Strategy {
    /// Opens a certificate file (its shards beside it in `shards/`) or a sharded result's
    /// directory (`DIR/manifest.cert`, `DIR/shards/`).
    pub fn open(path: &Path) -> Result<Strategy, StrategyError> {
        let (file, shard_dir) = if path.is_dir() {
            let manifest = amazons_format::stored::on_disk(&path.join("manifest.cert"))
                .ok_or_else(|| StrategyError::NoManifest(path.to_path_buf()))?;
            (manifest, path.join("shards"))
        } else {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            (path.to_path_buf(), dir.join("shards"))
        };
        Ok(Strategy::from_certificate(read_cert(&file)?, shard_dir))
    }

    /// A strategy over a certificate in memory, its shards (if any) in `shard_dir`.
    pub fn from_certificate(cert: Certificate, shard_dir: PathBuf) -> Strategy {
        Strategy {
            root: Rc::new(Tree::new(cert)),
            shard_dir,
            shards: None,
            shards_entered: 0,
            transpositions: 0,
        }
    }

    /// The root claim.
    pub fn claim(&self) -> &Claim {
        &self.root.cert.root
    }

    /// The node at the root (the game's position is the root claim's).
    pub fn root(&self) -> Node {
        Node {
            tree: self.root.clone(),
            step: 0,
            sym: Symmetry::Identity,
        }
    }

    /// The claim a node proves, for the game's position `actual`.
    fn claim_at(node: &Node, actual: &Position) -> Claim {
        Claim {
            position: node.sym.apply(actual),
            spare: 0,
            winner: node.tree.cert.root.winner,
        }
    }

    /// The tree of a shard file (read again at each visit: a game or an export enters each
    /// shard once, and keeping them would hold a whole sharded proof in memory).
    fn shard(&mut self, hash: &[u8; 32], claim: &Claim) -> Result<Rc<Tree>, StrategyError> {
        let name = hex(hash);
        let dir = &self.shard_dir;
        let shards = self
            .shards
            .get_or_insert_with(|| amazons_checker::cli::DirShards::scan(dir));
        let bytes = shards
            .get(hash)
            .ok_or_else(|| StrategyError::ShardMissing(name.clone()))?;
        let bad = |reason: String| StrategyError::ShardBad {
            hash: name.clone(),
            reason,
        };
        let body = amazons_format::file::verified_body(&bytes).map_err(|e| bad(e.to_string()))?;
        if amazons_format::hash_body(body) != *hash {
            return Err(bad("its body hash is not the cited one".into()));
        }
        let cert = amazons_format::decode(&bytes).map_err(|e| bad(e.to_string()))?;
        if cert.root != *claim {
            return Err(bad(format!(
                "it proves {}, not the cited claim",
                cert.root.describe()
            )));
        }
        Ok(Rc::new(Tree::new(cert)))
    }

    /// Follows `Transposition` and `Shard` steps from `node` (the game being at `actual`)
    /// to a step that moves, replies or is a leaf, and says which.
    pub fn resolve(
        &mut self,
        mut node: Node,
        actual: &Position,
    ) -> Result<(Node, Kind), StrategyError> {
        // Each hop lands on a step proving the same claim; a cycle would need a citation of
        // a claim not proven earlier, which `find_cited` refuses. The bound is a backstop.
        for _ in 0..10_000 {
            let step = node.tree.step(node.step)?.clone();
            let claim = Self::claim_at(&node, actual);
            let kind = match step {
                Step::Choice(Action::Board(m)) => {
                    Kind::Choice(unmap_move(node.sym, actual.board, m))
                }
                Step::Choice(Action::Spare) => {
                    return Err(StrategyError::Malformed {
                        step: node.step,
                        reason: "a spare move on the whole board".into(),
                    })
                }
                Step::ReplyAll => Kind::ReplyAll,
                Step::NoMove => Kind::NoMove,
                Step::Outlast { .. } => Kind::Leaf("outlast"),
                Step::Sum { .. } => Kind::Leaf("sum"),
                Step::Search => Kind::Leaf("search"),
                Step::Transposition { symmetry } => {
                    if !symmetry.fits(actual.board) {
                        return Err(StrategyError::Malformed {
                            step: node.step,
                            reason: "a symmetry that does not fit the board".into(),
                        });
                    }
                    let cited = Claim {
                        position: symmetry.apply(&claim.position),
                        ..claim.clone()
                    };
                    let at = node.tree.find_cited(&cited, node.step)?;
                    let sym = Symmetry::ALL
                        .into_iter()
                        .find(|s| s.fits(actual.board) && s.apply(actual) == cited.position)
                        .ok_or(StrategyError::CitedMissing(node.step))?;
                    self.transpositions += 1;
                    node = Node {
                        tree: node.tree.clone(),
                        step: at,
                        sym,
                    };
                    continue;
                }
                Step::Shard { hash } => {
                    let tree = self.shard(&hash, &claim)?;
                    self.shards_entered += 1;
                    node = Node {
                        tree,
                        step: 0,
                        sym: node.sym,
                    };
                    continue;
                }
            };
            return Ok((node, kind));
        }
        Err(StrategyError::Malformed {
            step: node.step,
            reason: "too many transpositions and shards in a row".into(),
        })
    }

    /// The node after the winner plays the move of a resolved `Choice` node.
    pub fn after_choice(node: &Node) -> Node {
        Node {
            step: node.step + 1,
            ..node.clone()
        }
    }

    /// The node after the loser plays `m` (in the game's frame) at a resolved `ReplyAll`
    /// node, the game being at `actual` before the move.
    pub fn after_reply(node: &Node, actual: &Position, m: Move) -> Result<Node, StrategyError> {
        let claim = Self::claim_at(node, actual);
        let stored = map_move(node.sym, actual.board, m);
        let k = loser_actions(&claim)
            .iter()
            .position(|a| *a == Action::Board(stored))
            .ok_or_else(|| {
                StrategyError::Game(format!(
                    "{} is not among the replies the proof covers",
                    m.notation(actual.board)
                ))
            })?;
        let step = node.tree.child_step(node.step, &claim, k)?;
        Ok(Node {
            step,
            ..node.clone()
        })
    }
}
