//! The active-area file format: encoding, and decoding with validation (whole or streamed from disk).

use super::table::{offsets_and_caps, ActiveDb};
use super::{
    to_eval_bounds, ActiveConfig, Record, Tier, ACTIVE_KIND, ACTIVE_VERSION, HEADER_LEN,
    TRAILER_LEN,
};
use crate::regions::FRAME_ALL;
use crate::regions::{canonical, dims, is_connected, RegionIndex, Shape};
use crate::store::{check_start, u32_at, u64_at, DbError, MAGIC, SENTINEL};
use amazons_cgt::thermograph::Trajectory;
use amazons_cgt::{Bound, BoundKind, Class, InfKind, Outcome, Rational, Thermograph};
use std::path::Path;

// The file, field by field:
//
// | offset | size | field |
// |---|---|---|
// | 0 | 8 | magic `AMZDB\0\r\n` (as the territory files) |
// | 8 | 4 | format version ([`ACTIVE_VERSION`]) |
// | 12 | 1 | kind 3 (active) |
// | 13 | 1 | tier count `T` |
// | 14 | 1 | reserved, zero |
// | 15 | 1 | record id width in bytes (2, 3 or 4) |
// | 16 | 2 | largest stored value length in characters (0: no values) |
// | 18 | 2 | reserved, zero |
// | 20 | 4 | region count `R` |
// | 24 | 8 | entry count `E` |
// | 32 | 4 T | tiers: short, long, max queens per colour, 0 |
// | | 16 R | canonical region shapes, sorted by size then key |
// | | | thermograph count `H` (u32), then per thermograph both walls: point count (u16), points `(t, x)` as four i64 (t num, t den, x num, x den), tail slope (two i64) |
// | | | record count `C` (u32), then per record: thermograph id (u32), class (tag u8, number two i64, infinitesimal kind u8), outcome (u8), exact lower and upper bound (value two i64, kind u8 each), value length (u32, 0 for none) and UTF-8 text (only when values are stored) |
// | | width E | record id per entry, in [`ActiveLayout`] order |
// | end - 40 | 32 | blake3 hash of every byte before it |
// | end - 8 | 8 | sentinel `AMZDBEND` |

fn put_rat(out: &mut Vec<u8>, r: Rational) {
    out.extend_from_slice(&r.numer().to_le_bytes());
    out.extend_from_slice(&r.denom().to_le_bytes());
}

fn put_traj(out: &mut Vec<u8>, t: &Trajectory) {
    out.extend_from_slice(&(t.points().len() as u16).to_le_bytes());
    for &(tt, x) in t.points() {
        put_rat(out, tt);
        put_rat(out, x);
    }
    put_rat(out, t.tail_slope());
}

fn inf_code(k: InfKind) -> u8 {
    match k {
        InfKind::Zero => 0,
        InfKind::Positive => 1,
        InfKind::Negative => 2,
        InfKind::Fuzzy => 3,
    }
}

fn inf_of(c: u8) -> Option<InfKind> {
    Some(match c {
        0 => InfKind::Zero,
        1 => InfKind::Positive,
        2 => InfKind::Negative,
        3 => InfKind::Fuzzy,
        _ => return None,
    })
}

fn outcome_code(o: Outcome) -> u8 {
    match o {
        Outcome::L => 0,
        Outcome::R => 1,
        Outcome::P => 2,
        Outcome::N => 3,
    }
}

fn outcome_from(c: u8) -> Option<Outcome> {
    Some(match c {
        0 => Outcome::L,
        1 => Outcome::R,
        2 => Outcome::P,
        3 => Outcome::N,
        _ => return None,
    })
}

fn put_bound(out: &mut Vec<u8>, b: Bound) {
    put_rat(out, b.value);
    out.push(match b.kind {
        BoundKind::Plain => 0,
        BoundKind::Tightened => 1,
        BoundKind::Relaxed => 2,
    });
}

