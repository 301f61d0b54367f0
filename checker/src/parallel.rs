//! Checking a manifest's shards on several threads, with the verdict of the one-thread check.
//!
//! One thread walks the certificate's own steps as [`crate::check_with`] does, but sends each
//! top-level `Shard` step to a bounded queue instead of checking it in place; worker threads
//! take shards from the queue and check each completely (nested shards in place). The walk
//! adds a shard's claim to its proven set when it sends it, before the shard is checked.
//! That changes no verdict: the certificate is accepted only if the walk and every shard
//! check succeed, and then every claim in the proven set was proven; shards never see the
//! walk's proven set. When some check fails, the failure reported is the one at the smallest
//! step index, which is the one the one-thread check meets first (it stops there), with the
//! same message. Memory stays bounded: the queue holds at most `threads` shard claims, each
//! worker holds one shard at a time, and shards are checked at the same time only while the
//! steps they declare add up to at most [`STEPS_AT_ONCE`] (a larger one is checked alone).
//!
//! A manifest that cites fewer shards than there are threads (a first move whose task was
//! split: one shard citing hundreds) would keep one thread busy. So first the shards its
//! shards cite are checked *ahead*, on all threads, each against its own root claim at
//! level 1, as the walk would check them in place. The walk then skips the steps of a shard
//! checked ahead when it is cited at level 1 or 0 (`Shards::already_checked`): the same
//! check of the same bytes (the cited hash pins them) at that level or a shallower one,
//! where fewer levels of nesting lie below, succeeds as well. Its file layout, hash and
//! root claim are still checked where it is cited. A shard whose check ahead fails is not
//! skipped: the walk checks it in place and reports its failure as ever.

use crate::proof::{check_here, check_shard, error, CheckError, Job, Report, Shards};
use amazons_format::{Certificate, Claim, Step};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, PoisonError};

/// How far a parallel check has come, after each shard checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Shards checked (the top-level ones, and those checked ahead), and of these in all.
    pub shards_done: usize,
    pub shards_total: usize,
    /// Steps checked so far in those shards (their nested shards included).
    pub steps_done: usize,
}

/// The most steps that shards checked at the same time may declare in all: a shard's check
/// holds its file and a proven set that grow with its steps (about 30 bytes per step), so
/// this keeps two threads under 1 GiB on the published results.
pub const STEPS_AT_ONCE: u64 = 24_000_000;

/// Steps declared by the shards being checked, which workers wait on before they start one.
#[derive(Default)]
struct Gate {
    steps: Mutex<u64>,
    freed: Condvar,
}

impl Gate {
    /// Waits until a shard of `steps` steps may start (none other running, or room left);
    /// the steps count until the returned guard is dropped (a panicking check included).
    fn enter(&self, steps: u64) -> Held<'_> {
        let mut running = self.steps.lock().unwrap_or_else(PoisonError::into_inner);
        while *running > 0 && *running + steps > STEPS_AT_ONCE {
            running = (self.freed.wait(running)).unwrap_or_else(PoisonError::into_inner);
        }
        *running += steps;
        Held { gate: self, steps }
    }
}

/// A shard's place at the [`Gate`], given up when dropped.
struct Held<'a> {
    gate: &'a Gate,
    steps: u64,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        *self
            .gate
            .steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner) -= self.steps;
        self.gate.freed.notify_all();
    }
}

/// Stack size of a checking thread: enough for [`crate::MAX_DEPTH`] levels of recursion in
/// each of the shard levels.
const STACK_BYTES: usize = 256 << 20;

