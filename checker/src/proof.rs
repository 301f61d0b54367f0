//! The proof checker: walks a certificate's steps in preorder and applies the rules of SPEC.md section 5.
//!
//! Every child claim is computed here from the current claim and its step; the certificate
//! only chooses which rule applies. Section numbers below refer to `format/SPEC.md`.

use crate::rules;
use amazons_format::fasthash::Fast;
use amazons_format::{
    Action, Board, Cell, Certificate, Claim, Color, FileError, LocalClaim, Move, Position, Step,
    Symmetry, MAX_SPARE, ONE_PLAYER_EXACT_LIMIT, SEARCH_LIMIT,
};
use std::collections::HashSet;
use std::fmt;
use std::sync::mpsc::SyncSender;

/// Nesting deeper than this (the root is at depth 0) is rejected (SPEC 4).
pub const MAX_DEPTH: usize = 1000;

/// What a successful check established.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The root claim in words (`Claim::describe`).
    pub claim: String,
    /// Number of steps in the certificate (all of them were used).
    pub steps: usize,
    /// Number of distinct claims proven along the way.
    pub proven_claims: usize,
    /// Shard certificates checked (SPEC 5.7) and their steps, all levels included.
    pub shards: usize,
    pub shard_steps: usize,
}

/// Why a step does not prove its claim.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("Choice: {to_move} is to move but is not the claimed winner (Choice is for the winner's turn)")]
    ChoiceWrongSide { to_move: Color },
    #[error(
        "{step}: {to_move} is to move but is the claimed winner ({step} is for the loser's turn)"
    )]
    NotLoserToMove { step: &'static str, to_move: Color },
    #[error("Choice: illegal action {action}")]
    IllegalAction { action: String },
    #[error("ReplyAll: the loser has no action here (that is a NoMove)")]
    ReplyAllNoAction,
    #[error("NoMove: the loser still has an action, e.g. {action}")]
    NoMoveHasAction { action: String },
    #[error("Outlast: move {index} ({mv}) is not a legal move of the winner on the blocked board")]
    OutlastIllegalMove { index: usize, mv: String },
    #[error(
        "Outlast: move {index} ({mv}) moves a blocker without shooting back onto its own square"
    )]
    BlockerNoShootBack { index: usize, mv: String },
    #[error("Outlast: k + x = {k} + {x} < M + y{} = {m} + {y}{} ({listed} listed moves, {} completed before the winner ran out of moves)", plus(*.winner_to_move), plus(*.winner_to_move), k - listed)]
    OutlastShort {
        k: usize,
        listed: usize,
        x: i32,
        m: u64,
        y: i32,
        winner_to_move: bool,
    },
    #[error("Sum: {got} parts given but the position has {expected} live components")]
    SumPartCount { expected: usize, got: usize },
    #[error("Sum: part {part} has bound {bound}, outside -{MAX_SPARE}..={MAX_SPARE}")]
    BoundOutOfRange { part: usize, bound: i32 },
    #[error("Sum: does not add up: s = sum of bounds + x - y = {s}, needs s >= 1, or s = 0 with the loser to move or a strict part")]
    SumShort { s: i64 },
    #[error("Transposition: symmetry {symmetry:?} does not fit the {board} board")]
    SymmetryDoesNotFit { symmetry: Symmetry, board: Board },
    #[error("Transposition: the claim mapped by {symmetry:?} has not been proven earlier in checking order")]
    TranspositionNotProven { symmetry: Symmetry },
    #[error("ran out of steps: the certificate ends before this claim is proven")]
    OutOfSteps,
    #[error("{count} trailing step(s) after the root claim is proven")]
    TrailingSteps { count: usize },
    #[error("proof too deep: more than {MAX_DEPTH} levels of nesting")]
    TooDeep,
    #[error("spare {spare} is outside -{MAX_SPARE}..={MAX_SPARE}")]
    SpareOutOfRange { spare: i32 },
    #[error("the root position is invalid (bad board size or cell count)")]
    InvalidRoot,
    #[error("Shard {hash}: no shard file with this body hash was found")]
    ShardMissing { hash: String },
    #[error("Shard {hash}: the shard file is unreadable: {reason}")]
    ShardUnreadable { hash: Box<str>, reason: Box<str> },
    #[error("Shard {hash}: the shard proves a different claim: {shard_claim}")]
    ShardClaimMismatch {
        hash: Box<str>,
        shard_claim: Box<str>,
    },
    #[error("Shard {hash}: the shard's proof is wrong:\n{detail}")]
    ShardWrong {
        hash: Box<str>,
        detail: Box<CheckError>,
    },
    #[error("Shard {hash}: shards nested more than {MAX_SHARD_DEPTH} deep")]
    ShardTooDeep { hash: String },
    #[error("Search: the position has {empty} empty squares, more than {SEARCH_LIMIT}")]
    SearchTooLarge { empty: usize },
    #[error("Search: the exhaustive search finds that the claimed winner loses")]
    SearchLoses,
    #[error("the root claim has spare {spare}: a certificate file given to the checker must claim a whole-board result (spare 0)")]
    RootSpare { spare: i32 },
}

