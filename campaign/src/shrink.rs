//! Re-solving a campaign's largest finished shards with another df-pn number rule, keeping each new shard that is stored smaller.
//!
//! The number rule changes a proof's size far more than its search: on 6x5, proofs found
//! with `capped` numbers were stored in 0.57 of the bytes of `weak` ones for about the same
//! nodes (BENCHMARKS.md, "Number rules on 6x5"). A campaign keeps every shard it finished,
//! so its large shards from a run with another rule stay large. [`run`] solves such tasks
//! once more, whole, within a node budget tied to what the task took the first time, and
//! replaces a shard only by a smaller one that the checker accepted, for the same winner.
//!
//! Every attempt is recorded in `DIR/decisions.tsv` (decision [`RESOLVED`], the rule and
//! budget, and the outcome), so a rerun goes on with the next tasks and never repeats one;
//! the search time goes to `spent.tsv`, and a replaced shard's nodes and time to
//! `times.tsv` (its last line per task is the shard on disk). A replacement is written
//! atomically, so an interrupted run loses at most the tasks in flight.

use crate::decisions;
use crate::shard::{on_disk, subtask_shards, Done, Plan, ShardError, Task};
use amazons_format::Position;
use amazons_solver::dfpn::{Numbers, Options};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The decision of a re-solve in `decisions.tsv`.
pub const RESOLVED: &str = "re-solved for size";

/// Without `--max-nodes`, a task is re-solved within this many times the nodes of the
/// search that made its shard: capped numbers took between 0.6 and 2.5 times weak's
/// nodes on six 6x5 replies, so a task that needs more is not worth its time.
pub const NODE_FACTOR: u64 = 3;

/// As a campaign goes ([`AsYouGo`]), a new shard is re-solved within this many times its
/// nodes. Of the 43 re-solves with sum numbers on 6x5 and 5x6 within [`NODE_FACTOR`]
/// times (BENCHMARKS.md, "Shrinking shards"), those that took at most the old nodes saved
/// 72% of the bytes, and a budget of 1 times would have cost 42% of the nodes; the rest
/// are left to `amazons shrink`, which a try over this budget does not hold off
/// ([`AS_IT_GOES`]).
pub const AS_YOU_GO_FACTOR: u64 = 1;

/// The end of the budget field of a re-solve made as a campaign goes.
pub const AS_IT_GOES: &str = ", as it goes";

/// As a campaign goes, the re-solves stop once this many in a row (by `decisions.tsv`)
/// replaced no shard: on 6x4, the fifteen shards over 256 KiB among the first thirty
/// tasks all ran past their budget with sum numbers, each costing as much search again
/// (BENCHMARKS.md, "Shrinking shards"), where on 6x5 about half of them replace their shard.
pub const GIVE_UP_AFTER: usize = 5;

/// ...and after this many shards passed over since the last try, one is tried again.
pub const TRY_AGAIN_AFTER: usize = 10;

/// The decision of a large new shard not re-solved as the campaign goes.
pub const NOT_RESOLVED: &str = "not re-solved for size";

/// Whether a new large shard is re-solved as the campaign goes, by the re-solves recorded
/// in `decisions.tsv` (`lines`): yes unless the last [`GIVE_UP_AFTER`] tries as it went all
/// failed to replace their shard and fewer than [`TRY_AGAIN_AFTER`] shards were passed
/// over ([`NOT_RESOLVED`]) since. `Err` holds the reason not to, for `decisions.tsv`.
fn worth_trying(lines: &[[String; 4]]) -> Result<(), String> {
    let mut streak = 0; // tries as it went in a row that replaced nothing
    let mut passed = 0; // shards passed over since the last try
    for [_, decision, budget, outcome] in lines {
        if decision == RESOLVED && budget.ends_with(AS_IT_GOES) {
            streak = if outcome.starts_with("replaced") {
                0
            } else {
                streak + 1
            };
            passed = 0;
        } else if decision == NOT_RESOLVED {
            passed += 1;
        }
    }
    if streak < GIVE_UP_AFTER || passed >= TRY_AGAIN_AFTER {
        Ok(())
    } else {
        Err(format!(
            "the last {streak} re-solves as the campaign went replaced no shard; one is tried again after {TRY_AGAIN_AFTER} shards passed over ({passed} so far)"
        ))
    }
}

