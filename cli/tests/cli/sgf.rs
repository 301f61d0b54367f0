//! SGF through the command line: `amazons export --sgf` round trips (export, parse back,
//! replay, positions agree), and `--sgf FILE` wherever `--position`/`--moves` are.

use crate::common::{amazons, ok, sharded, workspace, Out, TempDir};
use amazons_checker::rules;
use amazons_format::sgf::{self, GameTree};
use amazons_format::{Color, Move, Position};
use std::collections::BTreeSet;
use std::path::Path;

fn root_claim(cert: &Path) -> amazons_format::Claim {
    let file = if cert.is_dir() {
        cert.join("manifest.cert")
    } else {
        cert.to_path_buf()
    };
    let bytes = amazons_format::stored::read(&file).expect("readable");
    amazons_format::decode(&bytes).expect("decodes").root
}

/// The `grid:` line of `amazons show`.
fn grid_of(out: &Out) -> String {
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix("grid: "))
        .expect("show prints the grid")
        .to_string()
}

/// What a walk over an exported tree found.
#[derive(Default)]
struct Walk {
    nodes: usize,
    /// Positions at the tree's ends, with their depth.
    ends: Vec<(Position, usize)>,
}

/// The moves that follow the position before `tree.nodes[at]`: that node, or at the end of
/// the sequence the first node of each variation.
fn children(tree: &GameTree, at: usize) -> Vec<(&GameTree, usize)> {
    if at < tree.nodes.len() {
        vec![(tree, at)]
    } else {
        tree.variations.iter().map(|t| (t, 0)).collect()
    }
}

/// Replays every line of the tree from `pos`, checking each move: the right side (SGF's B
/// is White), legal, at the loser's turns every reply present once, at the winner's turns
/// one move.
fn replay(tree: &GameTree, at: usize, pos: Position, depth: usize, winner: Color, walk: &mut Walk) {
    let kids = children(tree, at);
    if kids.is_empty() {
        walk.ends.push((pos, depth));
        return;
    }
    check_children(
        &pos,
        kids.iter().map(|(t, i)| &t.nodes[*i]).collect(),
        winner,
        depth,
    );
    for (t, i) in kids {
        let node = &t.nodes[i];
        let (letter, value) = ["B", "W"]
            .iter()
            .find_map(|l| node.get(l).next().map(|v| (*l, v)))
            .expect("every node below the root holds a move");
        let color = sgf::color_of_letter(letter).expect("B or W");
        assert_eq!(color, pos.to_move, "{letter}[{value}] played out of turn");
        let m: Move = sgf::parse_move(pos.board, letter, value).expect("a move value");
        assert!(
            rules::is_legal(&pos, m),
            "{letter}[{value}] is illegal in {}",
            pos.describe()
        );
        walk.nodes += 1;
        replay(t, i + 1, rules::play(&pos, m), depth + 1, winner, walk);
    }
}

/// The moves of a set of sibling nodes: the winner's a single one, the loser's all replies.
fn check_children(pos: &Position, nodes: Vec<&sgf::Node>, winner: Color, depth: usize) {
    if nodes.is_empty() {
        return;
    }
    if pos.to_move == winner {
        assert_eq!(
            nodes.len(),
            1,
            "the winner has {} moves at depth {depth}",
            nodes.len()
        );
    } else {
        let letter = sgf::sgf_letter(pos.to_move);
        let got: BTreeSet<Move> = nodes
            .iter()
            .map(|n| {
                let v = n.get(letter).next().expect("a loser's move");
                sgf::parse_move(pos.board, letter, v).expect("a move value")
            })
            .collect();
        let all: BTreeSet<Move> = rules::legal_moves(pos).into_iter().collect();
        assert_eq!(
            got.len(),
            nodes.len(),
            "a reply is listed twice at depth {depth}"
        );
        assert_eq!(
            got, all,
            "the replies at depth {depth} are not all of the loser's moves"
        );
    }
}

