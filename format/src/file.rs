//! The certificate file layout: magic, version, body length, blake3 hash, body, sentinel.
//!
//! ```text
//! offset  size  field
//! 0       8     magic "AMZNCERT"
//! 8       4     version, u32 little-endian (currently 1)
//! 12      8     body length in bytes, u64 little-endian
//! 20      32    blake3 hash of the body
//! 52      n     body: the Certificate, postcard-encoded
//! 52+n    8     sentinel "AMZN-END"
//! ```
//!
//! A file is accepted only if every field matches: a flipped byte changes the hash, a
//! truncated file loses its sentinel or its length, and trailing bytes are rejected. The body
//! must also be *canonical*: exactly the bytes the encoder writes for the certificate it
//! decodes to (postcard's decoder also accepts padded varints), so that one proof has one
//! body and one hash.

use crate::cert::Certificate;

/// The first eight bytes of every certificate file.
pub const MAGIC: [u8; 8] = *b"AMZNCERT";
/// The last eight bytes of every certificate file.
pub const SENTINEL: [u8; 8] = *b"AMZN-END";
/// The layout version this crate reads and writes.
pub const VERSION: u32 = 1;

/// Bytes before the body: magic, version, body length, body hash.
pub const HEADER_LEN: usize = 8 + 4 + 8 + 32;

/// The body hash a file's header declares (not verified: [`verified_body`] does that), from
/// at least the first [`HEADER_LEN`] bytes of the file; `None` if fewer are given.
pub fn declared_hash(header: &[u8]) -> Option<[u8; 32]> {
    header.get(HEADER_LEN - 32..HEADER_LEN)?.try_into().ok()
}

/// Why a byte string is not a well-formed certificate file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("file too short ({0} bytes) to be a certificate")]
    TooShort(usize),
    #[error("not a certificate file (bad magic bytes)")]
    BadMagic,
    #[error(
        "certificate layout version {0} is not supported (this program reads version {VERSION})"
    )]
    Version(u32),
    #[error("body length is {declared} bytes in the header but {actual} in the file (truncated or padded)")]
    Length { declared: u64, actual: u64 },
    #[error("end sentinel missing: the file is truncated or damaged")]
    Sentinel,
    #[error("body hash mismatch: the file was modified after it was written")]
    Hash,
    #[error("body does not decode: {0}")]
    Body(String),
    #[error("body decodes but has {0} trailing bytes")]
    Trailing(usize),
    #[error("body is not canonical: it decodes, but re-encoding gives different bytes (e.g. a padded varint)")]
    NonCanonical,
    #[error("body decodes but describes an invalid position (bad board size or cell count)")]
    InvalidPosition,
}

/// The blake3 hash of a body.
pub fn hash_body(body: &[u8]) -> [u8; 32] {
    *blake3::hash(body).as_bytes()
}

/// Encodes a certificate into the file layout.
pub fn encode(cert: &Certificate) -> Result<Vec<u8>, FileError> {
    let body = postcard::to_stdvec(cert).map_err(|e| FileError::Body(e.to_string()))?;
    Ok(frame(&body))
}

/// Puts `body` in the file layout: the header with its length and hash, then the sentinel.
/// The body is taken as it is (not decoded), so tests can frame a damaged or padded one.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + body.len() + SENTINEL.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&hash_body(body));
    out.extend_from_slice(body);
    out.extend_from_slice(&SENTINEL);
    out
}

/// The body of a file after checking magic, version, length, sentinel and hash.
pub fn verified_body(bytes: &[u8]) -> Result<&[u8], FileError> {
    if bytes.len() < HEADER_LEN + SENTINEL.len() {
        return Err(FileError::TooShort(bytes.len()));
    }
    if bytes[0..8] != MAGIC {
        return Err(FileError::BadMagic);
    }
    let version = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
    if version != VERSION {
        return Err(FileError::Version(version));
    }
    let mut len_bytes = [0u8; 8];
    len_bytes.copy_from_slice(&bytes[12..20]);
    let declared = u64::from_le_bytes(len_bytes);
    let actual = (bytes.len() - HEADER_LEN - SENTINEL.len()) as u64;
    if bytes[bytes.len() - SENTINEL.len()..] != SENTINEL {
        return Err(FileError::Sentinel);
    }
    if declared != actual {
        return Err(FileError::Length { declared, actual });
    }
    let body = &bytes[HEADER_LEN..bytes.len() - SENTINEL.len()];
    if Some(hash_body(body)) != declared_hash(bytes) {
        return Err(FileError::Hash);
    }
    Ok(body)
}

/// Compares what is written to it with the bytes it was made from.
struct SameAs<'a>(&'a [u8]);

impl std::io::Write for SameAs<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.0.strip_prefix(buf) {
            Some(rest) => {
                self.0 = rest;
                Ok(buf.len())
            }
            None => Err(std::io::ErrorKind::InvalidData.into()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Decodes a certificate file, checking every layout field, that the body is canonical
/// (re-encodes to the same bytes) and the root position's invariants.
pub fn decode(bytes: &[u8]) -> Result<Certificate, FileError> {
    let body = verified_body(bytes)?;
    let (cert, rest): (Certificate, &[u8]) =
        postcard::take_from_bytes(body).map_err(|e| FileError::Body(e.to_string()))?;
    if !rest.is_empty() {
        return Err(FileError::Trailing(rest.len()));
    }
    match postcard::to_io(&cert, SameAs(body)) {
        Ok(SameAs([])) => {}
        _ => return Err(FileError::NonCanonical),
    }
    if !cert.root.position.is_valid() {
        return Err(FileError::InvalidPosition);
    }
    Ok(cert)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Action, Claim, Color, Meta, Move, Position, Step};

    fn sample() -> Certificate {
        Certificate {
            root: Claim {
                position: Position::start("4x4").unwrap(),
                spare: 0,
                winner: Color::Black,
            },
            steps: vec![
                Step::ReplyAll,
                Step::Choice(Action::Board(Move {
                    from: 1,
                    to: 5,
                    arrow: 9,
                })),
                Step::NoMove,
            ],
            meta: Meta::default(),
        }
    }

    #[test]
    fn round_trip() {
        let bytes = encode(&sample()).unwrap();
        assert_eq!(decode(&bytes).unwrap(), sample());
    }

    #[test]
    fn every_flipped_byte_and_every_truncation_is_rejected() {
        let bytes = encode(&sample()).unwrap();
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(decode(&b).is_err(), "flip at {i} accepted");
        }
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n]).is_err(), "truncation to {n} accepted");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_err());
    }

    #[test]
    fn a_padded_varint_is_not_canonical() {
        let bytes = encode(&sample()).unwrap();
        let body = &bytes[HEADER_LEN..bytes.len() - SENTINEL.len()];
        // The steps' count (3) follows the root claim: 4x4 board (2 bytes), 16 cells
        // (1 + 16 bytes), side to move, spare, winner (1 byte each).
        let at = 2 + 1 + 16 + 3;
        assert_eq!(body[at], 3);
        let mut padded = body[..at].to_vec();
        padded.extend_from_slice(&[0x83, 0x00]);
        padded.extend_from_slice(&body[at + 1..]);
        assert!(matches!(
            decode(&frame(&padded)),
            Err(FileError::NonCanonical)
        ));
        // The same file with the body unpadded is accepted.
        assert_eq!(decode(&bytes).unwrap(), sample());
    }

    #[test]
    fn a_rehashed_body_that_does_not_decode_is_an_error() {
        let mut body = vec![0xffu8; 40];
        body[0] = 3;
        assert!(decode(&frame(&body)).is_err());
    }
}
