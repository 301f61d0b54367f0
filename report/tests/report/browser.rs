//! The report in a real headless Chromium (ignored by default: needs Debian's `chromium`;
//! `.ci/run` installs it and runs `cargo test --release -p amazons-report -- --ignored`).
//!
//! Chromium loads `index.html#m=...` from disk, runs the page's JavaScript (which loads
//! the data scripts it needs) and dumps the DOM; the boards drawn there are compared cell
//! by cell with the positions the checker's rules compute. Screenshots go to
//! `target/report-screenshots/`.

use amazons_checker::rules;
use amazons_format::{stored, Action, Position, Step};
use amazons_report::model::Leaf;
use amazons_report::walk::Edge;
use amazons_report::{build, edge_label, html, Options, Report};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The Chromium binary: `$AMAZONS_CHROMIUM`, else `chromium` (Debian) or `chromium-browser` on the PATH.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("AMAZONS_CHROMIUM") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            if dir.join(name).is_file() {
                return dir.join(name);
            }
        }
    }
    panic!("chromium not found: install it (apt-get install chromium) or set AMAZONS_CHROMIUM");
}

/// The workspace's target directory (the test binary lives in target/PROFILE/deps).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.ancestors()
        .nth(3)
        .expect("the test binary lives in target/PROFILE/deps")
        .to_path_buf()
}

