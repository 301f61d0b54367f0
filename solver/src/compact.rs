//! Shorter outlast lists: the solver writes, and `amazons compact` rewrites, only the prefix of an outlast line that the checker's completion (SPEC 5.4) needs.
//!
//! Whether a prefix is enough is asked of the checker itself ([`amazons_checker::outlast_line`]),
//! never decided here. `amazons compact` rewrites a certificate file, or a sharded result
//! directory bottom-up (every shard first, then the files citing them, with their `Shard`
//! steps pointing at the new hashes): the original is checked in full first (a wrong or
//! damaged input is refused and left untouched), every rewritten file is checked with its
//! rewritten shards, and only then are the files replaced, each atomically (a temporary file
//! and a rename), in the stored form they had (`.cert.zst` compressed at
//! [`amazons_format::stored::LEVEL`], as `amazons compress` does).

use crate::strategy::step_children;
use amazons_checker::{cli::Verdict, rules::OnePlayer, CheckError, Shards};
use amazons_format::{stored, Cell, Certificate, Claim, Move, Step, SEARCH_LIMIT};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a certificate could not be compacted. Nothing was changed on disk.
#[derive(Debug, thiserror::Error)]
pub enum CompactError {
    #[error("{path}: cannot read or write: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a readable certificate: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("{path}: refused, the certificate does not check (left untouched):\n{error}")]
    Wrong {
        path: PathBuf,
        error: Box<CheckError>,
    },
    #[error("{path}: the compacted certificate does not check (the original is left untouched):\n{error}")]
    RewriteWrong {
        path: PathBuf,
        error: Box<CheckError>,
    },
    #[error("{path}: cites shard {hash}, which is not in {dir}")]
    ShardMissing {
        path: PathBuf,
        hash: String,
        dir: PathBuf,
    },
    #[error("{path}: shards cite each other in a cycle")]
    Cycle { path: PathBuf },
    #[error("{path}: no certificate file directly inside this directory")]
    Empty { path: PathBuf },
    #[error("{path}: cannot encode the compacted certificate: {reason}")]
    Encode { path: PathBuf, reason: String },
}

impl CompactError {
    /// The exit code: 1 for a wrong proof, 2 for a damaged, missing or unwritable input.
    pub fn exit_code(&self) -> u8 {
        match self {
            CompactError::Wrong { error, .. } | CompactError::RewriteWrong { error, .. } => {
                if error.failure.damaged() {
                    2
                } else {
                    1
                }
            }
            _ => 2,
        }
    }
}

/// The shortest prefix of `moves` that the checker's outlast rule accepts for `claim` (the
/// whole list when no shorter one is, or when even it is not).
pub fn shortest_outlast(claim: &Claim, moves: &[Move], exact: &mut OnePlayer) -> Vec<Move> {
    (0..moves.len())
        .find(|&n| amazons_checker::outlast_line(claim, &moves[..n], exact).is_ok())
        .map_or_else(|| moves.to_vec(), |n| moves[..n].to_vec())
}

/// The winner's first move of an outlast step, completion included (`None` if the checker
/// does not accept the step or the line is empty).
pub fn outlast_first_move(claim: &Claim, moves: &[Move]) -> Option<Move> {
    let mut exact = OnePlayer::new(claim.position.board);
    amazons_checker::outlast_line(claim, moves, &mut exact)
        .ok()?
        .first()
        .copied()
}

/// How an outlast list is rewritten: from the claim at the step, its list, and the
/// one-player search to share.
pub type Rewrite<'a> = &'a dyn Fn(&Claim, &[Move], &mut OnePlayer) -> Vec<Move>;

/// Rewrites every outlast list of `cert` with `rewrite`; the claims are found by walking
/// the steps in checking order. Returns the outlast moves before and after. A malformed
/// certificate is left as it is here (the check that follows refuses it).
pub fn rewrite_certificate(cert: Certificate, rewrite: Rewrite) -> (Certificate, u64, u64) {
    let (cert, counts) = rewrite_counted(cert, rewrite, None);
    (cert, counts.before, counts.after)
}