impl Failure {
    /// Whether this failure means an input is missing or damaged (a shard file not found,
    /// or failing its layout or hash, at any shard depth) rather than a wrong proof.
    pub fn damaged(&self) -> bool {
        match self {
            Failure::ShardMissing { .. } | Failure::ShardUnreadable { .. } => true,
            Failure::ShardWrong { detail, .. } => detail.failure.damaged(),
            _ => false,
        }
    }
}

/// Shards may cite shards at most this deep (SPEC 5.7).
pub const MAX_SHARD_DEPTH: usize = 8;

/// Supplies shard files by the blake3 hash of their body (SPEC 5.7).
pub trait Shards: Sync {
    /// The whole file of the shard whose body hash is `hash`, if there is one. The checker
    /// verifies the hash itself, so a wrong answer is caught, not trusted.
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>>;

    /// Whether the caller has itself already checked, by these same rules, the shard whose
    /// body hash is `hash`, cited by a certificate at shard level `level`, so that its steps
    /// need not be checked again here (its file layout, hash and root claim still are). The
    /// default says no. A caller that did the checking itself (the solver, for shards it
    /// checked when it wrote or resumed them) may say yes, and the answer then rests on that
    /// caller. The checker's own command line says yes only through [`crate::check_parallel`],
    /// for a shard this checker has itself checked at the same level or a deeper one.
    fn already_checked(&self, _hash: &[u8; 32], _level: usize) -> bool {
        false
    }

    /// The number of steps the shard whose body hash is `hash` declares, if known without
    /// reading it whole (`None`: unknown). Only [`crate::check_parallel`] asks, to decide
    /// which shards are checked at the same time (their memory grows with their steps);
    /// no verdict depends on it.
    fn declared_steps(&self, _hash: &[u8; 32]) -> Option<u64> {
        None
    }
}

/// No shards at all: any `Shard` step fails.
pub struct NoShards;

impl Shards for NoShards {
    fn get(&self, _: &[u8; 32]) -> Option<Vec<u8>> {
        None
    }
}

fn hex(hash: &[u8; 32]) -> String {
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

fn plus(winner_to_move: bool) -> &'static str {
    if winner_to_move {
        " + 1"
    } else {
        ""
    }
}

/// A rejected certificate: the rule that failed, where, and the claim there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckError {
    pub failure: Failure,
    /// Index of the step at fault (`steps.len()` when the steps ran out).
    pub step: usize,
    /// Actions from the root to the failing claim, with `[part i, bound a]` entries where a
    /// sum step entered a local certificate.
    pub path: Vec<String>,
    /// The failing claim's position, spare and winner.
    pub position: Position,
    pub spare: i32,
    pub winner: Color,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "step {}: {}", self.step, self.failure)?;
        let path = if self.path.is_empty() {
            "(root)".to_string()
        } else {
            self.path.join(" ")
        };
        writeln!(f, "path: {path}")?;
        let spare = match self.spare {
            0 => "no spare moves".to_string(),
            s if s > 0 => format!("Black holding {s} spare move(s)"),
            s => format!("White holding {} spare move(s)", s.unsigned_abs()),
        };
        writeln!(f, "claim: {} wins, {spare}", self.winner)?;
        if self.position.is_valid() {
            write!(f, "{}", self.position.render())
        } else {
            writeln!(f, "(invalid position)")
        }
    }
}

impl std::error::Error for CheckError {}

