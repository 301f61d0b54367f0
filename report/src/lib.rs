//! Static HTML reports of Amazons proof certificates: header, boards, a lazily loaded proof browser and statistics.
//!
//! [`build`] reads a certificate (or a sharded result's manifest and every shard it cites,
//! and only those), walks each file's proof tree with the checker's plain rules
//! ([`walk`]), keeps the top of each tree for the browser ([`model`]) and, unless told
//! not to, runs the checker on the whole. [`html::write`] turns that into a directory
//! that opens from disk: `index.html` (inline CSS and JavaScript, the header, boards and
//! statistics) and `data/*.js`, one script per page of kept nodes, loaded by `<script>`
//! tags only when the browser reaches them (`fetch` is blocked on `file://`).

pub mod cli;
pub mod html;
pub mod load;
pub mod model;
mod svg;
pub mod walk;

use amazons_checker::cli::DirShards;
use amazons_format::{stored, Certificate, Color, FileError, Meta, Move};
use model::Node;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use walk::Edge;

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: unreadable certificate: {source}")]
    Unreadable { path: PathBuf, source: FileError },
    #[error("{0}: no manifest.cert.zst or manifest.cert in this directory")]
    NoManifest(PathBuf),
    #[error("shard {hash} cited by {by} is not in {dir}")]
    MissingShard {
        hash: String,
        by: String,
        dir: PathBuf,
    },
    #[error("{file}: step {step}: not a proof tree: {reason}")]
    Malformed {
        file: String,
        step: usize,
        reason: String,
    },
    #[error("output {path}: {reason}")]
    Output { path: PathBuf, reason: String },
}

/// How to make a report.
#[derive(Debug, Clone)]
pub struct Options {
    /// Run the checker on the certificate (and its shards) for the header's verdict.
    pub check: bool,
    /// Nodes kept for the browser per certificate file (breadth first).
    pub max_nodes: usize,
    /// Nodes per data file (page) of the browser.
    pub page_nodes: usize,
    /// Files walked at once.
    pub threads: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            check: true,
            max_nodes: 600,
            page_nodes: 200,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// The checker's verdict on the whole result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    NotChecked,
    /// Verified, with the checker's summary line.
    Verified(String),
    /// Rejected or unreadable, with the checker's message.
    Wrong(String),
}

/// One certificate file of the result: the root or a shard.
#[derive(Debug, Clone)]
pub struct FileData {
    pub path: PathBuf,
    /// File name (shards: as in `shards/`).
    pub name: String,
    pub hash: [u8; 32],
    pub root: amazons_format::Claim,
    pub meta: Meta,
    /// Steps in this file, and with every shard it cites (recursively).
    pub steps: u64,
    pub total: u64,
    /// Size on disk and decompressed.
    pub stored_bytes: u64,
    pub bytes: u64,
    pub rules: [u64; 8],
    pub depths: Vec<u64>,
    /// The shard leaves: step index, depth in this file, cited file's index.
    pub shard_leaves: Vec<(usize, u32, usize)>,
    pub nodes: Vec<Node>,
    /// Where the report first cites this file: file index, and the kept node there.
    pub cited_by: Option<(usize, Option<usize>)>,
    /// Depth of this file's root in the whole proof.
    pub depth_offset: u32,
}

/// A whole report's data.
#[derive(Debug, Clone)]
pub struct Report {
    pub input: PathBuf,
    /// The root certificate first, then the shards by name.
    pub files: Vec<FileData>,
    pub verdict: Verdict,
    /// Steps by rule and by depth over all files.
    pub rules: [u64; 8],
    pub depths: Vec<u64>,
    pub options: Options,
}

impl Report {
    /// The root certificate.
    pub fn root(&self) -> &FileData {
        &self.files[0]
    }

    /// The winner's first move, when the root claim has the winner to move.
    pub fn first_move(&self) -> Option<Move> {
        let root = self.root();
        let first = root.nodes.first()?.first_child?;
        match root.nodes.get(first)?.edge {
            Edge::Action(amazons_format::Action::Board(m))
                if root.root.winner == root.root.position.to_move =>
            {
                Some(m)
            }
            _ => None,
        }
    }

    /// The moves (edge labels) from the report's root to node `node` of file `file`.
    pub fn path(&self, file: usize, node: usize) -> Vec<String> {
        let mut labels = Vec::new();
        let (mut f, mut n) = (file, Some(node));
        let mut guard = 0;
        while guard < 64 {
            guard += 1;
            let data = &self.files[f];
            let board = data.root.position.board;
            while let Some(id) = n {
                let Some(node) = data.nodes.get(id) else {
                    break;
                };
                if let Some(label) = edge_label(node.edge, board) {
                    labels.push(label);
                }
                n = node.parent;
            }
            match data.cited_by {
                Some((parent, Some(leaf))) => {
                    f = parent;
                    n = Some(leaf);
                }
                _ => break,
            }
        }
        labels.reverse();
        labels
    }

