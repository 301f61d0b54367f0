//! `testdata [DIR]`: writes the certificate test vectors and their README to DIR (default `format/testdata`).

use amazons_tests::testdata::{readme, vectors};
use anyhow::Context;
use std::path::{Path, PathBuf};

fn write(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().context("a file inside a directory")?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))
}

fn main() -> anyhow::Result<()> {
    let dir = std::env::args_os().nth(1).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../format/testdata"),
        PathBuf::from,
    );
    let vectors = vectors();
    for v in &vectors {
        write(&dir.join(&v.file), &v.bytes)?;
    }
    write(&dir.join("README.md"), readme(&vectors).as_bytes())?;
    println!(
        "wrote {} files and README.md to {}",
        vectors.len(),
        dir.display()
    );
    Ok(())
}
