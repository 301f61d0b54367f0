//! Tampering: flipped bytes, truncations, semantic edits re-encoded with a valid hash, and random bytes are all rejected without panics.

use crate::common::{
    committed_certificates, fresh_certificates, proof_tree, solve, splice, Node, Rng, HEADER_LEN,
};
use amazons_checker::{check_bytes, CheckError, CheckFileError, Failure};
use amazons_format::{encode, file::frame, Action, Certificate, Claim, Move, Step, Symmetry};
use quickcheck::{Gen, QuickCheck, TestResult};
use std::collections::HashMap;

/// The committed certificates that stand alone (manifests need their shards; the
/// shard tamper tests are in `shard_tamper.rs`), decompressed when stored as `*.cert.zst`.
fn committed_standalone() -> Vec<std::path::PathBuf> {
    committed_certificates()
        .into_iter()
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("manifest."))
        })
        .collect()
}
/// Files longer than this are sampled rather than tampered at every byte.
const EXHAUSTIVE_LIMIT: usize = 64 << 10;

/// The encoded fresh certificates and the committed certificate files, with labels.
fn all_files() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fresh_certificates()
        .iter()
        .map(|(label, cert)| (label.clone(), encode(cert).expect("encode")))
        .collect();
    for path in committed_standalone() {
        let bytes = amazons_format::stored::read(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        out.push((path.display().to_string(), bytes));
    }
    out
}

/// Byte offsets to tamper with: all of them for small files; for large ones every header
/// and sentinel byte plus a seeded sample (fewer for huge files, to bound the hashing).
fn offsets(len: usize, seed: u64) -> Vec<usize> {
    if len <= EXHAUSTIVE_LIMIT {
        return (0..len).collect();
    }
    let samples = (1_000_000_000 / len).clamp(100, 2000);
    let mut rng = Rng(seed);
    let mut out: Vec<usize> = (0..HEADER_LEN).chain(len - 8..len).collect();
    out.extend((0..samples).map(|_| rng.below(len)));
    out
}

