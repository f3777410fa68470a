//! Standard output for protocol replies and command results. When the
//! reader has gone (a GUI that quit, `amalgam perft ... | head -1`), a write
//! fails: the process then ends quietly with status 0 instead of panicking,
//! as `println!` would. Nothing is left to report to: no one reads the output.

use std::io::Write;

/// Write one line and flush it; end the process quietly if no one reads.
pub fn line(s: &str) {
    let mut out = std::io::stdout().lock();
    if writeln!(out, "{s}").and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

/// `println!` that ends the process quietly when standard output is closed
/// (see [`line`]).
#[macro_export]
macro_rules! outln {
    () => {
        $crate::util::output::line("")
    };
    ($($arg:tt)*) => {
        $crate::util::output::line(&format!($($arg)*))
    };
}