/// What one rewrite changed: outlast steps and their moves before and after, and the
/// subtrees replaced by a `Search` step.
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    outlast_steps: u64,
    before: u64,
    after: u64,
    searches: u64,
    /// Of the searches: subtrees on more than [`ALWAYS_SEARCH`] empty squares kept by
    /// their price, and transpositions citing a claim hidden by one of those.
    priced: u64,
    cited: u64,
}

/// Positions with at most this many empty squares become a `Search` step whatever their
/// search costs (at most 4 board moves are left for both sides together).
pub const ALWAYS_SEARCH: usize = 4;

/// What a `Search` step may cost the checker on a position with more than
/// [`ALWAYS_SEARCH`] empty squares (up to [`SEARCH_LIMIT`]): this many states of its own
/// search (`rules::GameSearch`, from an empty memo) per step of the subtree it replaces
/// beyond the one it leaves. With [`SEARCH_LIMIT`] 10, measured on two 5x6 shards: 19% and
/// 22% fewer stored bytes for 1.7 times the checking time (BENCHMARKS, "Certificate size").
pub const SEARCH_PRICE: u64 = 64;

/// The most states a `Search` step on more than [`ALWAYS_SEARCH`] empty squares may cost
/// the checker, whatever it saves: a few milliseconds of checking. Without it, on 4-rank boards
/// (whose positions fall apart into regions that the search does not split) a few large
/// searches made most of a shard's checking time. Measured (BENCHMARKS, "Certificate
/// size"): a 6x4 shard checks in 0.42 of the time for 1.7 times its stored bytes, a 6x5
/// shard in 0.71 for 1.008, two 5x6 shards in about the same time for 1.002.
pub const SEARCH_MOST_STATES: u64 = 8192;

/// Which subtrees become one `Search` step (SPEC 5.8), walking the steps in checking order:
/// every one whose position has at most [`ALWAYS_SEARCH`] empty squares, and those with
/// up to [`SEARCH_LIMIT`] whose search costs at most [`SEARCH_PRICE`] states per step saved
/// and at most `most_states` in all ([`SEARCH_MOST_STATES`] as published; a root priced
/// too high is kept and its children are asked in turn). Steps hidden in a
/// replaced subtree are no longer proven for a `Transposition`, so a transposition that
/// cites one becomes a search too: its position is one of the states of the search that
/// replaced them (hashes of those claims are kept; a collision only makes one more search).
struct Searcher {
    game: amazons_checker::rules::GameSearch,
    most_states: u64,
    hidden: std::collections::HashSet<u64, amazons_format::fasthash::Fast>,
    priced: u64,
    cited: u64,
}

/// The empty squares of the claim's position (over the whole board, as SPEC 5.8 counts).
pub fn empties(claim: &Claim) -> usize {
    (claim.position.cells.iter())
        .filter(|&&c| c == Cell::Empty)
        .count()
}

fn claim_key(claim: &Claim) -> u64 {
    use std::hash::BuildHasher;
    amazons_format::fasthash::Fast::default().hash_one(claim)
}

/// The number of steps of the subtree at `steps[start]` proving `claim` (`None` if the steps
/// end first or do not fit the claims).
fn subtree_len(steps: &[Step], start: usize, claim: &Claim) -> Option<usize> {
    let mut stack = vec![claim.clone()];
    let mut at = start;
    while let Some(claim) = stack.pop() {
        let children = step_children(steps.get(at)?, &claim).ok()?;
        stack.extend(children.into_iter().rev());
        at += 1;
    }
    Some(at - start)
}

impl Searcher {
    fn new(cert: &Certificate, most_states: u64) -> Searcher {
        Searcher {
            game: amazons_checker::rules::GameSearch::new(cert.root.position.board),
            most_states,
            hidden: Default::default(),
            priced: 0,
            cited: 0,
        }
    }