/// Why a certificate file was not accepted.
#[derive(Debug, thiserror::Error)]
pub enum CheckFileError {
    /// The file is not a well-formed certificate (SPEC 3).
    #[error("unreadable certificate: {0}")]
    Unreadable(#[from] FileError),
    /// The file is well-formed but its proof is wrong.
    #[error("wrong certificate: {0}")]
    Wrong(#[from] CheckError),
}

/// Decodes and checks a certificate file (no shards available).
pub fn check_bytes(bytes: &[u8]) -> Result<Report, CheckFileError> {
    check_bytes_with(bytes, &NoShards)
}

/// Decodes and checks a certificate file, taking shard files from `shards`. Its root claim
/// must be a whole-board claim (spare 0, see [`whole_board`]).
pub fn check_bytes_with(bytes: &[u8], shards: &dyn Shards) -> Result<Report, CheckFileError> {
    let cert = amazons_format::decode(bytes)?;
    whole_board(&cert)?;
    Ok(check_with(&cert, shards)?)
}

/// The rule for a certificate file given to the checker, as opposed to a shard (SPEC 3): its
/// root claim is about the game itself, so it holds no spare moves. A shard's root may hold
/// spares, since it must equal the claim that cites it.
pub fn whole_board(cert: &Certificate) -> Result<(), CheckError> {
    let spare = cert.root.spare;
    match spare {
        0 => Ok(()),
        _ => Err(error(&[], Failure::RootSpare { spare }, 0, &cert.root)),
    }
}

/// Checks a certificate: its steps must prove the root claim exactly (SPEC 4 and 5). A
/// `Shard` step fails: use [`check_with`] for manifests.
pub fn check(cert: &Certificate) -> Result<Report, CheckError> {
    check_with(cert, &NoShards)
}

/// Checks a certificate, taking the shard files its `Shard` steps cite from `shards`.
pub fn check_with(cert: &Certificate, shards: &dyn Shards) -> Result<Report, CheckError> {
    crate::parallel::check_parallel(cert, shards, 0, &mut |_| {})
}

/// The steps of a certificate, taken one at a time in preorder: decoded from a file
/// ([`amazons_format::file::Steps`]) or from a [`Certificate`] in memory.
pub type StepSource<'a> = dyn ExactSizeIterator<Item = Step> + Send + 'a;

/// Checks that `steps` prove `root`, at shard depth `shard_depth` (0 for the file given to
/// the checker). With `jobs`, its `Shard` steps are not checked here but sent there (see
/// [`crate::parallel`]).
pub(crate) fn check_here(
    root: &Claim,
    steps: &mut StepSource,
    shards: &dyn Shards,
    shard_depth: usize,
    jobs: Option<SyncSender<Job>>,
) -> Result<Report, CheckError> {
    let mut checker = Checker {
        shards,
        shard_depth,
        jobs,
        shard_count: 0,
        shard_steps: 0,
        // Every proven claim has a step of its own, so the set never outgrows the steps;
        // sized up front, it is never rehashed (rehashing was a sixth of the checking).
        proven: Proven::new(root.position.board, steps.len()),
        steps,
        next: 0,
        path: Vec::new(),
        exact: rules::OnePlayer::new(root.position.board),
        search: rules::GameSearch::new(root.position.board),
    };
    if !root.position.is_valid() {
        return Err(checker.fail(Failure::InvalidRoot, 0, root));
    }
    checker.prove(root.clone(), 0)?;
    let count = checker.steps.len();
    if count > 0 {
        return Err(checker.fail(Failure::TrailingSteps { count }, checker.next, root));
    }
    Ok(Report {
        claim: root.describe(),
        steps: checker.next,
        proven_claims: checker.proven.len(),
        shards: checker.shard_count,
        shard_steps: checker.shard_steps,
    })
}

/// A child of a step: an action of the side to move (its claim is made when it is visited,
/// so that a wide `ReplyAll` does not hold all its child positions at once), or a local
/// claim of a sum.
enum Child {
    Action(Action),
    Local { entry: Entry, claim: Claim },
}

/// One entry of the path from the root, rendered only when a check fails.
#[derive(Clone, Copy)]
pub(crate) enum Entry {
    Action(Action),
    Part {
        part: usize,
        strict: bool,
        bound: i32,
    },
}

struct Checker<'a> {
    /// The steps not read yet, and the index of the next one.
    steps: &'a mut StepSource<'a>,
    next: usize,
    /// Claims whose whole subtree has been checked (SPEC 4).
    proven: Proven,
    /// Path from the root to the current claim, for error messages.
    path: Vec<Entry>,
    /// The one-player search, whose memo is kept for the whole check (SPEC 5.4).
    exact: rules::OnePlayer,
    /// The two-player search, whose memo is kept for the whole check (SPEC 5.8).
    search: rules::GameSearch,
    /// Where `Shard` steps find their files, and how deep in shards this check is.
    shards: &'a dyn Shards,
    shard_depth: usize,
    /// Where `Shard` steps go to be checked on other threads, if they do.
    jobs: Option<SyncSender<Job>>,
    shard_count: usize,
    shard_steps: usize,
}

/// The rejection of `claim` by the step at index `step`, reached by `path`.
pub(crate) fn error(path: &[Entry], failure: Failure, step: usize, claim: &Claim) -> CheckError {
    let board = claim.position.board;
    let path = path.iter().map(|entry| match *entry {
        Entry::Action(a) => action_text(board, a),
        Entry::Part {
            part,
            strict,
            bound,
        } => {
            let strict = if strict { " strict" } else { "" };
            format!("[part {part}{strict}, bound {bound}]")
        }
    });
    CheckError {
        failure,
        step,
        path: path.collect(),
        position: claim.position.clone(),
        spare: claim.spare,
        winner: claim.winner,
    }
}

/// A claim packed into 256 bits, 2 bits at a time from bit 0: its cells (at most 100), then
/// the side to move and the winner, then the spare plus 128 (|spare| <= 100 is checked
/// before a claim is proven or cited) in four pairs of bits. A board of `n` squares uses
/// the low `2n + 10` bits, so two claims on one board are equal exactly when their keys are.
pub fn key(claim: &Claim) -> [u64; 4] {
    let (to_move, winner) = (claim.position.to_move as u64, claim.winner as u64);
    let spare = u64::from((claim.spare + 128) as u8);
    let flags = [
        to_move | winner << 1,
        spare & 3,
        spare >> 2 & 3,
        spare >> 4 & 3,
        spare >> 6,
    ];
    let cells = claim.position.cells.iter().map(|&cell| cell as u64);
    let mut key = [0u64; 4];
    for (i, pair) in cells.take(100).chain(flags).enumerate() {
        key[i / 32] |= pair << (2 * (i % 32));
    }
    key
}

/// The low 128 bits of a key: all of it on a board of at most 59 squares (2 * 59 + 10).
fn narrow(key: [u64; 4]) -> u128 {
    u128::from(key[0]) | u128::from(key[1]) << 64
}

/// The claims proven so far in one check (SPEC 4), as their [`key`]s: all of them are on
/// the root's board, so the set of keys is the set of claims, with no cell vector per
/// claim. On boards of at most 59 squares the keys are kept [`narrow`]: half the memory.
pub enum Proven {
    Narrow(HashSet<u128, Fast>),
    Wide(HashSet<[u64; 4], Fast>),
}

impl Proven {
    /// An empty set for claims on `board`, with room for `capacity` of them.
    pub fn new(board: Board, capacity: usize) -> Proven {
        if 2 * board.len() + 10 <= 128 {
            Proven::Narrow(HashSet::with_capacity_and_hasher(capacity, Fast::default()))
        } else {
            Proven::Wide(HashSet::with_capacity_and_hasher(capacity, Fast::default()))
        }
    }

