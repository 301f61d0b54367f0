//! Splitting a task over its node budget: guessed moves and their replies, or every move, as subtasks.

use super::*;

/// Moves tried in turn when a split task's guessed move is refuted.
pub(super) const GUESSES: usize = 3;

/// Solves `position` whole and writes its shard `NAME.cert`, checked, atomically.
pub(super) fn solve_position(
    dir: &Path,
    position: &Position,
    name: &str,
    root: &Position,
    opts: &Options,
    as_extracted: bool,
) -> Result<Done, Attempt> {
    let solved = solve_bytes(dir, position, name, root, opts, as_extracted)?;
    write_cert(&shard_file(dir, name), &solved.bytes)?;
    solved.record(dir, name);
    Ok(solved.done)
}

/// A task solved whole into the bytes of its shard, checked, not written yet.
pub(crate) struct Solved {
    /// The shard file's bytes (raw, as `amazons_format::encode` gives them).
    pub(crate) bytes: Vec<u8>,
    /// Its figures: winner, body hash, nodes, the time of the whole attempt.
    pub(crate) done: Done,
    /// Steps, `Search` steps and where the time went, for `decisions.tsv`.
    pub(crate) summary: String,
    /// What the checker counted in it.
    pub(crate) report: amazons_checker::Report,
}

impl Solved {
    /// Records a written shard: where its time went in `DIR/decisions.tsv` (BENCHMARKS:
    /// choosing the `Search` steps and checking them can take as long as the search), and
    /// its hash as checked in `verified.tsv`.
    pub(crate) fn record(&self, dir: &Path, name: &str) {
        crate::decisions::record(
            dir,
            name,
            crate::decisions::SHARD_WRITTEN,
            "-",
            &self.summary,
        );
        crate::verified::mark_checked(dir, &self.done.hash);
        crate::verified::mark_checked_here(&self.done.hash, &self.report);
    }
}

/// Solves `position` whole into its shard's bytes, in the published form (or as extracted)
/// and checked by the checker; the search time goes to `DIR/spent.tsv` under `name`.
pub(crate) fn solve_bytes(
    dir: &Path,
    position: &Position,
    name: &str,
    root: &Position,
    opts: &Options,
    as_extracted: bool,
) -> Result<Solved, Attempt> {
    let fail = |reason: String| ShardError::Task {
        task: name.to_string(),
        reason,
    };
    let note = format!("shard {name} of {}", root.describe());
    let t = Instant::now();
    let mut outcome = amazons_solver::solve(position, opts, &note);
    record_spent(dir, name, t, "solve");
    if matches!(
        outcome,
        Err(amazons_solver::SolveError::Emit(
            amazons_solver::emit::EmitError::NoProvenMove { .. }
        ))
    ) && amazons_solver::tt::keeping()
    {
        // A table kept from earlier tasks held an entry that does not hold (a key
        // collision): solve once more from empty tables instead of ending the run. A
        // task that started from empty tables would only repeat the same search.
        let again = Instant::now();
        outcome =
            amazons_solver::tt::from_empty_tables(|| amazons_solver::solve(position, opts, &note));
        record_spent(dir, name, again, "solve");
    }
    let mut solved = match outcome {
        Ok(s) => s,
        Err(amazons_solver::SolveError::Budget(_))
        | Err(amazons_solver::SolveError::Emit(
            amazons_solver::emit::EmitError::Budget
            | amazons_solver::emit::EmitError::TooLarge { .. },
        )) => return Err(Attempt::Budget),
        Err(e) => return Err(fail(e.to_string()).into()),
    };
    // No wall time inside a shard: the same task always gives the same bytes, so a resumed
    // run reproduces the same manifest and root hash. Times go to manifest.md only.
    solved.certificate.meta.millis = 0;
    // Published compact: small subtrees as `Search` steps (SPEC 5.8).
    let solve_time = t.elapsed();
    let searches = amazons_solver::compact::published_form(&mut solved.certificate, as_extracted);
    let priced_time = t.elapsed() - solve_time;
    // The checker reads the shard as it will be on disk: decoded from its encoding, so
    // that this check counts for exactly these bytes (`verified::checked_here`).
    let bytes = amazons_format::encode(&solved.certificate).map_err(|e| fail(e.to_string()))?;
    let body = amazons_format::file::verified_body(&bytes).map_err(|e| fail(e.to_string()))?;
    let hash = amazons_format::hash_body(body);
    // Only the figures are needed from here on: the decoded copy replaces the original.
    let (winner, nodes) = (solved.winner, solved.certificate.meta.nodes);
    drop(solved);
    let report = amazons_format::decode(&bytes)
        .map_err(|e| fail(format!("the shard does not decode (a format bug): {e}")))
        .and_then(|decoded| {
            amazons_checker::check(&decoded).map_err(|e| {
                fail(format!(
                    "the checker rejected the shard (a solver bug): {e}"
                ))
            })
        })?;
    let check_time = t.elapsed() - solve_time - priced_time;
    let summary = format!(
        "{} steps ({} of them `Search`, {} chosen by price), {} bytes raw; {:.1} s search and extraction, {:.1} s choosing the Search steps, {:.1} s check",
        report.steps,
        searches.searches,
        searches.priced,
        bytes.len(),
        solve_time.as_secs_f64(),
        priced_time.as_secs_f64(),
        check_time.as_secs_f64()
    );
    // Figures from the shard's own metadata, so a resumed run assembles the same manifest.
    let done = Done {
        winner,
        hash,
        nodes,
        millis: t.elapsed().as_millis() as u64,
        bytes: bytes.len() as u64,
        resumed: false,
        mirror_of: None,
    };
    Ok(Solved {
        bytes,
        done,
        summary,
        report,
    })
}