    /// Whether the subtree at `steps[at]` proving `claim` (its step with `children`
    /// children) becomes one `Search` step. One-step subtrees other than a transposition
    /// are cheaper to check as they are, and a `Shard` step stays (its file is still cited).
    fn replaces(&mut self, steps: &[Step], at: usize, claim: &Claim, children: usize) -> bool {
        let step = &steps[at];
        let empty = empties(claim);
        if empty > SEARCH_LIMIT || matches!(step, Step::Shard { .. } | Step::Search) {
            return false;
        }
        if let Step::Transposition { symmetry } = step {
            // At most ALWAYS_SEARCH empty squares: the cited claim may lie in a subtree
            // replaced by that rule, and is as small. Beyond, only if it does.
            if empty <= ALWAYS_SEARCH {
                return true;
            }
            let cited = Claim {
                position: symmetry.apply(&claim.position),
                ..claim.clone()
            };
            let hidden = self.hidden.contains(&claim_key(&cited));
            self.cited += u64::from(hidden);
            return hidden;
        }
        if children == 0 {
            return false;
        }
        if empty <= ALWAYS_SEARCH {
            return true;
        }
        let Some(len) = subtree_len(steps, at, claim) else {
            return false;
        };
        let budget = (SEARCH_PRICE * (len as u64 - 1)).min(self.most_states);
        let x_to_move = claim.position.to_move == claim.winner;
        let won = (self.game).mover_wins_within(&claim.position, claim.spare, budget);
        self.priced += u64::from(won == Some(x_to_move));
        won == Some(x_to_move)
    }

    /// Notes a claim hidden in a replaced subtree (only those a priced search may cite).
    fn hide(&mut self, claim: &Claim) {
        if empties(claim) > ALWAYS_SEARCH {
            self.hidden.insert(claim_key(claim));
        }
    }
}

/// [`rewrite_certificate`], also replacing, when `search` holds the most states a priced
/// search may cost, every largest subtree that a [`Searcher`] replaces by a `Search` step.
/// The steps are rewritten in place (a subtree only ever shrinks), so a large certificate
/// is not held twice.
fn rewrite_counted(
    mut cert: Certificate,
    rewrite: Rewrite,
    search: Option<u64>,
) -> (Certificate, Counts) {
    let mut exact = OnePlayer::new(cert.root.position.board);
    let mut searcher = Searcher::new(&cert, search.unwrap_or(0));
    let search = search.is_some();
    let mut counts = Counts::default();
    // The claims still to visit, each with whether an ancestor became a `Search` step.
    let mut stack = vec![(cert.root.clone(), false)];
    let (mut read, mut write) = (0usize, 0usize);
    while let Some((claim, hidden)) = stack.pop() {
        let Some(step) = cert.steps.get(read) else {
            break;
        };
        let Ok(children) = step_children(step, &claim) else {
            break;
        };
        let replaced =
            !hidden && search && searcher.replaces(&cert.steps, read, &claim, children.len());
        if hidden && search {
            searcher.hide(&claim);
        }
        let mut step = std::mem::replace(&mut cert.steps[read], Step::Search);
        if let (false, Step::Outlast { moves }) = (hidden || replaced, &step) {
            let new = rewrite(&claim, moves, &mut exact);
            counts.outlast_steps += 1;
            counts.before += moves.len() as u64;
            counts.after += new.len() as u64;
            step = Step::Outlast { moves: new };
        }
        if replaced {
            counts.searches += 1;
            step = Step::Search;
        }
        if !hidden {
            cert.steps[write] = step;
            write += 1;
        }
        stack.extend(children.into_iter().rev().map(|c| (c, hidden || replaced)));
        read += 1;
    }
    if read == cert.steps.len() {
        cert.steps.truncate(write);
    }
    (counts.priced, counts.cited) = (searcher.priced, searcher.cited);
    (cert, counts)
}

/// `cert` with every largest subtree on a position small enough for the checker's search
/// (SPEC 5.8) replaced by one `Search` step, its outlast lists as they are: the form in
/// which the solver publishes (`amazons solve -o` and every shard of a sharded run), so
/// that a new result needs no `amazons compact --search` pass. Returns what was replaced.
pub fn add_search_steps(cert: &mut Certificate) -> SearchCounts {
    add_search_steps_within(cert, SEARCH_MOST_STATES)
}

