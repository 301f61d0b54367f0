//! Measures how much smaller a sharded certificate could be under several encodings (read-only): lemmas across shards, positions small enough for the checker to search, choices as indices.
//!
//! Usage: `certsize DIR FIRST LAST [N...]`: walks, in checking order, the shards cited by
//! the `Shard` steps number FIRST to LAST (0-based, in the order of `DIR/manifest.cert*`;
//! without a manifest, as in a campaign still running, the files of `DIR/shards/` in name
//! order), their nested shards included, and prints one table row per variant: steps, bytes of the
//! steps (raw, and zstd level 19 per file, as stored) and, for the "search" variants, the
//! time a plain memoized minimax takes on the positions that replace their subtrees. The
//! `N...` (default 4 6) are the empty-square limits of the search variants.
//!
//! - *lemma*: a subtree whose claim (position up to symmetry, side to move, spare, winner)
//!   was proven earlier, in an earlier file of the walk (*cross*) or earlier in the same
//!   file without a `Transposition` (*within*), becomes one 2-byte step.
//! - *searchN*: a subtree whose position has at most N empty squares becomes one 1-byte
//!   step that the checker would settle by exhaustive search.
//! - *index*: a `Choice` becomes its tag and the varint index of its action in the
//!   canonical action list.
//! - *short*: outlast lists cut to the shortest prefix the checker completes (SPEC 5.4).
//!
//! `VARIANTS=a,b+c,...` picks the variants (names joined by `+` combine levers);
//! `AUTO=1` also counts `Choice` steps followed by an outlast step and times finding, for
//! each, the first action in canonical order whose child the outlast rule accepts with an
//! empty list. `TRIM=1` counts the steps trimming would save (one pass, see
//! `amazons_solver::trim`), and choices with an alternative proven earlier. Also printed: steps and raw bytes per step kind, and the steps saved per
//! limit N = 4..=12, and for the limits given the time of the checker's own search
//! (`rules::GameSearch`) on each maximal subtree, with the steps saved when only subtrees
//! whose search costs at most so many ns per saved step become `Search` steps
//! (`NODES=1`: also the nodes of a plain memoized minimax).

use amazons_checker::{actions, after, rules};
use amazons_format::{stored, Action, Cell, Certificate, Claim, Color, Position, Step, Symmetry};
use amazons_solver::compact::shortest_outlast;
use amazons_solver::strategy::step_children;
use anyhow::{bail, Context, Result};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The bit of `hidden` marking a subtree inside a repeated one (counted once, at its top).
const LEMMA: u64 = 1 << 63;
/// The bit of `hidden` marking a subtree inside one that trimming replaces.
const TRIMMED: u64 = 1 << 62;

/// One way of writing the steps, and what it came to.
struct Variant {
    name: String,
    index: bool,
    lemma: bool,
    search: Option<u32>,
    short: bool,
    /// The steps of the file being walked, as this variant writes them.
    buf: Vec<u8>,
    steps: u64,
    raw: u64,
    stored: u64,
}

/// Per-limit statistics of the search lever, for every N of 4..=12.
#[derive(Default, Clone)]
struct Tiny {
    /// Steps saved (subtree size - 1 over maximal subtrees), with all empty squares
    /// counted, and with only those a queen can reach.
    saved_all: u64,
    saved_reach: u64,
    roots: u64,
    search_nodes: u64,
    search_time: Duration,
    searched_roots: u64,
    /// Per searched root: the checker's own search time (`rules::GameSearch`, ns) and the
    /// steps a `Search` step there would save.
    costs: Vec<(u64, u64)>,
}