/// Proves `position` for whichever side wins it into the shard `NAME.cert`: resumed from
/// disk, solved whole within the node budget, or else split `depth` levels deeper. A
/// budget-limited search decides the direction: if it leans towards the side to move,
/// its most promising move is fixed and each reply becomes a subtask `NAME.i-move` (up
/// to three guesses; a refuted guess's shards are removed and the task is ranked again
/// for the next guess ([`rerank`]), then after the escalated
/// retry the other moves are tried as subtasks of their own, [`Budget::tries`] per run);
/// if not, every move is a subtask, most promising first.
/// `Err(Attempt::Budget)` leaves the task open: a subtask was over budget at the last
/// level, or the tries ran out.
pub(super) fn prove_position(
    cx: &Split,
    position: &Position,
    name: &str,
    depth: usize,
) -> Result<Done, Attempt> {
    let (dir, root) = (cx.dir, cx.root);
    // The run is over (its root settled, or a task failed): nothing more is started.
    if amazons_solver::dfpn::aborted() {
        return Err(Attempt::Budget);
    }
    // A damaged or altered shard is moved aside, named, and the task solved again.
    if let Some(done) = crate::safety::resume(dir, &shard_file(dir, name), name, position) {
        return Ok(done);
    }
    // A task an earlier run split is split again the same way, at once (in a quick pass,
    // [`prove_in_order`], it is left for the second pass, as it is not quick).
    let recorded = if depth > 0 {
        recorded_split(dir, name, position)
    } else {
        None
    };
    if cx.cap.is_some() {
        return match recorded {
            Some(_) => Err(Attempt::Budget),
            None => cx.solve_whole(position, name),
        };
    }
    if recorded.is_none() {
        match cx.solve_whole(position, name) {
            // Split, unless the search stopped because the run is over.
            Err(Attempt::Budget) if depth > 0 && !amazons_solver::dfpn::aborted() => {}
            other => return other,
        }
    }
    let t = Instant::now();
    let guess_opts = cx.guess_options(cx.guess_nodes());
    let guess_budget = crate::decisions::nodes(cx.guess_nodes());
    let recorded = match recorded {
        Some(r) => r,
        None => {
            let (ranked, lean) = amazons_solver::rank_and_lean(position, &guess_opts);
            record_spent(dir, name, t, "rank");
            // A ranking cut short because the run is over is not recorded.
            if amazons_solver::dfpn::aborted() {
                return Err(Attempt::Budget);
            }
            record_split(dir, name, position, &ranked, lean);
            crate::decisions::split(dir, name, position, "split", &guess_budget, &ranked, lean);
            Recorded {
                ranked,
                lean,
                refuted: Vec::new(),
                escalated: false,
            }
        }
    };
    let Recorded {
        mut ranked,
        mut lean,
        mut refuted,
        escalated,
    } = recorded;
    let mut tries = None;
    if lean {
        // The side to move seems to win: fix its most promising move, one subtask per
        // reply; up to three guesses in all, each refuted one followed by a new ranking.
        while refuted.len() < GUESSES {
            let Some(&first) = ranked.iter().find(|m| !refuted.contains(m)) else {
                break;
            };
            if let Some(found) = prove_guess(cx, position, first, name, depth)? {
                return finish_split(dir, position, name, root, found, t);
            }
            // Refuted: not tried again (nor by a resumed run).
            record_refuted(dir, name, position, first);
            let guess = first.notation(position.board);
            crate::decisions::record(dir, name, crate::decisions::GUESS_REFUTED, "-", &guess);
            refuted.push(first);
            if refuted.len() < GUESSES {
                (ranked, lean) = rerank(dir, name, position, &refuted, &guess_opts);
                crate::decisions::split(
                    dir,
                    name,
                    position,
                    "re-rank",
                    &guess_budget,
                    &ranked,
                    lean,
                );
                if !lean {
                    break;
                }
            }
        }
    }
    if lean {
        // Every guess refuted: the search misjudged this position, and a larger whole
        // search may do better than a split built on its ranking (5x6 reply 006).
        if !escalated {
            if let Some(done) = solve_escalated(cx, position, name)? {
                return Ok(done);
            }
        }
        // Then the other moves, each a subtask of its own (solved whole if it fits the
        // budget): all of them, or with `--tries` a few per run (a rerun goes on past
        // the moves proved lost), which bounds a run's work on one misjudged task.
        tries = (cx.tries > 0).then_some(cx.tries);
    }
    // The side to move seems to lose, or its best guesses were refuted: every move is a
    // subtask (most promising first); if one of them wins, it alone proves the task.
    let order: Vec<Move> = ranked
        .into_iter()
        .filter(|m| !refuted.contains(m))
        .collect();
    let found = prove_every_move(cx, position, &order, tries, name, depth)?;
    finish_split(dir, position, name, root, found, t)
}

