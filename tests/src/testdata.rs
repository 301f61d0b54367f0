//! The test vectors of `format/testdata/`: small certificate files with their expected verdicts, and the README that lists them.
//!
//! Everything here is built by hand from the rules of `format/SPEC.md` (tiny positions whose
//! proofs can be read off), except one small game tree found by exhaustive search. The
//! expected verdicts are written down here, not computed: the integration test
//! `testdata` checks every committed file against the README table, and that the files and
//! the README are exactly what [`vectors`] and [`readme`] produce.

use amazons_checker::{after, rules};
use amazons_format::{
    encode, file::frame, hash_body, Action, Board, Certificate, Claim, Color, LocalClaim, Meta,
    Move, Position, Step, Symmetry, SEARCH_LIMIT,
};
use std::collections::{HashMap, HashSet};

/// What the checker must say about a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// Accepted: exit 0.
    Accepted,
    /// A wrong proof (exit 1), rejected by this rule.
    Wrong(&'static str),
    /// A damaged or missing input (exit 2), rejected by this rule.
    Damaged(&'static str),
    /// A shard, cited by other vectors (not checked on its own).
    Shard,
}

impl Expected {
    /// The exit code of `amazons-check` on the file.
    pub fn exit(self) -> i32 {
        match self {
            Expected::Accepted | Expected::Shard => 0,
            Expected::Wrong(_) => 1,
            Expected::Damaged(_) => 2,
        }
    }

    /// The rule column of the README (`-` when accepted).
    pub fn rule(self) -> &'static str {
        match self {
            Expected::Accepted | Expected::Shard => "-",
            Expected::Wrong(rule) | Expected::Damaged(rule) => rule,
        }
    }
}

/// One test vector: a file under `format/testdata/` and what the checker must say.
#[derive(Debug, Clone)]
pub struct Vector {
    /// Path relative to `format/testdata/`.
    pub file: String,
    pub bytes: Vec<u8>,
    pub expected: Expected,
    pub about: String,
}

const W: Color = Color::White;
const B: Color = Color::Black;

fn claim(grid: &str, to_move: Color, spare: i32, winner: Color) -> Claim {
    let position = Position::parse_grid(grid, to_move).expect("a test-vector grid");
    Claim {
        position,
        spare,
        winner,
    }
}

fn cert(root: &Claim, steps: Vec<Step>, note: &str) -> Certificate {
    let meta = Meta {
        producer: "amazons-tests testdata".to_string(),
        nodes: 0,
        millis: 0,
        note: note.to_string(),
    };
    Certificate {
        root: root.clone(),
        steps,
        meta,
    }
}

fn bytes(cert: &Certificate) -> Vec<u8> {
    encode(cert).expect("encode a test vector")
}

/// The body hash of an encoded file.
fn hash_of(file: &[u8]) -> [u8; 32] {
    hash_body(body_of(file))
}

fn body_of(file: &[u8]) -> &[u8] {
    &file[52..file.len() - 8]
}

/// A copy of `base` with `change` made to it.
fn changed(base: &[u8], change: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut f = base.to_vec();
    change(&mut f);
    f
}

fn mv(board: Board, text: &str) -> Move {
    Move::parse(board, text).expect("a test-vector move")
}

fn choice(board: Board, text: &str) -> Step {
    Step::Choice(Action::Board(mv(board, text)))
}

fn sum(parts: &[(i32, bool)]) -> Step {
    let parts = parts
        .iter()
        .map(|&(bound, strict)| LocalClaim { bound, strict });
    Step::Sum {
        parts: parts.collect(),
    }
}