/// Exports `cert` with `plies`, parses the file back and replays it.
fn round_trip(cert: &Path, plies: usize, extra: &[&str]) -> (Walk, String, String) {
    let tmp = TempDir::new("sgf", &format!("rt{plies}"));
    let out_file = tmp.file("out.sgf");
    let p = plies.to_string();
    let mut args = vec![
        "export",
        cert.to_str().expect("utf-8"),
        "--sgf",
        &out_file,
        "--plies",
        &p,
    ];
    args.extend_from_slice(extra);
    ok(&args);
    let text = std::fs::read_to_string(&out_file).expect("the SGF file is there");
    assert!(text.starts_with("(;FF[4]GM[18]"), "{text}");
    let tree = sgf::parse(&text).expect("the export parses");
    let claim = root_claim(cert);
    // The setup read back is the certificate's root position.
    let game = sgf::read_game(&text).expect("reads");
    assert_eq!(game.setup, claim.position);
    let mut walk = Walk::default();
    replay(&tree, 1, claim.position.clone(), 0, claim.winner, &mut walk);
    let leaf_ends = extra.contains(&"--no-solve");
    for (pos, depth) in &walk.ends {
        assert!(
            *depth == plies || rules::legal_moves(pos).is_empty() || leaf_ends,
            "a line ends early at depth {depth}"
        );
    }
    // `--sgf` reads the same file back: the main line's end, as `show` draws it.
    let shown = grid_of(&ok(&["show", "--sgf", &out_file]));
    let mut main = game.setup.clone();
    for (_, m) in &game.moves {
        main = rules::play(&main, *m);
    }
    assert_eq!(shown, main.grid());
    (walk, text, out_file)
}

#[test]
fn export_5x4_round_trips_and_its_lines_stay_won() {
    let cert = workspace().join("certificates/5x4.cert.zst");
    let (walk, _, _) = round_trip(&cert, 4, &[]);
    assert!(walk.nodes > 100, "{} nodes", walk.nodes);
    // The winner's moves are winning: a sample of the tree's end positions, solved afresh.
    let claim = root_claim(&cert);
    let opts = amazons_solver::Options {
        hash_mib: 16,
        ..Default::default()
    };
    for (pos, _) in walk.ends.iter().step_by(25) {
        let solved = amazons_solver::solve(pos, &opts, "test").expect("solves");
        assert_eq!(solved.winner, claim.winner, "{} is not won", pos.describe());
    }
}

#[test]
fn export_of_a_sharded_result_with_transpositions_and_leaves_round_trips() {
    let tmp = TempDir::new("sgf", "sharded");
    let dir = tmp.path("4x4");
    ok(&sharded("4x4", &dir, "--threads 1 --hash 16 -q"));
    let (walk, text, _) = round_trip(&dir, 5, &[]);
    assert!(walk.nodes > 100);
    assert!(
        text.contains("found by solving"),
        "no move past a leaf was needed?"
    );
    // Without solving, lines end at the proof's leaves, with a comment saying so.
    let (_, text, _) = round_trip(&dir, 5, &["--no-solve"]);
    assert!(
        text.contains("the proof ends here in a"),
        "{}",
        &text[..400.min(text.len())]
    );
}

