//! Fuzzing of the real binary (`amalgam`) through everything a user can feed
//! it: seeded, reproducible, with no dependencies beyond the engine's own
//! library (used to generate legal moves and to judge the engine's answers).
//!
//! What is fuzzed:
//!
//! - **UCI sessions** (`amalgam --uci`): `uci`, then 20 to 60 commands from a
//!   grammar of valid ones with random arguments (`isready`, `ucinewgame`,
//!   `setoption` of every option, `VariantPath` pointing at mutated ini
//!   files, `position` with legal move sequences walked with the library and
//!   sometimes illegal ones or mutated FENs, every form of `go`, `stop`,
//!   `ponderhit`, `debug`), about a quarter of them mutated: flipped bytes,
//!   tokens deleted, duplicated or shuffled, truncation, numbers replaced by
//!   extremes, invalid UTF-8 (about one line in twenty), control characters,
//!   lines of 200 KB, empty lines. `Threads`, `Hash`, `memory` and `cores`
//!   lines are never mutated (the machine has two cores, and its memory is
//!   shared). Every 10 to 20 lines `isready` must be answered within 15 s;
//!   at the end, after `stop`, `go depth 3` (or `go ponder depth 3` and
//!   `ponderhit`) from a legal position of a built-in variant must give a
//!   legal `bestmove` within 30 s, and `quit` must end the process with
//!   status 0 within 5 s.
//! - **XBoard sessions** (`amalgam`, then `xboard` and `protover 2`): the
//!   same with the XBoard commands (`new`, `variant`, `force`, `usermove` in
//!   the GUI's move forms, `go`, `?`, `setboard`, clocks, `ping`, analysis,
//!   take-backs, `memory`, `cores`, `option`, ...); the probe is `ping N` ->
//!   `pong N`, and the final check `sd 3`, `go` -> a legal `move`.
//! - **Variant files**: the built-in `variants.ini`, `tests/data/user-variants.ini`
//!   and small generated files, with lines deleted, duplicated, swapped,
//!   values changed, bytes flipped and above all Betza strings mutated
//!   (modifiers, atoms, ranges, multi-leg `a` runs, parentheses), through
//!   `amalgam check FILE`; for an accepted file, `amalgam --variants FILE
//!   perft VARIANT startpos 2` for each variant it defines.
//! - **PGN files**: games from `amalgam selfplay` of the four variants, with
//!   flipped bytes, move tokens dropped, duplicated or swapped, damaged tags,
//!   truncation, junk and invalid UTF-8, through `amalgam pgn check FILE`.
//!
//! A finding is a panic (`panicked` on standard error or status 101), a
//! signal, a timeout, a session that ends or stops answering, an exit status
//! the command does not use, or an illegal or missing move. Each is printed
//! with its kind, the seed and the job (stream or file number), and the exact
//! input (the bytes written to the engine's standard input, or the file) is
//! written to `<target dir>/fuzz-findings/`, path printed.
//!
//! Running:
//!
//! - `cargo test --profile checked --test fuzz` runs `fuzz_short`: a fixed seed, 10
//!   streams per protocol, 30 ini and 15 PGN files (seconds when the engine
//!   has no defect; each finding adds up to a timeout).
//! - `cargo test --profile checked --test fuzz -- --ignored --nocapture` runs
//!   `fuzz_long`: `AMALGAM_FUZZ_STREAMS` streams per protocol (default 300),
//!   `AMALGAM_FUZZ_FILES` ini files and as many PGN files (default 500),
//!   seed `AMALGAM_FUZZ_SEED` (default 1).
//!
//! Reproducing a finding: the printed `replay` line. Files are replayed as
//! they are (`amalgam check FILE`, `amalgam pgn check FILE`). A stream's
//! saved input (`.in`, with the engine's output beside it in `.out`) can be
//! fed to the engine by redirection (`amalgam --uci < FILE`, `amalgam < FILE`
//! for XBoard), which reproduces what does not depend on timing (a panic, a
//! line that ends the session); but then every line arrives at once and the
//! final `quit` ends the session before queued searches run. To rerun one
//! job as the harness drives it, run `fuzz_long` with its seed and
//! `AMALGAM_FUZZ_ONLY=uci:N` (or `xboard:N`, `ini:N`, `pgn:N`): a job's
//! input depends only on the seed and its number. The ini files a stream
//! names lie in the work directory `<target dir>/tmp/fuzz-*-seedS/`, which is
//! kept. `AMALGAM_FUZZ_KEEP=1` also keeps every stream there (`.in`, `.out`).
//!
//! Independent jobs run on two threads; a job holds one of two "core
//! permits" per engine search thread it may cause (a stream with `Threads 2`
//! holds both), so the engines never use more than the machine's two cores.

use amalgam::protocol::xboard::moves;
use amalgam::{Color, Position, Variant, VariantSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_amalgam");
const VARIANTS: [&str; 4] = ["chess", "combination", "team-mate", "compound"];

/// How long `isready` / `ping` may take to be answered.
const ANSWER: Duration = Duration::from_secs(15);
/// How long the final `go depth 3` may take.
const MOVE: Duration = Duration::from_secs(30);
/// How long the process may take to exit after `quit`.
const EXIT: Duration = Duration::from_secs(5);
/// Time limit of `check`, `perft` and `pgn check`.
const FILE_LIMIT: Duration = Duration::from_secs(20);
const SELFPLAY_LIMIT: Duration = Duration::from_secs(120);

/// Numbers that break careless arithmetic.
#[rustfmt::skip]
const EXTREMES: [&str; 13] = [
    "0", "-1", "4294967296", "9223372036854775807", "18446744073709551615",
    "99999999999999999999999", "1e300", "NaN", "-9223372036854775808", "1844674407370955162",
    "inf", "-0", "0.0000001",
];

/// Byte sequences that are not UTF-8.
const BAD_UTF8: [&[u8]; 7] = [
    b"\xff",
    b"\xe9",
    b"\xc3",
    b"\x80",
    b"\xed\xa0\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xfe\xfe",
];

const CONTROL: [u8; 10] = [0x00, 0x01, 0x07, 0x08, b'\t', b'\r', 0x0b, 0x0c, 0x1b, 0x7f];

// ---------------------------------------------------------------------------
// Random numbers

/// SplitMix64.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A number in `lo..=hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    fn percent(&mut self, p: u64) -> bool {
        self.next() % 100 < p
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// The generator of one job: independent of every other job's.
    fn for_job(seed: u64, kind: u64, index: usize) -> Rng {
        let mut r = Rng(seed
            ^ kind.wrapping_mul(0xA24B_AED4_963E_E407)
            ^ (index as u64 + 1).wrapping_mul(0x9FB2_1C65_1E98_DF25));
        r.next();
        r
    }
}

// ---------------------------------------------------------------------------
// Configuration, shared state, findings

#[derive(Clone)]
struct Config {
    name: &'static str,
    seed: u64,
    streams: usize,
    ini_files: usize,
    pgn_files: usize,
    /// Only this job (`uci:N`, `xboard:N`, `ini:N`, `pgn:N`).
    only: Option<String>,
}

struct Finding {
    kind: String,
    seed: u64,
    job: String,
    detail: String,
    input: PathBuf,
    replay: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FINDING [{}] seed {}, {}: {}\n  input:  {}\n  replay: {}",
            self.kind,
            self.seed,
            self.job,
            self.detail,
            self.input.display(),
            self.replay
        )
    }
}

#[derive(Default)]
struct Summary {
    uci_streams: usize,
    xboard_streams: usize,
    lines: usize,
    ini_files: usize,
    pgn_files: usize,
    judged: usize,
    unjudged: usize,
    findings: Vec<String>,
}

/// Counting semaphore over the two cores: a job takes one permit per engine
/// search thread it may run.
struct Permits {
    state: Mutex<(usize, bool)>,
    freed: Condvar,
}

struct Permit<'a>(&'a Permits, usize);

impl Permits {
    fn new() -> Permits {
        Permits {
            state: Mutex::new((2, false)),
            freed: Condvar::new(),
        }
    }

    fn take(&self, n: usize) -> Permit<'_> {
        let mut s = lock(&self.state);
        loop {
            // A waiting request for both permits goes before new single ones.
            if s.0 >= n && (n == 2 || !s.1) {
                s.0 -= n;
                if n == 2 {
                    s.1 = false;
                }
                return Permit(self, n);
            }
            if n == 2 {
                s.1 = true;
            }
            s = self.freed.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).0 += self.1;
        self.0.freed.notify_all();
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

struct Ctx {
    seed: u64,
    work: PathBuf,
    findings_dir: PathBuf,
    /// A copy of the built-in `variants.ini` (loaded to undo user files).
    pristine_ini: PathBuf,
    user_ini: PathBuf,
    user_ini_text: Vec<u8>,
    /// 3 MB of ini-like junk.
    junk_ini: PathBuf,
    pgn_bases: Vec<String>,
    builtin: VariantSet,
    /// The four variants, with and without their pair promotion.
    variants: Vec<Arc<Variant>>,
    no_pair: Vec<Arc<Variant>>,
    permits: Permits,
    findings: Mutex<Vec<Finding>>,
    lines: AtomicUsize,
    /// Final moves judged, and those not judged (the variant was not the
    /// library's).
    judged: AtomicUsize,
    unjudged: AtomicUsize,
}

impl Ctx {
    fn count_judged(&self, judged: bool) {
        let c = if judged { &self.judged } else { &self.unjudged };
        c.fetch_add(1, Ordering::Relaxed);
    }

    fn variant(&self, i: usize, pair: bool) -> Arc<Variant> {
        if pair {
            self.variants[i].clone()
        } else {
            self.no_pair[i].clone()
        }
    }

