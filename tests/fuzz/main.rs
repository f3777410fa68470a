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
//! - **Net files** (`nets.rs`): the embedded nets (`nets/*.nnue`) with
//!   flipped bits, header fields (sizes, counts, the activation) replaced,
//!   cuts, junk appended, one net's header before another's body, most
//!   resealed with a fresh checksum so that the later checks are reached;
//!   also a folder, a FIFO, `/dev/zero` and an empty file. Each is named by
//!   `nnue =` in a variant file beside it, through `amalgam check INI`, then
//!   a UCI session loads the file by `VariantPath`, selects the variant and
//!   must answer `isready` and `go depth 1-3` and quit.
//! - **Training data** (`data.rs`): a text and a binary file of chess and a
//!   binary file of Combination, made by `amalgam datagen` once a run; the
//!   binary file cut at (or next to) the edge of every part of its header
//!   and records, bytes flipped, lengths made extreme, the Combination
//!   header before the chess records, records repeated; the text file's
//!   fields replaced by extremes and junk, lines cut or repeated. Through
//!   `data stats`, `data convert --out` (either format) and, for some,
//!   `train chess FILE --epochs 1 --hidden 8`: status 0, 1 or 2, and a
//!   failure must say why.
//! - **Match runner** (`matches.rs`): the engine against itself at depth 1.
//!   `--shard` with random words (0, extremes, junk, more parts than game
//!   pairs): status 0 or 2, 2 with a message, an empty part with a message.
//!   `--resume` over a four-game match's PGN cut anywhere, with flipped
//!   bytes, games repeated, swapped or dropped, tags changed, or the PGN
//!   mutator's damage: status 0 and a file `pgn check` accepts, or status 2
//!   with a message and the file left as it was. `pgn stats` over one to
//!   three damaged match or self-play PGN files (some named twice) with
//!   `--sprt key=value ...` (extremes, `1e-300`, `-0`, `nan`, `inf`),
//!   `--separate` and junk words before, between and after them.
//! - In XBoard sessions, `option SplitCommand=0/1` (by its name or its long
//!   label, and refused values) before about one command in 16, and a
//!   quarter of the sessions start in Combination; the harness reads and
//!   writes moves in the form the option selects.
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
//!   streams per protocol, 30 ini and 15 PGN files, 40 net, data and stats
//!   jobs and 16 shard and resume jobs (seconds when the engine
//!   has no defect; each finding adds up to a timeout).
//! - `cargo test --profile checked --test fuzz -- --ignored --nocapture` runs
//!   `fuzz_long`: `AMALGAM_FUZZ_STREAMS` streams per protocol (default 300),
//!   `AMALGAM_FUZZ_FILES` ini files and as many PGN files (default 500),
//!   seed `AMALGAM_FUZZ_SEED` (default 1); `AMALGAM_FUZZ_FILES` also sizes
//!   the net, data and `pgn stats` jobs, and `AMALGAM_FUZZ_MATCHES` (default
//!   100) the shard and resume jobs, each.
//!
//! Reproducing a finding: the printed `replay` line. Files are replayed as
//! they are (`amalgam check FILE`, `amalgam pgn check FILE`). A stream's
//! saved input (`.in`, with the engine's output beside it in `.out`) can be
//! fed to the engine by redirection (`amalgam --uci < FILE`, `amalgam < FILE`
//! for XBoard), which reproduces what does not depend on timing (a panic, a
//! line that ends the session); but then every line arrives at once and the
//! final `quit` ends the session before queued searches run. To rerun one
//! job as the harness drives it, run `fuzz_long` with its seed and
//! `AMALGAM_FUZZ_ONLY=uci:N` (or `xboard:N`, `ini:N`, `pgn:N`, `net:N`,
//! `data:N`, `shard:N`, `stats:N`, `resume:N`): a job's
//! input depends only on the seed and its number. The ini files a stream
//! names lie in the work directory `<target dir>/tmp/fuzz-*-seedS/`, which is
//! kept. `AMALGAM_FUZZ_KEEP=1` also keeps every stream there (`.in`, `.out`).
//!
//! Independent jobs run on two threads; a job holds one of two "core
//! permits" per engine search thread it may cause (a stream with `Threads 2`
//! holds both), so the engines never use more than the machine's two cores.

