//! Writing a report directory: `index.html` (inline CSS and JavaScript, header, boards, statistics) and `data/fFpK.js`, the browser's pages of nodes; written beside the target and renamed into place.

use crate::model::{Leaf, Node};
use crate::walk::{Edge, KINDS};
use crate::{edge_label, load::hex, side, svg, Report, ReportError, Verdict};
use amazons_format::{Action, Board, Move};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// HTML-escapes text.
pub fn esc(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn squares(m: Move) -> Value {
    json!([m.from, m.to, m.arrow])
}

/// A node as the browser reads it: `[parent, label, kind, size, total, firstChild,
/// childCount, move, extra]` (-1 for none; `move` is `[from, to, arrow]` or 0; `extra`
/// holds the side to move `w`, the spare `sp`, a position `p` that does not follow from a
/// move, the action `a` of a Choice, and the leaf's drawing: `o` outlast, `u` sum, `t`
/// transposition, `h` shard file).
fn node_json(node: &Node, board: Board, hash_file: &dyn Fn(&[u8; 32]) -> Option<usize>) -> Value {
    let mv = match node.edge {
        Edge::Action(Action::Board(m)) => squares(m),
        _ => json!(0),
    };
    let mut extra = serde_json::Map::new();
    extra.insert("w".into(), json!(side(node.to_move)));
    if node.spare != 0 {
        extra.insert("sp".into(), json!(node.spare));
    }
    if let Some(a) = node.choice {
        extra.insert("a".into(), json!(a.notation(board)));
    }
    if let Some(p) = &node.local {
        extra.insert("p".into(), json!(p.grid()));
    }
    match &node.leaf {
        Some(Leaf::Outlast(o)) => {
            let r: Vec<Value> = o
                .region
                .iter()
                .map(|p| json!([p.squares, p.empties, p.exact.map_or(-1, i64::from)]))
                .collect();
            let m: Vec<Value> = o.moves.iter().map(|&m| squares(m)).collect();
            extra.insert(
                "o".into(),
                json!({"m": m, "r": r, "b": o.bound, "x": o.x, "y": o.y, "wm": o.winner_to_move}),
            );
        }
        Some(Leaf::Sum { parts, s }) => {
            let c: Vec<Value> = parts
                .iter()
                .map(|(sq, bound, strict)| json!([sq, bound, strict]))
                .collect();
            extra.insert("u".into(), json!({"c": c, "s": s}));
        }
        Some(Leaf::Transposition {
            symmetry,
            cited,
            node,
        }) => {
            extra.insert(
                "t".into(),
                json!({"y": format!("{symmetry:?}"), "p": cited.grid(), "n": node.map_or(-1, |n| n as i64)}),
            );
        }
        Some(Leaf::Shard { hash }) => {
            if let Some(f) = hash_file(hash) {
                extra.insert("h".into(), json!(f));
            }
        }
        Some(Leaf::NoMove | Leaf::Search) | None => {}
    }
    let opt = |v: Option<usize>| v.map_or(-1, |v| v as i64);
    json!([
        opt(node.parent),
        edge_label(node.edge, board).unwrap_or_default(),
        node.kind,
        node.size,
        node.total,
        opt(node.first_child),
        node.child_count,
        mv,
        Value::Object(extra)
    ])
}

fn summary_json(report: &Report) -> Value {
    let root = report.root();
    let files: Vec<Value> = report
        .files
        .iter()
        .map(|f| {
            json!({
                "n": f.name,
                "s": f.steps,
                "t": f.total,
                "k": f.nodes.len(),
                "p": f.root.position.grid(),
                "win": f.root.winner.name(),
                "by": f.cited_by.map(|(file, node)| json!([file, node.map_or(-1, |n| n as i64)])),
            })
        })
        .collect();
    json!({
        "w": root.root.position.board.width,
        "h": root.root.position.board.height,
        "page": report.options.page_nodes.max(1),
        "files": files,
    })
}

fn write_file(path: &Path, text: &str) -> Result<(), ReportError> {
    std::fs::write(path, text).map_err(|e| ReportError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Whether `out` may be written: it does not exist, or is an empty directory or a report
/// (holds `index.html`), which is then replaced. Anything else is left alone.
pub fn check_target(out: &Path) -> Result<(), ReportError> {
    if !out.exists() {
        return Ok(());
    }
    let empty = || std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_none());
    if out.is_dir() && (out.join("index.html").is_file() || empty()) {
        return Ok(());
    }
    Err(ReportError::Output {
        path: out.to_path_buf(),
        reason: "exists and is not a report directory (no index.html); not replaced".to_string(),
    })
}

/// Writes the report to the directory `out`: built in a temporary directory beside it,
/// then renamed into place (an existing report there is replaced; any other existing
/// path is left alone and is an error).
pub fn write(report: &Report, out: &Path) -> Result<(), ReportError> {
    let err = |path: &Path, e: std::io::Error| ReportError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    check_target(out)?;
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| ReportError::Output {
            path: out.to_path_buf(),
            reason: "not a directory name".to_string(),
        })?;
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| err(&parent, e))?;
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(|e| err(&tmp, e))?;
    }
    let result = fill(report, &tmp).and_then(|()| {
        if out.exists() {
            let old = parent.join(format!(".{name}.old-{}", std::process::id()));
            std::fs::rename(out, &old).map_err(|e| err(out, e))?;
            std::fs::rename(&tmp, out).map_err(|e| err(out, e))?;
            std::fs::remove_dir_all(&old).map_err(|e| err(&old, e))
        } else {
            std::fs::rename(&tmp, out).map_err(|e| err(out, e))
        }
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}

/// Writes every file of the report into the fresh directory `dir`.
fn fill(report: &Report, dir: &Path) -> Result<(), ReportError> {
    let data = dir.join("data");
    std::fs::create_dir_all(&data).map_err(|e| ReportError::Output {
        path: data.clone(),
        reason: e.to_string(),
    })?;
    let board = report.root().root.position.board;
    let index: std::collections::HashMap<[u8; 32], usize> = report
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.hash, i))
        .collect();
    let hash_file = |h: &[u8; 32]| index.get(h).copied();
    let per_page = report.options.page_nodes.max(1);
    for (f, file) in report.files.iter().enumerate() {
        for (k, chunk) in file.nodes.chunks(per_page).enumerate() {
            let nodes: Vec<Value> = chunk
                .iter()
                .map(|n| node_json(n, board, &hash_file))
                .collect();
            let text = format!("AMZ.page({f},{k},{});\n", Value::Array(nodes));
            write_file(&data.join(format!("f{f}p{k}.js")), &text)?;
        }
    }
    write_file(&dir.join("index.html"), &index_html(report))
}

