//! Checkpoints of an active-area build's values phase: the regions done, their entries' game ids and the game store, so that a killed build resumes where it was.
//!
//! Layout (little-endian): magic `AMZCKPT\0`, version (u32), the build's key (length u32,
//! then UTF-8: configuration, regions and entries, so a checkpoint of another build is never
//! used), regions done (u64), entry count `E` (u64) and `E` game ids (u32), the game store
//! ([`GameStore::write_games`]), and the blake3 hash of every byte before it (32 bytes). It
//! is written to a temporary file and renamed, so a kill while writing leaves the previous
//! checkpoint. A damaged file fails its hash and is not used.

use super::store::DbError;
use amazons_cgt::{GameId, GameStore};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The checkpoint file of an unfinished active-area build, in its database directory.
pub const CHECKPOINT_FILE: &str = "active.checkpoint";
const MAGIC: &[u8; 8] = b"AMZCKPT\0";
const VERSION: u32 = 1;

/// A build's state after its first `regions` regions.
pub struct Saved {
    pub regions: usize,
    pub ids: Vec<GameId>,
    pub store: GameStore,
}

/// What became of a checkpoint found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// There is none.
    None,
    /// It belongs to another build (configuration, regions or entries differ).
    OtherBuild(String),
    /// It is damaged or unreadable (the reason).
    Damaged(String),
}

/// Writes everything through to `inner` and hashes it.
struct Hashing<W> {
    inner: W,
    hasher: blake3::Hasher,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

fn path_of(dir: &Path) -> PathBuf {
    dir.join(CHECKPOINT_FILE)
}

/// Writes the checkpoint of a build with key `key` after `regions` regions, atomically.
pub fn write(
    dir: &Path,
    key: &str,
    regions: usize,
    ids: &[GameId],
    store: &GameStore,
) -> Result<(), DbError> {
    let target = path_of(dir);
    let tmp = dir.join(format!(".{CHECKPOINT_FILE}.tmp-{}", std::process::id()));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| DbError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let file = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    let mut out = Hashing {
        inner: BufWriter::with_capacity(1 << 20, file),
        hasher: blake3::Hasher::new(),
    };
    let result = (|| -> std::io::Result<()> {
        out.write_all(MAGIC)?;
        out.write_all(&VERSION.to_le_bytes())?;
        out.write_all(&(key.len() as u32).to_le_bytes())?;
        out.write_all(key.as_bytes())?;
        out.write_all(&(regions as u64).to_le_bytes())?;
        out.write_all(&(ids.len() as u64).to_le_bytes())?;
        for g in ids {
            out.write_all(&(g.index() as u32).to_le_bytes())?;
        }
        store.write_games(&mut out)?;
        let hash = out.hasher.finalize();
        let mut file = out.inner.into_inner().map_err(|e| e.into_error())?;
        file.write_all(hash.as_bytes())?;
        file.sync_all()
    })();
    if let Err(source) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(DbError::Io { path: tmp, source });
    }
    std::fs::rename(&tmp, &target).map_err(io(&target))
}

fn read_u64(input: &mut impl Read) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    input.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn read_u32(input: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    input.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// The key a checkpoint in `dir` was written with, if there is a readable one.
fn key_of(input: &mut impl Read) -> Result<String, String> {
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic).map_err(|e| e.to_string())?;
    if &magic != MAGIC {
        return Err("not a checkpoint file".into());
    }
    let version = read_u32(input).map_err(|e| e.to_string())?;
    if version != VERSION {
        return Err(format!("checkpoint version {version}, expected {VERSION}"));
    }
    let len = read_u32(input).map_err(|e| e.to_string())? as usize;
    if len > 1 << 16 {
        return Err(format!("a key of {len} bytes"));
    }
    let mut key = vec![0u8; len];
    input.read_exact(&mut key).map_err(|e| e.to_string())?;
    String::from_utf8(key).map_err(|_| "the key is not UTF-8".to_string())
}

/// Reads the checkpoint in `dir` of the build with key `key` and `entries` entries in all:
/// `Ok(state)` if there is one for this build that is whole, else what was found instead.
pub fn read(dir: &Path, key: &str, entries: u64) -> Result<Saved, Found> {
    let path = path_of(dir);
    let file = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Found::None),
        Err(e) => return Err(Found::Damaged(e.to_string())),
    };
    let mut input = Hashing {
        inner: BufReader::with_capacity(1 << 20, file),
        hasher: blake3::Hasher::new(),
    };
    let found = key_of(&mut input).map_err(Found::Damaged)?;
    if found != key {
        return Err(Found::OtherBuild(found));
    }
    let damaged = |e: std::io::Error| Found::Damaged(e.to_string());
    let regions = read_u64(&mut input).map_err(damaged)? as usize;
    let n = read_u64(&mut input).map_err(damaged)?;
    if n > entries {
        return Err(Found::Damaged(format!(
            "{n} entries, the build has {entries}"
        )));
    }
    let mut raw = Vec::with_capacity(n as usize);
    for _ in 0..n {
        raw.push(read_u32(&mut input).map_err(damaged)?);
    }
    let store = GameStore::read_games(&mut input).map_err(|e| Found::Damaged(e.to_string()))?;
    let hash = input.hasher.finalize();
    let mut trailer = [0u8; 32];
    input.inner.read_exact(&mut trailer).map_err(damaged)?;
    if hash.as_bytes() != &trailer {
        return Err(Found::Damaged("its blake3 hash does not match".into()));
    }
    if input.inner.read(&mut [0u8; 1]).map_err(damaged)? != 0 {
        return Err(Found::Damaged("trailing bytes".into()));
    }
    let ids = raw
        .into_iter()
        .map(|x| {
            store
                .id_at(x as usize)
                .ok_or_else(|| Found::Damaged(format!("entry game {x} is not in the store")))
        })
        .collect::<Result<Vec<GameId>, Found>>()?;
    Ok(Saved {
        regions,
        ids,
        store,
    })
}

/// Removes the checkpoint in `dir` (after the build it belongs to has finished).
pub fn remove(dir: &Path) -> Result<(), DbError> {
    let path = path_of(dir);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(DbError::Io { path, source }),
    }
}
