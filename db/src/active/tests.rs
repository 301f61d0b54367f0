//! Active-area database tests: build, lookups against fresh cgt computations, audit and
//! tamper detection, MCGS outcomes and thermographs, damaged files, value report, benchmark.

use super::audit::*;
use super::build::*;
use super::file::*;
use super::layout::*;
use super::table::*;
use super::*;
use crate::checkpoint;
use crate::simple::tests::tempdir;
use crate::store::reseal;
use crate::store::DbError;
use crate::Rng;
use amazons_board::bitboard::Bb;
use amazons_board::bounds as eb;
use amazons_board::geometry::Geometry;
use amazons_cgt::{CgtError, Class, GameId, GameStore, Outcome, Rational};
use amazons_format::{Board, Cell, Color, Position};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// One tiny table (2x4 and 3x3 areas, values stored) shared by the tests of this process.
fn tiny() -> &'static (PathBuf, ActiveDb, ActiveSummary) {
    static DB: OnceLock<(PathBuf, ActiveDb, ActiveSummary)> = OnceLock::new();
    DB.get_or_init(|| {
        sweep_stale_tiny();
        let dir = tempdir("active-tiny");
        let summary = build_active(&dir, &ActiveConfig::tiny(), &mut |_| {}).expect("build");
        let db = ActiveDb::open(&dir).expect("open");
        (dir, db, summary)
    })
}

/// The prefix of [`tiny`]'s directory, before the process id.
const TINY_PREFIX: &str = "amazons-db-test-active-tiny-";