fn put_record(out: &mut Vec<u8>, r: &Record, values: bool) {
    out.extend_from_slice(&r.thermo.to_le_bytes());
    let (tag, x, k) = match r.class {
        Class::Number(x) => (0u8, x, InfKind::Zero),
        Class::Star => (1, Rational::ZERO, InfKind::Fuzzy),
        Class::Infinitesimal(k) => (2, Rational::ZERO, k),
        Class::Tepid(x, k) => (3, x, k),
        Class::Hot => (4, Rational::ZERO, InfKind::Zero),
    };
    out.push(tag);
    put_rat(out, x);
    out.push(inf_code(k));
    out.push(outcome_code(r.outcome));
    put_bound(out, r.exact.0);
    put_bound(out, r.exact.1);
    if values {
        let v = r.value.as_deref().unwrap_or("");
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(v.as_bytes());
    }
}

/// Serializes a table.
pub(super) fn encode(
    cfg: &ActiveConfig,
    shapes: &[Shape],
    thermographs: &[Thermograph],
    records: &[Record],
    ids: &[u32],
) -> Vec<u8> {
    let width: u8 = if records.len() <= 1 << 16 {
        2
    } else if records.len() <= 1 << 24 {
        3
    } else {
        4
    };
    let mut out = Vec::with_capacity(HEADER_LEN + 16 * shapes.len() + width as usize * ids.len());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&ACTIVE_VERSION.to_le_bytes());
    out.push(ACTIVE_KIND);
    out.push(cfg.tiers.len() as u8);
    out.push(0);
    out.push(width);
    out.extend_from_slice(&cfg.max_value_len.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(shapes.len() as u32).to_le_bytes());
    out.extend_from_slice(&(ids.len() as u64).to_le_bytes());
    for t in &cfg.tiers {
        out.extend_from_slice(&[t.rect.0, t.rect.1, t.max_per_color, 0]);
    }
    for s in shapes {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out.extend_from_slice(&(thermographs.len() as u32).to_le_bytes());
    for th in thermographs {
        put_traj(&mut out, &th.left);
        put_traj(&mut out, &th.right);
    }
    out.extend_from_slice(&(records.len() as u32).to_le_bytes());
    for r in records {
        put_record(&mut out, r, cfg.max_value_len > 0);
    }
    for &id in ids {
        out.extend_from_slice(&id.to_le_bytes()[..width as usize]);
    }
    let hash = blake3::hash(&out);
    out.extend_from_slice(hash.as_bytes());
    out.extend_from_slice(&SENTINEL);
    out
}

/// Where a [`Cur`] reads from: bytes in memory, or a file read in order (so that a table of
/// several gigabytes is decoded without a copy of the whole file in memory).
enum Src<'a> {
    Slice(&'a [u8]),
    Stream {
        r: std::io::BufReader<std::fs::File>,
        len: usize,
        buf: Vec<u8>,
        /// Hash of the bytes read so far (from the start of the file).
        hasher: Box<blake3::Hasher>,
    },
}

/// A bounds-checked reader over the body of a file whose hash already matched.
struct Cur<'a> {
    src: Src<'a>,
    at: usize,
    path: &'a Path,
}

