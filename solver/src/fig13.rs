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
    /// Empty squares of the smallest and the largest cases: one value for every board,
    /// or one per board (none for `max_empties`: the start position's).
    pub min_empties: Vec<u32>,
    pub max_empties: Vec<u32>,
    /// The give-up rule: a configuration over the budget on this many consecutive cases
    /// of a board is not run on the board's later (larger) cases; 0: never give up.
    pub give_up_after: usize,
    /// Node budget of each solve (search and extraction each): one for every board, or
    /// one per board.
    pub max_nodes: Vec<u64>,
    /// Solve nothing: take the solves the journals hold, the rest is not run.
    pub journal_only: bool,
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

/// How a solve ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Solved (and the certificate checked): the winner.
    Solved(Color),
    /// Over the node budget, in the search or (`in_extraction`) in the extraction.
    OverBudget { in_extraction: bool },
    /// Not run: the configuration gave up on an earlier case of the board.
    NotRun,
}

/// What one phase of a solve (the search or the certificate extraction) cost.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub nodes: u64,
    /// Wall time, in seconds.
    pub secs: f64,
}

/// What the operating system tells of a solve's use of the machine, where it tells it
/// (Linux).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// CPU time of the solving thread (search, extraction and check).
    pub cpu_s: Option<f64>,
    /// Peak resident memory of the process during the solve (MiB).
    pub peak_mib: Option<f64>,
}

/// What one solve of one case measured.
#[derive(Debug, Clone)]
pub struct Measure {
    pub config: SolverConfig,
    pub outcome: Outcome,
    /// The search, and the certificate extraction.
    pub search: Cost,
    pub extraction: Cost,
    pub usage: Usage,
    pub evaluations: u64,
    pub eval_decided: u64,
    pub census: Option<ActiveCensus>,
}

