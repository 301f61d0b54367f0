//! `amazons play`: whole games against certificates, through pipes (random legal moves of the
//! losing side, many games) and through a pseudo-terminal (tmux); the program must win them all.

use crate::common::{workspace, TempDir, EXE};
use amazons_checker::rules;
use amazons_format::{Color, Move, Position};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A hang guard only (no test asserts on time): a reply that takes longer fails the test.
const PATIENCE: Duration = Duration::from_secs(120);

/// splitmix64, seeded, so every game is reproducible.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The root claim's position and winner of a certificate file or sharded directory.
fn root_of(cert: &Path) -> (Position, Color) {
    let file = if cert.is_dir() {
        let plain = cert.join("manifest.cert");
        if plain.exists() {
            plain
        } else {
            cert.join("manifest.cert.zst")
        }
    } else {
        cert.to_path_buf()
    };
    let bytes = amazons_format::stored::read(&file).expect("certificate readable");
    let c = amazons_format::decode(&bytes).expect("certificate decodes");
    (c.root.position, c.root.winner)
}

/// The program's moves in `text` since `from`: lines `<winner> plays <move>`.
fn program_moves(text: &str, winner: Color) -> Vec<String> {
    let tag = format!("{winner} plays ");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(tag.as_str()).map(str::to_string))
        .collect()
}

/// One game through pipes: the losing side plays random legal moves (sometimes after a
/// malformed or an illegal line, which must get a message and a new prompt). Returns the
/// final position and the whole output.
fn pipe_game(cert: &Path, seed: u64) -> (Position, Color, String) {
    let (mut pos, winner) = root_of(cert);
    let loser = winner.opponent();
    let mut child = Command::new(EXE)
        .args(["play", cert.to_str().expect("utf-8 path"), "--hash", "16"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("amazons runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let prompt = format!("your move ({loser})> ");
    let mut all = String::new();
    let mut seen = 0; // program moves applied so far
    let mut rng = Rng(seed);
    let mut expected = 1; // prompts the program owes so far
    let mut chunk_start = 0;
    loop {
        // Wait for the prompts owed (each line sent is answered with one), or for the end.
        let ended = loop {
            if all.matches(&prompt).count() >= expected && all.ends_with(&prompt) {
                break false;
            }
            match rx.recv_timeout(PATIENCE) {
                Ok(chunk) => all.push_str(&chunk),
                Err(mpsc::RecvTimeoutError::Disconnected) => break true,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("no prompt within the guard:\n{all}")
                }
            }
        };
        let answer = &all[chunk_start..];
        if answer.contains("zz9") || answer.matches("> ").count() > 1 {
            // A bad line was sent: it must have been answered with a message.
            assert!(
                answer.contains("not a move:") || answer.contains("illegal move "),
                "a bad line got no message:\n{answer}"
            );
        }
        let moves = program_moves(&all, winner);
        for m in &moves[seen..] {
            let m = Move::parse(pos.board, m).expect("the program's move parses");
            assert_eq!(pos.to_move, winner, "the program moved out of turn:\n{all}");
            assert!(rules::is_legal(&pos, m), "illegal program move:\n{all}");
            pos = rules::play(&pos, m);
        }
        seen = moves.len();
        if ended {
            break;
        }
        chunk_start = all.len();
        assert_eq!(pos.to_move, loser, "prompted out of turn:\n{all}");
        let legal = rules::legal_moves(&pos);
        assert!(!legal.is_empty(), "prompted without a legal move:\n{all}");
        let mut line = String::new();
        match rng.below(8) {
            0 => line.push_str("zz9\n"),
            1 => {
                // An illegal move: a legal one with the arrow shot onto a queen of the winner.
                let w = amazons_format::Cell::queen(winner);
                if let Some(sq) = pos.cells.iter().position(|&c| c == w) {
                    let m = Move {
                        arrow: sq as u8,
                        ..legal[0]
                    };
                    line.push_str(&format!("{}\n", m.notation(pos.board)));
                }
            }
            _ => {}
        }
        let m = legal[rng.below(legal.len())];
        line.push_str(&format!("{}\n", m.notation(pos.board)));
        expected += line.lines().count();
        if stdin.write_all(line.as_bytes()).is_err() {
            break;
        }
        pos = rules::play(&pos, m);
    }
    drop(stdin);
    let status = child.wait().expect("amazons ends");
    let _ = reader.join();
    let mut stats = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stats);
    }
    assert!(status.success(), "exit {status:?}:\n{all}\n{stats}");
    (pos, winner, all + &stats)
}