/// [`prove_position`] for a split task's subtask: a new whole shard stored over
/// [`Budget::shrink`]'s size is then re-solved for size at once, as a task's is
/// ([`crate::shrink::after_subtask`]); the smaller shard is the one the split cites.
pub(super) fn prove_subtask(
    cx: &Split,
    position: &Position,
    name: &str,
    depth: usize,
    decisive: Color,
) -> Result<Done, Attempt> {
    let done = confirmed(
        cx.dir,
        name,
        prove_position(cx, position, name, depth)?,
        decisive,
    )?;
    let Some(go) = cx.shrink.filter(|_| !done.resumed) else {
        return Ok(done);
    };
    if subtask_shards(cx.dir, name) > 0 || amazons_solver::dfpn::aborted() {
        return Ok(done);
    }
    let at = (name, position, shard_file(cx.dir, name));
    let smaller = crate::shrink::after_subtask(cx.dir, cx.root, cx.opts, at, &done, go)?;
    Ok(smaller.unwrap_or(done))
}

/// `done`, the result of task `name`, unless it is a shard a resumed run took without the
/// checker, won by `decisive` (so that acting on it settles its list: a refuted guess's
/// shards are removed, a first move is refuted), and the checker rejects it: it is then
/// moved aside ([`crate::safety::confirm`]) and the task left open, to be solved again.
pub(super) fn confirmed(
    dir: &Path,
    name: &str,
    done: Done,
    decisive: Color,
) -> Result<Done, Attempt> {
    if done.resumed && done.winner == decisive && !crate::safety::confirm(dir, name) {
        return Err(Attempt::Budget);
    }
    Ok(done)
}

/// Ranks the moves of task `name` again after the guess `refuted.last()` was refuted: the
/// ranking that chose it misjudged the position (5x6 tasks 008 and 049 lost guess after
/// guess to a ranking made sessions before). The new search knows the refuted guesses
/// as lost ([`amazons_solver::ranking_knowing`]), so it spends its budget on the other
/// moves instead of repeating the first ranking, and its lean is that of the moves left.
/// Recorded as a new split line followed by the refuted guesses again, so a rerun takes
/// the same next guess.
fn rerank(
    dir: &Path,
    name: &str,
    position: &Position,
    refuted: &[Move],
    guess_opts: &Options,
) -> (Vec<Move>, bool) {
    let t = Instant::now();
    let (ranked, lean) =
        amazons_solver::ranking_knowing(position, guess_opts, refuted).order_and_lean();
    record_spent(dir, name, t, "rank");
    // A ranking cut short because the run is over is not recorded.
    if !amazons_solver::dfpn::aborted() {
        record_split(dir, name, position, &ranked, lean);
        for &m in refuted {
            record_refuted(dir, name, position, m);
        }
    }
    (ranked, lean)
}

