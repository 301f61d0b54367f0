//! Command-line tests of the `amazons` binary, one integration-test binary with one module
//! per concern (run with `cargo test --release -p amazons-cli`).

mod ab_cli;
mod campaign;
mod check_cli;
mod cli;
mod common;
mod compact_cli;
mod json;
mod play;
mod report_cli;
mod sgf;