impl<'a> Cur<'a> {
    fn bad(&self, what: &str) -> DbError {
        DbError::Malformed {
            path: self.path.to_path_buf(),
            reason: format!("{what} (at byte {})", self.at),
        }
    }
    /// Bytes left before the end of the body.
    fn remaining(&self) -> usize {
        match &self.src {
            Src::Slice(b) => b.len() - self.at,
            Src::Stream { len, .. } => len - self.at,
        }
    }
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], DbError> {
        if self.remaining() < n {
            return Err(self.bad(&format!("{what} runs past the end of the data")));
        }
        let at = self.at;
        self.at += n;
        match &mut self.src {
            Src::Slice(b) => Ok(&b[at..at + n]),
            Src::Stream { r, buf, hasher, .. } => {
                use std::io::Read;
                buf.resize(n, 0);
                r.read_exact(buf).map_err(|source| DbError::Io {
                    path: self.path.to_path_buf(),
                    source,
                })?;
                hasher.update(buf);
                Ok(&buf[..])
            }
        }
    }
    fn u8(&mut self, what: &str) -> Result<u8, DbError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &str) -> Result<u16, DbError> {
        let s = self.take(2, what)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self, what: &str) -> Result<u32, DbError> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn i64(&mut self, what: &str) -> Result<i64, DbError> {
        let s = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(s);
        Ok(i64::from_le_bytes(a))
    }
    fn rat(&mut self, what: &str) -> Result<Rational, DbError> {
        let (n, d) = (self.i64(what)?, self.i64(what)?);
        match Rational::new(n, d) {
            Some(r) if r.numer() == n && r.denom() == d => Ok(r),
            _ => Err(self.bad(&format!("{what}: {n}/{d} is not a reduced rational"))),
        }
    }
    fn traj(&mut self) -> Result<Trajectory, DbError> {
        let k = self.u16("wall point count")? as usize;
        let mut pts = Vec::with_capacity(k);
        for _ in 0..k {
            pts.push((self.rat("wall point")?, self.rat("wall point")?));
        }
        let tail = self.rat("wall tail slope")?;
        let t = Trajectory::from_points(pts.clone(), tail)
            .ok_or_else(|| self.bad("invalid thermograph wall"))?;
        if t.points() != pts.as_slice() {
            return Err(self.bad("thermograph wall not in simplest form"));
        }
        Ok(t)
    }
    fn bound(&mut self) -> Result<Bound, DbError> {
        let value = self.rat("bound value")?;
        let kind = match self.u8("bound kind")? {
            0 => BoundKind::Plain,
            1 => BoundKind::Tightened,
            2 => BoundKind::Relaxed,
            k => return Err(self.bad(&format!("unknown bound kind {k}"))),
        };
        Ok(Bound { value, kind })
    }
}

/// Decodes and validates an active-area file: magic, version, sentinel, hash, header, tiers,
/// regions (canonical, connected, sorted, covered, entry count consistent), thermographs,
/// records (thermograph ids in range, codes valid) and every record id (in range).
pub fn decode(path: &Path, bytes: &[u8]) -> Result<ActiveDb, DbError> {
    check_start(path, bytes, ACTIVE_VERSION)?;
    if bytes[bytes.len() - 8..] != SENTINEL {
        return Err(DbError::BadSentinel(path.to_path_buf()));
    }
    let body = bytes.len() - TRAILER_LEN;
    let hash = blake3::hash(&bytes[..body]);
    if hash.as_bytes()[..] != bytes[body..body + 32] {
        return Err(DbError::HashMismatch(path.to_path_buf()));
    }
    let mut cur = Cur {
        src: Src::Slice(&bytes[..body]),
        at: HEADER_LEN,
        path,
    };
    decode_checked(
        path,
        &bytes[..HEADER_LEN],
        &mut cur,
        bytes.len() as u64,
        hash,
    )
}

/// Files from this size on are decoded by [`open_streaming`] rather than read whole.
pub(super) const STREAM_FROM: u64 = 64 << 20;