/// Solves `position` whole with [`Budget::escalate`] times the node budget, once: on
/// success its shard replaces the split (the subtask shards under it are removed); on
/// failure an `escalated` line in `DIR/splits.tsv` keeps a rerun from trying again.
/// `Ok(None)` also when there is no node budget to escalate, or no escalation.
fn solve_escalated(cx: &Split, position: &Position, name: &str) -> Result<Option<Done>, Attempt> {
    let (Some(nodes), true) = (cx.opts.max_nodes, cx.escalate > 1) else {
        return Ok(None);
    };
    let opts = Options {
        max_nodes: Some(nodes.saturating_mul(cx.escalate)),
        ..cx.opts.clone()
    };
    let budget = crate::decisions::nodes(nodes.saturating_mul(cx.escalate));
    let log = |outcome: &str| {
        crate::decisions::record(cx.dir, name, "escalated whole solve", &budget, outcome)
    };
    match solve_position(cx.dir, position, name, cx.root, &opts, cx.as_extracted) {
        Ok(done) => {
            log(&format!("{} wins", done.winner));
            remove_nested(cx.dir, name);
            Ok(Some(done))
        }
        Err(Attempt::Budget) => {
            log("over budget");
            split_line(cx.dir, name, position, "escalated", &[]);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// The replies to the guess `first` of task `name` (at `position`; `after` is the position
/// after it), the opponent's most promising first, as a df-pn of `after` within a quarter
/// of the node budget ranks them; recorded in `DIR/splits.tsv` (`replies`: the guess, then
/// the replies), so a rerun takes the same order without searching. `None` when that
/// search proved the opponent's win, which refutes the guess at once.
pub(super) fn reply_order(
    cx: &Split,
    after: &Position,
    first: Move,
    name: &str,
    position: &Position,
) -> Option<Vec<Move>> {
    if let Some(order) = recorded_replies(cx.dir, name, position, first) {
        return Some(order);
    }
    let opts = cx.guess_options((cx.guess_nodes() / 4).max(1));
    let t = Instant::now();
    let ranking = amazons_solver::ranking(after, &opts);
    record_spent(cx.dir, name, t, "rank");
    if ranking.winner == Some(after.to_move) {
        return None;
    }
    let order = ranking.order();
    let line: Vec<Move> = std::iter::once(first)
        .chain(order.iter().copied())
        .collect();
    if !amazons_solver::dfpn::aborted() {
        split_line(cx.dir, name, position, "replies", &line);
    }
    Some(order)
}

/// The reply order [`reply_order`] recorded for the guess `first` of task `name` at
/// `position` (its last `replies` line for that guess), if any.
pub(super) fn recorded_replies(
    dir: &Path,
    name: &str,
    position: &Position,
    first: Move,
) -> Option<Vec<Move>> {
    split_records(dir, name, position)
        .into_iter()
        .rfind(|(kind, moves)| kind == "replies" && moves.first() == Some(&first))
        .map(|(_, moves)| moves[1..].to_vec())
}

/// One guess of a split: `first` fixed, one subtask per reply. `Ok(None)` when a reply
/// refutes it (its subtask shards are then removed: they prove nothing the task needs);
/// `Err(Attempt::Budget)` when a subtask stays open.
pub(super) fn prove_guess(
    cx: &Split,
    position: &Position,
    first: Move,
    name: &str,
    depth: usize,
) -> Result<Option<(Plan, Vec<Done>)>, Attempt> {
    let sub = Plan::new(position, Some(first))?.prefixed(name);
    let mut unique: Vec<&Task> = sub.unique().collect();
    let Some(order) = reply_order(cx, &sub.split_position(), first, name, position) else {
        // The ordering search proved that the opponent wins after the guess.
        for t in &unique {
            remove_shards(cx.dir, &t.name);
        }
        return Ok(None);
    };
    // The opponent's most promising replies first: when the guess is wrong, the reply
    // that refutes it is then reached before much work is spent (and thrown away) on
    // the others; when it is right, every reply is proved all the same.
    unique.sort_by_key(|t| order.iter().position(|&m| m == t.mv).unwrap_or(usize::MAX));
    // A reply the side to move does not win refutes the guess: no need for the others.
    let proved = prove_in_order(cx, &unique, depth - 1, position.to_move.opponent());
    let mut results: Vec<Option<Done>> = vec![None; sub.tasks.len()];
    let mut open = false;
    for (t, outcome) in unique.iter().zip(proved) {
        match outcome {
            Some(Ok(d)) if d.winner != position.to_move => {
                for t in sub.unique() {
                    remove_shards(cx.dir, &t.name);
                }
                return Ok(None);
            }
            Some(Ok(d)) => results[t.index] = Some(d),
            Some(Err(Attempt::Budget)) => open = true,
            Some(Err(e)) => return Err(e),
            // Only after a refutation or a failure, which returned above.
            None => open = true,
        }
    }
    if open {
        return Err(Attempt::Budget);
    }
    let done = sub.complete(results);
    Ok(Some((sub, done)))
}

/// The other split: every move of `position` is a subtask, tried in `order` (moves not
/// in it last); the first that the side to move wins proves the task alone, else all of
/// them prove the loss. With `tries`, only the first `tries` moves of `order` not yet
/// proved lost are tried, and the task stays open unless one of them wins or no move is
/// left untried.
pub(super) fn prove_every_move(
    cx: &Split,
    position: &Position,
    order: &[Move],
    tries: Option<usize>,
    name: &str,
    depth: usize,
) -> Result<(Plan, Vec<Done>), Attempt> {
    let sub = Plan::new(position, None)?.prefixed(name);
    let mut tasks: Vec<&Task> = sub.unique().collect();
    tasks.sort_by_key(|t| order.iter().position(|&m| m == t.mv).unwrap_or(usize::MAX));
    let every = tasks.len();
    if let Some(n) = tries {
        // Moves already proved lost (shards on disk) do not use up a try: a rerun goes on
        // to the next `n` moves, so a task whose tries all lose is not stuck open, and
        // once every move is settled the loss is proved.
        let mut left = n;
        tasks.retain(|t| {
            let lost = existing_at(&shard_file(cx.dir, &t.name), &t.position)
                .is_some_and(|d| d.winner != position.to_move);
            let take = lost || left > 0;
            if !lost && take {
                left -= 1;
            }
            take
        });
    }
    let all_tried = tasks.len() == every;
    // A move the side to move wins proves the task: no need for the others.
    let proved = prove_in_order(cx, &tasks, depth - 1, position.to_move);
    let mut results: Vec<Option<Done>> = vec![None; sub.tasks.len()];
    let mut open = false;
    for (t, outcome) in tasks.iter().zip(proved) {
        match outcome {
            Some(Ok(d)) if d.winner == position.to_move => {
                // The other moves' shards are not part of this proof.
                for other in sub.unique().filter(|o| o.index != t.index) {
                    remove_shards(cx.dir, &other.name);
                }
                let single = Plan {
                    root: position.clone(),
                    first: None,
                    tasks: vec![Task {
                        index: 0,
                        ..(*t).clone()
                    }],
                };
                return Ok((single, vec![d]));
            }
            Some(Ok(d)) => results[t.index] = Some(d),
            Some(Err(Attempt::Budget)) => open = true,
            Some(Err(e)) => return Err(e),
            None => open = true,
        }
    }
    if open || !all_tried {
        return Err(Attempt::Budget);
    }
    let done = sub.complete(results);
    Ok((sub, done))
}

/// What a split needs at every level: where shards go, the root they are part of, the
/// search options, and the pool through which idle threads help.
#[derive(Clone, Copy)]
pub(super) struct Split<'a> {
    dir: &'a Path,
    root: &'a Position,
    opts: &'a Options,
    pool: &'a Pool,
    /// [`Budget::escalate`].
    escalate: u64,
    /// [`Budget::tries`].
    tries: usize,
    /// [`Budget::ladder`], and the whole run's table in MiB (a thread's when it is the
    /// last one working).
    ladder: Option<&'a crate::ladder::Ladder>,
    whole_mib: usize,
    /// [`Budget::as_extracted`].
    as_extracted: bool,
    /// [`Budget::quick`].
    quick: Option<u64>,
    /// In a quick pass: the largest budget a task is solved whole with (no split).
    cap: Option<u64>,
    /// [`Budget::shrink`], for the subtasks' shards ([`prove_subtask`]).
    shrink: Option<crate::shrink::AsYouGo>,
}

impl<'a> Split<'a> {
    pub(super) fn new(
        dir: &'a Path,
        root: &'a Position,
        opts: &'a Options,
        pool: &'a Pool,
    ) -> Split<'a> {
        Split {
            dir,
            root,
            opts,
            pool,
            escalate: 0,
            tries: 0,
            ladder: None,
            whole_mib: opts.hash_mib,
            as_extracted: false,
            quick: None,
            cap: None,
            shrink: None,
        }
    }

    /// The same, re-solving large new subtask shards for size ([`Budget::shrink`]).
    pub(super) fn shrinking(self, shrink: Option<crate::shrink::AsYouGo>) -> Split<'a> {
        Split { shrink, ..self }
    }

    /// The same, with a quick pass of every subtask list up to `nodes` ([`Budget::quick`]).
    pub(super) fn quick(self, nodes: Option<u64>) -> Split<'a> {
        Split {
            quick: nodes,
            ..self
        }
    }

    /// The same, solving every task whole within `cap` nodes and never splitting (a quick
    /// pass), or as usual with `None`.
    pub(super) fn capped(self, cap: Option<u64>) -> Split<'a> {
        Split { cap, ..self }
    }

    /// The same, climbing `ladder` ([`Budget::ladder`]) with at most `whole_mib` of table.
    pub(super) fn climbing(
        self,
        ladder: Option<&'a crate::ladder::Ladder>,
        whole_mib: usize,
    ) -> Split<'a> {
        Split {
            ladder,
            whole_mib,
            ..self
        }
    }

    /// The node budget of a search that ranks moves: `--max-nodes`, else the ladder's
    /// ([`crate::ladder::Ladder::guess_nodes`]), else [`GUESS_NODES`].
    fn guess_nodes(&self) -> u64 {
        (self.opts.max_nodes)
            .or(self.ladder.map(|l| l.guess_nodes()))
            .unwrap_or(GUESS_NODES)
    }

    /// The options of a search that ranks moves within `nodes`: the main table's size,
    /// so that it reuses that memory instead of holding a third table; up the ladder, the
    /// table that `nodes` fill.
    fn guess_options(&self, nodes: u64) -> Options {
        let mut o = Options {
            max_nodes: Some(nodes),
            ..amazons_solver::main_search_options(self.opts)
        };
        if self.ladder.is_some() {
            o.hash_mib = o.hash_mib.min(crate::memory::table_for_nodes(nodes));
        }
        o
    }

    /// Solves `position` whole into the shard `NAME.cert`: with the run's budget, or up the
    /// ladder, each rung recorded in `DIR/decisions.tsv`. The table a rung may use is this
    /// thread's share, or the whole run's table when no other thread is working.
    fn solve_whole(&self, position: &Position, name: &str) -> Result<Done, Attempt> {
        let Some(full) = self.ladder else {
            return solve_position(
                self.dir,
                position,
                name,
                self.root,
                self.opts,
                self.as_extracted,
            );
        };
        // Rungs this task ran past in earlier runs (decisions.tsv) are not climbed again.
        let passed = crate::decisions::passed_rungs(self.dir, name);
        let mut ladder = full.above(passed);
        if let Some(cap) = self.cap {
            // A quick pass climbs only the rungs within its cap; a task already past them
            // waits for the second pass.
            ladder.rungs.retain(|&n| n <= cap && n > passed);
            if ladder.rungs.is_empty() {
                return Err(Attempt::Budget);
            }
        }
        let ladder = &ladder;
        // The last rung of a quick pass is not the top: over it, the task goes on later.
        let capped = self
            .cap
            .is_some_and(|cap| full.rungs.iter().any(|&n| n > cap));
        if passed > 0 {
            crate::decisions::record(
                self.dir,
                name,
                crate::decisions::SOLVE_WHOLE,
                &crate::decisions::nodes(ladder.rungs[0]),
                &format!(
                    "resumed: starts at this rung, past {} already (in an earlier run, or a quick pass)",
                    crate::decisions::nodes(passed)
                ),
            );
        }
        let t = Instant::now();
        let available = || {
            if self.pool.alone() {
                self.whole_mib
            } else {
                self.opts.hash_mib
            }
        };
        let attempt = |rung: crate::ladder::Rung| {
            let counter = self.pool.set_rung(name, rung.nodes);
            let mut opts = Options {
                max_nodes: Some(rung.nodes),
                hash_mib: rung.table_mib,
                ..self.opts.clone()
            };
            opts.live_nodes.push(counter);
            solve_position(
                self.dir,
                position,
                name,
                self.root,
                &opts,
                self.as_extracted,
            )
        };
        let log = |rung: crate::ladder::Rung, outcome: &Result<Done, Attempt>| {
            let budget = format!(
                "{}, {} MiB table{}",
                crate::decisions::nodes(rung.nodes),
                rung.table_mib,
                if rung.continued {
                    ", going on from the last rung's entries"
                } else {
                    ""
                }
            );
            let outcome = match outcome {
                Ok(d) => format!("{} wins ({} nodes)", d.winner, d.nodes),
                Err(Attempt::Budget) if self.pool.stop.load(Ordering::SeqCst) => {
                    "stopped: the run is over".into()
                }
                Err(Attempt::Budget) if amazons_solver::dfpn::aborted() => {
                    crate::decisions::LIST_SETTLED.into()
                }
                Err(Attempt::Budget) if rung.top && !capped => "over budget at the top rung".into(),
                Err(Attempt::Budget) => crate::decisions::NEXT_RUNG.into(),
                Err(Attempt::Failed(e)) => format!("failed: {e}"),
            };
            crate::decisions::record(
                self.dir,
                name,
                crate::decisions::SOLVE_WHOLE,
                &budget,
                &outcome,
            );
        };
        let over = |e: &Attempt| matches!(e, Attempt::Budget);
        let halted = amazons_solver::dfpn::aborted;
        let climbed = ladder.climb(available, attempt, over, halted, log);
        // Off the ladder: solved, or on to a split, whose progress the levels show.
        self.pool.clear_rung(name);
        let mut done = climbed?;
        // The time of every rung, so that times.tsv holds what the task cost.
        done.millis = t.elapsed().as_millis() as u64;
        Ok(done)
    }

    /// The same, with [`Budget::escalate`] set to `k`.
    pub(super) fn escalating(self, k: u64) -> Split<'a> {
        Split {
            escalate: k,
            ..self
        }
    }

    /// The same, with [`Budget::tries`] set to `n`.
    pub(super) fn trying(self, n: usize) -> Split<'a> {
        Split { tries: n, ..self }
    }

    /// The same, writing shards as extracted ([`Budget::as_extracted`]).
    pub(super) fn extracted(self, as_extracted: bool) -> Split<'a> {
        Split {
            as_extracted,
            ..self
        }
    }
}