/// How many shards a run re-solves by default: the largest ones.
pub const DEFAULT_LARGEST: usize = 10;

/// The rule's name as runs record it (`df-pn numbers capped`).
pub fn rule_name(numbers: Numbers) -> String {
    format!("{numbers:?}").to_lowercase()
}

/// Shrinking as a campaign goes ([`crate::shard::Budget::shrink`]): a task's shard stored
/// in more than `over` bytes is re-solved at once with `numbers`, as [`run`] would.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsYouGo {
    pub over: u64,
    pub numbers: Numbers,
}

/// The stored size over which a campaign re-solves a new shard by default: 256 KiB. On
/// 6x4 two shards of 242 are larger; on 5x6 and 6x5 those larger hold most of the bytes.
pub const SHRINK_OVER: u64 = 256 * 1024;

/// After a campaign wrote `task`'s shard (`done`, searched with `opts.numbers`): when it is
/// stored in more than `go.over` bytes, re-solves it with `go.numbers` within
/// [`AS_YOU_GO_FACTOR`] times its nodes and keeps the smaller shard. Returns the figures of the
/// new shard when it replaced the old one. A split task's shard (a manifest) is left: its
/// subtask shards were shrunk one by one as they were written ([`after_subtask`]).
pub(crate) fn after_solve(
    plan: &Plan,
    dir: &Path,
    opts: &Options,
    task: &Task,
    done: &Done,
    go: AsYouGo,
) -> Result<Option<Done>, ShardError> {
    if subtask_shards(dir, &task.name) > 0 {
        return Ok(None);
    }
    let at = (
        task.name.as_str(),
        &task.position,
        plan.shard_path(dir, task),
    );
    after_written(dir, &plan.root, opts, at, true, done, go)
}

/// The same for a split task's subtask `name` at `position`, whose whole shard is `path`:
/// a split's subtasks are searched to the top rung, so theirs are the campaign's largest
/// shards. The figures go to `decisions.tsv` and `spent.tsv` only (`times.tsv` holds tasks).
pub(crate) fn after_subtask(
    dir: &Path,
    root: &Position,
    opts: &Options,
    at: (&str, &Position, std::path::PathBuf),
    done: &Done,
    go: AsYouGo,
) -> Result<Option<Done>, ShardError> {
    after_written(dir, root, opts, at, false, done, go)
}

/// [`after_solve`] and [`after_subtask`]: the shard of `name` at `position` in `path` (a
/// campaign task's when `task`), just written from `done`.
fn after_written(
    dir: &Path,
    root: &Position,
    opts: &Options,
    (name, position, path): (&str, &Position, std::path::PathBuf),
    task: bool,
    done: &Done,
    go: AsYouGo,
) -> Result<Option<Done>, ShardError> {
    if go.numbers == opts.numbers {
        return Ok(None);
    }
    let Some(stored) = on_disk(&path)
        .and_then(|f| f.metadata().ok())
        .map(|m| m.len())
    else {
        return Ok(None);
    };
    if stored <= go.over {
        return Ok(None);
    }
    if let Err(why) = worth_trying(&decisions::read(dir)) {
        decisions::record(dir, name, NOT_RESOLVED, "-", &why);
        return Ok(None);
    }
    let o = Options {
        numbers: go.numbers,
        max_nodes: Some(done.nodes.saturating_mul(AS_YOU_GO_FACTOR).max(1)),
        ..opts.clone()
    };
    let target = Target {
        name: name.to_string(),
        position: position.clone(),
        path,
        task,
        stored,
        done: done.clone(),
    };
    // From empty tables, as `amazons shrink` re-solves: tables kept from the task's own
    // search would hand the new rule the old proof's lines.
    let outcome = amazons_solver::tt::from_empty_tables(|| resolve(dir, root, &o, &target, true))?;
    if !matches!(outcome.verdict, Verdict::Replaced { .. }) {
        return Ok(None);
    }
    // Solved by this run, not resumed; its time is the new search's, as in times.tsv.
    Ok(
        crate::shard::existing_at(&target.path, position).map(|d| Done {
            resumed: false,
            millis: outcome.millis,
            ..d
        }),
    )
}