struct Walker {
    variants: Vec<Variant>,
    /// Canonical claims proven in earlier files, and in the file being walked.
    earlier: HashSet<u64>,
    here: Vec<HashSet<u64>>,
    shards: HashMap<[u8; 32], PathBuf>,
    steps: u64,
    files: u64,
    stored_files: u64,
    cross_saved: u64,
    within_saved: u64,
    tiny: Vec<Tiny>,
    timed: Vec<u32>,
    memo: Vec<HashMap<[u64; 4], bool>>,
    /// The checker's search, one per limit (its memo as the checker keeps it).
    game: Vec<amazons_checker::rules::GameSearch>,
    /// Per step kind: count and raw bytes; and the outlast moves listed.
    kinds: std::collections::BTreeMap<&'static str, (u64, u64)>,
    exact: amazons_checker::rules::OnePlayer,
    auto: bool,
    outlast_moves: u64,
    /// Choice steps whose child is proven by an outlast step; of those, how many have
    /// the chosen action as the first (canonical order) action whose child the outlast
    /// rule accepts with an empty list, and the candidates tried.
    choice_outlast: u64,
    auto_first: u64,
    auto_found: u64,
    auto_tries: u64,
    auto_time: Duration,
    budget: Duration,
    /// `NODES=1`: also count the nodes of a plain memoized minimax (slow) per root.
    nodes: bool,
    /// `TRIM=1`: at a `Choice` whose child's proof is more than one step, whether another
    /// action leads to a claim proven earlier (up to symmetry: a 2-step replacement) or
    /// to one the outlast rule accepts with an empty list, or the opponent has no move;
    /// the steps that choosing it would save, per kind, and the time the search took.
    trim: bool,
    trim_lemma: (u64, u64),
    trim_instant: (u64, u64),
    trim_time: Duration,
}

/// The claim packed into 256 bits (as the checker's proven set does).
fn pack(cells: impl Iterator<Item = Cell>, claim: &Claim) -> [u64; 4] {
    let mut key = [0u64; 4];
    for (i, cell) in cells.enumerate().take(100) {
        key[i / 32] |= (cell as u64) << (2 * (i % 32));
    }
    let (to_move, winner) = (claim.position.to_move as u64, claim.winner as u64);
    key[3] |= to_move << 8 | winner << 9 | u64::from((claim.spare + 128) as u8) << 10;
    key
}

/// The smallest packed key over the board's symmetries, hashed to 64 bits.
fn canonical(claim: &Claim) -> u64 {
    let pos = &claim.position;
    let best = Symmetry::ALL
        .iter()
        .filter(|s| s.fits(pos.board))
        .map(|s| pack(s.apply(pos).cells.into_iter(), claim))
        .min()
        .unwrap_or_default();
    best.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| {
        let h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    })
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The postcard encoding of a step (SPEC 3.2).
fn encode_step(step: &Step, out: &mut Vec<u8>) {
    let mv = |m: &amazons_format::Move, out: &mut Vec<u8>| out.extend([m.from, m.to, m.arrow]);
    match step {
        Step::Choice(Action::Board(m)) => {
            out.extend([0, 0]);
            mv(m, out)
        }
        Step::Choice(Action::Spare) => out.extend([0, 1]),
        Step::ReplyAll => out.push(1),
        Step::NoMove => out.push(2),
        Step::Outlast { moves } => {
            out.push(3);
            varint(moves.len() as u64, out);
            moves.iter().for_each(|m| mv(m, out));
        }
        Step::Sum { parts } => {
            out.push(4);
            varint(parts.len() as u64, out);
            for p in parts {
                varint(((p.bound << 1) ^ (p.bound >> 31)) as u32 as u64, out);
                out.push(u8::from(p.strict));
            }
        }
        Step::Transposition { symmetry } => out.extend([5, *symmetry as u8]),
        Step::Shard { hash } => {
            out.push(6);
            out.extend(hash)
        }
        Step::Search => out.push(7),
    }
}

fn empties(pos: &Position) -> (u32, u32) {
    let all = pos.cells.iter().filter(|&&c| c == Cell::Empty).count() as u32;
    let (w, b) = (
        rules::region(pos, Color::White),
        rules::region(pos, Color::Black),
    );
    let reach = (0..pos.cells.len())
        .filter(|&sq| pos.cells[sq] == Cell::Empty && (w[sq] || b[sq]))
        .count() as u32;
    (all, reach)
}

/// Plain memoized minimax: whether the claim's winner wins (spares are actions, SPEC 2).
fn wins(claim: &Claim, memo: &mut HashMap<[u64; 4], bool>, nodes: &mut u64) -> bool {
    let key = pack(claim.position.cells.iter().copied(), claim);
    if let Some(&v) = memo.get(&key) {
        return v;
    }
    *nodes += 1;
    let x_moves = claim.position.to_move == claim.winner;
    let mut result = !x_moves;
    for a in actions(claim) {
        if wins(&after(claim, a), memo, nodes) == x_moves {
            result = x_moves;
            break;
        }
    }
    memo.insert(key, result);
    result
}