    pub fn insert(&mut self, claim: &Claim) {
        match self {
            Proven::Narrow(set) => set.insert(narrow(key(claim))),
            Proven::Wide(set) => set.insert(key(claim)),
        };
    }

    pub fn contains(&self, claim: &Claim) -> bool {
        match self {
            Proven::Narrow(set) => set.contains(&narrow(key(claim))),
            Proven::Wide(set) => set.contains(&key(claim)),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Proven::Narrow(set) => set.len(),
            Proven::Wide(set) => set.len(),
        }
    }
}

/// A `Shard` step of the top-level certificate, to be checked on another thread.
pub(crate) struct Job {
    pub hash: [u8; 32],
    pub claim: Claim,
    /// Index of the `Shard` step and the path to its claim, for the error message.
    pub step: usize,
    pub path: Vec<Entry>,
}

impl Checker<'_> {
    fn fail(&self, failure: Failure, step: usize, claim: &Claim) -> CheckError {
        error(&self.path, failure, step, claim)
    }

    /// Proves `claim` with the next step and then its children, recursively (SPEC 4).
    fn prove(&mut self, claim: Claim, depth: usize) -> Result<(), CheckError> {
        let here = self.next;
        if depth > MAX_DEPTH {
            return Err(self.fail(Failure::TooDeep, here, &claim));
        }
        if claim.spare.unsigned_abs() > MAX_SPARE.unsigned_abs() {
            let failure = Failure::SpareOutOfRange { spare: claim.spare };
            return Err(self.fail(failure, here, &claim));
        }
        let Some(step) = self.steps.next() else {
            return Err(self.fail(Failure::OutOfSteps, here, &claim));
        };
        self.next += 1;
        let children = self
            .children(&step, &claim)
            .map_err(|failure| self.fail(failure, here, &claim))?;
        for child in children {
            let (entry, child) = match child {
                Child::Action(a) => (Entry::Action(a), after(&claim, a)),
                Child::Local { entry, claim } => (entry, claim),
            };
            self.path.push(entry);
            self.prove(child, depth + 1)?;
            self.path.pop();
        }
        self.proven.insert(&claim);
        Ok(())
    }

