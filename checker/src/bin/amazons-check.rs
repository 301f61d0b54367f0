//! `amazons-check FILE...`: verifies Amazons proof certificates with the trusted checker.

use std::path::PathBuf;

const USAGE: &str = "usage: amazons-check FILE_OR_DIR...

Verifies Amazons proof certificates (directories are searched for *.cert and
*.cert.zst files; a manifest's shards are taken from the shards/ directory beside it).
Exit code: 0 every certificate verifies, 1 some certificate is wrong,
2 some input is unreadable.";

fn main() {
    let mut paths = Vec::new();
    let mut options_done = false;
    for arg in std::env::args_os().skip(1) {
        if !options_done && (arg == "--help" || arg == "-h") {
            use std::io::Write;
            // A closed pipe (`amazons-check --help | head -1`) is not an error here.
            let _ = writeln!(std::io::stdout(), "{USAGE}");
            return;
        } else if !options_done && arg == "--" {
            options_done = true;
        } else if !options_done && arg.to_string_lossy().starts_with('-') {
            eprintln!("unknown option {}\n{USAGE}", arg.to_string_lossy());
            std::process::exit(2);
        } else {
            paths.push(PathBuf::from(arg));
        }
    }
    if paths.is_empty() {
        eprintln!("{USAGE}");
        std::process::exit(2);
    }
    std::process::exit(amazons_checker::cli::run(&paths));
}