impl Walker {
    fn file(&mut self, path: &Path) -> Result<()> {
        let stored_len = std::fs::metadata(path)?.len();
        let bytes = stored::read(path)?;
        let cert = amazons_format::decode(&bytes).with_context(|| path.display().to_string())?;
        self.files += 1;
        self.stored_files += stored_len;
        self.here.push(HashSet::new());
        let mut next = 0usize;
        self.walk(&cert, cert.root.clone(), &mut next, 0, 0)?;
        if next != cert.steps.len() {
            bail!(
                "{}: walk ended at {next} of {}",
                path.display(),
                cert.steps.len()
            );
        }
        for v in &mut self.variants {
            v.raw += v.buf.len() as u64;
            v.stored += zstd::bulk::compress(&v.buf, 19)?.len() as u64;
            v.buf.clear();
        }
        let done = self.here.pop().unwrap_or_default();
        self.earlier.extend(done);
        Ok(())
    }

    /// Walks the subtree at `*next` proving `claim`. `hidden`: variants for which an
    /// ancestor already replaced this subtree; `parent_empty` the parent's (all, reach)
    /// empties packed as all * 256 + reach (0 at a root: nothing above to merge into).
    fn walk(
        &mut self,
        cert: &Certificate,
        claim: Claim,
        next: &mut usize,
        hidden: u64,
        parent_empty: u32,
    ) -> Result<u64> {
        let start = *next;
        let Some(step) = cert.steps.get(start) else {
            bail!("steps ran out");
        };
        *next += 1;
        self.steps += 1;
        let kind = match step {
            Step::Choice(_) => "Choice",
            Step::ReplyAll => "ReplyAll",
            Step::NoMove => "NoMove",
            Step::Outlast { moves } => {
                self.outlast_moves += moves.len() as u64;
                "Outlast"
            }
            Step::Sum { .. } => "Sum",
            Step::Transposition { .. } => "Transposition",
            Step::Shard { .. } => "Shard",
            Step::Search => "Search",
        };
        let mut one = Vec::new();
        encode_step(step, &mut one);
        let entry = self.kinds.entry(kind).or_default();
        entry.0 += 1;
        entry.1 += one.len() as u64;
        let key = canonical(&claim);
        let (all, reach) = empties(&claim.position);
        let (p_all, p_reach) = (parent_empty >> 8, parent_empty & 0xff);
        let cross = self.earlier.contains(&key);
        let within = !cross
            && !matches!(step, Step::Transposition { .. })
            && self.here.last().is_some_and(|h| h.contains(&key));
        let mut hide = hidden;
        if cross || within {
            hide |= LEMMA;
        }
        for (i, v) in self.variants.iter_mut().enumerate() {
            if hidden & (1 << i) != 0 {
                continue;
            }
            if v.search.is_some_and(|n| all <= n) {
                v.buf.push(7);
                v.steps += 1;
                hide |= 1 << i;
            } else if v.lemma && (cross || within) {
                v.buf.extend([5, 0]);
                v.steps += 1;
                hide |= 1 << i;
            } else if let (true, Step::Choice(a)) = (v.index, step) {
                let list = actions(&claim);
                let idx = list.iter().position(|b| b == a).unwrap_or(0);
                v.buf.push(0);
                varint(idx as u64, &mut v.buf);
                v.steps += 1;
            } else if let (true, Step::Outlast { moves }) = (v.short, step) {
                let moves = shortest_outlast(&claim, moves, &mut self.exact);
                encode_step(&Step::Outlast { moves }, &mut v.buf);
                v.steps += 1;
            } else {
                encode_step(step, &mut v.buf);
                v.steps += 1;
            }
        }
        // Maximal tiny subtrees: tiny here, not tiny at the parent (empties only shrink).
        let tiny_roots: Vec<u32> = (4..=12u32)
            .filter(|&n| all <= n && (parent_empty == 0 || p_all > n))
            .collect();
        let mut priced = Vec::new();
        for &n in &tiny_roots {
            if self.timed.contains(&n) {
                let game = &mut self.game[n as usize];
                let t = Instant::now();
                let mover = game.mover_wins(&claim.position, claim.spare);
                priced.push((n, t.elapsed().as_nanos() as u64));
                if mover != (claim.position.to_move == claim.winner) {
                    bail!("the checker's search says the winner loses at step {start}");
                }
            }
            if self.timed.contains(&n)
                && self.nodes
                && self.tiny[n as usize].search_time < self.budget
            {
                let t = Instant::now();
                let mut nodes = 0;
                let memo = &mut self.memo[n as usize];
                if memo.len() > 2_000_000 {
                    memo.clear();
                }
                let won = wins(&claim, memo, &mut nodes);
                if !won {
                    bail!("search says the winner loses at step {start}");
                }
                let tiny = &mut self.tiny[n as usize];
                tiny.search_time += t.elapsed();
                tiny.search_nodes += nodes;
                tiny.searched_roots += 1;
            }
        }
        // Trimming: another action whose child needs no proof of its own.
        let mut trim_kind = 0u8;
        if let (true, Step::Choice(a)) = (self.trim && hidden & TRIMMED == 0, step) {
            let small = matches!(
                cert.steps.get(start + 1),
                Some(
                    Step::Outlast { .. } | Step::NoMove | Step::Search | Step::Transposition { .. }
                )
            );
            if !small {
                let t = Instant::now();
                let here = self.here.last();
                for b in actions(&claim).into_iter().filter(|b| b != a) {
                    let child = after(&claim, b);
                    let k = canonical(&child);
                    if self.earlier.contains(&k) || here.is_some_and(|h| h.contains(&k)) {
                        trim_kind = 1;
                        break;
                    }
                }
                if trim_kind == 0 {
                    for b in actions(&claim).into_iter().filter(|b| b != a) {
                        let child = after(&claim, b);
                        if actions(&child).is_empty()
                            || amazons_checker::outlast_line(&child, &[], &mut self.exact).is_ok()
                        {
                            trim_kind = 2;
                            break;
                        }
                    }
                }
                self.trim_time += t.elapsed();
                if trim_kind > 0 {
                    hide |= TRIMMED;
                }
            }
        }
        if let (Step::Choice(a), Some(Step::Outlast { .. })) = (step, cert.steps.get(start + 1)) {
            self.choice_outlast += 1;
            if self.auto {
                let t = Instant::now();
                for b in actions(&claim) {
                    self.auto_tries += 1;
                    let child = after(&claim, b);
                    if amazons_checker::outlast_line(&child, &[], &mut self.exact).is_ok() {
                        self.auto_found += 1;
                        self.auto_first += u64::from(b == *a);
                        break;
                    }
                }
                self.auto_time += t.elapsed();
            }
        }
        let children: Vec<Claim> = match step {
            Step::Choice(a) => vec![after(&claim, *a)],
            Step::ReplyAll => actions(&claim)
                .into_iter()
                .map(|a| after(&claim, a))
                .collect(),
            Step::Shard { hash } => {
                let path = self.shards.get(hash).cloned().context("shard missing")?;
                self.file(&path)?;
                Vec::new()
            }
            _ => step_children(step, &claim).map_err(anyhow::Error::msg)?,
        };
        let me = all << 8 | reach;
        for child in children {
            self.walk(cert, child, next, hide, me)?;
        }
        let size = (*next - start) as u64;
        match trim_kind {
            1 => {
                self.trim_lemma.0 += 1;
                self.trim_lemma.1 += size - 2;
            }
            2 => {
                self.trim_instant.0 += 1;
                self.trim_instant.1 += size - 2;
            }
            _ => {}
        }
        if hidden & LEMMA == 0 && cross {
            self.cross_saved += size - 1;
        } else if hidden & LEMMA == 0 && within {
            self.within_saved += size - 1;
        }
        for n in 4..=12u32 {
            let t = &mut self.tiny[n as usize];
            if all <= n && (parent_empty == 0 || p_all > n) {
                t.saved_all += size - 1;
                t.roots += 1;
            }
            if reach <= n && (parent_empty == 0 || p_reach > n) {
                t.saved_reach += size - 1;
            }
        }
        for (n, ns) in priced {
            self.tiny[n as usize].costs.push((ns, size - 1));
        }
        if let Some(h) = self.here.last_mut() {
            h.insert(key);
        }
        Ok(size)
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, first, last, rest @ ..] = args.as_slice() else {
        bail!("usage: certsize DIR FIRST LAST [N...]");
    };
    let (first, last): (usize, usize) = (first.parse()?, last.parse()?);
    let timed: Vec<u32> = if rest.is_empty() {
        vec![4, 6]
    } else {
        rest.iter().map(|s| s.parse()).collect::<Result<_, _>>()?
    };
    let dir = PathBuf::from(dir);
    let mut shards = HashMap::new();
    // (name, hash) of every shard file, in name order (a campaign's task order).
    let mut by_name = Vec::new();
    for e in std::fs::read_dir(dir.join("shards"))? {
        let p = e?.path();
        if let Some(h) = stored::declared_hash(&p)? {
            by_name.push((p.clone(), h));
            shards.insert(h, p);
        }
    }
    by_name.sort();
    let manifest = ["manifest.cert.zst", "manifest.cert"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.exists());
    // A finished result: the shards its manifest cites, in its order. A campaign still
    // running (no manifest): every shard file in name order.
    let (board, cited): (_, Vec<[u8; 32]>) = match manifest {
        Some(manifest) => {
            let cert = amazons_format::decode(&stored::read(&manifest)?)?;
            let cited = (cert.steps.iter())
                .filter_map(|s| match s {
                    Step::Shard { hash } => Some(*hash),
                    _ => None,
                })
                .collect();
            (cert.root.position.board, cited)
        }
        None => {
            let (first, _) = by_name.first().context("no manifest and no shard files")?;
            let cert = amazons_format::decode(&stored::read(first)?)?;
            (
                cert.root.position.board,
                by_name.iter().map(|(_, h)| *h).collect(),
            )
        }
    };
    let mut variants = Vec::new();
    let spec = |name: &str| {
        let search =
            (name.split('+')).find_map(|p| p.strip_prefix("search").and_then(|n| n.parse().ok()));
        Variant {
            name: name.to_string(),
            index: name.contains("index"),
            lemma: name.contains("lemma"),
            short: name.contains("short"),
            search,
            buf: Vec::new(),
            steps: 0,
            raw: 0,
            stored: 0,
        }
    };
    let names = std::env::var("VARIANTS").unwrap_or_else(|_| {
        "base,short,index,lemma,search4,search6,short+lemma,short+search6,short+lemma+search6+index".into()
    });
    for name in names.split(',') {
        variants.push(spec(name));
    }
    let mut w = Walker {
        variants,
        earlier: HashSet::new(),
        here: Vec::new(),
        shards,
        steps: 0,
        files: 0,
        stored_files: 0,
        cross_saved: 0,
        within_saved: 0,
        tiny: vec![Tiny::default(); 13],
        timed,
        memo: vec![HashMap::new(); 13],
        game: (0..13)
            .map(|_| amazons_checker::rules::GameSearch::new(board))
            .collect(),
        kinds: Default::default(),
        exact: amazons_checker::rules::OnePlayer::new(board),
        auto: std::env::var("AUTO").is_ok(),
        trim: std::env::var("TRIM").is_ok(),
        trim_lemma: (0, 0),
        trim_instant: (0, 0),
        trim_time: Duration::ZERO,
        outlast_moves: 0,
        choice_outlast: 0,
        auto_first: 0,
        auto_found: 0,
        auto_tries: 0,
        auto_time: Duration::ZERO,
        budget: Duration::from_secs(300),
        nodes: std::env::var("NODES").is_ok(),
    };
    let mut check_time = Duration::ZERO;
    let dir_shards = amazons_checker::cli::DirShards::scan(&dir.join("shards"));
    for hash in cited.iter().take(last + 1).skip(first) {
        let path = w.shards.get(hash).cloned().context("cited shard missing")?;
        let c = amazons_format::decode(&stored::read(&path)?)?;
        let t = Instant::now();
        amazons_checker::check_with(&c, &dir_shards).map_err(|e| anyhow::anyhow!("{e}"))?;
        check_time += t.elapsed();
        drop(c);
        let t = Instant::now();
        w.file(&path)?;
        eprintln!(
            "{} done: {} steps so far, walk {:?}",
            path.display(),
            w.steps,
            t.elapsed()
        );
    }
    println!(
        "lemma: steps saved by subtrees proven in an earlier file {} ({:.1}%), earlier in the same file {} ({:.1}%)",
        w.cross_saved,
        100.0 * w.cross_saved as f64 / w.steps as f64,
        w.within_saved,
        100.0 * w.within_saved as f64 / w.steps as f64
    );
    println!(
        "files {} (tasks {first}..={last}), steps {}, stored on disk {} bytes, check {:.1} s",
        w.files,
        w.steps,
        w.stored_files,
        check_time.as_secs_f64()
    );
    for (name, (count, bytes)) in &w.kinds {
        println!("kind {name}: {count} steps, {bytes} raw bytes");
    }
    println!("outlast moves listed: {}", w.outlast_moves);
    println!(
        "choice->outlast pairs {}; first outlast-accepted action found {} (is the chosen one {}), {} actions tried, {:.1} s",
        w.choice_outlast, w.auto_found, w.auto_first, w.auto_tries, w.auto_time.as_secs_f64()
    );
    println!(
        "trim: choices with a proven alternative {} (steps saved {}, {:.1}%), with an alternative closing at once {} (steps saved {}, {:.1}%), {:.1} s",
        w.trim_lemma.0,
        w.trim_lemma.1,
        100.0 * w.trim_lemma.1 as f64 / w.steps as f64,
        w.trim_instant.0,
        w.trim_instant.1,
        100.0 * w.trim_instant.1 as f64 / w.steps as f64,
        w.trim_time.as_secs_f64()
    );
    println!(
        "| variant | steps | raw bytes | stored bytes (zstd 19) | stored B/step (of base steps) |"
    );
    println!("|---|---|---|---|---|");
    let base_steps = w.steps as f64;
    for v in &w.variants {
        println!(
            "| {} | {} | {} | {} | {:.3} |",
            v.name,
            v.steps,
            v.raw,
            v.stored,
            v.stored as f64 / base_steps
        );
    }
    println!("| N | saved (all empties) | saved (reachable empties) | roots | searched roots | search nodes | search s |");
    println!("|---|---|---|---|---|---|---|");
    for n in 4..=12 {
        let t = &w.tiny[n];
        println!(
            "| {n} | {:.1}% | {:.1}% | {} | {} | {} | {:.1} |",
            100.0 * t.saved_all as f64 / base_steps,
            100.0 * t.saved_reach as f64 / base_steps,
            t.roots,
            t.searched_roots,
            t.search_nodes,
            t.search_time.as_secs_f64()
        );
    }
    // Search steps chosen by price: a root is replaced only when the checker's search
    // there costs at most so many ns per step it saves.
    println!(
        "explicit checking: {:.0} ns per step",
        1e9 * check_time.as_secs_f64() / base_steps
    );
    println!("| N | at most ns per saved step | roots | saved | checker search s |");
    println!("|---|---|---|---|---|");
    for n in 4..=12usize {
        let costs = &w.tiny[n].costs;
        if costs.is_empty() {
            continue;
        }
        for limit in [
            1000u64,
            2000,
            5000,
            10_000,
            20_000,
            50_000,
            100_000,
            u64::MAX,
        ] {
            let chosen = costs
                .iter()
                .filter(|&&(ns, saved)| ns <= limit.saturating_mul(saved));
            let (roots, saved, ns) = chosen.fold((0u64, 0u64, 0u64), |(r, s, t), &(ns, sv)| {
                (r + 1, s + sv, t + ns)
            });
            let shown = if limit == u64::MAX {
                "any".to_string()
            } else {
                limit.to_string()
            };
            println!(
                "| {n} | {shown} | {roots} | {:.1}% | {:.1} |",
                100.0 * saved as f64 / base_steps,
                ns as f64 / 1e9
            );
        }
    }
    Ok(())
}
