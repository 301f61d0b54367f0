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
//! body and one hash. [`decode_lazy`] checks all of this but leaves the steps encoded, to be
//! decoded one at a time, so that a large certificate is never held decoded.

use crate::cert::{Certificate, Claim, Meta, Step};
use serde::{Deserialize, Serialize};

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

/// Bytes at the start of a certificate file that hold its header, root claim and number of
/// steps: a root claim takes at most 110 bytes (2 for the board, 101 for up to 100 cells,
/// 1, 5 and 1 for the side to move, the spare and the winner), the count at most 10.
pub const PREFIX_LEN: usize = HEADER_LEN + 120;

/// The number of steps a certificate file's body declares (not verified: only
/// [`decode`] checks it), from at least its first [`PREFIX_LEN`] bytes; `None` if they do
/// not hold one.
pub fn declared_steps(prefix: &[u8]) -> Option<u64> {
    let (_, rest) = postcard::take_from_bytes::<Claim>(prefix.get(HEADER_LEN..)?).ok()?;
    Some(postcard::take_from_bytes::<u64>(rest).ok()?.0)
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
    let Lazy { root, steps, meta } = decode_lazy(bytes)?;
    let steps = steps.collect();
    Ok(Certificate { root, steps, meta })
}

/// A certificate file checked as [`decode`] checks it, its steps left encoded.
#[derive(Debug, Clone)]
pub struct Lazy<'a> {
    pub root: Claim,
    pub steps: Steps<'a>,
    pub meta: Meta,
}

/// The steps of a checked body, decoded in order one at a time.
#[derive(Debug, Clone)]
pub struct Steps<'a> {
    bytes: &'a [u8],
    left: usize,
}

impl Iterator for Steps<'_> {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        // [`decode_lazy`] decoded each of these steps once already, so none fails here.
        let (step, rest) = postcard::take_from_bytes(self.bytes).ok()?;
        self.left = self.left.checked_sub(1)?;
        self.bytes = rest;
        Some(step)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for Steps<'_> {}

/// Takes a `T` from the front of `body` and returns it with the rest of the body; clears
/// `canonical` if its bytes are not exactly those the encoder writes for it.
fn take<'a, T: Serialize + Deserialize<'a>>(
    body: &'a [u8],
    canonical: &mut bool,
) -> Result<(T, &'a [u8]), FileError> {
    let (value, rest) =
        postcard::take_from_bytes::<T>(body).map_err(|e| FileError::Body(e.to_string()))?;
    let used = &body[..body.len() - rest.len()];
    *canonical &= matches!(postcard::to_io(&value, SameAs(used)), Ok(SameAs([])));
    Ok((value, rest))
}

