//! Database tests: build, lookups against fresh searches, file integrity errors, tamper audit.

use super::audit::{blocker_max, entry_position};
use super::simple::tests::tempdir;
use super::*;
use amazons_checker::rules;
use amazons_format::{Cell, Color, Position};

fn small_config() -> DbConfig {
    DbConfig {
        threads: 2,
        ..DbConfig::new((6, (2, 4), 3), (5, (2, 3), 3))
    }
}

fn small_db(tag: &str) -> (PathBuf, Database) {
    let dir = tempdir(tag);
    build(&dir, &small_config(), &mut |_| {}).expect("build");
    let db = Database::open(&dir).expect("open");
    (dir, db)
}

fn grid(text: &str) -> (Geometry, Position) {
    let p = Position::parse_grid(text, Color::Black).expect("grid");
    (Geometry::new(p.board), p)
}

fn sets(p: &Position) -> (Bb, Bb) {
    let (mut q, mut e) = (Bb::EMPTY, Bb::EMPTY);
    for (i, c) in p.cells.iter().enumerate() {
        match c {
            Cell::Black | Cell::White => q |= Bb::from_square(i as u8),
            Cell::Empty => e |= Bb::from_square(i as u8),
            Cell::Arrow => {}
        }
    }
    (q, e)
}

