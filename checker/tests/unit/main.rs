//! Unit tests: the rules against hand counts, and every proof rule accepting a correct use and rejecting a wrong one.

mod cli;
mod parallel;
mod proof;
mod rules;
