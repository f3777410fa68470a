//! Engine processes: sessions driven over standard input, one-shot commands, and how an answer is judged (panics, exit statuses, time-outs).

use super::*;

pub(crate) enum Out {
    Line(String),
    Eof,
}

/// Why an expected line did not come; the lines read meanwhile.
pub(crate) enum Waited {
    Timeout(Vec<String>),
    Closed,
}

/// The engine driven over its standard input (raw bytes, written on a
/// thread of their own so that a stuck engine never blocks the harness) and
/// output (read on a thread, lossy UTF-8).
pub(crate) struct Session {
    pub(crate) child: Child,
    pub(crate) input: Option<Sender<Vec<u8>>>,
    pub(crate) out: Receiver<Out>,
    pub(crate) stderr: Arc<Mutex<Vec<u8>>>,
    /// Everything written, for the reproducer.
    pub(crate) sent: Vec<u8>,
    pub(crate) lines: usize,
    /// Numbers of the lines that were not UTF-8.
    pub(crate) bad_utf8: Vec<usize>,
    pub(crate) closed: bool,
    /// Everything read, for `AMALGAM_FUZZ_KEEP`.
    pub(crate) received: Vec<String>,
    /// The last `VariantPath` line: its number and text.
    pub(crate) variant_path: Option<(usize, String)>,
}

/// Everything `r` gives until its end, read on a thread.
pub(crate) fn read_all(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// What `r` gives, read on a thread, as far as it has come.
pub(crate) fn collect(mut r: impl Read + Send + 'static) -> Arc<Mutex<Vec<u8>>> {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let b = buf.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = r.read(&mut chunk) {
            if n == 0 {
                break;
            }
            lock(&b).extend_from_slice(&chunk[..n]);
        }
    });
    buf
}

impl Session {
    pub(crate) fn start(args: &[&str]) -> Session {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start amalgam");
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = collect(child.stderr.take().expect("stderr"));
        let (tx, rx) = channel::<Vec<u8>>();
        std::thread::spawn(move || {
            for bytes in rx {
                if stdin.write_all(&bytes).and_then(|_| stdin.flush()).is_err() {
                    break;
                }
            }
        });
        let (otx, orx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf);
                        let line = line.trim_end_matches(['\n', '\r']).to_string();
                        if otx.send(Out::Line(line)).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = otx.send(Out::Eof);
        });
        Session {
            child,
            input: Some(tx),
            out: orx,
            stderr,
            sent: Vec::new(),
            lines: 0,
            bad_utf8: Vec::new(),
            closed: false,
            received: Vec::new(),
            variant_path: None,
        }
    }

    pub(crate) fn send(&mut self, line: &[u8]) {
        self.lines += 1;
        if std::str::from_utf8(line).is_err() {
            self.bad_utf8.push(self.lines);
        }
        if line.windows(11).any(|w| w == b"VariantPath") {
            let text: String = String::from_utf8_lossy(line).chars().take(200).collect();
            self.variant_path = Some((self.lines, text));
        }
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        self.sent.extend_from_slice(&bytes);
        if let Some(tx) = &self.input {
            let _ = tx.send(bytes);
        }
    }

    pub(crate) fn say(&mut self, line: &str) {
        self.send(line.as_bytes());
    }

    /// Read lines until `done` accepts one (it ends the list).
    pub(crate) fn expect(
        &mut self,
        timeout: Duration,
        done: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, Waited> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            if self.closed {
                return Err(Waited::Closed);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.out.recv_timeout(left) {
                Ok(Out::Line(l)) => {
                    self.received.push(l.clone());
                    let hit = done(&l);
                    seen.push(l);
                    if hit {
                        return Ok(seen);
                    }
                }
                Ok(Out::Eof) | Err(RecvTimeoutError::Disconnected) => self.closed = true,
                Err(RecvTimeoutError::Timeout) => return Err(Waited::Timeout(seen)),
            }
        }
    }

    pub(crate) fn exit_within(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return Some(st);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub(crate) fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&lock(&self.stderr)).into_owned()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.input = None;
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The first line of a panic message on standard error.
pub(crate) fn panic_line(stderr: &str) -> Option<String> {
    stderr
        .lines()
        .position(|l| l.contains("panicked"))
        .map(|i| {
            stderr
                .lines()
                .skip(i)
                .take(2)
                .collect::<Vec<_>>()
                .join(" / ")
        })
}

/// Kind and description of an exit status that is not a clean one.
pub(crate) fn bad_status(
    status: Option<ExitStatus>,
    stderr: &str,
    allowed: &[i32],
) -> Option<(&'static str, String)> {
    let Some(status) = status else {
        return Some(("timeout", "did not finish in time (killed)".into()));
    };
    if let Some(p) = panic_line(stderr) {
        return Some(("panic", format!("{status}: {p}")));
    }
    match status.code() {
        Some(101) => Some(("panic", format!("{status}"))),
        None => Some(("signal", format!("{status}"))),
        Some(c) if !allowed.contains(&c) => Some(("status", format!("{status}"))),
        Some(_) => None,
    }
}

pub(crate) struct Run {
    pub(crate) status: Option<ExitStatus>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Run a command of the binary to its end, or kill it after `limit`.
pub(crate) fn run_once(args: &[&str], limit: Duration) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start amalgam");
    let out = read_all(child.stdout.take().expect("stdout"));
    let err = read_all(child.stderr.take().expect("stderr"));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Ok(Some(st)) = child.try_wait() {
            break Some(st);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let text = |h: std::thread::JoinHandle<Vec<u8>>| {
        String::from_utf8_lossy(&h.join().unwrap_or_default()).into_owned()
    };
    Run {
        status,
        stdout: text(out),
        stderr: text(err),
    }
}
