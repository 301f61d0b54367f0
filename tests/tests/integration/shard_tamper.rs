//! Tampered sharded manifests: a changed shard, a missing one, a wrong symmetry or a transposition before its proof are rejected.

use crate::common::small_options;
use crate::shards::{fresh_dir, plan_4x4, run};
use amazons_campaign::shard::Plan;
use amazons_checker::cli::DirShards;
use amazons_checker::{check_with, Failure};
use amazons_format::{Move, Position, Step};

/// Shard files whose steps the caller claims to have checked already.
struct AlreadyChecked<'a>(&'a DirShards);

impl amazons_checker::Shards for AlreadyChecked<'_> {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        self.0.get(hash)
    }

    fn already_checked(&self, _: &[u8; 32], _: usize) -> bool {
        true
    }
}

#[test]
fn tampered_manifests_are_rejected() {
    // 4x4 is a second-player win: after White's first move, Black has a winning reply.
    // Fix that reply as the manifest's first move, one task per White answer to it, so the
    // manifest reads Choice, ReplyAll, Shard, Shard, ...
    let root = Position::start("4x4").expect("4x4");
    let g = amazons_solver::Geometry::new(root.board);
    let white: Move = amazons_solver::Pos::from_position(&root).moves(&g)[0];
    let after = amazons_solver::Pos::from_position(&root)
        .play(white)
        .to_position(&g);
    let solved = amazons_solver::solve(&after, &small_options(), "test").expect("solve");
    assert_eq!(solved.winner, amazons_format::Color::Black);
    let black = solved.first_move.expect("Black's winning reply");
    let plan = Plan::new(&after, Some(black)).expect("plan");
    let dir = fresh_dir("tamper");
    let (manifest, _) = run(&plan, &dir, 2);
    let shards = DirShards::scan(&dir.join("shards"));
    check_with(&manifest, &shards).expect("the untampered manifest checks");
    let shard_steps: Vec<usize> = manifest
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s, Step::Shard { .. }))
        .map(|(i, _)| i)
        .collect();
    assert!(shard_steps.len() >= 3, "need a few shards to tamper with");
    let hash_at = |i: usize| match manifest.steps[i] {
        Step::Shard { hash } => hash,
        _ => unreachable!("a shard step"),
    };
    // The manifest with each step `i` of `cited` citing the shard `hash` instead.
    let citing = |cited: &[(usize, [u8; 32])]| {
        let mut c = manifest.clone();
        for &(i, hash) in cited {
            c.steps[i] = Step::Shard { hash };
        }
        c
    };
    // `cert` checked with `shards` is rejected with a failure matching the pattern.
    macro_rules! rejected {
        ($cert:expr, $shards:expr, $what:expr, $pat:pat) => {{
            let e = check_with($cert, $shards).expect_err($what);
            assert!(matches!(e.failure, $pat), "{e}");
        }};
    }
    let (a, b) = (shard_steps[0], shard_steps[1]);

    // A missing reply: the checker's own reply list has one more entry than the shards.
    // Dropping the last one runs out of steps; dropping one in the middle shifts the rest
    // onto the wrong replies.
    let mut missing = manifest.clone();
    missing.steps.pop();
    rejected!(&missing, &shards, "missing last reply", Failure::OutOfSteps);
    let mut missing = manifest.clone();
    missing.steps.remove(b);
    rejected!(
        &missing,
        &shards,
        "missing middle reply",
        Failure::ShardClaimMismatch { .. }
    );

    // A duplicated reply: one reply's shard cited for another reply too.
    let duplicated = citing(&[(b, hash_at(a))]);
    rejected!(
        &duplicated,
        &shards,
        "duplicated reply",
        Failure::ShardClaimMismatch { .. }
    );

    // Two shards swapped.
    let swapped = citing(&[(a, hash_at(b)), (b, hash_at(a))]);
    rejected!(
        &swapped,
        &shards,
        "swapped shards",
        Failure::ShardClaimMismatch { .. }
    );

    // A wrong hash: no such shard.
    let mut h = hash_at(a);
    h[0] ^= 1;
    let wrong = citing(&[(a, h)]);
    rejected!(&wrong, &shards, "wrong hash", Failure::ShardMissing { .. });

    // A shard source that says every shard was already checked (as the solver does for
    // shards it checked itself) spares only their steps: hashes and claims still count.
    let trusting = AlreadyChecked(&shards);
    check_with(&manifest, &trusting).expect("the untampered manifest, trusted shards");
    for (tampered, what) in [(&duplicated, "duplicated"), (&swapped, "swapped")] {
        rejected!(
            tampered,
            &trusting,
            what,
            Failure::ShardClaimMismatch { .. }
        );
    }
    rejected!(
        &wrong,
        &trusting,
        "wrong hash, trusted shards",
        Failure::ShardMissing { .. }
    );

    // A shard file whose header lies about its hash is caught by recomputing it.
    let task = &plan.tasks[0];
    let path = plan.shard_path(&dir, task);
    let mut bytes = std::fs::read(&path).expect("read");
    bytes[60] ^= 0x10;
    std::fs::write(&path, &bytes).expect("write");
    let shards = DirShards::scan(&dir.join("shards"));
    rejected!(
        &manifest,
        &shards,
        "damaged shard file",
        Failure::ShardUnreadable { .. }
    );
    let trusting = AlreadyChecked(&shards);
    rejected!(
        &manifest,
        &trusting,
        "damaged, trusted",
        Failure::ShardUnreadable { .. }
    );

    // A manifest without its shards cannot be checked at all.
    let e = amazons_checker::check(&manifest).expect_err("no shards given");
    assert!(matches!(e.failure, Failure::ShardMissing { .. }), "{e}");
}

#[test]
fn mirrored_tasks_need_the_right_symmetry_and_an_earlier_proof() {
    let plan = plan_4x4();
    let dir = fresh_dir("mirror");
    let (manifest, _) = run(&plan, &dir, 2);
    let shards = DirShards::scan(&dir.join("shards"));
    check_with(&manifest, &shards).expect("the untampered manifest checks");
    // Steps are [ReplyAll, one per task]; find the first mirrored task's step.
    let (k, task) = plan
        .tasks
        .iter()
        .enumerate()
        .find(|(_, t)| t.mirror.is_some())
        .expect("a mirrored task");
    let (j, symmetry) = task.mirror.expect("mirror");
    assert!(j < k, "a mirror cites an earlier task");
    assert_eq!(manifest.steps[1 + k], Step::Transposition { symmetry });
    assert_eq!(symmetry.apply(&task.position), plan.tasks[j].position);

    // The wrong symmetry maps to a claim nobody proved.
    let mut wrong = manifest.clone();
    wrong.steps[1 + k] = Step::Transposition {
        symmetry: amazons_format::Symmetry::FlipRanks,
    };
    let e = check_with(&wrong, &shards).expect_err("wrong symmetry");
    assert!(
        matches!(e.failure, Failure::TranspositionNotProven { .. }),
        "{e}"
    );

    // A transposition whose source comes later in checking order is not accepted: swap
    // the source's shard step with the mirror's transposition step.
    let mut early = manifest.clone();
    early.steps.swap(1 + j, 1 + k);
    let e = check_with(&early, &shards).expect_err("transposition before its source");
    assert!(
        matches!(
            e.failure,
            Failure::TranspositionNotProven { .. } | Failure::ShardClaimMismatch { .. }
        ),
        "{e}"
    );
}
