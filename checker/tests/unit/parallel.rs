//! Parallel checking: any number of threads gives the one-thread verdict, and the failure reported is the first in checking order.

use amazons_checker::{check_parallel, check_with, Failure, Progress, Shards};
use amazons_format::{
    encode, hash_body, Certificate, Claim, Color, LocalClaim, Meta, Position, Step,
};
use std::collections::HashMap;

struct Memory(HashMap<[u8; 32], Vec<u8>>);

impl Shards for Memory {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        self.0.get(hash).cloned()
    }
}

/// Six components, each a White queen beside an empty square; Black (no queens) to move.
const SIX: &str = "O.#O.#O.|########|O.#O.#O.";

fn local(i: usize) -> Claim {
    let mut position = Position::parse_grid(SIX, Color::Black).expect("grid");
    let keep = [(0, 1), (3, 4), (6, 7), (16, 17), (19, 20), (22, 23)][i];
    for (sq, cell) in position.cells.iter_mut().enumerate() {
        if sq != keep.0 && sq != keep.1 {
            *cell = amazons_format::Cell::Arrow;
        }
    }
    Claim {
        position,
        spare: 0,
        winner: Color::White,
    }
}

/// The step that splits `SIX` into its six components, each claimed `>= 0` for White.
fn sum_of_six() -> Step {
    Step::Sum {
        parts: vec![
            LocalClaim {
                bound: 0,
                strict: false
            };
            6
        ],
    }
}

/// A manifest proving the six local claims by six shards; `wrong` shards say `ReplyAll`
/// (Black has no action there) instead of `NoMove`; `extra` steps trail the proof.
fn manifest(wrong: &[usize], extra: usize) -> (Certificate, Memory) {
    let mut shards = Memory(HashMap::new());
    let mut steps = vec![sum_of_six()];
    for i in 0..6 {
        let step = if wrong.contains(&i) {
            Step::ReplyAll
        } else {
            Step::NoMove
        };
        let shard = Certificate {
            root: local(i),
            steps: vec![step],
            meta: Meta::default(),
        };
        let bytes = encode(&shard).expect("encode");
        let hash = hash_body(&bytes[52..bytes.len() - 8]);
        shards.0.insert(hash, bytes);
        steps.push(Step::Shard { hash });
    }
    steps.extend(std::iter::repeat(Step::NoMove).take(extra));
    let root = Claim {
        position: Position::parse_grid(SIX, Color::Black).expect("grid"),
        spare: 0,
        winner: Color::White,
    };
    (
        Certificate {
            root,
            steps,
            meta: Meta::default(),
        },
        shards,
    )
}

#[test]
fn every_thread_count_gives_the_first_failure_in_checking_order() {
    for (wrong, extra, step) in [
        (vec![], 0, None),
        (vec![2, 5], 0, Some(3)),
        (vec![4], 1, Some(5)),
        (vec![], 2, Some(7)),
    ] {
        let (cert, shards) = manifest(&wrong, extra);
        let alone = check_with(&cert, &shards);
        assert_eq!(
            alone.as_ref().err().map(|e| e.step),
            step,
            "{wrong:?} {extra}"
        );
        for threads in [1, 2, 4] {
            let mut seen = Vec::new();
            let got = check_parallel(&cert, &shards, threads, &mut |p: Progress| seen.push(p));
            assert_eq!(got, alone, "{threads} threads, {wrong:?} {extra}");
            if step.is_none() {
                assert_eq!(seen.len(), 6, "progress after each shard");
                assert_eq!(
                    seen.last()
                        .map(|p| (p.shards_done, p.shards_total, p.steps_done)),
                    Some((6, 6, 6))
                );
            }
        }
        if !wrong.is_empty() {
            let e = alone.expect_err("a wrong shard");
            assert!(matches!(e.failure, Failure::ShardWrong { .. }), "{e}");
        }
    }
}

/// Shards that declare `steps` steps each and hold each `get` for a while, counting how many
/// are fetched at the same time.
struct Declaring {
    shards: Memory,
    steps: u64,
    active: std::sync::Mutex<(usize, usize)>,
}

impl Shards for Declaring {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        let lock = || self.active.lock().expect("lock");
        {
            let mut a = lock();
            a.0 += 1;
            a.1 = a.1.max(a.0);
        }
        std::thread::sleep(std::time::Duration::from_millis(40));
        lock().0 -= 1;
        self.shards.get(hash)
    }

    fn declared_steps(&self, _: &[u8; 32]) -> Option<u64> {
        Some(self.steps)
    }
}

#[test]
fn shards_declaring_many_steps_are_checked_one_at_a_time() {
    use amazons_checker::parallel::STEPS_AT_ONCE;
    for (steps, most) in [(STEPS_AT_ONCE / 2 + 1, 1), (STEPS_AT_ONCE * 4, 1), (1, 4)] {
        let (cert, shards) = manifest(&[], 0);
        let alone = check_with(&cert, &shards);
        let shards = Declaring {
            shards,
            steps,
            active: Default::default(),
        };
        let got = check_parallel(&cert, &shards, 4, &mut |_| {});
        assert_eq!(got, alone, "same verdict");
        let seen = shards.active.lock().expect("lock").1;
        assert!(
            seen >= 1 && seen <= most,
            "{seen} at once, {steps} steps each"
        );
    }
}