/// Hand-made positions, including the blocker constraint costing a move.
#[test]
fn known_values() {
    let (dir, db) = small_db("known");
    // b2 with empties a1 and c1: one move only (defective).
    let (g, p) = grid("#X#|.#.");
    let (q, e) = sets(&p);
    assert_eq!(db.lookup_simple(&g, q, e), Some(1));
    // A corridor filled completely.
    let (g, p) = grid("X...");
    let (q, e) = sets(&p);
    assert_eq!(db.lookup_simple(&g, q, e), Some(3));
    // .X. : a normal queen gets both squares; a blocker must shoot back and gets one.
    let (g, p) = grid(".X.");
    let (q, e) = sets(&p);
    assert_eq!(db.lookup_simple(&g, q, e), Some(2));
    assert_eq!(db.lookup_blocker(&g, Bb::EMPTY, q, e), Some(1));
    // Two separate parts add up.
    let (g, p) = grid("X.#.X.");
    let (q, e) = sets(&p);
    assert_eq!(db.lookup_simple(&g, q, e), Some(1 + 2));
    // No queens: no moves; overlapping sets: no answer.
    assert_eq!(db.lookup_simple(&g, Bb::EMPTY, e), Some(0));
    assert_eq!(db.lookup_simple(&g, q, e | q), None);
    // Too large for the small set (a 3x3 block has 9 squares).
    let (g, p) = grid("X..|...|...");
    let (q, e) = sets(&p);
    assert_eq!(db.lookup_simple(&g, q, e), None);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Random boards with arrows and Black queens: every covered part's lookup equals a fresh
/// exhaustive search (the checker's one-player maximum, or the audit's blocker search with
/// a random subset of the part's queens as blockers). Territories appear anywhere and in
/// any orientation.
#[test]
fn lookup_agrees_with_fresh_search_on_random_territories() {
    let (dir, db) = small_db("random");
    let mut rng = Rng(12345);
    let (mut simple_hits, mut blocker_hits) = (0, 0);
    for _ in 0..2000 {
        let w = 2 + rng.below(7) as usize;
        let h = 2 + rng.below(7) as usize;
        let board = Board::new(w, h).expect("board");
        let g = Geometry::new(board);
        let mut p = Position::empty(board, Color::Black);
        for c in p.cells.iter_mut() {
            if rng.below(100) < 55 {
                *c = Cell::Arrow;
            }
        }
        for _ in 0..1 + rng.below(4) {
            let sq = rng.below(p.cells.len() as u64) as usize;
            if p.cells[sq] == Cell::Empty {
                p.cells[sq] = Cell::Black;
            }
        }
        let (queens, empties) = sets(&p);
        let mut rest = queens | empties;
        while let Some(s) = rest.first() {
            let comp = g.flood(Bb::from_square(s), queens | empties);
            rest = rest - comp;
            let (cq, ce) = (queens & comp, empties & comp);
            if cq.is_empty() {
                continue;
            }
            let squares: Vec<usize> = comp.iter().map(|x| x as usize).collect();
            let local = rules::restrict(&p, &squares);
            if let Some(v) = db.lookup_simple(&g, cq, ce) {
                assert_eq!(
                    v as u32,
                    rules::one_player_max(&local, Color::Black),
                    "simple {}",
                    local.grid()
                );
                simple_hits += 1;
            }
            let mut bl = Bb::EMPTY;
            for s in cq.iter() {
                if rng.below(2) == 0 {
                    bl |= Bb::from_square(s);
                }
            }
            if let Some(v) = db.lookup_blocker(&g, cq - bl, bl, ce) {
                let bsq: Vec<usize> = bl.iter().map(|x| x as usize).collect();
                assert_eq!(
                    v as u32,
                    blocker_max(&local, &bsq),
                    "blocker {} blockers {bsq:?}",
                    local.grid()
                );
                blocker_hits += 1;
            }
        }
    }
    assert!(simple_hits > 500, "only {simple_hits} simple lookups hit");
    assert!(
        blocker_hits > 300,
        "only {blocker_hits} blocker lookups hit"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every sampled entry, placed in all 8 orientations at random spots of random boards, looks
/// up to its stored value.
#[test]
fn lookup_is_invariant_under_symmetry_and_translation() {
    let (dir, db) = small_db("sym");
    let mut rng = Rng(99);
    for t in [db.simple(), db.blocker()] {
        for _ in 0..300 {
            let e = t.decode(rng.below(t.entries())).expect("entry");
            for sym in 0..8u8 {
                let board = Board::new(8 + rng.below(3) as usize, 8 + rng.below(3) as usize)
                    .expect("board");
                let g = Geometry::new(board);
                let (dx, dy) = (rng.below(3) as u32, rng.below(3) as u32);
                let (q, b, em) = embed(&e, &g, sym, dx, dy).expect("fits");
                assert_eq!(
                    db.lookup_blocker(&g, q, b, em),
                    Some(e.value),
                    "{e:?} sym {sym}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The full independent audit of a freshly built set finds nothing.
#[test]
fn audit_of_fresh_build_passes() {
    let (dir, _db) = small_db("audit-ok");
    let report = audit(&dir, None).expect("audit");
    assert!(report.ok(), "{report}");
    assert!(
        report.checked.simple > 10_000 && report.checked.blocker > 10_000,
        "{report}"
    );
    let sampled = audit(&dir, Some((500, 7))).expect("audit");
    assert!(sampled.ok() && sampled.checked.simple == 500, "{sampled}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Corrupting one entry and fixing the hash passes every integrity check; only the audit
/// notices, and it names that entry (in each table).
#[test]
fn audit_catches_a_tampered_entry_with_fixed_hash() {
    let (dir, db) = small_db("tamper");
    for (name, t) in [(SIMPLE_FILE, db.simple()), (BLOCKER_FILE, db.blocker())] {
        // A defective-free entry with at least one move, in the middle of the file.
        let target = (t.entries() / 2..t.entries())
            .find(|&e| t.values[e as usize] >= 2)
            .expect("an entry with value >= 2");
        let path = dir.join(name);
        let original = std::fs::read(&path).expect("read");
        let mut bytes = original.clone();
        let at = store::value_offset(t.shapes.len() as u32, target) as usize;
        bytes[at] -= 1;
        std::fs::write(&path, &bytes).expect("write");
        assert!(matches!(
            Database::open(&dir),
            Err(DbError::HashMismatch(_))
        ));
        store::reseal(&mut bytes);
        std::fs::write(&path, &bytes).expect("write");
        Database::open(&dir).expect("a resealed file passes the integrity checks");
        let report = audit(&dir, None).expect("audit");
        assert!(!report.ok());
        assert_eq!(report.mismatch_count, 1, "{report}");
        let m = &report.mismatches[0];
        assert_eq!(
            (m.kind, m.entry, m.file_offset),
            (t.kind, target, at as u64),
            "{report}"
        );
        assert_eq!(m.stored as u32 + 1, m.recomputed, "{report}");
        assert!(report.to_string().contains(&format!("entry {target}")));
        std::fs::write(&path, &original).expect("restore");
    }
    assert!(audit(&dir, None).expect("audit").ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Missing, truncated, extended, foreign, outdated and corrupted files give typed errors.
#[test]
fn damaged_files_give_typed_errors() {
    let (dir, _db) = small_db("damage");
    let path = dir.join(SIMPLE_FILE);
    let good = std::fs::read(&path).expect("read");
    let put = |b: &[u8]| std::fs::write(&path, b).expect("write");
    let open_err = || Database::open(&dir).expect_err("must fail");

    put(&good[..good.len() - 100]);
    assert!(
        matches!(open_err(), DbError::BadSentinel(_)),
        "{}",
        open_err()
    );
    put(&good[..20]);
    assert!(
        matches!(open_err(), DbError::Truncated { .. }),
        "{}",
        open_err()
    );
    put(&good[..0]);
    assert!(matches!(open_err(), DbError::BadMagic(_)));
    let mut longer = good.clone();
    longer.extend_from_slice(b"junk");
    put(&longer);
    assert!(matches!(open_err(), DbError::BadSentinel(_)));
    let mut b = good.clone();
    b[0] = b'Z';
    put(&b);
    assert!(matches!(open_err(), DbError::BadMagic(_)));
    let mut b = good.clone();
    b[8] = 99;
    store::reseal(&mut b);
    put(&b);
    assert!(matches!(open_err(), DbError::Version { found: 99, .. }));
    let mut b = good.clone();
    let mid = b.len() / 2;
    b[mid] ^= 0x40;
    put(&b);
    assert!(matches!(open_err(), DbError::HashMismatch(_)));
    // A region key replaced by a non-canonical shape, hash fixed: still refused.
    let mut b = good.clone();
    b[store::HEADER_LEN..store::HEADER_LEN + 16].copy_from_slice(&2u128.to_le_bytes());
    store::reseal(&mut b);
    put(&b);
    assert!(
        matches!(open_err(), DbError::Malformed { .. }),
        "{}",
        open_err()
    );
    assert!(open_err().needs_rebuild());
    // The two files swapped.
    let blocker = std::fs::read(dir.join(BLOCKER_FILE)).expect("read");
    put(&blocker);
    assert!(matches!(open_err(), DbError::Malformed { .. }));
    std::fs::remove_file(&path).expect("remove");
    assert!(matches!(open_err(), DbError::Missing(_)));

    // open_or_build rebuilds and then opens.
    let mut notes = Vec::new();
    let (db, summary) = Database::open_or_build(
        &dir,
        &small_config(),
        &mut |s| notes.push(s.to_string()),
        &mut |_| {},
    )
    .expect("rebuild");
    assert!(summary.is_some() && notes.len() == 1, "{notes:?}");
    assert!(db.config_matches(&small_config()));
    assert_eq!(
        std::fs::read(&path).expect("read"),
        good,
        "the build is deterministic"
    );
    let (_, again) =
        Database::open_or_build(&dir, &small_config(), &mut |_| {}, &mut |_| {}).expect("open");
    assert!(again.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn config_validation() {
    assert!(DbConfig::default().validate().is_ok());
    let bad = DbConfig {
        blocker_max_queens: 5,
        ..DbConfig::default()
    };
    assert!(matches!(bad.validate(), Err(DbError::Config(_))));
    let bad = DbConfig {
        blocker_rect: (4, 4),
        ..DbConfig::default()
    };
    assert!(bad.validate().is_err());
    let bad = DbConfig {
        max_size: 11,
        ..DbConfig::default()
    };
    assert!(bad.validate().is_err());
}

/// Stats report what was built; decoding an entry gives a position the checker agrees with.
#[test]
fn stats_and_decoding() {
    let (dir, db) = small_db("stats");
    let s = stats(&dir).expect("stats");
    let counts: Vec<usize> = s
        .simple
        .regions_by_size
        .iter()
        .take(6)
        .map(|r| r.1)
        .collect();
    assert_eq!(counts, [1, 2, 5, 22, 94, 524]);
    assert_eq!(s.simple.entries, db.simple().entries());
    assert_eq!(
        s.simple.file_bytes,
        std::fs::metadata(dir.join(SIMPLE_FILE))
            .expect("meta")
            .len()
    );
    assert!(s.to_string().contains("blake3"));
    let e = db.simple().decode(12345).expect("entry");
    let (p, b) = entry_position(&e).expect("position");
    assert!(b.is_empty());
    assert_eq!(rules::one_player_max(&p, Color::Black), e.value as u32);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_lookup_runs() {
    let (dir, db) = small_db("bench");
    let per = bench_lookup(&db, 200_000);
    eprintln!("lookup: {} ns/query", per.as_nanos());
    assert!(per > Duration::ZERO && per < Duration::from_micros(20));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Builds the default set (slow; run with `--ignored`), reports time and size, and checks a
/// sample with the independent audit.
#[test]
#[ignore]
fn default_set_builds_and_audits() {
    let dir = tempdir("default");
    let t = Instant::now();
    let summary = build(&dir, &DbConfig::default(), &mut |p| eprintln!("{p}")).expect("build");
    eprintln!("{summary}");
    assert!(t.elapsed() < Duration::from_secs(15 * 60));
    let db = Database::open(&dir).expect("open");
    eprintln!("{}", stats_db(&db));
    eprintln!(
        "lookup: {} ns/query",
        bench_lookup(&db, 2_000_000).as_nanos()
    );
    let report = audit_db(&db, Some((2000, 1)), 2);
    eprintln!("{report}");
    assert!(report.ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Lookup benchmark on the default set kept in `$AMAZONS_DB_DIR` (built if missing); run
/// with `--ignored --nocapture`.
#[test]
#[ignore]
fn bench_default_set() {
    let dir = default_dir();
    let (db, _) = Database::open_or_build(
        &dir,
        &DbConfig::default(),
        &mut |s| eprintln!("{s}"),
        &mut |_| {},
    )
    .expect("database");
    for _ in 0..3 {
        eprintln!(
            "lookup (256 territories): {} ns/query",
            bench_lookup(&db, 5_000_000).as_nanos()
        );
        for d in [4096, 100_000] {
            let t = bench_lookup_spread(&db, 2_000_000, d).as_nanos();
            eprintln!("lookup ({d} territories): {t} ns/query");
        }
    }
}

/// Warm lookup benchmark only (for profiling).
#[test]
#[ignore]
fn bench_warm_only() {
    let t = Instant::now();
    let db = Database::open(&default_dir()).expect("database");
    eprintln!("open: {:.1?}", t.elapsed());
    eprintln!(
        "lookup (256 territories): {} ns/query",
        bench_lookup(&db, 20_000_000).as_nanos()
    );
}

/// Builds the set given by `AMAZONS_DB_CONFIG=max_size,short,long,queens,bmax_size,bshort,blong,bqueens`
/// into `$AMAZONS_DB_DIR` and prints the summary (for sizing the default set).
#[test]
#[ignore]
fn build_config_from_env() {
    let spec = std::env::var("AMAZONS_DB_CONFIG").unwrap_or_default();
    let v: Vec<u8> = spec
        .split(',')
        .filter_map(|x| x.trim().parse().ok())
        .collect();
    let cfg = match v[..] {
        [a, b, c, d, e, f, g, h] => DbConfig {
            max_size: a,
            rect: (b, c),
            max_queens: d,
            blocker_max_size: e,
            blocker_rect: (f, g),
            blocker_max_queens: h,
            ..DbConfig::default()
        },
        _ => DbConfig::default(),
    };
    eprintln!("{cfg:?}");
    let summary = build(&default_dir(), &cfg, &mut |p| eprintln!("{p}")).expect("build");
    eprintln!("{summary}");
}

/// Audits `$AMAZONS_DB_DIR` with a sample of `$AMAZONS_DB_AUDIT_SAMPLE` entries per table
/// (all entries if unset), building the default set first if needed.
#[test]
#[ignore]
fn audit_from_env() {
    let dir = default_dir();
    Database::open_or_build(
        &dir,
        &DbConfig::default(),
        &mut |s| eprintln!("{s}"),
        &mut |_| {},
    )
    .expect("database");
    let sample = std::env::var("AMAZONS_DB_AUDIT_SAMPLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .map(|n| (n, 2024));
    let report = audit(&dir, sample).expect("audit");
    eprintln!("{report}");
    assert!(report.ok());
}