    /// Checks the step's own condition and returns the children it leaves to prove.
    fn children(&mut self, step: &Step, claim: &Claim) -> Result<Vec<Child>, Failure> {
        let pos = &claim.position;
        let x_color = claim.winner;
        match step {
            // 5.1 Choice: X to move wins if one of its actions leads to a state X wins; the
            // action must be legal for X here, and the child is computed from it.
            Step::Choice(action) => {
                if pos.to_move != x_color {
                    return Err(Failure::ChoiceWrongSide {
                        to_move: pos.to_move,
                    });
                }
                let legal = match *action {
                    Action::Board(m) => rules::is_legal(pos, m),
                    Action::Spare => claim.spares_of(x_color) >= 1,
                };
                if !legal {
                    let action = action_text(pos.board, *action);
                    return Err(Failure::IllegalAction { action });
                }
                Ok(vec![Child::Action(*action)])
            }
            // 5.2 Reply-all: Y to move loses if every action of Y leads to a state X wins; the
            // action list comes from our own generator, so no reply can be left out.
            Step::ReplyAll => {
                let actions = self.loser_actions(claim, "ReplyAll")?;
                if actions.is_empty() {
                    return Err(Failure::ReplyAllNoAction);
                }
                Ok(actions.into_iter().map(Child::Action).collect())
            }
            // 5.3 No move: under normal play the player to move without an action loses.
            Step::NoMove => match self.loser_actions(claim, "NoMove")?.first() {
                None => Ok(Vec::new()),
                Some(&a) => Err(Failure::NoMoveHasAction {
                    action: action_text(pos.board, a),
                }),
            },
            Step::Outlast { moves } => {
                self.outlast(claim, moves)?;
                Ok(Vec::new())
            }
            // 5.8 Search: minimax over every action is the definition of winning; the limit
            // only bounds the checker's time.
            Step::Search => {
                let empty = (pos.cells.iter()).filter(|&&c| c == Cell::Empty).count();
                if empty > SEARCH_LIMIT {
                    return Err(Failure::SearchTooLarge { empty });
                }
                let x_to_move = pos.to_move == x_color;
                if self.search.mover_wins(pos, claim.spare) != x_to_move {
                    return Err(Failure::SearchLoses);
                }
                Ok(Vec::new())
            }
            Step::Sum { parts } => sum(claim, parts),
            Step::Shard { hash } => {
                self.shard(claim, hash)?;
                Ok(Vec::new())
            }
            // 5.6 Transposition: a board symmetry maps legal moves to legal moves, so it keeps
            // the winner; a claim is in `proven` only once its whole subtree is checked, so an
            // ancestor (or the claim itself) can never be cited and citations are acyclic.
            Step::Transposition { symmetry } => {
                if !symmetry.fits(pos.board) {
                    return Err(Failure::SymmetryDoesNotFit {
                        symmetry: *symmetry,
                        board: pos.board,
                    });
                }
                let cited = Claim {
                    position: symmetry.apply(pos),
                    spare: claim.spare,
                    winner: claim.winner,
                };
                if !self.proven.contains(&cited) {
                    return Err(Failure::TranspositionNotProven {
                        symmetry: *symmetry,
                    });
                }
                Ok(Vec::new())
            }
        }
    }