/// The count after `label: ` in the program's closing statistics line.
fn stat(out: &str, label: &str) -> u64 {
    out.lines()
        .filter_map(|l| l.split(&format!("{label}: ")).nth(1))
        .filter_map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .next_back()
        .unwrap_or_else(|| panic!("no {label:?} count in:\n{out}"))
}

/// Plays `games` random games and asserts the program won each; returns the totals of
/// shards entered, transpositions followed and moves found by solving.
fn program_always_wins(cert: &Path, games: u64) -> [u64; 3] {
    let mut totals = [0; 3];
    for seed in 0..games {
        let (pos, winner, out) = pipe_game(cert, 1000 + seed);
        let loser = winner.opponent();
        assert_eq!(
            pos.to_move, loser,
            "game {seed} ended with the winner to move:\n{out}"
        );
        assert!(
            rules::legal_moves(&pos).is_empty(),
            "game {seed}: the loser still has moves:\n{out}"
        );
        assert!(
            out.contains(&format!("{loser} has no move: {winner} wins.")),
            "game {seed}: no verdict:\n{out}"
        );
        totals[0] += stat(&out, "shards entered");
        totals[1] += stat(&out, "transpositions followed");
        totals[2] += stat(&out, "found by solving");
    }
    totals
}

#[test]
fn random_losing_moves_against_5x4_always_lose() {
    let [_, _, solved] = program_always_wins(&workspace().join("certificates/5x4.cert.zst"), 12);
    // The 5x4 proof ends in leaves after a few plies: the games went on by solving.
    assert!(solved > 0);
}

#[test]
fn random_losing_moves_against_a_sharded_4x4_always_lose() {
    // One task per White first move; the mirror images are transpositions in the manifest.
    let tmp = TempDir::new("play", "sharded");
    let dir = tmp.0.join("4x4");
    let out = Command::new(EXE)
        .args([
            "solve",
            "4x4",
            "--shards",
            dir.to_str().expect("utf-8"),
            "--threads",
            "1",
        ])
        .args(["--hash", "16", "-q"])
        .output()
        .expect("amazons runs");
    assert!(out.status.success(), "{out:?}");
    let [shards, transpositions, _] = program_always_wins(&dir, 12);
    assert!(
        shards > 0 && transpositions > 0,
        "{shards} {transpositions}"
    );
    // Without its shard files the certificate cannot be followed past the manifest: the
    // program says so and wins by solving.
    for entry in std::fs::read_dir(dir.join("shards")).expect("shards") {
        std::fs::remove_file(entry.expect("entry").path()).expect("remove");
    }
    for seed in 0..3 {
        let (pos, winner, out) = pipe_game(&dir, 50 + seed);
        assert!(
            out.contains("the certificate cannot be followed here"),
            "{out}"
        );
        assert_eq!(pos.to_move, winner.opponent());
        assert!(rules::legal_moves(&pos).is_empty(), "{out}");
    }
}

