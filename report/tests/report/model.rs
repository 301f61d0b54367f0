//! The report's data model on committed certificates: the winning move, the replies, sizes that add up, shards followed.

use amazons_checker::rules;
use amazons_format::{stored, Action, Step};
use amazons_report::model::Leaf;
use amazons_report::walk::Edge;
use amazons_report::{build, edge_label, html, Options, Report, Verdict};

fn opts(check: bool) -> Options {
    Options {
        check,
        threads: 2,
        ..Options::default()
    }
}

/// Every kept node with kept children: its size is one step plus its children's sizes, its
/// children follow their parent, and a ReplyAll keeps one child per legal reply.
fn sizes_add_up(report: &Report) {
    for file in &report.files {
        assert_eq!(file.nodes[0].size, file.steps, "{}", file.name);
        for (id, node) in file.nodes.iter().enumerate() {
            let Some(first) = node.first_child else {
                continue;
            };
            let kids = &file.nodes[first..first + node.child_count];
            let sum: u64 = kids.iter().map(|k| k.size).sum();
            assert_eq!(node.size, 1 + sum, "{} node {id}", file.name);
            let totals: u64 = kids.iter().map(|k| k.total).sum();
            assert_eq!(node.total, 1 + totals, "{} node {id}", file.name);
            assert!(kids.iter().all(|k| k.parent == Some(id)));
            assert_eq!(kids[0].step, node.step + 1);
        }
    }
    let by_rule: u64 = report.rules.iter().sum();
    let by_depth: u64 = report.depths.iter().sum();
    let steps: u64 = report.files.iter().map(|f| f.steps).sum();
    assert_eq!(by_rule, steps);
    assert_eq!(by_depth, steps);
}

#[test]
fn five_by_four_first_move_and_replies() {
    let path = amazons_report_cert("5x4.cert.zst");
    let report = build(&path, &opts(true)).unwrap();
    let cert = amazons_format::decode(&stored::read(&path).unwrap()).unwrap();
    let Step::Choice(Action::Board(first)) = cert.steps[0] else {
        panic!("5x4 starts with a Choice");
    };
    let board = cert.root.position.board;
    assert_eq!(report.first_move(), Some(first));
    assert_eq!(first.notation(board), "b1-b2xd2");
    assert!(matches!(report.verdict, Verdict::Verified(_)));
    let root = report.root();
    assert_eq!(root.steps, cert.steps.len() as u64);
    assert_eq!(report.total_steps(), root.steps);
    // The replies: one kept child per legal Black move after b1-b2xd2, in canonical order.
    let after = rules::play(&cert.root.position, first);
    let reply_node = &root.nodes[root.nodes[0].first_child.unwrap()];
    assert_eq!(
        edge_label(reply_node.edge, board).as_deref(),
        Some("b1-b2xd2")
    );
    let replies = rules::legal_moves(&after);
    assert_eq!(reply_node.child_count, replies.len());
    let first_reply = reply_node.first_child.unwrap();
    for (i, m) in replies.iter().enumerate() {
        assert_eq!(
            root.nodes[first_reply + i].edge,
            Edge::Action(Action::Board(*m))
        );
    }
    assert_eq!(
        report.path(0, first_reply),
        vec!["b1-b2xd2".to_string(), replies[0].notation(board)]
    );
    sizes_add_up(&report);
}

fn amazons_report_cert(name: &str) -> std::path::PathBuf {
    crate::certificates().join(name)
}

#[test]
fn sharded_result_follows_the_manifest_and_totals_add_up() {
    let dir = crate::certificates().join("4x7");
    let report = build(&dir, &opts(false)).unwrap();
    assert_eq!(report.verdict, Verdict::NotChecked);
    // Every file but the root is cited, and the root's total is every file's steps once
    // (each shard is cited once).
    assert!(report.files.len() > 1);
    assert!(report.files.iter().skip(1).all(|f| f.cited_by.is_some()));
    let all: u64 = report.files.iter().map(|f| f.steps).sum();
    assert_eq!(report.total_steps(), all);
    sizes_add_up(&report);
    // A shard's kept path leads from the root through its Shard leaf.
    let shard = &report.files[1];
    let path = report.path(1, 0);
    assert!(!path.is_empty(), "{}", shard.name);
    let (parent, Some(leaf)) = shard.cited_by.unwrap() else {
        panic!("the manifest's Shard leaves are kept");
    };
    assert_eq!(report.files[parent].nodes[leaf].kind, 6);
    assert_eq!(report.files[parent].nodes[leaf].total, 1 + shard.total);
}

