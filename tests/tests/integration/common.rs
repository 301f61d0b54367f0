//! Shared helpers: paths, a seeded generator, solving, random positions and the proof-tree walker.

use amazons_format::{Cell, Certificate, Claim, Color, Move, Position, Step};
use amazons_solver::{Geometry, Options, Pos, Solved};
use std::path::{Path, PathBuf};

/// The workspace root (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives inside the workspace")
        .to_path_buf()
}

/// This crate's data directory.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

/// splitmix64: a tiny seeded generator, so that every sample is reproducible.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next word of the solver's splitmix64 stream from this state.
    pub fn next_u64(&mut self) -> u64 {
        let mut inner = amazons_solver::db::Rng(self.0);
        let word = inner.next_u64();
        self.0 = inner.0;
        word
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Solver options for tests: a small table, no progress output, full evaluation.
pub fn small_options() -> Options {
    Options {
        hash_mib: 16,
        ..Options::default()
    }
}

/// The same without static evaluation (the foundation solver: terminal and outlast only).
pub fn foundation_options() -> Options {
    Options {
        eval: None,
        ..small_options()
    }
}

/// The full evaluation with plain df-pn numbers (sums over the children) instead of the
/// default weak ones.
pub fn sum_options() -> Options {
    Options {
        numbers: amazons_solver::dfpn::Numbers::Sum,
        ..small_options()
    }
}

/// Solves `position` with the solver, panicking with the position on failure.
pub fn solve(position: &Position) -> Solved {
    amazons_solver::solve(position, &small_options(), "amazons-tests")
        .unwrap_or_else(|e| panic!("solver failed on {}: {e}", position.describe()))
}

/// A random position reached partly by a random playout with the solver engine: a board of
/// `width x height` in `2..=10`, up to four queens of each colour, random arrows, then up
/// to `max_plies` random moves, and a random side to move.
pub fn random_position(rng: &mut Rng, max_side: usize, max_plies: usize) -> Position {
    let (w, h) = (rng.range(2, max_side), rng.range(2, max_side));
    let board = amazons_format::Board::new(w, h).expect("2..=10 is a valid side");
    let mut p = Position::empty(board, Color::White);
    let mut empties: Vec<usize> = (0..board.len()).collect();
    let mut place = |rng: &mut Rng, cell: Cell, p: &mut Position| {
        if !empties.is_empty() {
            let sq = empties.swap_remove(rng.below(empties.len()));
            p.cells[sq] = cell;
        }
    };
    for _ in 0..rng.range(0, 4) {
        place(rng, Cell::White, &mut p);
    }
    for _ in 0..rng.range(0, 4) {
        place(rng, Cell::Black, &mut p);
    }
    let arrow_percent = rng.range(0, 50);
    for _ in 0..board.len() * arrow_percent / 100 {
        place(rng, Cell::Arrow, &mut p);
    }
    p.to_move = if rng.chance(50) {
        Color::White
    } else {
        Color::Black
    };
    let g = Geometry::new(board);
    let mut pos = Pos::from_position(&p);
    for _ in 0..rng.range(0, max_plies) {
        let moves = pos.moves(&g);
        if moves.is_empty() {
            break;
        }
        pos = pos.play(moves[rng.below(moves.len())]);
    }
    let mut out = pos.to_position(&g);
    if rng.chance(50) {
        out.to_move = out.to_move.opponent();
    }
    out
}

/// One node of a certificate's proof tree: the claim its step proves and the extent of its
/// subtree in the preorder step list.
#[derive(Debug, Clone)]
pub struct Node {
    pub claim: Claim,
    /// One past the last step of its subtree.
    pub end: usize,
    /// Step indices of its children, in order.
    pub children: Vec<usize>,
}

/// Walks a certificate the way the checker does (SPEC 4) and returns one node per step,
/// indexed by step. Child counts come from the checker's rules (a `ReplyAll` has one child
/// per action of the side to move, a `Sum` one or two per part); the steps are assumed to
/// be a well-formed proof (use it on certificates that check).
pub fn proof_tree(cert: &Certificate) -> Vec<Node> {
    let mut nodes: Vec<Option<Node>> = vec![None; cert.steps.len()];
    let mut next = 0;
    walk(cert, cert.root.clone(), &mut next, &mut nodes);
    assert_eq!(next, cert.steps.len(), "the walk used every step");
    nodes
        .into_iter()
        .map(|n| n.expect("every step belongs to a node"))
        .collect()
}

fn walk(cert: &Certificate, claim: Claim, next: &mut usize, nodes: &mut [Option<Node>]) {
    let start = *next;
    let step = cert
        .steps
        .get(start)
        .unwrap_or_else(|| panic!("ran out of steps at {start}"));
    *next += 1;
    let child_claims: Vec<Claim> = amazons_solver::strategy::step_children(step, &claim)
        .unwrap_or_else(|e| panic!("step {start}: {e}"));
    let mut children = Vec::with_capacity(child_claims.len());
    for child in child_claims {
        children.push(*next);
        walk(cert, child, next, nodes);
    }
    nodes[start] = Some(Node {
        claim,
        end: *next,
        children,
    });
}

/// `cert` with the steps `range` replaced by `with`.
pub fn splice(cert: &Certificate, range: std::ops::Range<usize>, with: Vec<Step>) -> Certificate {
    let mut out = cert.clone();
    out.steps.splice(range, with);
    out
}

/// The legal moves of the side to move according to the solver's engine.
pub fn solver_moves(p: &Position) -> Vec<Move> {
    let g = Geometry::new(p.board);
    Pos::from_position(p).moves(&g)
}

/// Reads the MCGS test files: `(grid, black_to_move_wins, white_to_move_wins)` for every
/// position line, with the file name for messages.
pub fn mcgs_positions() -> Vec<(String, String, bool, bool)> {
    let dir = workspace_root().join("tests/data/mcgs");
    let mut out = Vec::new();
    for name in ["amazons_3x3.test", "amazons_3x4.test"] {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "missing MCGS test data {}: {e} (tests/data/mcgs in the repository)",
                path.display()
            )
        });
        for line in text.lines() {
            let line = line.trim();
            let Some((grid, rest)) = line.split_once('{') else {
                continue;
            };
            let grid = grid.trim();
            if grid.is_empty() || !grid.contains('|') {
                continue; // the `{version ...}` line
            }
            let rest = rest.trim_end_matches('}');
            let mut b = None;
            let mut w = None;
            for field in rest.split(',') {
                match field.split_whitespace().collect::<Vec<_>>().as_slice() {
                    ["B", "win"] => b = Some(true),
                    ["B", "loss"] => b = Some(false),
                    ["W", "win"] => w = Some(true),
                    ["W", "loss"] => w = Some(false),
                    other => panic!("{name}: unexpected outcome field {other:?} in {line:?}"),
                }
            }
            let (Some(b), Some(w)) = (b, w) else {
                panic!("{name}: line without both outcomes: {line:?}");
            };
            out.push((name.to_string(), grid.to_string(), b, w));
        }
    }
    out
}

