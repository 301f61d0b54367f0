//! Cross-crate integration tests of the Amazons workspace; the tests live in `tests/integration/` and their data in `data/`.

pub mod testdata;