/// Removes the tiny tables of test processes that are no longer running: a static is
/// never dropped, so each process leaves its table behind. Only on Linux, where `/proc`
/// says which processes run.
fn sweep_stale_tiny() {
    if !cfg!(target_os = "linux") {
        return;
    }
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix(TINY_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            let running =
                pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists();
            if !running {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

#[test]
fn the_tiny_tables_of_finished_test_processes_are_swept() {
    // No process has this id (above Linux's largest, 2^22); this one does.
    let tmp = std::env::temp_dir();
    let stale = tmp.join(format!("{TINY_PREFIX}4000000000-ThreadId(2)"));
    let ours = tmp.join(format!("{TINY_PREFIX}{}-sweep-test", std::process::id()));
    for d in [&stale, &ours] {
        std::fs::create_dir_all(d).expect("create");
        std::fs::write(d.join("x"), b"x").expect("write");
    }
    sweep_stale_tiny();
    assert_eq!(
        stale.exists(),
        !cfg!(target_os = "linux"),
        "{}",
        stale.display()
    );
    assert!(ours.exists(), "{}", ours.display());
    let _ = std::fs::remove_dir_all(&ours);
    let _ = std::fs::remove_dir_all(&stale);
}

fn grid(text: &str) -> Position {
    Position::parse_grid(text, Color::Black).expect("grid")
}

fn fresh(p: &Position) -> (GameStore, GameId) {
    let mut s = GameStore::new();
    let g = s.value_of_area(p).expect("value");
    (s, g)
}

#[test]
fn active_tiny_build_known_values() {
    let (_, db, summary) = tiny();
    eprintln!("{summary}");
    assert!(summary.mixed_entries > 0);
    // X.O in a corridor is *.
    let e = db.lookup_position(&grid("X.O")).expect("covered");
    assert_eq!(e.class, Class::Star);
    assert_eq!(e.value, Some("*"));
    assert_eq!(e.outcome, Outcome::N);
    // Black alone with one empty square: the number 1.
    let e = db.lookup_position(&grid("X.")).expect("covered");
    assert_eq!(e.class, Class::Number(Rational::int(1)));
    assert_eq!(e.bounds, eb::Bounds::exact(1));
    // Not connected, or not covered (a 1x5 corridor is covered, a 3x4 block is not).
    assert!(db.lookup_position(&grid("X#O")).is_none());
    assert!(db.lookup_position(&grid("X..O")).is_some());
    assert!(db.lookup_position(&grid("X...O")).is_none());
    assert!(db.lookup_position(&grid("X...|....|...O")).is_none());
}

/// Random boards, random covered areas in random places and orientations: the lookup
/// equals a fresh `value_of_area` of the same area on the whole board.
#[test]
fn active_lookup_matches_fresh_cgt_on_random_boards() {
    let (_, db, _) = tiny();
    let mut rng = Rng(0x5EED_AC71);
    let mut checked = 0;
    let mut tries = 0;
    while checked < 300 && tries < 100_000 {
        tries += 1;
        let (bw, bh) = (3 + rng.below(8) as usize, 3 + rng.below(8) as usize);
        let board = Board::new(bw, bh).expect("board");
        let g = Geometry::new(board);
        // A random connected area grown from a seed, inside a random 3x3 or 2x4 window.
        let (ww, wh) = match rng.below(3) {
            0 => (3, 3),
            1 => (2, 4),
            _ => (4, 2),
        };
        if ww > bw || wh > bh {
            continue;
        }
        let (ox, oy) = (
            rng.below((bw - ww + 1) as u64) as usize,
            rng.below((bh - wh + 1) as u64) as usize,
        );
        let mut window = Bb::EMPTY;
        for y in oy..oy + wh {
            for x in ox..ox + ww {
                window |= Bb::from_square(board.square(x, y));
            }
        }
        let mut area = Bb::EMPTY;
        for sq in window.iter() {
            if rng.below(4) != 0 {
                area |= Bb::from_square(sq);
            }
        }
        let Some(seed) = area.first() else { continue };
        let area = g.flood(Bb::from_square(seed), area);
        let sqs: Vec<u8> = area.iter().collect();
        if sqs.len() < 3 {
            continue;
        }
        let (mut black, mut white) = (Bb::EMPTY, Bb::EMPTY);
        for &s in &sqs {
            match rng.below(5) {
                0 => black |= Bb::from_square(s),
                1 => white |= Bb::from_square(s),
                _ => {}
            }
        }
        if black.is_empty() || white.is_empty() {
            continue;
        }
        let empties = area - black - white;
        let entry = db
            .lookup_active(&g, white, black, empties)
            .expect("covered area");
        // The same area on the whole board, everything else an arrow.
        let mut p = Position::empty(board, Color::Black);
        for (i, c) in p.cells.iter_mut().enumerate() {
            let b = Bb::from_square(i as u8);
            *c = if (black & b).any() {
                Cell::Black
            } else if (white & b).any() {
                Cell::White
            } else if (empties & b).any() {
                Cell::Empty
            } else {
                Cell::Arrow
            };
        }
        let (mut s, v) = fresh(&p);
        let th = s.thermograph(v);
        assert_eq!(&th, entry.thermograph, "thermograph of {}", p.grid());
        assert_eq!(s.classify(v), entry.class, "class of {}", p.grid());
        assert_eq!(s.outcome(v), entry.outcome, "outcome of {}", p.grid());
        let d = s.display(v);
        match entry.value {
            Some(x) => assert_eq!(x, d, "value of {}", p.grid()),
            None => assert!(
                d.len() > DEFAULT_VALUE_LEN as usize,
                "value of {}",
                p.grid()
            ),
        }
        assert_eq!(to_eval_bounds(s.bounds(v)), entry.exact_bounds);
        assert_eq!(to_eval_bounds(th.bounds()), entry.bounds);
        checked += 1;
    }
    assert_eq!(checked, 300);
}

#[test]
fn active_audit_passes_then_names_a_corrupted_entry() {
    let (dir, db, _) = tiny();
    let report = audit_active(db, Some((300, 7)), 2);
    eprintln!("{report}");
    assert!(report.ok(), "{report}");
    assert_eq!(report.checked.entries, 300);

    // Corrupt the record id of one mixed entry to a record with another outcome and
    // thermograph, fix the file hash: the file opens, the audit names the entry.
    let target = (0..db.entries())
        .find(|&e| {
            db.decode(e)
                .is_some_and(|p| p.black != 0 && p.white != 0 && p.shape.count_ones() == 6)
        })
        .expect("a mixed entry");
    let old = db.record_of(target).expect("record");
    let old_rec = &db.records[old as usize];
    let new = db
        .records
        .iter()
        .position(|r| r.outcome != old_rec.outcome && r.thermo != old_rec.thermo)
        .expect("another record") as u32;
    let mut bytes = std::fs::read(dir.join(ACTIVE_FILE)).expect("read");
    let (at, width) = db.id_offset(target);
    assert_eq!(width, 2);
    bytes[at as usize..at as usize + 2].copy_from_slice(&(new as u16).to_le_bytes());
    reseal(&mut bytes);
    let bad_dir = tempdir("active-tamper");
    std::fs::create_dir_all(&bad_dir).expect("dir");
    std::fs::write(bad_dir.join(ACTIVE_FILE), &bytes).expect("write");
    let bad = ActiveDb::open(&bad_dir).expect("a resealed file passes the integrity checks");
    assert_eq!(bad.record_of(target), Some(new));
    // A sample that includes the entry (all entries of its region's neighbourhood) and the
    // full audit both name it.
    let report = audit_active(&bad, None, 2);
    assert!(!report.ok());
    assert_eq!(report.mismatch_count, 1, "{report}");
    let m = &report.mismatches[0];
    assert_eq!(m.entry, target);
    assert_eq!(m.file_offset, at);
    assert!(m.what.contains("outcome"), "{m}");
    eprintln!("{m}");
    let _ = std::fs::remove_dir_all(&bad_dir);
}

/// The MCGS file lines: `(grid, black_first_wins, white_first_wins)`.
fn mcgs(name: &str) -> Vec<(String, bool, bool)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/mcgs")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("MCGS test data in tests/data/mcgs");
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((g, rest)) = line.trim().split_once('{') else {
            continue;
        };
        if !g.contains('|') {
            continue;
        }
        let b = rest.contains("B win");
        let w = rest.contains("W win");
        assert!(b || rest.contains("B loss"), "{line}");
        assert!(w || rest.contains("W loss"), "{line}");
        out.push((g.trim().to_string(), b, w));
    }
    out
}

/// The outcome classes of the MCGS 3x3 positions from the database: each area of the
/// position is looked up; a sum of areas is added up from the stored canonical values.
#[test]
fn active_mcgs_3x3_outcomes_from_the_database() {
    let (_, db, _) = tiny();
    let cases = mcgs("amazons_3x3.test");
    assert_eq!(cases.len(), 55);
    let mut store = GameStore::new();
    let mut looked_up = 0;
    for (text, b, w) in &cases {
        let p = grid(text);
        let g = Geometry::new(p.board);
        let mut open = Bb::EMPTY;
        let (mut black, mut white) = (Bb::EMPTY, Bb::EMPTY);
        for (i, c) in p.cells.iter().enumerate() {
            let s = Bb::from_square(i as u8);
            match c {
                Cell::Black => black |= s,
                Cell::White => white |= s,
                Cell::Empty => {}
                Cell::Arrow => continue,
            }
            open |= s;
        }
        let mut sum = store.zero();
        let mut rest = open;
        while let Some(seed) = rest.first() {
            let comp = g.flood(Bb::from_square(seed), open);
            rest = rest - comp;
            let (cb, cw) = (black & comp, white & comp);
            if (cb | cw).is_empty() {
                continue;
            }
            let e = db
                .lookup_active(&g, cw, cb, comp - cb - cw)
                .unwrap_or_else(|| panic!("{text}: area not covered"));
            looked_up += 1;
            let v = store.parse(e.value.expect("values stored")).expect("parse");
            sum = store.add(sum, v);
        }
        let o = store.outcome(sum);
        assert_eq!(
            (o.left_wins_moving_first(), o.right_wins_moving_first()),
            (*b, *w),
            "{text}"
        );
    }
    eprintln!(
        "{} MCGS 3x3 positions, {looked_up} areas looked up",
        cases.len()
    );
    assert!(looked_up >= 50);
}

/// The ten CGSuite thermographs of 3x3 positions, point for point, from the database
/// (the positions that are a single area).
#[test]
fn active_mcgs_thermographs_from_the_database() {
    let (_, db, _) = tiny();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/mcgs/amazons_3x3_thermographs.test");
    let text = std::fs::read_to_string(path).expect("MCGS thermographs");
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let mut n = 0;
    let mut single = 0;
    for (i, l) in lines.iter().enumerate() {
        if !(l.contains('|') && !l.starts_with('L') && !l.starts_with('R')) {
            continue;
        }
        let left = lines[i + 2].strip_prefix("L:").expect("L line").trim();
        let right = lines[i + 3].strip_prefix("R:").expect("R line").trim();
        n += 1;
        let Some(e) = db.lookup_position(&grid(l)) else {
            continue;
        };
        single += 1;
        assert_eq!(e.thermograph.left.point_string(), left, "{l}");
        assert_eq!(e.thermograph.right.point_string(), right, "{l}");
    }
    assert_eq!(n, 10);
    eprintln!("{single} of {n} thermograph positions are single areas");
    assert!(single >= 1);
}

#[test]
fn active_damaged_files_give_typed_errors() {
    let (dir, _, _) = tiny();
    let good = std::fs::read(dir.join(ACTIVE_FILE)).expect("read");
    let p = Path::new("x.amzdb");
    assert!(decode(p, &good).is_ok());
    // Missing file.
    let empty = tempdir("active-missing");
    assert!(matches!(ActiveDb::open(&empty), Err(DbError::Missing(_))));
    // Bad magic.
    let mut b = good.clone();
    b[0] ^= 1;
    assert!(matches!(decode(p, &b), Err(DbError::BadMagic(_))));
    // Other version.
    let mut b = good.clone();
    b[8] = 9;
    assert!(matches!(
        decode(p, &b),
        Err(DbError::Version { found: 9, .. })
    ));
    // Truncated: the sentinel is gone.
    let b = &good[..good.len() - 100];
    assert!(matches!(decode(p, b), Err(DbError::BadSentinel(_))));
    let b = &good[..20];
    assert!(matches!(decode(p, b), Err(DbError::Truncated { .. })));
    // A flipped byte in the body.
    let mut b = good.clone();
    let mid = b.len() / 2;
    b[mid] ^= 0x40;
    assert!(matches!(decode(p, &b), Err(DbError::HashMismatch(_))));
    // Resealed but inconsistent: a record id out of range.
    let mut b = good.clone();
    let at = b.len() - 40 - 2;
    b[at..at + 2].copy_from_slice(&u16::MAX.to_le_bytes());
    reseal(&mut b);
    assert!(matches!(decode(p, &b), Err(DbError::Malformed { .. })));
    // Resealed with a territory kind byte.
    let mut b = good.clone();
    b[12] = 1;
    reseal(&mut b);
    assert!(matches!(decode(p, &b), Err(DbError::Malformed { .. })));
    // A territory file is not an active file, and a damaged one is rebuilt (and then
    // opened as it is).
    let d = tempdir("active-rebuild");
    std::fs::create_dir_all(&d).expect("dir");
    let mut b = good.clone();
    b[mid] ^= 0x40;
    std::fs::write(d.join(ACTIVE_FILE), &b).expect("write");
    let cfg = ActiveConfig {
        tiers: vec![Tier::new(1, 5, 5)],
        max_value_len: 0,
    };
    let open_or_build = |notice: &mut dyn FnMut(&str)| {
        crate::store::open_or_rebuild(
            "active database",
            || ActiveDb::open(&d),
            |db| db.config == cfg,
            || build_active(&d, &cfg, &mut |_| {}),
            notice,
        )
    };
    let mut notices = Vec::new();
    let (db, summary) = open_or_build(&mut |s| notices.push(s.to_string())).expect("rebuild");
    assert!(summary.is_some());
    assert!(notices[0].contains("blake3"), "{notices:?}");
    assert_eq!(db.config, cfg);
    assert!(db
        .lookup_position(&grid("X.O"))
        .is_some_and(|e| e.value.is_none()));
    let (_, again) = open_or_build(&mut |_| {}).expect("open");
    assert!(again.is_none());
    let _ = std::fs::remove_dir_all(&d);
}

/// Decodes `bytes` from memory and, written to a file, by the streaming loader.
fn both_ways(bytes: &[u8]) -> (Result<ActiveDb, DbError>, Result<ActiveDb, DbError>) {
    let d = tempdir("active-stream");
    std::fs::create_dir_all(&d).expect("dir");
    std::fs::write(d.join(ACTIVE_FILE), bytes).expect("write");
    let streamed = ActiveDb::open_with(&d, 0);
    let _ = std::fs::remove_dir_all(&d);
    (decode(Path::new("x.amzdb"), bytes), streamed)
}

#[test]
fn streaming_load_gives_the_same_table_and_the_same_errors() {
    let (dir, _, _) = tiny();
    let good = std::fs::read(dir.join(ACTIVE_FILE)).expect("read");
    let (a, b) = both_ways(&good);
    let (a, b) = (a.expect("decode"), b.expect("stream"));
    assert_eq!(a.hash, b.hash);
    assert_eq!(a.file_bytes, b.file_bytes);
    assert_eq!(a.file_bytes, good.len() as u64);
    assert_eq!(a.config, b.config);
    assert_eq!(a.shapes, b.shapes);
    assert_eq!(a.thermographs, b.thermographs);
    assert_eq!(a.records, b.records);
    assert_eq!(a.converted, b.converted);
    assert_eq!(a.ids, b.ids);
    assert_eq!((a.ids_at, a.id_width), (b.ids_at, b.id_width));
    assert!(!b.ids.is_empty() && !b.records.is_empty());
    // Damaged copies: each is refused by both loaders with the same kind of error.
    let kind = |r: &Result<ActiveDb, DbError>| match r {
        Ok(_) => "ok",
        Err(DbError::BadMagic(_)) => "magic",
        Err(DbError::Version { .. }) => "version",
        Err(DbError::BadSentinel(_)) => "sentinel",
        Err(DbError::Truncated { .. }) => "truncated",
        Err(DbError::HashMismatch(_)) => "hash",
        Err(DbError::Malformed { .. }) => "malformed",
        Err(_) => "other",
    };
    let mid = good.len() / 2;
    let mut cases: Vec<(Vec<u8>, &str)> = Vec::new();
    let mut b = good.clone();
    b[0] ^= 1;
    cases.push((b, "magic"));
    let mut b = good.clone();
    b[8] = 9;
    cases.push((b, "version"));
    cases.push((good[..good.len() - 100].to_vec(), "sentinel"));
    cases.push((good[..20].to_vec(), "truncated"));
    let mut b = good.clone();
    b[mid] ^= 0x40;
    cases.push((b, "hash"));
    let mut b = good.clone();
    let last = b.len() - 41;
    b[last] ^= 1;
    cases.push((b, "hash"));
    let mut b = good.clone();
    let at = b.len() - 40 - 2;
    b[at..at + 2].copy_from_slice(&u16::MAX.to_le_bytes());
    reseal(&mut b);
    cases.push((b, "malformed"));
    let mut b = good.clone();
    b[12] = 1;
    reseal(&mut b);
    cases.push((b, "malformed"));
    // Resealed with one more entry in the header than the regions need.
    let mut b = good.clone();
    let e = u64::from_le_bytes(b[24..32].try_into().expect("8 bytes")) + 1;
    b[24..32].copy_from_slice(&e.to_le_bytes());
    reseal(&mut b);
    cases.push((b, "malformed"));
    // Resealed with the id table cut short by one id.
    let mut b = good.clone();
    let w = b[15] as usize;
    b.drain(b.len() - 40 - w..b.len() - 40);
    reseal(&mut b);
    cases.push((b, "malformed"));
    for (i, (bytes, want)) in cases.iter().enumerate() {
        let (a, s) = both_ways(bytes);
        assert_eq!((i, kind(&a)), (i, *want), "from memory");
        assert_eq!((i, kind(&s)), (i, *want), "streamed");
    }
}

#[test]
fn active_value_report_prints_value_thermograph_and_class() {
    let r = value_report(&grid("X.O")).expect("report");
    assert!(r.contains("value: *"), "{r}");
    assert!(r.contains("L: (1, -1) (0, 0)"), "{r}");
    assert!(r.contains("class: star"), "{r}");
    let r = value_report(&grid("..O|...|..X")).expect("report");
    assert!(
        r.contains("L: (1, -1) (1, 0) (1/2, 1/2) (1/2, 9/4) (0, 11/4)"),
        "{r}"
    );
    assert!(r.contains("R: (-1, -1) (-1, 0) (-1/2, 1/2) (-1/2, 9/4) (0, 11/4)"));
    assert!(r.contains("temperature: 11/4"), "{r}");
    assert!(r.contains("class: hot"), "{r}");
    eprintln!("{r}");
    assert!(matches!(
        value_report_with_limit(&grid("X...|....|...O"), 10),
        Err(CgtError::TooComplex { .. })
    ));
}

#[test]
fn active_bench_lookup() {
    let (_, db, _) = tiny();
    let t = bench_active_lookup(db, 200_000);
    eprintln!("active lookup: {t:?} per query");
    assert!(t > Duration::ZERO);
}

/// Measures a build: `AMAZONS_ACTIVE_TIERS="2x6:12,3x4:12" AMAZONS_ACTIVE_DIR=... cargo test
/// --release -p amazons-solver --lib db::active::tests::active_measure_build -- --ignored
/// --nocapture` (`amazons db build-active --tiers` builds the same table).
#[test]
#[ignore]
fn active_measure_build() {
    let tiers = std::env::var("AMAZONS_ACTIVE_TIERS").unwrap_or_else(|_| "2x6:12,3x4:12".into());
    let mut cfg = ActiveConfig::parse_tiers(&tiers).expect("AMAZONS_ACTIVE_TIERS");
    if let Some(len) = std::env::var("AMAZONS_ACTIVE_VALUES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        cfg.max_value_len = len;
    }
    eprintln!(
        "{}: {} entries",
        cfg.describe(),
        cfg.entry_count().expect("valid")
    );
    if std::env::var("AMAZONS_ACTIVE_COUNT_ONLY").is_ok() {
        return;
    }
    let dir = std::env::var("AMAZONS_ACTIVE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| tempdir("active-measure"));
    let s = build_active(&dir, &cfg, &mut |p| eprintln!("{p}")).expect("build");
    eprintln!("{s}");
    let t = Instant::now();
    let db = ActiveDb::open(&dir).expect("open");
    eprintln!("opened in {:.1?}\n{db}", t.elapsed());
    eprintln!("lookup {:?}", bench_active_lookup(&db, 1_000_000));
    let report = audit_active(&db, Some((500, 1)), 2);
    eprintln!("{report}");
    assert!(report.ok());
}

#[test]
fn active_layout_round_trips() {
    let layout = ActiveLayout::new(vec![2, 3, 12]);
    for ci in 0..3 {
        for n in 1..=10u32 {
            for e in 0..layout.region_len(ci, n) {
                let (bm, wm) = layout.decode(ci, n, e).expect("in range");
                assert_eq!(layout.entry(ci, n, bm, wm), Some(e));
                assert_eq!(layout.entry32(ci, n, bm as u32, wm as u32), Some(e));
            }
            assert!(layout.decode(ci, n, layout.region_len(ci, n)).is_none());
        }
    }
    assert_eq!(
        ActiveConfig::tiny().entry_count().expect("valid"),
        tiny().1.entries()
    );
}

#[test]
fn active_tiers_parse_and_reject_bad_specs() {
    let std = ActiveConfig::parse_tiers("2x6:12, 3x4:12,5x3:1,4x4:1").expect("parse");
    assert_eq!(std, ActiveConfig::standard());
    // The paper preset is these tiers, so either resumes the other's checkpoint.
    let paper = ActiveConfig::parse_tiers("2x6,3x4,3x5,3x6:2,4x4:2").expect("parse");
    assert_eq!(paper, ActiveConfig::paper());
    // Without a cap every queen count is allowed (the area of the rectangle).
    let any = ActiveConfig::parse_tiers("2x3").expect("parse");
    assert_eq!(any.tiers, vec![Tier::new(2, 3, 6)]);
    for bad in ["", "3y5", "0x5", "5x5", "3x5:0", "3x5:x", "3x5:300", "x5"] {
        assert!(
            matches!(ActiveConfig::parse_tiers(bad), Err(DbError::Config(_))),
            "{bad:?} accepted"
        );
    }
}

#[test]
fn distinct_values_are_numbered_in_first_seen_order_even_when_every_hash_collides() {
    let words = ["star", "up", "star", "down", "up", "tiny", "star"];
    let expected = [0, 1, 0, 2, 1, 3, 0];
    let mut plain: Distinct<String> = Distinct::default();
    let mut colliding: Distinct<String> = Distinct::with_hash(|_| 7);
    for d in [&mut plain, &mut colliding] {
        let ids: Vec<u32> = words.iter().map(|w| d.id(w.to_string())).collect();
        assert_eq!(ids, expected);
        assert_eq!(d.items, ["star", "up", "down", "tiny"]);
    }
}

/// The table file's bytes in `dir`.
fn table_bytes(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join(ACTIVE_FILE)).expect("table file")
}

/// The build started afresh, having set a checkpoint aside for a reason saying `why`.
fn assert_set_aside(s: &ActiveSummary, why: &str) {
    assert_eq!(s.resumed_regions, 0);
    assert!(
        s.checkpoint_set_aside
            .as_deref()
            .is_some_and(|w| w.contains(why)),
        "{:?}",
        s.checkpoint_set_aside
    );
}

#[test]
fn progress_is_reported_within_a_region_and_counts_up_to_the_whole() {
    let dir = tempdir("active-progress");
    let control = BuildControl {
        checkpoints: Checkpoints {
            every: None,
            stop_after_regions: None,
        },
        report_every: Duration::ZERO,
        ..BuildControl::default()
    };
    let mut reports = Vec::new();
    let s = build_active_with(&dir, &ActiveConfig::tiny(), &control, &mut |p| {
        reports.push(p.clone())
    })
    .expect("build");
    let values: Vec<_> = reports.iter().filter(|p| !p.records).collect();
    let within: Vec<_> = values.iter().filter(|p| p.within.is_some()).collect();
    // The 3x3 regions have up to 3^9 positions, more than one tick's worth.
    assert!(!within.is_empty(), "no report inside a region");
    for p in &within {
        let (done, all) = p.within.expect("within");
        assert!(done > 0 && done <= all, "{p}");
        assert!(p.counts.regions < p.counts.regions_total, "{p}");
        assert!(p
            .to_string()
            .contains(&format!("in region {}", p.counts.regions + 1)));
    }
    for w in values.windows(2) {
        let (a, b) = (w[0].counts, w[1].counts);
        assert!(a.entries <= b.entries, "{} then {}", w[0], w[1]);
        assert!(a.regions <= b.regions, "{} then {}", w[0], w[1]);
    }
    let last = values.last().expect("a values report");
    assert_eq!(
        (last.counts.regions, last.counts.entries, last.within),
        (s.regions, last.counts.entries_total, None)
    );
    assert_eq!(
        table_bytes(&dir),
        table_bytes(&tiny().0),
        "reporting changes nothing"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_build_stopped_after_a_checkpoint_resumes_to_the_same_table() {
    let cfg = ActiveConfig::tiny();
    let whole = &tiny().0;
    let regions = tiny().2.regions;
    let every_region = |stop: Option<usize>| BuildControl {
        checkpoints: Checkpoints {
            every: Some(Duration::ZERO),
            stop_after_regions: stop,
        },
        // Caches cleared after every position and record: the same table all the same.
        cache_limit: 0,
        ..BuildControl::default()
    };

    // Stopped part-way, after the checkpoint, with no table written; then resumed.
    let dir = tempdir("active-checkpoint");
    let e = build_active_with(&dir, &cfg, &every_region(Some(regions / 2)), &mut |_| {})
        .expect_err("stopped");
    assert!(
        matches!(e, DbError::Stopped { regions: r } if r == regions / 2),
        "{e}"
    );
    assert!(
        !dir.join(ACTIVE_FILE).exists(),
        "no table before the build ends"
    );
    assert!(dir.join(checkpoint::CHECKPOINT_FILE).exists());
    let mut reports = Vec::new();
    let s = build_active_with(&dir, &cfg, &BuildControl::default(), &mut |p| {
        reports.push(p.counts.regions)
    })
    .expect("resumed build");
    assert_eq!(s.resumed_regions, regions / 2);
    assert_eq!(s.checkpoint_set_aside, None);
    assert_eq!(
        reports.first(),
        Some(&(regions / 2)),
        "the resume point is reported first"
    );
    assert_eq!(
        table_bytes(&dir),
        table_bytes(whole),
        "same table as a build in one go"
    );
    assert!(
        !dir.join(checkpoint::CHECKPOINT_FILE).exists(),
        "the checkpoint is removed with the table written"
    );

    // Stopped after the values phase: the resumed build only derives the records.
    let dir2 = tempdir("active-checkpoint-all");
    let e = build_active_with(&dir2, &cfg, &every_region(Some(regions)), &mut |_| {})
        .expect_err("stopped");
    assert!(
        matches!(e, DbError::Stopped { regions: r } if r == regions),
        "{e}"
    );
    let s = build_active(&dir2, &cfg, &mut |_| {}).expect("resumed build");
    assert_eq!(s.resumed_regions, regions);
    assert_eq!(table_bytes(&dir2), table_bytes(whole));

    // A damaged checkpoint is set aside: the build starts afresh, to the same table.
    build_active_with(&dir, &cfg, &every_region(Some(1)), &mut |_| {}).expect_err("stopped");
    let path = dir.join(checkpoint::CHECKPOINT_FILE);
    let mut bytes = std::fs::read(&path).expect("checkpoint");
    let at = bytes.len() - 33; // the store's last byte, before the hash
    bytes[at] ^= 1;
    std::fs::write(&path, &bytes).expect("damage");
    let s = build_active(&dir, &cfg, &mut |_| {}).expect("fresh build");
    assert_set_aside(&s, "damaged");
    assert_eq!(table_bytes(&dir), table_bytes(whole));

    // A checkpoint of another build is not used either.
    build_active_with(&dir, &cfg, &every_region(Some(1)), &mut |_| {}).expect_err("stopped");
    let other = ActiveConfig {
        max_value_len: 0,
        ..cfg.clone()
    };
    let s = build_active(&dir, &other, &mut |_| {}).expect("other build");
    assert_set_aside(&s, "another build");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&dir2);
}
