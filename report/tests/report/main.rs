//! Tests of `amazons report`: the data model on the committed certificates, and (ignored by default) the pages in a real headless Chromium.

mod browser;
mod model;

use std::path::PathBuf;

/// The repository's `certificates/` directory.
pub fn certificates() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../certificates")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("amazons-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory can be made");
    dir
}
