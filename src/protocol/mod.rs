//! Protocol front ends over the engine API. The protocol is detected from
//! the first command (`uci` or `xboard`), or forced with `--uci`/`--xboard`.
//! Input is read on its own thread so that `stop`, `isready` and `quit` are
//! answered while the engine thinks.

pub mod uci;
pub mod xboard;

use crate::engine::{Engine, EngineError};
use crate::rules::variant::LoadError;
use std::fmt;
use std::io::BufRead;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// Which protocol to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Uci,
    Xboard,
}

/// The longest input line taken, in bytes. The longest real command, a UCI
/// `position ... moves` of a very long game, is a few tens of kilobytes; a
/// longer line is refused whole (and read no further than needed to skip it),
/// so that input without line breaks cannot exhaust memory.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// One line of standard input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Line(String),
    /// A line that cannot be a command: why, and its text as far as it can
    /// be shown (invalid bytes replaced, cut at [`SHOWN_BYTES`]).
    Bad {
        reason: &'static str,
        text: String,
    },
}

/// How much of a refused line its error message repeats.
const SHOWN_BYTES: usize = 80;

/// Read one line of at most [`MAX_LINE_BYTES`] (without its line break).
/// None at the end of input (or on a read error).
pub fn read_line(input: &mut impl BufRead) -> Option<Input> {
    let mut line: Vec<u8> = Vec::new();
    let mut too_long = false;
    let mut any = false;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        if buf.is_empty() {
            if !any {
                return None;
            }
            break;
        }
        any = true;
        let (chunk, found) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE_BYTES {
                too_long = true;
                let room = MAX_LINE_BYTES.saturating_sub(line.len()).min(chunk.len());
                line.extend_from_slice(&chunk[..room]);
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = found.unwrap_or(buf.len());
        input.consume(used);
        if found.is_some() {
            break;
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    let shown = |bytes: &[u8]| {
        let cut = &bytes[..bytes.len().min(SHOWN_BYTES)];
        String::from_utf8_lossy(cut).into_owned()
    };
    if too_long {
        return Some(Input::Bad {
            reason: "line too long",
            text: shown(&line),
        });
    }
    match String::from_utf8(line) {
        Ok(s) => Some(Input::Line(s)),
        Err(e) => Some(Input::Bad {
            reason: "not valid UTF-8",
            text: shown(e.as_bytes()),
        }),
    }
}

/// Lines of standard input, read on their own thread. The channel closes at
/// end of input.
pub fn stdin_lines() -> Receiver<Input> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        while let Some(line) = read_line(&mut input) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// How often queued commands look whether the search they wait for has ended.
const QUEUE_POLL: Duration = Duration::from_millis(5);

/// What the protocol loop gets next.
enum Next {
    Line(String),
    /// A line refused by the reader, to be answered with the protocol's error.
    Bad(&'static str, String),
    /// Nothing within [`QUEUE_POLL`]: look at the queue again.
    Idle,
    End,
}

/// The next line of input: waited for while nothing is queued; with queued
/// commands, [`Next::Idle`] after [`QUEUE_POLL`] so that the caller looks at
/// its queue again.
fn next_line(rx: &Receiver<Input>, queued: bool) -> Next {
    let got = if queued {
        match rx.recv_timeout(QUEUE_POLL) {
            Ok(input) => input,
            Err(RecvTimeoutError::Timeout) => return Next::Idle,
            Err(RecvTimeoutError::Disconnected) => return Next::End,
        }
    } else {
        match rx.recv() {
            Ok(input) => input,
            Err(_) => return Next::End,
        }
    };
    match got {
        Input::Line(s) => Next::Line(s),
        Input::Bad { reason, text } => Next::Bad(reason, text),
    }
}

/// Why a command was refused; its text is what the protocol prints.
#[derive(Debug)]
pub enum CommandError {
    /// The engine refused a variant, position, move or option value.
    Engine(EngineError),
    /// A variant file refused whole.
    VariantFile(LoadError),
    /// The command itself is wrong (unknown, or its arguments missing or
    /// malformed); the text says how.
    Usage(String),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Engine(e) => write!(f, "{e}"),
            CommandError::VariantFile(e) => write!(f, "{e}"),
            CommandError::Usage(s) => f.write_str(s),
        }
    }
}

impl std::error::Error for CommandError {}

impl From<EngineError> for CommandError {
    fn from(e: EngineError) -> Self {
        CommandError::Engine(e)
    }
}

impl From<LoadError> for CommandError {
    fn from(e: LoadError) -> Self {
        CommandError::VariantFile(e)
    }
}

impl From<String> for CommandError {
    fn from(s: String) -> Self {
        CommandError::Usage(s)
    }
}

impl From<&str> for CommandError {
    fn from(s: &str) -> Self {
        CommandError::Usage(s.to_string())
    }
}

/// A variant file that did not load before the session began; the
/// protocol reports it after the GUI's first command.
#[derive(Clone, Debug)]
pub struct StartupError {
    /// Where the file was named (an environment variable).
    pub named_in: String,
    /// Why it did not load.
    pub error: LoadError,
}

fn first_word(line: &str) -> Option<&str> {
    line.split_whitespace().next()
}

/// Run the protocol loop until `quit` or the end of input. `startup_errors`
/// are reported in the protocol's form after the GUI's first command: before
/// it, a GUI may not read them.
pub fn run(engine: Engine, forced: Option<Protocol>, startup_errors: Vec<StartupError>) {
    let rx = stdin_lines();
    let mut first: Option<String> = None;
    let protocol = match forced {
        Some(p) => p,
        None => loop {
            let line = match rx.recv() {
                Ok(Input::Line(line)) => line,
                Ok(Input::Bad { reason, .. }) => {
                    crate::util::output::line(&format!("info string error: {reason}"));
                    continue;
                }
                Err(_) => return,
            };
            match line.split_whitespace().next() {
                Some("uci") => {
                    first = Some(line);
                    break Protocol::Uci;
                }
                Some("xboard") => break Protocol::Xboard,
                Some("--xboard") => break Protocol::Xboard,
                Some("quit") => return,
                None => continue,
                Some(_) => crate::util::output::line("info string send 'uci' (or 'xboard') first"),
            }
        },
    };
    match protocol {
        Protocol::Uci => uci::run(engine, rx, first, startup_errors),
        Protocol::Xboard => xboard::run(engine, rx, startup_errors),
    }
}
