//! The solver comparison of paper V-A (Fig. 13): ab and df-pn with each database combination on test-set positions.

use crate::ab::AbTable;
use crate::db::active::ActiveDb;
use crate::db::Database;
use crate::dfpn::Options;
use crate::eval::cgt::{ActiveCensus, CENSUS_SIZES};
use crate::eval::EvalConfig;
use crate::geometry::Geometry;
use crate::pos::Pos;
use crate::solvers::{solve_sized, SolverKind, TableSizes};
use crate::SolveError;
use amazons_format::{Color, Position};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Why the experiment could not run or write its results.
#[derive(Debug, thiserror::Error)]
pub enum Fig13Error {
    #[error(transparent)]
    Testset(#[from] crate::testset::TestsetError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("plot {path}: {message}")]
    Plot { path: PathBuf, message: String },
    #[error(
        "the checker rejected the {config} certificate of {position} (a solver bug): {message}"
    )]
    Rejected {
        config: String,
        position: String,
        message: String,
    },
    #[error("{config} failed on {position}: {source}")]
    Solve {
        config: String,
        position: String,
        source: SolveError,
    },
    #[error("{0}")]
    Usage(String),
}

/// One solver configuration: the search and the databases its evaluation uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SolverConfig {
    pub kind: SolverKind,
    pub simple: bool,
    pub blocker: bool,
    pub active: bool,
}

impl SolverConfig {
    /// `ab`, or `dfpn` with `+S` (simple territories), `+B` (blocker territories), `+A`
    /// (active areas) for the databases used.
    pub fn label(&self) -> String {
        let mut s = self.kind.to_string();
        for (on, tag) in [(self.simple, "S"), (self.blocker, "B"), (self.active, "A")] {
            if on {
                s.push('+');
                s.push_str(tag);
            }
        }
        s
    }

    /// The paper's nine: ab without databases, then df-pn in the 8 combinations.
    pub fn paper() -> Vec<SolverConfig> {
        let mut v = vec![SolverConfig {
            kind: SolverKind::Ab,
            simple: false,
            blocker: false,
            active: false,
        }];
        for bits in 0..8u8 {
            v.push(SolverConfig {
                kind: SolverKind::Dfpn,
                simple: bits & 1 != 0,
                blocker: bits & 2 != 0,
                active: bits & 4 != 0,
            });
        }
        v
    }
}

/// Settings of a run.
#[derive(Clone)]
pub struct Fig13Options {
    pub boards: Vec<String>,
    /// Positions per board.
    pub positions: usize,
    /// Plies before the end of a game of the first position taken from it: one for
    /// every board, or one per board.
    pub from_end: Vec<usize>,
    /// Node budget of each solve (search and extraction each).
    pub max_nodes: u64,
    /// Main table entries, as powers of two (paper: ab 25, df-pn 22).
    pub ab_log2: u32,
    pub dfpn_log2: u32,
    /// Table of the plain df-pn that proves evaluation-decided subtrees in extraction.
    pub plain_mib: usize,
    pub configs: Vec<SolverConfig>,
    pub db: Option<Arc<Database>>,
    pub active: Option<Arc<ActiveDb>>,
}

/// One test case: a position of a self-play game.
#[derive(Debug, Clone)]
pub struct Case {
    pub board: String,
    pub game: usize,
    /// Moves played from the start.
    pub ply: usize,
    pub empties: u32,
    pub position: Position,
}

/// What one solve of one case measured.
#[derive(Debug, Clone)]
pub struct Measure {
    pub config: SolverConfig,
    /// `None`: over the node budget (`budget_in` says where).
    pub winner: Option<Color>,
    pub budget_in: &'static str,
    pub search_nodes: u64,
    pub extraction_nodes: u64,
    pub search_s: f64,
    pub extract_s: f64,
    /// Peak resident memory of the process during the solve (MiB), when known.
    pub peak_mib: Option<f64>,
    pub evaluations: u64,
    pub eval_decided: u64,
    pub census: Option<ActiveCensus>,
}

/// The test cases of `board`: positions of the games of the test set in `dir`, from
/// `from_end` plies before each game's end backwards, game after game, ordered by empty
/// squares (so the cases grow, as in the paper's figure).
pub fn cases(
    dir: &Path,
    board: &str,
    count: usize,
    from_end: usize,
) -> Result<Vec<Case>, Fig13Error> {
    let set = crate::testset::load(&dir.join(crate::testset::file_name(board)))?;
    let start = Position::start(board).map_err(|e| Fig13Error::Usage(e.to_string()))?;
    let g = Geometry::new(start.board);
    let mut out = Vec::new();
    'games: for (n, moves) in &set.games {
        let mut back = from_end;
        while back <= moves.len() {
            if out.len() == count {
                break 'games;
            }
            let ply = moves.len() - back;
            let mut p = Pos::from_position(&start);
            for &m in &moves[..ply] {
                p = p.play(m);
            }
            out.push(Case {
                board: board.to_string(),
                game: *n,
                ply,
                empties: p.empty(&g).count(),
                position: p.to_position(&g),
            });
            back += 1;
        }
    }
    out.sort_by_key(|c| (c.empties, c.game, c.ply));
    Ok(out)
}