    /// Record a finding: the input goes to the findings directory, and its
    /// path is returned.
    fn report(
        &self,
        kind: &str,
        job: &str,
        detail: String,
        input: &[u8],
        ext: &str,
        replay: &str,
    ) -> PathBuf {
        let name = format!(
            "seed{}-{}-{}.{ext}",
            self.seed,
            job.replace(' ', "").to_lowercase(),
            kind
        );
        let path = self.findings_dir.join(name);
        let _ = std::fs::create_dir_all(&self.findings_dir);
        if let Err(e) = std::fs::write(&path, input) {
            eprintln!("cannot write {}: {e}", path.display());
        }
        let f = Finding {
            kind: kind.to_string(),
            seed: self.seed,
            job: job.to_string(),
            detail,
            replay: replay.replace("{}", &path.display().to_string()),
            input: path,
        };
        eprintln!(
            "finding [{}] seed {}, {}: {}",
            f.kind,
            f.seed,
            f.job,
            f.input.display()
        );
        let path = f.input.clone();
        lock(&self.findings).push(f);
        path
    }
}

fn target_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).to_path_buf()
}

// ---------------------------------------------------------------------------
// Processes

enum Out {
    Line(String),
    Eof,
}

/// Why an expected line did not come; the lines read meanwhile.
enum Waited {
    Timeout(Vec<String>),
    Closed,
}

/// The engine driven over its standard input (raw bytes, written on a
/// thread of their own so that a stuck engine never blocks the harness) and
/// output (read on a thread, lossy UTF-8).
struct Session {
    child: Child,
    input: Option<Sender<Vec<u8>>>,
    out: Receiver<Out>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Everything written, for the reproducer.
    sent: Vec<u8>,
    lines: usize,
    /// Numbers of the lines that were not UTF-8.
    bad_utf8: Vec<usize>,
    closed: bool,
    /// Everything read, for `AMALGAM_FUZZ_KEEP`.
    received: Vec<String>,
    /// The last `VariantPath` line: its number and text.
    variant_path: Option<(usize, String)>,
}