#[test]
fn report_directory_is_written_and_replaced_atomically() {
    let report = build(&amazons_report_cert("4x4.cert.zst"), &opts(false)).unwrap();
    let tmp = crate::scratch("write");
    let out = tmp.join("out");
    html::write(&report, &out).unwrap();
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("not checked"));
    assert!(index.contains(&amazons_report::load::hex(&report.root().hash)));
    assert!(out.join("data/f0p0.js").is_file());
    // Writing again replaces the report; a directory that is not a report is left alone.
    html::write(&report, &out).unwrap();
    let other = tmp.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("keep.txt"), "x").unwrap();
    assert!(html::write(&report, &other).is_err());
    assert!(other.join("keep.txt").is_file());
    let names: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        names.len(),
        2,
        "no temporary directory left behind: {names:?}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn damaged_input_is_an_error_not_a_panic() {
    let tmp = crate::scratch("bad");
    let path = amazons_report_cert("4x4.cert.zst");
    let mut cert = amazons_format::decode(&stored::read(&path).unwrap()).unwrap();
    // Steps missing at the end: the tree cannot be read.
    cert.steps.truncate(cert.steps.len() - 1);
    let short = tmp.join("short.cert");
    std::fs::write(&short, amazons_format::encode(&cert).unwrap()).unwrap();
    assert!(build(&short, &opts(false)).is_err());
    // Not a certificate, no manifest in a directory, a missing file.
    std::fs::write(tmp.join("junk.cert"), b"junk").unwrap();
    assert!(build(&tmp.join("junk.cert"), &opts(false)).is_err());
    assert!(build(&tmp, &opts(false)).is_err());
    assert!(build(&tmp.join("none.cert"), &opts(false)).is_err());
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn leaves_are_drawn_with_the_numbers_that_justify_them() {
    let opts = Options {
        max_nodes: 12_000,
        ..opts(false)
    };
    let report = build(&amazons_report_cert("4x5.cert.zst"), &opts).unwrap();
    let file = report.root();
    let mut seen = [0usize; 4];
    for (id, node) in file.nodes.iter().enumerate() {
        match &node.leaf {
            Some(Leaf::Outlast(o)) => {
                seen[0] += 1;
                // SPEC 5.4 as the checker applies it: k + x >= M + y (+1 winner to move).
                let k = o.moves.len() as u64 + o.x as u64;
                assert!(
                    k >= o.bound + o.y as u64 + u64::from(o.winner_to_move),
                    "node {id}"
                );
                let sum: u64 = o
                    .region
                    .iter()
                    .map(|p| p.exact.map_or(p.empties as u64, u64::from))
                    .sum();
                assert_eq!(sum, o.bound);
                assert!(o
                    .region
                    .iter()
                    .all(|p| p.exact.is_none_or(|e| e as usize <= p.empties)));
            }
            Some(Leaf::Sum { parts, s }) => {
                seen[1] += 1;
                assert!(*s >= 0, "node {id}");
                let children = parts.len() + parts.iter().filter(|p| p.2).count();
                assert_eq!(node.child_count, children);
                // The components are disjoint.
                let mut all: Vec<usize> = parts.iter().flat_map(|p| p.0.clone()).collect();
                let n = all.len();
                all.sort_unstable();
                all.dedup();
                assert_eq!(all.len(), n);
            }
            Some(Leaf::Transposition { node: cited, .. }) => {
                seen[2] += 1;
                if let Some(c) = cited {
                    // Proven before this step, and not an ancestor.
                    assert!(file.nodes[*c].step as u64 + file.nodes[*c].size <= node.step as u64);
                }
            }
            Some(Leaf::NoMove) => seen[3] += 1,
            _ => {}
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "every kind of leaf among the kept nodes: {seen:?}"
    );
}