use amalgam::protocol::xboard::moves::{self, Gui};
use amalgam::{Color, Position, Variant, VariantSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

mod data;
mod files;
mod harness;
mod ini;
mod lines;
mod matches;
mod nets;
mod positions;
mod process;
mod rng;
mod streams;
mod uci;
mod xboard;

use data::*;
use files::*;
use harness::*;
use ini::*;
use lines::*;
use matches::*;
use nets::*;
use positions::*;
use process::*;
use rng::*;
use streams::*;
use uci::*;
use xboard::*;

pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_amalgam");
pub(crate) const VARIANTS: [&str; 4] = ["chess", "combination", "team-mate", "compound"];

/// How long `isready` / `ping` may take to be answered.
pub(crate) const ANSWER: Duration = Duration::from_secs(15);
/// How long the final `go depth 3` may take.
pub(crate) const MOVE: Duration = Duration::from_secs(30);
/// How long the process may take to exit after `quit`.
pub(crate) const EXIT: Duration = Duration::from_secs(5);
/// Time limit of `check`, `perft` and `pgn check`.
pub(crate) const FILE_LIMIT: Duration = Duration::from_secs(20);
pub(crate) const SELFPLAY_LIMIT: Duration = Duration::from_secs(120);

/// Numbers that break careless arithmetic.
#[rustfmt::skip]
pub(crate) const EXTREMES: [&str; 13] = [
    "0", "-1", "4294967296", "9223372036854775807", "18446744073709551615",
    "99999999999999999999999", "1e300", "NaN", "-9223372036854775808", "1844674407370955162",
    "inf", "-0", "0.0000001",
];

/// Byte sequences that are not UTF-8.
pub(crate) const BAD_UTF8: [&[u8]; 7] = [
    b"\xff",
    b"\xe9",
    b"\xc3",
    b"\x80",
    b"\xed\xa0\x80",
    b"\xf8\x88\x80\x80\x80",
    b"\xfe\xfe",
];

pub(crate) const CONTROL: [u8; 10] = [0x00, 0x01, 0x07, 0x08, b'\t', b'\r', 0x0b, 0x0c, 0x1b, 0x7f];

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
        net_bases: net_bases(),
        data: DataBases::default(),
        match_pgn: String::new(),
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
        ctx.setup_command(&args, SELFPLAY_LIMIT, &format!("selfplay {v}"));
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

/// The kinds of job, in the order of the summary's counts.
#[derive(Clone, Copy)]
enum Kind {
    Uci,
    Xboard,
    Ini,
    Pgn,
    Net,
    Data,
    Shard,
    Stats,
    Resume,
}

const KINDS: [Kind; 9] = [
    Kind::Uci,
    Kind::Xboard,
    Kind::Ini,
    Kind::Pgn,
    Kind::Net,
    Kind::Data,
    Kind::Shard,
    Kind::Stats,
    Kind::Resume,
];

impl Kind {
    /// The job's name in `AMALGAM_FUZZ_ONLY` and in the summary.
    fn name(self) -> &'static str {
        match self {
            Kind::Uci => "uci",
            Kind::Xboard => "xboard",
            Kind::Ini => "ini",
            Kind::Pgn => "pgn",
            Kind::Net => "net",
            Kind::Data => "data",
            Kind::Shard => "shard",
            Kind::Stats => "stats",
            Kind::Resume => "resume",
        }
    }

    fn count(self, cfg: &Config) -> usize {
        match self {
            Kind::Uci | Kind::Xboard => cfg.streams,
            Kind::Ini => cfg.ini_files,
            Kind::Pgn => cfg.pgn_files,
            Kind::Net | Kind::Data | Kind::Stats => cfg.tool_files,
            Kind::Shard | Kind::Resume => cfg.matches,
        }
    }

    fn run(self, ctx: &Ctx, i: usize) {
        match self {
            Kind::Uci => {
                let n = uci_stream(ctx, i);
                ctx.lines.fetch_add(n, Ordering::Relaxed);
            }
            Kind::Xboard => {
                let n = xboard_stream(ctx, i);
                ctx.lines.fetch_add(n, Ordering::Relaxed);
            }
            Kind::Ini => ini_job(ctx, i),
            Kind::Pgn => pgn_job(ctx, i),
            Kind::Net => net_job(ctx, i),
            Kind::Data => data_job(ctx, i),
            Kind::Shard => shard_job(ctx, i),
            Kind::Stats => stats_job(ctx, i),
            Kind::Resume => resume_job(ctx, i),
        }
    }
}

fn run(cfg: &Config) -> Summary {
    let start = Instant::now();
    let mut ctx = setup(cfg);
    selfplay_games(&mut ctx);
    datagen_files(&mut ctx);
    match_games(&mut ctx);
    let most = KINDS.iter().map(|k| k.count(cfg)).max().unwrap_or(0);
    let mut jobs: Vec<(usize, usize)> = Vec::new();
    for i in 0..most {
        for (k, kind) in KINDS.iter().enumerate() {
            if i < kind.count(cfg) {
                jobs.push((k, i));
            }
        }
    }
    if let Some(only) = &cfg.only {
        jobs.retain(|&(k, i)| *only == format!("{}:{i}", KINDS[k].name()));
    }
    let next = AtomicUsize::new(0);
    let counts = Mutex::new([0usize; KINDS.len()]);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(k, i)) = jobs.get(n) else { break };
                    KINDS[k].run(&ctx, i);
                    lock(&counts)[k] += 1;
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
        tools: KINDS[4..]
            .iter()
            .zip(&c[4..])
            .map(|(k, &n)| (k.name(), n))
            .collect(),
        judged: ctx.judged.load(Ordering::Relaxed),
        unjudged: ctx.unjudged.load(Ordering::Relaxed),
        findings,
    };
    println!(
        "fuzz {} (seed {}): {} UCI and {} XBoard streams, {} lines sent, {} final moves judged \
         ({} not), {} ini files, {} PGN files, {}, {} findings, {:.1} s",
        cfg.name,
        cfg.seed,
        s.uci_streams,
        s.xboard_streams,
        s.lines,
        s.judged,
        s.unjudged,
        s.ini_files,
        s.pgn_files,
        s.tools
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", "),
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
pub(crate) static SERIAL: Mutex<()> = Mutex::new(());

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
        tool_files: 40,
        matches: 16,
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
        tool_files: files,
        matches: env_num("AMALGAM_FUZZ_MATCHES", 100) as usize,
        only: std::env::var("AMALGAM_FUZZ_ONLY").ok(),
    });
    assert_clean(&s);
}