/// Checks `cert` by SPEC 4 and 5, with its top-level shards checked on `threads` worker
/// threads (none: in place, as [`crate::check_with`] does), and when they are fewer than
/// the threads, the shards they cite checked ahead (see the module's text); `progress` is
/// called after each shard checked by a worker.
pub fn check_parallel(
    cert: &Certificate,
    shards: &dyn Shards,
    threads: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, CheckError> {
    let top = cited(cert.steps.iter().cloned());
    let below = match top.len() < threads {
        true => below(&top, shards),
        false => Vec::new(),
    };
    let shards_total = top.len() + below.len();
    let ahead = Ahead {
        inner: shards,
        checked: check_ahead(&below, shards, threads, shards_total, progress),
        skipped: Mutex::default(),
    };
    let before = Progress {
        shards_done: ahead.checked.len(),
        shards_total,
        steps_done: (ahead.checked.values())
            .map(|r| r.steps + r.shard_steps)
            .sum(),
    };
    let mut report = walk(cert, &ahead, threads, before, progress)?;
    // A shard checked ahead counts, with its steps, wherever the walk skipped it.
    let skipped = ahead
        .skipped
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    for (hash, times) in skipped {
        if let Some(r) = ahead.checked.get(&hash) {
            report.shards += times * r.shards;
            report.shard_steps += times * (r.steps + r.shard_steps);
        }
    }
    Ok(report)
}

/// The hashes a list of steps cites in `Shard` steps, each once, in order.
fn cited(steps: impl Iterator<Item = Step>) -> Vec<[u8; 32]> {
    let mut seen = HashSet::new();
    (steps.filter_map(|step| match step {
        Step::Shard { hash } => seen.insert(hash).then_some(hash),
        _ => None,
    }))
    .collect()
}

/// The shards that the shards `top` cite, each once with its own root claim (a shard that
/// cannot be read is left out: the walk meets it and reports it).
fn below(top: &[[u8; 32]], shards: &dyn Shards) -> Vec<([u8; 32], Claim)> {
    let (mut out, mut seen) = (Vec::new(), HashSet::new());
    for hash in top {
        let Some(bytes) = shards.get(hash) else {
            continue;
        };
        let Ok(shard) = amazons_format::decode_lazy(&bytes) else {
            continue;
        };
        for child in cited(shard.steps).into_iter().filter(|h| seen.insert(*h)) {
            let Some(bytes) = shards.get(&child) else {
                continue;
            };
            if let Ok(c) = amazons_format::decode_lazy(&bytes) {
                out.push((child, c.root));
            }
        }
    }
    out
}

/// Shards as `inner` gives them, and the ones checked ahead: their steps are not checked
/// again where they are cited at level 1 or 0.
struct Ahead<'a> {
    inner: &'a dyn Shards,
    checked: HashMap<[u8; 32], Report>,
    /// How many times the walk skipped each shard checked ahead.
    skipped: Mutex<HashMap<[u8; 32], usize>>,
}

impl Shards for Ahead<'_> {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        self.inner.get(hash)
    }

    fn already_checked(&self, hash: &[u8; 32], level: usize) -> bool {
        if self.inner.already_checked(hash, level) {
            return true;
        }
        if level > 1 || !self.checked.contains_key(hash) {
            return false;
        }
        let mut skipped = self.skipped.lock().unwrap_or_else(PoisonError::into_inner);
        *skipped.entry(*hash).or_default() += 1;
        true
    }

    fn declared_steps(&self, hash: &[u8; 32]) -> Option<u64> {
        self.inner.declared_steps(hash)
    }
}

/// Checks each of `below` against its own root claim as cited at level 1, on `threads`
/// threads (memory bounded as the walk's workers are), and returns the reports of those
/// that checked; after the first failure no further one is started.
fn check_ahead(
    below: &[([u8; 32], Claim)],
    shards: &dyn Shards,
    threads: usize,
    shards_total: usize,
    progress: &mut dyn FnMut(Progress),
) -> HashMap<[u8; 32], Report> {
    let (next, failed, gate) = (
        &AtomicUsize::new(0),
        &AtomicBool::new(false),
        &Gate::default(),
    );
    let (done_tx, done_rx) = mpsc::channel();
    let mut checked = HashMap::new();
    std::thread::scope(|scope| {
        for _ in 0..threads.min(below.len()) {
            let done_tx = done_tx.clone();
            let work = move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((hash, claim)) = below.get(i) else {
                    break;
                };
                if failed.load(Ordering::Relaxed) {
                    break;
                }
                let steps = shards.declared_steps(hash).unwrap_or(0);
                let held = gate.enter(steps.min(STEPS_AT_ONCE));
                let result = check_shard(shards, claim, hash, 1);
                drop(held);
                failed.fetch_or(result.is_err(), Ordering::Relaxed);
                if done_tx.send((*hash, result)).is_err() {
                    break;
                }
            };
            // A thread that cannot start leaves its shards to the others, or to the walk.
            let _ = std::thread::Builder::new()
                .stack_size(STACK_BYTES)
                .spawn_scoped(scope, work);
        }
        drop(done_tx);
        let mut steps_done = 0;
        for (hash, result) in done_rx {
            if let Ok(report) = result {
                steps_done += report.steps + report.shard_steps;
                checked.insert(hash, report);
                progress(Progress {
                    shards_done: checked.len(),
                    shards_total,
                    steps_done,
                });
            }
        }
    });
    checked
}