    /// 5.7 Shard: checked here, or sent to another thread (top level only): the verdict
    /// is the same, see [`crate::parallel`].
    fn shard(&mut self, claim: &Claim, hash: &[u8; 32]) -> Result<(), Failure> {
        if let Some(jobs) = &self.jobs {
            let (claim, path) = (claim.clone(), self.path.clone());
            let step = self.next - 1;
            // A closed channel means the checking threads stopped on a failure, which is
            // reported from there.
            let _ = jobs.send(Job {
                hash: *hash,
                claim,
                step,
                path,
            });
            return Ok(());
        }
        let report = check_shard(self.shards, claim, hash, self.shard_depth)?;
        self.shard_count += 1 + report.shards;
        self.shard_steps += report.steps + report.shard_steps;
        Ok(())
    }

    /// Y's actions in canonical order (SPEC 2), after checking that Y is to move.
    fn loser_actions(&self, claim: &Claim, step: &'static str) -> Result<Vec<Action>, Failure> {
        let to_move = claim.position.to_move;
        if to_move == claim.winner {
            return Err(Failure::NotLoserToMove { step, to_move });
        }
        Ok(actions(claim))
    }

    /// 5.4 Outlast, see [`outlast_line`].
    fn outlast(&mut self, claim: &Claim, moves: &[Move]) -> Result<(), Failure> {
        outlast_line(claim, moves, &mut self.exact).map(|_| ())
    }
}

/// 5.4 Outlast: checks `moves` for `claim` and returns X's whole line, the listed moves then
/// the completion (X's first legal move in canonical order, shoot-back obeyed, until the
/// inequality holds). `exact` is the one-player search (its memo may be shared).
///
/// Sound (SPEC 5.4): the squares around `R` are arrows or X queens (an empty one would be in
/// `R`); a blocker's first move shoots back onto its own square, so the wall never opens and
/// Y stays inside `R` while X's moves stay outside it. X's line therefore stays legal whatever
/// Y does (a completed move is checked like a listed one), X has at least `k + x` actions and
/// Y at most `M + y` (exact one-player maxima, or one move per empty square), and the player
/// to move runs out first under the stated inequality.
pub fn outlast_line(
    claim: &Claim,
    moves: &[Move],
    exact: &mut rules::OnePlayer,
) -> Result<Vec<Move>, Failure> {
    let pos = &claim.position;
    let (x_color, y_color) = (claim.winner, claim.winner.opponent());
    let in_r = rules::region(pos, y_color);
    let mut blocked = pos.cells.clone();
    let mut blocker = vec![false; blocked.len()];
    for sq in 0..blocked.len() {
        if in_r[sq] {
            blocked[sq] = Cell::Arrow;
        } else if pos.cells[sq] == Cell::queen(x_color) {
            blocker[sq] = rules::neighbours(pos.board, sq).any(|n| in_r[n]);
        }
    }
    for (index, &m) in moves.iter().enumerate() {
        play_alone(pos.board, &mut blocked, &mut blocker, x_color, index, m)?;
    }
    let (x, y) = (claim.spares_of(x_color), claim.spares_of(y_color));
    let winner_to_move = pos.to_move == x_color;
    // The number of X moves needed against the bound `m`.
    let need = |m: u64| (m + y as u64 + u64::from(winner_to_move)).saturating_sub(x as u64);
    let empties = |squares: &mut dyn Iterator<Item = usize>| {
        squares.filter(|&sq| pos.cells[sq] == Cell::Empty).count()
    };
    // Completion, against one move per empty square of R (a bound on every exact maximum):
    // the line is the same whatever the bound, so stopping at a larger one changes no verdict.
    let mut line = moves.to_vec();
    let coarse = need(empties(&mut (0..in_r.len()).filter(|&sq| in_r[sq])) as u64);
    while (line.len() as u64) < coarse {
        let Some(m) = rules::first_move(pos.board, &blocked, x_color, &blocker) else {
            break;
        };
        play_alone(
            pos.board,
            &mut blocked,
            &mut blocker,
            x_color,
            line.len(),
            m,
        )?;
        line.push(m);
    }
    if line.len() as u64 >= coarse {
        return Ok(line);
    }
    let mut m_bound: u64 = 0;
    for comp in &rules::components(pos.board, &in_r) {
        let e = empties(&mut comp.iter().copied());
        m_bound += if e <= ONE_PLAYER_EXACT_LIMIT {
            u64::from(exact.max(&rules::restrict(pos, comp), y_color))
        } else {
            e as u64
        };
    }
    if (line.len() as u64) < need(m_bound) {
        return Err(Failure::OutlastShort {
            k: line.len(),
            listed: moves.len(),
            x,
            m: m_bound,
            y,
            winner_to_move,
        });
    }
    Ok(line)
}