/// The winner of `root` (its `winner` field is ignored) and a proof by exhaustive search
/// (tiny positions only): the first winning action at the winner's turns, every action at
/// the loser's, and `Transposition { Identity }` for a claim proven earlier in checking order.
fn search_proof(root: &Claim) -> (Claim, Vec<Step>) {
    fn wins(c: &Claim, memo: &mut HashMap<Claim, bool>) -> bool {
        if let Some(&w) = memo.get(c) {
            return w;
        }
        let acts = actions(c);
        let w = if c.position.to_move == c.winner {
            acts.iter().any(|&a| wins(&after(c, a), memo))
        } else {
            acts.iter().all(|&a| wins(&after(c, a), memo))
        };
        memo.insert(c.clone(), w);
        w
    }
    fn emit(
        c: &Claim,
        memo: &mut HashMap<Claim, bool>,
        done: &mut HashSet<Claim>,
        out: &mut Vec<Step>,
    ) {
        if done.contains(c) {
            out.push(Step::Transposition {
                symmetry: Symmetry::Identity,
            });
            return;
        }
        let acts = actions(c);
        if c.position.to_move == c.winner {
            let a = *acts
                .iter()
                .find(|&&a| wins(&after(c, a), memo))
                .expect("the claim is won");
            out.push(Step::Choice(a));
            emit(&after(c, a), memo, done, out);
        } else if acts.is_empty() {
            out.push(Step::NoMove);
        } else {
            out.push(Step::ReplyAll);
            for a in acts {
                emit(&after(c, a), memo, done, out);
            }
        }
        done.insert(c.clone());
    }
    let mut memo = HashMap::new();
    let mut root = root.clone();
    if !wins(&root, &mut memo) {
        root.winner = root.winner.opponent();
    }
    let mut out = Vec::new();
    emit(&root, &mut memo, &mut HashSet::new(), &mut out);
    (root, out)
}

use amazons_checker::actions;

/// Whether the claim's winner wins, by the game's definition over the checker's actions,
/// remembering the claims it has settled (for the small positions of the search vectors).
fn plain_minimax(c: &Claim, memo: &mut HashMap<Claim, bool>) -> bool {
    if let Some(&known) = memo.get(c) {
        return known;
    }
    let mut children = actions(c).into_iter().map(|a| after(c, a));
    let win = if c.position.to_move == c.winner {
        children.any(|next| plain_minimax(&next, memo))
    } else {
        children.all(|next| plain_minimax(&next, memo))
    };
    memo.insert(c.clone(), win);
    win
}

/// A Black queen, `empty` empty squares and a White queen in a row, in that order: on one
/// rank if they fit on a board of at most 10 files, else on two ranks (the top one read
/// first, the rest of the bottom rank arrows). Returns the grid and its width and height.
fn queens_apart(empty: usize) -> (String, usize, usize) {
    let cells = format!("X{}O", ".".repeat(empty));
    if cells.len() <= 10 {
        return (cells.clone(), cells.len(), 1);
    }
    let width = cells.len().div_ceil(2);
    let cells = format!("{cells:#<0$}", 2 * width);
    (format!("{}|{}", &cells[..width], &cells[width..]), width, 2)
}

/// A 4x4 position for symmetry `s`: two components, each a White queen beside an empty
/// square, every other square an arrow, the first component (in component order) the image
/// under `s` of the second; Black to move. The second component's local claim maps by `s`
/// onto the first's. Returns the grid.
fn symmetric_pair(s: Symmetry, avoid_inverse: bool) -> String {
    let board = Board::new(4, 4).expect("4x4");
    let near = |a: usize, b: usize| rules::neighbours(board, a).any(|n| n == b) || a == b;
    for q in 0..16 {
        for e in rules::neighbours(board, q) {
            let (sq, se) = (
                s.map(board, q as u8) as usize,
                s.map(board, e as u8) as usize,
            );
            let apart = [q, e]
                .iter()
                .all(|&b| [sq, se].iter().all(|&a| !near(a, b)));
            if !apart || sq.min(se) > q.min(e) {
                continue;
            }
            let mut cells = ['#'; 16];
            (cells[q], cells[e], cells[sq], cells[se]) = ('O', '.', 'O', '.');
            let grid: Vec<String> = (0..4)
                .rev()
                .map(|y| cells[y * 4..y * 4 + 4].iter().collect())
                .collect();
            let inverse_differs = {
                let inv = inverse(s);
                (inv.map(board, q as u8), inv.map(board, e as u8)) != (sq as u8, se as u8)
            };
            if !avoid_inverse || inverse_differs {
                return grid.join("|");
            }
        }
    }
    panic!("no symmetric pair for {s:?}");
}

fn inverse(s: Symmetry) -> Symmetry {
    match s {
        Symmetry::Rotate90 => Symmetry::Rotate270,
        Symmetry::Rotate270 => Symmetry::Rotate90,
        other => other,
    }
}