/// `manifest(wrong, extra)` one level down: a manifest whose one step cites it as a shard.
fn nested(wrong: &[usize], extra: usize) -> (Certificate, Memory) {
    let (inner, mut shards) = manifest(wrong, extra);
    let bytes = encode(&inner).expect("encode");
    let hash = hash_body(&bytes[52..bytes.len() - 8]);
    shards.0.insert(hash, bytes);
    let outer = Certificate {
        root: inner.root.clone(),
        steps: vec![Step::Shard { hash }],
        meta: Meta::default(),
    };
    (outer, shards)
}

#[test]
fn the_shards_of_a_lone_shard_are_checked_ahead_with_the_one_thread_verdict() {
    // One top-level shard citing six: with more threads than top-level shards, the six are
    // checked ahead on all threads; report, progress and failures are the one-thread ones.
    for (wrong, extra) in [(vec![], 0), (vec![1, 4], 0), (vec![3], 2), (vec![], 1)] {
        let (cert, shards) = nested(&wrong, extra);
        let alone = check_with(&cert, &shards);
        assert_eq!(
            alone.is_ok(),
            wrong.is_empty() && extra == 0,
            "{wrong:?} {extra}"
        );
        for threads in [1, 2, 4] {
            let mut seen = Vec::new();
            let got = check_parallel(&cert, &shards, threads, &mut |p: Progress| seen.push(p));
            assert_eq!(got, alone, "{threads} threads, {wrong:?} {extra}");
            let Ok(report) = &got else { continue };
            assert_eq!(
                (report.shards, report.shard_steps),
                (7, 13),
                "six leaves and one shard"
            );
            let last = seen
                .last()
                .map(|p| (p.shards_done, p.shards_total, p.steps_done));
            let expected = if threads > 1 { (7, 7, 13) } else { (1, 1, 13) };
            assert_eq!(last, Some(expected), "{threads} threads: {seen:?}");
            assert_eq!(seen.len(), expected.0, "progress after each shard");
        }
    }
}

/// Shards that count how often each is fetched.
struct Counting(Memory, std::sync::Mutex<HashMap<[u8; 32], usize>>);

impl Shards for Counting {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        *self.1.lock().expect("lock").entry(*hash).or_default() += 1;
        self.0.get(hash)
    }
}

#[test]
fn a_shard_checked_ahead_still_has_its_hash_and_claim_checked_where_it_is_cited() {
    // Every leaf is read where it is cited too (its layout, hash and root claim are checked
    // there), not only ahead.
    let (cert, shards) = nested(&[], 0);
    let counting = Counting(shards, Default::default());
    check_parallel(&cert, &counting, 2, &mut |_| {}).expect("checks");
    let reads = counting.1.into_inner().expect("lock");
    assert_eq!(reads.len(), 7);
    let leaves = reads.values().filter(|&&n| n >= 3).count();
    assert_eq!(
        leaves, 6,
        "each leaf: root read, checked ahead, cited: {reads:?}"
    );
}

/// Stores `cert` in `shards` and returns its body hash.
fn store(shards: &mut Memory, cert: &Certificate) -> [u8; 32] {
    let bytes = encode(cert).expect("encode");
    let hash = hash_body(&bytes[52..bytes.len() - 8]);
    shards.0.insert(hash, bytes);
    hash
}

/// A manifest citing one shard (the six-part sum), whose parts are each a chain of `links`
/// shards that only cite the next one, down to the leaf: shards nested `links + 2` deep.
fn chained(links: usize) -> (Certificate, Memory) {
    let mut shards = Memory(HashMap::new());
    let one = |root: Claim, step: Step| Certificate {
        root,
        steps: vec![step],
        meta: Meta::default(),
    };
    let mut steps = vec![sum_of_six()];
    for i in 0..6 {
        let mut hash = store(&mut shards, &one(local(i), Step::NoMove));
        for _ in 0..links {
            hash = store(&mut shards, &one(local(i), Step::Shard { hash }));
        }
        steps.push(Step::Shard { hash });
    }
    let sum = Certificate {
        root: manifest(&[], 0).0.root,
        steps,
        meta: Meta::default(),
    };
    let hash = store(&mut shards, &sum);
    (one(sum.root.clone(), Step::Shard { hash }), shards)
}

#[test]
fn shards_checked_ahead_count_their_true_level_against_the_nesting_limit() {
    // The chains start at level 2, below the lone shard: checked ahead as if cited at
    // level 0, a chain one link too deep would pass and then be skipped by the walk.
    use amazons_checker::MAX_SHARD_DEPTH;
    for (links, accepted) in [(MAX_SHARD_DEPTH - 2, true), (MAX_SHARD_DEPTH - 1, false)] {
        let (cert, shards) = chained(links);
        let alone = check_with(&cert, &shards);
        assert_eq!(alone.is_ok(), accepted, "{links} links: {alone:?}");
        for threads in [1, 2, 4] {
            let got = check_parallel(&cert, &shards, threads, &mut |_| {});
            assert_eq!(got, alone, "{threads} threads, {links} links");
        }
    }
}
