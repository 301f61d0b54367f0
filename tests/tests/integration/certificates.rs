//! The committed certificates under `certificates/`: each one checks, and its blake3 body hash matches `certificates/index.md`.

use crate::common::{committed_certificates, workspace_root};
use amazons_checker::cli::DirShards;
use amazons_checker::Shards;
use amazons_format::{file::verified_body, hash_body, Color, Position, Step};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The file name (e.g. `4x4.cert`) and hash (hex, possibly abbreviated to at least 16
/// digits) of every index table row that names both.
fn index_entries(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| l.trim_start().starts_with('|')) {
        let tokens: Vec<&str> = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || "._-/".contains(c)))
            .filter(|t| !t.is_empty())
            .collect();
        let file = tokens
            .iter()
            .find(|t| t.ends_with(".cert") || t.ends_with(".cert.zst"));
        let is_hex = |t: &&&str| t.chars().all(|c| c.is_ascii_hexdigit());
        let hash = tokens
            .iter()
            .find(|t| t.len() == 64 && is_hex(t))
            .or_else(|| {
                tokens
                    .iter()
                    .find(|t| (16..64).contains(&t.len()) && is_hex(t))
            });
        if let (Some(file), Some(hash)) = (file, hash) {
            // Markdown links `[4x4.cert](4x4.cert)` give the name twice; a sharded result
            // is named by its directory, `6x4/manifest.cert`.
            out.insert(file.to_string(), hash.to_ascii_lowercase());
        }
    }
    out
}

fn is_manifest(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "manifest.cert" || n == "manifest.cert.zst")
}

/// The name a certificate has in the index: its path under `certificates/`.
fn index_name(path: &Path) -> String {
    let dir = workspace_root().join("certificates");
    path.strip_prefix(&dir)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Sharded results whose shard files take more than this many bytes are checked
/// structurally by the test suite (see [`Structural`]); `.ci/run` checks them in full with
/// `amazons-check certificates/`.
const FULL_CHECK_BYTES: u64 = 32 << 20;

/// The shards of a large result, for the quick test: each cited shard's file layout, body
/// hash and root claim are checked (the checker does that before it asks
/// `already_checked`), its steps are not. The full check is `.ci/run`'s.
struct Structural(DirShards);

impl Shards for Structural {
    fn get(&self, hash: &[u8; 32]) -> Option<Vec<u8>> {
        self.0.get(hash)
    }

    fn already_checked(&self, _hash: &[u8; 32], _level: usize) -> bool {
        true
    }
}

/// The bytes of the certificate files directly inside `dir`.
fn stored_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| amazons_format::stored::is_cert_path(&e.path()))
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum()
    })
}

/// Checks a committed certificate: a manifest with the shards beside it (structurally
/// when they are larger than [`FULL_CHECK_BYTES`]).
fn checked(path: &Path, bytes: &[u8]) -> amazons_checker::Report {
    let result = if is_manifest(path) {
        let dir = path
            .parent()
            .expect("a manifest has a directory")
            .join("shards");
        let shards = DirShards::scan(&dir);
        if stored_bytes(&dir) > FULL_CHECK_BYTES {
            amazons_checker::check_bytes_with(bytes, &Structural(shards))
        } else {
            amazons_checker::check_bytes_with(bytes, &shards)
        }
    } else {
        amazons_checker::check_bytes(bytes)
    };
    result.unwrap_or_else(|e| panic!("{} rejected:\n{e}", path.display()))
}

/// Each file's body hash, and the body hashes that the `Shard` steps of these files cite.
fn hashes_and_citations<'a>(
    paths: impl Iterator<Item = &'a PathBuf>,
) -> (Vec<[u8; 32]>, HashSet<[u8; 32]>) {
    let mut cited = HashSet::new();
    let mut own = Vec::new();
    for path in paths {
        let bytes = amazons_format::stored::read(path).expect("readable shard");
        let body = verified_body(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        own.push(hash_body(body));
        let cert =
            amazons_format::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for step in &cert.steps {
            if let Step::Shard { hash } = step {
                cited.insert(*hash);
            }
        }
    }
    (own, cited)
}

/// Checks every `(file, expected root position)` job against `shards`, on all cores.
fn check_in_parallel(jobs: &[(PathBuf, Option<Position>)], shards: &DirShards) {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(jobs.len()) {
            scope.spawn(|| loop {
                let Some((path, position)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    return;
                };
                let bytes = amazons_format::stored::read(path).expect("readable shard");
                amazons_checker::check_bytes_with(&bytes, shards)
                    .unwrap_or_else(|e| panic!("{} rejected:\n{e}", path.display()));
                if let Some(position) = position {
                    let cert = amazons_format::decode(&bytes).expect("it checked, so it decodes");
                    assert_eq!(&cert.root.position, position, "{}", path.display());
                }
            });
        }
    });
}