/// Everything `r` gives until its end, read on a thread.
fn read_all(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// What `r` gives, read on a thread, as far as it has come.
fn collect(mut r: impl Read + Send + 'static) -> Arc<Mutex<Vec<u8>>> {
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
    fn start(args: &[&str]) -> Session {
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

    fn send(&mut self, line: &[u8]) {
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

    fn say(&mut self, line: &str) {
        self.send(line.as_bytes());
    }

    /// Read lines until `done` accepts one (it ends the list).
    fn expect(
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

    fn exit_within(&mut self, timeout: Duration) -> Option<ExitStatus> {
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

    fn stderr_text(&self) -> String {
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
fn panic_line(stderr: &str) -> Option<String> {
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
fn bad_status(
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

struct Run {
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
}

/// Run a command of the binary to its end, or kill it after `limit`.
fn run_once(args: &[&str], limit: Duration) -> Run {
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

// ---------------------------------------------------------------------------
// Positions and moves

/// `plies` random legal moves from the start position: the position and
/// the moves in the engine's notation.
fn walk(rng: &mut Rng, v: &Arc<Variant>, plies: usize) -> (Position, Vec<String>) {
    let mut p = Position::startpos(v.clone());
    let mut texts = Vec::new();
    for _ in 0..plies {
        let moves = p.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len())];
        texts.push(p.move_text(m));
        p.make(m);
    }
    (p, texts)
}

/// A short walk that leaves a game in progress (legal moves, no rule ends it).
fn open_walk(rng: &mut Rng, v: &Arc<Variant>, castling_kept: bool) -> (Position, Vec<String>) {
    for _ in 0..20 {
        let plies = rng.below(9);
        let (mut p, moves) = walk(rng, v, plies);
        let castling_ok = !castling_kept || p.to_fen().split(' ').nth(2) != Some("-");
        if castling_ok && amalgam::rules::game::outcome(&mut p).is_none() {
            return (p, moves);
        }
    }
    (Position::startpos(v.clone()), Vec::new())
}

const FEN_CHARS: &[u8] = b"pnbrqkPNBRQKsdcSDCaAmMhHeEwWfFlLgGuUjJzZyY0123456789/-wbKQkq ";

fn mutate_fen(rng: &mut Rng, fen: &str) -> String {
    let mut fields: Vec<String> = fen.split(' ').map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        let f = rng.below(fields.len());
        let field = &mut fields[f];
        match rng.below(9) {
            0 | 1 if !field.is_empty() => {
                let i = rng.below(field.len());
                if field.is_char_boundary(i) && field.is_char_boundary(i + 1) {
                    let c = *rng.pick(FEN_CHARS) as char;
                    field.replace_range(i..i + 1, &c.to_string());
                }
            }
            2 if !field.is_empty() => {
                let i = rng.below(field.len());
                if field.is_char_boundary(i) && field.is_char_boundary(i + 1) {
                    field.remove(i);
                }
            }
            3 => {
                let i = rng.below(field.len() + 1);
                if field.is_char_boundary(i) {
                    field.insert(i, *rng.pick(FEN_CHARS) as char);
                }
            }
            4 if fields.len() > 1 => {
                fields.remove(f);
            }
            5 => {
                let dup = fields[f].clone();
                fields.insert(f, dup);
            }
            6 => {
                let g = rng.below(fields.len());
                fields.swap(f, g);
            }
            7 => {
                let i = if fields.len() > 4 {
                    4 + rng.below(fields.len() - 4)
                } else {
                    f
                };
                fields[i] = rng.pick(&EXTREMES).to_string();
            }
            _ => {
                let mut ranks: Vec<String> = fields[0].split('/').map(str::to_string).collect();
                let r = rng.below(ranks.len());
                let junk = [
                    "9",
                    "99",
                    "0",
                    "x",
                    "12",
                    "8p",
                    "",
                    "11111111",
                    "pppppppppppp",
                ];
                ranks[r] = rng.pick(&junk).to_string();
                if rng.percent(30) {
                    ranks.push(ranks[r].clone());
                }
                fields[0] = ranks.join("/");
            }
        }
    }
    fields.join(" ")
}

/// Move texts that are well-formed but (almost always) not legal, or junk.
#[rustfmt::skip]
const BAD_MOVES: [&str; 14] = [
    "e2e5", "a1a1", "z9z9", "e7e8q", "0000", "e2e4e", "j10j11", "a0a1", "e2", "e2e4qq",
    "h7h8k", "d4d6r", "l10l1", "e1g1",
];

// ---------------------------------------------------------------------------
// Line mutations

/// Lines that must never be mutated: a mutation could raise the engine's
/// thread count or its memory.
fn protected(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    l.contains("threads") || l.contains("hash") || l.starts_with("memory") || l.starts_with("cores")
}

fn tokens(line: &[u8]) -> Vec<Vec<u8>> {
    line.split(|&b| b == b' ').map(<[u8]>::to_vec).collect()
}

fn long_line(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let chunks: [&[u8]; 7] = [
        b" e2e4",
        b" 9",
        b" x",
        b" 18446744073709551615",
        b"/8",
        b"a",
        b" name value",
    ];
    let chunk = *rng.pick(&chunks);
    let mut out = line.to_vec();
    let target = 150_000 + rng.below(100_000);
    while out.len() < target {
        out.extend_from_slice(chunk);
    }
    out
}

fn insert_at(rng: &mut Rng, line: &[u8], what: &[u8]) -> Vec<u8> {
    let i = rng.below(line.len() + 1);
    let mut out = line[..i].to_vec();
    out.extend_from_slice(what);
    out.extend_from_slice(&line[i..]);
    out
}

fn bad_utf8(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let what = *rng.pick(&BAD_UTF8);
    insert_at(rng, line, what)
}

fn mutate_line(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let mut toks = tokens(line);
    match rng.below(12) {
        0 | 1 => {
            let mut out = line.to_vec();
            for _ in 0..1 + rng.below(3) {
                if out.is_empty() {
                    break;
                }
                let i = rng.below(out.len());
                let b = if rng.percent(50) {
                    out[i] ^ (1 << rng.below(8))
                } else {
                    rng.next() as u8
                };
                // A new line inside the line would make two commands of it.
                out[i] = if b == b'\n' { b'?' } else { b };
            }
            out
        }
        2 => {
            if toks.len() > 1 {
                let i = rng.below(toks.len());
                toks.remove(i);
            }
            toks.join(&b' ')
        }
        3 => {
            let i = rng.below(toks.len());
            let t = toks[i].clone();
            toks.insert(i, t);
            toks.join(&b' ')
        }
        4 => {
            for i in (1..toks.len()).rev() {
                let j = rng.below(i + 1);
                toks.swap(i, j);
            }
            toks.join(&b' ')
        }
        5 => line[..rng.below(line.len() + 1)].to_vec(),
        6 | 7 => {
            let numeric: Vec<usize> = (0..toks.len())
                .filter(|&i| {
                    !toks[i].is_empty()
                        && toks[i]
                            .iter()
                            .all(|b| b.is_ascii_digit() || b"-.:".contains(b))
                })
                .collect();
            let extreme = rng.pick(&EXTREMES).as_bytes().to_vec();
            if numeric.is_empty() {
                toks.push(extreme);
            } else {
                let i = *rng.pick(&numeric);
                toks[i] = extreme;
            }
            toks.join(&b' ')
        }
        8 | 9 => {
            let c = *rng.pick(&CONTROL);
            insert_at(rng, line, &[c])
        }
        10 => long_line(rng, line),
        _ => Vec::new(),
    }
}

/// The line as sent, and whether it was mutated. One line in 25 gets
/// invalid UTF-8 and one in five another mutation (a flipped byte also
/// makes invalid UTF-8 at times: one line in twenty in all).
fn maybe_mutate(rng: &mut Rng, line: String) -> (Vec<u8>, bool) {
    if protected(&line) {
        return (line.into_bytes(), false);
    }
    let r = rng.below(100);
    let out = if r < 4 {
        bad_utf8(rng, line.as_bytes())
    } else if r < 24 {
        mutate_line(rng, line.as_bytes())
    } else {
        return (line.into_bytes(), false);
    };
    // A mutation must not make a `quit` (the session would end by right).
    if String::from_utf8_lossy(&out)
        .to_ascii_lowercase()
        .contains("quit")
    {
        return (line.into_bytes(), false);
    }
    (out, true)
}

#[rustfmt::skip]
const JUNK_COMMANDS: [&str; 14] = [
    "register later", "hello", "go go go", "setoption", "setoption name", "setoption value 3",
    "position", "position fen", "position moves e2e4", "ping", "usermove", "level", "time",
    "option",
];

// ---------------------------------------------------------------------------
// Variant files

const PIECE_KEYS: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];
const BETZA_MODS: &[u8] = b"anfblrsvmcpiyeh";
const BETZA_ATOMS: &[u8] = b"WFDNAHCZGKQRB";

fn gen_betza(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.below(3) {
        if rng.percent(15) {
            // Multi-leg moves; four or more legs are rare in real files.
            for _ in 0..1 + rng.below(6) {
                s.push('a');
            }
        }
        for _ in 0..rng.below(4) {
            s.push(*rng.pick(BETZA_MODS) as char);
        }
        if rng.percent(5) {
            s.push('(');
        }
        let atom = *rng.pick(BETZA_ATOMS) as char;
        s.push(atom);
        match rng.below(6) {
            0 => s.push(atom),
            1 => s.push(char::from(b'0' + rng.below(10) as u8)),
            2 if rng.percent(20) => s.push(')'),
            _ => {}
        }
    }
    if rng.percent(3) {
        let castle = *rng.pick(&["O2", "O3", "O9", "O"]);
        s.push_str(castle);
    }
    s
}

fn mutate_betza(rng: &mut Rng, betza: &str) -> String {
    let mut b: Vec<char> = betza.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(b.len() + 1);
        match rng.below(9) {
            0 => b.insert(i, *rng.pick(BETZA_MODS) as char),
            1 | 2 => {
                for _ in 0..1 + rng.below(6) {
                    b.insert(i, 'a');
                }
            }
            3 if !b.is_empty() => {
                b.remove(i.min(b.len() - 1));
            }
            4 => b.insert(i, *rng.pick(BETZA_ATOMS) as char),
            5 => b.insert(i, char::from(b'0' + rng.below(10) as u8)),
            6 => b.insert(i, *rng.pick(&['(', ')', '[', ']', '-', '.'])),
            7 => b = gen_betza(rng).chars().collect(),
            _ => {
                let j = rng.below(b.len() + 1);
                let (lo, hi) = (i.min(j), i.max(j));
                let part: Vec<char> = b[lo..hi].to_vec();
                for (k, c) in part.into_iter().enumerate() {
                    b.insert(hi + k, c);
                }
            }
        }
    }
    b.into_iter().collect()
}

#[rustfmt::skip]
const INI_JUNK_LINES: [&str; 16] = [
    "", "=", "[", "[x:y]", "[dl:chess]", "maxFile = 99", "king = -", "customPiece3 = q:Q",
    "stackLetters = a:nb", "startFen = 8/8 w", "maxRank = 2", "castlingKingsideFile = a",
    "customPiece9 = z:aaW", "pieceToCharTable", "queen = q:aaaaW", "maxStackSize = 4",
];

#[rustfmt::skip]
const INI_JUNK_VALUES: [&str; 22] = [
    "", "-", "0", "-1", "99", "4294967296", "18446744073709551615", "q", "q:", ":Q", "zz",
    "a*", "*0", "*11", "m1", "true", "maybe", "k:k k", "a:nb a:nb", "p:999999999999", "l", "*",
];

fn is_piece_key(key: &str) -> bool {
    PIECE_KEYS.contains(&key) || key.starts_with("customPiece")
}

fn mutate_ini(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    for _ in 0..1 + rng.below(5) {
        let n = lines.len().max(1);
        let i = rng.below(n).min(lines.len().saturating_sub(1));
        match rng.below(14) {
            0 if lines.len() > 1 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            3 | 4 => {
                let Some(eq) = lines[i].iter().position(|&b| b == b'=') else {
                    continue;
                };
                let value = if rng.percent(30) {
                    rng.pick(&EXTREMES).to_string()
                } else {
                    rng.pick(&INI_JUNK_VALUES).to_string()
                };
                lines[i].truncate(eq + 1);
                lines[i].extend_from_slice(format!(" {value}").as_bytes());
            }
            5 => {
                if !lines[i].is_empty() {
                    let k = rng.below(lines[i].len());
                    lines[i][k] ^= 1 << rng.below(7);
                }
            }
            6 => {
                let junk = rng.pick(&INI_JUNK_LINES).as_bytes().to_vec();
                lines.insert(i, junk);
            }
            7 if rng.percent(15) => {
                let l = bad_utf8(rng, &lines[i]);
                lines[i] = l;
            }
            _ => {
                // A Betza string: the part after `letter:` of a piece line.
                let pieces: Vec<usize> = (0..lines.len())
                    .filter(|&k| {
                        let l = String::from_utf8_lossy(&lines[k]);
                        l.split_once('=')
                            .is_some_and(|(key, v)| is_piece_key(key.trim()) && v.contains(':'))
                    })
                    .collect();
                if pieces.is_empty() {
                    continue;
                }
                let k = *rng.pick(&pieces);
                let l = String::from_utf8_lossy(&lines[k]).into_owned();
                let (head, betza) = l.split_once(':').unwrap_or((&l, ""));
                lines[k] = format!("{head}:{}", mutate_betza(rng, betza.trim())).into_bytes();
            }
        }
    }
    lines.join(&b'\n')
}

/// A small file with random men: children of the built-in variants, or a
/// 6x6 variant of its own.
fn synthetic_ini(rng: &mut Rng, tag: usize) -> Vec<u8> {
    let mut s = String::new();
    for k in 0..1 + rng.below(2) {
        if rng.percent(60) {
            let parent = *rng.pick(&VARIANTS);
            s.push_str(&format!("[fz{tag}-{k}:{parent}]\n"));
            s.push_str(&format!("queen = q:{}\n", gen_betza(rng)));
            if rng.percent(50) {
                s.push_str(&format!("knight = n:{}\n", gen_betza(rng)));
            }
            if rng.percent(30) {
                s.push_str(&format!(
                    "customPiece{} = x:{}\n",
                    1 + rng.below(9),
                    gen_betza(rng)
                ));
            }
        } else {
            s.push_str(&format!(
                "[fz{tag}-{k}]\nmaxFile = f\nmaxRank = 6\ncastling = false\n"
            ));
            s.push_str("startFen = rnbkqr/pppppp/6/6/PPPPPP/RNBKQR w - - 0 1\n");
            for key in ["knight", "bishop", "rook", "queen"] {
                if rng.percent(50) {
                    s.push_str(&format!(
                        "{key} = {}:{}\n",
                        &key[..1].replace('k', "n"),
                        gen_betza(rng)
                    ));
                }
            }
            if rng.percent(30) {
                s.push_str(&format!("pawn = p:{}\n", gen_betza(rng)));
            }
        }
        s.push('\n');
    }
    s.into_bytes()
}

fn gen_ini(rng: &mut Rng, ctx: &Ctx, tag: usize) -> Vec<u8> {
    match rng.below(10) {
        0..=3 => mutate_ini(rng, amalgam::rules::variant::BUILTIN_INI.as_bytes()),
        4 | 5 => mutate_ini(rng, &ctx.user_ini_text),
        _ => {
            let s = synthetic_ini(rng, tag);
            if rng.percent(25) {
                mutate_ini(rng, &s)
            } else {
                s
            }
        }
    }
}

/// A value for `VariantPath`: mostly a mutated file written for this stream.
fn variant_path(rng: &mut Rng, ctx: &Ctx, job: &str, files: &mut usize) -> String {
    match rng.below(20) {
        0..=10 => {
            *files += 1;
            let path = ctx.work.join(format!("{job}-{files}.ini"));
            let text = gen_ini(rng, ctx, *files);
            std::fs::write(&path, text).expect("write ini");
            path.display().to_string()
        }
        11 | 12 => ctx.user_ini.display().to_string(),
        13 => ctx.pristine_ini.display().to_string(),
        14 => ctx.work.join("missing.ini").display().to_string(),
        15 => ctx.work.display().to_string(),
        16 => ctx.junk_ini.display().to_string(),
        17 => String::new(),
        _ => "/nonexistent/dir/variants.ini".to_string(),
    }
}

// ---------------------------------------------------------------------------
// Streams: shared parts

/// One session under test.
struct Stream<'a> {
    ctx: &'a Ctx,
    job: String,
    /// The job for `AMALGAM_FUZZ_ONLY`.
    key: String,
    xboard: bool,
    s: Session,
    /// A finding ended the stream.
    failed: bool,
}

impl Stream<'_> {
    fn fail(&mut self, kind: &str, detail: String) {
        self.failed = true;
        let proto = if self.xboard { "xboard" } else { "uci" };
        let args = if self.xboard { "" } else { " --uci" };
        let replay = format!(
            "{BIN}{args} < {{}}  (with the harness's timing: AMALGAM_FUZZ_SEED={} \
             AMALGAM_FUZZ_ONLY={} cargo test --profile checked --test fuzz -- --ignored --nocapture)",
            self.ctx.seed, self.key
        );
        // A session that hangs may hang in the file it was told to load.
        let detail = match &self.s.variant_path {
            Some((n, l)) if kind.starts_with("no-") => {
                format!("{detail} [last VariantPath line: {n}: {l}]")
            }
            _ => detail,
        };
        let path = self.ctx.report(
            &format!("{proto}-{kind}"),
            &self.job,
            detail,
            &self.s.sent,
            "in",
            &replay,
        );
        // The engine's output beside it.
        while let Ok(Out::Line(l)) = self.s.out.recv_timeout(Duration::from_millis(100)) {
            self.s.received.push(l);
        }
        let _ = std::fs::write(path.with_extension("out"), self.s.received.join("\n"));
    }

    /// The engine closed its output before `quit`.
    fn died(&mut self, waiting_for: &str) {
        let status = self.s.exit_within(Duration::from_secs(2));
        let stderr = self.s.stderr_text();
        let (kind, why) = match bad_status(status, &stderr, &[]) {
            Some(("timeout", _)) => (
                "exited-early",
                "closed its output but did not exit".to_string(),
            ),
            Some((k, w)) => (k, w),
            None => ("exited-early", "exit status 0".to_string()),
        };
        let kind = if kind == "status" {
            "exited-early"
        } else {
            kind
        };
        let utf8 = if self.s.bad_utf8.is_empty() {
            String::new()
        } else {
            format!(" [invalid UTF-8 on line(s) {:?}]", self.s.bad_utf8)
        };
        self.fail(
            kind,
            format!(
                "the session ended before 'quit' (after line {}, waiting for \
                 {waiting_for}): {why}{utf8}",
                self.s.lines
            ),
        );
    }

    /// Standard error after the session: a panic there is a finding even
    /// when the session survived it (a search thread's panic).
    fn check_stderr(&mut self) {
        if let Some(p) = panic_line(&self.s.stderr_text()) {
            self.fail("panic", format!("panic on standard error: {p}"));
        }
    }

    /// With `AMALGAM_FUZZ_KEEP` set, every stream is kept in the work
    /// directory (findings are always kept), with the engine's output.
    fn keep(&mut self, job: &str) {
        if std::env::var_os("AMALGAM_FUZZ_KEEP").is_some() {
            while let Ok(Out::Line(l)) = self.s.out.recv_timeout(Duration::from_millis(100)) {
                self.s.received.push(l);
            }
            let _ = std::fs::write(self.ctx.work.join(format!("{job}.in")), &self.s.sent);
            let out = self.s.received.join("\n");
            let _ = std::fs::write(self.ctx.work.join(format!("{job}.out")), out);
        }
    }

    /// `quit`: the process must exit with status 0 within 5 s.
    fn quit(&mut self) {
        self.s.say("quit");
        let status = self.s.exit_within(EXIT);
        let stderr = self.s.stderr_text();
        match bad_status(status, &stderr, &[0]) {
            Some(("timeout", _)) => {
                self.fail("no-exit", format!("still running {EXIT:?} after 'quit'"))
            }
            Some((k, w)) => self.fail(k, format!("after 'quit': {w}")),
            None => {}
        }
    }
}

fn last_lines(lines: &[String]) -> String {
    let start = lines.len().saturating_sub(4);
    let tail: Vec<String> = lines[start..]
        .iter()
        .map(|l| l.chars().take(160).collect())
        .collect();
    format!("{tail:?}")
}

// ---------------------------------------------------------------------------
// UCI

#[derive(Default)]
struct UciModel {
    /// The variant the engine plays, when known to be a built-in one.
    variant: Option<usize>,
    pair: bool,
    threads_max: u64,
    /// A mutated line was sent since the last `stop`.
    mutated: bool,
    /// A search that only `stop` ends may run (infinite, pondering).
    open: bool,
    /// `go ponder` sent: whether its limits bound the search after `ponderhit`.
    ponder: Option<bool>,
    due_stop: Option<u64>,
    due_ponder_end: Option<u64>,
    files: usize,
    /// Markers sent to find the answers to this stream's probes.
    syncs: u64,
}

impl UciModel {
    /// Update from an unmutated line.
    fn observe(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["stop"] => {
                self.mutated = false;
                self.open = false;
                self.ponder = None;
            }
            ["ponderhit"] => {
                if let Some(bounded) = self.ponder.take() {
                    self.open |= !bounded;
                }
            }
            ["go", rest @ ..] => {
                if rest.contains(&"ponder") {
                    let bounded = rest.iter().any(|w| {
                        ["depth", "nodes", "movetime", "wtime", "btime", "mate"].contains(w)
                    });
                    self.ponder = Some(bounded);
                    self.open = true;
                } else if rest.contains(&"infinite") {
                    self.open = true;
                }
            }
            ["setoption", "name", "UCI_Variant", "value", v] => {
                self.variant = VARIANTS.iter().position(|x| x == v);
            }
            ["setoption", "name", "UCI_Variant", ..] => self.variant = None,
            ["setoption", "name", "PairPromotion", "value", v] => match *v {
                "true" => self.pair = true,
                "false" => self.pair = false,
                _ => {}
            },
            _ => {}
        }
    }

    fn hazard(&self) -> bool {
        self.mutated || self.open
    }
}

fn uci_position(rng: &mut Rng, m: &UciModel, ctx: &Ctx) -> String {
    let vi = m
        .variant
        .filter(|_| rng.percent(90))
        .unwrap_or_else(|| rng.below(4));
    let v = ctx.variant(vi, m.pair);
    let plies = rng.below(41);
    let (_, mut moves) = walk(rng, &v, plies);
    let mut head = "startpos".to_string();
    if rng.percent(35) {
        let split = rng.below(moves.len() + 1);
        let mut p = Position::startpos(v.clone());
        for t in &moves[..split] {
            if let Ok(mv) = p.parse_move(t) {
                p.make(mv);
            }
        }
        moves.drain(..split);
        let fen = p.to_fen();
        let fen = if rng.percent(20) {
            mutate_fen(rng, &fen)
        } else {
            fen
        };
        head = format!("fen {fen}");
    }
    if rng.percent(15) {
        // An illegal sequence.
        match rng.below(3) {
            0 if !moves.is_empty() => {
                let i = rng.below(moves.len());
                moves[i] = rng.pick(&BAD_MOVES).to_string();
            }
            1 if !moves.is_empty() => {
                let last = moves[moves.len() - 1].clone();
                moves.push(last);
            }
            _ => moves.push(rng.pick(&BAD_MOVES).to_string()),
        }
    }
    if moves.is_empty() && rng.percent(50) {
        format!("position {head}")
    } else {
        format!("position {head} moves {}", moves.join(" "))
    }
}

fn clock_args(rng: &mut Rng) -> String {
    let mut s = format!(
        "wtime {} btime {}",
        rng.range(10, 3000),
        rng.range(10, 3000)
    );
    if rng.percent(50) {
        s.push_str(&format!(
            " winc {} binc {}",
            rng.range(0, 100),
            rng.range(0, 100)
        ));
    }
    if rng.percent(30) {
        s.push_str(&format!(" movestogo {}", rng.range(1, 40)));
    }
    s
}

fn uci_go(rng: &mut Rng, m: &mut UciModel, ctx: &Ctx) -> String {
    match rng.below(12) {
        0 | 1 => format!("go depth {}", rng.range(1, 4)),
        2 | 3 => format!("go nodes {}", rng.range(1, 5000)),
        4 | 5 => format!("go movetime {}", rng.range(1, 50)),
        6 | 7 => format!("go {}", clock_args(rng)),
        8 => {
            m.due_stop = Some(rng.range(0, 4));
            "go infinite".to_string()
        }
        9 | 10 => {
            m.due_ponder_end = Some(rng.range(0, 3));
            let limit = match rng.below(5) {
                0 => String::new(),
                1 => format!(" depth {}", rng.range(1, 3)),
                2 => format!(" nodes {}", rng.range(1, 3000)),
                3 => format!(" movetime {}", rng.range(1, 50)),
                _ => format!(" {}", clock_args(rng)),
            };
            format!("go ponder{limit}")
        }
        _ => {
            let vi = m.variant.unwrap_or(0);
            let mut p = Position::startpos(ctx.variant(vi, m.pair));
            let moves = p.legal_moves();
            let some: Vec<String> = (0..1 + rng.below(3))
                .map(|_| p.move_text(moves[rng.below(moves.len())]))
                .collect();
            match rng.below(3) {
                0 => format!(
                    "go searchmoves {} depth {}",
                    some.join(" "),
                    rng.range(1, 3)
                ),
                1 => format!("go mate {}", rng.range(1, 2)),
                _ => format!(
                    "go depth {} searchmoves {}",
                    rng.range(1, 3),
                    some.join(" ")
                ),
            }
        }
    }
}

fn uci_setoption(rng: &mut Rng, m: &UciModel, ctx: &Ctx, job: &str, files: &mut usize) -> String {
    let (name, value) = match rng.below(16) {
        0 => ("Hash", rng.range(1, 64).to_string()),
        1 => ("Threads", rng.range(1, m.threads_max).to_string()),
        2 | 3 => ("MultiPV", rng.range(1, 4).to_string()),
        4 => ("Move Overhead", rng.range(0, 100).to_string()),
        5..=7 => {
            let names = ["chess", "combination", "team-mate", "compound"];
            let junk = [
                "zoo", "big-zoo", "chess960", "Chess", "", "normal", "fz1-0", "x y",
            ];
            let v = if rng.percent(75) {
                *rng.pick(&names)
            } else {
                *rng.pick(&junk)
            };
            ("UCI_Variant", v.to_string())
        }
        8 | 9 => (
            "PairPromotion",
            rng.pick(&["true", "false", "true", "false", "1", "yes", ""])
                .to_string(),
        ),
        10..=13 => ("VariantPath", variant_path(rng, ctx, job, files)),
        14 => ("Ponder", rng.pick(&["true", "false"]).to_string()),
        _ => ("NoSuchOption", "1".to_string()),
    };
    if rng.percent(3) {
        format!("setoption name {name}")
    } else {
        format!("setoption name {name} value {value}")
    }
}

/// The next command of a UCI stream, before mutation.
fn uci_command(rng: &mut Rng, m: &mut UciModel, ctx: &Ctx, job: &str) -> String {
    if let Some(n) = m.due_stop {
        if n == 0 {
            m.due_stop = None;
            return "stop".into();
        }
        m.due_stop = Some(n - 1);
    }
    if let Some(n) = m.due_ponder_end {
        if n == 0 {
            m.due_ponder_end = None;
            return if rng.percent(70) { "ponderhit" } else { "stop" }.into();
        }
        m.due_ponder_end = Some(n - 1);
    }
    let mut files = m.files;
    let line = match rng.below(100) {
        0..=7 => "isready".to_string(),
        8..=11 => "ucinewgame".to_string(),
        12..=26 => uci_setoption(rng, m, ctx, job, &mut files),
        27..=50 => uci_position(rng, m, ctx),
        51..=76 => uci_go(rng, m, ctx),
        77..=83 => "stop".to_string(),
        84..=85 => rng.pick(&["debug on", "debug off"]).to_string(),
        86..=87 => "ponderhit".to_string(),
        88..=91 => rng.pick(&JUNK_COMMANDS).to_string(),
        92..=93 => "uci".to_string(),
        94..=95 => String::new(),
        _ => {
            let start = Position::startpos(ctx.variant(rng.below(4), true)).to_fen();
            format!("position fen {}", mutate_fen(rng, &start))
        }
    };
    m.files = files;
    line
}

/// `isready` must be answered within 15 s. Answers to earlier `isready`
/// lines of the stream may still be on their way, so an unknown command
/// with a fresh number follows it: both are answered in order without the
/// engine, so its error line comes after the answer to this `isready`.
fn uci_probe(st: &mut Stream, m: &mut UciModel) -> bool {
    if m.hazard() {
        // A search the harness cannot bound may run: end it first.
        st.s.say("stop");
        m.observe("stop");
    }
    m.syncs += 1;
    let marker = format!("fuzz-sync-{}", m.syncs);
    let echo = format!("info string error: unknown command: {marker}");
    st.s.say("isready");
    st.s.say(&marker);
    match st.s.expect(ANSWER, |l| l == echo) {
        Ok(lines) if lines.iter().any(|l| l == "readyok") => true,
        Ok(lines) => {
            st.fail(
                "no-readyok",
                format!(
                    "isready after line {} was not answered, the line after it was; last output {}",
                    st.s.lines - 1,
                    last_lines(&lines)
                ),
            );
            false
        }
        Err(Waited::Closed) => {
            st.died("readyok");
            false
        }
        Err(Waited::Timeout(lines)) => {
            st.s.say("stop");
            let after = match st.s.expect(ANSWER, |l| l == echo) {
                Ok(_) => "it came only after a 'stop': a search ran past its limits",
                Err(_) => "none after a 'stop' either",
            };
            st.fail(
                "no-readyok",
                format!(
                    "no readyok within {ANSWER:?} after line {}; {after}; last output {}",
                    st.s.lines - 1,
                    last_lines(&lines)
                ),
            );
            false
        }
    }
}

fn uci_stream(ctx: &Ctx, index: usize) -> usize {
    let mut rng = Rng::for_job(ctx.seed, 1, index);
    let two = rng.percent(35);
    let _permit = ctx.permits.take(if two { 2 } else { 1 });
    let job = format!("uci{index}");
    let mut st = Stream {
        ctx,
        job: format!("UCI stream {index}"),
        key: format!("uci:{index}"),
        xboard: false,
        s: Session::start(&["--uci"]),
        failed: false,
    };
    let mut m = UciModel {
        variant: Some(0),
        pair: true,
        threads_max: if two { 2 } else { 1 },
        ..Default::default()
    };
    st.s.say("uci");
    match st.s.expect(ANSWER, |l| l == "uciok") {
        Ok(_) => {}
        Err(Waited::Closed) => st.died("uciok"),
        Err(Waited::Timeout(_)) => st.fail("no-uciok", "no uciok".into()),
    }
    let count = rng.range(20, 60);
    let mut probe_in = rng.range(10, 20);
    for _ in 0..count {
        if st.failed {
            break;
        }
        let line = uci_command(&mut rng, &mut m, ctx, &job);
        let (bytes, mutated) = maybe_mutate(&mut rng, line.clone());
        if mutated {
            m.mutated = true;
        } else {
            m.observe(&line);
        }
        st.s.send(&bytes);
        if line.starts_with("go") && rng.percent(30) {
            std::thread::sleep(Duration::from_millis(rng.range(1, 30)));
        }
        probe_in -= 1;
        if probe_in == 0 {
            probe_in = rng.range(10, 20);
            uci_probe(&mut st, &mut m);
        }
    }
    if !st.failed {
        uci_final(&mut st, &mut rng, &mut m);
    }
    if !st.failed {
        st.quit();
    }
    if !st.failed {
        st.check_stderr();
    }
    st.keep(&job);
    st.s.lines
}

/// The end of a UCI stream: a search from a legal position must give a legal
/// move.
fn uci_final(st: &mut Stream, rng: &mut Rng, m: &mut UciModel) {
    m.observe("stop");
    st.s.say("stop");
    if !uci_probe(st, m) {
        return;
    }
    let vi = rng.below(4);
    let v = st.ctx.variant(vi, true);
    let (mut pos, moves) = open_walk(rng, &v, false);
    st.s.say("ucinewgame");
    st.s.say(&format!(
        "setoption name VariantPath value {}",
        st.ctx.pristine_ini.display()
    ));
    st.s.say("setoption name PairPromotion value true");
    st.s.say(&format!(
        "setoption name UCI_Variant value {}",
        VARIANTS[vi]
    ));
    if moves.is_empty() {
        st.s.say("position startpos");
    } else {
        st.s.say(&format!("position startpos moves {}", moves.join(" ")));
    }
    // This unknown option waits, as `setoption` does, until every earlier
    // search has ended and printed its move; its error line follows.
    m.syncs += 1;
    st.s.say(&format!("setoption name FuzzSync{} value 1", m.syncs));
    let echo = format!("info string error: unknown option 'fuzzsync{}'", m.syncs);
    let set_up = match st.s.expect(ANSWER, |l| l == echo) {
        Ok(lines) => lines,
        Err(Waited::Closed) => return st.died("the answer to the final set-up"),
        Err(Waited::Timeout(_)) => {
            return st.fail("no-answer", "no answer to the final set-up".into());
        }
    };
    // The built-in file may be refused when a user file loaded before
    // depends on sections it changed: then the variant is not the library's.
    let refused = set_up
        .iter()
        .any(|l| l.starts_with("info string error") && *l != echo);
    let ponder = rng.percent(25);
    let go = if ponder {
        "go ponder depth 3"
    } else {
        "go depth 3"
    };
    st.s.say(go);
    if ponder {
        st.s.say("ponderhit");
    }
    let setup = format!(
        "{} after {}",
        VARIANTS[vi],
        if moves.is_empty() {
            "startpos".into()
        } else {
            moves.join(" ")
        }
    );
    match st.s.expect(MOVE, |l| l.starts_with("bestmove")) {
        Ok(lines) => {
            let best = lines
                .last()
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap_or("")
                .to_string();
            let legal: Vec<String> = pos
                .legal_moves()
                .iter()
                .map(|&mv| pos.move_text(mv))
                .collect();
            st.ctx.count_judged(!refused);
            if !refused && !legal.contains(&best) {
                st.fail(
                    "illegal-bestmove",
                    format!(
                        "'{go}' in {setup}: bestmove '{best}' is not legal; legal: {}",
                        legal.join(" ")
                    ),
                );
            }
        }
        Err(Waited::Closed) => st.died("bestmove"),
        Err(Waited::Timeout(lines)) => {
            st.s.say("stop");
            let after = match st.s.expect(ANSWER, |l| l.starts_with("bestmove")) {
                Ok(_) => "it came only after a 'stop'",
                Err(_) => "none after a 'stop' either",
            };
            let kind = if ponder {
                "ponderhit-no-bestmove"
            } else {
                "no-bestmove"
            };
            let what = if ponder {
                "'go ponder depth 3' then 'ponderhit'"
            } else {
                "'go depth 3'"
            };
            st.fail(
                kind,
                format!(
                    "{what} in {setup}: no bestmove within {MOVE:?}; {after}; last output {}",
                    last_lines(&lines)
                ),
            );
        }
    }
}

// ---------------------------------------------------------------------------
// XBoard

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Force,
    Plays(Color),
    Unknown,
}

struct XbModel {
    variant: Option<usize>,
    /// The engine's position, while the harness knows it.
    pos: Option<Position>,
    side: Side,
    analyzing: bool,
    pair: bool,
    threads_max: u64,
    /// A mutated line may have set a clock that makes a search run long.
    hazard: bool,
    /// `VariantPath` values sent unmutated, in order.
    loaded: Vec<String>,
    files: usize,
}

fn xb_variant_index(name: &str) -> Option<usize> {
    match name {
        "normal" => Some(0),
        n => VARIANTS.iter().position(|v| *v == n),
    }
}

impl XbModel {
    fn startpos(&self, ctx: &Ctx) -> Option<Position> {
        self.variant
            .map(|i| Position::startpos(ctx.variant(i, self.pair)))
    }

    /// Update from an unmutated line.
    fn observe(&mut self, line: &str, ctx: &Ctx) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else { return };
        match cmd {
            "new" => {
                self.variant = Some(0);
                self.pos = self.startpos(ctx);
                self.side = Side::Plays(Color::Black);
            }
            "variant" => {
                if let Some(i) = words.get(1).and_then(|n| xb_variant_index(n)) {
                    self.variant = Some(i);
                    self.pos = self.startpos(ctx);
                }
            }
            "force" | "result" => self.side = Side::Force,
            "go" => {
                self.pos = None;
                self.side = Side::Unknown;
                self.analyzing = false;
            }
            "playother" => {
                self.side = match &self.pos {
                    Some(p) => Side::Plays(p.side_to_move().flip()),
                    None => Side::Unknown,
                };
            }
            "setboard" => {
                let fen = line["setboard".len()..].trim();
                self.pos = self
                    .variant
                    .and_then(|i| Position::from_fen(ctx.variant(i, self.pair), fen).ok());
            }
            "undo" | "remove" => {
                let n = if cmd == "undo" { 1 } else { 2 };
                if let Some(p) = &mut self.pos
                    && p.ply_count() >= n
                {
                    for _ in 0..n {
                        p.unmake();
                    }
                }
            }
            "analyze" => {
                self.analyzing = true;
                self.side = Side::Force;
            }
            "exit" => self.analyzing = false,
            "option" => {
                let rest = line["option".len()..].trim();
                if let Some(v) = rest.strip_prefix("PairPromotion=") {
                    let on = match v {
                        "1" => true,
                        "0" => false,
                        _ => return,
                    };
                    if on != self.pair {
                        self.pair = on;
                        self.pos = self.startpos(ctx);
                    }
                } else if let Some(v) = rest.strip_prefix("VariantPath=")
                    && !v.is_empty()
                {
                    self.loaded.push(v.to_string());
                }
            }
            _ => {
                let text = match words.as_slice() {
                    ["usermove", mv] => Some(*mv),
                    [mv] if mv.len() >= 4 && mv.as_bytes()[1].is_ascii_digit() => Some(*mv),
                    _ => None,
                };
                if let (Some(text), Some(p)) = (text, &mut self.pos)
                    && let Ok(mv) = moves::from_gui(p, text)
                {
                    p.make(mv);
                    let over = amalgam::rules::game::outcome(p).is_some();
                    let stm = p.side_to_move();
                    let replies = !self.analyzing
                        && !over
                        && (self.side == Side::Unknown || self.side == Side::Plays(stm));
                    if replies {
                        self.pos = None;
                    }
                }
            }
        }
    }
}