/// Every test vector, in README order.
pub fn vectors() -> Vec<Vector> {
    let mut v = Vec::new();
    let mut add = |file: &str, bytes: Vec<u8>, expected: Expected, about: &str| {
        v.push(Vector {
            file: file.to_string(),
            bytes,
            expected,
            about: about.to_string(),
        });
    };
    use Expected::{Accepted, Damaged, Shard, Wrong};

    // A claim proven by NoMove: on a 1x2 board Black (a2) cannot move past White (a1).
    let stuck = claim("X|O", B, 0, W);
    let nomove = bytes(&cert(&stuck, vec![Step::NoMove], "testdata: nomove"));
    add(
        "accept-nomove.cert",
        nomove.clone(),
        Accepted,
        "NoMove (5.3): Black to move has no action",
    );
    let packed = amazons_format::stored::compress(&nomove).expect("compress");
    add(
        "accept-nomove.cert.zst",
        packed,
        Accepted,
        "the same file zstd-compressed (3, Storage)",
    );

    // A small game tree by exhaustive search: Choice, ReplyAll, NoMove and Identity.
    let (small, steps) = search_proof(&claim("X..|.#.|..O", W, 0, W));
    for want in [
        Step::ReplyAll,
        Step::NoMove,
        Step::Transposition {
            symmetry: Symmetry::Identity,
        },
    ] {
        assert!(steps.contains(&want), "the searched proof uses {want:?}");
    }
    assert!(
        steps.iter().any(|s| matches!(s, Step::Choice(_))),
        "the searched proof uses Choice"
    );
    let tree = cert(&small, steps.clone(), "testdata: a game tree");
    add("accept-game-tree.cert", bytes(&tree), Accepted,
        "Choice (5.1), ReplyAll (5.2), NoMove (5.3) and Transposition by Identity (5.6) on 3x3 X..|.#.|..O");
    let short = cert(
        &small,
        steps[..steps.len() - 1].to_vec(),
        "testdata: out of steps",
    );
    add(
        "reject-out-of-steps.cert",
        bytes(&short),
        Wrong("OutOfSteps"),
        "the game tree without its last step (4)",
    );

    // Choice of a spare move, ReplyAll over a spare move, a Sum with a strict part.
    let line = Board::new(5, 1).expect("5x1");
    let two = claim("O.#O.", W, 0, W);
    let sum_steps = vec![
        sum(&[(1, false), (-1, true)]),
        Step::ReplyAll,
        choice(line, "a1-b1xa1"),
        Step::NoMove,
        Step::NoMove,
        Step::Choice(Action::Spare),
        Step::NoMove,
    ];
    add("accept-sum.cert", bytes(&cert(&two, sum_steps.clone(), "testdata: sum")), Accepted,
        "Sum (5.5) with bounds 1 and -1 (strict): local claims with spare moves, ReplyAll over a spare move, Choice of a spare move");
    for (file, parts, rule) in [
        (
            "reject-sum-part-count.cert",
            vec![(1, false)],
            "SumPartCount",
        ),
        (
            "reject-sum-bound-range.cert",
            vec![(101, false), (-101, true)],
            "BoundOutOfRange",
        ),
        (
            "reject-sum-short.cert",
            vec![(0, false), (-1, true)],
            "SumShort",
        ),
    ] {
        let mut steps = sum_steps.clone();
        steps[0] = sum(&parts);
        add(
            file,
            bytes(&cert(&two, steps, "testdata: bad sum")),
            Wrong(rule),
            "Sum (5.5) with wrong parts",
        );
    }

    // Outlast: Black's queen a1 is walled in by White's blocker a2, which shoots back.
    let b3 = Board::new(3, 3).expect("3x3");
    let walled = claim("...|O#.|X#.", W, 0, W);
    let outlast = |moves: &[&str]| Step::Outlast {
        moves: moves.iter().map(|m| mv(b3, m)).collect(),
    };
    add(
        "accept-outlast.cert",
        bytes(&cert(
            &walled,
            vec![outlast(&["a2-a3xa2"])],
            "testdata: outlast",
        )),
        Accepted,
        "Outlast (5.4): the blocker a2 shoots back onto its own square",
    );
    add(
        "reject-outlast-no-shoot-back.cert",
        bytes(&cert(
            &walled,
            vec![outlast(&["a2-a3xb3"])],
            "testdata: outlast",
        )),
        Wrong("BlockerNoShootBack"),
        "Outlast (5.4): the blocker does not shoot back",
    );
    add(
        "reject-outlast-illegal-move.cert",
        bytes(&cert(
            &walled,
            vec![outlast(&["a2-a3xa2", "a3-a1xa2"])],
            "testdata: outlast",
        )),
        Wrong("OutlastIllegalMove"),
        "Outlast (5.4): a move onto Black's region (an arrow on the blocked board)",
    );
    add(
        "accept-outlast-completed.cert",
        bytes(&cert(&walled, vec![outlast(&[])], "testdata: outlast completed")),
        Accepted,
        "Outlast (5.4): no moves listed; the completion plays the blocker's a2-a3xa2 (the first legal move that shoots back), k = 1 >= M + y + 1 = 1",
    );
    // White's b3 has one move (b3-b4xb3) against Black's one (a1-b1xa1): White, to move,
    // needs two.
    let b34 = Board::new(3, 4).expect("3x4");
    let short = claim("#.#|#O#|###|X.#", W, 0, W);
    add(
        "reject-outlast-short.cert",
        bytes(&cert(&short, vec![Step::Outlast { moves: vec![] }], "testdata: outlast")),
        Wrong("OutlastShort"),
        "Outlast (5.4): no moves listed; the completion plays b3-b4xb3 and runs out: k + x = 1 < M + y + 1 = 2",
    );
    let exact = claim("O..|###|.#.|#X#", B, 0, W);
    let steps = vec![Step::Outlast {
        moves: vec![mv(b34, "a4-b4xa4")],
    }];
    add("accept-outlast-exact.cert", bytes(&cert(&exact, steps, "testdata: outlast exact")), Accepted,
        "Outlast (5.4): Black's region has 2 empty squares but Black can make only 1 move (exact M)");

    // Search: on 3x1 `X.O` Black to move wins (a1-b1xa1 leaves White stuck). Spare moves
    // in searches are covered by the checker's unit tests (a root holds none). The winner
    // of the position at the limit is found by a plain minimax over the checker's actions.
    let (at_limit, ..) = queens_apart(SEARCH_LIMIT);
    let limit_winner = if plain_minimax(&claim(&at_limit, B, 0, B), &mut HashMap::new()) {
        B
    } else {
        W
    };
    let (too_large, large_w, large_h) = queens_apart(SEARCH_LIMIT + 1);
    let searches = [
        (
            "accept-search.cert",
            "X.O".to_string(),
            B,
            Accepted,
            "Search (5.8): Black to move wins X.O by a1-b1xa1".to_string(),
        ),
        (
            "accept-search-at-limit.cert",
            at_limit.clone(),
            limit_winner,
            Accepted,
            format!(
                "Search (5.8): {at_limit} has SEARCH_LIMIT = {SEARCH_LIMIT} empty squares; {} wins it with Black to move (a plain minimax agrees)",
                limit_winner.name()
            ),
        ),
        (
            "reject-search-loses.cert",
            "X.O".to_string(),
            W,
            Wrong("SearchLoses"),
            "Search (5.8): the claim of accept-search with the winner swapped".to_string(),
        ),
        (
            "reject-search-too-large.cert",
            too_large.clone(),
            B,
            Wrong("SearchTooLarge"),
            format!(
                "Search (5.8): {large_w}x{large_h} {too_large} has {} empty squares, more than SEARCH_LIMIT = {SEARCH_LIMIT}",
                SEARCH_LIMIT + 1
            ),
        ),
    ];
    for (file, grid, winner, expected, about) in searches {
        let root = claim(&grid, B, 0, winner);
        add(
            file,
            bytes(&cert(&root, vec![Step::Search], "testdata: search")),
            expected,
            &about,
        );
    }

    // Symmetries: the second component's claim is the first's, mapped.
    for s in Symmetry::ALL.into_iter().skip(1) {
        let grid = symmetric_pair(s, s == Symmetry::Rotate90);
        let root = claim(&grid, B, 0, W);
        let steps = vec![
            sum(&[(0, false), (0, false)]),
            Step::NoMove,
            Step::Transposition { symmetry: s },
        ];
        let name = format!("{s:?}").to_lowercase();
        let file = format!("accept-symmetry-{name}.cert");
        add(
            &file,
            bytes(&cert(&root, steps.clone(), "testdata: symmetry")),
            Accepted,
            &format!("Transposition by {s:?} (5.6) on 4x4 {grid}"),
        );
        if s == Symmetry::Rotate90 {
            let mut wrong = steps;
            wrong[2] = Step::Transposition {
                symmetry: Symmetry::Rotate270,
            };
            add("reject-symmetry-direction.cert", bytes(&cert(&root, wrong, "testdata: symmetry")),
                Wrong("TranspositionNotProven"),
                "accept-symmetry-rotate90 citing Rotate270 instead: the direction of symmetry(P) matters");
        }
    }

    // Rejections by the rules of single steps, on tiny roots: file, root, steps, rule,
    // README text.
    let transposition = |symmetry| vec![Step::Transposition { symmetry }];
    let line3 = Board::new(3, 1).expect("3x1");
    #[rustfmt::skip]
    let rejections = [
        ("reject-symmetry-does-not-fit.cert", stuck.clone(), transposition(Symmetry::Transpose), "SymmetryDoesNotFit", "Transpose on the 1x2 board"),
        ("reject-transposition-itself.cert", stuck.clone(), transposition(Symmetry::Identity), "TranspositionNotProven", "the root claim cites itself (not yet proven)"),
        ("reject-choice-wrong-side.cert", stuck.clone(), vec![Step::Choice(Action::Spare)], "ChoiceWrongSide", "Choice (5.1) at the loser's turn"),
        ("reject-choice-illegal.cert", claim("O#.", W, 0, W), vec![choice(line3, "a1-c1xb1")], "IllegalAction", "Choice (5.1) of a move across an arrow"),
        ("reject-replyall-winner-to-move.cert", claim("X|O", W, 0, W), vec![Step::ReplyAll], "NotLoserToMove", "ReplyAll (5.2) at the winner's turn"),
        ("reject-replyall-no-action.cert", stuck.clone(), vec![Step::ReplyAll], "ReplyAllNoAction", "ReplyAll (5.2) where the loser has no action"),
        ("reject-nomove-has-action.cert", claim("X|.", B, 0, W), vec![Step::NoMove], "NoMoveHasAction", "NoMove (5.3) while the loser can move"),
        ("reject-trailing-steps.cert", stuck.clone(), vec![Step::NoMove, Step::NoMove], "TrailingSteps", "a step left after the root claim is proven (4)"),
        ("reject-root-spare.cert", claim("X|O", B, -1, W), vec![Step::NoMove], "RootSpare", "a proof of a claim with White holding a spare move: not a whole-board result (3)"),
    ];
    for (file, root, steps, rule, about) in rejections {
        add(
            file,
            bytes(&cert(&root, steps, "testdata")),
            Wrong(rule),
            about,
        );
    }

    // Depth: 1000 nested Sums of one component are allowed, 1001 are not; the limit
    // restarts at a shard's root.
    let one = claim("O.", B, 0, W);
    let nested = |n: usize, last: Step| {
        let mut steps = vec![sum(&[(0, false)]); n];
        steps.push(last);
        steps
    };
    add(
        "accept-depth-1000.cert",
        bytes(&cert(&one, nested(1000, Step::NoMove), "testdata: depth")),
        Accepted,
        "a claim 1000 levels below the root (4)",
    );
    add(
        "reject-depth-1001.cert",
        bytes(&cert(&one, nested(1001, Step::NoMove), "testdata: depth")),
        Wrong("TooDeep"),
        "a claim 1001 levels below the root (4)",
    );
    let deep_shard = bytes(&cert(
        &one,
        nested(1000, Step::NoMove),
        "testdata: depth in a shard",
    ));
    let deep_hash = hash_of(&deep_shard);
    add("accept-depth-in-shard.cert",
        bytes(&cert(&one, nested(1000, Step::Shard { hash: deep_hash }), "testdata: depth")),
        Accepted, "1000 levels, then a shard with 1000 more levels: the limit restarts at a shard's root (5.7)");
    add(
        "shards/depth-1000.cert",
        deep_shard,
        Shard,
        "1000 nested Sums; cited by accept-depth-in-shard",
    );

    // Shards: a chain deep-1 -> deep-2 -> ... -> deep-9 of shards with the same root claim.
    let mut chain = vec![bytes(&cert(
        &stuck,
        vec![Step::NoMove],
        "testdata: shard chain 9",
    ))];
    for k in (1..9).rev() {
        let next = hash_of(chain.last().expect("a shard"));
        chain.push(bytes(&cert(
            &stuck,
            vec![Step::Shard { hash: next }],
            &format!("testdata: shard chain {k}"),
        )));
    }
    chain.reverse();
    let hashes: Vec<[u8; 32]> = chain.iter().map(|f| hash_of(f)).collect();
    let chain_hash = |k: usize| hashes[k - 1];
    add(
        "accept-nested-shards.cert",
        bytes(&cert(
            &stuck,
            vec![Step::Shard {
                hash: chain_hash(2),
            }],
            "testdata: shards",
        )),
        Accepted,
        "a shard citing a shard, 8 levels (deep-2 to deep-9; the file given is level 0) (5.7)",
    );
    add(
        "reject-shards-too-deep.cert",
        bytes(&cert(
            &stuck,
            vec![Step::Shard {
                hash: chain_hash(1),
            }],
            "testdata: shards",
        )),
        Wrong("ShardWrong: ShardTooDeep"),
        "9 levels of shards (deep-1 to deep-9): deep-8, at level 8, may not cite a shard (5.7)",
    );
    for (k, file) in chain.into_iter().enumerate() {
        let about = if k == 8 {
            "NoMove".to_string()
        } else {
            format!("cites deep-{}", k + 2)
        };
        add(&format!("shards/deep-{}.cert", k + 1), file, Shard, &about);
    }
    let wrong_shard = bytes(&cert(
        &stuck,
        vec![Step::ReplyAll],
        "testdata: a wrong shard",
    ));
    add(
        "reject-shard-wrong.cert",
        bytes(&cert(
            &stuck,
            vec![Step::Shard {
                hash: hash_of(&wrong_shard),
            }],
            "testdata",
        )),
        Wrong("ShardWrong: ReplyAllNoAction"),
        "the cited shard's proof is wrong (5.7)",
    );
    add(
        "shards/wrong.cert",
        wrong_shard,
        Shard,
        "ReplyAll where the loser has no action",
    );
    add(
        "reject-shard-claim.cert",
        bytes(&cert(
            &claim("X|O", W, 0, B),
            vec![Step::Shard {
                hash: chain_hash(9),
            }],
            "testdata",
        )),
        Wrong("ShardClaimMismatch"),
        "the cited shard (deep-9) proves another claim (5.7)",
    );
    add(
        "damaged-shard-missing.cert",
        bytes(&cert(
            &stuck,
            vec![Step::Shard { hash: [0x55; 32] }],
            "testdata",
        )),
        Damaged("ShardMissing"),
        "no shard file has the cited hash (5.7)",
    );
    let mut damaged = bytes(&cert(
        &stuck,
        vec![Step::NoMove],
        "testdata: a damaged shard",
    ));
    let damaged_hash = hash_of(&damaged);
    let n = damaged.len();
    damaged[n - 10] ^= 0x01;
    add(
        "damaged-shard-hash.cert",
        bytes(&cert(
            &stuck,
            vec![Step::Shard { hash: damaged_hash }],
            "testdata",
        )),
        Damaged("ShardUnreadable"),
        "the cited shard's header declares the cited hash but its body was changed (5.7)",
    );
    add(
        "shards/damaged.cert",
        damaged,
        Shard,
        "a body byte flipped after writing (its hash fails)",
    );
    let part = claim("###O.", W, -1, W);
    let part_shard = bytes(&cert(
        &part,
        vec![Step::Choice(Action::Spare), Step::NoMove],
        "testdata: a local claim",
    ));
    let mut steps = sum_steps[..5].to_vec();
    steps.push(Step::Shard {
        hash: hash_of(&part_shard),
    });
    add(
        "accept-shard-with-spare.cert",
        bytes(&cert(&two, steps, "testdata: sum with a shard")),
        Accepted,
        "accept-sum with its last local claim (White holding a spare move) proven by a shard (5.7)",
    );
    add(
        "shards/local-claim.cert",
        part_shard,
        Shard,
        "Choice of a spare move; cited by accept-shard-with-spare",
    );

    // The file layout (3).
    let body = body_of(&nomove).to_vec();
    let mut layout = |file: &str, bytes: Vec<u8>, rule: &'static str, about: &str| {
        v.push(Vector {
            file: file.to_string(),
            bytes,
            expected: Damaged(rule),
            about: about.to_string(),
        });
    };
    layout(
        "damaged-magic.cert",
        changed(&nomove, |f| f[0] = b'X'),
        "BadMagic",
        "accept-nomove with a wrong magic",
    );
    layout(
        "damaged-version.cert",
        changed(&nomove, |f| f[8] = 2),
        "Version",
        "accept-nomove claiming layout version 2",
    );
    layout(
        "damaged-length.cert",
        changed(&nomove, |f| f[12] += 1),
        "Length",
        "accept-nomove with the body length one too large",
    );
    layout(
        "damaged-hash.cert",
        changed(&nomove, |f| f[60] ^= 0x01),
        "Hash",
        "accept-nomove with a body byte flipped",
    );
    layout(
        "damaged-short.cert",
        nomove[..40].to_vec(),
        "TooShort",
        "the first 40 bytes of accept-nomove",
    );
    layout(
        "damaged-after-sentinel.cert",
        changed(&nomove, |f| f.extend_from_slice(b"extra")),
        "Sentinel",
        "accept-nomove with 5 bytes after the sentinel",
    );
    layout(
        "damaged-second-sentinel.cert",
        changed(&nomove, |f| f.extend_from_slice(&amazons_format::SENTINEL)),
        "Length",
        "accept-nomove with a second sentinel after the first",
    );
    layout(
        "damaged-trailing-body.cert",
        frame(&changed(&body, |f| f.push(0))),
        "Trailing",
        "accept-nomove's body plus one byte, rehashed",
    );
    // Root claim: board (2 bytes), cell count (1), 2 cells, side, spare, winner; then the
    // step count.
    let at = 2 + 1 + 2 + 3;
    assert_eq!(body[at], 1, "the step count of accept-nomove");
    let mut f = body[..at].to_vec();
    f.extend_from_slice(&[0x81, 0x00]);
    f.extend_from_slice(&body[at + 1..]);
    layout(
        "damaged-non-canonical.cert",
        frame(&f),
        "NonCanonical",
        "accept-nomove with its step count written 81 00 (a padded varint), rehashed",
    );
    layout(
        "damaged-body.cert",
        frame(&changed(&body, |f| f[3] = 7)),
        "Body",
        "accept-nomove with cell a1 = 7 (no such Cell), rehashed",
    );
    let mut wide = cert(&stuck, vec![Step::NoMove], "testdata: bad root");
    wide.root.position.board.width = 11;
    wide.root.position.cells = vec![amazons_format::Cell::Empty; 22];
    layout(
        "damaged-root-board.cert",
        bytes(&wide),
        "InvalidPosition",
        "a root on an 11x2 board",
    );
    let mut few = cert(&stuck, vec![Step::NoMove], "testdata: bad root");
    few.root.position.cells.pop();
    layout(
        "damaged-root-cells.cert",
        bytes(&few),
        "InvalidPosition",
        "a 1x2 root with one cell",
    );
    v
}