#[test]
fn every_flipped_byte_is_rejected() {
    for (label, bytes) in all_files() {
        check_bytes(&bytes).unwrap_or_else(|e| panic!("{label}: untampered file rejected: {e}"));
        let mut rng = Rng(bytes.len() as u64);
        for i in offsets(bytes.len(), 1) {
            let mut b = bytes.clone();
            b[i] ^= 1 + rng.below(255) as u8;
            match check_bytes(&b) {
                Ok(_) => panic!("{label}: flipping byte {i} of {} accepted", bytes.len()),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
    }
}

#[test]
fn every_truncation_and_extension_is_rejected() {
    for (label, bytes) in all_files() {
        let lengths: Vec<usize> = if bytes.len() <= EXHAUSTIVE_LIMIT {
            (0..bytes.len()).collect()
        } else {
            let mut rng = Rng(7);
            (0..=HEADER_LEN + 8)
                .chain(bytes.len() - 64..bytes.len())
                .chain((0..2000).map(|_| rng.below(bytes.len())))
                .collect()
        };
        for n in lengths {
            assert!(
                matches!(check_bytes(&bytes[..n]), Err(CheckFileError::Unreadable(_))),
                "{label}: truncation to {n} of {} bytes accepted",
                bytes.len()
            );
        }
        for extra in [&[0u8][..], b"AMZN-END", &bytes[..8]] {
            let mut longer = bytes.clone();
            longer.extend_from_slice(extra);
            assert!(
                check_bytes(&longer).is_err(),
                "{label}: {} appended bytes accepted",
                extra.len()
            );
        }
    }
}

// ---- semantic tampering: valid file, hash recomputed, only the proof rules can object ----

/// Re-encodes a tampered certificate (so the hash matches) and checks the file. A
/// semantic tampering must still decode: an unreadable file here is a test bug.
fn check_reencoded(cert: &Certificate) -> Result<(), CheckError> {
    let bytes = encode(cert).expect("encode tampered certificate");
    match check_bytes(&bytes) {
        Ok(_) => Ok(()),
        Err(CheckFileError::Wrong(e)) => Err(e),
        Err(CheckFileError::Unreadable(e)) => panic!("tampered certificate does not decode: {e}"),
    }
}

/// Asserts the rejection message names the failure (and is not empty).
fn assert_names_failure(e: &CheckError, what: &str) {
    let text = e.to_string();
    let failure = e.failure.to_string();
    assert!(!failure.is_empty(), "{what}: empty failure text");
    assert!(
        text.contains(&failure) && text.contains(&format!("step {}", e.step)),
        "{what}: message does not name the failure:\n{text}"
    );
}

/// Asserts that the rejection `e` names a failure matching the pattern.
macro_rules! assert_failure {
    ($e:expr, $pat:pat, $what:expr) => {
        assert!(
            matches!($e.failure, $pat),
            "{}: wrong failure {:?}",
            $what,
            $e.failure
        )
    };
}

/// Tally of one kind of tampering.
#[derive(Default, Debug)]
struct Tally {
    rejected: usize,
    accepted: usize,
}

impl Tally {
    fn record(&mut self, result: Result<(), CheckError>, what: &str) -> Option<CheckError> {
        match result {
            Ok(()) => {
                self.accepted += 1;
                None
            }
            Err(e) => {
                assert_names_failure(&e, what);
                self.rejected += 1;
                Some(e)
            }
        }
    }

    /// Checks `cert` re-encoded, which must be rejected; the error.
    fn rejects(&mut self, cert: &Certificate, what: &str) -> CheckError {
        self.record(check_reencoded(cert), what)
            .unwrap_or_else(|| panic!("{what}: accepted"))
    }

    fn assert_some_rejected(&self, kind: &str) {
        eprintln!("{kind}: {self:?}");
        assert!(
            self.rejected >= 1,
            "{kind}: no tampering was rejected ({self:?})"
        );
    }
}

/// The certificates to tamper with semantically, with their proof trees and the number of
/// samples to take per kind (fewer for big committed certificates).
fn subjects() -> Vec<(String, Certificate, Vec<Node>, usize)> {
    let mut out: Vec<(String, Certificate, Vec<Node>, usize)> = fresh_certificates()
        .iter()
        .map(|(label, cert)| (label.clone(), cert.clone(), proof_tree(cert), 12))
        .collect();
    for path in committed_standalone() {
        let bytes = amazons_format::stored::read(&path).expect("read certificate");
        let cert = amazons_format::decode(&bytes)
            .unwrap_or_else(|e| panic!("{}: does not decode: {e}", path.display()));
        let samples = if cert.steps.len() > 200_000 { 2 } else { 6 };
        let tree = proof_tree(&cert);
        out.push((path.display().to_string(), cert, tree, samples));
    }
    out
}

/// Up to `n` indices spread evenly over `items`.
fn spread<T: Copy>(items: &[T], n: usize) -> Vec<T> {
    if items.len() <= n {
        return items.to_vec();
    }
    (0..n).map(|i| items[i * items.len() / n]).collect()
}

#[test]
fn swapping_a_choice_move_is_rejected_when_the_new_move_loses() {
    let mut tally = Tally::default();
    let mut winner_cache: HashMap<amazons_format::Position, amazons_format::Color> = HashMap::new();
    for (label, cert, tree, samples) in subjects() {
        let choices: Vec<usize> = (0..cert.steps.len())
            .filter(|&i| matches!(cert.steps[i], Step::Choice(Action::Board(_))))
            .collect();
        for i in spread(&choices, samples) {
            let Step::Choice(Action::Board(m)) = cert.steps[i] else {
                unreachable!()
            };
            let claim = &tree[i].claim;
            let legal = amazons_checker::rules::legal_moves(&claim.position);
            let alternatives: Vec<Move> = legal.iter().copied().filter(|&a| a != m).collect();
            for alt in spread(&alternatives, 3) {
                let what = format!(
                    "{label}: step {i} choice {} -> {}",
                    m.notation(claim.position.board),
                    alt.notation(claim.position.board)
                );
                let mut t = cert.clone();
                t.steps[i] = Step::Choice(Action::Board(alt));
                let result = check_reencoded(&t);
                // Ground truth from the solver: if the new move loses for the claimed winner
                // (and no spare moves are involved), the tampered proof must be rejected.
                if claim.spare == 0 && result.is_ok() {
                    let child = amazons_checker::rules::play(&claim.position, alt);
                    let winner = *winner_cache
                        .entry(child.clone())
                        .or_insert_with(|| solve(&child).winner);
                    assert_eq!(
                        winner, claim.winner,
                        "{what}: accepted although the new move loses"
                    );
                }
                tally.record(result, &what);
            }
        }
    }
    tally.assert_some_rejected("choice swap");
}

#[test]
fn dropping_a_reply_is_rejected() {
    let mut tally = Tally::default();
    for (label, cert, tree, samples) in subjects() {
        let replies: Vec<usize> = (0..cert.steps.len())
            .filter(|&i| cert.steps[i] == Step::ReplyAll && !tree[i].children.is_empty())
            .collect();
        for i in spread(&replies, samples) {
            let first = tree[i].children[0];
            let t = splice(&cert, first..tree[first].end, Vec::new());
            let what = format!(
                "{label}: ReplyAll at step {i} without its first reply (steps {first}..{})",
                tree[first].end
            );
            tally.record(check_reencoded(&t), &what);
        }
    }
    tally.assert_some_rejected("drop reply");
    assert_eq!(
        tally.accepted, 0,
        "a certificate missing a reply was accepted"
    );
}

/// `cert` with the subtree at step `i` replaced by a transposition citing its own claim.
fn cite_itself(cert: &Certificate, tree: &[Node], i: usize) -> Certificate {
    let identity = Step::Transposition {
        symmetry: Symmetry::Identity,
    };
    splice(cert, i..tree[i].end, vec![identity])
}

#[test]
fn transposition_to_an_unproven_claim_is_rejected() {
    let mut tally = Tally::default();
    for (label, cert, tree, _) in subjects() {
        // The root itself: nothing is proven yet, and a claim can never cite itself.
        for symmetry in Symmetry::ALL {
            let t = splice(
                &cert,
                0..cert.steps.len(),
                vec![Step::Transposition { symmetry }],
            );
            let what = format!("{label}: root replaced by Transposition({symmetry:?})");
            let e = tally.rejects(&t, &what);
            assert_failure!(
                e,
                Failure::TranspositionNotProven { .. } | Failure::SymmetryDoesNotFit { .. },
                what
            );
            assert_eq!(
                matches!(e.failure, Failure::SymmetryDoesNotFit { .. }),
                !symmetry.fits(cert.root.position.board),
                "{what}"
            );
        }
        // The first child of the root: no claim is proven before its subtree ends.
        if let Some(&first) = tree[0].children.first() {
            let t = cite_itself(&cert, &tree, first);
            let what = format!("{label}: first child (step {first}) replaced by a transposition");
            let e = tally.rejects(&t, &what);
            assert_eq!(
                e.failure,
                Failure::TranspositionNotProven {
                    symmetry: Symmetry::Identity
                },
                "{what}"
            );
            assert_eq!(e.step, first, "{what}");
        }
        // The first grandchild: only its ancestors have been read, none of them proven.
        if let Some(&first) = tree[0].children.first() {
            if let Some(&grandchild) = tree[first].children.first() {
                let t = cite_itself(&cert, &tree, grandchild);
                let what = format!("{label}: step {grandchild} replaced by a transposition");
                let e = tally.rejects(&t, &what);
                assert_failure!(e, Failure::TranspositionNotProven { .. }, what);
                assert_eq!(e.step, grandchild, "{what}");
            }
        }
    }
    tally.assert_some_rejected("transposition");
}

/// Each subject with its root claim changed by `change`: `(label, original, changed)`.
fn root_changed(change: impl Fn(&mut Claim)) -> Vec<(String, Certificate, Certificate)> {
    subjects()
        .into_iter()
        .map(|(label, cert, _, _)| {
            let mut t = cert.clone();
            change(&mut t.root);
            (label, cert, t)
        })
        .collect()
}

#[test]
fn changing_the_root_winner_is_rejected() {
    let mut tally = Tally::default();
    for (label, _, t) in root_changed(|root| root.winner = root.winner.opponent()) {
        let what = format!("{label}: root winner flipped");
        // The original claim checks, so the opposite claim is false: a sound checker rejects.
        tally.rejects(&t, &what);
    }
    tally.assert_some_rejected("root winner");
}

#[test]
fn flipping_the_root_side_to_move_is_rejected() {
    let mut tally = Tally::default();
    let flip = |root: &mut Claim| root.position.to_move = root.position.to_move.opponent();
    for (label, cert, t) in root_changed(flip) {
        let what = format!("{label}: root side to move flipped");
        let result = tally.record(check_reencoded(&t), &what);
        // Choice, ReplyAll and NoMove are each tied to one side to move.
        if matches!(
            cert.steps[0],
            Step::Choice(_) | Step::ReplyAll | Step::NoMove
        ) {
            let e = result.unwrap_or_else(|| panic!("{what}: accepted"));
            assert_failure!(
                e,
                Failure::ChoiceWrongSide { .. } | Failure::NotLoserToMove { .. },
                what
            );
            assert_eq!(e.step, 0);
        }
    }
    tally.assert_some_rejected("root side to move");
}

#[test]
fn shortening_or_breaking_an_outlast_list_is_rejected() {
    let mut short = Tally::default();
    let mut broken = Tally::default();
    for (label, cert, _, samples) in subjects() {
        let outlasts: Vec<usize> = (0..cert.steps.len())
            .filter(|&i| matches!(&cert.steps[i], Step::Outlast { moves } if !moves.is_empty()))
            .collect();
        for i in spread(&outlasts, samples) {
            let Step::Outlast { moves } = &cert.steps[i] else {
                unreachable!()
            };
            // Drop the last move: if rejected, it is for falling short, at this step.
            let mut t = cert.clone();
            t.steps[i] = Step::Outlast {
                moves: moves[..moves.len() - 1].to_vec(),
            };
            let what = format!("{label}: Outlast at step {i} without its last move");
            if let Some(e) = short.record(check_reencoded(&t), &what) {
                assert_failure!(e, Failure::OutlastShort { .. }, what);
                assert_eq!(e.step, i, "{what}");
            }
            // Make the last move illegal (an arrow never lands where the queen stands).
            let mut bad = moves.clone();
            let last = bad.len() - 1;
            bad[last].arrow = bad[last].to;
            let bad_last = bad[last];
            let mut t = cert.clone();
            t.steps[i] = Step::Outlast { moves: bad };
            let what = format!("{label}: Outlast at step {i} with an illegal last move");
            let e = broken.rejects(&t, &what);
            // A blocker's move is caught by the shoot-back rule first; either names the move.
            let mv = bad_last.notation(cert.root.position.board);
            assert!(
                matches!(
                    &e.failure,
                    Failure::OutlastIllegalMove { index, mv: text }
                        | Failure::BlockerNoShootBack { index, mv: text }
                        if *index == last && *text == mv
                ),
                "{what}: {:?}",
                e.failure
            );
            assert_eq!(e.step, i, "{what}");
        }
    }
    short.assert_some_rejected("outlast drop last move");
    broken.assert_some_rejected("outlast illegal move");
}

#[test]
fn truncated_or_padded_step_lists_are_rejected() {
    for (label, cert, _, _) in subjects() {
        let mut t = cert.clone();
        t.steps.pop();
        let e = check_reencoded(&t).expect_err("missing last step accepted");
        assert_names_failure(&e, &label);
        let mut t = cert.clone();
        t.steps.push(Step::NoMove);
        let e = check_reencoded(&t).expect_err("trailing step accepted");
        assert_eq!(e.failure, Failure::TrailingSteps { count: 1 }, "{label}");
    }
}

// ---- random bytes ----

fn quickcheck(tests: u64, seed: u64) -> QuickCheck {
    QuickCheck::new()
        .tests(tests)
        .rng(Gen::from_size_and_seed(300, seed))
}

fn random_bytes_rejected(bytes: Vec<u8>, with_magic: bool) -> bool {
    let mut b = bytes;
    if with_magic {
        let mut v = amazons_format::MAGIC.to_vec();
        v.extend_from_slice(&b);
        b = v;
    }
    amazons_format::decode(&b).is_err() && check_bytes(&b).is_err()
}

#[test]
fn random_byte_strings_are_rejected() {
    quickcheck(3000, 21).quickcheck(random_bytes_rejected as fn(Vec<u8>, bool) -> bool);
}

fn random_body_rejected(body: Vec<u8>) -> bool {
    let file = frame(&body);
    check_bytes(&file).is_err()
}

#[test]
fn random_bodies_with_a_valid_header_and_hash_are_rejected() {
    quickcheck(3000, 22).quickcheck(random_body_rejected as fn(Vec<u8>) -> bool);
    // Bodies that start like a real certificate (same root) and go on randomly.
    let (_, cert) = &fresh_certificates()[0];
    let real = encode(cert).expect("encode");
    let body = &real[HEADER_LEN..real.len() - 8];
    let mut rng = Rng(23);
    for _ in 0..2000 {
        let keep = rng.below(body.len());
        let mut b = body[..keep].to_vec();
        b.extend((0..rng.below(64)).map(|_| rng.next_u64() as u8));
        assert!(
            check_bytes(&frame(&b)).is_err(),
            "prefix {keep} + noise accepted"
        );
    }
}

/// Mutates bytes of a real certificate body and re-hashes it: decode and check must never
/// panic, and whatever still verifies must be a true claim (checked with the solver).
fn mutated_body_is_sound(seed: u64) -> TestResult {
    let (_, cert) = &fresh_certificates()[0];
    let real = encode(cert).expect("encode");
    let mut body = real[HEADER_LEN..real.len() - 8].to_vec();
    let mut rng = Rng(seed);
    for _ in 0..rng.range(1, 4) {
        let i = rng.below(body.len());
        body[i] = match rng.below(3) {
            0 => body[i] ^ (1 << rng.below(8)),
            1 => rng.next_u64() as u8,
            _ => body[i].wrapping_add(1),
        };
    }
    match check_bytes(&frame(&body)) {
        Err(_) => TestResult::passed(),
        Ok(_) => {
            let t = amazons_format::decode(&frame(&body)).expect("it checked");
            if t.root.spare != 0 || t.root.position.board.len() > 20 {
                return TestResult::discard();
            }
            let truth = solve(&t.root.position).winner;
            TestResult::from_bool(truth == t.root.winner)
        }
    }
}

#[test]
fn mutated_certificate_bodies_never_prove_a_false_claim() {
    QuickCheck::new()
        .tests(400)
        .max_tests(4000)
        .rng(Gen::from_size_and_seed(100, 24))
        .quickcheck(mutated_body_is_sound as fn(u64) -> TestResult);
}