/// Sharded results still in progress (a plan file, no manifest): every shard on disk must
/// check (with the other shards, for split tasks), and each task's shard must prove that
/// task. A shard that another shard on disk cites is checked through its citer (the
/// checker checks a cited shard in full), so each is checked once, not once per level of
/// splitting above it.
#[test]
fn committed_partial_shards_check() {
    let dir = workspace_root().join("certificates");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for sub in entries.flatten().map(|e| e.path()) {
        // A finished result (its manifest stored plain or compressed) is checked whole by
        // `committed_certificates_check`.
        let finished = amazons_campaign::shard::on_disk(&sub.join("manifest.cert")).is_some();
        if !sub.join("plan.txt").is_file() || finished {
            continue;
        }
        let plan = amazons_campaign::shard::Plan::read(&sub).expect("plan file");
        let shards = DirShards::scan(&sub.join("shards"));
        let mut jobs = Vec::new();
        let mut tasks = HashSet::new();
        for task in plan.unique() {
            if let Some(path) = amazons_campaign::shard::on_disk(&plan.shard_path(&sub, task)) {
                tasks.insert(path.clone());
                jobs.push((path, Some(task.position.clone())));
            }
        }
        // Subtask shards (of tasks split, finished or not): each is a certificate of its
        // own position and must check, directly or through a shard that cites it.
        // A campaign that has proved nothing yet has no shards directory.
        let others: Vec<PathBuf> = std::fs::read_dir(sub.join("shards"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| amazons_format::stored::is_cert_path(p) && !tasks.contains(p))
            .collect();
        // Citations by task shards count too: a finished split task cites its subtasks.
        let (own, cited) = hashes_and_citations(jobs.iter().map(|(p, _)| p).chain(&others));
        let own = &own[jobs.len()..];
        let unchecked: Vec<PathBuf> = others
            .into_iter()
            .zip(own)
            .filter(|(_, hash)| !cited.contains(*hash))
            .map(|(path, _)| path)
            .collect();
        jobs.extend(unchecked.into_iter().map(|path| (path, None)));
        // Largest first, so that no big shard is left for the end on one core.
        jobs.sort_by_key(|(p, _)| std::cmp::Reverse(std::fs::metadata(p).map_or(0, |m| m.len())));
        check_in_parallel(&jobs, &shards);
    }
}

#[test]
fn committed_certificates_check() {
    let files = committed_certificates();
    if files.is_empty() {
        eprintln!("note: no committed certificates under certificates/");
    }
    for path in &files {
        let bytes = amazons_format::stored::read(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let report = checked(path, &bytes);
        let cert = amazons_format::decode(&bytes).expect("it checked, so it decodes");
        assert_eq!(report.steps, cert.steps.len());
        assert_eq!(report.shards > 0, is_manifest(path), "{}", path.display());
        assert_eq!(cert.root.spare, 0, "{}: whole-board claim", path.display());
        // A certificate (or sharded directory) named after a board proves that board's
        // start, White to move.
        let stem = if is_manifest(path) {
            path.parent()
                .and_then(|d| d.file_name())
                .and_then(|s| s.to_str())
                .unwrap_or_default()
        } else {
            path.file_name()
                .and_then(|s| s.to_str())
                .and_then(|s| s.split('.').next())
                .unwrap_or_default()
        };
        if let Ok(start) = Position::start(stem) {
            assert_eq!(cert.root.position, start, "{}", path.display());
            assert_eq!(start.to_move, Color::White);
        }
        if stem == "4x4" {
            assert_eq!(cert.root.winner, Color::Black, "4x4 is a second-player win");
        }
    }
}

#[test]
fn committed_certificates_match_the_index() {
    let files = committed_certificates();
    let index_path = workspace_root().join("certificates/index.md");
    let Ok(index) = std::fs::read_to_string(&index_path) else {
        assert!(
            files.is_empty(),
            "certificates exist but certificates/index.md does not"
        );
        eprintln!("note: no certificates/index.md");
        return;
    };
    let entries = index_entries(&index);
    if entries.is_empty() {
        eprintln!(
            "note: certificates/index.md has no table row naming a .cert file and its hash; \
             only the certificates themselves were checked"
        );
        return;
    }
    let dir = workspace_root().join("certificates");
    for name in entries.keys() {
        assert!(
            files.iter().any(|p| &index_name(p) == name),
            "index lists {name}, which is not under {}",
            dir.display()
        );
    }
    for path in &files {
        let name = index_name(path);
        let name = name.as_str();
        let listed = entries
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not listed in certificates/index.md"));
        let bytes = amazons_format::stored::read(path).expect("read certificate");
        let body = verified_body(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let actual = hex(&hash_body(body));
        assert!(
            actual.starts_with(listed.as_str()),
            "{name}: blake3 body hash {actual}, index says {listed}"
        );
        // When the index has a claim column, the row states the certificate's root claim.
        if index
            .lines()
            .any(|l| l.starts_with('|') && l.contains("claim"))
        {
            let claim = amazons_format::decode(&bytes)
                .expect("hash verified")
                .root
                .describe();
            let row = index
                .lines()
                .find(|l| l.starts_with('|') && l.contains(name) && l.contains(listed.as_str()))
                .expect("the row that gave the hash");
            assert!(
                row.contains(&format!("| {} |", claim.replace('|', "\\|"))),
                "{name}: index row does not state {claim:?}: {row}"
            );
        }
    }
}

#[test]
fn index_rows_are_parsed() {
    let text = "| board | file | blake3 |\n|---|---|---|\n| 4x4 | [4x4.cert](4x4.cert) | `0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef` |\n";
    let entries = index_entries(text);
    assert_eq!(entries.len(), 1);
    assert_eq!(
        entries.get("4x4.cert").map(String::as_str),
        Some("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
    );
}
