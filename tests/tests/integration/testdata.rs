//! The test vectors of `format/testdata/`: every file gets the verdict its README row names, and the files and README are what the generator writes.

use amazons_checker::{check_parallel, cli, cli::DirShards, whole_board, CheckError, Failure};
use amazons_format::stored;
use amazons_tests::testdata::{readme, vectors};
use std::path::{Path, PathBuf};

fn testdata() -> PathBuf {
    crate::common::workspace_root().join("format/testdata")
}

/// A variant's name from its `Debug` text.
fn variant(debug: String) -> String {
    debug.chars().take_while(|c| c.is_alphanumeric()).collect()
}

/// The innermost failure of a rejection that went through shards.
fn innermost(e: &CheckError) -> &Failure {
    match &e.failure {
        Failure::ShardWrong { detail, .. } => innermost(detail),
        failure => failure,
    }
}

/// What the checker says about `file` with `threads` threads: exit code, rule and message.
fn verdict(file: &Path, threads: usize) -> (i32, String, String) {
    let cert = match stored::read(file)
        .map_err(|e| e.to_string())
        .and_then(|b| amazons_format::decode(&b).map_err(|e| format!("{e:?}")))
    {
        Ok(cert) => cert,
        Err(e) => return (2, variant(e.clone()), e),
    };
    let shards = DirShards::scan(&testdata().join("shards"));
    let checked =
        whole_board(&cert).and_then(|()| check_parallel(&cert, &shards, threads, &mut |_| {}));
    match checked {
        Ok(_) => (0, "-".to_string(), String::new()),
        Err(e) => {
            let mut rule = variant(format!("{:?}", e.failure));
            if matches!(e.failure, Failure::ShardWrong { .. }) {
                rule = format!("{rule}: {}", variant(format!("{:?}", innermost(&e))));
            }
            (if e.failure.damaged() { 2 } else { 1 }, rule, e.to_string())
        }
    }
}

#[test]
fn every_test_vector_gets_the_verdict_of_its_readme_row() {
    let text = std::fs::read_to_string(testdata().join("README.md")).expect("testdata README");
    let mut rows = 0;
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let cols: Vec<&str> = line.split('|').map(str::trim).collect();
        let file = cols[1].trim_matches('`');
        if file.starts_with("shards/") {
            continue;
        }
        let (expected, exit, rule) = (cols[2], cols[3], cols[4]);
        let path = testdata().join(file);
        let (code, got_rule, message) = verdict(&path, 2);
        assert_eq!(code.to_string(), exit, "{file}: {message}");
        assert_eq!(got_rule, rule, "{file}: {message}");
        assert_eq!(expected == "accepted", code == 0, "{file}");
        // One thread gives the same verdict and message; the command line the same exit code.
        assert_eq!(verdict(&path, 1), (code, got_rule, message), "{file}");
        assert_eq!(cli::run(&[path], 2), code, "{file}");
        rows += 1;
    }
    assert!(rows >= 40, "only {rows} rows in the README table");
}

#[test]
fn the_test_vectors_and_readme_are_what_the_generator_writes() {
    let vectors = vectors();
    let dir = testdata();
    for v in &vectors {
        let path = dir.join(&v.file);
        let committed = stored::read(&path).unwrap_or_else(|e| panic!("{}: {e}", v.file));
        // A compressed file is compared by its content (zstd's bytes may vary by version).
        let generated = stored::decompress(v.bytes.clone()).expect("decompress");
        assert!(
            committed == generated,
            "{} differs from the generator's",
            v.file
        );
    }
    let text = std::fs::read_to_string(dir.join("README.md")).expect("README");
    assert_eq!(
        text,
        readme(&vectors),
        "README.md differs from the generator's"
    );
    let mut listed: Vec<String> = vectors.iter().map(|v| v.file.clone()).collect();
    listed.push("README.md".to_string());
    listed.sort();
    let mut present = Vec::new();
    for sub in ["", "shards/"] {
        for entry in std::fs::read_dir(dir.join(sub))
            .expect("testdata")
            .flatten()
        {
            if entry.path().is_file() {
                present.push(format!("{sub}{}", entry.file_name().to_string_lossy()));
            }
        }
    }
    present.sort();
    assert_eq!(
        present, listed,
        "files in format/testdata that the generator does not write"
    );
}
