//! `amazons compact`: rewritten certificates and sharded results check, prove the same claim, are no larger and list no more outlast moves; wrong inputs are refused untouched.

use crate::common::small_options;
use amazons_campaign::shard::{self, Plan};
use amazons_checker::cli::DirShards;
use amazons_checker::rules::OnePlayer;
use amazons_format::{stored, Certificate, Claim, Move, Position, Step, SEARCH_LIMIT};
use amazons_solver::compact::{
    compact_path, rewrite_limited, rewrite_path, shortest_outlast, CompactError,
};
use std::path::{Path, PathBuf};

/// A fresh, empty directory for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("amazons-compact-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

/// The checker's whole line for an outlast step: what the solver listed before completion.
fn full_line(claim: &Claim, moves: &[Move], exact: &mut OnePlayer) -> Vec<Move> {
    amazons_checker::outlast_line(claim, moves, exact).expect("an accepted outlast step")
}

fn read(path: &Path) -> Certificate {
    amazons_format::decode(&stored::read(path).expect("read")).expect("decode")
}

fn outlast_moves(cert: &Certificate) -> usize {
    (cert.steps.iter())
        .map(|s| match s {
            Step::Outlast { moves } => moves.len(),
            _ => 0,
        })
        .sum()
}

/// Every certificate file directly in `dir` and in `dir/shards`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in [dir.to_path_buf(), dir.join("shards")] {
        if let Ok(entries) = std::fs::read_dir(&d) {
            out.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| stored::is_cert_path(p)),
            );
        }
    }
    out.sort();
    out
}

/// The bytes of every certificate file of a sharded directory, in [`files`] order.
fn bytes(dir: &Path) -> Vec<Vec<u8>> {
    (files(dir).iter())
        .map(|p| std::fs::read(p).expect("read"))
        .collect()
}

/// What a file holds: its root claim, stored size and outlast moves.
fn survey(path: &Path) -> (Claim, u64, usize) {
    let cert = read(path);
    let size = std::fs::metadata(path).expect("size").len();
    (cert.root.clone(), size, outlast_moves(&cert))
}

fn check_manifest(path: &Path) {
    let shards = DirShards::scan(&path.parent().expect("dir").join("shards"));
    let bytes = stored::read(path).expect("read");
    if let Err(e) = amazons_checker::check_bytes_with(&bytes, &shards) {
        panic!("{} rejected after compaction: {e}", path.display());
    }
}