/// The test cases of `board`: `count` distinct positions of the games of the test set
/// in `dir` whose sizes (empty squares) spread evenly from `min_empties` to
/// `max_empties` (`None`: the start position's), ordered by size, so the cases grow as in
/// the paper's figure. A position with `e` empty squares is the position after
/// `start - e` plies of a game (every move shoots one arrow). The `i`-th of `count`
/// targets is the size `min + round(i * (max - min) / (count - 1))`; a target takes the
/// position of that size from the first game (in file order) that gives one not chosen
/// yet (positions are compared as grids with the side to move, so the start position and
/// early positions that games share are taken once); when no such game is left, it takes
/// the nearest smaller size that has one. Fewer cases only when no size has one left.
pub fn cases(
    dir: &Path,
    board: &str,
    count: usize,
    min_empties: u32,
    max_empties: Option<u32>,
) -> Result<Vec<Case>, Fig13Error> {
    let set = crate::testset::load(&dir.join(crate::testset::file_name(board)))?;
    let start = Position::start(board).map_err(|e| Fig13Error::Usage(e.to_string()))?;
    let g = Geometry::new(start.board);
    let start_empties = Pos::from_position(&start).empty(&g).count();
    let max = max_empties.unwrap_or(start_empties).min(start_empties);
    if min_empties > max {
        return Err(Fig13Error::Usage(format!(
            "{board}: --min-empties {min_empties} is above the largest size {max}"
        )));
    }
    // Every game's positions by size: `by_size[e]` lists (game, ply, position).
    let mut by_size: Vec<Vec<(usize, usize, Position)>> = vec![Vec::new(); max as usize + 1];
    for (n, moves) in &set.games {
        let mut p = Pos::from_position(&start);
        for ply in 0..=moves.len() {
            let e = start_empties - ply as u32;
            if e < min_empties {
                break;
            }
            if e <= max {
                by_size[e as usize].push((*n, ply, p.to_position(&g)));
            }
            if let Some(&m) = moves.get(ply) {
                p = p.play(m);
            }
        }
    }
    let mut taken = std::collections::HashSet::new();
    let mut next = vec![0usize; max as usize + 1];
    let mut out = Vec::new();
    for i in 0..count {
        let span = (max - min_empties) as usize;
        let target = min_empties as usize
            + if count > 1 {
                (i * span + (count - 1) / 2) / (count - 1)
            } else {
                span
            };
        'sizes: for e in (min_empties as usize..=target).rev() {
            while let Some((game, ply, position)) = by_size[e].get(next[e]) {
                next[e] += 1;
                if taken.insert((position.grid(), position.to_move)) {
                    out.push(Case {
                        board: board.to_string(),
                        game: *game,
                        ply: *ply,
                        empties: e as u32,
                        position: position.clone(),
                    });
                    break 'sizes;
                }
            }
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

/// CPU time of the calling thread in seconds (Linux `/proc/thread-self/schedstat`).
fn thread_cpu_s() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
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

impl Fig13Options {
    /// The node budget of the solves on `board`.
    pub fn budget(&self, board: &str) -> u64 {
        let b = self.boards.iter().position(|x| x == board).unwrap_or(0);
        self.max_nodes
            .get(b)
            .or(self.max_nodes.first())
            .copied()
            .unwrap_or(u64::MAX)
    }
}

/// Solves `case` with `config`, checks the certificate, and measures.
pub fn measure(case: &Case, config: SolverConfig, o: &Fig13Options) -> Result<Measure, Fig13Error> {
    let budget = o.budget(&case.board);
    let opts = Options {
        hash_mib: o.plain_mib * 4,
        max_nodes: Some(budget),
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
    let cpu0 = thread_cpu_s();
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
        outcome: Outcome::OverBudget {
            in_extraction: false,
        },
        search: Cost {
            nodes: 0,
            secs: elapsed,
        },
        extraction: Cost::default(),
        usage: Usage {
            cpu_s: None,
            peak_mib: peak,
        },
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
            m.outcome = Outcome::Solved(s.winner);
            m.search = Cost {
                nodes: s.search_nodes,
                secs: s.search_time.as_secs_f64(),
            };
            m.extraction = Cost {
                nodes: s.total_nodes - s.search_nodes,
                secs: s.extract_time.as_secs_f64(),
            };
            m.eval_decided = s.eval_wins;
            m.evaluations = stats.map_or(0, |st| st.evaluations);
            m.census = census;
        }
        Err(SolveError::Budget(_)) => {
            m.search.nodes = budget;
        }
        Err(SolveError::Emit(crate::emit::EmitError::Budget)) => {
            m.outcome = Outcome::OverBudget {
                in_extraction: true,
            };
            m.search.nodes = budget;
        }
        Err(source) => {
            return Err(Fig13Error::Solve {
                config: label,
                position: describe(),
                source,
            })
        }
    }
    m.usage.cpu_s = cpu0.zip(thread_cpu_s()).map(|(a, b)| b - a);
    Ok(m)
}

impl Measure {
    /// The winner, when solved.
    pub fn winner(&self) -> Option<Color> {
        match self.outcome {
            Outcome::Solved(w) => Some(w),
            _ => None,
        }
    }

    /// Whether this solve went over the node budget.
    pub fn over_budget(&self) -> bool {
        matches!(self.outcome, Outcome::OverBudget { .. })
    }

    /// The entry of a configuration the give-up rule did not run.
    pub fn not_run(config: SolverConfig) -> Measure {
        Measure {
            config,
            outcome: Outcome::NotRun,
            search: Cost::default(),
            extraction: Cost::default(),
            usage: Usage::default(),
            evaluations: 0,
            eval_decided: 0,
            census: None,
        }
    }
}

/// All cases of a board with all configurations.
pub struct BoardRun {
    pub board: String,
    pub cases: Vec<Case>,
    /// `rows[i][j]`: case `i`, configuration `j`.
    pub rows: Vec<Vec<Measure>>,
}

/// Runs the experiment on every board; `progress` gets a line per solve. With `out`,
/// every finished solve is appended to the board's journal there (a rerun takes the
/// solves it holds instead of solving again), and the tables and plots of the boards
/// done so far are written after each board. Within a board the cases run in order of
/// size, each with every configuration; a configuration over the budget on
/// `give_up_after` consecutive cases is not run on the board's later cases.
pub fn run(
    dir: &Path,
    o: &Fig13Options,
    out: Option<&Path>,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<BoardRun>, Fig13Error> {
    let mut runs = Vec::new();
    for (b, board) in o.boards.iter().enumerate() {
        let per_board = |v: &[u32]| v.get(b).or(v.first()).copied();
        let cases = cases(
            dir,
            board,
            o.positions,
            per_board(&o.min_empties).unwrap_or(0),
            per_board(&o.max_empties),
        )?;
        let mut journal = match out {
            Some(out) => Some(crate::fig13_journal::Journal::open(out, board, o)?),
            None => None,
        };
        if let Some(j) = journal.as_ref().filter(|j| !j.is_empty()) {
            progress(&format!("{board}: {} solves from the journal", j.len()));
        }
        let mut over_in_a_row = vec![0usize; o.configs.len()];
        let mut rows = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            let mut row = Vec::new();
            for (j, &c) in o.configs.iter().enumerate() {
                if o.give_up_after > 0 && over_in_a_row[j] >= o.give_up_after {
                    row.push(Measure::not_run(c));
                    continue;
                }
                let (m, from) = match journal.as_ref().and_then(|jr| jr.get(case, c)) {
                    Some(m) => (m, " (journal)"),
                    None if o.journal_only => {
                        row.push(Measure::not_run(c));
                        continue;
                    }
                    None => {
                        let m = measure(case, c, o)?;
                        if let Some(jr) = journal.as_mut() {
                            jr.append(case, &m)?;
                        }
                        (m, "")
                    }
                };
                over_in_a_row[j] = if m.over_budget() {
                    over_in_a_row[j] + 1
                } else {
                    0
                };
                progress(&format!(
                    "{board} case {}/{} ({} empties) {}: {} search + {} extraction nodes, {:.2} s{}{}{from}",
                    i + 1,
                    cases.len(),
                    case.empties,
                    c.label(),
                    m.search.nodes,
                    m.extraction.nodes,
                    m.search.secs + m.extraction.secs,
                    m.usage.cpu_s.map_or(String::new(), |t| format!(" ({t:.2} s CPU)")),
                    if m.over_budget() { ", over budget" } else { "" },
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
        if let Some(out) = out {
            write_all(out, &runs, o)?;
        }
    }
    Ok(runs)
}

/// The CSV of every solve.
pub fn csv(runs: &[BoardRun]) -> String {
    let mut s = String::from(
        "board,case,game,ply,empties,to_move,config,status,winner,search_nodes,extraction_nodes,search_s,extract_s,cpu_s,peak_mib,evaluations,eval_decided,active_asked,active_answered,active_lookup_ns\n",
    );
    for r in runs {
        for (i, (case, row)) in r.cases.iter().zip(&r.rows).enumerate() {
            for m in row {
                let (asked, answered, ns) = m.census.as_ref().map_or((0, 0, 0), |c| {
                    (c.asked.iter().sum(), c.answered.iter().sum(), c.nanos)
                });
                let _ = writeln!(
                    s,
                    "{},{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},{},{},{},{},{},{},{}",
                    r.board,
                    i + 1,
                    case.game,
                    case.ply,
                    case.empties,
                    case.position.to_move,
                    m.config.label(),
                    status(m),
                    m.winner().map_or("-".to_string(), |w| w.to_string()),
                    m.search.nodes,
                    m.extraction.nodes,
                    m.search.secs,
                    m.extraction.secs,
                    m.usage.cpu_s.map_or("-".into(), |t| format!("{t:.3}")),
                    m.usage.peak_mib.map_or("-".into(), |p| format!("{p:.1}")),
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

fn status(m: &Measure) -> &'static str {
    match m.outcome {
        Outcome::Solved(_) => "solved",
        Outcome::OverBudget {
            in_extraction: false,
        } => "over budget (search)",
        Outcome::OverBudget {
            in_extraction: true,
        } => "over budget (extraction)",
        Outcome::NotRun => "not run",
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
        "Boards {:?}: {} cases each, sizes spread evenly from {:?} to {} empty squares \
         (per board, in that order). A configuration over the budget on {} consecutive \
         cases is not run on the larger cases of the board (`-`).\n",
        o.boards,
        o.positions,
        o.min_empties,
        if o.max_empties.is_empty() {
            "the start position's".to_string()
        } else {
            format!("{:?}", o.max_empties)
        },
        o.give_up_after
    );
    let _ = writeln!(
        s,
        "Tables: ab 2^{} entries ({} MiB, {} B each), df-pn 2^{} entries ({} MiB, 16 B each); \
         extraction's plain df-pn {} MiB. Budget per solve (search and extraction each): {}.\n",
        o.ab_log2,
        ab.main_mib,
        AbTable::ENTRY_BYTES,
        o.dfpn_log2,
        df.main_mib,
        o.plain_mib,
        o.boards
            .iter()
            .map(|b| format!("{b} {} nodes", o.budget(b)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for r in runs {
        let labels: Vec<String> = o.configs.iter().map(|c| c.label()).collect();
        let _ = writeln!(s, "### {}: search nodes\n", r.board);
        let _ = writeln!(s, "| case | game, ply | empties | {} |", labels.join(" | "));
        let _ = writeln!(s, "|---|---|---|{}", "---|".repeat(labels.len()));
        for (i, (case, row)) in r.cases.iter().zip(&r.rows).enumerate() {
            let cells: Vec<String> = row
                .iter()
                .map(|m| match m.outcome {
                    Outcome::Solved(_) => m.search.nodes.to_string(),
                    Outcome::OverBudget { .. } => format!(">{}", m.search.nodes),
                    Outcome::NotRun => "-".to_string(),
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
            "\n### {}: totals per configuration (over the cases run)\n\n| config | solved / run | search nodes | extraction nodes | search s | extraction s | CPU s | peak MiB (max) |\n|---|---|---|---|---|---|---|---|",
            r.board
        );
        for (j, label) in labels.iter().enumerate() {
            let col: Vec<&Measure> = r
                .rows
                .iter()
                .map(|row| &row[j])
                .filter(|m| m.outcome != Outcome::NotRun)
                .collect();
            let solved = col.iter().filter(|m| m.winner().is_some()).count();
            let sum = |f: &dyn Fn(&Measure) -> f64| col.iter().map(|m| f(m)).sum::<f64>();
            let peak = col
                .iter()
                .filter_map(|m| m.usage.peak_mib)
                .fold(f64::NAN, f64::max);
            let _ = writeln!(
                s,
                "| {label} | {solved}/{} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {:.0} |",
                col.len(),
                sum(&|m| m.search.nodes as f64),
                sum(&|m| m.extraction.nodes as f64),
                sum(&|m| m.search.secs),
                sum(&|m| m.extraction.secs),
                sum(&|m| m.usage.cpu_s.unwrap_or(0.0)),
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
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
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