fn verdict_html(v: &Verdict) -> String {
    match v {
        Verdict::NotChecked => {
            r#"<span class="unchecked" id="verdict">not checked</span> (made with <code>--no-check</code>; run <code>amazons check</code> on the certificate)"#.to_string()
        }
        Verdict::Verified(line) => format!(r#"<span class="ok" id="verdict">{}</span>"#, esc(line)),
        Verdict::Wrong(msg) => format!(
            r#"<span class="bad" id="verdict">rejected</span><pre>{}</pre>"#,
            esc(msg)
        ),
    }
}

fn index_html(report: &Report) -> String {
    let root = report.root();
    let claim = root.root.describe();
    let board = root.root.position.board;
    let mut h = String::new();
    let _ = write!(
        h,
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title><style>{CSS}</style></head><body>
<h1>{title}</h1><table class="head" id="header">
<tr><td>claim</td><td id="claimtext">{claim}</td></tr>
<tr><td>certificate</td><td><code>{file}</code>{shards}</td></tr>
<tr><td>blake3 (body)</td><td class="hash" id="hash">{hash}</td></tr>
<tr><td>checker</td><td>{verdict}</td></tr>
<tr><td>steps</td><td>{steps} in this file, {total} in all</td></tr>
<tr><td>producer</td><td>{producer}</td></tr></table>"#,
        title = esc(&format!(
            "Amazons {board}: {}",
            root.root.winner.name().to_owned() + " wins"
        )),
        claim = esc(&claim),
        file = esc(&report.input.display().to_string()),
        shards = if report.files.len() > 1 {
            format!(" with {} shards", report.files.len() - 1)
        } else {
            String::new()
        },
        hash = hex(&root.hash),
        verdict = verdict_html(&report.verdict),
        steps = thousands(root.steps),
        total = thousands(report.total_steps()),
        producer = esc(&format!(
            "{} ({} nodes, {} ms) {}",
            root.meta.producer,
            thousands(root.meta.nodes),
            thousands(root.meta.millis),
            root.meta.note
        )),
    );
    // Boards: the root and the winning first move.
    h.push_str(r#"<h2>Boards</h2><div class="boards"><figure>"#);
    h.push_str(&svg::board(&root.root.position, None, "rootboard"));
    let _ = write!(
        h,
        "<figcaption>The root: {}</figcaption></figure>",
        esc(&root.root.position.describe())
    );
    match report.first_move() {
        Some(m) => {
            let after = amazons_checker::rules::play(&root.root.position, m);
            h.push_str(r#"<figure>"#);
            h.push_str(&svg::board(&after, Some(m), "firstboard"));
            let _ = write!(
                h,
                r##"<figcaption>The winning first move <a id="firstmove" href="#m={n}">{n}</a></figcaption></figure>"##,
                n = m.notation(board)
            );
        }
        None => {
            let _ = write!(
                h,
                "<p>{} is to move and loses: every move is refuted in the proof below.</p>",
                root.root.position.to_move
            );
        }
    }
    h.push_str("</div>");
    let _ = write!(
        h,
        r#"<h2>Proof tree</h2><p>Click a move to see the position after it (the queen's path in blue, the arrow's shot in red). Each child is listed with the size of its subproof (steps, the shards it cites included). The first {} nodes of each certificate file (breadth first) are kept; the URL fragment <code>#m=move,move,...</code> names the position shown.</p><section id="view"><p>Loading...</p></section>"#,
        report.options.max_nodes
    );
    h.push_str(&stats_html(report));
    let _ = writeln!(
        h,
        "<p class=\"more\">Made by <code>amazons report</code>. Needs no server: the data files in <code>data/</code> are loaded as scripts when the browser reaches them.</p><script>window.AMZ_SUMMARY={};</script><script>{JS}</script></body></html>",
        // `</` inside a script element would end it early.
        summary_json(report).to_string().replace("</", "<\\/")
    );
    h
}

fn stats_html(report: &Report) -> String {
    let mut h =
        String::from(r#"<h2>Statistics</h2><div class="stats"><div><h4>Steps by rule</h4>"#);
    let rules: Vec<(String, u64)> = KINDS
        .iter()
        .zip(report.rules)
        .map(|(k, n)| (k.to_string(), n))
        .collect();
    h.push_str(&svg::bars(&rules, "rulechart"));
    h.push_str("</div><div><h4>Steps by depth (plies and sum parts from the root)</h4>");
    let depths: Vec<(String, u64)> = report
        .depths
        .iter()
        .enumerate()
        .map(|(d, &n)| (format!("depth {d}"), n))
        .collect();
    h.push_str(&svg::bars(&depths, "depthchart"));
    h.push_str("</div>");
    // The largest subtrees: the children of the first node with more than one child.
    let root = report.root();
    let mut at = 0usize;
    while let Some(node) = root.nodes.get(at) {
        match node.first_child {
            Some(first) if node.child_count == 1 => at = first,
            _ => break,
        }
    }
    if let Some(node) = root.nodes.get(at) {
        if let Some(first) = node.first_child {
            let mut kids: Vec<usize> = (first..first + node.child_count).collect();
            kids.sort_by_key(|&i| std::cmp::Reverse(root.nodes[i].total));
            kids.truncate(25);
            let rows: Vec<(String, u64)> = kids
                .iter()
                .map(|&i| {
                    let label = edge_label(root.nodes[i].edge, root.root.position.board)
                        .unwrap_or_default();
                    (label, root.nodes[i].total)
                })
                .collect();
            let _ = write!(
                h,
                "<div><h4>The largest subtrees: the {} largest of the {} children at <code>{}</code></h4>",
                rows.len(),
                node.child_count,
                esc(&display_path(&report.path(0, at)))
            );
            h.push_str(&svg::bars(&rows, "largestchart"));
            h.push_str("<p>");
            for &i in &kids {
                let path = report.path(0, i);
                let label = path.last().cloned().unwrap_or_default();
                let _ = write!(
                    h,
                    r##"<a class="mv" href="#m={}">{}</a> "##,
                    esc(&path.join(",")),
                    esc(&label)
                );
            }
            h.push_str("</p></div>");
        }
    }
    h.push_str("</div>");
    if report.files.len() > 1 {
        let max = report
            .files
            .iter()
            .skip(1)
            .map(|f| f.total)
            .max()
            .unwrap_or(1)
            .max(1);
        let _ = write!(
            h,
            r#"<h3>Shards ({})</h3><div class="scroll"><table id="shards"><tr><th>shard</th><th>where</th><th>winner</th><th class="num">steps</th><th class="num">with its shards</th><th></th><th class="num">stored bytes</th><th>blake3</th></tr>"#,
            report.files.len() - 1
        );
        for (f, file) in report.files.iter().enumerate().skip(1) {
            let path = match file.cited_by {
                Some((_, Some(_))) => {
                    let path = report.path(f, 0);
                    format!(
                        r##"<a href="#m={}">{}</a>"##,
                        esc(&path.join(",")),
                        esc(&display_path(&path))
                    )
                }
                _ => "-".to_string(),
            };
            let _ = write!(
                h,
                r#"<tr><td><code>{}</code></td><td>{path}</td><td>{}</td><td class="num">{}</td><td class="num">{}</td><td><span class="bar" style="width:{:.1}px"></span></td><td class="num">{}</td><td class="hash">{}</td></tr>"#,
                esc(&file.name),
                file.root.winner,
                thousands(file.steps),
                thousands(file.total),
                120.0 * file.total as f64 / max as f64,
                thousands(file.stored_bytes),
                &hex(&file.hash)[..16]
            );
        }
        h.push_str("</table></div>");
    }
    h
}

fn display_path(path: &[String]) -> String {
    if path.is_empty() {
        "the root".to_string()
    } else {
        path.join(" ")
    }
}
