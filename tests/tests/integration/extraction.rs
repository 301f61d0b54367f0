//! Proof extraction: the sum steps the solver writes add up with no slack paid for.

use crate::common::{fresh_certificates, proof_tree};
use amazons_format::Step;

/// A sum step's bounds are raised only until SPEC 5.5 accepts them, so when some part
/// has a positive bound, lowering any positive bound by one must break acceptance:
/// `s = sum(a_i) + x - y` is then at most 1 with X to move and at most 0 with Y to move.
/// Negative bounds are the largest ones the local searches allow, which the checker's
/// acceptance of the same certificates covers.
#[test]
fn sum_steps_carry_no_slack() {
    let mut raised = 0;
    let mut sums = 0;
    for (label, cert) in fresh_certificates() {
        let tree = proof_tree(cert);
        for (i, step) in cert.steps.iter().enumerate() {
            let Step::Sum { parts } = step else { continue };
            sums += 1;
            let claim = &tree[i].claim;
            let x = claim.winner;
            let y = x.opponent();
            let s: i64 = parts.iter().map(|p| i64::from(p.bound)).sum::<i64>()
                + i64::from(claim.spares_of(x))
                - i64::from(claim.spares_of(y));
            let x_to_move = claim.position.to_move == x;
            assert!(
                s >= 1 || (s == 0 && (!x_to_move || parts.iter().any(|p| p.strict))),
                "{label}, step {i}: the sum step does not add up (s = {s})"
            );
            if parts.iter().any(|p| p.bound > 0) {
                raised += 1;
                let target = i64::from(x_to_move);
                assert!(
                    s <= target,
                    "{label}, step {i}: bounds {:?} leave slack (s = {s}, enough is {target})",
                    parts.iter().map(|p| p.bound).collect::<Vec<_>>()
                );
            }
        }
    }
    assert!(sums > 0, "the fresh certificates contain no sum step");
    assert!(raised > 0, "no sum step needed a positive bound");
}