/// The README of `format/testdata/`: what the files are and the table of expected verdicts.
pub fn readme(vectors: &[Vector]) -> String {
    let mut out = String::from(README_HEAD);
    out.push_str("| file | verdict | exit | rule | what it shows |\n|---|---|---|---|---|\n");
    for v in vectors.iter().filter(|v| v.expected != Expected::Shard) {
        let verdict = if v.expected == Expected::Accepted {
            "accepted"
        } else {
            "rejected"
        };
        out.push_str(&format!(
            "| `{}` | {verdict} | {} | {} | {} |\n",
            v.file,
            v.expected.exit(),
            v.expected.rule(),
            v.about
        ));
    }
    out.push_str(
        "\nShard files (found by their body hash in `shards/`, never checked on their own):\n\n",
    );
    out.push_str("| file | what it is |\n|---|---|\n");
    for v in vectors.iter().filter(|v| v.expected == Expected::Shard) {
        out.push_str(&format!("| `{}` | {} |\n", v.file, v.about));
    }
    out
}

const README_HEAD: &str = "# Test vectors for Amazons certificate checkers

Small certificate files, each with the verdict a checker that follows `../SPEC.md` must
give. Check each file on its own, with the shards of `shards/` available by their body hash
(SPEC 5.7). Section numbers refer to SPEC.md.

- **verdict**: `accepted`, or `rejected`.
- **exit**: the exit code of `amazons-check FILE`: 0 accepted, 1 a wrong proof, 2 a damaged
  or missing input (the file itself, or a shard it cites).
- **rule**: the rule that rejects the file: a `FileError` variant (file layout, SPEC 3) for
  exit 2 on the file itself, else a `Failure` variant of the checker; `ShardWrong: R` is a
  shard whose own check fails by rule R.

The files are written by `cargo run --release -p amazons-tests --bin testdata`
(source: `tests/src/testdata.rs`), and the integration test `testdata` checks every file
against this table and that the files and this README are exactly what the generator writes.

";