/// Proves `tasks` (subtasks `depth` levels above the last) in this order, as a
/// sequential loop would, but shares them with idle threads: they are published in the
/// pool, the owner and any helper claim them one at a time in order, and once one is
/// won by `decisive` (or fails), no further one is started. Returns each task's outcome,
/// `None` for tasks never started. Every started task has finished when this returns,
/// so the caller may remove shards.
///
/// With [`Budget::quick`] (and not already in a quick pass), the list is proved in two
/// passes: first every subtask whole within the quick budget, never split; then the ones
/// that were over it, as usual (their ladder resumes above the rungs already climbed). A
/// hard subtask then no longer holds up the easy ones behind it: they are proved (and
/// kept) first, and a reply that refutes a guess is found sooner.
fn prove_in_order(
    cx: &Split,
    tasks: &[&Task],
    depth: usize,
    decisive: Color,
) -> Vec<Option<Result<Done, Attempt>>> {
    let (Some(quick), None, Some(_)) = (cx.quick, cx.cap, cx.ladder) else {
        return prove_list(cx, tasks, depth, decisive, None, 0);
    };
    let mut out = prove_list(cx, tasks, depth, decisive, Some(quick), 0);
    let settled = out.iter().any(|o| match o {
        Some(Ok(d)) => d.winner == decisive,
        Some(Err(Attempt::Failed(_))) => true,
        _ => false,
    });
    let hard: Vec<usize> = (0..out.len())
        .filter(|&i| matches!(out[i], Some(Err(Attempt::Budget))))
        .collect();
    if settled || hard.is_empty() || amazons_solver::dfpn::aborted() {
        return out;
    }
    if let Some((parent, _)) = tasks[hard[0]].name.rsplit_once('.') {
        let names: Vec<&str> = hard.iter().map(|&i| tasks[i].name.as_str()).collect();
        crate::decisions::record(
            cx.dir,
            parent,
            crate::decisions::QUICK_PASS,
            &crate::decisions::nodes(quick),
            &format!(
                "{} of {} subtasks over it, now proved as usual: {}",
                hard.len(),
                tasks.len(),
                names.join(", ")
            ),
        );
    }
    let later: Vec<&Task> = hard.iter().map(|&i| tasks[i]).collect();
    let earlier = tasks.len() - later.len();
    for (i, o) in hard
        .into_iter()
        .zip(prove_list(cx, &later, depth, decisive, None, earlier))
    {
        out[i] = o;
    }
    out
}