#[test]
fn random_losing_moves_against_the_committed_sharded_results_lose() {
    // 5x6 and 4x7: White wins with a fixed first move, one shard per Black reply; 6x4:
    // Black refutes every White first move (mirror images by transposition).
    for name in ["5x6", "6x4", "4x7"] {
        let dir = workspace().join("certificates").join(name);
        if !dir.join("manifest.cert.zst").exists() && !dir.join("manifest.cert").exists() {
            panic!("certificates/{name} has no manifest");
        }
        let [shards, _, _] = program_always_wins(&dir, 2);
        assert!(shards >= 2, "certificates/{name}: {shards} shards entered");
    }
}

#[test]
fn quit_and_end_of_input_stop_cleanly() {
    let cert = workspace().join("certificates/5x4.cert.zst");
    for input in ["quit\n", "", "b1-b2xd2\nquit\n"] {
        let mut child = Command::new(EXE)
            .args(["play", cert.to_str().expect("utf-8")])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("amazons runs");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write");
        let out = child.wait_with_output().expect("amazons ends");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{input:?}: {out:?}");
        assert!(text.contains("game left unfinished"), "{input:?}: {text}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
}

#[test]
fn a_missing_certificate_is_a_usage_error() {
    let out = Command::new(EXE)
        .args(["play", "/nonexistent/x.cert"])
        .output()
        .expect("amazons runs");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error:"));
}

/// tmux on its own socket (so no user's server is touched).
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        let out = self.cmd(&["capture-pane", "-p", "-J", "-S", "-", "-t", "game"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

#[test]
fn a_whole_5x4_game_through_a_pseudo_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        eprintln!(
            "SKIPPED: tmux is not installed (apt-get install tmux); the pty game was not played"
        );
        return;
    }
    let cert = workspace().join("certificates/5x4.cert.zst");
    let (mut pos, winner) = root_of(&cert);
    let loser = winner.opponent();
    let tmux = Tmux {
        socket: format!("amazons-play-test-{}", std::process::id()),
    };
    let script = format!(
        "'{EXE}' play '{}' --hash 16; echo \"play exit status $?\"; sleep 600",
        cert.display()
    );
    let started = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "game",
        "-x",
        "120",
        "-y",
        "50",
        &script,
    ]);
    assert!(started.status.success(), "{started:?}");
    let _ = tmux.cmd(&["set-option", "-t", "game", "history-limit", "100000"]);
    let prompt = format!("your move ({loser})>");
    let mut prompts = 0;
    let mut seen = 0;
    let mut rng = Rng(7);
    let screen = loop {
        // Wait until a new prompt shows, or the program has ended.
        let mut waited = Duration::ZERO;
        let screen = loop {
            let s = tmux.screen();
            if s.matches(&prompt).count() > prompts || s.contains("play exit status") {
                break s;
            }
            assert!(waited < PATIENCE, "no prompt on the terminal:\n{s}");
            std::thread::sleep(Duration::from_millis(50));
            waited += Duration::from_millis(50);
        };
        let moves = program_moves(&screen, winner);
        for m in &moves[seen..] {
            let m = Move::parse(pos.board, m).expect("the program's move parses");
            assert!(rules::is_legal(&pos, m), "illegal program move:\n{screen}");
            pos = rules::play(&pos, m);
        }
        seen = moves.len();
        if screen.contains("play exit status") {
            break screen;
        }
        prompts = screen.matches(&prompt).count();
        // The board is drawn with coordinates before each prompt.
        assert!(screen.contains("    a b c d e"), "{screen}");
        let legal = rules::legal_moves(&pos);
        let m = legal[rng.below(legal.len())];
        let sent = tmux.cmd(&["send-keys", "-t", "game", &m.notation(pos.board), "Enter"]);
        assert!(sent.status.success());
        pos = rules::play(&pos, m);
    };
    assert!(screen.contains("play exit status 0"), "{screen}");
    assert!(
        screen.contains(&format!("{loser} has no move: {winner} wins.")),
        "{screen}"
    );
    assert_eq!(pos.to_move, loser);
    assert!(rules::legal_moves(&pos).is_empty(), "{screen}");
}