fn xb_usermove(rng: &mut Rng, m: &mut XbModel, ctx: &Ctx) -> String {
    let text = match &mut m.pos {
        Some(p) if rng.percent(85) => {
            let list = p.legal_moves();
            if list.is_empty() {
                rng.pick(&BAD_MOVES).to_string()
            } else {
                moves::gui_text(p, list[rng.below(list.len())])
            }
        }
        _ => {
            if rng.percent(50) {
                rng.pick(&BAD_MOVES).to_string()
            } else {
                // A legal move of some other position.
                let v = ctx.variant(rng.below(4), true);
                let plies = rng.below(6);
                let (mut p, _) = walk(rng, &v, plies);
                let list = p.legal_moves();
                if list.is_empty() {
                    "e2e4".into()
                } else {
                    moves::gui_text(&p, list[rng.below(list.len())])
                }
            }
        }
    };
    if rng.percent(15) {
        text
    } else {
        format!("usermove {text}")
    }
}

fn xb_command(rng: &mut Rng, m: &mut XbModel, ctx: &Ctx, job: &str) -> String {
    if m.pos.is_none() && rng.percent(25) {
        // Back to a position the harness knows, so that legal moves follow.
        let v = *rng.pick(&["normal", "combination", "team-mate", "compound"]);
        return if rng.percent(30) {
            "new".into()
        } else {
            format!("variant {v}")
        };
    }
    match rng.below(100) {
        0..=3 => "new".into(),
        4..=9 => {
            let names = ["chess", "normal", "combination", "team-mate", "compound"];
            let junk = [
                "zoo",
                "big-zoo",
                "10x8_compound",
                "8x8_normal",
                "suicide",
                "",
                "fz1-0",
            ];
            let v = if rng.percent(80) {
                *rng.pick(&names)
            } else {
                *rng.pick(&junk)
            };
            format!("variant {v}")
        }
        10..=14 => "force".into(),
        15..=34 => xb_usermove(rng, m, ctx),
        35..=39 => "go".into(),
        40..=41 => "?".into(),
        42..=48 => {
            let vi = m
                .variant
                .filter(|_| rng.percent(85))
                .unwrap_or_else(|| rng.below(4));
            let v = ctx.variant(vi, m.pair);
            let plies = rng.below(21);
            let (p, _) = walk(rng, &v, plies);
            let fen = p.to_fen();
            let fen = if rng.percent(25) {
                mutate_fen(rng, &fen)
            } else {
                fen
            };
            format!("setboard {fen}")
        }
        49..=51 => format!("time {}", rng.range(1, 6000)),
        52..=54 => format!("otim {}", rng.range(1, 6000)),
        55..=56 => rng
            .pick(&[
                "level 40 0:05 0",
                "level 0 0:10 0.1",
                "level 40 0:05 0",
                "level 0 0:03 0",
            ])
            .to_string(),
        57..=58 => format!("st 0.0{}", rng.range(1, 9)),
        59..=61 => format!("sd {}", rng.range(1, 4)),
        62..=63 => format!("ping {}", rng.range(1, 999)),
        64..=67 => rng
            .pick(&["analyze", ".", "exit", "analyze", "."])
            .to_string(),
        68..=70 => rng.pick(&["undo", "remove"]).to_string(),
        71..=72 => format!("memory {}", rng.range(1, 64)),
        73 => format!("cores {}", rng.range(1, m.threads_max)),
        74..=77 => {
            let mut files = m.files;
            let p = variant_path(rng, ctx, job, &mut files);
            m.files = files;
            format!("option VariantPath={p}")
        }
        78..=79 => format!(
            "option PairPromotion={}",
            rng.pick(&["0", "1", "0", "1", "2", ""])
        ),
        80..=81 => rng.pick(&["post", "nopost"]).to_string(),
        82..=83 => rng.pick(&["hard", "easy"]).to_string(),
        84 => "result 1-0 {x}".into(),
        85 => "draw".into(),
        86 => "hint".into(),
        87..=88 => "playother".into(),
        89..=90 => rng
            .pick(&[
                "computer",
                "random",
                "name x",
                "accepted setboard",
                "protover 2",
            ])
            .to_string(),
        91..=94 => rng.pick(&JUNK_COMMANDS).to_string(),
        95..=96 => String::new(),
        _ => {
            let start = Position::startpos(ctx.variant(rng.below(4), true)).to_fen();
            format!("setboard {}", mutate_fen(rng, &start))
        }
    }
}

