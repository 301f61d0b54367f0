//! Tests of what a run remembers as checked: `verified.tsv` for resuming, and the shards this process checked in full for its final check.

use super::tests::{black_to_move, small_table, tempdir};
use super::*;

/// A position Black to move wins, solved into the shard `t` of a new run directory.
fn solved_child(tag: &str) -> (Position, PathBuf, Done) {
    let (p, _, winning) = black_to_move();
    let g = Geometry::new(p.board);
    let child = Pos::from_position(&p).play(winning).to_position(&g);
    let dir = tempdir(tag);
    let done = solve_position(&dir, &child, "t", &p, &small_table(), false).expect("solved");
    (child, dir, done)
}

#[test]
fn a_checked_shard_is_remembered_and_a_bad_one_is_taken_only_if_recorded() {
    let (child, dir, done) = solved_child("verified");
    let hex = amazons_solver::db::store::hex(&done.hash);
    let record = std::fs::read_to_string(dir.join(crate::verified::VERIFIED_FILE));
    if !crate::verified::FINGERPRINT.is_empty() {
        assert!(record.expect("verified.tsv").contains(&hex));
    }
    assert!(crate::verified::is_checked(&dir, &done.hash));
    assert_eq!(
        existing_at(&shard_file(&dir, "t"), &child).map(|d| d.hash),
        Some(done.hash)
    );

    // The same shard with its last step dropped no longer proves its claim.
    let mut cert = amazons_format::decode(
        &amazons_format::stored::read(&shard_file(&dir, "t")).expect("read"),
    )
    .expect("decode");
    cert.steps.pop();
    assert!(amazons_checker::check(&cert).is_err());
    let bad = amazons_format::encode(&cert).expect("encode");
    let bad_hash =
        amazons_format::hash_body(amazons_format::file::verified_body(&bad).expect("body"));
    let other = tempdir("verified-bad");
    write_atomic(&shard_file(&other, "t"), &bad).expect("write");
    assert!(
        existing_at(&shard_file(&other, "t"), &child).is_none(),
        "a shard that does not check is not taken"
    );
    assert!(!crate::verified::is_checked(&other, &bad_hash));
    // Only a record that this very body checked (here forged) makes the solver take it;
    // the checker on its own still rejects it, and results are only ever its word.
    crate::verified::mark_checked(&other, &bad_hash);
    assert!(existing_at(&shard_file(&other, "t"), &child).is_some());
    let shards = amazons_checker::cli::DirShards::scan(&other.join("shards"));
    assert!(amazons_checker::check_with(&cert, &shards).is_err());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

#[test]
fn the_final_check_skips_only_the_shards_this_process_checked_in_full() {
    use crate::verified::{checked_here, RunShards};
    use amazons_checker::Shards;
    let (_, dir, done) = solved_child("here");
    let file = amazons_format::stored::read(&shard_file(&dir, "t")).expect("read");
    let cert = amazons_format::decode(&file).expect("decode");
    let full = amazons_checker::check(&cert).expect("the shard checks");
    let counts = checked_here(&done.hash).expect("checked in full as it was written");
    assert_eq!(counts.steps, full.steps);
    // A manifest of one `Shard` step citing it: the final check skips the shard and still
    // counts its steps.
    let manifest = |hash: [u8; 32], root: amazons_format::Claim| amazons_format::Certificate {
        root,
        steps: vec![amazons_format::Step::Shard { hash }],
        meta: cert.meta.clone(),
    };
    let cites_good = manifest(done.hash, cert.root.clone());
    let here = RunShards::checked_here_only(&dir);
    let mut report = amazons_checker::check_with(&cites_good, &here).expect("checks");
    assert_eq!((report.shards, report.shard_steps), (1, 0), "skipped");
    assert!(here.complete(&mut report));
    assert_eq!(report.shard_steps, full.steps);

    // A shard the solver takes on the word of `verified.tsv` alone (here forged), which
    // does not prove its claim: the final check checks it, and rejects it.
    let mut bad = cert.clone();
    bad.steps.pop();
    let bytes = amazons_format::encode(&bad).expect("encode");
    let bad_hash =
        amazons_format::hash_body(amazons_format::file::verified_body(&bytes).expect("body"));
    let other = tempdir("here-bad");
    write_atomic(&shard_file(&other, "t"), &bytes).expect("write");
    crate::verified::mark_checked(&other, &bad_hash);
    assert!(RunShards::new(&other).already_checked(&bad_hash, 1));
    assert!(!RunShards::checked_here_only(&other).already_checked(&bad_hash, 1));
    assert!(checked_here(&bad_hash).is_none());
    let cites_bad = manifest(bad_hash, bad.root.clone());
    let trusting = RunShards::new(&other);
    let mut report = amazons_checker::check_with(&cites_bad, &trusting).expect("skipped");
    assert!(
        !trusting.complete(&mut report),
        "a check that skipped a shard on the file's word is not one in full"
    );
    let final_check = RunShards::checked_here_only(&other);
    assert!(amazons_checker::check_with(&cites_bad, &final_check).is_err());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}