    /// Total steps of the whole proof.
    pub fn total_steps(&self) -> u64 {
        self.root().total
    }
}

/// The label of an edge as the browser's paths use it: the move, `spare`, or `partN`
/// (`partNx`: the strict part's second child, winner to move).
pub fn edge_label(edge: Edge, board: amazons_format::Board) -> Option<String> {
    match edge {
        Edge::Root => None,
        Edge::Action(a) => Some(a.notation(board)),
        Edge::Part { part, strict, .. } => {
            Some(format!("part{part}{}", if strict { "x" } else { "" }))
        }
    }
}

/// A file read, with the hashes of the shards it cites.
type Done = (FileData, Vec<[u8; 32]>);

enum Job {
    Root(PathBuf),
    Shard(PathBuf),
}

struct Queue {
    jobs: VecDeque<Job>,
    seen: HashSet<[u8; 32]>,
    busy: usize,
    done: Vec<Done>,
    error: Option<ReportError>,
}

/// Reads, walks and keeps the nodes of one file; returns it with the hashes it cites.
fn process(job: &Job, max_nodes: usize) -> Result<Done, ReportError> {
    let path = match job {
        Job::Root(p) | Job::Shard(p) => p.clone(),
    };
    let io = |source| ReportError::Io {
        path: path.clone(),
        source,
    };
    let stored_bytes = std::fs::metadata(&path).map_err(io)?.len();
    let bytes = stored::read(&path).map_err(io)?;
    let unreadable = |source| ReportError::Unreadable {
        path: path.clone(),
        source,
    };
    let body = amazons_format::file::verified_body(&bytes).map_err(unreadable)?;
    let hash = amazons_format::hash_body(body);
    let cert: Certificate = amazons_format::decode(&bytes).map_err(unreadable)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let walked = walk::walk(&cert).map_err(|m| ReportError::Malformed {
        file: name.clone(),
        step: m.step,
        reason: m.reason,
    })?;
    let nodes = model::keep(&cert, &walked, max_nodes);
    let cites: Vec<[u8; 32]> = walked.shard_leaves.iter().map(|l| l.2).collect();
    let steps = cert.steps.len() as u64;
    Ok((
        FileData {
            path: path.clone(),
            name,
            hash,
            root: cert.root,
            meta: cert.meta,
            steps,
            total: steps,
            stored_bytes,
            bytes: bytes.len() as u64,
            rules: walked.rules,
            depths: walked.depths,
            // Resolved to file indices once every file is known.
            shard_leaves: walked
                .shard_leaves
                .iter()
                .map(|&(step, depth, _)| (step, depth, usize::MAX))
                .collect(),
            nodes,
            cited_by: None,
            depth_offset: 0,
        },
        cites,
    ))
}

/// Runs the jobs on `threads` threads; each file's cited shards become new jobs.
fn run_jobs(
    root: PathBuf,
    index: &DirShards,
    dir: &Path,
    opts: &Options,
) -> Result<Vec<Done>, ReportError> {
    let queue = Mutex::new(Queue {
        jobs: VecDeque::from([Job::Root(root)]),
        seen: HashSet::new(),
        busy: 0,
        done: Vec::new(),
        error: None,
    });
    let wake = Condvar::new();
    let worker = || loop {
        let job = {
            let Ok(mut q) = queue.lock() else { return };
            loop {
                if q.error.is_some() {
                    return;
                }
                if let Some(job) = q.jobs.pop_front() {
                    q.busy += 1;
                    break job;
                }
                if q.busy == 0 {
                    return;
                }
                q = match wake.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
        };
        let result = process(&job, opts.max_nodes.max(1));
        let Ok(mut q) = queue.lock() else { return };
        q.busy -= 1;
        match result {
            Ok((data, cites)) => {
                for hash in &cites {
                    if q.seen.insert(*hash) {
                        match index.path(hash) {
                            Some(p) => q.jobs.push_back(Job::Shard(p.to_path_buf())),
                            None => {
                                q.error = Some(ReportError::MissingShard {
                                    hash: load::hex(hash),
                                    by: data.name.clone(),
                                    dir: dir.to_path_buf(),
                                })
                            }
                        }
                    }
                }
                q.done.push((data, cites));
            }
            Err(e) => q.error = Some(e),
        }
        wake.notify_all();
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..opts.threads.max(1))
            .map(|_| {
                std::thread::Builder::new()
                    // The walk recurses once per level, up to the checker's depth limit.
                    .stack_size(256 << 20)
                    .spawn_scoped(scope, worker)
            })
            .collect();
        for handle in handles.into_iter().flatten() {
            let _ = handle.join();
        }
    });
    let q = queue.into_inner().map_err(|_| ReportError::Output {
        path: PathBuf::new(),
        reason: "a worker thread failed".to_string(),
    })?;
    if let Some(e) = q.error {
        return Err(e);
    }
    Ok(q.done)
}