/// Whether a mutated line may have set a clock or depth the harness cannot
/// bound.
fn clock_line(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes).split('\n').any(|l| {
        matches!(
            l.split_whitespace().next(),
            Some("time" | "otim" | "level" | "st" | "sd")
        )
    })
}

fn xb_probe(st: &mut Stream, m: &mut XbModel, n: &mut u64) -> bool {
    if m.hazard {
        // The engine may think with a huge clock: make it move, then stop.
        st.s.say("?");
        st.s.say("force");
        m.side = Side::Force;
        m.pos = None;
    }
    *n += 1;
    let pong = format!("pong {}", 100_000 + *n);
    st.s.say(&format!("ping {}", 100_000 + *n));
    match st.s.expect(ANSWER, |l| l == pong) {
        Ok(_) => true,
        Err(Waited::Closed) => {
            st.died(&pong);
            false
        }
        Err(Waited::Timeout(lines)) => {
            st.s.say("?");
            st.s.say("force");
            let after = match st.s.expect(ANSWER, |l| l == pong) {
                Ok(_) => "it came only after '?' and 'force'",
                Err(_) => "none after '?' and 'force' either",
            };
            st.fail(
                "no-pong",
                format!(
                    "no '{pong}' within {ANSWER:?} after line {}; {after}; last output {}",
                    st.s.lines,
                    last_lines(&lines)
                ),
            );
            false
        }
    }
}