/// [`add_search_steps`] with priced searches costing at most `most_states` states each
/// instead of [`SEARCH_MOST_STATES`].
pub fn add_search_steps_within(cert: &mut Certificate, most_states: u64) -> SearchCounts {
    let taken = Certificate {
        root: cert.root.clone(),
        steps: std::mem::take(&mut cert.steps),
        meta: std::mem::take(&mut cert.meta),
    };
    let keep: Rewrite = &|_, moves, _| moves.to_vec();
    let (out, counts) = rewrite_counted(taken, keep, Some(most_states));
    *cert = out;
    SearchCounts {
        searches: counts.searches,
        priced: counts.priced,
        cited: counts.cited,
    }
}

/// Puts a freshly solved certificate in the form it is written in: with `Search` steps
/// ([`add_search_steps`]), or as extracted (`as_extracted`, nothing replaced). Returns
/// what was replaced.
pub fn published_form(cert: &mut Certificate, as_extracted: bool) -> SearchCounts {
    if as_extracted {
        SearchCounts::default()
    } else {
        add_search_steps(cert)
    }
}

/// The subtrees [`add_search_steps`] replaced by a `Search` step: in all, of them those on
/// more than [`ALWAYS_SEARCH`] empty squares kept by their price, and transpositions
/// replaced because the claim they cite was hidden by one of those.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchCounts {
    pub searches: u64,
    pub priced: u64,
    pub cited: u64,
}

/// [`rewrite_certificate`] with every outlast list cut to its shortest accepted prefix.
pub fn compact_certificate(cert: Certificate) -> (Certificate, u64, u64) {
    rewrite_certificate(cert, &shortest_outlast)
}

/// What compaction did to one file.
#[derive(Debug, Clone, Default)]
pub struct Compacted {
    pub path: PathBuf,
    /// Steps after, and subtrees replaced by a `Search` step (each by one step).
    pub steps: usize,
    pub searches: u64,
    /// Choices trimmed (`--trim`): each subproof replaced by one closing step.
    pub trimmed: u64,
    pub outlast_steps: u64,
    pub outlast_moves_before: u64,
    pub outlast_moves_after: u64,
    /// Body bytes and bytes on disk, before and after.
    pub body_before: u64,
    pub body_after: u64,
    pub stored_before: u64,
    pub stored_after: u64,
}

/// Shards for the check of a rewritten file: the rewritten shards of this run, each checked
/// in full by this run before it is offered (so its steps are not checked again; its layout,
/// hash and root claim still are). They are read back from where this run put them.
struct Rewritten<'a>(&'a HashMap<[u8; 32], PathBuf>);

impl Shards for Rewritten<'_> {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        stored::read(self.0.get(hash)?).ok()
    }

    fn already_checked(&self, hash: &[u8; 32], _level: usize) -> bool {
        self.0.contains_key(hash)
    }
}

/// A rewritten file, written beside its original under a temporary name until every file
/// is ready.
struct Pending {
    path: PathBuf,
    tmp: PathBuf,
}

/// How far a compaction run has come: reported once the originals are checked and after
/// each rewritten file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    /// Files rewritten (and checked), of the certificate files in the directory (the files
    /// given and every shard file beside them).
    pub files_done: usize,
    pub files_total: usize,
    /// Stored bytes of those files before rewriting: done, and in all.
    pub stored_done: u64,
    pub stored_total: u64,
    /// Steps of the rewritten files.
    pub steps: usize,
    /// Shards left as they were because the run's limit was reached (counted in
    /// `files_done` too).
    pub kept: usize,
}

/// Compacts `path`: a certificate file (its shards, if it cites any, are in `shards/` beside
/// it) or a directory (every certificate file directly inside it, with `shards/` beside
/// them). With `search`, subtrees on positions small enough for the checker's own search
/// become `Search` steps (SPEC 5.8). Returns one entry per file, shards first. One file is
/// held in memory at a time (with the files citing it, while its shards are rewritten):
/// each rewritten file is written at once under a temporary name beside its original.
pub fn compact_path(path: &Path, search: bool) -> Result<Vec<Compacted>, CompactError> {
    rewrite_path(path, &shortest_outlast, search, &mut |_| {})
}

/// How much of a directory one run rewrites: `None` every file; `Some(n)` leaf shards (those
/// citing no shard) only until the stored bytes of the originals it changed reach `n`. The
/// leaf shards after that are kept as they are (checked with the originals); every manifest
/// is still rewritten, citing the new hashes and the kept ones, so a large result can be
/// converted over several runs: a later run rewrites the rest, and finds the shards already
/// compact unchanged.
pub type Limit = Option<u64>;

