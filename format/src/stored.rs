//! Certificate files on disk: plain (`*.cert`) or zstd-compressed (`*.cert.zst`).
//!
//! Compression is only a storage matter: the bytes that come out of the decompressor are
//! the file layout of [`crate::file`], whose blake3 hash pins the body, so a faulty or
//! hostile compressed file can at worst be unreadable or fail the checks, never change what
//! a certificate proves. Compressed files are recognised by the zstd frame magic, not by
//! their name, and decompression stops at [`MAX_FILE`] bytes.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The first four bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Largest certificate file accepted after decompression (4 GiB).
pub const MAX_FILE: u64 = 1 << 32;

/// The zstd level of [`compress`]: certificates shrink about 8x.
pub const LEVEL: i32 = 19;

/// Whether `path` names a certificate file: `*.cert` or `*.cert.zst`.
pub fn is_cert_path(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.ends_with(".cert") || name.ends_with(".cert.zst")
}

/// Whether `bytes` start a zstd frame.
pub fn is_compressed(bytes: &[u8]) -> bool {
    bytes.starts_with(&ZSTD_MAGIC)
}

fn too_big() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("decompresses to more than {MAX_FILE} bytes"),
    )
}

/// Decompresses `bytes` if they are a zstd frame, else returns them unchanged.
pub fn decompress(bytes: Vec<u8>) -> std::io::Result<Vec<u8>> {
    if !is_compressed(&bytes) {
        return Ok(bytes);
    }
    let mut out = Vec::new();
    zstd::stream::read::Decoder::new(&bytes[..])?
        .take(MAX_FILE + 1)
        .read_to_end(&mut out)?;
    if out.len() as u64 > MAX_FILE {
        return Err(too_big());
    }
    Ok(out)
}

/// Reads a certificate file, decompressing it if it is compressed.
pub fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    decompress(std::fs::read(path)?)
}

/// The body hash that a certificate file's header declares (read without decompressing
/// the rest; not verified), or `None` if the file is shorter than a header.
pub fn declared_hash(path: &Path) -> std::io::Result<Option<[u8; 32]>> {
    Ok(crate::file::declared_hash(&read_prefix(
        path,
        crate::file::HEADER_LEN,
    )?))
}

/// The first `n` bytes of a certificate file's content (decompressed), or fewer if the
/// file is shorter: enough to read the header without decompressing the whole file.
pub fn read_prefix(path: &Path, n: usize) -> std::io::Result<Vec<u8>> {
    let mut file = std::fs::File::open(path)?;
    let mut magic = [0u8; 4];
    let got = file.read(&mut magic)?;
    let mut out = Vec::with_capacity(n);
    if got == 4 && magic == ZSTD_MAGIC {
        let chained = std::io::Cursor::new(magic).chain(file);
        zstd::stream::read::Decoder::new(chained)?
            .take(n as u64)
            .read_to_end(&mut out)?;
    } else {
        out.extend_from_slice(&magic[..got]);
        file.take(n.saturating_sub(got) as u64)
            .read_to_end(&mut out)?;
        out.truncate(n);
    }
    Ok(out)
}

/// The compressed form of a certificate path: `PATH.zst`.
pub fn compressed_path(path: &Path) -> PathBuf {
    let mut zst = path.as_os_str().to_owned();
    zst.push(".zst");
    PathBuf::from(zst)
}

/// The file a certificate path stands for on disk: itself, or its compressed form
/// `PATH.zst` (see `amazons compress`); `None` if neither is a file.
pub fn on_disk(path: &Path) -> Option<PathBuf> {
    if path.is_file() {
        return Some(path.to_path_buf());
    }
    let zst = compressed_path(path);
    zst.is_file().then_some(zst)
}

/// Writes `bytes` to `path` atomically: a temporary file beside it (named after the
/// process and thread, so concurrent writers never share one), synced, then renamed; the
/// temporary file is removed if any step fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}.{}.{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Compresses certificate bytes for storage.
pub fn compress(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    zstd::stream::encode_all(bytes, LEVEL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_prefix() {
        let dir = std::env::temp_dir().join(format!("amazons-stored-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let packed = compress(&content).unwrap();
        assert!(is_compressed(&packed) && packed.len() < content.len() / 10);
        assert!(!is_compressed(&content));
        for (name, bytes) in [("a.cert", &content), ("a.cert.zst", &packed)] {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            assert!(is_cert_path(&path));
            assert_eq!(read(&path).unwrap(), content, "{name}");
            assert_eq!(read_prefix(&path, 52).unwrap(), content[..52], "{name}");
            assert_eq!(read_prefix(&path, 1 << 20).unwrap(), content, "{name}");
            let field: [u8; 32] = content[20..52].try_into().unwrap();
            assert_eq!(declared_hash(&path).unwrap(), Some(field), "{name}");
        }
        // Shorter than a header: no declared hash.
        std::fs::write(dir.join("c.cert"), &content[..51]).unwrap();
        assert_eq!(declared_hash(&dir.join("c.cert")).unwrap(), None);
        // A damaged compressed file is an error, not garbage.
        let mut bad = packed.clone();
        let n = bad.len();
        bad.truncate(n / 2);
        std::fs::write(dir.join("b.cert.zst"), &bad).unwrap();
        assert!(read(&dir.join("b.cert.zst")).is_err());
        assert!(!is_cert_path(Path::new("x.zst")) && !is_cert_path(Path::new("cert")));
        // A path stands for itself, else for its compressed form, else for nothing.
        let plain = dir.join("a.cert");
        assert_eq!(on_disk(&plain), Some(plain.clone()));
        assert_eq!(on_disk(&dir.join("b.cert")), Some(dir.join("b.cert.zst")));
        assert_eq!(on_disk(&dir.join("d.cert")), None);
        // An atomic write replaces the file and leaves no temporary file behind; one into
        // a missing directory fails.
        write_atomic(&plain, b"new").unwrap();
        assert_eq!(std::fs::read(&plain).unwrap(), b"new");
        let names = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(names, 4, "a.cert, a.cert.zst, b.cert.zst, c.cert");
        assert!(write_atomic(&dir.join("missing/e.cert"), b"x").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