/// Freshly solved certificates for tampering: the 4x4 start and a spread of MCGS positions
/// (both sides to move), solved once per test run.
pub fn fresh_certificates() -> &'static [(String, Certificate)] {
    static FRESH: std::sync::OnceLock<Vec<(String, Certificate)>> = std::sync::OnceLock::new();
    FRESH.get_or_init(|| {
        let start = Position::start("4x4").expect("4x4 start");
        let mut out = vec![("4x4 start".to_string(), solve(&start).certificate)];
        for (i, (_, grid, _, _)) in mcgs_positions().iter().enumerate().step_by(4) {
            for to_move in [Color::Black, Color::White] {
                if (i / 4 + usize::from(to_move == Color::White)) % 2 == 0 {
                    continue;
                }
                let p = Position::parse_grid(grid, to_move).expect("MCGS grid");
                out.push((
                    format!("MCGS {grid} {to_move} to move"),
                    solve(&p).certificate,
                ));
            }
        }
        for (label, cert) in &out {
            if let Err(e) = amazons_checker::check(cert) {
                panic!("fresh certificate for {label} rejected:\n{e}");
            }
        }
        out
    })
}

/// The committed certificates: every `*.cert` under `certificates/` (recursively), sorted;
/// empty when the directory is absent.
/// Committed certificates: standalone files and the manifests of sharded results (whose
/// shards, under `shards/` beside them, are not listed).
pub fn committed_certificates() -> Vec<PathBuf> {
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // A sharded result's shards are checked through its manifest.
            if path.is_dir() && path.file_name().is_some_and(|n| n == "shards") {
                continue;
            }
            if path.is_dir() {
                collect(&path, out);
            } else if amazons_format::stored::is_cert_path(&path) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    collect(&workspace_root().join("certificates"), &mut out);
    out.sort();
    out
}

pub use amazons_format::file::HEADER_LEN;
