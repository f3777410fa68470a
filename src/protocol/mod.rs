//! Protocol front ends over the engine API. The protocol is detected from
//! the first command (`uci` or `xboard`), or forced with `--uci`/`--xboard`.
//! Input is read on its own thread so that `stop`, `isready` and `quit` are
//! answered while the engine thinks.

pub mod uci;
pub mod xboard;

use crate::engine::Engine;
use std::io::BufRead;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Which protocol to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Uci,
    Xboard,
}

/// Lines of standard input, read on their own thread. The channel closes at
/// end of input.
pub fn stdin_lines() -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        for line in stdin.lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// How often queued commands look whether the search they wait for has ended.
const QUEUE_POLL: Duration = Duration::from_millis(5);

/// The next line of input: waited for while nothing is queued; with queued
/// commands, `Some(None)` after [`QUEUE_POLL`] so that the caller looks at its
/// queue again. None at the end of input.
fn next_line(rx: &Receiver<String>, queued: bool) -> Option<Option<String>> {
    if !queued {
        return rx.recv().ok().map(Some);
    }
    match rx.recv_timeout(QUEUE_POLL) {
        Ok(line) => Some(Some(line)),
        Err(RecvTimeoutError::Timeout) => Some(None),
        Err(RecvTimeoutError::Disconnected) => None,
    }
}

/// A refused ini file in one line: its first error, and how many more.
fn ini_errors(errors: &[crate::variant::IniError]) -> String {
    let first = errors.first().map_or_else(String::new, |e| e.to_string());
    match errors.len() {
        0 | 1 => format!("{first} (file not loaded)"),
        n => format!("{first} (and {} more errors; file not loaded)", n - 1),
    }
}

fn first_word(line: &str) -> Option<&str> {
    line.split_whitespace().next()
}

/// Run the protocol loop until `quit` or the end of input.
pub fn run(engine: Engine, forced: Option<Protocol>) {
    let rx = stdin_lines();
    let mut first: Option<String> = None;
    let protocol = match forced {
        Some(p) => p,
        None => loop {
            let Ok(line) = rx.recv() else { return };
            match line.split_whitespace().next() {
                Some("uci") => {
                    first = Some(line);
                    break Protocol::Uci;
                }
                Some("xboard") => break Protocol::Xboard,
                Some("--xboard") => break Protocol::Xboard,
                Some("quit") => return,
                None => continue,
                Some(_) => println!("info string send 'uci' (or 'xboard') first"),
            }
        },
    };
    match protocol {
        Protocol::Uci => uci::run(engine, rx, first),
        Protocol::Xboard => xboard::run(engine, rx),
    }
}