/// Plays move `index` of X's outlast line on the blocked board: it must be legal there, and
/// an unmoved blocker must shoot back onto its own square (SPEC 5.4).
fn play_alone(
    board: Board,
    blocked: &mut [Cell],
    blocker: &mut [bool],
    x_color: Color,
    index: usize,
    m: Move,
) -> Result<(), Failure> {
    let from = m.from as usize;
    if blocker.get(from) == Some(&true) && m.arrow != m.from {
        let mv = move_text(board, m);
        return Err(Failure::BlockerNoShootBack { index, mv });
    }
    if !rules::play_alone(board, blocked, x_color, m) {
        let mv = move_text(board, m);
        return Err(Failure::OutlastIllegalMove { index, mv });
    }
    blocker[from] = false;
    Ok(())
}

/// 5.7 Shard, cited by a certificate at shard depth `depth`. Sound (SPEC 5.7): the shard
/// file's body hash must be the cited one, its root claim must be exactly this claim, and its
/// proof is checked by these same rules. An already checked shard counts with no steps.
pub(crate) fn check_shard(
    shards: &dyn Shards,
    claim: &Claim,
    hash: &[u8; 32],
    depth: usize,
) -> Result<Report, Failure> {
    let name = hex(hash);
    if depth >= MAX_SHARD_DEPTH {
        return Err(Failure::ShardTooDeep { hash: name });
    }
    let bytes = shards
        .get(hash)
        .ok_or_else(|| Failure::ShardMissing { hash: name.clone() })?;
    let unreadable = |reason: String| Failure::ShardUnreadable {
        hash: name.as_str().into(),
        reason: reason.into(),
    };
    let body =
        amazons_format::file::verified_body(&bytes).map_err(|e| unreadable(e.to_string()))?;
    if amazons_format::hash_body(body) != *hash {
        return Err(unreadable("its body hash is not the cited one".to_string()));
    }
    // The steps stay encoded in `bytes`, decoded one at a time as the check reads them.
    let mut cert = amazons_format::decode_lazy(&bytes).map_err(|e| unreadable(e.to_string()))?;
    if cert.root != *claim {
        return Err(Failure::ShardClaimMismatch {
            hash: name.into(),
            shard_claim: cert.root.describe().into(),
        });
    }
    if shards.already_checked(hash, depth) {
        let claim = cert.root.describe();
        let (steps, proven_claims, shards, shard_steps) = (0, 0, 0, 0);
        #[rustfmt::skip]
        return Ok(Report { claim, steps, proven_claims, shards, shard_steps });
    }
    check_here(&cert.root, &mut cert.steps, shards, depth + 1, None).map_err(|e| {
        Failure::ShardWrong {
            hash: name.into(),
            detail: Box::new(e),
        }
    })
}

/// 5.5 Sum. Sound (SPEC 5.5): arrows separate the components, so P plus the spares is the
/// disjunctive sum of the local positions and the integer `x - y`. The first child of part i
/// shows `C_i >= a_i` (X wins `C_i - a_i` moving second), the strict child `C_i > a_i` (X also
/// wins moving first); the inequalities add to `P + t >= s`, strict if some part is, and the
/// acceptance condition turns that into "X wins with the side to move in P".
fn sum(claim: &Claim, parts: &[LocalClaim]) -> Result<Vec<Child>, Failure> {
    let pos = &claim.position;
    let (x_color, y_color) = (claim.winner, claim.winner.opponent());
    let live = live_components(pos);
    if live.len() != parts.len() {
        return Err(Failure::SumPartCount {
            expected: live.len(),
            got: parts.len(),
        });
    }
    let mut s = i64::from(claim.spares_of(x_color)) - i64::from(claim.spares_of(y_color));
    for (i, part) in parts.iter().enumerate() {
        if part.bound.unsigned_abs() > MAX_SPARE.unsigned_abs() {
            return Err(Failure::BoundOutOfRange {
                part: i + 1,
                bound: part.bound,
            });
        }
        s += i64::from(part.bound);
    }
    let strict = parts.iter().any(|p| p.strict);
    if !(s >= 1 || (s == 0 && (pos.to_move == y_color || strict))) {
        return Err(Failure::SumShort { s });
    }
    let children = part_claims(claim, &live, parts)
        .into_iter()
        .map(|p| {
            let entry = Entry::Part {
                part: p.part + 1,
                strict: p.strict,
                bound: parts[p.part].bound,
            };
            Child::Local {
                entry,
                claim: p.claim,
            }
        })
        .collect();
    Ok(children)
}

