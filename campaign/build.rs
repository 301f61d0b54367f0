//! Build script: fingerprints the checker's and the format's sources for the campaign's
//! record of shards already checked (`src/verified.rs`).
//!
//! The fingerprint hashes every file under `checker/src` and `format/src`, both crates'
//! `Cargo.toml` and the workspace's `Cargo.lock`, so any change to the rules that checked
//! a shard (or to the code that reads it) gives a new fingerprint, and a resumed run then
//! checks every shard again. Outside this workspace layout the fingerprint is empty and
//! nothing is remembered between runs.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn add(h: &mut std::collections::hash_map::DefaultHasher, path: &Path, name: &str) -> bool {
    if path.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else {
            return false;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
            .iter()
            .all(|n| add(h, &path.join(n), &format!("{name}/{n}")))
    } else {
        let Ok(bytes) = std::fs::read(path) else {
            return false;
        };
        h.write(name.as_bytes());
        h.write_u64(bytes.len() as u64);
        h.write(&bytes);
        true
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut whole = true;
    for rel in [
        "checker/src",
        "checker/Cargo.toml",
        "format/src",
        "format/Cargo.toml",
        "Cargo.lock",
    ] {
        let path = root.join(rel);
        println!("cargo:rerun-if-changed={}", path.display());
        whole &= add(&mut h, &path, rel);
    }
    let fingerprint = if whole {
        format!("{:016x}", h.finish())
    } else {
        String::new()
    };
    println!("cargo:rustc-env=AMAZONS_CHECKER_FINGERPRINT={fingerprint}");
}
