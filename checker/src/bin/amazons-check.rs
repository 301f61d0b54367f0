//! `amazons-check [--threads N] FILE...`: verifies Amazons proof certificates with the trusted checker.

use std::path::PathBuf;

const USAGE: &str = "usage: amazons-check [--threads N] FILE_OR_DIR...
       amazons-check --version

Verifies Amazons proof certificates (directories are searched for *.cert and
*.cert.zst files; a manifest's shards are taken from the shards/ directory beside it
and checked on N threads, default all cores).
Exit code: 0 every certificate verifies, 1 some certificate is wrong,
2 some input (or shard) is missing or damaged.";

fn main() {
    let (mut paths, mut threads) = (Vec::new(), amazons_checker::cli::all_cores());
    let mut options_done = false;
    let mut args = std::env::args_os().skip(1);
    let fail = |message: String| -> ! {
        eprintln!("{message}\n{USAGE}");
        std::process::exit(2)
    };
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy().into_owned();
        if !options_done && (text == "--help" || text == "-h") {
            use std::io::Write;
            // A closed pipe (`amazons-check --help | head -1`) is not an error here.
            let _ = writeln!(std::io::stdout(), "{USAGE}");
            return;
        } else if !options_done && (text == "--version" || text == "-V") {
            use std::io::Write;
            let _ = writeln!(
                std::io::stdout(),
                "amazons-check {}",
                env!("CARGO_PKG_VERSION")
            );
            return;
        } else if !options_done && text == "--" {
            options_done = true;
        } else if !options_done && (text == "--threads" || text.starts_with("--threads=")) {
            let value = match text.strip_prefix("--threads=") {
                Some(v) => v.to_string(),
                None => args
                    .next()
                    .map(|v| v.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            };
            threads = match value.parse::<usize>() {
                Ok(n) if n >= 1 => n,
                _ => fail(format!(
                    "--threads needs a number of at least 1, not {value:?}"
                )),
            };
        } else if !options_done && text.starts_with('-') {
            fail(format!("unknown option {text}"));
        } else {
            paths.push(PathBuf::from(arg));
        }
    }
    if paths.is_empty() {
        fail("no certificate files given".to_string());
    }
    std::process::exit(amazons_checker::cli::run(&paths, threads));
}
