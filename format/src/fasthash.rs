//! A fast multiply-xor hasher for in-memory hash maps of the solver and the checker.
//!
//! Speed only: a hash map finds a key only if an equal one was stored, whatever the hash,
//! so the checker's soundness does not depend on this function. A certificate crafted for
//! collisions could only make checking slow.

use std::hash::{BuildHasherDefault, Hasher};

/// Hashes words by rotate, xor and multiply (the FxHash step); `finish` is a folded
/// multiply (the high and low halves of a 128-bit product xored), since a product's low
/// bits, which pick the bucket, see only the inputs' low bits. Several times faster than
/// the standard library's SipHash: with SipHash, hashing claims one board cell at a time
/// was half of the checking time, and the evaluation's memo tables paid the same.
#[derive(Debug, Default, Clone, Copy)]
pub struct FastHasher(u64);

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        let p = u128::from(self.0) * 0x9E37_79B9_7F4A_7C15;
        (p as u64) ^ ((p >> 64) as u64)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517C_C1B7_2722_0A95);
    }
    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_i32(&mut self, n: i32) {
        self.write_u64(n as u32 as u64);
    }
    fn write_u8(&mut self, n: u8) {
        self.write_u64(n as u64);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_isize(&mut self, n: isize) {
        self.write_u64(n as u64);
    }
}

/// `HashMap<K, V, Fast>`: a hash map with [`FastHasher`].
pub type Fast = BuildHasherDefault<FastHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn keys_differing_in_one_bit_spread_over_buckets() {
        // Bitboards that differ in one square must not collide in the low bits that
        // choose a bucket (the weakness of a bare multiply).
        let mut low = std::collections::HashSet::new();
        for sq in 0..64u32 {
            low.insert(Fast::default().hash_one(1u64 << sq) & 0xfff);
        }
        assert!(
            low.len() >= 60,
            "only {} distinct low parts of 64",
            low.len()
        );
    }
}