#[test]
fn sgf_is_accepted_where_positions_are() {
    let tmp = TempDir::new("sgf", "setup");
    // A main line on 5x4: perft, show and solve agree with --moves.
    let file = tmp.file("game.sgf");
    let start = Position::start("5x4").expect("start");
    let b = start.board;
    let moves = ["b1-b2xd2", "d4-c3xc4"];
    let mut text = String::from("(;FF[4]GM[18]SZ[5:4]");
    for (i, m) in moves.iter().enumerate() {
        let m = Move::parse(b, m).expect("move");
        let who = if i % 2 == 0 { "B" } else { "W" };
        text.push_str(&format!(";{who}[{}]", sgf::move_value(b, m)));
    }
    // The main line goes on into the first variation; the second is not played.
    text.push_str("(;B[ecedec])(;B[bcbdad]))");
    std::fs::write(&file, &text).expect("write");
    let joined = format!("{} e2-e1xe2", moves.join(" "));
    let from_sgf = ok(&["perft", "2", "--sgf", &file]);
    let from_moves = ok(&["perft", "5x4", "2", "--moves", &joined]);
    assert_eq!(
        from_sgf.stdout.lines().last(),
        from_moves.stdout.lines().last()
    );
    assert_eq!(
        grid_of(&ok(&["show", "--sgf", &file])),
        grid_of(&ok(&["show", "5x4", "--moves", &joined]))
    );
    // --moves goes on from the SGF's position.
    let more = ok(&["show", "--sgf", &file, "--moves", "a3-b3xa3"]);
    assert_eq!(
        grid_of(&more),
        grid_of(&ok(&[
            "show",
            "5x4",
            "--moves",
            &format!("{joined} a3-b3xa3")
        ]))
    );
    // Setup properties: a 4x3 position with arrows and Black (SGF's W) to move.
    let setup = tmp.file("setup.sgf");
    std::fs::write(&setup, "(;GM[18]SZ[4:3]AB[ac]AW[da]AA[bb][cb]PL[W])").expect("write");
    let shown = ok(&["show", "--sgf", &setup]);
    assert_eq!(grid_of(&shown), "...X|.##.|O...");
    assert!(shown.stdout.contains("Black to move"));
    let grid = ok(&[
        "solve",
        "--position",
        "...X|.##.|O...",
        "--to-move",
        "black",
        "-q",
        "-o",
        &tmp.file("a.cert"),
    ]);
    let sgf = ok(&["solve", "--sgf", &setup, "-q", "-o", &tmp.file("b.cert")]);
    assert_eq!(grid.stdout.lines().last(), sgf.stdout.lines().last());
    // The default 10x10 start is the tournament start.
    let std_file = tmp.file("std.sgf");
    std::fs::write(&std_file, "(;FF[4]GM[18];B[djddgd])").expect("write");
    assert_eq!(
        grid_of(&ok(&["show", "--sgf", &std_file])),
        grid_of(&ok(&["show", "standard", "--moves", "d1-d7xg7"]))
    );
}

#[test]
fn bad_sgf_is_a_usage_error() {
    let tmp = TempDir::new("sgf", "bad");
    let cases = [
        ("syntax", "(;B[aa"),
        ("not amazons", "(;GM[1]SZ[5])"),
        ("too big", "(;GM[18]SZ[11])"),
        ("bad move", "(;GM[18]SZ[5:4];B[bdbc])"),
        ("illegal", "(;GM[18]SZ[5:4];B[bdbaaa])"),
        ("wrong turn", "(;GM[18]SZ[5:4];W[bacaaa])"),
        ("off board", "(;GM[18]SZ[4]AA[ee])"),
    ];
    for (name, text) in cases {
        let file = tmp.file(&format!("{}.sgf", name.replace(' ', "_")));
        std::fs::write(&file, text).expect("write");
        for cmd in [
            vec!["show", "--sgf", &file],
            vec!["perft", "1", "--sgf", &file],
        ] {
            let out = amazons(&cmd);
            assert_eq!(out.code, 2, "{name}: {cmd:?}: {}{}", out.stdout, out.stderr);
            let lines: Vec<&str> = out.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{name}: {}", out.stderr);
            assert!(
                lines[0].starts_with("error:") && lines[0].contains(".sgf"),
                "{name}: {}",
                lines[0]
            );
            assert!(!out.stderr.contains("panicked"));
        }
    }
    let missing = tmp.file("missing.sgf");
    assert_eq!(amazons(&["show", "--sgf", &missing]).code, 2);
    assert_eq!(amazons(&["show", "5x4", "--sgf", &missing]).code, 2);
    assert_eq!(
        amazons(&["export", "/nonexistent.cert", "--sgf", &tmp.file("x.sgf")]).code,
        2
    );
}