/// Reads the certificate or sharded result at `input` and everything the report shows.
pub fn build(input: &Path, opts: &Options) -> Result<Report, ReportError> {
    let (root_path, dir) = load::resolve(input)?;
    let index = DirShards::scan(&dir);
    let mut done = run_jobs(root_path.clone(), &index, &dir, opts)?;
    // Root first, then shards by name, so that the data files are the same on every run.
    done.sort_by(|a, b| {
        (a.0.path != root_path, &a.0.name).cmp(&(b.0.path != root_path, &b.0.name))
    });
    let by_hash: HashMap<[u8; 32], usize> = done
        .iter()
        .enumerate()
        .map(|(i, (d, _))| (d.hash, i))
        .collect();
    let mut files: Vec<FileData> = Vec::with_capacity(done.len());
    for (mut data, cites) in done {
        for (leaf, hash) in data.shard_leaves.iter_mut().zip(&cites) {
            leaf.2 = by_hash.get(hash).copied().unwrap_or(usize::MAX);
        }
        files.push(data);
    }
    link(&mut files);
    let mut rules = [0u64; 8];
    let mut depths: Vec<u64> = Vec::new();
    for f in &files {
        for (r, n) in rules.iter_mut().zip(f.rules) {
            *r += n;
        }
        for (d, &n) in f.depths.iter().enumerate() {
            let at = d + f.depth_offset as usize;
            if depths.len() <= at {
                depths.resize(at + 1, 0);
            }
            depths[at] += n;
        }
    }
    let verdict = if opts.check {
        match stored::read(&root_path) {
            Ok(bytes) => match amazons_checker::check_bytes_with(&bytes, &index) {
                Ok(r) if r.shards > 0 => Verdict::Verified(format!(
                    "verified: {} ({} steps + {} steps in {} shards)",
                    r.claim, r.steps, r.shard_steps, r.shards
                )),
                Ok(r) => Verdict::Verified(format!("verified: {} ({} steps)", r.claim, r.steps)),
                Err(e) => Verdict::Wrong(e.to_string()),
            },
            Err(e) => Verdict::Wrong(format!("unreadable: {e}")),
        }
    } else {
        Verdict::NotChecked
    };
    Ok(Report {
        input: input.to_path_buf(),
        files,
        verdict,
        rules,
        depths,
        options: opts.clone(),
    })
}

/// Fills in where each shard is first cited, its depth, and the steps including shards.
fn link(files: &mut [FileData]) {
    // Breadth first over citations from the root: first citation, depth offsets.
    let mut seen = vec![false; files.len()];
    let mut queue = VecDeque::from([0usize]);
    if let Some(s) = seen.first_mut() {
        *s = true;
    }
    while let Some(f) = queue.pop_front() {
        let leaves = files[f].shard_leaves.clone();
        for (step, depth, target) in leaves {
            if target >= files.len() || seen[target] {
                continue;
            }
            seen[target] = true;
            let node = files[f].nodes.iter().position(|n| n.step == step);
            let offset = files[f].depth_offset + depth;
            files[target].cited_by = Some((f, node));
            files[target].depth_offset = offset;
            queue.push_back(target);
        }
    }
    // Totals: a file's steps plus its shards' totals (citations form a DAG: shards are
    // named by the hash of their content, so none can cite itself or an ancestor).
    let mut total: Vec<Option<u64>> = vec![None; files.len()];
    fn total_of(f: usize, files: &[FileData], memo: &mut Vec<Option<u64>>, depth: usize) -> u64 {
        if let Some(t) = memo[f] {
            return t;
        }
        let mut t = files[f].steps;
        if depth < 64 {
            for &(_, _, target) in &files[f].shard_leaves {
                if target < files.len() {
                    t += total_of(target, files, memo, depth + 1);
                }
            }
        }
        memo[f] = Some(t);
        t
    }
    for f in 0..files.len() {
        let t = total_of(f, files, &mut total, 0);
        files[f].total = t;
    }
    for data in files.iter_mut() {
        let leaves: Vec<(usize, u64)> = data
            .shard_leaves
            .iter()
            .filter_map(|&(step, _, target)| Some((step, total.get(target).copied().flatten()?)))
            .collect();
        for node in &mut data.nodes {
            let end = node.step as u64 + node.size;
            node.total = node.size
                + leaves
                    .iter()
                    .filter(|&&(s, _)| s as u64 >= node.step as u64 && (s as u64) < end)
                    .map(|&(_, t)| t)
                    .sum::<u64>();
        }
    }
}

/// `White`/`Black` initial for the data files.
pub(crate) fn side(color: Color) -> &'static str {
    match color {
        Color::White => "w",
        Color::Black => "b",
    }
}