/// Loads a large table in two passes over the file: the first checks the sentinel and the
/// hash, the second decodes (and hashes again, so that a file changed between the passes
/// is refused); neither holds the whole file in memory, so the peak is the decoded table
/// alone (for the paper's 7.2 GB set, about 60% of reading it whole). The checks and
/// errors are those of [`decode`].
pub(super) fn open_streaming(path: &Path, len: u64) -> Result<ActiveDb, DbError> {
    use std::io::{BufReader, Read, Seek, SeekFrom};
    let io = |source| DbError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut f = std::fs::File::open(path).map_err(io)?;
    let body = len - TRAILER_LEN as u64;
    // The header and the trailer, as one short "file" for the start checks.
    let mut ends = vec![0u8; HEADER_LEN + TRAILER_LEN];
    f.read_exact(&mut ends[..HEADER_LEN]).map_err(io)?;
    f.seek(SeekFrom::Start(body)).map_err(io)?;
    f.read_exact(&mut ends[HEADER_LEN..]).map_err(io)?;
    check_start(path, &ends, ACTIVE_VERSION)?;
    if ends[ends.len() - 8..] != SENTINEL {
        return Err(DbError::BadSentinel(path.to_path_buf()));
    }
    f.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut hasher = blake3::Hasher::new();
    let read = hasher
        .update_reader(BufReader::with_capacity(1 << 20, (&f).take(body)))
        .map_err(io)?
        .count();
    let hash = hasher.finalize();
    if read != body || hash.as_bytes()[..] != ends[HEADER_LEN..HEADER_LEN + 32] {
        return Err(DbError::HashMismatch(path.to_path_buf()));
    }
    f.seek(SeekFrom::Start(HEADER_LEN as u64)).map_err(io)?;
    let mut again = Box::new(blake3::Hasher::new());
    again.update(&ends[..HEADER_LEN]);
    let mut cur = Cur {
        src: Src::Stream {
            r: BufReader::with_capacity(1 << 20, f),
            len: body as usize,
            buf: Vec::new(),
            hasher: again,
        },
        at: HEADER_LEN,
        path,
    };
    let db = decode_checked(path, &ends[..HEADER_LEN], &mut cur, len, hash)?;
    match cur.src {
        Src::Stream { hasher, .. } if cur.at == body as usize && hasher.finalize() == hash => {
            Ok(db)
        }
        _ => Err(DbError::HashMismatch(path.to_path_buf())),
    }
}

