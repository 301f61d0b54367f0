//! Self-play position test set (paper section V-C): a simple player, game files, and the solved-per-move-number table.
//!
//! The paper (Song & Müller 2014, Tables II and III) takes 100 self-play games per
//! board and, starting from the end of each game, tests every position with the static
//! evaluation and with a df-pn search of bounded effort. This module reproduces that
//! experiment:
//!
//! * [`self_play`] plays one game with a deterministic 1-ply greedy player (queen-move
//!   distance territory plus mobility, seeded xorshift noise) until the side to move has
//!   no move;
//! * [`generate`] writes one game file per board (`game N: m1 m2 ...`), atomically;
//! * [`run_table`] / [`table`] read a game file and, per move number `n` (the position
//!   after `n` moves, counted from the end of the games backwards), count the positions
//!   decided statically at the root under each evaluation configuration and by df-pn
//!   within a node budget, cross-checking every verdict and every certificate.

use crate::dfpn::Options;
use crate::eval::{EvalConfig, Evaluator};
use crate::geometry::Geometry;
use crate::pos::Pos;
use crate::territory::Territory;
use crate::{solve, SolveError};
use amazons_format::{Board, Color, Move, NotationError, Position};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Description of the player, written into every game file header.
pub const PLAYER: &str = "1-ply greedy: each move maximizes 8*(empty squares nearer by queen-move \
distance to own queens than to the opponent's, minus the reverse) + (own one-move queen reach - \
opponent's), +10000 if the opponent is left without a move; ties broken at random; with \
probability 1/8 a uniform pick among the 6 best moves instead (seeded xorshift64*)";

/// Generator name written into the headers.
pub const GENERATOR: &str = "amazons_solver::testset::generate";