/// Checks a certificate file as [`decode`] does (with the same errors), but decodes its
/// steps only to check them and leaves them encoded in `bytes`.
///
/// Postcard writes a struct's fields one after another and a list as its length (a varint,
/// as a `usize` is written) followed by its items, so the body is the root claim, the
/// number of steps, each step, then the metadata, end to end; the body re-encodes to
/// itself exactly when each of these pieces does.
pub fn decode_lazy(bytes: &[u8]) -> Result<Lazy<'_>, FileError> {
    let body = verified_body(bytes)?;
    let mut canonical = true;
    let (root, rest) = take::<Claim>(body, &mut canonical)?;
    let (count, first) = take::<usize>(rest, &mut canonical)?;
    let mut rest = first;
    for _ in 0..count {
        rest = take::<Step>(rest, &mut canonical)?.1;
    }
    let steps = Steps {
        bytes: &first[..first.len() - rest.len()],
        left: count,
    };
    let (meta, rest) = take::<Meta>(rest, &mut canonical)?;
    if !rest.is_empty() {
        return Err(FileError::Trailing(rest.len()));
    }
    if !canonical {
        return Err(FileError::NonCanonical);
    }
    if !root.position.is_valid() {
        return Err(FileError::InvalidPosition);
    }
    Ok(Lazy { root, steps, meta })
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

    /// `body` with the one-byte varint at `at` written in two bytes (the same value with a
    /// continuation bit and a zero byte), which postcard's decoder also accepts.
    fn pad_varint(body: &[u8], at: usize) -> Vec<u8> {
        let mut padded = body[..at].to_vec();
        padded.extend_from_slice(&[body[at] | 0x80, 0x00]);
        padded.extend_from_slice(&body[at + 1..]);
        padded
    }

    #[test]
    fn a_padded_varint_is_not_canonical() {
        let bytes = encode(&sample()).unwrap();
        let body = &bytes[HEADER_LEN..bytes.len() - SENTINEL.len()];
        // The steps' count (3) follows the root claim: 4x4 board (2 bytes), 16 cells
        // (1 + 16 bytes), side to move, spare, winner (1 byte each).
        let at = 2 + 1 + 16 + 3;
        assert_eq!(body[at], 3);
        let padded = pad_varint(body, at);
        assert!(matches!(
            decode(&frame(&padded)),
            Err(FileError::NonCanonical)
        ));
        // The same file with the body unpadded is accepted.
        assert_eq!(decode(&bytes).unwrap(), sample());
    }

    #[test]
    fn lazy_steps_are_the_decoded_steps() {
        let bytes = encode(&sample()).unwrap();
        let lazy = decode_lazy(&bytes).unwrap();
        assert_eq!(lazy.root, sample().root);
        assert_eq!(lazy.meta, sample().meta);
        assert_eq!(lazy.steps.len(), 3);
        let mut steps = lazy.steps.clone();
        assert_eq!(steps.next(), Some(Step::ReplyAll));
        assert_eq!(steps.len(), 2);
        assert_eq!(steps.collect::<Vec<_>>(), sample().steps[1..]);
    }

    #[test]
    fn a_padded_varint_inside_the_last_step_is_not_canonical() {
        let mut cert = sample();
        cert.steps.push(Step::Outlast { moves: Vec::new() });
        let bytes = encode(&cert).unwrap();
        let body = &bytes[HEADER_LEN..bytes.len() - SENTINEL.len()];
        // The last step is `Outlast` (variant 3) with no moves (0), then the empty metadata
        // (four zero bytes).
        let at = body.len() - 5;
        assert_eq!(body[at - 1..], [3, 0, 0, 0, 0, 0]);
        let mut padded = pad_varint(body, at);
        assert!(matches!(
            decode_lazy(&frame(&padded)),
            Err(FileError::NonCanonical)
        ));
        // Trailing bytes are reported before a non-canonical piece, as by `decode`.
        padded.push(0xff);
        assert!(matches!(
            decode(&frame(&padded)),
            Err(FileError::Trailing(1))
        ));
        assert!(decode_lazy(&bytes).is_ok());
    }

    #[test]
    fn the_step_count_is_in_the_prefix() {
        assert_eq!(declared_steps(&encode(&sample()).unwrap()), Some(3));
        // The largest root claim (110 bytes): 10x10, spare i32::MIN (a 5-byte varint); 300
        // steps (a 2-byte count).
        let mut cert = sample();
        cert.root.position = Position::empty(crate::Board::new(10, 10).unwrap(), Color::White);
        cert.root.spare = i32::MIN;
        cert.steps = vec![Step::NoMove; 300];
        let bytes = encode(&cert).unwrap();
        assert_eq!(declared_steps(&bytes[..PREFIX_LEN]), Some(300));
        assert_eq!(declared_steps(&bytes[..HEADER_LEN + 112]), Some(300));
        assert_eq!(declared_steps(&bytes[..HEADER_LEN + 111]), None);
        assert_eq!(declared_steps(&bytes[..HEADER_LEN]), None);
    }

    #[test]
    fn a_rehashed_body_that_does_not_decode_is_an_error() {
        let mut body = vec![0xffu8; 40];
        body[0] = 3;
        assert!(decode(&frame(&body)).is_err());
    }
}
