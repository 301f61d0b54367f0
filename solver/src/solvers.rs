//! Whole-board solves with either search, df-pn or alpha-beta, sharing the proof extraction.

use crate::ab::{AbSearch, AbTable};
use crate::dfpn::{Options, Search};
use crate::emit::{Emitter, Prover};
use crate::eval::Evaluator;
use crate::geometry::Geometry;
use crate::state::State;
use crate::tt::Table;
use crate::{SolveError, Solved};
use amazons_format::{Action, Certificate, Claim, Color, Meta, Position, Step};
use std::time::Instant;

/// Which search proves the root.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SolverKind {
    /// Depth-first proof-number search ([`crate::dfpn`]).
    #[default]
    Dfpn,
    /// Alpha-beta with iterative deepening ([`crate::ab`]).
    Ab,
}

/// An unknown solver name.
#[derive(Debug, thiserror::Error)]
#[error("unknown solver {0:?}: expected dfpn or ab")]
pub struct UnknownSolver(pub String);

impl std::str::FromStr for SolverKind {
    type Err = UnknownSolver;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "dfpn" | "df-pn" => Ok(SolverKind::Dfpn),
            "ab" | "alphabeta" | "alpha-beta" => Ok(SolverKind::Ab),
            _ => Err(UnknownSolver(s.to_string())),
        }
    }
}

impl std::fmt::Display for SolverKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SolverKind::Dfpn => "dfpn",
            SolverKind::Ab => "ab",
        })
    }
}

/// Table sizes of a solve: the main search's, and the plain df-pn's that proves the
/// subtrees the evaluation decided during extraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSizes {
    pub main_mib: usize,
    pub plain_mib: usize,
}

impl TableSizes {
    /// The split [`crate::solve`] uses: with evaluation three quarters of `hash_mib` to
    /// the main search and a quarter to the plain one.
    pub fn split(opts: &Options) -> TableSizes {
        TableSizes {
            main_mib: crate::main_search_options(opts).hash_mib,
            plain_mib: (opts.hash_mib / 4).max(1),
        }
    }

    /// Entries of the main table for `kind`.
    pub fn main_entries(&self, kind: SolverKind) -> usize {
        match kind {
            // Four 16-byte slots per 64-byte bucket (see `crate::tt`).
            SolverKind::Dfpn => self.main_mib * (1 << 20) / 16,
            SolverKind::Ab => self.main_mib * (1 << 20) / AbTable::ENTRY_BYTES,
        }
    }
}

/// Solves `position` with `kind`, tables split as [`crate::solve`] splits them.
pub fn solve_with(
    position: &Position,
    opts: &Options,
    kind: SolverKind,
    note: &str,
) -> Result<Solved, SolveError> {
    let sizes = TableSizes::split(opts);
    solve_sized(position, opts, kind, sizes, note, &mut |_| {}, &mut |_| {})
}

/// Solves `position` with `kind` and the given table sizes; `setup` adjusts the main
/// search's evaluator before the search (e.g. to count database lookups), and `after`
/// sees it once the proof is written.
pub fn solve_sized(
    position: &Position,
    opts: &Options,
    kind: SolverKind,
    sizes: TableSizes,
    note: &str,
    setup: &mut dyn FnMut(&mut Evaluator),
    after: &mut dyn FnMut(&Evaluator),
) -> Result<Solved, SolveError> {
    let ctx = Context {
        opts,
        sizes,
        position,
        spare: 0,
        note,
    };
    let g = Geometry::new(position.board);
    let main_opts = Options {
        hash_mib: sizes.main_mib,
        ..opts.clone()
    };
    match kind {
        SolverKind::Dfpn => {
            let mut search = Search::new(&g, &main_opts);
            search_and_prove(&mut search, &ctx, setup, after)
        }
        SolverKind::Ab => {
            let mut search = AbSearch::new(&g, &main_opts);
            search_and_prove(&mut search, &ctx, setup, after)
        }
    }
}