/// Errors of the test-set functions.
#[derive(Debug, thiserror::Error)]
pub enum TestsetError {
    /// The cause is in the message, not a `source`, so that a printed error chain says
    /// it once.
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error(transparent)]
    Notation(#[from] NotationError),
    #[error("{path}, line {line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}, game {game}: move {ply} ({mv}) is illegal")]
    IllegalMove {
        path: PathBuf,
        game: usize,
        ply: usize,
        mv: String,
    },
    #[error("{path}, game {game}: the side to move still has a move at the end of the game")]
    Unfinished { path: PathBuf, game: usize },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TestsetError + '_ {
    move |error| TestsetError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// xorshift64* generator (deterministic, no external crate).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from any seed (mixed by splitmix64 so that nearby seeds differ).
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_F491_4F6C_DD1D } else { z })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`; tiny modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) % n.max(1) as u64) as usize
    }
}

/// Queen-move distances from `queens` to every square (`u8::MAX` if unreachable).
fn distances(g: &Geometry, occ: crate::bitboard::Bb, queens: crate::bitboard::Bb) -> Vec<u8> {
    let mut d = vec![u8::MAX; g.len as usize];
    let mut seen = queens;
    let mut frontier = queens;
    let mut k = 0u8;
    while frontier.any() {
        k += 1;
        let mut next = crate::bitboard::Bb::EMPTY;
        for sq in frontier.iter() {
            next |= g.queen_attacks(sq, occ);
        }
        next = next - seen;
        for sq in next.iter() {
            d[sq as usize] = k;
        }
        seen |= next;
        frontier = next;
    }
    d
}

/// The player's score of `after` for `me` (higher is better for `me`).
fn score(g: &Geometry, after: &Pos, me: Color) -> i64 {
    let you = me.opponent();
    if !after.can_move(g, you) {
        return 1_000_000;
    }
    let occ = after.occupied();
    let dm = distances(g, occ, after.queens(me));
    let dy = distances(g, occ, after.queens(you));
    let mut terr = 0i64;
    let mut mob = 0i64;
    for sq in after.empty(g).iter() {
        let (a, b) = (dm[sq as usize], dy[sq as usize]);
        terr += (a < b) as i64 - (b < a) as i64;
        mob += (a == 1) as i64 - (b == 1) as i64;
    }
    8 * terr + mob
}

/// The player's move in `pos` (`None` if the side to move has no move).
fn choose(g: &Geometry, pos: &Pos, rng: &mut Rng) -> Option<Move> {
    let me = pos.side;
    let mut scored: Vec<(i64, Move)> = pos
        .moves(g)
        .into_iter()
        .map(|m| (score(g, &pos.play(m), me), m))
        .collect();
    if scored.is_empty() {
        return None;
    }
    // Stable sort: equal scores keep canonical order; the random pick breaks ties.
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    if rng.below(8) == 0 {
        let k = scored.len().min(6);
        return Some(scored[rng.below(k)].1);
    }
    let best = scored[0].0;
    let ties = scored.iter().take_while(|s| s.0 == best).count();
    Some(scored[rng.below(ties)].1)
}

/// Plays one self-play game from the start position of `board` (e.g. `"6x5"`: width 6,
/// height 5) until the side to move has no move (it loses). Deterministic in `seed`.
pub fn self_play(board: &str, seed: u64) -> Result<Vec<Move>, TestsetError> {
    let start = Position::start(board)?;
    let g = Geometry::new(start.board);
    let mut pos = Pos::from_position(&start);
    let mut rng = Rng::new(seed);
    let mut line = Vec::new();
    while let Some(m) = choose(&g, &pos, &mut rng) {
        line.push(m);
        pos = pos.play(m);
    }
    Ok(line)
}

/// The seed of game `i` (from 1) of a set generated with `seed`.
fn game_seed(seed: u64, i: usize) -> u64 {
    seed ^ (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
}

/// The game-file name of a board.
pub fn file_name(board: &str) -> String {
    format!("{}.txt", board.trim().to_ascii_lowercase())
}

/// The text of a game file (header comment plus one game per line).
pub fn game_file_text(board: &str, games: usize, seed: u64) -> Result<String, TestsetError> {
    let b = Board::parse(board)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Amazons self-play test set (paper section V-C, Tables II/III)"
    );
    let _ = writeln!(out, "# board: {b}");
    let _ = writeln!(out, "# generator: {GENERATOR}, seed {seed}, games {games}");
    let _ = writeln!(out, "# player: {PLAYER}");
    let _ = writeln!(
        out,
        "# start: small-board start of the paper (White to move); game i uses the player seed \
seed ^ (i * 0xD1B54A32D192ED03)"
    );
    let _ = writeln!(
        out,
        "# each line: moves from the start; after the last one the side to move has no move"
    );
    for i in 1..=games {
        let line = self_play(board, game_seed(seed, i))?;
        let moves: Vec<String> = line.iter().map(|m| m.notation(b)).collect();
        let _ = writeln!(out, "game {i}: {}", moves.join(" "));
    }
    Ok(out)
}

/// Writes `text` to `path` atomically (temporary file in the same directory, then rename).
fn write_atomic(path: &Path, text: &str) -> Result<(), TestsetError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// Generates `games` self-play games for each board and writes `dir/<board>.txt`
/// (atomically). Returns the files written.
pub fn generate(
    dir: &Path,
    boards: &[&str],
    games: usize,
    seed: u64,
) -> Result<Vec<PathBuf>, TestsetError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let mut written = Vec::new();
    for board in boards {
        let text = game_file_text(board, games, seed)?;
        let path = dir.join(file_name(board));
        write_atomic(&path, &text)?;
        written.push(path);
    }
    Ok(written)
}

/// The games of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameSet {
    pub board: Board,
    /// Game numbers as written in the file, with their move lists.
    pub games: Vec<(usize, Vec<Move>)>,
}

/// Reads and validates a game file: every move legal, every game finished.
pub fn load(path: &Path) -> Result<GameSet, TestsetError> {
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    parse_games(path, &text)
}

fn parse_games(path: &Path, text: &str) -> Result<GameSet, TestsetError> {
    let perr = |line: usize, message: String| TestsetError::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut board: Option<Board> = None;
    let mut games = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            if let Some(b) = c.trim().strip_prefix("board:") {
                board = Some(Board::parse(b.trim()).map_err(|e| perr(i + 1, e.to_string()))?);
            }
            continue;
        }
        let b = board.ok_or_else(|| perr(i + 1, "game before the '# board:' header".into()))?;
        let (head, moves) = line
            .split_once(':')
            .ok_or_else(|| perr(i + 1, "expected 'game N: moves'".into()))?;
        let n: usize = head
            .trim()
            .strip_prefix("game")
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(|| perr(i + 1, format!("bad game label '{head}'")))?;
        let mut line_moves = Vec::new();
        for t in moves.split_whitespace() {
            line_moves.push(Move::parse(b, t).map_err(|e| perr(i + 1, e.to_string()))?);
        }
        games.push((n, line_moves));
    }
    let board = board.ok_or_else(|| perr(0, "no '# board:' header".into()))?;
    let start = Position::start(&board.to_string())?;
    let g = Geometry::new(board);
    for (n, line) in &games {
        let mut pos = Pos::from_position(&start);
        for (ply, &m) in line.iter().enumerate() {
            if !pos.is_legal(&g, m) {
                return Err(TestsetError::IllegalMove {
                    path: path.to_path_buf(),
                    game: *n,
                    ply: ply + 1,
                    mv: m.notation(board),
                });
            }
            pos = pos.play(m);
        }
        if pos.can_move(&g, pos.side) {
            return Err(TestsetError::Unfinished {
                path: path.to_path_buf(),
                game: *n,
            });
        }
    }
    Ok(GameSet { board, games })
}

/// One evaluation configuration (a table column).
#[derive(Debug, Clone)]
pub struct Config {
    pub name: String,
    /// `None`: terminal and outlast detection only (the foundation solver).
    pub eval: Option<EvalConfig>,
    /// Territory databases for the evaluation (the paper's "DB" columns).
    pub db: Option<std::sync::Arc<crate::db::Database>>,
    /// Active-area (combinatorial game) database for the evaluation.
    pub active: Option<std::sync::Arc<crate::db::active::ActiveDb>>,
}

impl Config {
    pub fn new(name: &str, eval: Option<EvalConfig>) -> Config {
        Config {
            name: name.to_string(),
            eval,
            db: None,
            active: None,
        }
    }

    /// The full evaluation with the territory databases.
    pub fn with_database(name: &str, db: std::sync::Arc<crate::db::Database>) -> Config {
        Config {
            name: name.to_string(),
            eval: Some(EvalConfig::default()),
            db: Some(db),
            active: None,
        }
    }

    /// This configuration with the active-area database added (name suffix `+active`).
    pub fn with_active(&self, active: std::sync::Arc<crate::db::active::ActiveDb>) -> Config {
        Config {
            name: format!("{}+active", self.name),
            active: Some(active),
            ..self.clone()
        }
    }

    fn evaluator(&self) -> Option<Evaluator> {
        let cfg = self.eval?;
        Some(Evaluator::with_databases(
            cfg,
            self.db.clone(),
            self.active.clone(),
        ))
    }
}

/// Static columns: no evaluation, full evaluation, and full minus each component.
pub fn static_configs() -> Vec<Config> {
    let full = EvalConfig::default();
    vec![
        Config::new("none", None),
        Config::new("full", Some(full)),
        Config::new(
            "-blockers",
            Some(EvalConfig {
                blockers: false,
                ..full
            }),
        ),
        Config::new(
            "-static rules",
            Some(EvalConfig {
                static_rules: false,
                ..full
            }),
        ),
        Config::new(
            "-local search",
            Some(EvalConfig {
                local_search: false,
                ..full
            }),
        ),
        Config::new(
            "-exact terr.",
            Some(EvalConfig {
                exact_territories: false,
                ..full
            }),
        ),
    ]
}

/// df-pn columns: the foundation solver and the full evaluation.
pub fn dfpn_configs() -> Vec<Config> {
    vec![
        Config::new("foundation", None),
        Config::new("full", Some(EvalConfig::default())),
    ]
}

/// Parameters of a table run.
#[derive(Debug, Clone)]
pub struct TableOptions {
    pub static_configs: Vec<Config>,
    pub dfpn_configs: Vec<Config>,
    /// df-pn node budget per position (`Options::max_nodes`).
    pub node_budget: u64,
    /// Transposition table per solve, in MiB.
    pub hash_mib: usize,
    /// Move numbers to test (positions after that many moves); `None` for all, from
    /// the longest game down to 0.
    pub move_numbers: Option<Vec<usize>>,
    /// Once df-pn (per configuration) fails this many times in a row on one game,
    /// going backwards, the earlier positions of that game are not searched and count
    /// as unsolved ("skipped"). A failure is a search out of budget (or a rejected
    /// certificate or extraction error); a search that finished but whose certificate
    /// extraction ran out of budget is not one. `None` searches every position.
    pub give_up_after: Option<usize>,
    /// Only the first this many games of the file (`None`: all).
    pub max_games: Option<usize>,
    /// Check every certificate with `amazons_checker::check`.
    pub check_certificates: bool,
    /// One line per game on stderr.
    pub progress: bool,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            static_configs: static_configs(),
            dfpn_configs: dfpn_configs(),
            node_budget: 100_000,
            hash_mib: 16,
            move_numbers: None,
            give_up_after: Some(2),
            max_games: None,
            check_certificates: true,
            progress: false,
        }
    }
}

/// Blocker territory queries met by df-pn searches from the positions of a game file:
/// which blocker databases matter on a board (issue: "measure which, from solver
/// statistics"). Returns the number of positions searched and the counts by shape,
/// `[queries, answered by the databases]`.
pub fn blocker_census(
    file: &Path,
    db: std::sync::Arc<crate::db::Database>,
    budget: u64,
    max_games: Option<usize>,
    from_move: usize,
) -> Result<(usize, BTreeMap<crate::eval::fill::BlockerShape, [u64; 2]>), TestsetError> {
    let set = load(file)?;
    let g = Geometry::new(set.board);
    let start = Position::start(&set.board.to_string())?;
    let opts = Options {
        hash_mib: 16,
        max_nodes: Some(budget),
        progress: false,
        eval: Some(EvalConfig::default()),
        db: Some(db),
        active_db: None,
        live_nodes: Vec::new(),
        numbers: Default::default(),
        max_steps: None,
    };
    let mut total: BTreeMap<crate::eval::fill::BlockerShape, [u64; 2]> = BTreeMap::new();
    let mut positions = 0;
    for (_, line) in set.games.iter().take(max_games.unwrap_or(usize::MAX)) {
        let mut pos = Pos::from_position(&start);
        for (n, &m) in line.iter().enumerate() {
            pos = pos.play(m);
            if n + 1 < from_move || !pos.can_move(&g, pos.side) {
                continue;
            }
            positions += 1;
            let mut search = crate::dfpn::Search::new(&g, &opts);
            if let Some(ev) = search.base.eval.as_mut() {
                ev.enable_census();
            }
            let _ = search.solve(&crate::state::State { pos, spare: 0 });
            let census = search.base.eval.as_ref().and_then(|e| e.census());
            for (shape, counts) in census.into_iter().flatten() {
                let entry = total.entry(*shape).or_default();
                entry[0] += counts[0];
                entry[1] += counts[1];
            }
        }
    }
    Ok((positions, total))
}

/// The census as a markdown table, most frequent shapes first (`top` rows).
pub fn census_markdown(
    board: &str,
    positions: usize,
    census: &BTreeMap<crate::eval::fill::BlockerShape, [u64; 2]>,
    top: usize,
) -> String {
    let all: u64 = census.values().map(|c| c[0]).sum();
    let answered: u64 = census.values().map(|c| c[1]).sum();
    let mut rows: Vec<_> = census.iter().collect();
    rows.sort_by_key(|(shape, c)| (std::cmp::Reverse(c[0]), **shape));
    let mut out = format!(
        "### {board}: blocker territory queries\n\n{positions} positions searched; {all} queries, {answered} ({:.1}%) answered by the databases.\n\n| rectangle | squares | blockers | normal queens | queries | share | in the databases |\n|---|---|---|---|---|---|---|\n",
        100.0 * answered as f64 / all.max(1) as f64
    );
    let mut cumulative = 0;
    for (shape, c) in rows.iter().take(top) {
        cumulative += c[0];
        let _ = writeln!(
            out,
            "| {}x{} | {} | {} | {} | {} | {:.1}% (cum. {:.1}%) | {:.0}% |",
            shape.short,
            shape.long,
            shape.squares,
            shape.blockers,
            shape.normals,
            c[0],
            100.0 * c[0] as f64 / all.max(1) as f64,
            100.0 * cumulative as f64 / all.max(1) as f64,
            100.0 * c[1] as f64 / c[0].max(1) as f64
        );
    }
    let mut missed: Vec<_> = census
        .iter()
        .filter(|(_, c)| c[0] > c[1])
        .map(|(shape, c)| (c[0] - c[1], *shape))
        .collect();
    missed.sort_by_key(|&(n, shape)| (std::cmp::Reverse(n), shape));
    if !missed.is_empty() {
        out.push_str(
            "\nMost frequent shapes the databases do not answer:\n\n| rectangle | squares | blockers | normal queens | unanswered queries |\n|---|---|---|---|---|\n",
        );
        for (n, shape) in missed.iter().take(top.min(10)) {
            let _ = writeln!(
                out,
                "| {}x{} | {} | {} | {} | {n} |",
                shape.short, shape.long, shape.squares, shape.blockers, shape.normals
            );
        }
    }
    out
}

/// One df-pn configuration's counts at one move number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DfpnCounts {
    /// Positions solved with a certificate the checker accepted (or, without checking,
    /// with a certificate written).
    pub solved: usize,
    /// Positions not searched because of `give_up_after`.
    pub skipped: usize,
    /// Positions whose search finished within the budget but whose certificate
    /// extraction then ran out of it (not counted as solved).
    pub uncertified: usize,
}

/// The static configurations of a table run: their names, and the time of the static
/// evaluation of them all.
#[derive(Debug, Clone, Default)]
pub struct StaticTotals {
    pub names: Vec<String>,
    pub time: Duration,
}

/// One df-pn configuration's totals over a table run.
#[derive(Debug, Clone, Default)]
pub struct DfpnTotals {
    pub name: String,
    /// Search nodes.
    pub nodes: u64,
    /// Wall time (search, extraction and checking).
    pub time: Duration,
    /// Searches that found the winner but ran out of budget while extracting the
    /// certificate (counted as unsolved).
    pub extract_budget: usize,
}

/// Counts of one move number.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    pub move_number: usize,
    /// Games with at least `move_number` moves.
    pub total: usize,
    /// Per static configuration: positions decided at the root.
    pub static_solved: Vec<usize>,
    /// Per df-pn configuration.
    pub dfpn: Vec<DfpnCounts>,
    /// Positions whose winner is known (from any verdict) and is the side to move.
    pub mover_wins: usize,
    /// Positions whose winner is known from any verdict.
    pub known: usize,
}

/// What a table run checked: the verdicts against each other, and the certificates.
#[derive(Debug, Clone, Default)]
pub struct Checks {
    /// Verdicts that contradict each other (static vs static, static vs df-pn, df-pn vs
    /// df-pn), described. Must be empty.
    pub disagreements: Vec<String>,
    /// Certificates checked and accepted.
    pub accepted: usize,
    /// Certificates the checker rejected, described. Must be empty.
    pub rejected: Vec<String>,
    /// Other certificate extraction errors of df-pn, described. Must be empty.
    pub emit_errors: Vec<String>,
}

impl Checks {
    /// Whether every check passed.
    pub fn clean(&self) -> bool {
        self.problems().next().is_none()
    }

    /// Every problem found, described: disagreements, rejections, extraction errors.
    pub fn problems(&self) -> impl Iterator<Item = &String> {
        self.disagreements
            .iter()
            .chain(&self.rejected)
            .chain(&self.emit_errors)
    }
}

/// The result of a table run on one game file.
#[derive(Debug, Clone, Default)]
pub struct BoardTable {
    pub board: String,
    pub games: usize,
    pub statics: StaticTotals,
    /// Per df-pn configuration.
    pub dfpn: Vec<DfpnTotals>,
    pub node_budget: u64,
    /// Rows in descending move number.
    pub rows: Vec<Row>,
    pub checks: Checks,
    pub elapsed: Duration,
}

/// The root verdict without search: terminal, outlast for either side, then the
/// evaluation (when configured). Exactly the decision df-pn makes at a new node.
fn static_verdict(
    g: &Geometry,
    pos: &Pos,
    terr: &mut Territory,
    ev: Option<&mut Evaluator>,
) -> Option<Color> {
    let (me, you) = (pos.side, pos.side.opponent());
    if !pos.can_move(g, me) {
        return Some(you);
    }
    if terr.outlast(g, pos, me, 0, 0).is_some() {
        return Some(me);
    }
    if terr.outlast(g, pos, you, 0, 0).is_some() {
        return Some(you);
    }
    ev.and_then(|e| e.evaluate(g, pos).winner)
}

/// Runs the experiment on one game file.
pub fn run_table(file: &Path, opts: &TableOptions) -> Result<BoardTable, TestsetError> {
    let t_all = Instant::now();
    let set = load(file)?;
    let board = set.board;
    let g = Geometry::new(board);
    let start = Position::start(&board.to_string())?;
    let games: Vec<&(usize, Vec<Move>)> = set
        .games
        .iter()
        .take(opts.max_games.unwrap_or(usize::MAX))
        .collect();
    let longest = games.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    let mut numbers: Vec<usize> = match &opts.move_numbers {
        Some(v) => v.clone(),
        None => (0..=longest).collect(),
    };
    numbers.sort_unstable_by(|a, b| b.cmp(a));
    numbers.dedup();
    let ns = opts.static_configs.len();
    let nd = opts.dfpn_configs.len();
    let mut rows: BTreeMap<usize, Row> = numbers
        .iter()
        .map(|&n| {
            (
                n,
                Row {
                    move_number: n,
                    static_solved: vec![0; ns],
                    dfpn: vec![DfpnCounts::default(); nd],
                    ..Row::default()
                },
            )
        })
        .collect();
    let mut out = BoardTable {
        board: board.to_string(),
        games: games.len(),
        statics: StaticTotals {
            names: opts.static_configs.iter().map(|c| c.name.clone()).collect(),
            time: Duration::ZERO,
        },
        dfpn: opts
            .dfpn_configs
            .iter()
            .map(|c| DfpnTotals {
                name: c.name.clone(),
                ..DfpnTotals::default()
            })
            .collect(),
        node_budget: opts.node_budget,
        ..BoardTable::default()
    };
    let mut terr = Territory::new();
    let mut evaluators: Vec<Option<Evaluator>> =
        opts.static_configs.iter().map(Config::evaluator).collect();
    for (gi, (game_no, line)) in games.iter().enumerate() {
        let t_game = Instant::now();
        // Positions after 0..=len moves.
        let mut positions = Vec::with_capacity(line.len() + 1);
        let mut pos = Pos::from_position(&start);
        positions.push(pos);
        for &m in line.iter() {
            pos = pos.play(m);
            positions.push(pos);
        }
        let mut fails = vec![0usize; nd];
        for &n in numbers.iter().filter(|&&n| n <= line.len()) {
            let pos = positions[n];
            let grid = pos.to_position(&g).grid();
            let where_ = format!("game {game_no}, move {n}, {} to move, {grid}", pos.side);
            let Some(row) = rows.get_mut(&n) else {
                continue;
            };
            row.total += 1;
            let mut verdicts: Vec<(String, Color)> = Vec::new();
            let t_static = Instant::now();
            for (ci, cfg) in opts.static_configs.iter().enumerate() {
                if let Some(w) = static_verdict(&g, &pos, &mut terr, evaluators[ci].as_mut()) {
                    row.static_solved[ci] += 1;
                    verdicts.push((format!("static {}", cfg.name), w));
                }
            }
            out.statics.time += t_static.elapsed();
            let position = pos.to_position(&g);
            for (di, cfg) in opts.dfpn_configs.iter().enumerate() {
                if opts.give_up_after.is_some_and(|k| fails[di] >= k) {
                    row.dfpn[di].skipped += 1;
                    continue;
                }
                let t = Instant::now();
                let sopts = Options {
                    hash_mib: opts.hash_mib,
                    max_nodes: Some(opts.node_budget),
                    progress: false,
                    eval: cfg.eval,
                    db: cfg.db.clone(),
                    active_db: cfg.active.clone(),
                    live_nodes: Vec::new(),
                    numbers: Default::default(),
                    max_steps: None,
                };
                let note = format!("testset {board} game {game_no} move {n}");
                match solve(&position, &sopts, &note) {
                    Ok(s) => {
                        out.dfpn[di].nodes += s.search_nodes;
                        let mut ok = true;
                        if opts.check_certificates {
                            match amazons_checker::check(&s.certificate) {
                                Ok(_) => out.checks.accepted += 1,
                                Err(e) => {
                                    ok = false;
                                    out.checks
                                        .rejected
                                        .push(format!("df-pn {}: {where_}: {e}", cfg.name));
                                }
                            }
                        }
                        if s.certificate.root.position != position {
                            ok = false;
                            out.checks.rejected.push(format!(
                                "df-pn {}: {where_}: certificate root is another position",
                                cfg.name
                            ));
                        }
                        if ok {
                            row.dfpn[di].solved += 1;
                            fails[di] = 0;
                        } else {
                            fails[di] += 1;
                        }
                        verdicts.push((format!("df-pn {}", cfg.name), s.winner));
                    }
                    Err(SolveError::Budget(_)) => {
                        out.dfpn[di].nodes += opts.node_budget;
                        fails[di] += 1;
                    }
                    Err(SolveError::Emit(crate::emit::EmitError::Budget)) => {
                        // The search itself succeeded: not a failure for give-up.
                        out.dfpn[di].extract_budget += 1;
                        row.dfpn[di].uncertified += 1;
                        fails[di] = 0;
                    }
                    Err(e) => {
                        out.checks
                            .emit_errors
                            .push(format!("df-pn {}: {where_}: {e}", cfg.name));
                        fails[di] += 1;
                    }
                }
                out.dfpn[di].time += t.elapsed();
            }
            if let Some((_, w0)) = verdicts.first() {
                row.known += 1;
                row.mover_wins += (*w0 == pos.side) as usize;
                for (name, w) in &verdicts[1..] {
                    if w != w0 {
                        out.checks.disagreements.push(format!(
                            "{where_}: {} says {w0}, {name} says {w}",
                            verdicts[0].0
                        ));
                    }
                }
            }
        }
        if opts.progress {
            eprintln!(
                "{board} game {game_no} ({}/{}): {} moves, {:.1} s (total {:.0} s)",
                gi + 1,
                games.len(),
                line.len(),
                t_game.elapsed().as_secs_f64(),
                t_all.elapsed().as_secs_f64()
            );
        }
    }
    out.rows = rows.into_values().rev().collect();
    out.elapsed = t_all.elapsed();
    Ok(out)
}

fn cell(n: usize, total: usize) -> String {
    if total > 0 && n == total {
        format!("**{n}**")
    } else {
        n.to_string()
    }
}

impl BoardTable {
    /// The table as Markdown: one row per move number, static columns, df-pn columns,
    /// total; then the checks and timings.
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "#### {} — {} games, df-pn budget {} nodes per position\n",
            self.board, self.games, self.node_budget
        );
        let mut head = String::from("| move |");
        let mut rule = String::from("|---:|");
        for n in &self.statics.names {
            let _ = write!(head, " static {n} |");
            rule.push_str("---:|");
        }
        for d in &self.dfpn {
            let _ = write!(head, " df-pn {} |", d.name);
            rule.push_str("---:|");
        }
        head.push_str(" total | mover wins |");
        rule.push_str("---:|---:|");
        let _ = writeln!(s, "{head}\n{rule}");
        for r in &self.rows {
            let _ = write!(s, "| {} |", r.move_number);
            for &c in &r.static_solved {
                let _ = write!(s, " {} |", cell(c, r.total));
            }
            for d in &r.dfpn {
                let mut notes = Vec::new();
                if d.uncertified > 0 {
                    notes.push(format!("+{} unc.", d.uncertified));
                }
                if d.skipped > 0 {
                    notes.push(format!("{} skip", d.skipped));
                }
                let solved = cell(d.solved, r.total);
                if notes.is_empty() {
                    let _ = write!(s, " {solved} |");
                } else {
                    let _ = write!(s, " {solved} ({}) |", notes.join(", "));
                }
            }
            let _ = writeln!(s, " {} | {}/{} |", r.total, r.mover_wins, r.known);
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "Checks: {} disagreements, {} certificates accepted, {} rejected, {} extraction errors.",
            self.checks.disagreements.len(),
            self.checks.accepted,
            self.checks.rejected.len(),
            self.checks.emit_errors.len()
        );
        for d in &self.dfpn {
            let _ = writeln!(
                s,
                "df-pn {}: {} search nodes, {:.1} s (search, extraction, checking); \
{} positions out of budget during certificate extraction.",
                d.name,
                d.nodes,
                d.time.as_secs_f64(),
                d.extract_budget
            );
        }
        let _ = writeln!(
            s,
            "Static evaluation (all configurations): {:.3} s. Wall time: {:.1} s.",
            self.statics.time.as_secs_f64(),
            self.elapsed.as_secs_f64()
        );
        for d in self.checks.problems() {
            let _ = writeln!(s, "- {d}");
        }
        s
    }

    /// Whether every check passed.
    pub fn clean(&self) -> bool {
        self.checks.clean()
    }
}

/// [`run_table`] rendered as Markdown.
pub fn table(file: &Path, opts: &TableOptions) -> Result<String, TestsetError> {
    Ok(run_table(file, opts)?.to_markdown())
}

/// Runs [`run_table`] on `dir/<board>.txt` for each board and joins the Markdown tables.
pub fn report(dir: &Path, boards: &[&str], opts: &TableOptions) -> Result<String, TestsetError> {
    let mut s = String::new();
    for board in boards {
        let t = run_table(&dir.join(file_name(board)), opts)?;
        s.push_str(&t.to_markdown());
        s.push('\n');
    }
    Ok(s)
}

#[cfg(test)]
mod tests;