fn xboard_stream(ctx: &Ctx, index: usize) -> usize {
    let mut rng = Rng::for_job(ctx.seed, 2, index);
    let two = rng.percent(35);
    let _permit = ctx.permits.take(if two { 2 } else { 1 });
    let job = format!("xboard{index}");
    let mut st = Stream {
        ctx,
        job: format!("XBoard stream {index}"),
        key: format!("xboard:{index}"),
        xboard: true,
        s: Session::start(&[]),
        failed: false,
    };
    let mut m = XbModel {
        variant: Some(0),
        pos: Some(Position::startpos(ctx.variant(0, true))),
        side: Side::Plays(Color::Black),
        analyzing: false,
        pair: true,
        threads_max: if two { 2 } else { 1 },
        hazard: false,
        loaded: Vec::new(),
        files: 0,
    };
    st.s.say("xboard");
    st.s.say("protover 2");
    match st.s.expect(ANSWER, |l| l == "feature done=1") {
        Ok(_) => {}
        Err(Waited::Closed) => st.died("feature done=1"),
        Err(Waited::Timeout(_)) => st.fail("no-features", "no 'feature done=1'".into()),
    }
    // Mostly short searches, so that moves come out between the commands.
    match rng.below(4) {
        0 | 1 => st.s.say(&format!("st 0.0{}", rng.range(1, 9))),
        2 => st.s.say(&format!("sd {}", rng.range(1, 3))),
        _ => {}
    }
    let mut pings = 0;
    let count = rng.range(20, 60);
    let mut probe_in = rng.range(10, 20);
    for _ in 0..count {
        if st.failed {
            break;
        }
        let line = xb_command(&mut rng, &mut m, ctx, &job);
        let (bytes, mutated) = maybe_mutate(&mut rng, line.clone());
        if mutated {
            m.pos = None;
            m.side = Side::Unknown;
            m.hazard |= clock_line(&bytes);
        } else {
            m.observe(&line, ctx);
        }
        st.s.send(&bytes);
        // Time to think: a search is ended by most commands that follow.
        if (line == "go" || line.starts_with("usermove")) && rng.percent(60) {
            std::thread::sleep(Duration::from_millis(rng.range(5, 80)));
        }
        probe_in -= 1;
        if probe_in == 0 {
            probe_in = rng.range(10, 20);
            xb_probe(&mut st, &mut m, &mut pings);
        }
    }
    if !st.failed {
        xb_final(&mut st, &mut rng, &mut m, &mut pings);
    }
    if !st.failed {
        st.quit();
    }
    if !st.failed {
        st.check_stderr();
    }
    st.keep(&job);
    st.s.lines
}

