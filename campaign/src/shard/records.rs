//! The notes of a sharded run directory: plan.txt, times.tsv, spent.tsv, started.tsv and splits.tsv.

use super::*;

/// The file that records a sharded directory's plan, so that `amazons index` and later
/// runs know the root and first move: `grid`, `to-move` and `first-move` lines.
pub const PLAN_FILE: &str = "plan.txt";

/// The file to which every solved task appends `name, milliseconds, nodes` (tab
/// separated): shards carry no wall time (so their bytes are reproducible), this does.
pub const TIMES_FILE: &str = "times.tsv";

/// The file to which a run appends every search it makes, finished or not: `name,
/// milliseconds, what` (`solve`: a whole solve, one rung of the ladder or a subtask;
/// `rank`: a ranking of moves), tab separated. Unlike [`TIMES_FILE`] it also holds the
/// work that gave no shard, so that a campaign in progress can say what it has cost.
pub const SPENT_FILE: &str = "spent.tsv";

/// Appends one search's wall time to `DIR/spent.tsv` (best effort, like the other notes).
pub fn record_spent(dir: &Path, name: &str, t: Instant, what: &str) {
    append_line(
        dir,
        SPENT_FILE,
        &format!("{name}\t{}\t{what}", t.elapsed().as_millis()),
    );
}

/// The file to which a run appends the name of every task it starts without a shard on
/// disk. A started task with no line in [`TIMES_FILE`] was left open: over its budget,
/// or in flight when the run was killed. A resumed run takes such tasks last.
pub const STARTED_FILE: &str = "started.tsv";

impl Plan {
    /// Writes `DIR/plan.txt`.
    pub fn write(&self, dir: &Path) -> Result<(), ShardError> {
        let first = self
            .first
            .map(|m| m.notation(self.root.board))
            .unwrap_or_else(|| "-".into());
        let text = format!(
            "grid: {}\nto-move: {}\nfirst-move: {first}\n",
            self.root.grid(),
            self.root.to_move.name().to_ascii_lowercase()
        );
        std::fs::create_dir_all(dir).map_err(|e| ShardError::Io(dir.to_path_buf(), e))?;
        write_atomic(&dir.join(PLAN_FILE), text.as_bytes())
    }