/// [`compact_path`] with outlast lists rewritten by `rewrite` (the result must check), and
/// `progress` told after each file. The originals are checked on all cores. Temporary files
/// that an interrupted run left (its process gone) are removed first.
pub fn rewrite_path(
    path: &Path,
    rewrite: Rewrite,
    search: bool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Vec<Compacted>, CompactError> {
    rewrite_limited(path, rewrite, search, false, None, progress)
}

/// [`rewrite_path`] within `limit`; with `trim`, choices are trimmed first
/// ([`crate::trim::trim_certificate`]).
pub fn rewrite_limited(
    path: &Path,
    rewrite: Rewrite,
    search: bool,
    trim: bool,
    limit: Limit,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Vec<Compacted>, CompactError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| CompactError::Io { path: p, source }
    };
    let (dir, tops) = if path.is_dir() {
        let mut tops: Vec<PathBuf> = std::fs::read_dir(path)
            .map_err(io(path))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && stored::is_cert_path(p))
            .collect();
        tops.sort();
        if tops.is_empty() {
            return Err(CompactError::Empty { path: path.into() });
        }
        (path.to_path_buf(), tops)
    } else {
        let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        (dir, vec![path.to_path_buf()])
    };
    let shard_dir = dir.join("shards");
    remove_stale_temps(&dir).map_err(io(&dir))?;
    remove_stale_temps(&shard_dir).map_err(io(&shard_dir))?;
    // The originals, checked in full first: a wrong or damaged input is refused untouched.
    for top in &tops {
        match amazons_checker::cli::check_file(top, amazons_checker::cli::all_cores()) {
            Verdict::Ok(_) => {}
            Verdict::Unreadable(reason) => {
                return Err(CompactError::Unreadable {
                    path: top.clone(),
                    reason,
                })
            }
            Verdict::Wrong(e) => {
                return Err(CompactError::Wrong {
                    path: top.clone(),
                    error: Box::new(e),
                })
            }
        }
    }
    let shard_files = shard_files(&shard_dir)?;
    let mut total = Progress {
        files_total: tops.len() + shard_files.len(),
        ..Progress::default()
    };
    for p in tops.iter().chain(shard_files.values()) {
        total.stored_total += std::fs::metadata(p).map_err(io(p))?.len();
    }
    progress(&total);
    let mut run = Run {
        rewrite,
        search,
        trim,
        limit,
        changed: 0,
        shard_dir: shard_dir.clone(),
        shard_files,
        progress: total,
        report: progress,
        new_hash: HashMap::new(),
        rewritten: HashMap::new(),
        pending: Vec::new(),
        done: Vec::new(),
    };
    let result = tops
        .iter()
        .try_for_each(|top| run.file(top, true, 0).map(|_| ()));
    if let Err(e) = result {
        for p in &run.pending {
            let _ = std::fs::remove_file(&p.tmp);
        }
        return Err(e);
    }
    // Every rewritten file is checked and on disk under a temporary name: rename them over
    // the originals, shards first (so the window in which the directory mixes old and new
    // files is only the renames).
    for p in &run.pending {
        std::fs::rename(&p.tmp, &p.path).map_err(io(&p.path))?;
    }
    Ok(run.done)
}

/// Compacts `path` and describes what changed, one line per file and a total.
pub fn run(
    path: &Path,
    search: bool,
    trim: bool,
    limit: Limit,
    progress: &mut dyn FnMut(&Progress),
) -> Result<String, CompactError> {
    let mut kept = 0;
    let done = rewrite_limited(path, &shortest_outlast, search, trim, limit, &mut |p| {
        kept = p.kept;
        progress(p)
    })?;
    let mut out = String::new();
    let mut total = Compacted {
        path: path.into(),
        ..Compacted::default()
    };
    for c in &done {
        out.push_str(&line(c));
        crate::eval::add_counters!(total, c;
            steps, searches, trimmed, outlast_steps, outlast_moves_before, outlast_moves_after,
            body_before, body_after, stored_before, stored_after,
        );
    }
    if done.len() > 1 {
        out.push_str(&format!("total ({} files): ", done.len()));
        out.push_str(&line(&total));
    }
    if kept > 0 {
        out.push_str(&format!(
            "{kept} shards kept as they were (the limit was reached): run again to rewrite them\n"
        ));
    }
    Ok(out)
}

