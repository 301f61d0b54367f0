//! Standard output for the commands: `print!` and `println!` that end quietly on a closed
//! pipe instead of panicking.

/// Standard output closed by the reader (`amazons tasks ... | head`): stop quietly, as a
/// program killed by SIGPIPE would, instead of panicking; other write errors are reported.
pub(crate) fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: writing to standard output: {e}");
    std::process::exit(1);
}

// `print!` and `println!` through [`stdout_failed`]; these shadow the standard macros in
// the modules that import them (the standard ones panic when the pipe is closed).
macro_rules! print {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($arg)*) {
            $crate::out::stdout_failed(e)
        }
    }};
}
macro_rules! println {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            $crate::out::stdout_failed(e)
        }
    }};
}

// `say!(json, ...)`: a text line of a command that, with `--json`, leaves the text lines out
// and ends with one JSON object instead: `println!` unless `json`.
macro_rules! say {
    ($json:expr, $($arg:tt)*) => {
        if !$json {
            $crate::out::println!($($arg)*)
        }
    };
}

pub(crate) use {print, println, say};
