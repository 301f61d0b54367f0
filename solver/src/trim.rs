//! Trimming: at a choice whose subproof is long, an action whose child closes at once (no move, or an outlast step with an empty list) takes its place.
//!
//! The solver picks, at the winner's turn, the proven child that cost the search least
//! work, which is not always the child with the smallest proof. [`trim_certificate`]
//! walks a certificate in checking order and, at each `Choice` whose child's subproof has
//! at least [`MIN_SAVED`] + 1 steps, looks for an action of the winner after which the
//! loser has no move (`NoMove`, SPEC 5.3) or the checker's outlast rule accepts an empty
//! list (SPEC 5.4); the first such action in canonical order replaces the choice (it may
//! be the chosen one, whose subproof was longer than it needed), and its one step replaces
//! the subproof. Both acceptances are asked of the checker's own code. A subproof is only
//! dropped when no step after it cites, by `Transposition`, a claim first proven inside
//! it, and when it cites no shard (its file stays cited).
//! The result is checked in full by the caller (`amazons compact --trim`), so a mistake
//! here can only make the rewrite fail, never pass a wrong proof.

use crate::geometry::Geometry;
use crate::state::State;
use crate::strategy::step_children;
use crate::territory::Territory;
use amazons_checker::rules::OnePlayer;
use amazons_checker::{actions, after, outlast_line};
use amazons_format::{Action, Board, Certificate, Claim, Step};
use std::collections::HashMap;

/// Steps a replacement must save at least: below it, looking for one costs more check of
/// the alternatives than it saves.
pub const MIN_SAVED: usize = 2;

/// What trimming did to one certificate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Trimmed {
    /// Choices replaced, and the steps before and after.
    pub choices: u64,
    /// Choices the first pass kept although a move closes at once, because a later step
    /// cites a claim proven in their subproof.
    pub protected: u64,
    /// Passes made, the last one changing nothing (unless [`MAX_PASSES`] were made).
    pub passes: usize,
    pub steps_before: usize,
    pub steps_after: usize,
}

/// One entry of the walks' stacks: a claim to prove with the next step, or the end of the
/// subtree that started at a step (first walk only).
enum Frame {
    Enter(Claim),
    Exit(usize, u128),
}

/// The claim's key in a map of proven claims: the checker's packed key (SPEC 4), folded
/// to 128 bits (exact on boards of at most 59 squares, a 128-bit hash beyond).
fn key(claim: &Claim) -> u128 {
    let k = amazons_checker::proof::key(claim);
    let low = u128::from(k[0]) | u128::from(k[1]) << 64;
    let high = u128::from(k[2]) | u128::from(k[3]) << 64;
    low ^ high.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
}

/// For every step: where its subtree ends (exclusive), and the latest step after that
/// subtree that depends on it (a `Transposition` citing a claim first proven inside it;
/// `u32::MAX` if the subtree holds a `Shard` step). `None` if the steps do not walk.
fn analyse(cert: &Certificate) -> Option<(Vec<u32>, Vec<u32>)> {
    let n = cert.steps.len();
    let mut end = vec![0u32; n];
    let mut cited = vec![0u32; n];
    let mut first: HashMap<u128, u32> = HashMap::new();
    let mut stack = vec![Frame::Enter(cert.root.clone())];
    let mut read = 0usize;
    while let Some(frame) = stack.pop() {
        let claim = match frame {
            Frame::Exit(start, k) => {
                end[start] = read as u32;
                first.entry(k).or_insert(start as u32);
                continue;
            }
            Frame::Enter(claim) => claim,
        };
        let step = cert.steps.get(read)?;
        match step {
            Step::Transposition { symmetry } if symmetry.fits(claim.position.board) => {
                let target = Claim {
                    position: symmetry.apply(&claim.position),
                    ..claim.clone()
                };
                if let Some(&t) = first.get(&key(&target)) {
                    let t = t as usize;
                    cited[t] = cited[t].max(read as u32);
                }
            }
            Step::Shard { .. } => cited[read] = u32::MAX,
            _ => {}
        }
        let children = step_children(step, &claim).ok()?;
        stack.push(Frame::Exit(read, key(&claim)));
        stack.extend(children.into_iter().rev().map(Frame::Enter));
        read += 1;
    }
    if read != n {
        return None;
    }
    // Over each subtree: the latest dependent step of any claim in it (children are
    // contiguous: the first follows the step, each next one starts where the last ended).
    for s in (0..n).rev() {
        let mut c = s + 1;
        while c < end[s] as usize {
            cited[s] = cited[s].max(cited[c]);
            c = end[c] as usize;
        }
    }
    Some((end, cited))
}

/// What the scan for closing moves needs: the checker's one-player search, and the
/// solver's board geometry and territory rule for a fast first look.
struct Scan {
    exact: OnePlayer,
    g: Geometry,
    terr: Territory,
}