/// Resets the process's peak resident size (Linux), so the next reading is this run's.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's peak resident size in MiB (Linux `VmHWM`).
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// MiB holding `2^log2` entries of `bytes` each (at least 1).
fn mib_for(log2: u32, bytes: usize) -> usize {
    (((1u128 << log2) * bytes as u128) >> 20).max(1) as usize
}

impl Fig13Options {
    /// The table sizes of `kind`.
    pub fn sizes(&self, kind: SolverKind) -> TableSizes {
        let main_mib = match kind {
            SolverKind::Ab => mib_for(self.ab_log2, AbTable::ENTRY_BYTES),
            SolverKind::Dfpn => mib_for(self.dfpn_log2, 16),
        };
        TableSizes {
            main_mib,
            plain_mib: self.plain_mib,
        }
    }
}

/// Solves `case` with `config`, checks the certificate, and measures.
pub fn measure(case: &Case, config: SolverConfig, o: &Fig13Options) -> Result<Measure, Fig13Error> {
    let opts = Options {
        hash_mib: o.plain_mib * 4,
        max_nodes: Some(o.max_nodes),
        progress: false,
        eval: Some(EvalConfig::default()),
        db: if config.simple || config.blocker {
            o.db.clone()
        } else {
            None
        },
        active_db: if config.active {
            o.active.clone()
        } else {
            None
        },
        ..Options::default()
    };
    let label = config.label();
    let describe = || format!("{} game {} ply {}", case.board, case.game, case.ply);
    let reset = reset_peak();
    let mut census = None;
    let mut stats = None;
    let t = std::time::Instant::now();
    let result = solve_sized(
        &case.position,
        &opts,
        config.kind,
        o.sizes(config.kind),
        "fig13",
        &mut |ev| {
            ev.skip_territory_tables(!config.simple, !config.blocker);
            if config.active {
                ev.enable_active_census();
            }
        },
        &mut |ev| {
            census = ev.active_census().cloned();
            stats = Some(ev.stats);
        },
    );
    let elapsed = t.elapsed().as_secs_f64();
    let peak = if reset { peak_mib() } else { None };
    let mut m = Measure {
        config,
        winner: None,
        budget_in: "",
        search_nodes: 0,
        extraction_nodes: 0,
        search_s: elapsed,
        extract_s: 0.0,
        peak_mib: peak,
        evaluations: 0,
        eval_decided: 0,
        census: None,
    };
    match result {
        Ok(s) => {
            if let Err(e) = amazons_checker::check(&s.certificate) {
                return Err(Fig13Error::Rejected {
                    config: label,
                    position: describe(),
                    message: e.to_string(),
                });
            }
            m.winner = Some(s.winner);
            m.search_nodes = s.search_nodes;
            m.extraction_nodes = s.total_nodes - s.search_nodes;
            m.search_s = s.search_time.as_secs_f64();
            m.extract_s = s.extract_time.as_secs_f64();
            m.eval_decided = s.eval_wins;
            m.evaluations = stats.map_or(0, |st| st.evaluations);
            m.census = census;
        }
        Err(SolveError::Budget(_)) => {
            m.budget_in = "search";
            m.search_nodes = o.max_nodes;
        }
        Err(SolveError::Emit(crate::emit::EmitError::Budget)) => {
            m.budget_in = "extraction";
            m.search_nodes = o.max_nodes;
        }
        Err(source) => {
            return Err(Fig13Error::Solve {
                config: label,
                position: describe(),
                source,
            })
        }
    }
    Ok(m)
}

/// All cases of a board with all configurations.
pub struct BoardRun {
    pub board: String,
    pub cases: Vec<Case>,
    /// `rows[i][j]`: case `i`, configuration `j`.
    pub rows: Vec<Vec<Measure>>,
}