/// The df-pn solve of `position` with `spare` spare moves that [`crate::solve_state`]
/// does: tables split as [`TableSizes::split`], and the nodes the evaluation decided
/// counted after the extraction (its re-searches included), where [`solve_sized`]
/// counts them after the search.
pub(crate) fn solve_dfpn_state(
    position: &Position,
    spare: i32,
    opts: &Options,
    note: &str,
) -> Result<Solved, SolveError> {
    let ctx = Context {
        opts,
        sizes: TableSizes::split(opts),
        position,
        spare,
        note,
    };
    let g = Geometry::new(position.board);
    let main = crate::main_search_options(opts);
    // A table an earlier solve of this position left over budget ([`crate::tt::carry`]).
    let key = State::from_position(position, spare).key(&g);
    let table = Table::carried(key, main.hash_mib).unwrap_or_else(|| Table::new(main.hash_mib));
    let mut search = Search::with_table(&g, &main, table);
    let solved = search_and_prove(&mut search, &ctx, &mut |_| {}, &mut |_| {});
    if matches!(solved, Err(SolveError::Budget(_))) {
        crate::tt::leave(key, std::mem::replace(&mut search.tt, Table::placeholder()));
    }
    let mut solved = solved?;
    solved.eval_wins = search.base.eval_wins;
    Ok(solved)
}

/// The main search of the root, timed, then the extraction; `setup` adjusts the
/// search's evaluator first; the nodes the evaluation decided are counted after the search.
fn search_and_prove<'g, M: Prover<'g>>(
    search: &mut M,
    ctx: &Context,
    setup: &mut dyn FnMut(&mut Evaluator),
    after: &mut dyn FnMut(&Evaluator),
) -> Result<Solved, SolveError> {
    if let Some(ev) = search.evaluator() {
        setup(ev);
    }
    let root = State::from_position(ctx.position, ctx.spare);
    let t0 = Instant::now();
    let winner = search.solve(&root);
    let search_time = t0.elapsed();
    let eval_wins = search.base().eval_wins;
    let g = search.geometry();
    prove(g, search, winner, search_time, eval_wins, ctx, after)
}

/// What the extraction needs besides the search.
struct Context<'c> {
    opts: &'c Options,
    sizes: TableSizes,
    position: &'c Position,
    spare: i32,
    note: &'c str,
}

/// Extraction after a main search: the certificate and the statistics.
fn prove<'g, M: Prover<'g>>(
    g: &'g Geometry,
    search: &mut M,
    winner: Option<Color>,
    search_time: std::time::Duration,
    eval_wins: u64,
    ctx: &Context,
    after: &mut dyn FnMut(&Evaluator),
) -> Result<Solved, SolveError> {
    let Context {
        opts,
        sizes,
        position,
        spare,
        note,
    } = *ctx;
    let winner = winner.ok_or(SolveError::Budget(opts.max_nodes.unwrap_or(u64::MAX)))?;
    let root = State::from_position(position, spare);
    let search_nodes = search.nodes();
    let t1 = Instant::now();
    let done_cap = (opts.hash_mib.max(1) << 20) / 128;
    let plain = opts.eval.map(|_| {
        Search::new(
            g,
            &Options {
                hash_mib: sizes.plain_mib,
                eval: None,
                ..opts.clone()
            },
        )
    });
    let mut emitter = Emitter::new(search, plain, done_cap);
    if let Some(max) = opts.max_steps {
        emitter.max_steps = usize::try_from(max).unwrap_or(usize::MAX);
    }
    emitter.prove(&root, winner)?;
    let steps = std::mem::take(&mut emitter.steps);
    let researches = emitter.researches;
    let plain_nodes = emitter.plain_nodes();
    let (sums, sum_failures) = (emitter.sums, emitter.sum_failures);
    drop(emitter);
    let first_move = match steps.first() {
        Some(Step::Choice(Action::Board(m))) => Some(*m),
        _ => None,
    };
    let extract_time = t1.elapsed();
    let total_nodes = search.nodes() + plain_nodes;
    let ev = search.evaluator();
    if let Some(e) = &ev {
        after(e);
    }
    let eval_stats = ev.as_ref().map(|e| e.stats);
    let db_hits = ev.map_or(0, |e| e.db_hits());
    let certificate = Certificate {
        root: Claim {
            position: position.clone(),
            spare,
            winner,
        },
        steps,
        meta: Meta {
            producer: format!("amazons-solver {}", env!("CARGO_PKG_VERSION")),
            nodes: total_nodes,
            millis: (search_time + extract_time).as_millis() as u64,
            note: note.to_string(),
        },
    };
    Ok(Solved {
        winner,
        first_move,
        certificate,
        search_nodes,
        total_nodes,
        search_time,
        extract_time,
        researches,
        sums,
        sum_failures,
        eval_stats,
        eval_wins,
        db_hits,
    })
}