/// The rest of [`decode`], once magic, version, sentinel and hash are known to be right:
/// `bytes` is the header, `cur` reads the body after it.
fn decode_checked(
    path: &Path,
    bytes: &[u8],
    cur: &mut Cur<'_>,
    file_bytes: u64,
    hash: blake3::Hash,
) -> Result<ActiveDb, DbError> {
    let p = || path.to_path_buf();
    let malformed = |reason: String| DbError::Malformed { path: p(), reason };
    if bytes[12] != ACTIVE_KIND {
        return Err(malformed(format!(
            "kind {} is not an active-area table",
            bytes[12]
        )));
    }
    let ntiers = bytes[13] as usize;
    let width = bytes[15];
    if bytes[14] != 0 || bytes[18..20] != [0, 0] {
        return Err(malformed("reserved header bits are not zero".into()));
    }
    if !(2..=4).contains(&width) {
        return Err(malformed(format!("record id width {width}")));
    }
    let regions = u32_at(bytes, 20) as usize;
    let entries = u64_at(bytes, 24);
    let mut tiers = Vec::with_capacity(ntiers);
    for _ in 0..ntiers {
        let t = cur.take(4, "tier")?;
        if t[3] != 0 {
            return Err(malformed("reserved tier byte is not zero".into()));
        }
        tiers.push(Tier::new(t[0], t[1], t[2]));
    }
    let config = ActiveConfig {
        tiers,
        max_value_len: u16::from_le_bytes([bytes[16], bytes[17]]),
    };
    config.validate().map_err(|e| malformed(e.to_string()))?;
    if regions > cur.remaining() / 16 {
        return Err(malformed(format!("{regions} regions do not fit the file")));
    }
    let mut shapes = Vec::with_capacity(regions);
    let mut prev: Option<(u32, Shape)> = None;
    for i in 0..regions {
        let mut a = [0u8; 16];
        a.copy_from_slice(cur.take(16, "region")?);
        let s = u128::from_le_bytes(a);
        let n = s.count_ones();
        let (w, h) = dims(s);
        if s & !FRAME_ALL != 0 || !is_connected(s) || canonical(s) != s || config.cap(w, h) == 0 {
            return Err(malformed(format!(
                "region {i} is not a canonical covered region"
            )));
        }
        if prev.is_some_and(|pk| pk >= (n, s)) {
            return Err(malformed(format!("region {i} is out of order")));
        }
        prev = Some((n, s));
        shapes.push(s);
    }
    let (layout, cap_of, offsets) = offsets_and_caps(&config, &shapes)?;
    if offsets[shapes.len()] != entries {
        return Err(malformed(format!(
            "header says {entries} entries, the regions need {}",
            offsets[shapes.len()]
        )));
    }
    let nth = cur.u32("thermograph count")? as usize;
    let mut thermographs = Vec::with_capacity(nth.min(1 << 20));
    for _ in 0..nth {
        let left = cur.traj()?;
        let right = cur.traj()?;
        thermographs.push(Thermograph { left, right });
    }
    let nrec = cur.u32("record count")? as usize;
    let mut records = Vec::with_capacity(nrec.min(1 << 20));
    for i in 0..nrec {
        let thermo = cur.u32("record thermograph id")?;
        if thermo as usize >= nth {
            return Err(malformed(format!(
                "record {i} names thermograph {thermo} of {nth}"
            )));
        }
        let tag = cur.u8("class tag")?;
        let x = cur.rat("class number")?;
        let k = cur.u8("infinitesimal kind")?;
        let kind = inf_of(k).ok_or_else(|| malformed(format!("record {i}: kind {k}")))?;
        let class = match tag {
            0 => Class::Number(x),
            1 => Class::Star,
            2 => Class::Infinitesimal(kind),
            3 => Class::Tepid(x, kind),
            4 => Class::Hot,
            _ => return Err(malformed(format!("record {i}: class tag {tag}"))),
        };
        let oc = cur.u8("outcome")?;
        let outcome =
            outcome_from(oc).ok_or_else(|| malformed(format!("record {i}: outcome {oc}")))?;
        let exact = (cur.bound()?, cur.bound()?);
        let value = if config.max_value_len > 0 {
            let len = cur.u32("value length")? as usize;
            if len > config.max_value_len as usize {
                return Err(malformed(format!("record {i}: value of {len} bytes")));
            }
            let s = cur.take(len, "value text")?;
            let v = String::from_utf8(s.to_vec())
                .map_err(|_| malformed(format!("record {i}: value is not UTF-8")))?;
            (len > 0).then_some(v)
        } else {
            None
        };
        records.push(Record {
            thermo,
            class,
            outcome,
            exact,
            value,
        });
    }
    let ids_at = cur.at as u64;
    let need = (entries as u128) * width as u128;
    if need != cur.remaining() as u128 {
        return Err(malformed(format!(
            "{} bytes of record ids, {entries} entries of {width} bytes need {need}",
            cur.remaining()
        )));
    }
    let mut ids = Vec::with_capacity(entries as usize);
    // In pieces of at most 1 Mi ids, so that a streamed file needs no buffer of them all.
    let mut left = entries as usize;
    while left > 0 {
        let n = left.min(1 << 20);
        left -= n;
        let raw = cur.take(n * width as usize, "record ids")?;
        match width {
            2 => ids.extend(
                raw.chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]) as u32),
            ),
            3 => ids.extend(
                raw.chunks_exact(3)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], 0])),
            ),
            _ => ids.extend(
                raw.chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            ),
        }
    }
    if let Some(i) = ids.iter().position(|&r| r as usize >= nrec) {
        return Err(malformed(format!(
            "entry {i} names record {} of {nrec}",
            ids[i]
        )));
    }
    let converted = records
        .iter()
        .map(|r| {
            let th = &thermographs[r.thermo as usize];
            (to_eval_bounds(th.bounds()), to_eval_bounds(r.exact))
        })
        .collect();
    let index = RegionIndex::new(shapes.clone());
    let digest = *hash.as_bytes();
    Ok(ActiveDb {
        config,
        path: p(),
        shapes,
        cap_of,
        offsets,
        layout,
        index,
        thermographs,
        records,
        converted,
        ids,
        ids_at,
        id_width: width,
        hash: digest,
        file_bytes,
    })
}