/// A finished whole shard chosen to be re-solved: a task's, or a subtask's of a split task
/// still open (no shard cites it yet), with its stored size and figures.
#[derive(Debug, Clone)]
pub struct Target {
    /// The shard's name: the task's (`012-e5-c5xc4`) or the subtask's (`012-e5-c5xc4.031-b1-c2xd4`).
    pub name: String,
    /// The position it proves.
    pub position: Position,
    /// Its file (`DIR/shards/NAME.cert`, or `.cert.zst` beside it).
    pub path: std::path::PathBuf,
    /// A campaign task (its figures go to `times.tsv`), not a subtask.
    pub task: bool,
    /// Bytes of the shard file as stored (compressed or not).
    pub stored: u64,
    /// The shard as it is: winner, hash, and the nodes of the search that made it.
    pub done: Done,
}

/// How one re-solve ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The new shard is stored smaller and replaced the old one.
    Replaced { old: u64, new: u64 },
    /// The new shard is not smaller: the old one stays.
    Kept { old: u64, new: u64 },
    /// The search ran past its budget: the old shard stays.
    OverBudget { budget: u64 },
}

/// One task re-solved.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub name: String,
    pub verdict: Verdict,
    /// Nodes of the new search (its budget when it ran past it).
    pub nodes: u64,
    pub millis: u64,
}

/// The rule each finished task's shard was made with, by `decisions.tsv`: the rule of the
/// run whose budget line came last before the task's `task done` line (runs that did not
/// record a rule used the default, weak), or the rule of a re-solve that replaced it.
pub fn made_with(dir: &Path) -> std::collections::HashMap<String, String> {
    made_in(&decisions::read(dir))
}

/// [`made_with`] from the lines of `decisions.tsv` already read.
fn made_in(lines: &[[String; 4]]) -> std::collections::HashMap<String, String> {
    let mut rule = rule_name(Numbers::Weak);
    let mut made = std::collections::HashMap::new();
    for [task, decision, budget, outcome] in lines {
        if task == "run" && decision == "budget" {
            rule = match outcome.rsplit_once("; df-pn numbers ") {
                Some((_, r)) => r.trim().to_string(),
                None => rule_name(Numbers::Weak),
            };
        } else if decision == "task done"
            || (decision == crate::decisions::SOLVE_WHOLE && outcome.contains(" wins ("))
        {
            // A task's shard, or a subtask's (which has no `task done` line).
            made.insert(task.clone(), rule.clone());
        } else if decision == RESOLVED && outcome.starts_with("replaced") {
            if let Some(r) = budget_rule(budget) {
                made.insert(task.clone(), r.to_string());
            }
        }
    }
    made
}

/// The rule of a [`RESOLVED`] line's budget field (`numbers capped, 300M nodes`).
fn budget_rule(budget: &str) -> Option<&str> {
    budget.strip_prefix("numbers ")?.split(',').next()
}

/// The tasks already re-solved with `rule`, whatever the outcome, except a search over
/// the smaller budget of a re-solve made as the campaign went ([`AS_IT_GOES`]).
#[cfg(test)]
fn tried_with(dir: &Path, rule: &str) -> std::collections::HashSet<String> {
    tried_in(&decisions::read(dir), rule)
}