/// The walk of `cert` with its top-level shards on `threads` workers; progress goes on
/// from `before`.
fn walk(
    cert: &Certificate,
    shards: &dyn Shards,
    threads: usize,
    before: Progress,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, CheckError> {
    let first_bad = AtomicUsize::new(usize::MAX);
    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(threads);
    // Shared by the workers only: should they all stop (a panic, which the scope passes
    // on), the queue closes and the walk cannot wait on it for ever.
    let (job_rx, first_bad) = (Arc::new(Mutex::new(job_rx)), &first_bad);
    let gate = &Gate::default();
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let builder = || std::thread::Builder::new().stack_size(STACK_BYTES);
        let mut started = 0;
        for _ in 0..threads {
            let (done_tx, job_rx) = (done_tx.clone(), Arc::clone(&job_rx));
            let work = move || {
                while let Some(job) = job_rx.lock().ok().and_then(|rx| rx.recv().ok()) {
                    // A failure earlier in checking order is the answer: skip later shards.
                    if job.step > first_bad.load(Ordering::Relaxed) {
                        continue;
                    }
                    let steps = shards.declared_steps(&job.hash).unwrap_or(0);
                    let held = gate.enter(steps.min(STEPS_AT_ONCE));
                    let result = check_shard(shards, &job.claim, &job.hash, 0)
                        .map_err(|f| error(&job.path, f, job.step, &job.claim));
                    drop(held);
                    if result.is_err() {
                        first_bad.fetch_min(job.step, Ordering::Relaxed);
                    }
                    if done_tx.send(result).is_err() {
                        break;
                    }
                }
            };
            started += usize::from(builder().spawn_scoped(scope, work).is_ok());
        }
        drop((done_tx, job_rx));
        // Without a worker thread the shards are checked in place.
        let jobs = (started > 0).then_some(job_tx);
        let walk = || check_here(&cert.root, &mut cert.steps.iter().cloned(), shards, 0, jobs);
        let Ok(walk) = builder().spawn_scoped(scope, walk) else {
            let steps = &mut cert.steps.iter().cloned();
            return check_here(&cert.root, steps, shards, 0, None);
        };
        let (mut done, mut steps) = (before.shards_done, before.steps_done);
        let (mut count, mut shard_steps, mut failed) = (0, 0, None::<CheckError>);
        for result in done_rx {
            match result {
                Ok(report) => {
                    done += 1;
                    steps += report.steps + report.shard_steps;
                    shard_steps += report.steps + report.shard_steps;
                    count += 1 + report.shards;
                    progress(Progress {
                        shards_done: done,
                        shards_total: before.shards_total,
                        steps_done: steps,
                    });
                }
                Err(e) if failed.as_ref().is_some_and(|f| f.step < e.step) => {}
                Err(e) => failed = Some(e),
            }
        }
        let walked = walk
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match (walked, failed) {
            (Err(w), Some(f)) => Err(if f.step < w.step { f } else { w }),
            (Err(e), None) | (Ok(_), Some(e)) => Err(e),
            (Ok(mut report), None) => {
                report.shards += count;
                report.shard_steps += shard_steps;
                Ok(report)
            }
        }
    })
}