/// The variant that `variant NAME` selects in a set (XBoard name first, as
/// the engine looks it up).
fn xb_lookup(set: &VariantSet, name: &str) -> Option<String> {
    set.names()
        .iter()
        .find(|n| set.compile(n).is_ok_and(|v| v.xboard.name == name))
        .or_else(|| set.names().iter().find(|n| n.as_str() == name))
        .cloned()
}

/// The end of an XBoard stream: `sd 3` and `go` from a legal position must
/// give a legal move.
fn xb_final(st: &mut Stream, rng: &mut Rng, m: &mut XbModel, pings: &mut u64) {
    m.hazard = true;
    if !xb_probe(st, m, pings) {
        return;
    }
    let vi = rng.below(4);
    let v = st.ctx.variant(vi, true);
    let (p, moves) = open_walk(rng, &v, true);
    let fen = p.to_fen();
    let pristine = st.ctx.pristine_ini.display().to_string();
    for line in [
        "new".to_string(),
        format!("option VariantPath={pristine}"),
        "option PairPromotion=1".to_string(),
        format!("variant {}", VARIANTS[vi]),
        format!("setboard {fen}"),
        "level 40 0:05 0".to_string(),
        "sd 3".to_string(),
    ] {
        st.s.say(&line);
    }
    *pings += 1;
    let pong = format!("pong {}", 100_000 + *pings);
    st.s.say(&format!("ping {}", 100_000 + *pings));
    let set_up = match st.s.expect(ANSWER, |l| l == pong) {
        Ok(lines) => lines,
        Err(Waited::Closed) => return st.died("pong before the final search"),
        Err(Waited::Timeout(_)) => {
            return st.fail("no-pong", "no pong after the final set-up".into());
        }
    };
    // What the engine's variant set is now, replayed with the library (the
    // engine survived these loads, so the library does too).
    let mut set = st.ctx.builtin.clone();
    for f in m.loaded.iter().chain([&pristine]) {
        let _ = set.load_file_checked(f);
    }
    let same_variant = xb_lookup(&set, VARIANTS[vi]).as_deref() == Some(VARIANTS[vi]);
    let refused = set_up.iter().any(|l| l.starts_with("Error"));
    st.s.say("go");
    let setup = format!("{} '{fen}' (from start: {})", VARIANTS[vi], moves.join(" "));
    let mut legs: Vec<String> = Vec::new();
    loop {
        match st.s.expect(MOVE, |l| l.starts_with("move ")) {
            Ok(lines) => {
                let leg = lines.last().map_or("", |l| &l[5..]).trim().to_string();
                let more = leg.ends_with(',');
                legs.push(leg);
                if !more {
                    break;
                }
            }
            Err(Waited::Closed) => return st.died("move"),
            Err(Waited::Timeout(lines)) => {
                return st.fail(
                    "no-move",
                    format!(
                        "'sd 3', 'go' in {setup}: no move within {MOVE:?}; last output {}",
                        last_lines(&lines)
                    ),
                );
            }
        }
    }
    let played = legs.concat();
    let mut pos = Position::from_fen(v.clone(), &fen).expect("own FEN");
    let legal: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|&mv| moves::to_gui_joined(&pos, mv))
        .collect();
    st.ctx.count_judged(!refused && same_variant);
    if !refused && same_variant && !legal.contains(&played) {
        st.fail(
            "illegal-move",
            format!(
                "'sd 3', 'go' in {setup}: 'move {played}' is not legal; legal: {}",
                legal.join(" ")
            ),
        );
    }
}

// ---------------------------------------------------------------------------
// Files

fn file_finding(ctx: &Ctx, kind: &str, job: &str, detail: String, file: &Path, replay: &str) {
    let bytes = std::fs::read(file).unwrap_or_default();
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("txt");
    ctx.report(kind, job, detail, &bytes, ext, replay);
}

fn ini_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 3, index);
    let _permit = ctx.permits.take(1);
    let job = format!("ini file {index}");
    let path = ctx.work.join(format!("ini{index}.ini"));
    std::fs::write(&path, gen_ini(&mut rng, ctx, index)).expect("write ini");
    let p = path.display().to_string();
    let r = run_once(&["check", &p], FILE_LIMIT);
    if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 1]) {
        let replay = format!("{BIN} check {{}}");
        return file_finding(
            ctx,
            &format!("check-{kind}"),
            &job,
            format!("amalgam check: {why}"),
            &path,
            &replay,
        );
    }
    if r.status.and_then(|s| s.code()) != Some(0) {
        return;
    }
    let names: Vec<String> = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("ok: "))
        .and_then(|l| l.split_once(": "))
        .map(|(_, n)| n.split(", ").map(str::to_string).collect())
        .unwrap_or_default();
    for name in names.iter().take(6) {
        let r = run_once(
            &["--variants", &p, "perft", name, "startpos", "2"],
            FILE_LIMIT,
        );
        if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 2]) {
            let replay = format!("{BIN} --variants {{}} perft {name} startpos 2");
            return file_finding(
                ctx,
                &format!("perft-{kind}"),
                &job,
                format!("perft {name} startpos 2: {why}"),
                &path,
                &replay,
            );
        }
    }
}

#[rustfmt::skip]
const PGN_JUNK: [&str; 20] = [
    "{", "}", "(", ")", "$1", "1-0", "*", ";comment", "%escape", "[Tag", "e9", "O-O-O-O",
    "Qxx9", "1.", "....", "\u{0}", "[FEN \"\"]", "[Variant \"zoo\"]", "=Q", "1/2-1/2",
];

fn mutate_pgn(rng: &mut Rng, text: &str) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(6) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(10) {
            0 => {
                let mut b = lines[i].clone().into_bytes();
                if !b.is_empty() {
                    let k = rng.below(b.len());
                    b[k] ^= 1 << rng.below(7);
                }
                lines[i] = String::from_utf8_lossy(&b).into_owned();
            }
            1..=3 => {
                // Move tokens of a move-text line.
                if lines[i].starts_with('[') {
                    continue;
                }
                let mut t: Vec<String> = lines[i].split(' ').map(str::to_string).collect();
                let k = rng.below(t.len());
                match rng.below(3) {
                    0 => {
                        t.remove(k);
                    }
                    1 => {
                        let x = t[k].clone();
                        t.insert(k, x);
                    }
                    _ => {
                        let j = rng.below(t.len());
                        t.swap(k, j);
                    }
                }
                lines[i] = t.join(" ");
            }
            4 | 5 => {
                // A damaged tag.
                let tags: Vec<usize> = (0..lines.len())
                    .filter(|&k| lines[k].starts_with('['))
                    .collect();
                if tags.is_empty() {
                    continue;
                }
                let k = *rng.pick(&tags);
                let l = lines[k].clone();
                lines[k] = if let Some(fen) = l
                    .strip_prefix("[FEN \"")
                    .and_then(|r| r.strip_suffix("\"]"))
                {
                    format!("[FEN \"{}\"]", mutate_fen(rng, fen))
                } else if l.starts_with("[Variant") {
                    let v = rng.pick(&[
                        "chess",
                        "combination",
                        "team-mate",
                        "compound",
                        "zoo",
                        "",
                        "x\"y",
                    ]);
                    format!("[Variant \"{v}\"]")
                } else {
                    match rng.below(4) {
                        0 => l.replace('"', ""),
                        1 => l.trim_end_matches(']').to_string(),
                        2 => l.replace('[', ""),
                        _ => format!(
                            "{} \"{}\"]",
                            l.split(' ').next().unwrap_or("["),
                            rng.pick(&EXTREMES)
                        ),
                    }
                };
            }
            6 => {
                let keep = rng.below(lines[i].len() + 1);
                lines.truncate(i + 1);
                let l = lines[i].as_bytes()[..keep].to_vec();
                lines[i] = String::from_utf8_lossy(&l).into_owned();
            }
            7 | 8 => {
                let junk = rng.pick(&PGN_JUNK).to_string();
                let mut t: Vec<String> = lines[i].split(' ').map(str::to_string).collect();
                let k = rng.below(t.len() + 1);
                t.insert(k, junk);
                lines[i] = t.join(" ");
            }
            _ => {
                let j = rng.below(lines.len());
                let l = lines[j].clone();
                lines.insert(i, l);
            }
        }
    }
    let mut out = lines.join("\n").into_bytes();
    if rng.percent(10) {
        out = bad_utf8(rng, &out);
    }
    out
}