/// [`tried_with`] from the lines of `decisions.tsv` already read.
/// A re-solve of a subtask under a guess refuted since does not count: the name is now
/// another position's ([`decisions::current_from`]).
fn tried_in(lines: &[[String; 4]], rule: &str) -> std::collections::HashSet<String> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, [_, decision, budget, outcome])| {
            decision == RESOLVED
                && budget_rule(budget) == Some(rule)
                && !(budget.ends_with(AS_IT_GOES) && outcome.starts_with("over the budget"))
        })
        .filter(|(i, [task, ..])| *i >= decisions::current_from(lines, task))
        .map(|(_, [task, ..])| task.clone())
        .collect()
}

/// The shards to re-solve with `numbers`: with `only`, those tasks' (each must have a
/// finished whole shard, or be an open split task with subtask shards, which are taken);
/// else the `largest` by stored bytes among the finished whole task shards and the subtask
/// shards of open split tasks whose shard was not made with this rule and that no earlier
/// run re-solved with it. The subtask shards of a finished split are left as they are:
/// its manifest cites them. Largest first.
pub fn targets(
    plan: &Plan,
    dir: &Path,
    numbers: Numbers,
    largest: usize,
    only: &[String],
    threads: usize,
) -> Result<Vec<Target>, ShardError> {
    plan.check_only(only)?;
    let rule = rule_name(numbers);
    let lines = decisions::read(dir);
    let (made, tried) = (made_in(&lines), tried_in(&lines, &rule));
    let files = crate::shard::shard_names(dir);
    let stored_at = |path: &Path| {
        on_disk(path)
            .and_then(|f| f.metadata().ok())
            .map(|m| m.len())
    };
    // (name, task index, path, the task's position for its own shard, stored bytes)
    let mut out: Vec<(String, usize, std::path::PathBuf, Option<&Position>, u64)> = Vec::new();
    for task in plan.unique() {
        let chosen = !only.is_empty() && plan.selects(only, task);
        if !only.is_empty() && !chosen {
            continue;
        }
        let path = plan.shard_path(dir, task);
        let subtasks = open_subtasks(&files, &task.name);
        let Some(stored) = stored_at(&path) else {
            if subtasks.is_empty() && chosen {
                return Err(ShardError::Task {
                    task: task.name.clone(),
                    reason: "no finished shard to re-solve".into(),
                });
            }
            for sub in subtasks {
                let path = dir.join("shards").join(format!("{sub}.cert"));
                if let Some(stored) = stored_at(&path) {
                    let fresh = made.get(&sub) != Some(&rule) && !tried.contains(&sub);
                    if chosen || fresh {
                        out.push((sub, task.index, path, None, stored));
                    }
                }
            }
            continue;
        };
        if subtask_shards(dir, &task.name) > 0 {
            if chosen {
                return Err(ShardError::Task {
                    task: task.name.clone(),
                    reason: "its shard is a manifest of subtask shards, which is not re-solved"
                        .into(),
                });
            }
            continue;
        }
        if !chosen && (made.get(&task.name) == Some(&rule) || tried.contains(&task.name)) {
            continue;
        }
        out.push((
            task.name.clone(),
            task.index,
            path,
            Some(&task.position),
            stored,
        ));
    }
    out.sort_by(|a, b| b.4.cmp(&a.4).then(a.1.cmp(&b.1)).then(a.0.cmp(&b.0)));
    if only.is_empty() {
        out.truncate(largest);
    }
    // Only the chosen shards are read and checked (a directory without `verified.tsv`
    // would otherwise check every shard before the first search), on `threads` threads.
    let read = |(name, _, path, own, stored): &(
        String,
        usize,
        std::path::PathBuf,
        Option<&Position>,
        u64,
    )| {
        let damaged = || {
            ShardError::Task {
            task: name.clone(),
            reason: "its shard does not check: a solve of the campaign sets it aside and solves it again".into(),
        }
        };
        // A subtask's position is its shard's own claim; the split that cites it once
        // it is finished checks that claim against the move it stands for.
        let position = match own {
            Some(p) => (*p).clone(),
            None => claimed_position(path).ok_or_else(damaged)?,
        };
        let done = crate::shard::existing_at(path, &position).ok_or_else(damaged)?;
        Ok(Target {
            name: name.clone(),
            position,
            path: path.clone(),
            task: own.is_some(),
            stored: *stored,
            done,
        })
    };
    let next = AtomicUsize::new(0);
    let mut read_back: Vec<(usize, Result<Target, ShardError>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.clamp(1, out.len().max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(c) = out.get(i) else {
                            break mine;
                        };
                        mine.push((i, read(c)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    read_back.sort_by_key(|(i, _)| *i);
    if read_back.len() < out.len() {
        return Err(ShardError::Task {
            task: "shrink".into(),
            reason: "a thread checking the chosen shards stopped".into(),
        });
    }
    read_back.into_iter().map(|(_, t)| t).collect()
}

/// The whole subtask shards under the open split task `name`, by the file names of
/// `DIR/shards` (`files`): `NAME.SUB` whose every split above it has no shard of its own
/// yet, and that is not itself split (no `NAME.SUB.*` files).
fn open_subtasks(files: &[String], name: &str) -> Vec<String> {
    let stems: std::collections::BTreeSet<&str> = files
        .iter()
        .filter_map(|f| {
            f.strip_suffix(".cert.zst")
                .or_else(|| f.strip_suffix(".cert"))
        })
        .collect();
    let prefix = format!("{name}.");
    stems
        .iter()
        .filter(|stem| stem.starts_with(&prefix))
        .filter(|stem| {
            let nested = format!("{stem}.");
            !stems.iter().any(|s| s.starts_with(&nested))
        })
        .filter(|stem| {
            // Every split between the task and this subtask is still open.
            let parts: Vec<&str> = stem[prefix.len()..].split('.').collect();
            (1..parts.len()).all(|k| {
                let above = format!("{prefix}{}", parts[..k].join("."));
                !stems.contains(above.as_str())
            })
        })
        .map(|s| s.to_string())
        .collect()
}

/// The position a certificate file claims to prove, if it can be read.
fn claimed_position(path: &Path) -> Option<Position> {
    let bytes = amazons_format::stored::read(&on_disk(path)?).ok()?;
    Some(amazons_format::decode(&bytes).ok()?.root.position)
}

/// The node budget of re-solving `target`: `opts.max_nodes`, else [`NODE_FACTOR`] times
/// the nodes of the search that made its shard.
pub fn budget_of(target: &Target, opts: &Options) -> u64 {
    opts.max_nodes
        .map_or_else(|| default_budget(&target.done), |n| n.max(1))
}

/// [`NODE_FACTOR`] times the nodes of the search that made a shard (at least 1).
fn default_budget(done: &Done) -> u64 {
    done.nodes.saturating_mul(NODE_FACTOR).max(1)
}

/// Re-solves `targets` of `plan` in `dir` with `opts` (its `numbers` is the rule), on
/// `threads` threads each with its share of `opts.hash_mib`, telling `each` as each ends.
/// A shard is replaced only by a smaller one for the same winner; a solver failure other
/// than the budget ends the run with that error (shards replaced so far stay).
pub fn run(
    plan: &Plan,
    dir: &Path,
    opts: &Options,
    targets: &[Target],
    threads: usize,
    each: &(dyn Fn(&Outcome) + Sync),
) -> Result<Vec<Outcome>, ShardError> {
    let threads = threads.max(1).min(targets.len().max(1));
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    let failed: Mutex<Option<ShardError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                // Each task from empty tables: the same task gives the same bytes.
                amazons_solver::tt::keep_entries(false);
                loop {
                    if failed.lock().map(|f| f.is_some()).unwrap_or(true) {
                        break;
                    }
                    let Some(target) = targets.get(next.fetch_add(1, Ordering::SeqCst)) else {
                        break;
                    };
                    let task_opts = Options {
                        max_nodes: Some(budget_of(target, opts)),
                        hash_mib: (opts.hash_mib / threads).max(1),
                        progress: false,
                        ..opts.clone()
                    };
                    match resolve(dir, &plan.root, &task_opts, target, false) {
                        Ok(o) => {
                            each(&o);
                            if let Ok(mut v) = outcomes.lock() {
                                v.push(o);
                            }
                        }
                        Err(e) => {
                            if let Ok(mut f) = failed.lock() {
                                f.get_or_insert(e);
                            }
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    Ok(outcomes.into_inner().unwrap_or_else(|p| p.into_inner()))
}

/// Re-solves the whole shard `target` and keeps the smaller shard, recording the outcome
/// (`as_it_goes`: as a campaign goes, [`AS_IT_GOES`]).
fn resolve(
    dir: &Path,
    root: &Position,
    opts: &Options,
    target: &Target,
    as_it_goes: bool,
) -> Result<Outcome, ShardError> {
    use crate::shard::{Attempt, Solved};
    let name = target.name.as_str();
    let budget = opts.max_nodes.unwrap_or_default();
    let budget_field = format!(
        "numbers {}, {}{}",
        rule_name(opts.numbers),
        decisions::nodes(budget),
        if as_it_goes { AS_IT_GOES } else { "" }
    );
    let t = Instant::now();
    let outcome = |verdict: Verdict, nodes: u64| Outcome {
        name: name.to_string(),
        verdict,
        nodes,
        millis: t.elapsed().as_millis() as u64,
    };
    let solved: Solved =
        match crate::shard::solve_bytes(dir, &target.position, name, root, opts, false) {
            Ok(s) => s,
            Err(Attempt::Budget) => {
                // A search stopped because its run is over was not a try: not recorded.
                if !amazons_solver::dfpn::aborted() {
                    decisions::record(
                        dir,
                        name,
                        RESOLVED,
                        &budget_field,
                        "over the budget: the old shard is kept",
                    );
                }
                return Ok(outcome(Verdict::OverBudget { budget }, budget));
            }
            Err(Attempt::Failed(e)) => return Err(e),
        };
    if solved.done.winner != target.done.winner {
        // Both shards checked, for opposite winners: the checker would be unsound.
        return Err(ShardError::Task {
            task: name.to_string(),
            reason: format!(
                "the new shard proves a {} win and the old one a {} win; both checked, so the checker is wrong",
                solved.done.winner, target.done.winner
            ),
        });
    }
    let path = &target.path;
    let (old_stored, stored) = (
        target.stored,
        crate::shard::stored_size(path, &solved.bytes)?,
    );
    let nodes = solved.done.nodes;
    let figures = format!("{nodes} nodes, {:.1} s", t.elapsed().as_secs_f64());
    if stored >= old_stored {
        decisions::record(
            dir,
            name,
            RESOLVED,
            &budget_field,
            &format!(
                "kept the old shard: the new one is {stored} bytes stored against {} ({figures})",
                old_stored
            ),
        );
        return Ok(outcome(
            Verdict::Kept {
                old: old_stored,
                new: stored,
            },
            nodes,
        ));
    }
    crate::shard::write_cert(path, &solved.bytes)?;
    solved.record(dir, name);
    if target.task {
        crate::shard::record_time(
            dir,
            name,
            &Done {
                millis: t.elapsed().as_millis() as u64,
                ..solved.done.clone()
            },
        );
    }
    decisions::record(
        dir,
        name,
        RESOLVED,
        &budget_field,
        &format!(
            "replaced: {stored} bytes stored against {} ({figures})",
            old_stored
        ),
    );
    Ok(outcome(
        Verdict::Replaced {
            old: old_stored,
            new: stored,
        },
        nodes,
    ))
}

#[cfg(test)]
mod tests;
