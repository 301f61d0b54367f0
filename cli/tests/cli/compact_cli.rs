//! `amazons compact` on a sharded result: progress on stderr, and manifest.md rewritten to the new shards.

use crate::common::{ok, s, scratch, sharded, shards_in};

/// The body hash in a certificate file's header (bytes 20..52 of the decompressed file),
/// in hex, as manifest.md writes it.
fn declared_hash(path: &std::path::Path) -> String {
    let bytes = amazons_format::stored::read(path).expect("read shard");
    let body = amazons_format::file::verified_body(&bytes).expect("intact shard");
    amazons_format::hash_body(body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn compacting_a_sharded_result_reports_progress_and_rewrites_manifest_md() {
    let dir = scratch("compact-cli", "4x4");
    ok(&sharded("4x4", &dir, "--hash 8 -q --as-extracted"));
    let md = |d: &std::path::Path| std::fs::read_to_string(d.join("manifest.md")).expect("md");
    let before = md(&dir);
    let out = ok(&["compact", "--search", s(&dir)]);
    assert!(
        out.stderr.contains("files rewritten and checked"),
        "no progress line: {}",
        out.stderr
    );
    assert!(out.stdout.contains("manifest.md"), "{}", out.stdout);
    let after = md(&dir);
    assert_ne!(after, before, "some shard changed, so its row did");
    // Every shard's row names the hash its file now declares.
    let shards = shards_in(&dir, ".cert");
    assert!(!shards.is_empty());
    for shard in &shards {
        let name = shard.file_name().expect("name").to_string_lossy();
        let task = name.trim_end_matches(".cert");
        let row = (after.lines())
            .find(|l| l.starts_with(&format!("| {task} |")))
            .unwrap_or_else(|| panic!("no row for {task}:\n{after}"));
        assert!(row.contains(&declared_hash(shard)), "{row}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
