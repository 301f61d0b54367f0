//! Database files: versioned header, region list, one byte per entry, blake3 hash, sentinel.
//!
//! Layout (all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `AMZDB\0\r\n` |
//! | 8 | 4 | format version ([`VERSION`]) |
//! | 12 | 1 | kind (1 simple, 2 blocker) |
//! | 13 | 1 | `max_size` of the region spec |
//! | 14 | 2 | rectangle `(short, long)` of the region spec |
//! | 16 | 1 | largest number of queens (blockers included) |
//! | 17 | 3 | reserved, zero |
//! | 20 | 4 | region count `R` |
//! | 24 | 8 | entry count `E` |
//! | 32 | 16 R | canonical region shapes (`u128`, frame bit `y * 10 + x`), sorted by size then key |
//! | 32 + 16 R | E | entry values (maximum number of moves), in [`super::index`] order |
//! | 32 + 16 R + E | 32 | blake3 hash of every byte before it |
//! | end - 8 | 8 | sentinel `AMZDBEND` |
//!
//! Files are written to a temporary name and renamed into place, so a reader sees either the
//! old file or the complete new one. Every check a reader does fails with a typed
//! [`DbError`], so the caller can rebuild; a file that passes is never silently misread.

use super::index::{Kind, Layout, MAX_QUEENS};
use super::regions::{canonical, is_connected, RegionSpec, Shape, FRAME_ALL};
use std::path::{Path, PathBuf};

pub const MAGIC: [u8; 8] = *b"AMZDB\0\r\n";
pub const SENTINEL: [u8; 8] = *b"AMZDBEND";
pub const VERSION: u32 = 1;
pub const HEADER_LEN: usize = 32;
const TRAILER_LEN: usize = 32 + 8;

/// Why a database could not be built, opened or used.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database file {0} is missing (run `amazons db build`)")]
    Missing(PathBuf),
    #[error("cannot access {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{0} is not an Amazons database file (bad magic)")]
    BadMagic(PathBuf),
    #[error(
        "{path} has format version {found}, this program reads version {expected}; rebuild it"
    )]
    Version {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("{path} is truncated or has trailing bytes: {len} bytes, expected {expected}")]
    Truncated {
        path: PathBuf,
        len: u64,
        expected: u64,
    },
    #[error("{0} has no end sentinel (truncated or overwritten)")]
    BadSentinel(PathBuf),
    #[error("{0} is corrupt: the blake3 hash of its contents does not match")]
    HashMismatch(PathBuf),
    #[error("{path} is malformed: {reason}")]
    Malformed { path: PathBuf, reason: String },
    #[error("invalid database configuration: {0}")]
    Config(String),
    #[error("database build failed: {0}")]
    Build(String),
    #[error("the build stopped after its checkpoint at {regions} regions, as asked")]
    Stopped { regions: usize },
}

impl DbError {
    /// Whether rebuilding the files is the remedy (missing, corrupt or outdated file).
    pub fn needs_rebuild(&self) -> bool {
        !matches!(
            self,
            DbError::Io { .. } | DbError::Config(_) | DbError::Build(_) | DbError::Stopped { .. }
        )
    }
}

/// Opens a database with `open`; if it is missing, corrupt or outdated, or `fits` says it
/// was built with other parameters, reports why through `notice` and rebuilds it with
/// `build` (`what`: the database's name in the notice). The summary is the rebuild's.
pub(crate) fn open_or_rebuild<D, S>(
    what: &str,
    open: impl Fn() -> Result<D, DbError>,
    fits: impl FnOnce(&D) -> bool,
    build: impl FnOnce() -> Result<S, DbError>,
    notice: &mut dyn FnMut(&str),
) -> Result<(D, Option<S>), DbError> {
    match open() {
        Ok(db) if fits(&db) => return Ok((db, None)),
        Ok(_) => notice(&format!(
            "{what} parameters differ from the requested ones; rebuilding"
        )),
        Err(e) if e.needs_rebuild() => notice(&format!("{e}; rebuilding")),
        Err(e) => return Err(e),
    }
    let summary = build()?;
    Ok((open()?, Some(summary)))
}

/// The fixed part of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub kind: Kind,
    pub spec: RegionSpec,
    pub max_queens: u8,
    pub regions: u32,
    pub entries: u64,
}

/// A decoded file.
#[derive(Debug, Clone)]
pub struct RawTable {
    pub header: Header,
    pub shapes: Vec<Shape>,
    pub values: Vec<u8>,
    pub hash: [u8; 32],
    pub file_bytes: u64,
}

/// Byte offset of entry `e`'s value in a file with `regions` regions.
pub fn value_offset(regions: u32, e: u64) -> u64 {
    HEADER_LEN as u64 + 16 * regions as u64 + e
}

/// Serializes a table.
pub fn encode(header: &Header, shapes: &[Shape], values: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + 16 * shapes.len() + values.len() + TRAILER_LEN);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(header.kind.code());
    out.push(header.spec.max_size);
    out.push(header.spec.rect.0);
    out.push(header.spec.rect.1);
    out.push(header.max_queens);
    out.extend_from_slice(&[0, 0, 0]);
    out.extend_from_slice(&header.regions.to_le_bytes());
    out.extend_from_slice(&header.entries.to_le_bytes());
    for s in shapes {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out.extend_from_slice(values);
    let hash = blake3::hash(&out);
    out.extend_from_slice(hash.as_bytes());
    out.extend_from_slice(&SENTINEL);
    out
}