/// One pass of [`prove_in_order`]: `cap` is the quick pass's budget, if it is one;
/// `earlier` subtasks of the same split were proved before it (for the progress line).
fn prove_list(
    cx: &Split,
    tasks: &[&Task],
    depth: usize,
    decisive: Color,
    cap: Option<u64>,
    earlier: usize,
) -> Vec<Option<Result<Done, Attempt>>> {
    let cx = &cx.capped(cap);
    let mut list = SubList::new(
        tasks
            .iter()
            .map(|t| (t.position.clone(), t.name.clone()))
            .collect(),
        depth,
        decisive,
        cap,
    );
    list.earlier = earlier;
    let list = std::sync::Arc::new(list);
    cx.pool.open_list(&list);
    cx.pool.publish(&list);
    {
        let _within = Within::list(&list);
        while let Some(i) = list.claim() {
            let (position, name) = &list.items[i];
            let outcome = prove_subtask(cx, position, name, depth, decisive);
            list.put(i, outcome);
        }
    }
    cx.pool.withdraw(&list);
    // Helpers may still be on some of them: help elsewhere meanwhile, then collect.
    while list.outstanding() > 0 {
        if !cx.pool.help_once(cx) {
            list.wait_a_little();
        }
    }
    cx.pool.close_list(&list);
    list.take_results()
}

