//! Unit tests: the rules against hand counts, and every proof rule accepting a correct use and rejecting a wrong one.

mod cli;
mod parallel;
mod proof;
mod rules;
mod search;

/// A xorshift64 stream from `seed` (not zero): reproducible pseudo-random words for the tests.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}