impl Scan {
    fn new(board: Board) -> Scan {
        Scan {
            exact: OnePlayer::new(board),
            g: Geometry::new(board),
            terr: Territory::new(),
        }
    }

    /// The first action of the winner to move in `claim` (canonical order) whose child
    /// closes at once ([`Scan::closing_step`]), with that step.
    fn first_closing(&mut self, claim: &Claim) -> Option<(Action, Step)> {
        let st = State::from_position(&claim.position, claim.spare);
        let x = claim.winner;
        st.actions(&self.g).into_iter().find_map(|a| {
            let next = st.play(a);
            // The solver's bitboard rule first: it finds X's line the way the checker's
            // completion does at least as well, so where it finds none the (slower) checker
            // is not asked. A miss only leaves a choice untrimmed.
            let quick = !next.can_act(&self.g, x.opponent())
                || self
                    .terr
                    .outlast(
                        &self.g,
                        &next.pos,
                        x,
                        next.spares_of(x),
                        next.spares_of(x.opponent()),
                    )
                    .is_some();
            if !quick {
                return None;
            }
            Some((a, self.closing_step(&after(claim, a))?))
        })
    }

    /// The one step proving `child` at once, if there is one, as the checker decides it:
    /// `NoMove` when the side to move (the loser) has no action, or an outlast step with an
    /// empty list when the checker accepts it.
    fn closing_step(&mut self, child: &Claim) -> Option<Step> {
        let loser_to_move = child.position.to_move != child.winner;
        if loser_to_move && actions(child).is_empty() {
            return Some(Step::NoMove);
        }
        outlast_line(child, &[], &mut self.exact)
            .is_ok()
            .then(|| Step::Outlast { moves: Vec::new() })
    }
}

/// Passes [`trim_certificate`] makes at most: a pass can free subproofs for the next one
/// (a dropped subproof no longer cites what it cited); the second pass over the published
/// 4x6 result still trimmed about a sixth as many choices as the first, and a 4x6 midgame
/// proof needed more than 8 passes to settle. Later passes scan only claims not seen before.
pub const MAX_PASSES: usize = 64;

/// The first action of the winner (canonical order) after which the child closes at once,
/// and that step, by the claim's key: one scan per claim over all passes.
type Closing = HashMap<u128, Option<(Action, Step)>>;

/// `cert` with every choice whose subproof has at least [`MIN_SAVED`] + 1 steps, and that
/// nothing else depends on, replaced by the first action closing at once (module docs),
/// pass after pass until one changes nothing or [`MAX_PASSES`]. A certificate whose steps
/// do not walk is returned as it is (the check that follows refuses it).
pub fn trim_certificate(mut cert: Certificate) -> (Certificate, Trimmed) {
    let mut t = Trimmed {
        steps_before: cert.steps.len(),
        steps_after: cert.steps.len(),
        ..Trimmed::default()
    };
    let mut scan = Scan::new(cert.root.position.board);
    let mut closing = Closing::new();
    for pass in 0..MAX_PASSES {
        let Some((next, choices, protected)) = trim_once(&cert, &mut scan, &mut closing) else {
            break;
        };
        t.passes = pass + 1;
        if pass == 0 {
            t.protected = protected;
        }
        if choices == 0 {
            break;
        }
        t.choices += choices;
        cert = next;
    }
    t.steps_after = cert.steps.len();
    (cert, t)
}

/// One pass of [`trim_certificate`]: the new certificate, the choices trimmed, and those
/// kept only because a later step depends on their subproof. `None` if the steps do not
/// walk.
fn trim_once(
    cert: &Certificate,
    scan: &mut Scan,
    closing: &mut Closing,
) -> Option<(Certificate, u64, u64)> {
    let (end, cited) = analyse(cert)?;
    let mut out: Vec<Step> = Vec::with_capacity(cert.steps.len());
    let (mut choices, mut protected) = (0u64, 0u64);
    let mut stack = vec![cert.root.clone()];
    let mut read = 0usize;
    while let Some(claim) = stack.pop() {
        let step = cert.steps.get(read)?;
        if let Step::Choice(_) = step {
            let child = read + 1;
            let stop = end.get(child).map_or(0, |&e| e as usize);
            if stop > child + MIN_SAVED {
                let found =
                    (closing.entry(key(&claim))).or_insert_with(|| scan.first_closing(&claim));
                match found {
                    Some((a, step)) if (cited[child] as usize) < stop => {
                        out.push(Step::Choice(*a));
                        out.push(step.clone());
                        choices += 1;
                        read = stop;
                        continue;
                    }
                    Some(_) => protected += 1,
                    None => {}
                }
            }
        }
        let children = step_children(step, &claim).ok()?;
        out.push(step.clone());
        stack.extend(children.into_iter().rev());
        read += 1;
    }
    let trimmed = Certificate {
        root: cert.root.clone(),
        steps: out,
        meta: cert.meta.clone(),
    };
    Some((trimmed, choices, protected))
}