    /// Reads the plan a sharded directory records (see [`Plan::write`]).
    pub fn read(dir: &Path) -> Result<Plan, ShardError> {
        let path = dir.join(PLAN_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| ShardError::Io(path.clone(), e))?;
        let bad = |what: &str| ShardError::BadPlan(path.clone(), what.to_string());
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key).map(str::trim))
                .ok_or_else(|| bad(&format!("no `{key}` line")))
        };
        let side = match field("to-move:")? {
            "white" => Color::White,
            "black" => Color::Black,
            other => return Err(bad(&format!("side to move `{other}`"))),
        };
        let root = Position::parse_grid(field("grid:")?, side).map_err(|e| bad(&e.to_string()))?;
        let first = match field("first-move:")? {
            "-" => None,
            m => Some(Move::parse(root.board, m).map_err(|e| bad(&e.to_string()))?),
        };
        Plan::new(&root, first)
    }

    /// How many of the solved (non-mirrored) tasks have a verified shard on disk: the
    /// shards are checked one per core at a time.
    pub fn proved(&self, dir: &Path) -> usize {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let tasks: Vec<&Task> = self.unique().collect();
        let (next, proved) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        std::thread::scope(|scope| {
            for _ in 0..cores.clamp(1, tasks.len().max(1)) {
                scope.spawn(|| {
                    while let Some(t) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if existing(&self.shard_path(dir, t), t).is_some() {
                            proved.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        proved.into_inner()
    }
}

/// Total milliseconds recorded in `DIR/times.tsv` for the tasks named (last entry per
/// task wins), and how many of them have a time.
pub fn recorded_millis<'a>(dir: &Path, names: impl Iterator<Item = &'a str>) -> (u64, usize) {
    let times = recorded_times(dir);
    names
        .filter_map(|n| times.get(n))
        .fold((0, 0), |(sum, n), ms| (sum + ms, n + 1))
}

/// The milliseconds each solved task cost, per task with a line in `DIR/times.tsv` (see
/// [`task_times`]).
pub(crate) fn recorded_times(dir: &Path) -> std::collections::HashMap<String, u64> {
    (task_times(dir).into_iter())
        .map(|(name, (ms, _))| (name, ms))
        .collect()
}

/// Per task with a line in `DIR/times.tsv`: the milliseconds it cost and its nodes. The
/// milliseconds are the larger of its last line there and [`spent_below`] of its name. The
/// first is the wall time of the run that finished the task, which for a task split over
/// several runs is only the last of them; the second holds every search the task and its
/// subtasks made in every run since `spent.tsv` was kept. Each is a floor of the cost, so
/// the larger is taken. Lines without nodes (older runs) count 0 nodes; malformed lines and
/// missing files are skipped: times are informative.
pub(crate) fn task_times(dir: &Path) -> std::collections::HashMap<String, (u64, u64)> {
    let text = std::fs::read_to_string(dir.join(TIMES_FILE)).unwrap_or_default();
    let below = spent_below(dir);
    let mut times = std::collections::HashMap::new();
    for line in text.lines() {
        let mut f = line.split('\t');
        let (Some(name), Some(Ok(ms))) = (f.next(), f.next().map(str::parse::<u64>)) else {
            continue;
        };
        let nodes = f.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        let spent = below.get(name).copied().unwrap_or(0);
        times.insert(name.to_string(), (ms.max(spent), nodes));
    }
    times
}

/// The milliseconds of `DIR/spent.tsv` per name, each line counted under its own name and
/// under every task above it (a subtask `TASK.NNN-MOVE` also counts under `TASK`).
pub(crate) fn spent_below(dir: &Path) -> std::collections::HashMap<String, u64> {
    let text = std::fs::read_to_string(dir.join(SPENT_FILE)).unwrap_or_default();
    let mut below = std::collections::HashMap::new();
    for line in text.lines() {
        let mut f = line.split('\t');
        if let (Some(name), Some(Ok(ms))) = (f.next(), f.next().map(str::parse::<u64>)) {
            let mut at = name;
            *below.entry(at.to_string()).or_insert(0) += ms;
            while let Some((parent, _)) = at.rsplit_once('.') {
                *below.entry(parent.to_string()).or_insert(0) += ms;
                at = parent;
            }
        }
    }
    below
}

/// Appends a solved task's time to `DIR/times.tsv` (best effort: times are informative).
pub(crate) fn record_time(dir: &Path, name: &str, done: &Done) {
    append_line(
        dir,
        TIMES_FILE,
        &format!("{name}\t{}\t{}", done.millis, done.nodes),
    );
}

/// The file to which a run appends how it split each task it split: `name`, the task's
/// position (grid and side to move), whether the guessing search leaned towards the side
/// to move, and its move ranking (tab separated, moves comma separated). A resumed run
/// splits such a task the same way at once, without the budget-limited solve and the
/// guessing search that decided it the first time (each a full node budget, and with a
/// shared table not even certain to guess the same move, which would orphan the subtask
/// shards already done). Lines of kind `refuted` name a guess proved wrong, and a line of
/// kind `escalated` (no moves) says that the whole solve with the larger budget of
/// [`Budget::escalate`] failed too. A line of kind `replies` gives a guess followed by its
/// replies in the order [`reply_order`] solves them. Only the order of work depends on it; shards are
/// checked as ever.
pub const SPLITS_FILE: &str = "splits.tsv";

/// A split recorded in `DIR/splits.tsv` (see [`recorded_split`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Recorded {
    /// The moves, most promising first.
    pub(super) ranked: Vec<Move>,
    /// The guessing search leaned towards the side to move.
    pub(super) lean: bool,
    /// Guesses proved wrong.
    pub(super) refuted: Vec<Move>,
    /// The whole solve with the escalated budget failed.
    pub(super) escalated: bool,
}

/// The split recorded for task `name` at `position` in `DIR/splits.tsv`: the move
/// ranking and lean of its last `lean`/`no-lean` line, the guesses that `refuted` lines
/// after it name, and whether an `escalated` line follows it. `None` when there is none,
/// or when the line does not fit the position (another grid, or not exactly its legal
/// moves).
pub(super) fn recorded_split(dir: &Path, name: &str, position: &Position) -> Option<Recorded> {
    let board = position.board;
    let mut split: Option<(Vec<Move>, bool)> = None;
    let mut refuted = Vec::new();
    let mut escalated = false;
    for (kind, parsed) in split_records(dir, name, position) {
        match kind.as_str() {
            "lean" | "no-lean" => {
                split = Some((parsed, kind == "lean"));
                refuted.clear();
                escalated = false;
            }
            "refuted" => refuted.extend(parsed),
            "escalated" => escalated = true,
            _ => {}
        }
    }
    let (ranked, lean) = split?;
    let mut legal = Pos::from_position(position).moves(&Geometry::new(board));
    let mut sorted = ranked.clone();
    let key = |m: &Move| m.notation(board);
    legal.sort_by_key(key);
    sorted.sort_by_key(key);
    (legal == sorted).then_some(Recorded {
        ranked,
        lean,
        refuted,
        escalated,
    })
}

/// How far the split of the open task `name` at `position` has got, by the files alone:
/// (subtasks with a shard on disk, not checked again; subtasks) of the list it works on
/// now (the replies to its current guess, or every move once its guesses are spent or it
/// leans the other way, as [`prove_position`] takes them), then the same for the first
/// open subtask of that list that is split itself, and so on down. Empty for a task never
/// split. What a run's progress line gives for a task in flight, for `amazons index`.
pub fn split_progress(dir: &Path, name: &str, position: &Position) -> Vec<(usize, usize)> {
    let mut levels = Vec::new();
    let (mut name, mut position) = (name.to_string(), position.clone());
    while levels.len() < 64 {
        let Some(r) = recorded_split(dir, &name, &position) else {
            break;
        };
        let guess = match r.lean && r.refuted.len() < GUESSES {
            true => r.ranked.iter().find(|m| !r.refuted.contains(m)).copied(),
            false => None,
        };
        let Ok(sub) = Plan::new(&position, guess) else {
            break;
        };
        let sub = sub.prefixed(&name);
        let open: Vec<&Task> = sub
            .unique()
            .filter(|t| !crate::safety::stored_for(&shard_file(dir, &t.name), &t.position))
            .collect();
        let all = sub.unique().count();
        levels.push((all - open.len(), all));
        match open
            .into_iter()
            .find(|t| recorded_split(dir, &t.name, &t.position).is_some())
        {
            Some(t) => (name, position) = (t.name.clone(), t.position.clone()),
            None => break,
        }
    }
    levels
}

/// The lines of `DIR/splits.tsv` for task `name` at `position` (same grid and side to
/// move), in file order: each kind with its moves; lines whose moves do not parse are
/// skipped.
pub(super) fn split_records(
    dir: &Path,
    name: &str,
    position: &Position,
) -> Vec<(String, Vec<Move>)> {
    let Ok(text) = std::fs::read_to_string(dir.join(SPLITS_FILE)) else {
        return Vec::new();
    };
    let grid = position.grid();
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [n, g, to_move, kind, moves] = fields.as_slice() else {
                return None;
            };
            if *n != name || *g != grid || *to_move != position.to_move.name() {
                return None;
            }
            let parsed: Vec<Move> = if moves.is_empty() {
                Vec::new()
            } else {
                moves
                    .split(',')
                    .map(|m| Move::parse(position.board, m).ok())
                    .collect::<Option<_>>()?
            };
            Some((kind.to_string(), parsed))
        })
        .collect()
}

/// The tasks (not subtasks) that `DIR/splits.tsv` records a split of: a resumed run
/// splits them again at once.
pub(super) fn split_tasks(dir: &Path) -> std::collections::HashSet<String> {
    let text = std::fs::read_to_string(dir.join(SPLITS_FILE)).unwrap_or_default();
    (text.lines())
        .filter_map(|line| line.split('\t').next())
        .filter(|name| !name.contains('.'))
        .map(str::to_string)
        .collect()
}

/// Appends to `DIR/splits.tsv` that the guess `first` of task `name` was refuted.
pub(super) fn record_refuted(dir: &Path, name: &str, position: &Position, first: Move) {
    split_line(dir, name, position, "refuted", &[first]);
}

/// Appends the split of task `name` to `DIR/splits.tsv` (see [`SPLITS_FILE`]).
pub(super) fn record_split(
    dir: &Path,
    name: &str,
    position: &Position,
    ranked: &[Move],
    lean: bool,
) {
    let kind = if lean { "lean" } else { "no-lean" };
    split_line(dir, name, position, kind, ranked);
}

/// One line of `DIR/splits.tsv`: name, grid, side to move, kind, moves.
pub(super) fn split_line(dir: &Path, name: &str, position: &Position, kind: &str, moves: &[Move]) {
    let moves: Vec<String> = moves.iter().map(|m| m.notation(position.board)).collect();
    let line = format!(
        "{name}\t{}\t{}\t{kind}\t{}",
        position.grid(),
        position.to_move.name(),
        moves.join(",")
    );
    append_line(dir, SPLITS_FILE, &line);
}

/// Appends `line` to `DIR/FILE`, ignoring failures: the run's notes (times, started
/// tasks) only inform reports and the order of a later run.
pub(super) fn append_line(dir: &Path, file: &str, line: &str) {
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(file))
    {
        let _ = f.write_all(format!("{line}\n").as_bytes());
    }
}
