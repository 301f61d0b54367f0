//! Tests of the self-play test set: game generation, parsing and the committed experiment tables.

use super::*;

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The committed experiment (docs/evaluation.md). Environment: `TESTSET_GENERATE=1`
/// regenerates the games (100 per board, seed 2014); `TESTSET_BUDGET` (nodes,
/// default 20000), `TESTSET_GAMES` (games per board, default all), `TESTSET_STEP`
/// (every k-th move number, default 1), `TESTSET_GIVE_UP` (default 2; 0 never),
/// `TESTSET_BOARDS` (default `5x5,6x5,6x6`),
/// `TESTSET_OUT` (Markdown file; default stdout).
#[test]
#[ignore = "long experiment; run explicitly"]
fn selfplay_experiment() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/selfplay");
    let boards_s: String = env_or("TESTSET_BOARDS", "5x5,6x5,6x6".to_string());
    let boards: Vec<&str> = boards_s.split(',').collect();
    if env_or("TESTSET_GENERATE", 0u32) == 1 {
        generate(&dir, &boards, 100, 2014).expect("generate");
    }
    let step: usize = env_or("TESTSET_STEP", 1usize).max(1);
    let opts = TableOptions {
        node_budget: env_or("TESTSET_BUDGET", 20_000u64),
        give_up_after: match env_or("TESTSET_GIVE_UP", 2usize) {
            0 => None,
            k => Some(k),
        },
        max_games: std::env::var("TESTSET_GAMES")
            .ok()
            .and_then(|v| v.parse().ok()),
        move_numbers: (step > 1).then(|| (0..=64).rev().step_by(step).collect()),
        progress: true,
        ..TableOptions::default()
    };
    let md = report(&dir, &boards, &opts).expect("table");
    match std::env::var("TESTSET_OUT") {
        Ok(out) => write_atomic(Path::new(&out), &md).expect("write"),
        Err(_) => println!("{md}"),
    }
    assert!(!md.contains("- df-pn"), "checks failed:\n{md}");
    assert!(!md.contains(" says "), "checks failed:\n{md}");
}

#[test]
fn games_are_legal_and_finished() {
    for board in ["4x4", "5x5", "6x5"] {
        for seed in 0..4 {
            let line = self_play(board, seed).expect("board");
            let start = Position::start(board).expect("board");
            let g = Geometry::new(start.board);
            let mut pos = Pos::from_position(&start);
            for &m in &line {
                assert!(pos.is_legal(&g, m), "{board} seed {seed}");
                pos = pos.play(m);
            }
            assert!(
                !pos.can_move(&g, pos.side),
                "{board} seed {seed}: not finished"
            );
            assert!(line.len() <= g.len as usize - 8);
        }
    }
}

#[test]
fn generation_is_deterministic_and_games_differ() {
    let a = game_file_text("5x5", 6, 7).expect("gen");
    let b = game_file_text("5x5", 6, 7).expect("gen");
    assert_eq!(a, b);
    let c = game_file_text("5x5", 6, 8).expect("gen");
    assert_ne!(a, c);
    let set = parse_games(Path::new("mem"), &a).expect("parse");
    assert_eq!(set.games.len(), 6);
    let distinct: std::collections::HashSet<_> = set.games.iter().map(|g| &g.1).collect();
    assert!(distinct.len() >= 5, "games should differ");
}

#[test]
fn generate_writes_files_atomically() {
    let dir = std::env::temp_dir().join(format!("amazons-testset-{}", std::process::id()));
    let files = generate(&dir, &["4x4"], 3, 1).expect("generate");
    assert_eq!(files.len(), 1);
    let set = load(&files[0]).expect("load");
    assert_eq!(set.games.len(), 3);
    assert_eq!(set.board.to_string(), "4x4");
    let leftovers = std::fs::read_dir(&dir)
        .expect("dir")
        .filter(|e| {
            e.as_ref()
                .map(|e| e.file_name().to_string_lossy().contains(".tmp"))
                .unwrap_or(false)
        })
        .count();
    assert_eq!(leftovers, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn load_rejects_illegal_and_unfinished_games() {
    let text = "# board: 4x4\ngame 1: b1-b4xd4\n";
    assert!(matches!(
        parse_games(Path::new("x"), text),
        Err(TestsetError::IllegalMove { .. })
    ));
    let text = "# board: 4x4\ngame 1: a2-b2xb3\n";
    assert!(matches!(
        parse_games(Path::new("x"), text),
        Err(TestsetError::Unfinished { .. })
    ));
    assert!(matches!(
        parse_games(Path::new("x"), "game 1: a2-b2xb3\n"),
        Err(TestsetError::Parse { .. })
    ));
}

#[test]
fn table_on_two_games_is_consistent() {
    let dir = std::env::temp_dir().join(format!("amazons-table-{}", std::process::id()));
    let files = generate(&dir, &["4x4"], 2, 3).expect("generate");
    let set = load(&files[0]).expect("load");
    let opts = TableOptions {
        node_budget: 20_000,
        hash_mib: 4,
        give_up_after: None,
        ..TableOptions::default()
    };
    let t = run_table(&files[0], &opts).expect("table");
    assert!(t.clean(), "{}", t.to_markdown());
    assert_eq!(t.games, 2);
    let longest = set.games.iter().map(|g| g.1.len()).max().unwrap_or(0);
    assert_eq!(t.rows.len(), longest + 1);
    for r in &t.rows {
        let expect = set
            .games
            .iter()
            .filter(|g| g.1.len() >= r.move_number)
            .count();
        assert_eq!(r.total, expect);
        assert!(r.static_solved.iter().all(|&c| c <= r.total));
        assert!(r.dfpn.iter().all(|d| d.solved <= r.total));
        // Full evaluation decides at least what no evaluation decides.
        assert!(r.static_solved[1] >= r.static_solved[0]);
        assert!(r.known <= r.total && r.mover_wins <= r.known);
    }
    // 4x4 is small: df-pn with the full evaluation solves everything.
    assert!(t.rows.iter().all(|r| r.dfpn[1].solved == r.total));
    // The final positions are terminal: decided statically by every configuration.
    let last = t.rows.first().expect("rows");
    assert!(last.static_solved.iter().all(|&c| c == last.total));
    assert!(t.to_markdown().contains("0 disagreements"));
    let _ = std::fs::remove_dir_all(&dir);
}