/// Recomputes the hash of an encoded file in place (for tamper tests: after editing an entry,
/// the file passes every integrity check and only an audit can notice).
pub fn reseal(bytes: &mut [u8]) {
    if bytes.len() < HEADER_LEN + TRAILER_LEN {
        return;
    }
    let body = bytes.len() - TRAILER_LEN;
    let hash = blake3::hash(&bytes[..body]);
    bytes[body..body + 32].copy_from_slice(hash.as_bytes());
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// The checks every database file starts with: magic, room for the header and trailer,
/// and the layout `version` (shared by the territory and active-area tables).
pub(crate) fn check_start(path: &Path, bytes: &[u8], version: u32) -> Result<(), DbError> {
    let p = || path.to_path_buf();
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        return Err(DbError::BadMagic(p()));
    }
    if bytes.len() < HEADER_LEN + TRAILER_LEN {
        return Err(DbError::Truncated {
            path: p(),
            len: bytes.len() as u64,
            expected: (HEADER_LEN + TRAILER_LEN) as u64,
        });
    }
    let found = u32_at(bytes, 8);
    if found != version {
        return Err(DbError::Version {
            path: p(),
            found,
            expected: version,
        });
    }
    Ok(())
}

/// Decodes and validates a file read from `path`: magic, version, length, sentinel, hash,
/// and the region list (canonical, connected, sorted, within the spec, and with exactly
/// the number of entries the layout implies) so that lookups cannot index wrongly.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<RawTable, DbError> {
    let p = || path.to_path_buf();
    let malformed = |reason: String| DbError::Malformed { path: p(), reason };
    check_start(path, bytes, VERSION)?;
    let kind = Kind::from_code(bytes[12])
        .ok_or_else(|| malformed(format!("unknown kind {}", bytes[12])))?;
    let spec = RegionSpec {
        max_size: bytes[13],
        rect: (bytes[14], bytes[15]),
    };
    let max_queens = bytes[16];
    let regions = u32_at(bytes, 20);
    let entries = u64_at(bytes, 24);
    let expected = (HEADER_LEN as u64)
        .saturating_add(16u64.saturating_mul(regions as u64))
        .saturating_add(entries)
        .saturating_add(TRAILER_LEN as u64);
    if bytes.len() as u64 != expected {
        if bytes[bytes.len() - 8..] != SENTINEL {
            return Err(DbError::BadSentinel(p()));
        }
        return Err(DbError::Truncated {
            path: p(),
            len: bytes.len() as u64,
            expected,
        });
    }
    if bytes[bytes.len() - 8..] != SENTINEL {
        return Err(DbError::BadSentinel(p()));
    }
    let body = bytes.len() - TRAILER_LEN;
    let hash = blake3::hash(&bytes[..body]);
    if hash.as_bytes()[..] != bytes[body..body + 32] {
        return Err(DbError::HashMismatch(p()));
    }
    if bytes[17..20] != [0, 0, 0] {
        return Err(malformed("reserved header bytes are not zero".into()));
    }
    if max_queens == 0 || max_queens as usize > MAX_QUEENS {
        return Err(malformed(format!(
            "max_queens {max_queens} outside 1..={MAX_QUEENS}"
        )));
    }
    let mut shapes = Vec::with_capacity(regions as usize);
    let layout = Layout::new(kind, max_queens as u32);
    let mut total = 0u64;
    let mut prev: Option<(u32, Shape)> = None;
    for i in 0..regions as usize {
        let at = HEADER_LEN + 16 * i;
        let mut a = [0u8; 16];
        a.copy_from_slice(&bytes[at..at + 16]);
        let s = u128::from_le_bytes(a);
        let n = s.count_ones();
        let (w, h) = super::regions::dims(s);
        if s & !FRAME_ALL != 0 || !is_connected(s) || canonical(s) != s || !spec.admits(n, w, h) {
            return Err(malformed(format!(
                "region {i} is not a canonical admitted region"
            )));
        }
        if prev.is_some_and(|pk| pk >= (n, s)) {
            return Err(malformed(format!("region {i} is out of order")));
        }
        prev = Some((n, s));
        total += layout.len(n);
        shapes.push(s);
    }
    if total != entries {
        return Err(malformed(format!(
            "header says {entries} entries, the regions need {total}"
        )));
    }
    let v0 = HEADER_LEN + 16 * regions as usize;
    let mut digest = [0u8; 32];
    digest.copy_from_slice(hash.as_bytes());
    Ok(RawTable {
        header: Header {
            kind,
            spec,
            max_queens,
            regions,
            entries,
        },
        shapes,
        values: bytes[v0..body].to_vec(),
        hash: digest,
        file_bytes: bytes.len() as u64,
    })
}

/// Reads and decodes the file at `path`.
pub fn read(path: &Path) -> Result<RawTable, DbError> {
    decode(path, &read_file(path)?)
}

/// The bytes of a database file: a missing file is [`DbError::Missing`] (so callers
/// rebuild it), any other failure an I/O error naming the path.
pub fn read_file(path: &Path) -> Result<Vec<u8>, DbError> {
    std::fs::read(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            DbError::Missing(path.to_path_buf())
        } else {
            DbError::Io {
                path: path.to_path_buf(),
                source: e,
            }
        }
    })
}

/// Writes `bytes` to `dir/name` atomically (temporary file, sync, rename).
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, DbError> {
    use std::io::Write;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DbError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let target = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    {
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
    }
    std::fs::rename(&tmp, &target).map_err(io(&target))?;
    Ok(target)
}

/// Lowercase hex of a hash.
pub fn hex(h: &[u8]) -> String {
    h.iter().map(|b| format!("{b:02x}")).collect()
}
