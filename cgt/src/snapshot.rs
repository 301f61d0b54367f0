//! Saving a game store's games to a byte stream and rebuilding the same store from it (checkpoints of long builds).
//!
//! Only the option lists are written, in id order. Reading interns them again in that
//! order, which recomputes everything else (numbers, stops, the option-hash index) and
//! gives every game its old id: each game's options are older games, and a game is new
//! exactly when no older game has its options. The memo caches are not saved; they only
//! save time.
//!
//! Format (little-endian): game count `n` (u64), then for each game from id 0: left
//! option count (u32), right option count (u32), then the left and the right option ids
//! (u32 each, sorted ascending).

use crate::game::{GameId, GameStore};
use std::io::{self, Read, Write};

/// Why a snapshot could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("cannot read the snapshot: {0}")]
    Io(#[from] io::Error),
    #[error("malformed snapshot: {0}")]
    Malformed(String),
}

fn read_u32(input: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    input.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

impl GameStore {
    /// Writes every game's option lists in id order (see the module notes).
    pub fn write_games(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&(self.len() as u64).to_le_bytes())?;
        for i in 0..self.len() {
            let g = GameId::from_index(i);
            let (l, r) = (self.left(g), self.right(g));
            out.write_all(&(l.len() as u32).to_le_bytes())?;
            out.write_all(&(r.len() as u32).to_le_bytes())?;
            for x in l.iter().chain(r) {
                out.write_all(&(x.index() as u32).to_le_bytes())?;
            }
        }
        Ok(())
    }

    /// Rebuilds the store that [`GameStore::write_games`] wrote: the same games under the
    /// same ids. Input that could not have come from a store (an option that is not an
    /// older game, unsorted or repeated options, a game equal to an older one) is an error.
    pub fn read_games(input: &mut impl Read) -> Result<GameStore, SnapshotError> {
        let mut b = [0u8; 8];
        input.read_exact(&mut b)?;
        let n = u64::from_le_bytes(b);
        if n == 0 || n > u32::MAX as u64 {
            return Err(SnapshotError::Malformed(format!("{n} games")));
        }
        let mut store = GameStore::new();
        let mut left = Vec::new();
        let mut right = Vec::new();
        for i in 0..n as usize {
            let (nl, nr) = (read_u32(input)? as usize, read_u32(input)? as usize);
            // Each option is a distinct older game, so a game has at most `i` per side.
            if nl > i || nr > i {
                return Err(SnapshotError::Malformed(format!(
                    "game {i} has {nl} left and {nr} right options"
                )));
            }
            for (list, count) in [(&mut left, nl), (&mut right, nr)] {
                list.clear();
                for _ in 0..count {
                    let x = read_u32(input)? as usize;
                    if x >= i || list.last().is_some_and(|&p: &GameId| p.index() >= x) {
                        return Err(SnapshotError::Malformed(format!(
                            "game {i}: option {x} is not a newer, sorted older game"
                        )));
                    }
                    list.push(GameId::from_index(x));
                }
            }
            let id = if i == 0 {
                // `new` made the zero game; the snapshot must start with it.
                store.zero()
            } else {
                store.intern_canonical(left.clone(), right.clone())
            };
            if id.index() != i || (i == 0 && (nl, nr) != (0, 0)) {
                return Err(SnapshotError::Malformed(format!(
                    "game {i} repeats game {}",
                    id.index()
                )));
            }
        }
        Ok(store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_store() -> GameStore {
        let mut s = GameStore::new();
        for text in [
            "{3,{4|0,{1|0,*}}|-1}",
            "^*",
            "{1/2|-3/4}",
            "+-{1,{2|0}}",
            "*5",
        ] {
            s.parse(text).expect("parses");
        }
        s
    }

    #[test]
    fn a_snapshot_rebuilds_the_same_games_under_the_same_ids() {
        let s = sample_store();
        let mut bytes = Vec::new();
        s.write_games(&mut bytes).expect("write");
        let mut t = GameStore::read_games(&mut bytes.as_slice()).expect("read");
        assert_eq!(t.len(), s.len());
        let mut s = s;
        for i in 0..s.len() {
            let g = GameId::from_index(i);
            assert_eq!(t.display(g), s.display(g), "game {i}");
            assert_eq!(t.left_stop(g), s.left_stop(g));
            assert_eq!(t.right_stop(g), s.right_stop(g));
        }
        // New games are found (and made) the same way in both.
        let a = s.parse("{5|*,{1|0}}").expect("parses");
        let b = t.parse("{5|*,{1|0}}").expect("parses");
        assert_eq!(a, b);
        assert_eq!(s.len(), t.len());
    }

    #[test]
    fn damaged_snapshots_are_errors_not_panics() {
        let s = sample_store();
        let mut bytes = Vec::new();
        s.write_games(&mut bytes).expect("write");
        // Truncated anywhere.
        for cut in [0, 5, 8, 12, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                GameStore::read_games(&mut &bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        // Any single byte changed: an error, or (a changed id that is still a valid older
        // game) a store with other games, never a panic.
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x5a;
            let _ = GameStore::read_games(&mut bad.as_slice());
        }
        // An option that is not an older game.
        let mut forward = Vec::new();
        forward.extend_from_slice(&2u64.to_le_bytes());
        forward.extend_from_slice(&[0; 8]);
        forward.extend_from_slice(&1u32.to_le_bytes());
        forward.extend_from_slice(&0u32.to_le_bytes());
        forward.extend_from_slice(&1u32.to_le_bytes());
        let e = GameStore::read_games(&mut forward.as_slice()).expect_err("forward option");
        assert!(e.to_string().contains("older game"), "{e}");
        // A game written twice.
        let mut twice = Vec::new();
        twice.extend_from_slice(&3u64.to_le_bytes());
        twice.extend_from_slice(&[0; 8]);
        for _ in 0..2 {
            twice.extend_from_slice(&1u32.to_le_bytes());
            twice.extend_from_slice(&0u32.to_le_bytes());
            twice.extend_from_slice(&0u32.to_le_bytes());
        }
        let e = GameStore::read_games(&mut twice.as_slice()).expect_err("repeated game");
        assert!(e.to_string().contains("repeats game 1"), "{e}");
    }
}