/// Removes the shard `NAME` (either form) and every shard nested under it (`NAME.*`).
fn remove_shards(dir: &Path, name: &str) {
    remove_matching(dir, name, true);
}

/// Removes every shard nested under `NAME` (`NAME.*`), keeping `NAME`'s own.
fn remove_nested(dir: &Path, name: &str) {
    remove_matching(dir, name, false);
}

/// Removes the shards nested under `NAME`, and with `own` also `NAME`'s own shard.
fn remove_matching(dir: &Path, name: &str, own: bool) {
    let shards = dir.join("shards");
    let nested = format!("{name}.");
    let Ok(entries) = std::fs::read_dir(&shards) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(file) = file.to_str() else {
            continue;
        };
        let is_own = file == format!("{name}.cert") || file == format!("{name}.cert.zst");
        if (own && is_own)
            || (!is_own
                && file.starts_with(&nested)
                && amazons_format::stored::is_cert_path(&e.path()))
        {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Writes the manifest of a split task as its shard and checks it.
pub(super) fn finish_split(
    dir: &Path,
    position: &Position,
    name: &str,
    root: &Position,
    (sub, done): (Plan, Vec<Done>),
    t: Instant,
) -> Result<Done, Attempt> {
    let mut manifest = manifest_of(&sub, &done)?;
    manifest.meta.note = format!("split shard {name} of {}", root.describe());
    let bytes = amazons_format::encode(&manifest).map_err(|e| ShardError::Task {
        task: name.to_string(),
        reason: e.to_string(),
    })?;
    let body = amazons_format::file::verified_body(&bytes).map_err(|e| ShardError::Task {
        task: name.to_string(),
        reason: e.to_string(),
    })?;
    let hash = amazons_format::hash_body(body);
    let path = shard_file(dir, name);
    write_cert(&path, &bytes)?;
    if existing_at(&path, position).is_none() {
        // Subtask shards a resumed run took without the checker are checked now; those it
        // rejects are moved aside, and the task is left open to solve them again.
        if !crate::safety::set_aside_rejected(dir, Some(name)).is_empty() {
            for p in [path.clone(), amazons_format::stored::compressed_path(&path)] {
                let _ = std::fs::remove_file(p);
            }
            return Err(Attempt::Budget);
        }
        return Err(ShardError::Task {
            task: name.to_string(),
            reason: "the checker rejected the split task's manifest (a solver bug)".into(),
        }
        .into());
    }
    Ok(Done {
        winner: manifest.root.winner,
        hash,
        nodes: manifest.meta.nodes,
        millis: t.elapsed().as_millis() as u64,
        bytes: bytes.len() as u64,
        resumed: false,
        mirror_of: None,
    })
}