#[test]
fn compacting_a_solved_4x5_keeps_its_claim_and_shrinks_it() {
    let dir = fresh_dir("4x5");
    let root = Position::start("4x5").expect("4x5");
    let solved = amazons_solver::solve(&root, &small_options(), "test").expect("solved");
    let path = dir.join("4x5.cert");
    std::fs::write(
        &path,
        amazons_format::encode(&solved.certificate).expect("encode"),
    )
    .expect("write");
    // The solver already writes compact lists: compacting changes nothing and still checks.
    let before = survey(&path);
    compact_path(&path, false).expect("compacted");
    assert_eq!(survey(&path), before);
    // The whole lines (as the solver listed them before completion), stored compressed.
    rewrite_path(&path, &full_line, false, &mut |_| {}).expect("expanded");
    let packed = dir.join("4x5.cert.zst");
    let raw = std::fs::read(&path).expect("read");
    std::fs::write(&packed, stored::compress(&raw).expect("compress")).expect("write");
    std::fs::remove_file(&path).expect("remove");
    let before = survey(&packed);
    assert!(before.2 > outlast_moves(&solved.certificate), "expanded");
    let done = compact_path(&packed, false).expect("compacted");
    assert_eq!(done.len(), 1);
    let after = survey(&packed);
    check_manifest(&packed);
    assert!(stored::is_compressed(
        &std::fs::read(&packed).expect("read")
    ));
    assert_eq!(after.0, before.0, "same claim");
    assert!(after.1 <= before.1, "no larger: {} > {}", after.1, before.1);
    assert!(after.2 < before.2, "fewer outlast moves");
    assert_eq!(after.2, outlast_moves(&solved.certificate));
    assert_eq!(done[0].outlast_moves_after as usize, after.2);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fresh directory `tag` holding a sharded 4x4 result (manifest and shards).
fn sharded_4x4(tag: &str) -> PathBuf {
    sharded_4x4_as(tag, true)
}

/// A sharded solve of the 4x4 start, its shards as extracted (no `Search` steps) or as
/// runs publish them.
fn sharded_4x4_as(tag: &str, as_extracted: bool) -> PathBuf {
    let dir = fresh_dir(tag);
    let root = Position::start("4x4").expect("4x4");
    let plan = Plan::new(&root, None).expect("plan");
    let budget = shard::Budget {
        as_extracted,
        ..shard::Budget::threads(2)
    };
    shard::run(&plan, &dir, &small_options(), budget, &|_| {}).expect("sharded solve");
    dir
}

#[test]
fn a_sharded_run_publishes_search_steps_that_compaction_leaves_alone() {
    let dir = sharded_4x4_as("published", false);
    let searches = (files(&dir).iter().flat_map(|p| read(p).steps))
        .filter(|s| matches!(s, Step::Search))
        .count();
    assert!(searches > 0, "shards hold Search steps");
    let before = bytes(&dir);
    let done = compact_path(&dir, true).expect("compacted");
    assert_eq!(done.iter().map(|c| c.searches).sum::<u64>(), 0);
    assert_eq!(bytes(&dir), before, "nothing left to compact");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compacting_a_sharded_4x4_rewrites_shards_first() {
    let dir = sharded_4x4("sharded");
    let manifest = dir.join("manifest.cert");
    // Expand every list, shards and manifest alike, then compact the directory back.
    rewrite_path(&dir, &full_line, false, &mut |_| {}).expect("expanded");
    check_manifest(&manifest);
    let before: Vec<_> = files(&dir).iter().map(|p| survey(p)).collect();
    // Temporary files of an interrupted run (a process id no process has) are removed; one
    // of a live process (1) and other files are left alone.
    let shards = dir.join("shards");
    let stale = shards.join(".000-x.cert.4000000000.compact.tmp");
    let live = shards.join(".000-x.cert.1.compact.tmp");
    let other = shards.join("notes.compact.tmp");
    for p in [&stale, &live, &other] {
        std::fs::write(p, b"partial").expect("write");
    }
    let mut seen = Vec::new();
    let done =
        rewrite_path(&dir, &shortest_outlast, false, &mut |p| seen.push(*p)).expect("compacted");
    assert!(!stale.exists(), "stale temporary file removed");
    assert!(live.exists() && other.exists(), "other files kept");
    assert_eq!(done.len(), before.len(), "every file rewritten");
    let last = seen.last().copied().unwrap_or_default();
    assert_eq!(
        seen.len(),
        done.len() + 1,
        "one report before, one per file"
    );
    assert_eq!(
        (last.files_done, last.files_total),
        (done.len(), done.len())
    );
    assert_eq!(last.stored_done, last.stored_total);
    assert_eq!(last.steps, done.iter().map(|c| c.steps).sum::<usize>());
    assert_eq!(done.last().map(|c| c.path.clone()), Some(manifest.clone()));
    check_manifest(&manifest);
    let after: Vec<_> = files(&dir).iter().map(|p| survey(p)).collect();
    assert_eq!(after.len(), before.len());
    for (a, b) in after.iter().zip(&before) {
        assert_eq!(a.0, b.0, "same claim");
        assert!(a.1 <= b.1, "no larger");
        assert!(a.2 <= b.2, "no more outlast moves");
    }
    let sum = |v: &[(Claim, u64, usize)]| v.iter().map(|s| s.2).sum::<usize>();
    assert!(sum(&after) < sum(&before), "some list was shortened");
    // A missing shard: the directory is refused (damaged input), the manifest untouched.
    let manifest_bytes = std::fs::read(&manifest).expect("read");
    let shard = files(&dir.join("shards")).into_iter().next();
    std::fs::remove_file(shard.expect("a shard")).expect("remove");
    let err = compact_path(&dir, false).expect_err("refused");
    assert!(matches!(err, CompactError::Wrong { .. }), "{err}");
    assert_eq!(err.exit_code(), 2);
    assert_eq!(std::fs::read(&manifest).expect("read"), manifest_bytes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_tampered_input_is_refused_and_left_untouched() {
    let dir = fresh_dir("tampered");
    let root = Position::start("4x4").expect("4x4");
    let solved = amazons_solver::solve(&root, &small_options(), "test").expect("solved");
    let mut cert = solved.certificate;
    // A wrong proof: the root's reply list loses its last subtree's step.
    cert.steps.pop();
    let path = dir.join("bad.cert");
    let bytes = amazons_format::encode(&cert).expect("encode");
    std::fs::write(&path, &bytes).expect("write");
    let err = compact_path(&path, false).expect_err("refused");
    assert!(matches!(err, CompactError::Wrong { .. }), "{err}");
    assert_eq!(err.exit_code(), 1);
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "untouched");
    // A damaged file: one body byte flipped (the hash no longer matches).
    let mut damaged = bytes.clone();
    damaged[60] ^= 1;
    std::fs::write(&path, &damaged).expect("write");
    let err = compact_path(&path, false).expect_err("refused");
    assert!(matches!(err, CompactError::Unreadable { .. }), "{err}");
    assert_eq!(err.exit_code(), 2);
    assert_eq!(std::fs::read(&path).expect("read"), damaged, "untouched");
    let names: Vec<_> = std::fs::read_dir(&dir).expect("dir").flatten().collect();
    assert_eq!(names.len(), 1, "no temporary file left");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn compacting_with_search_replaces_small_subtrees_and_still_checks() {
    let dir = sharded_4x4("search");
    let manifest = dir.join("manifest.cert");
    let steps = |path: &Path| read(path).steps;
    let before: Vec<_> = files(&dir).iter().map(|p| (survey(p), steps(p))).collect();
    let done = compact_path(&dir, true).expect("compacted with search");
    check_manifest(&manifest);
    let after: Vec<_> = files(&dir).iter().map(|p| (survey(p), steps(p))).collect();
    assert_eq!(after.len(), before.len());
    let searched: u64 = done.iter().map(|c| c.searches).sum();
    assert!(searched > 0, "some subtree became a Search step");
    let (mut steps_before, mut steps_after) = (0, 0);
    for ((a, a_steps), (b, b_steps)) in after.iter().zip(&before) {
        assert_eq!(a.0, b.0, "same claim");
        assert!(a_steps.len() <= b_steps.len(), "no more steps");
        steps_before += b_steps.len();
        steps_after += a_steps.len();
    }
    let search_steps = (after.iter().flat_map(|(_, s)| s))
        .filter(|s| matches!(s, Step::Search))
        .count() as u64;
    assert_eq!(search_steps, searched, "one step per replaced subtree");
    assert!(steps_after < steps_before, "{steps_after} < {steps_before}");
    // A second pass finds nothing left to replace and changes no file.
    let bytes: Vec<_> = files(&dir)
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    let again = compact_path(&dir, true).expect("compacted again");
    assert_eq!(again.iter().map(|c| c.searches).sum::<u64>(), 0);
    let same: Vec<_> = files(&dir)
        .iter()
        .map(|p| std::fs::read(p).expect("read"))
        .collect();
    assert_eq!(same, bytes, "idempotent");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_limited_run_converts_part_and_a_second_run_the_rest() {
    let dir = sharded_4x4("limit");
    let manifest = dir.join("manifest.cert");
    let leaves = (files(&dir).iter())
        .filter(|p| {
            !read(p)
                .steps
                .iter()
                .any(|s| matches!(s, Step::Shard { .. }))
        })
        .count();
    assert!(leaves >= 3, "{leaves} leaf shards");
    // The same directory compacted in one run, for comparison.
    let whole = sharded_4x4("limit-whole");
    compact_path(&whole, true).expect("compacted in one run");
    let root_of = |path: &Path| read(path).root;
    // A limit of one byte: the first leaf shard that changes is rewritten, the rest kept.
    let mut last = None;
    rewrite_limited(&dir, &shortest_outlast, true, false, Some(1), &mut |p| {
        last = Some(*p)
    })
    .expect("compacted in part");
    let p = last.expect("progress reported");
    assert_eq!(p.files_done, p.files_total);
    assert!(p.kept > 0 && p.kept < leaves, "{} of {leaves} kept", p.kept);
    check_manifest(&manifest);
    let searches = |d: &Path| {
        (files(d).iter().flat_map(|p| read(p).steps))
            .filter(|s| matches!(s, Step::Search))
            .count()
    };
    let (part, full) = (searches(&dir), searches(&whole));
    assert!(part > 0 && part < full, "{part} of {full} Search steps");
    // The second run converts the rest: the same files as the one-run compaction.
    rewrite_limited(&dir, &shortest_outlast, true, false, None, &mut |p| {
        last = Some(*p)
    })
    .expect("compacted the rest");
    assert_eq!(last.expect("progress").kept, 0);
    check_manifest(&manifest);
    assert_eq!(root_of(&manifest), root_of(&whole.join("manifest.cert")));
    assert_eq!(bytes(&dir), bytes(&whole), "same bytes as one run");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&whole);
}

/// `tests/data/trim/4x6-c1-c4xb4-a5-a3xc1.cert.zst`: 4x6 after c1-c4xb4 a5-a3xc1, White to
/// move and winning, as the solver wrote it before it preferred closing moves (`amazons
/// solve 4x6 --moves "c1-c4xb4 a5-a3xc1" --hash 16` at commit 2387a5e).
fn untrimmed() -> Certificate {
    read(&crate::common::workspace_root().join("tests/data/trim/4x6-c1-c4xb4-a5-a3xc1.cert.zst"))
}

#[test]
fn trimming_replaces_long_subproofs_but_keeps_the_cited_ones() {
    // Some choices have a long subproof where another move closes at once, and some of
    // those subproofs prove a claim that a later `Transposition` cites (dropping them
    // breaks the proof: measured on the published 4x5, 4x6 and 5x5 results).
    let cert = untrimmed();
    let before = cert.steps.len();
    let (trimmed, t) = amazons_solver::trim::trim_certificate(cert.clone());
    assert!(t.choices > 0, "some choice trimmed: {t:?}");
    assert!(
        t.protected > 0,
        "some subproof kept for a later citation: {t:?}"
    );
    assert_eq!(
        (t.steps_before, t.steps_after),
        (before, trimmed.steps.len())
    );
    // Each trimmed choice saves at least MIN_SAVED steps.
    let saved = (before - trimmed.steps.len()) as u64;
    assert!(
        saved >= amazons_solver::trim::MIN_SAVED as u64 * t.choices,
        "{t:?}"
    );
    assert_eq!(trimmed.root, cert.root, "same claim");
    if let Err(e) = amazons_checker::check(&trimmed) {
        panic!("rejected after trimming: {e}");
    }
    // Nothing is left to trim.
    let (_, again) = amazons_solver::trim::trim_certificate(trimmed);
    assert_eq!(again.choices, 0, "{again:?} after {t:?}");
    assert!(
        t.passes > 1 && t.passes < amazons_solver::trim::MAX_PASSES,
        "{t:?}"
    );
}

#[test]
fn the_solver_prefers_a_move_that_closes_at_once() {
    // The same position solved now: where a move closes at once the solver takes it, so
    // trimming finds nothing, and the proof is shorter than the one written before.
    let old = untrimmed();
    let mut fresh = amazons_solver::solve(&old.root.position, &small_options(), "test")
        .expect("solved")
        .certificate;
    amazons_solver::compact::add_search_steps(&mut fresh);
    assert_eq!(fresh.root, old.root);
    let (_, t) = amazons_solver::trim::trim_certificate(fresh.clone());
    assert_eq!(t.choices, 0, "{t:?}");
    assert!(
        fresh.steps.len() < old.steps.len(),
        "{} < {}",
        fresh.steps.len(),
        old.steps.len()
    );
}

#[test]
fn trimming_a_sharded_result_keeps_every_shard_cited() {
    let dir = sharded_4x4("trim-sharded");
    let manifest = dir.join("manifest.cert");
    let claims: Vec<Claim> = files(&dir).iter().map(|p| read(p).root).collect();
    rewrite_limited(&dir, &shortest_outlast, false, true, None, &mut |_| {}).expect("trimmed");
    check_manifest(&manifest);
    let after: Vec<Claim> = files(&dir).iter().map(|p| read(p).root).collect();
    assert_eq!(
        after, claims,
        "every file still there, proving the same claim"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The claims proven by `Search` steps, walking `cert` in checking order.
fn searched_claims(cert: &Certificate) -> Vec<Claim> {
    let mut stack = vec![cert.root.clone()];
    let mut out = Vec::new();
    for step in &cert.steps {
        let claim = stack.pop().expect("a claim for every step");
        if matches!(step, Step::Search) {
            out.push(claim.clone());
        }
        let children = amazons_solver::strategy::step_children(step, &claim).expect("fits");
        stack.extend(children.into_iter().rev());
    }
    assert!(stack.is_empty(), "every claim has its step");
    out
}

#[test]
fn priced_searches_go_past_four_empty_squares_and_transpositions_follow_them() {
    use amazons_solver::compact::{add_search_steps, empties, ALWAYS_SEARCH};
    let original = untrimmed();
    let mut cert = original.clone();
    let counts = add_search_steps(&mut cert);
    if let Err(e) = amazons_checker::check(&cert) {
        panic!("rejected after adding searches: {e}");
    }
    assert_eq!(cert.root, original.root);
    // The original's Search steps (at most ALWAYS_SEARCH empty squares) stay or vanish
    // inside a replaced subtree; every one past that is new, kept by its price or citing.
    let searched = searched_claims(&cert);
    let before = searched_claims(&original);
    assert!(before.iter().all(|c| empties(c) <= ALWAYS_SEARCH));
    assert!(searched.len() as u64 >= counts.searches);
    assert!(cert.steps.len() < original.steps.len());
    let priced = searched
        .iter()
        .filter(|c| empties(c) > ALWAYS_SEARCH)
        .count() as u64;
    assert_eq!(priced, counts.priced + counts.cited, "{counts:?}");
    assert!(counts.priced > 0 && counts.cited > 0, "{counts:?}");
    assert!(searched.iter().all(|c| empties(c) <= SEARCH_LIMIT));
    // Again: nothing left to replace.
    let mut again = cert.clone();
    assert_eq!(add_search_steps(&mut again).searches, 0);
    assert_eq!(again, cert);
}

#[test]
fn a_priced_search_costs_the_checker_at_most_the_cap_in_states() {
    use amazons_solver::compact::{add_search_steps_within, empties, ALWAYS_SEARCH};
    let original = untrimmed();
    let (mut open, mut capped) = (original.clone(), original.clone());
    let uncapped_counts = add_search_steps_within(&mut open, u64::MAX);
    let cap = 64;
    let counts = add_search_steps_within(&mut capped, cap);
    for cert in [&open, &capped] {
        if let Err(e) = amazons_checker::check(cert) {
            panic!("rejected after adding searches: {e}");
        }
    }
    // The cap keeps some subtrees whose search was within the price but past the cap (their
    // smaller subtrees are priced in turn), so the capped file has more steps.
    assert!(counts.priced > 0, "{counts:?}");
    assert!(
        capped.steps.len() > open.steps.len(),
        "{counts:?} against {uncapped_counts:?}"
    );
    // How many of a file's searches past ALWAYS_SEARCH empty squares the checker's own
    // search, from an empty memo, settles within the cap.
    let mut game = amazons_checker::rules::GameSearch::new(original.root.position.board);
    let mut settled = |cert: &Certificate| {
        let searched = searched_claims(cert);
        let priced: Vec<&Claim> = searched
            .iter()
            .filter(|c| empties(c) > ALWAYS_SEARCH)
            .collect();
        let within = priced
            .iter()
            .filter(|c| {
                let x_to_move = c.position.to_move == c.winner;
                game.mover_wins_within(&c.position, c.spare, cap) == Some(x_to_move)
            })
            .count() as u64;
        (within, priced.len() as u64)
    };
    // Every priced search of the capped file is within the cap (those replacing a
    // transposition whose cited claim was hidden are not priced), and the uncapped file
    // has searches past it.
    let (within, _) = settled(&capped);
    assert!(
        within >= counts.priced,
        "{within} within the cap, {counts:?}"
    );
    let (within, all) = settled(&open);
    assert!(
        within < all,
        "{within} of {all} uncapped searches within the cap"
    );
}