/// Runs the experiment on every board; `progress` gets a line per solve.
pub fn run(
    dir: &Path,
    o: &Fig13Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<BoardRun>, Fig13Error> {
    let mut runs = Vec::new();
    for (b, board) in o.boards.iter().enumerate() {
        let from_end = o
            .from_end
            .get(b)
            .or(o.from_end.first())
            .copied()
            .unwrap_or(0);
        let cases = cases(dir, board, o.positions, from_end)?;
        let mut rows = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            let mut row = Vec::new();
            for &c in &o.configs {
                let m = measure(case, c, o)?;
                progress(&format!(
                    "{board} case {} ({} empties) {}: {} search + {} extraction nodes, {:.2} s{}",
                    i + 1,
                    case.empties,
                    c.label(),
                    m.search_nodes,
                    m.extraction_nodes,
                    m.search_s + m.extract_s,
                    if m.winner.is_none() {
                        ", over budget"
                    } else {
                        ""
                    }
                ));
                row.push(m);
            }
            rows.push(row);
        }
        runs.push(BoardRun {
            board: board.clone(),
            cases,
            rows,
        });
    }
    Ok(runs)
}

/// The CSV of every solve.
pub fn csv(runs: &[BoardRun]) -> String {
    let mut s = String::from(
        "board,case,game,ply,empties,to_move,config,status,winner,search_nodes,extraction_nodes,search_s,extract_s,peak_mib,evaluations,eval_decided,active_asked,active_answered,active_lookup_ns\n",
    );
    for r in runs {
        for (i, (case, row)) in r.cases.iter().zip(&r.rows).enumerate() {
            for m in row {
                let (asked, answered, ns) = m.census.as_ref().map_or((0, 0, 0), |c| {
                    (c.asked.iter().sum(), c.answered.iter().sum(), c.nanos)
                });
                let _ = writeln!(
                    s,
                    "{},{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},{},{},{},{},{},{}",
                    r.board,
                    i + 1,
                    case.game,
                    case.ply,
                    case.empties,
                    case.position.to_move,
                    m.config.label(),
                    status(m),
                    m.winner.map_or("-".to_string(), |w| w.to_string()),
                    m.search_nodes,
                    m.extraction_nodes,
                    m.search_s,
                    m.extract_s,
                    m.peak_mib.map_or("-".into(), |p| format!("{p:.1}")),
                    m.evaluations,
                    m.eval_decided,
                    asked,
                    answered,
                    ns
                );
            }
        }
    }
    s
}

fn status(m: &Measure) -> String {
    if m.winner.is_some() {
        "solved".into()
    } else {
        format!("over budget ({})", m.budget_in)
    }
}

/// Markdown: per board, search nodes per case and configuration (`>N` over the
/// budget), then totals and the active-area database census.
pub fn markdown(runs: &[BoardRun], o: &Fig13Options) -> String {
    let mut s = String::new();
    let ab = o.sizes(SolverKind::Ab);
    let df = o.sizes(SolverKind::Dfpn);
    let _ = writeln!(
        s,
        "Cases per board: {}, the first of each game {:?} plies before its end (per board: {:?}).\n",
        o.positions, o.from_end, o.boards
    );
    let _ = writeln!(
        s,
        "Tables: ab 2^{} entries ({} MiB, {} B each), df-pn 2^{} entries ({} MiB, 16 B each); \
         extraction's plain df-pn {} MiB. Budget: {} nodes per solve (search and extraction each).\n",
        o.ab_log2,
        ab.main_mib,
        AbTable::ENTRY_BYTES,
        o.dfpn_log2,
        df.main_mib,
        o.plain_mib,
        o.max_nodes
    );
    for r in runs {
        let labels: Vec<String> = o.configs.iter().map(|c| c.label()).collect();
        let _ = writeln!(s, "### {}: search nodes\n", r.board);
        let _ = writeln!(s, "| case | game, ply | empties | {} |", labels.join(" | "));
        let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(labels.len()));
        for (i, (case, row)) in r.cases.iter().zip(&r.rows).enumerate() {
            let cells: Vec<String> = row
                .iter()
                .map(|m| {
                    if m.winner.is_some() {
                        m.search_nodes.to_string()
                    } else {
                        format!(">{}", m.search_nodes)
                    }
                })
                .collect();
            let _ = writeln!(
                s,
                "| {} | {}, {} | {} | {} |",
                i + 1,
                case.game,
                case.ply,
                case.empties,
                cells.join(" | ")
            );
        }
        let _ = writeln!(
            s,
            "\n### {}: totals per configuration\n\n| config | solved | search nodes | extraction nodes | search s | extraction s | peak MiB (max) |\n|---|---|---|---|---|---|---|",
            r.board
        );
        for (j, label) in labels.iter().enumerate() {
            let col: Vec<&Measure> = r.rows.iter().map(|row| &row[j]).collect();
            let solved = col.iter().filter(|m| m.winner.is_some()).count();
            let sum = |f: &dyn Fn(&Measure) -> f64| col.iter().map(|m| f(m)).sum::<f64>();
            let peak = col
                .iter()
                .filter_map(|m| m.peak_mib)
                .fold(f64::NAN, f64::max);
            let _ = writeln!(
                s,
                "| {label} | {solved}/{} | {:.0} | {:.0} | {:.2} | {:.2} | {:.0} |",
                col.len(),
                sum(&|m| m.search_nodes as f64),
                sum(&|m| m.extraction_nodes as f64),
                sum(&|m| m.search_s),
                sum(&|m| m.extract_s),
                peak
            );
        }
        s.push('\n');
        s.push_str(&census_markdown(r, o));
    }
    s
}