/// One claim a Sum step makes about one of its parts (SPEC 5.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartClaim {
    /// The part's index in the step (from 0), and of its live component.
    pub part: usize,
    /// Whether this is the strict child (X to move) rather than the first (Y to move).
    pub strict: bool,
    /// X wins the component's local position, Y holding the part's bound in spare moves.
    pub claim: Claim,
}

/// The children of a Sum step at `claim` (SPEC 5.5), in checking order: for part i on live
/// component `live[i]`, the claim with Y to move, then, for a strict part, the same with X
/// to move. Pairs components and parts in order; the caller checks that they match.
pub fn part_claims(claim: &Claim, live: &[Vec<usize>], parts: &[LocalClaim]) -> Vec<PartClaim> {
    let (x_color, y_color) = (claim.winner, claim.winner.opponent());
    let mut out = Vec::new();
    for (i, (comp, part)) in live.iter().zip(parts).enumerate() {
        let local = rules::restrict(&claim.position, comp);
        // Y holds `bound` spare moves (X holds `-bound` when it is negative).
        let spare = match y_color {
            Color::Black => part.bound,
            Color::White => -part.bound,
        };
        let mut child = |to_move: Color, strict: bool| {
            let mut position = local.clone();
            position.to_move = to_move;
            let claim = Claim {
                position,
                spare,
                winner: x_color,
            };
            out.push(PartClaim {
                part: i,
                strict,
                claim,
            });
        };
        child(y_color, false);
        if part.strict {
            child(x_color, true);
        }
    }
    out
}

/// The actions of the side to move in canonical order (SPEC 2): its board moves in
/// canonical order, then a spare move if it holds one.
pub fn actions(claim: &Claim) -> Vec<Action> {
    let mut out: Vec<Action> = rules::legal_moves(&claim.position)
        .into_iter()
        .map(Action::Board)
        .collect();
    if claim.spares_of(claim.position.to_move) >= 1 {
        out.push(Action::Spare);
    }
    out
}

/// The live components of the basic partition (SPEC 5.5), in component order: those with
/// an empty square and a queen.
pub fn live_components(pos: &Position) -> Vec<Vec<usize>> {
    rules::partition(pos)
        .into_iter()
        .filter(|comp| {
            let has = |cell: Cell| comp.iter().any(|&sq| pos.cells[sq] == cell);
            has(Cell::Empty) && (has(Cell::White) || has(Cell::Black))
        })
        .collect()
}

/// The claim after the side to move takes `action` (which must be legal): a board move, or
/// one of its spare moves (SPEC 2); the winner stays.
pub fn after(claim: &Claim, action: Action) -> Claim {
    let mover = claim.position.to_move;
    match action {
        Action::Board(m) => Claim {
            position: rules::play(&claim.position, m),
            spare: claim.spare,
            winner: claim.winner,
        },
        Action::Spare => {
            let mut position = claim.position.clone();
            position.to_move = mover.opponent();
            let spare = match mover {
                Color::Black => claim.spare - 1,
                Color::White => claim.spare + 1,
            };
            Claim {
                position,
                spare,
                winner: claim.winner,
            }
        }
    }
}

/// A move in notation, or its raw square numbers when one is off the board.
fn move_text(board: Board, m: Move) -> String {
    let n = board.len();
    if (m.from as usize) < n && (m.to as usize) < n && (m.arrow as usize) < n {
        m.notation(board)
    } else {
        format!(
            "squares {}-{}x{} (off the {board} board)",
            m.from, m.to, m.arrow
        )
    }
}

fn action_text(board: Board, action: Action) -> String {
    match action {
        Action::Board(m) => move_text(board, m),
        Action::Spare => "spare".to_string(),
    }
}
