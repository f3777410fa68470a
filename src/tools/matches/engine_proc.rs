//! A child engine process: spawned with piped standard input and output; its
//! output is read line by line on a thread of its own, each line stamped with
//! the moment it was read, so that the referee can wait with a deadline and
//! charge the engine exactly the time it took. A wait ends early when the
//! match is asked to stop.

use super::errors::EngineError;
use crate::util::stop::Stop;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How an engine is started.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// Program and arguments, separated by white space.
    pub command: String,
    /// Working directory of the engine (the runner's own when `None`).
    pub dir: Option<String>,
}

/// Why no line came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitError {
    /// The deadline passed.
    Timeout,
    /// The engine closed its output (it exited or crashed).
    Exited,
    /// The match was asked to stop.
    Stopped,
}

impl WaitError {
    /// The engine error of a wait for `awaited` that failed during the
    /// handshake stage `during`.
    pub fn in_handshake(self, awaited: &'static str, during: &str) -> EngineError {
        match self {
            WaitError::Timeout => EngineError::Silent { awaited },
            WaitError::Exited => EngineError::Exited {
                during: during.to_string(),
            },
            WaitError::Stopped => EngineError::Stopped,
        }
    }
}

/// How often a wait looks at the stop request.
const STOP_POLL: Duration = Duration::from_millis(50);

/// A running engine.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
    exited: bool,
    stop: Stop,
}

impl EngineProcess {
    /// Start the engine; its waits end when `stop` is requested.
    pub fn spawn(launch: &Launch, stop: &Stop) -> Result<EngineProcess, EngineError> {
        let mut words = launch.command.split_whitespace();
        let program = words
            .next()
            .ok_or_else(|| EngineError::Spawn("empty engine command".into()))?;
        // A relative program path names a file relative to the runner's
        // directory, not to the engine's working directory.
        let program = if program.contains('/') {
            std::fs::canonicalize(program)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|_| program.to_string())
        } else {
            program.to_string()
        };
        let mut cmd = Command::new(&program);
        cmd.args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(d) = &launch.dir {
            cmd.current_dir(d);
        }
        // An interrupt from the terminal goes to the runner alone, which
        // stops its games and then the engines: an engine that died of it
        // first would lose its game by a crash.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .map_err(|e| EngineError::Spawn(format!("cannot start '{}': {e}", launch.command)))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineError::Spawn("the engine has no output pipe".into()))?;
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            // Bytes that are not UTF-8 are replaced, and an endless line is
            // cut, so that neither ends the reading.
            let mut reader = BufReader::new(stdout);
            while let Some(input) = crate::protocol::read_line(&mut reader) {
                let line = match input {
                    crate::protocol::Input::Line(l) => l,
                    crate::protocol::Input::Bad { text, .. } => text,
                };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Ok(EngineProcess {
            child,
            stdin,
            lines: rx,
            exited: false,
            stop: stop.clone(),
        })
    }

    /// Write one line. An error means the engine is gone.
    pub fn send(&mut self, line: &str) -> Result<(), WaitError> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(WaitError::Exited);
        };
        let ok = writeln!(stdin, "{line}").and_then(|_| stdin.flush());
        if ok.is_err() {
            self.exited = true;
            return Err(WaitError::Exited);
        }
        Ok(())
    }

    /// The next line, read before `deadline`, with the moment it was read.
    pub fn recv(&mut self, deadline: Instant) -> Result<(Instant, String), WaitError> {
        if self.exited {
            return Err(WaitError::Exited);
        }
        loop {
            if self.stop.is_requested() {
                return Err(WaitError::Stopped);
            }
            let now = Instant::now();
            let until = deadline.min(now + STOP_POLL);
            match self
                .lines
                .recv_timeout(until.saturating_duration_since(now))
            {
                Ok(l) => return Ok(l),
                Err(RecvTimeoutError::Timeout) if until < deadline => {}
                Err(RecvTimeoutError::Timeout) => return Err(WaitError::Timeout),
                Err(RecvTimeoutError::Disconnected) => {
                    self.exited = true;
                    return Err(WaitError::Exited);
                }
            }
        }
    }

    /// Read lines until one satisfies `done`, or the deadline passes.
    pub fn wait_for(
        &mut self,
        timeout: Duration,
        mut done: impl FnMut(&str) -> bool,
    ) -> Result<(), WaitError> {
        let deadline = Instant::now() + timeout;
        loop {
            let (_, line) = self.recv(deadline)?;
            if done(line.trim()) {
                return Ok(());
            }
        }
    }

    pub fn has_exited(&self) -> bool {
        self.exited
    }

    /// Ask the engine to quit with `quit_line`; kill it if it has not exited
    /// after a short grace period, or at once when the match is stopping.
    pub fn shut_down(&mut self, quit_line: &str) {
        if self.stop.is_requested() {
            self.kill();
            return;
        }
        let _ = self.send(quit_line);
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }

    pub fn kill(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.exited = true;
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            self.kill();
        }
    }
}