/// The active-area database census of a board: per configuration with it, how often the
/// evaluation asked it and how often it answered, the lookup cost, and coverage by area
/// size (empty squares), over the solved cases.
fn census_markdown(r: &BoardRun, o: &Fig13Options) -> String {
    let mut s = String::new();
    let with: Vec<usize> = (0..o.configs.len())
        .filter(|&j| o.configs[j].active)
        .collect();
    if with.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "### {}: the active-area database in the evaluation (solved cases)\n\n| config | evaluations | areas asked | answered | answered % | evaluations with an answer | of those decided | ns per lookup |\n|---|---|---|---|---|---|---|---|",
        r.board
    );
    let mut total = ActiveCensus::default();
    for &j in &with {
        let mut c = ActiveCensus::default();
        let mut evals = 0;
        for row in &r.rows {
            let m = &row[j];
            evals += m.evaluations;
            if let Some(x) = &m.census {
                add(&mut c, x);
            }
        }
        add(&mut total, &c);
        let asked: u64 = c.asked.iter().sum();
        let answered: u64 = c.answered.iter().sum();
        let _ = writeln!(
            s,
            "| {} | {evals} | {asked} | {answered} | {:.1} | {} | {} | {:.0} |",
            o.configs[j].label(),
            100.0 * answered as f64 / asked.max(1) as f64,
            c.evals_with_hit,
            c.decided_with_hit,
            c.nanos as f64 / asked.max(1) as f64
        );
    }
    let _ = writeln!(
        s,
        "\nCoverage by area size, all configurations with the table together:\n\n| empty squares | asked | answered | answered % |\n|---|---|---|---|"
    );
    for size in 0..=CENSUS_SIZES {
        if total.asked[size] == 0 {
            continue;
        }
        let _ = writeln!(
            s,
            "| {}{} | {} | {} | {:.1} |",
            size,
            if size == CENSUS_SIZES { "+" } else { "" },
            total.asked[size],
            total.answered[size],
            100.0 * total.answered[size] as f64 / total.asked[size] as f64
        );
    }
    s.push('\n');
    s
}

fn add(c: &mut ActiveCensus, x: &ActiveCensus) {
    for i in 0..=CENSUS_SIZES {
        c.asked[i] += x.asked[i];
        c.answered[i] += x.answered[i];
    }
    c.nanos += x.nanos;
    c.evals_with_hit += x.evals_with_hit;
    c.decided_with_hit += x.decided_with_hit;
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Fig13Error> {
    let io = |source| Fig13Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(e)
    })
}

/// Writes `fig13.csv`, `fig13.md` and the plots (`fig13-BOARD.svg`: search nodes;
/// `fig13-BOARD-total.svg`: search plus extraction nodes) into `out`; the written paths.
pub fn write_all(
    out: &Path,
    runs: &[BoardRun],
    o: &Fig13Options,
) -> Result<Vec<PathBuf>, Fig13Error> {
    std::fs::create_dir_all(out).map_err(|source| Fig13Error::Io {
        path: out.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    let csv_path = out.join("fig13.csv");
    write_atomic(&csv_path, csv(runs).as_bytes())?;
    written.push(csv_path);
    let md = out.join("fig13.md");
    write_atomic(&md, markdown(runs, o).as_bytes())?;
    written.push(md);
    for r in runs {
        for total in [false, true] {
            let name = if total {
                format!("fig13-{}-total.svg", r.board)
            } else {
                format!("fig13-{}.svg", r.board)
            };
            let path = out.join(name);
            let svg = crate::fig13_plot::svg(r, o, total).map_err(|message| Fig13Error::Plot {
                path: path.clone(),
                message,
            })?;
            write_atomic(&path, svg.as_bytes())?;
            written.push(path);
        }
    }
    Ok(written)
}

#[cfg(test)]
#[path = "fig13_tests.rs"]
mod tests;