fn line(c: &Compacted) -> String {
    format!(
        "{}: {} steps ({} subtrees searched, {} choices trimmed), {} outlast steps with {} -> {} moves, body {} -> {} bytes, stored {} -> {} bytes\n",
        c.path.display(),
        c.steps,
        c.searches,
        c.trimmed,
        c.outlast_steps,
        c.outlast_moves_before,
        c.outlast_moves_after,
        c.body_before,
        c.body_after,
        c.stored_before,
        c.stored_after
    )
}

/// The certificate files of a shard directory, by the body hash their header declares.
fn shard_files(dir: &Path) -> Result<HashMap<[u8; 32], PathBuf>, CompactError> {
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.is_file() && stored::is_cert_path(&path) {
            let declared = stored::declared_hash(&path).map_err(|source| CompactError::Io {
                path: path.clone(),
                source,
            })?;
            if let Some(hash) = declared {
                out.insert(hash, path);
            }
        }
    }
    Ok(out)
}

/// One compaction run over a directory.
struct Run<'a> {
    rewrite: Rewrite<'a>,
    search: bool,
    trim: bool,
    limit: Limit,
    /// Stored bytes of the leaf shards this run changed so far.
    changed: u64,
    shard_dir: PathBuf,
    shard_files: HashMap<[u8; 32], PathBuf>,
    progress: Progress,
    report: &'a mut dyn FnMut(&Progress),
    /// Old body hash -> new body hash, for shards already rewritten (or in progress: `None`).
    new_hash: HashMap<[u8; 32], Option<[u8; 32]>>,
    /// Where the rewritten shard files are (temporary or, if unchanged, original), by new
    /// hash, each checked.
    rewritten: HashMap<[u8; 32], PathBuf>,
    pending: Vec<Pending>,
    done: Vec<Compacted>,
}

