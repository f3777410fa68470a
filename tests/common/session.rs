//! The real binary driven over standard input and output.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

pub struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    pings: u32,
}

impl Session {
    pub fn start() -> Session {
        Session::start_with(&[])
    }

    pub fn start_with(args: &[&str]) -> Session {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_amalgam"));
        cmd.args(args);
        Session::spawn(cmd, "engine")
    }

    /// Any program (`what` names it in failures) driven the same way.
    pub fn spawn(mut cmd: Command, what: &str) -> Session {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what} does not start: {e}"));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            // Lossy, so that a line that is not UTF-8 shows up as one.
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while matches!(reader.read_until(b'\n', &mut buf), Ok(n) if n > 0) {
                let line = String::from_utf8_lossy(&buf);
                if tx
                    .send(line.trim_end_matches(['\r', '\n']).to_string())
                    .is_err()
                {
                    break;
                }
                buf.clear();
            }
        });
        Session {
            child,
            stdin,
            lines: rx,
            pings: 0,
        }
    }

    /// Write raw bytes (a line that is not valid UTF-8, for example).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Every line that arrives within `d`.
    pub fn lines_for(&mut self, d: Duration) -> Vec<String> {
        let end = std::time::Instant::now() + d;
        let mut seen = Vec::new();
        while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => seen.push(line),
                Err(_) => break,
            }
        }
        seen
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Lines up to and including the first that starts with `prefix`.
    pub fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no '{prefix}' line; got {seen:?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// XBoard: the lines printed before the answer to a fresh `ping`.
    pub fn sync(&mut self) -> Vec<String> {
        self.pings += 1;
        let pong = format!("pong {}", self.pings);
        self.send(&format!("ping {}", self.pings));
        let mut lines = self.until(&pong);
        lines.pop();
        lines
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        // A program that does not quit (a failed test may leave it hung) is
        // killed, so that the failure is reported instead of a hang.
        for _ in 0..200 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
