//! The certificate data model: claims, proof steps and the certificate itself.
//!
//! A certificate is a root [`Claim`] and a list of [`Step`]s in *preorder*: each step
//! proves the claim in front of it, and the claims of its children follow it in the
//! order the specification fixes (see `SPEC.md`). The checker derives every child claim
//! itself; the certificate never states a child claim.

use crate::board::{Board, Color, Move, Position, Square};
use serde::{Deserialize, Serialize};

/// Spare-move counts beyond this (in absolute value) are rejected by the checker: no
/// board up to 10x10 gives a meaningful bound beyond 100.
pub const MAX_SPARE: i32 = 100;

/// A part of the outlast region with at most this many empty squares has its one-player
/// maximum computed exactly by the checker; larger parts count one move per empty square.
pub const ONE_PLAYER_EXACT_LIMIT: usize = 12;

/// A claim whose position has at most this many empty squares may be proven by a
/// [`Step::Search`]: the checker decides it by exhaustive search (SPEC 5.8).
pub const SEARCH_LIMIT: usize = 10;

/// "`winner` wins `position` (with its side to move) when the players also hold spare
/// moves": `spare > 0` means Black holds `spare` spare moves, `spare < 0` White holds
/// `-spare`. Whole-board claims have `spare == 0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Claim {
    pub position: Position,
    pub spare: i32,
    pub winner: Color,
}

impl Claim {
    /// Spare moves held by `color` (0 if the other side holds them).
    pub fn spares_of(&self, color: Color) -> i32 {
        match color {
            Color::Black => self.spare.max(0),
            Color::White => (-self.spare).max(0),
        }
    }

    /// The claim in words, e.g. `Black wins 4x4 start, White to move`.
    pub fn describe(&self) -> String {
        let mut s = format!("{} wins {}", self.winner, self.position.describe());
        if self.spare != 0 {
            let holder = if self.spare > 0 {
                Color::Black
            } else {
                Color::White
            };
            s.push_str(&format!(
                ", {holder} holding {} spare move(s)",
                self.spare.abs()
            ));
        }
        s
    }
}

/// One action of a player: a board move, or taking one of the player's spare moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Action {
    Board(Move),
    Spare,
}

impl Action {
    /// `b1-b4xd4` or `spare`.
    pub fn notation(self, board: Board) -> String {
        match self {
            Action::Board(m) => m.notation(board),
            Action::Spare => "spare".to_string(),
        }
    }
}

/// One local claim of a [`Step::Sum`]: the component is at least `bound` from the
/// winner's side (strictly greater when `strict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LocalClaim {
    pub bound: i32,
    pub strict: bool,
}

/// A symmetry of the board, used to cite a transposed claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Symmetry {
    Identity,
    /// Mirror files: x -> w-1-x.
    FlipFiles,
    /// Mirror ranks: y -> h-1-y.
    FlipRanks,
    /// Both mirrors (rotation by 180 degrees).
    Rotate180,
    /// Swap files and ranks: (x, y) -> (y, x). Square boards only.
    Transpose,
    /// (x, y) -> (w-1-y, h-1-x). Square boards only.
    AntiTranspose,
    /// (x, y) -> (y, w-1-x). Square boards only.
    Rotate90,
    /// (x, y) -> (h-1-y, x). Square boards only.
    Rotate270,
}

impl Symmetry {
    /// All eight symmetries (the last four need a square board).
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::FlipFiles,
        Symmetry::FlipRanks,
        Symmetry::Rotate180,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
        Symmetry::Rotate90,
        Symmetry::Rotate270,
    ];

    /// Whether this symmetry maps the board onto itself.
    pub fn fits(self, board: Board) -> bool {
        matches!(
            self,
            Symmetry::Identity | Symmetry::FlipFiles | Symmetry::FlipRanks | Symmetry::Rotate180
        ) || board.width == board.height
    }

    /// The image of square `sq` (the symmetry must fit the board).
    pub fn map(self, board: Board, sq: Square) -> Square {
        let (w, h) = (board.width as usize, board.height as usize);
        let (x, y) = board.coords(sq);
        let (nx, ny) = match self {
            Symmetry::Identity => (x, y),
            Symmetry::FlipFiles => (w - 1 - x, y),
            Symmetry::FlipRanks => (x, h - 1 - y),
            Symmetry::Rotate180 => (w - 1 - x, h - 1 - y),
            Symmetry::Transpose => (y, x),
            Symmetry::AntiTranspose => (w - 1 - y, h - 1 - x),
            Symmetry::Rotate90 => (y, w - 1 - x),
            Symmetry::Rotate270 => (h - 1 - y, x),
        };
        board.square(nx, ny)
    }

    /// The position with every cell moved by this symmetry (same side to move).
    pub fn apply(self, position: &Position) -> Position {
        let mut out = position.clone();
        if !position.is_valid() {
            return out;
        }
        for (sq, &cell) in position.cells.iter().enumerate() {
            if let Some(target) = out
                .cells
                .get_mut(self.map(position.board, sq as Square) as usize)
            {
                *target = cell;
            }
        }
        out
    }
}

/// One proof step. The claim it proves is "X wins S" where X is the claim's winner and
/// Y the loser; see `SPEC.md` for the children each step has and why it is sound.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// X to move: play this action; one child (the resulting claim).
    Choice(Action),
    /// Y to move: one child per action of Y, in the order the checker generates them.
    ReplyAll,
    /// Y to move has no action at all. No children.
    NoMove,
    /// The territory argument: X plays `moves` on the board with Y's region blocked.
    /// No children.
    Outlast { moves: Vec<Move> },
    /// Decomposition into the basic partition's live components, one local claim each
    /// (in component order); children are the local certificates.
    Sum { parts: Vec<LocalClaim> },
    /// The claim, mapped by `symmetry`, was proven earlier in checking order. No children.
    Transposition { symmetry: Symmetry },
    /// The claim is proven by another certificate file (a *shard*) whose body has this
    /// blake3 hash and whose root claim is exactly this claim. No children.
    Shard { hash: [u8; 32] },
    /// The position has at most [`SEARCH_LIMIT`] empty squares and the checker's own
    /// exhaustive search finds that X wins. No children.
    Search,
}

/// Information about how a certificate was made. Not checked, not trusted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    /// Program and version that produced the certificate.
    pub producer: String,
    /// Search nodes the producer spent.
    pub nodes: u64,
    /// Wall time the producer spent, in milliseconds.
    pub millis: u64,
    /// Free text (e.g. the command line).
    pub note: String,
}

/// A whole certificate: the root claim, its proof in preorder, and metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Certificate {
    pub root: Claim,
    pub steps: Vec<Step>,
    pub meta: Meta,
}