fn pgn_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 4, index);
    let _permit = ctx.permits.take(1);
    let mut text = ctx.pgn_bases[rng.below(ctx.pgn_bases.len())].clone();
    if rng.percent(30) {
        text.push('\n');
        text.push_str(&ctx.pgn_bases[rng.below(ctx.pgn_bases.len())]);
    }
    let path = ctx.work.join(format!("pgn{index}.pgn"));
    std::fs::write(&path, mutate_pgn(&mut rng, &text)).expect("write pgn");
    let p = path.display().to_string();
    let r = run_once(&["pgn", "check", &p], FILE_LIMIT);
    if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 1, 2]) {
        let replay = format!("{BIN} pgn check {{}}");
        file_finding(
            ctx,
            &format!("pgn-{kind}"),
            &format!("PGN file {index}"),
            format!("amalgam pgn check: {why}"),
            &path,
            &replay,
        );
    }
}

// ---------------------------------------------------------------------------
// The run

fn setup(cfg: &Config) -> Ctx {
    let work =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-{}-seed{}", cfg.name, cfg.seed));
    std::fs::create_dir_all(&work).expect("work dir");
    let pristine_ini = work.join("builtin.ini");
    std::fs::write(&pristine_ini, amalgam::rules::variant::BUILTIN_INI).expect("write ini");
    let user_ini = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/user-variants.ini");
    let user_ini_text = std::fs::read(&user_ini).expect("user-variants.ini");
    // 3 MB of lines that look like an ini file, with errors everywhere.
    let mut rng = Rng::for_job(cfg.seed, 5, 0);
    let mut junk = String::new();
    while junk.len() < 3 << 20 {
        match rng.below(4) {
            0 => junk.push_str(&format!("[j{}:chess]\n", rng.below(1000))),
            1 => junk.push_str(&format!("queen = q:{}\n", gen_betza(&mut rng))),
            2 => {
                let line = *rng.pick(&INI_JUNK_LINES);
                junk.push_str(line);
            }
            _ => junk.push_str(&format!(
                "{} = {}\n",
                rng.pick(&PIECE_KEYS),
                rng.pick(&INI_JUNK_VALUES)
            )),
        }
        junk.push('\n');
    }
    let junk_ini = work.join("junk-3mb.ini");
    std::fs::write(&junk_ini, junk).expect("write junk");
    let builtin = VariantSet::builtin();
    let variants: Vec<Arc<Variant>> = VARIANTS
        .iter()
        .map(|n| builtin.compile(n).unwrap_or_else(|e| panic!("{n}: {e:?}")))
        .collect();
    let no_pair = variants
        .iter()
        .map(|v| {
            if v.has_pair_promotion() {
                Arc::new(v.without_pair_promotion())
            } else {
                v.clone()
            }
        })
        .collect();
    Ctx {
        seed: cfg.seed,
        work,
        findings_dir: target_dir().join("fuzz-findings"),
        pristine_ini,
        user_ini,
        user_ini_text,
        junk_ini,
        pgn_bases: Vec::new(),
        builtin,
        variants,
        no_pair,
        permits: Permits::new(),
        findings: Mutex::new(Vec::new()),
        lines: AtomicUsize::new(0),
        judged: AtomicUsize::new(0),
        unjudged: AtomicUsize::new(0),
    }
}

/// Games of the four variants for the PGN jobs (each a finding if self-play
/// itself fails).
fn selfplay_games(ctx: &mut Ctx) {
    for (i, v) in VARIANTS.iter().enumerate() {
        let path = ctx.work.join(format!("selfplay-{v}.pgn"));
        let p = path.display().to_string();
        let seed = (ctx.seed.wrapping_add(i as u64) % 1_000_000).to_string();
        let args = [
            "selfplay", v, "--games", "2", "--nodes", "300", "--pgn", &p, "--seed", &seed,
        ];
        let r = run_once(&args, SELFPLAY_LIMIT);
        if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0]) {
            let replay = format!("{BIN} {}", args.join(" "));
            ctx.report(
                &format!("selfplay-{kind}"),
                &format!("selfplay {v}"),
                format!(
                    "{why}; output: {}",
                    r.stdout
                        .lines()
                        .rev()
                        .take(3)
                        .collect::<Vec<_>>()
                        .join(" / ")
                ),
                r.stdout.as_bytes(),
                "txt",
                &replay,
            );
        }
        if let Ok(text) = std::fs::read_to_string(&path)
            && !text.is_empty()
        {
            ctx.pgn_bases.push(text);
        }
    }
    if ctx.pgn_bases.is_empty() {
        ctx.pgn_bases
            .push("[Variant \"chess\"]\n\n1. e4 e5 2. Nf3 *\n".into());
    }
}

#[derive(Clone, Copy)]
enum Job {
    Uci(usize),
    Xboard(usize),
    Ini(usize),
    Pgn(usize),
}

fn job_name(j: Job) -> (&'static str, usize) {
    match j {
        Job::Uci(i) => ("uci", i),
        Job::Xboard(i) => ("xboard", i),
        Job::Ini(i) => ("ini", i),
        Job::Pgn(i) => ("pgn", i),
    }
}

fn run(cfg: &Config) -> Summary {
    let start = Instant::now();
    let mut ctx = setup(cfg);
    selfplay_games(&mut ctx);
    let mut jobs = Vec::new();
    let most = cfg.streams.max(cfg.ini_files).max(cfg.pgn_files);
    for i in 0..most {
        if i < cfg.streams {
            jobs.push(Job::Uci(i));
            jobs.push(Job::Xboard(i));
        }
        if i < cfg.ini_files {
            jobs.push(Job::Ini(i));
        }
        if i < cfg.pgn_files {
            jobs.push(Job::Pgn(i));
        }
    }
    if let Some(only) = &cfg.only {
        jobs.retain(|&j| {
            let (k, i) = job_name(j);
            *only == format!("{k}:{i}")
        });
    }
    let next = AtomicUsize::new(0);
    let counts = Mutex::new([0usize; 4]);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&job) = jobs.get(k) else { break };
                    match job {
                        Job::Uci(i) => {
                            let n = uci_stream(&ctx, i);
                            ctx.lines.fetch_add(n, Ordering::Relaxed);
                            lock(&counts)[0] += 1;
                        }
                        Job::Xboard(i) => {
                            let n = xboard_stream(&ctx, i);
                            ctx.lines.fetch_add(n, Ordering::Relaxed);
                            lock(&counts)[1] += 1;
                        }
                        Job::Ini(i) => {
                            ini_job(&ctx, i);
                            lock(&counts)[2] += 1;
                        }
                        Job::Pgn(i) => {
                            pgn_job(&ctx, i);
                            lock(&counts)[3] += 1;
                        }
                    }
                }
            });
        }
    });
    let c = *lock(&counts);
    let findings: Vec<String> = lock(&ctx.findings).iter().map(|f| f.to_string()).collect();
    let s = Summary {
        uci_streams: c[0],
        xboard_streams: c[1],
        lines: ctx.lines.load(Ordering::Relaxed),
        ini_files: c[2],
        pgn_files: c[3],
        judged: ctx.judged.load(Ordering::Relaxed),
        unjudged: ctx.unjudged.load(Ordering::Relaxed),
        findings,
    };
    println!(
        "fuzz {} (seed {}): {} UCI and {} XBoard streams, {} lines sent, {} final moves judged \
         ({} not), {} ini files, {} PGN files, {} findings, {:.1} s",
        cfg.name,
        cfg.seed,
        s.uci_streams,
        s.xboard_streams,
        s.lines,
        s.judged,
        s.unjudged,
        s.ini_files,
        s.pgn_files,
        s.findings.len(),
        start.elapsed().as_secs_f64()
    );
    s
}

fn assert_clean(s: &Summary) {
    for f in &s.findings {
        println!("{f}");
    }
    assert!(
        s.findings.is_empty(),
        "{} finding(s); see above",
        s.findings.len()
    );
}

/// One fuzz run at a time (each uses both cores).
static SERIAL: Mutex<()> = Mutex::new(());

fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}: not a number: {v}")),
        Err(_) => default,
    }
}

#[test]
fn fuzz_short() {
    let _serial = lock(&SERIAL);
    let s = run(&Config {
        name: "short",
        seed: 0x5EED,
        streams: 10,
        ini_files: 30,
        pgn_files: 15,
        only: None,
    });
    assert_clean(&s);
}

#[test]
#[ignore]
fn fuzz_long() {
    let _serial = lock(&SERIAL);
    let files = env_num("AMALGAM_FUZZ_FILES", 500) as usize;
    let s = run(&Config {
        name: "long",
        seed: env_num("AMALGAM_FUZZ_SEED", 1),
        streams: env_num("AMALGAM_FUZZ_STREAMS", 300) as usize,
        ini_files: files,
        pgn_files: files,
        only: std::env::var("AMALGAM_FUZZ_ONLY").ok(),
    });
    assert_clean(&s);
}