impl Run<'_> {
    /// Rewrites the file at `path` after its shards; returns its new body hash.
    fn file(&mut self, path: &Path, top: bool, depth: usize) -> Result<[u8; 32], CompactError> {
        let io = |source| CompactError::Io {
            path: path.to_path_buf(),
            source,
        };
        let unreadable = |reason: String| CompactError::Unreadable {
            path: path.to_path_buf(),
            reason,
        };
        let raw = std::fs::read(path).map_err(io)?;
        let compressed = stored::is_compressed(&raw);
        let stored_before = raw.len() as u64;
        let bytes = stored::read(path).map_err(io)?;
        let mut cert = amazons_format::decode(&bytes).map_err(|e| unreadable(e.to_string()))?;
        let body_before = bytes.len() as u64 - 60;
        let leaf = !cert.steps.iter().any(|s| matches!(s, Step::Shard { .. }));
        if !top && leaf && self.limit.is_some_and(|l| self.changed >= l) {
            // Kept as it is: checked with the originals, cited under its own hash.
            let hash = amazons_format::hash_body(&bytes[52..bytes.len() - 8]);
            self.rewritten.insert(hash, path.to_path_buf());
            self.progress.files_done += 1;
            self.progress.kept += 1;
            self.progress.stored_done += stored_before;
            (self.report)(&self.progress);
            return Ok(hash);
        }
        drop(bytes);
        if depth > amazons_checker::MAX_SHARD_DEPTH {
            return Err(CompactError::Cycle { path: path.into() });
        }
        // Shards first, bottom-up; the Shard steps then cite the new hashes.
        for step in cert.steps.iter_mut() {
            if let Step::Shard { hash } = step {
                *hash = self.shard(path, hash, depth)?;
            }
        }
        let (cert, trimmed) = if self.trim {
            crate::trim::trim_certificate(cert)
        } else {
            (cert, crate::trim::Trimmed::default())
        };
        let most = self.search.then_some(SEARCH_MOST_STATES);
        let (cert, counts) = rewrite_counted(cert, self.rewrite, most);
        let new = amazons_format::encode(&cert).map_err(|e| CompactError::Encode {
            path: path.into(),
            reason: e.to_string(),
        })?;
        let steps = cert.steps.len();
        drop(cert);
        let shards = Rewritten(&self.rewritten);
        let checked = if top {
            amazons_checker::check_bytes_with(&new, &shards)
        } else {
            amazons_format::decode(&new)
                .map_err(amazons_checker::CheckFileError::from)
                .and_then(|c| Ok(amazons_checker::check_with(&c, &shards)?))
        };
        if let Err(e) = checked {
            let error = match e {
                amazons_checker::CheckFileError::Wrong(e) => e,
                amazons_checker::CheckFileError::Unreadable(e) => {
                    return Err(unreadable(e.to_string()))
                }
            };
            return Err(CompactError::RewriteWrong {
                path: path.into(),
                error: Box::new(error),
            });
        }
        let stored = if compressed {
            stored::compress(&new).map_err(io)?
        } else {
            new.clone()
        };
        let hash = amazons_format::hash_body(&new[52..new.len() - 8]);
        self.done.push(Compacted {
            path: path.into(),
            steps,
            searches: counts.searches,
            trimmed: trimmed.choices,
            outlast_steps: counts.outlast_steps,
            outlast_moves_before: counts.before,
            outlast_moves_after: counts.after,
            body_before,
            body_after: new.len() as u64 - 60,
            stored_before,
            stored_after: stored.len() as u64,
        });
        let mut at = path.to_path_buf();
        if stored != raw {
            if !top && leaf {
                self.changed += stored_before;
            }
            let tmp = write_temp(path, &stored).map_err(io)?;
            at = tmp.clone();
            self.pending.push(Pending {
                path: path.into(),
                tmp,
            });
        }
        if !top {
            self.rewritten.insert(hash, at);
        }
        self.progress.files_done += 1;
        self.progress.stored_done += stored_before;
        self.progress.steps += steps;
        (self.report)(&self.progress);
        Ok(hash)
    }

    /// The new hash of the shard cited as `hash` by `parent`, rewriting it first if needed.
    fn shard(
        &mut self,
        parent: &Path,
        hash: &[u8; 32],
        depth: usize,
    ) -> Result<[u8; 32], CompactError> {
        match self.new_hash.get(hash) {
            Some(Some(new)) => return Ok(*new),
            Some(None) => {
                return Err(CompactError::Cycle {
                    path: parent.into(),
                })
            }
            None => {}
        }
        let Some(path) = self.shard_files.get(hash).cloned() else {
            return Err(CompactError::ShardMissing {
                path: parent.into(),
                hash: crate::strategy::hex(hash),
                dir: self.shard_dir.clone(),
            });
        };
        self.new_hash.insert(*hash, None);
        let new = self.file(&path, false, depth + 1)?;
        self.new_hash.insert(*hash, Some(new));
        Ok(new)
    }
}

/// The suffix of the temporary files a run writes: `.{name}.{pid}.compact.tmp`.
const TEMP_SUFFIX: &str = ".compact.tmp";

/// Removes from `dir` the temporary files of runs whose process is gone (a run killed before
/// its renames). A live process's files are left alone; where `/proc` is absent, every
/// process counts as gone.
fn remove_stale_temps(dir: &Path) -> std::io::Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries {
        let path = entry?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let Some(pid) = name
            .strip_suffix(TEMP_SUFFIX)
            .and_then(|rest| rest.rsplit_once('.'))
            .map(|(_, pid)| pid)
        else {
            continue;
        };
        // This run has written nothing yet: a file with its own process id is stale too.
        let alive = pid.parse::<u32>().is_ok_and(|pid| {
            pid != std::process::id() && Path::new("/proc").join(pid.to_string()).exists()
        });
        if name.starts_with('.') && !alive {
            std::fs::remove_file(&path)?;
        }
    }
    Ok(())
}

/// Writes `bytes` to a new temporary file beside `path` (synced), and returns its path.
fn write_temp(path: &Path, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.{}{TEMP_SUFFIX}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