/// Runs headless Chromium on `url` with `extra` arguments; returns stdout and the wall time.
fn chromium_run(url: &str, extra: &[&str]) -> (String, Duration) {
    let profile = crate::scratch("chromium-profile");
    let start = Instant::now();
    let mut child = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--window-size=1280,1700",
            "--virtual-time-budget=15000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let mut stdout = child.stdout.take().expect("chromium's stdout is piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).expect("chromium's output reads");
        s
    });
    loop {
        if child.try_wait().expect("chromium's status").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            panic!("chromium did not finish {url} in 180 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = reader.join().expect("the output reader thread");
    let took = start.elapsed();
    let _ = std::fs::remove_dir_all(&profile);
    (out, took)
}

/// The report's page with the URL fragment `#hash`.
fn url_hash(dir: &Path, hash: &str) -> String {
    let index = dir
        .join("index.html")
        .canonicalize()
        .expect("the report's index.html exists");
    format!("file://{}#{hash}", index.display())
}

/// The page showing the position after the moves in `fragment` (`#m=m1,m2,...`).
fn url(dir: &Path, fragment: &str) -> String {
    url_hash(dir, &format!("m={fragment}"))
}

/// The DOM once the page shows `ready` (the moves from the root, comma-separated).
fn dump_hash(dir: &Path, hash: &str, ready: &str) -> String {
    let dom = chromium_run(&url_hash(dir, hash), &["--dump-dom"]).0;
    assert!(dom.contains("<html"), "no DOM dumped for #{hash}");
    assert!(
        dom.contains(&format!("data-ready=\"{ready}\"")),
        "the page did not finish rendering #{hash}: {}",
        error_text(&dom)
    );
    dom
}

/// The DOM of the page opened at `#m=fragment`.
fn dump(dir: &Path, fragment: &str) -> String {
    dump_hash(dir, &format!("m={fragment}"), fragment)
}

/// The DOM after the page, opened at the root, had the links of `moves` clicked one after
/// another (its `#click=` fragment: the page clicks the links itself).
fn dump_clicks(dir: &Path, moves: &str) -> String {
    dump_hash(dir, &format!("click={moves}"), moves)
}

fn error_text(dom: &str) -> String {
    dom.split("class=\"error\">")
        .nth(1)
        .map(|s| s.split('<').next().unwrap_or("").to_string())
        .unwrap_or_else(|| "no error shown".to_string())
}

fn screenshot(dir: &Path, fragment: &str, name: &str) -> PathBuf {
    let shots = target_dir().join("report-screenshots");
    std::fs::create_dir_all(&shots).expect("the screenshot directory can be made");
    let file = shots.join(name);
    let _ = std::fs::remove_file(&file);
    let (_, took) = chromium_run(
        &url(dir, fragment),
        &[&format!("--screenshot={}", file.display())],
    );
    assert!(
        std::fs::metadata(&file)
            .expect("chromium wrote the screenshot")
            .len()
            > 10_000,
        "{}",
        file.display()
    );
    println!(
        "screenshot: {} ({:.1} s)",
        file.display(),
        took.as_secs_f64()
    );
    file
}

/// The cells of the browser's board (`<div id="board">`), as `(square, character)`.
fn board_cells(dom: &str) -> Vec<(String, char)> {
    let start = dom
        .find("id=\"board\"")
        .expect("a board in the browser view");
    let end = start
        + dom[start..]
            .find("</svg>")
            .expect("the board ends with </svg>");
    dom[start..end]
        .split("data-sq=\"")
        .skip(1)
        .map(|s| {
            let sq = s.split('"').next().expect("data-sq is quoted").to_string();
            let c = s
                .split("data-c=\"")
                .nth(1)
                .and_then(|c| c.chars().next())
                .expect("each cell has data-c");
            (sq, c)
        })
        .collect()
}

/// The cells of `pos` in the same form.
fn cells_of(pos: &Position) -> Vec<(String, char)> {
    let (w, h) = (pos.board.width as usize, pos.board.height as usize);
    let mut out = Vec::new();
    for y in (0..h).rev() {
        for x in 0..w {
            let sq = pos.board.square(x, y);
            out.push((pos.board.square_name(sq), pos.cells[sq as usize].to_char()));
        }
    }
    out
}

fn write_report(input: &Path, name: &str, check: bool) -> (Report, PathBuf) {
    let opts = Options {
        check,
        ..Options::default()
    };
    let start = Instant::now();
    let report = build(input, &opts).expect("the report builds");
    let out = target_dir().join("report-test").join(name);
    html::write(&report, &out).expect("the report is written");
    let bytes: u64 = std::fs::read_dir(out.join("data"))
        .expect("the report's data directory")
        .flatten()
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum::<u64>()
        + std::fs::metadata(out.join("index.html")).map_or(0, |m| m.len());
    println!(
        "report {name}: {} in {:.1} s, {} bytes, {} certificate files",
        out.display(),
        start.elapsed().as_secs_f64(),
        bytes,
        report.files.len()
    );
    (report, out)
}

/// The first move of a certificate file, read from its first step.
fn first_choice(path: &Path) -> (Position, amazons_format::Move) {
    let cert = stored::read(path)
        .ok()
        .and_then(|b| amazons_format::decode(&b).ok())
        .expect("the certificate reads and decodes");
    let Step::Choice(Action::Board(m)) = cert.steps[0] else {
        panic!("{} does not start with a Choice", path.display());
    };
    (cert.root.position, m)
}

#[test]
#[ignore = "needs chromium (apt-get install chromium); run with --ignored"]
fn five_by_four_report_in_chromium() {
    let input = crate::certificates().join("5x4.cert.zst");
    let (report, dir) = write_report(&input, "5x4", true);
    let (root, first) = first_choice(&input);
    let board = root.board;
    let first_text = first.notation(board);
    assert_eq!(first_text, "b1-b2xd2");
    // The start page: the header's first move and the browser's one child, drawn by JS.
    let dom = dump(&dir, "");
    assert!(dom.contains(&format!(">{first_text}</a></figcaption>")));
    assert!(
        dom.contains(&format!("data-move=\"{first_text}\"")),
        "the browser lists {first_text}"
    );
    assert!(dom.contains("class=\"ok\" id=\"verdict\">verified"));
    assert_eq!(board_cells(&dom), cells_of(&root));
    // One ply: the position after b1-b2xd2, every Black reply listed.
    let after = rules::play(&root, first);
    let dom = dump(&dir, &first_text);
    assert_eq!(board_cells(&dom), cells_of(&after));
    let replies = rules::legal_moves(&after);
    for m in &replies {
        assert!(dom.contains(&format!("data-move=\"{}\"", m.notation(board))));
    }
    // Two plies, clicked: the reply with the largest subproof, and White's answer listed.
    let file = report.root();
    let reply_node = file.nodes[0].first_child.unwrap();
    let first_reply = file.nodes[reply_node].first_child.unwrap();
    let pick = (first_reply..first_reply + replies.len())
        .max_by_key(|&i| file.nodes[i].size)
        .unwrap();
    let Edge::Action(Action::Board(reply)) = file.nodes[pick].edge else {
        panic!("a reply is a board move");
    };
    let fragment = format!("{first_text},{}", reply.notation(board));
    let dom = dump_clicks(&dir, &fragment);
    assert_eq!(board_cells(&dom), cells_of(&rules::play(&after, reply)));
    assert!(dom.contains(&format!("data-path=\"{fragment}\"")));
    let answer = file.nodes[pick].choice.unwrap().notation(board);
    assert!(
        dom.contains(&format!("data-move=\"{answer}\"")),
        "White's answer {answer} listed"
    );
    // The same position opened by its address; a move that is not there is reported.
    let direct = dump(&dir, &fragment);
    assert_eq!(board_cells(&direct), board_cells(&dom));
    let dom = chromium_run(&url(&dir, "a1-a1xa1"), &["--dump-dom"]).0;
    assert!(dom.contains("no child a1-a1xa1 here"));
    let dom = chromium_run(&url_hash(&dir, "click=a1-a1xa1"), &["--dump-dom"]).0;
    assert!(dom.contains("no link a1-a1xa1 to click"));
    // A transposition leaf: its link leads to the proof of the claim it cites, whose
    // board is the leaf's position mapped by the symmetry.
    let (leaf, cited, node) = file
        .nodes
        .iter()
        .enumerate()
        .find_map(|(i, n)| match &n.leaf {
            Some(Leaf::Transposition {
                cited,
                node: Some(c),
                ..
            }) => Some((i, cited.clone(), *c)),
            _ => None,
        })
        .expect("a kept transposition citing a kept node");
    let dom = dump(&dir, &report.path(0, leaf).join(","));
    assert!(dom.contains("<h4>Transposition</h4>"));
    let href = dom
        .split("id=\"citelink\" href=\"#m=")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .expect("a link to the cited claim's proof");
    assert_eq!(href, report.path(0, node).join(","));
    assert_eq!(board_cells(&dump(&dir, href)), cells_of(&cited));
    screenshot(&dir, &fragment, "5x4.png");
    screenshot(&dir, "", "5x4-start.png");
}

#[test]
#[ignore = "needs chromium (apt-get install chromium); run with --ignored"]
fn five_by_six_report_in_chromium() {
    let input = crate::certificates().join("5x6");
    let (report, dir) = write_report(&input, "5x6", false);
    let (root, first) = first_choice(&input.join("manifest.cert.zst"));
    let board = root.board;
    let first_text = first.notation(board);
    let (dom, took) = chromium_run(&url(&dir, ""), &["--dump-dom"]);
    println!(
        "5x6 start page: chromium ran {:.1} s (start-up included)",
        took.as_secs_f64()
    );
    assert!(dom.contains("data-ready=\"\""), "{}", error_text(&dom));
    assert!(dom.contains(&format!("data-move=\"{first_text}\"")));
    assert!(dom.contains("id=\"verdict\">not checked"));
    assert!(dom.contains(&format!("Shards ({})", report.files.len() - 1)));
    // Into a shard: the first reply proven by a shard, two plies from the root.
    let file = report.root();
    let replies = file.nodes[file.nodes[0].first_child.unwrap()]
        .first_child
        .unwrap();
    let shard_reply = (replies..file.nodes.len())
        .find(|&i| file.nodes[i].kind == 6)
        .expect("a reply proven by a shard");
    let reply_label = edge_label(file.nodes[shard_reply].edge, board).unwrap();
    let Edge::Action(Action::Board(reply)) = file.nodes[shard_reply].edge else {
        panic!("a reply is a board move");
    };
    let fragment = format!("{first_text},{reply_label}");
    let start = Instant::now();
    let dom = dump_clicks(&dir, &fragment);
    println!(
        "5x6 shard page: chromium ran {:.1} s (start-up included)",
        start.elapsed().as_secs_f64()
    );
    let expected = rules::play(&rules::play(&root, first), reply);
    assert_eq!(board_cells(&dom), cells_of(&expected));
    assert!(dom.contains("In shard <code>"));
    // The shard's own winning move is listed there.
    let Some(Leaf::Shard { hash }) = file.nodes[shard_reply].leaf else {
        panic!("a Shard leaf is drawn as one");
    };
    let shard_file = report
        .files
        .iter()
        .find(|f| f.hash == hash)
        .expect("the shard of that reply");
    assert_eq!(shard_file.root.position, expected);
    let answer = shard_file.nodes[0].choice.unwrap().notation(board);
    assert!(dom.contains(&format!("data-move=\"{answer}\"")));
    screenshot(&dir, "", "5x6.png");
    screenshot(&dir, &format!("{fragment},{answer}"), "5x6-shard.png");
}
