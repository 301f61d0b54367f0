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

use crate::proof::{check_here, check_shard, error, CheckError, Job, Report, Shards};
use amazons_format::{Certificate, Step};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, PoisonError};

/// How far a parallel check has come, after each shard checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Top-level shards checked, and cited in all.
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
/// threads (none: in place, as [`crate::check_with`] does); `progress` is called after each
/// shard checked by a worker.
pub fn check_parallel(
    cert: &Certificate,
    shards: &dyn Shards,
    threads: usize,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, CheckError> {
    let shards_total = (cert.steps.iter())
        .filter(|s| matches!(s, Step::Shard { .. }))
        .count();
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
        let (mut done, mut steps, mut count, mut failed) = (0, 0, 0, None::<CheckError>);
        for result in done_rx {
            match result {
                Ok(report) => {
                    done += 1;
                    steps += report.steps + report.shard_steps;
                    count += 1 + report.shards;
                    progress(Progress {
                        shards_done: done,
                        shards_total,
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
                report.shard_steps += steps;
                Ok(report)
            }
        }
    })
}
