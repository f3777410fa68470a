//! Command-line front end: the protocol loop, `perft`, `check`, `match`, `pgn check` and more.

// Input from outside never meets an unwrap or expect: `cargo clippy` fails on
// one outside the tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

use amalgam::rules::board::Position;
use amalgam::rules::perft::divide;
use amalgam::rules::variant::VariantSet;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage:
  amalgam [--variants FILE]... [--uci | --xboard]   protocol loop (detected from the first command)
  amalgam [--variants FILE]... COMMAND ...
  perft VARIANT FEN|startpos DEPTH [--divide] [--threads N]
  bench [VARIANT] [--depth D] [--threads N]
  go VARIANT FEN|startpos [--depth D | --movetime MS | --nodes N] [--threads T] [--multipv K]
  epd FILE [--variant V] [--movetime MS | --nodes N] [--threads T]
  selfplay VARIANT --games N (--nodes K | --depth D | --movetime MS) [--pgn FILE] [--seed S]
  openings VARIANT --count N [--plies P] [--max-score CP] [--seed S] [--nodes K] --out FILE
                         an opening suite: distinct positions after random plies, within CP
  match --engine name=N cmd=C proto=uci|xboard [option.X=V ...] --engine ... [--tc 10+0.1] ...
                         engine-versus-engine match (`amalgam match --help` for every option)
  pgn check FILE         replay every game of a PGN file with the rules and verify it
  datagen VARIANT --games N (--nodes K | --depth D) --out FILE [--threads T] [--seed S] [--openings FILE]
                         self-play training data: quiet positions with score and result, appended
  tune VARIANT FILE... --out PARAMS [--epochs N] [--seed S] [--lambda L] [--rate R]
                         [--batch B] [--validation SHARE] [--decay D] [--start current|defaults]
                         fit the evaluation's weights to datagen files; writes a parameter file
  pictures VARIANT --out DIR
                         SVG piece pictures for XBoard's -pieceImageDirectory
  check [FILE...]        validate ini files (default: the built-in variants.ini)
  variants               list the defined variants";

/// The most threads a command may start (the engine's own limit too).
const MAX_THREADS: usize = 256;

/// The environment variable that names variant files to load at start-up.
const VARIANT_PATH_VAR: &str = "AMALGAM_VARIANT_PATH";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<ExitCode, String> {
    let mut set = VariantSet::builtin();
    // Variant files named in the environment, separated as in PATH; each
    // whole or not at all, as with `--variants`.
    if let Some(paths) = std::env::var_os(VARIANT_PATH_VAR) {
        for file in std::env::split_paths(&paths) {
            let file = file.to_string_lossy().into_owned();
            if file.is_empty() {
                continue;
            }
            if let Err(e) = set.load_file_checked(&file) {
                return Err(format!("{VARIANT_PATH_VAR}: {}", e.with_check_hint()));
            }
        }
    }
    let mut rest: Vec<String> = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        if a == "--variants" {
            let file = it.next().ok_or("--variants needs a file")?;
            // Whole or not at all, as over the protocols: a file that
            // `check` refuses is refused here too.
            if let Err(e) = set.load_file_checked(&file) {
                return Err(e.with_check_hint());
            }
        } else {
            rest.push(a);
        }
    }
    let forced = match rest.first().map(String::as_str) {
        Some("--uci") => Some(amalgam::protocol::Protocol::Uci),
        Some("--xboard") => Some(amalgam::protocol::Protocol::Xboard),
        _ => None,
    };
    if rest.is_empty() || forced.is_some() {
        amalgam::protocol::run(amalgam::engine::Engine::with_variants(set), forced);
        return Ok(ExitCode::SUCCESS);
    }
    let Some(command) = rest.first().cloned() else {
        return Ok(ExitCode::SUCCESS);
    };
    let args = &rest[1..];
    match command.as_str() {
        "perft" => perft_command(&set, args),
        "bench" => bench_command(&set, args),
        "go" => go_command(set, args),
        "epd" => epd_command(set, args),
        "selfplay" => selfplay_command(&set, args),
        "openings" => openings_command(&set, args),
        "check" => Ok(check_command(args)),
        "match" => match_command(set, args),
        "pgn" => pgn_command(&set, args),
        "pictures" => pictures_command(&set, args),
        "datagen" => datagen_command(&set, args),
        "tune" => tune_command(&set, args),
        "variants" => {
            for name in set.names() {
                amalgam::outln!("{name}");
            }
            Ok(ExitCode::SUCCESS)
        }
        "help" | "--help" | "-h" => {
            amalgam::outln!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command '{other}'\n{USAGE}")),
    }
}

fn perft_command(set: &VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let mut positional = Vec::new();
    let mut show_divide = false;
    let mut threads = 1usize;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--divide" => show_divide = true,
            "--threads" => {
                i += 1;
                threads = args
                    .get(i)
                    .and_then(|s| s.parse().ok())
                    .filter(|&n| (1..=MAX_THREADS).contains(&n))
                    .ok_or("--threads needs a number from 1 to 256")?;
            }
            a => positional.push(a.to_string()),
        }
        i += 1;
    }
    let [variant, fen, depth] = positional.as_slice() else {
        return Err(format!("perft needs VARIANT FEN|startpos DEPTH\n{USAGE}"));
    };
    let depth: u32 = depth.parse().map_err(|_| format!("bad depth '{depth}'"))?;
    let v = set.compile(variant).map_err(|errors| {
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let pos = if fen == "startpos" {
        Position::startpos(v)
    } else {
        Position::from_fen(v, fen).map_err(|e| format!("bad FEN: {e}"))?
    };
    let start = Instant::now();
    let counts = divide(&pos, depth, threads);
    let elapsed = start.elapsed();
    let nodes: u64 = if depth == 0 {
        1
    } else {
        counts.iter().map(|c| c.1).sum()
    };
    if show_divide {
        for (m, n) in &counts {
            amalgam::outln!("{m}: {n}");
        }
    }
    let secs = elapsed.as_secs_f64();
    let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    amalgam::outln!("Nodes: {nodes}");
    amalgam::outln!("Time: {:.3} s, {:.1} M nodes/s", secs, nps / 1e6);
    Ok(ExitCode::SUCCESS)
}

/// Validate ini files: syntax errors and every variant they define (compiled
/// on top of the built-in file, so a user file may inherit from `chess`).
fn check_command(files: &[String]) -> ExitCode {
    let mut set = VariantSet::builtin();
    let mut errors = Vec::new();
    let mut names: Vec<String> = Vec::new();
    if files.is_empty() {
        names = set.names().to_vec();
        let (_, e) = VariantSet::empty().load_str(
            amalgam::rules::variant::BUILTIN_INI,
            amalgam::rules::variant::BUILTIN_INI_NAME,
        );
        errors.extend(e);
    }
    for f in files {
        match set.load_file(f) {
            Ok((n, e)) => {
                names.extend(n);
                errors.extend(e);
            }
            Err(e) => errors.push(e),
        }
    }
    names.dedup();
    for name in &names {
        if let Err(e) = set.compile(name) {
            errors.extend(e);
        }
    }
    for e in &errors {
        amalgam::outln!("{e}");
    }
    if errors.is_empty() {
        amalgam::outln!("ok: {} variant(s): {}", names.len(), names.join(", "));
        ExitCode::SUCCESS
    } else {
        amalgam::outln!("{} error(s)", errors.len());
        ExitCode::FAILURE
    }
}

/// Split `--flag value` options from positional arguments.
struct Args {
    positional: Vec<String>,
    flags: Vec<(String, String)>,
}

impl Args {
    fn parse(args: &[String], valued: &[&str]) -> Result<Args, String> {
        let mut a = Args {
            positional: Vec::new(),
            flags: Vec::new(),
        };
        let mut i = 0;
        while i < args.len() {
            let x = &args[i];
            if valued.contains(&x.as_str()) {
                let val = args.get(i + 1).ok_or(format!("{x} needs a value"))?;
                a.flags.push((x.clone(), val.clone()));
                i += 2;
            } else if x.starts_with("--") {
                return Err(format!("unknown option {x}"));
            } else {
                a.positional.push(x.clone());
                i += 1;
            }
        }
        Ok(a)
    }

    fn get<T: std::str::FromStr>(&self, flag: &str) -> Result<Option<T>, String> {
        match self.flags.iter().rev().find(|f| f.0 == flag) {
            None => Ok(None),
            Some((_, v)) => v
                .parse()
                .map(Some)
                .map_err(|_| format!("bad value '{v}' for {flag}")),
        }
    }
}

fn bench_command(set: &VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let a = Args::parse(args, &["--depth", "--threads"])?;
    let depth = a
        .get::<u32>("--depth")?
        .unwrap_or(amalgam::engine::bench::BENCH_DEPTH);
    let threads = a.get::<usize>("--threads")?.unwrap_or(1);
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err("--threads needs a number from 1 to 256".into());
    }
    let variant = a.positional.first().map(String::as_str);
    let lines = amalgam::engine::bench::run(set, variant, depth, threads)?;
    let mut nodes = 0;
    let mut time = 0.0;
    for (i, l) in lines.iter().enumerate() {
        amalgam::outln!(
            "Position {:2} {:12} {:>10} nodes {:>8.0} ms  {}",
            i + 1,
            l.variant,
            l.nodes,
            l.time.as_secs_f64() * 1000.0,
            l.fen
        );
        nodes += l.nodes;
        time += l.time.as_secs_f64();
    }
    amalgam::outln!("===========================");
    amalgam::outln!("Total time (ms) : {:.0}", time * 1000.0);
    amalgam::outln!("Nodes searched  : {nodes}");
    let nps = nodes as f64 / time.max(1e-9);
    amalgam::outln!("Nodes/second    : {nps:.0}");
    // The last line in the form that testing frameworks (OpenBench) read.
    amalgam::outln!("{nodes} nodes {nps:.0} nps");
    Ok(ExitCode::SUCCESS)
}

fn limits_from(a: &Args) -> Result<amalgam::engine::search::Limits, String> {
    Ok(amalgam::engine::search::Limits {
        depth: a.get("--depth")?,
        nodes: a.get("--nodes")?,
        movetime: a.get("--movetime")?,
        ..Default::default()
    })
}

fn go_command(set: VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let a = Args::parse(
        args,
        &[
            "--depth",
            "--movetime",
            "--nodes",
            "--threads",
            "--multipv",
            "--hash",
        ],
    )?;
    let [variant, fen] = a.positional.as_slice() else {
        return Err(format!("go needs VARIANT FEN|startpos\n{USAGE}"));
    };
    let mut engine = amalgam::engine::Engine::with_variants(set);
    engine.set_variant(variant).map_err(|e| e.to_string())?;
    engine
        .set_position(if fen == "startpos" { None } else { Some(fen) }, &[])
        .map_err(|e| e.to_string())?;
    engine.set_threads(a.get("--threads")?.unwrap_or(1));
    engine.set_multipv(a.get("--multipv")?.unwrap_or(1));
    if let Some(mb) = a.get::<usize>("--hash")? {
        engine.set_hash_mb(mb).map_err(|e| e.to_string())?;
    }
    let mut limits = limits_from(&a)?;
    if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
        limits.movetime = Some(1000);
    }
    let pos = engine.position().clone();
    let r = engine.go(&limits, &[], &mut |info| {
        amalgam::outln!("{}", amalgam::engine::info_line(&pos, info))
    });
    let text = |m: Option<amalgam::Move>, p: &Position| m.map(|m| p.move_text(m));
    match text(r.best, &pos) {
        None => amalgam::outln!("bestmove (none)"),
        Some(b) => {
            let mut after = pos.clone();
            if let Some(m) = r.best {
                after.make(m);
            }
            match text(r.ponder, &after) {
                Some(p) => amalgam::outln!("bestmove {b} ponder {p}"),
                None => amalgam::outln!("bestmove {b}"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn epd_command(set: VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let a = Args::parse(
        args,
        &["--variant", "--movetime", "--nodes", "--threads", "--hash"],
    )?;
    let [file] = a.positional.as_slice() else {
        return Err(format!("epd needs FILE\n{USAGE}"));
    };
    let variant: String = a.get("--variant")?.unwrap_or_else(|| "chess".to_string());
    // A node limit makes a run independent of the machine's speed and load;
    // without one, each position gets a fixed time.
    let nodes: Option<u64> = a.get("--nodes")?;
    let movetime: Option<u64> = match nodes {
        Some(_) => a.get("--movetime")?,
        None => Some(a.get("--movetime")?.unwrap_or(1000)),
    };
    let text = amalgam::util::textfile::read(file, amalgam::util::textfile::MAX_DATA_BYTES)
        .map_err(|e| format!("{file}: {e}"))?;
    let mut engine = amalgam::engine::Engine::with_variants(set);
    engine.set_variant(&variant).map_err(|e| e.to_string())?;
    engine.set_threads(a.get("--threads")?.unwrap_or(1));
    if let Some(mb) = a.get::<usize>("--hash")? {
        engine.set_hash_mb(mb).map_err(|e| e.to_string())?;
    }
    let v = engine.variant().clone();
    let (mut solved, mut total) = (0, 0);
    let mut failures = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let entry = match amalgam::tools::epd::parse_line(&v, line) {
            Ok(e) => e,
            Err(e) => {
                amalgam::outln!("line {}: skipped: {e}", n + 1);
                continue;
            }
        };
        total += 1;
        engine.new_game();
        engine
            .set_position(Some(&entry.fen), &[])
            .map_err(|e| e.to_string())?;
        let limits = amalgam::engine::search::Limits {
            movetime,
            nodes,
            ..Default::default()
        };
        // The first iteration from which the best line always began with a
        // solving move: (depth, ms, nodes).
        let mut found: Option<(u32, u64, u64)> = None;
        let r = engine.go(&limits, &[], &mut |info| {
            if info.multipv != 1 {
                return;
            }
            match info.pv.first() {
                Some(&m) if entry.solved_by(m) => {
                    found.get_or_insert((info.depth, info.time_ms, info.nodes));
                }
                _ => found = None,
            }
        });
        let mut pos = entry.position.clone();
        let got = r
            .best
            .map(|m| pos.san(m))
            .unwrap_or_else(|| "(none)".into());
        let ok = r.best.is_some_and(|m| entry.solved_by(m));
        if ok {
            solved += 1;
        } else {
            let mut sans = |moves: &[amalgam::rules::types::Move]| {
                moves
                    .iter()
                    .map(|&m| pos.san(m))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let mut wanted = Vec::new();
            if !entry.best.is_empty() {
                wanted.push(format!("best {}", sans(&entry.best)));
            }
            if !entry.avoid.is_empty() {
                wanted.push(format!("avoid {}", sans(&entry.avoid)));
            }
            failures.push(format!(
                "{} {}: played {got}, {}",
                entry.id,
                entry.fen,
                wanted.join(", ")
            ));
        }
        let when = match found {
            Some((depth, ms, n)) if ok => format!(" from depth {depth}, {ms} ms, {n} nodes"),
            _ => String::new(),
        };
        amalgam::outln!(
            "{} {} {got} ({}/{}){when}",
            entry.id,
            if ok { "ok  " } else { "FAIL" },
            solved,
            total
        );
    }
    amalgam::outln!("Failures:");
    for f in &failures {
        amalgam::outln!("  {f}");
    }
    amalgam::outln!("Solved {solved} of {total}");
    Ok(ExitCode::SUCCESS)
}

/// A variant of the set, or its compile errors as one message.
fn compile(set: &VariantSet, name: &str) -> Result<std::sync::Arc<amalgam::Variant>, String> {
    set.compile(name).map_err(|e| {
        e.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    })
}

/// Most games one `datagen` run plays.
const MAX_DATAGEN_GAMES: usize = 100_000_000;

fn datagen_command(set: &VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let a = Args::parse(
        args,
        &[
            "--games",
            "--nodes",
            "--depth",
            "--out",
            "--threads",
            "--seed",
            "--openings",
        ],
    )?;
    let [variant] = a.positional.as_slice() else {
        return Err(format!("datagen needs VARIANT\n{USAGE}"));
    };
    let v = compile(set, variant)?;
    let games: usize = a.get("--games")?.ok_or("datagen needs --games N")?;
    if !(1..=MAX_DATAGEN_GAMES).contains(&games) {
        return Err(format!("--games: from 1 to {MAX_DATAGEN_GAMES}"));
    }
    let limits = limits_from(&a)?;
    if limits.depth.is_none() && limits.nodes.is_none() {
        return Err("datagen needs --nodes K or --depth D".into());
    }
    let threads: usize = a.get("--threads")?.unwrap_or(1);
    if !(1..=MAX_THREADS).contains(&threads) {
        return Err(format!("--threads: from 1 to {MAX_THREADS}"));
    }
    let out: String = a.get("--out")?.ok_or("datagen needs --out FILE")?;
    let openings = match a.get::<String>("--openings")? {
        None => None,
        Some(file) => {
            let text =
                amalgam::util::textfile::read(&file, amalgam::util::textfile::MAX_DATA_BYTES)
                    .map_err(|e| format!("{file}: {e}"))?;
            Some(
                amalgam::tools::openings::from_text(&v, &text)
                    .map_err(|e| format!("{file}: {e}"))?,
            )
        }
    };
    let opts = amalgam::tools::datagen::DatagenOptions {
        games,
        limits,
        threads,
        seed: a.get("--seed")?.unwrap_or(1),
        openings,
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&out)
        .map_err(|e| format!("{out}: {e}"))?;
    let progress = |g: usize, p: usize, secs: f64| {
        let left = secs / g as f64 * (games - g) as f64;
        eprint!(
            "\rgames {g}/{games}, positions {p} ({:.0}/s), {secs:.0} s, about {left:.0} s left   ",
            p as f64 / secs.max(1e-3)
        );
    };
    let summary = amalgam::tools::datagen::run(&v, &opts, &mut file, &progress)?;
    eprintln!();
    for e in &summary.errors {
        eprintln!("error: {e}");
    }
    amalgam::outln!(
        "{} games, {} positions appended to {out}",
        summary.games,
        summary.positions
    );
    Ok(if summary.errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Most epochs one `tune` run may ask for.
const MAX_TUNE_EPOCHS: usize = 100_000;

fn tune_command(set: &VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let a = Args::parse(
        args,
        &[
            "--out",
            "--epochs",
            "--seed",
            "--lambda",
            "--rate",
            "--batch",
            "--validation",
            "--decay",
            "--start",
        ],
    )?;
    let Some((variant, files)) = a.positional.split_first() else {
        return Err(format!("tune needs VARIANT and data files\n{USAGE}"));
    };
    if files.is_empty() {
        return Err(format!("tune needs at least one data file\n{USAGE}"));
    }
    let v = compile(set, variant)?;
    let out: String = a.get("--out")?.ok_or("tune needs --out PARAMS")?;
    let defaults = amalgam::tools::tune::TuneOptions::default();
    let opts = amalgam::tools::tune::TuneOptions {
        epochs: a.get("--epochs")?.unwrap_or(defaults.epochs),
        seed: a.get("--seed")?.unwrap_or(defaults.seed),
        lambda: a.get("--lambda")?.unwrap_or(defaults.lambda),
        rate: a.get("--rate")?.unwrap_or(defaults.rate),
        batch: a.get("--batch")?.unwrap_or(defaults.batch),
        validation: a.get("--validation")?.unwrap_or(defaults.validation),
        decay: a.get("--decay")?.unwrap_or(defaults.decay),
    };
    if !(1..=MAX_TUNE_EPOCHS).contains(&opts.epochs) {
        return Err(format!("--epochs: from 1 to {MAX_TUNE_EPOCHS}"));
    }
    if !(0.0..=1.0).contains(&opts.lambda) {
        return Err("--lambda: from 0 to 1".into());
    }
    if !(0.0..=0.9).contains(&opts.validation) {
        return Err("--validation: from 0 to 0.9".into());
    }
    if !(opts.rate > 0.0 && opts.rate <= 1000.0) {
        return Err("--rate: above 0, at most 1000".into());
    }
    if !(0.0..=1.0e6).contains(&opts.decay) {
        return Err("--decay: from 0 to 1000000".into());
    }
    if !(1..=1 << 24).contains(&opts.batch) {
        return Err("--batch: from 1 to 16777216".into());
    }
    let start = match a.get::<String>("--start")?.as_deref() {
        None | Some("current") => v.eval.params.clone(),
        Some("defaults") => amalgam::engine::eval::default_weights(&v),
        Some(other) => return Err(format!("--start: current or defaults, not '{other}'")),
    };
    let started = std::time::Instant::now();
    let mut samples = Vec::new();
    let mut provenance = Vec::new();
    for file in files {
        let text = amalgam::util::textfile::read(file, amalgam::util::textfile::MAX_TRAINING_BYTES)
            .map_err(|e| format!("{file}: {e}"))?;
        provenance.extend(
            text.lines()
                .filter(|l| l.starts_with('#'))
                .take(20)
                .map(|l| format!("{file}: {}", l.trim_start_matches('#').trim())),
        );
        match amalgam::tools::tune::read_data(&v, &text, file) {
            Ok(s) => samples.extend(s),
            Err(errors) => {
                for e in errors.iter().take(10) {
                    eprintln!("error: {e}");
                }
                return Err(format!(
                    "{file}: {} bad line(s); nothing tuned",
                    errors.len()
                ));
            }
        }
    }
    if samples.is_empty() {
        return Err("no positions in the data files".into());
    }
    eprintln!(
        "{} positions read and traced in {:.1} s",
        samples.len(),
        started.elapsed().as_secs_f64()
    );
    let fit = std::time::Instant::now();
    let mut report_epoch = |e: usize, train: f64, validation: f64| {
        amalgam::outln!("epoch {e}: training loss {train:.6}, validation loss {validation:.6}");
    };
    let report = amalgam::tools::tune::tune(&start, &samples, &opts, &mut report_epoch);
    let secs = fit.elapsed().as_secs_f64();
    let (last_train, last_validation) = report.epochs.last().copied().unwrap_or(report.before);
    let speed = (report.train_positions * opts.epochs) as f64 / secs.max(1e-9);
    let mut header = vec![
        format!("Evaluation weights for {variant}, fitted by amalgam tune."),
        format!(
            "Command: amalgam {}",
            std::iter::once("tune")
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        format!(
            "Positions: {} training, {} validation; epochs {}; K = {:.6}; lambda {}; decay {}",
            report.train_positions,
            report.validation_positions,
            opts.epochs,
            report.k,
            opts.lambda,
            opts.decay
        ),
        format!(
            "Loss before: training {:.6}, validation {:.6}; after: training {last_train:.6}, validation {last_validation:.6}",
            report.before.0, report.before.1
        ),
        "Data:".to_string(),
    ];
    header.extend(provenance);
    let text = report.params.to_text(&header.join("\n"));
    std::fs::write(&out, text).map_err(|e| format!("{out}: {e}"))?;
    amalgam::outln!(
        "K {:.6}; loss before: training {:.6}, validation {:.6}; after: training {last_train:.6}, validation {last_validation:.6}",
        report.k,
        report.before.0,
        report.before.1
    );
    amalgam::outln!(
        "{} positions x {} epochs in {secs:.1} s ({speed:.0} positions x epochs per second); written to {out}",
        report.train_positions,
        opts.epochs
    );
    Ok(ExitCode::SUCCESS)
}

fn pictures_command(set: &VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let a = Args::parse(args, &["--out"])?;
    let [variant] = a.positional.as_slice() else {
        return Err(format!("pictures needs VARIANT\n{USAGE}"));
    };
    let v = compile(set, variant)?;
    let out: String = a.get("--out")?.ok_or("pictures needs --out DIR")?;
    let files = amalgam::protocol::xboard::pictures::pictures(&v);
    if files.is_empty() {
        return Err(format!(
            "variant '{variant}' has no piece table: XBoard draws it with its own men"
        ));
    }
    let dir = std::path::Path::new(&out);
    std::fs::create_dir_all(dir).map_err(|e| format!("{out}: {e}"))?;
    for (name, svg) in &files {
        let path = dir.join(name);
        std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    amalgam::outln!("{} pictures in {out}", files.len());
    Ok(ExitCode::SUCCESS)
}

/// Largest opening suite, plies and node count `openings` accepts.
const MAX_SUITE: usize = 100_000;
const MAX_SUITE_PLIES: usize = 200;
const MAX_SUITE_NODES: u64 = 100_000_000;

fn openings_command(set: &VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let a = Args::parse(
        args,
        &[
            "--count",
            "--plies",
            "--max-score",
            "--seed",
            "--nodes",
            "--out",
        ],
    )?;
    let [variant] = a.positional.as_slice() else {
        return Err(format!("openings needs VARIANT\n{USAGE}"));
    };
    let v = compile(set, variant)?;
    let out: String = a.get("--out")?.ok_or("openings needs --out FILE")?;
    let d = amalgam::tools::openings::SuiteOptions::default();
    let opts = amalgam::tools::openings::SuiteOptions {
        count: a.get("--count")?.unwrap_or(d.count),
        plies: a.get("--plies")?.unwrap_or(d.plies),
        max_score: a.get("--max-score")?.unwrap_or(d.max_score),
        seed: a.get("--seed")?.unwrap_or(d.seed),
        nodes: a.get("--nodes")?.unwrap_or(d.nodes),
    };
    if !(1..=MAX_SUITE).contains(&opts.count) {
        return Err(format!("--count: from 1 to {MAX_SUITE}"));
    }
    if opts.plies > MAX_SUITE_PLIES {
        return Err(format!("--plies: at most {MAX_SUITE_PLIES}"));
    }
    if !(1..=MAX_SUITE_NODES).contains(&opts.nodes) {
        return Err(format!("--nodes: from 1 to {MAX_SUITE_NODES}"));
    }
    if opts.max_score < 0 {
        return Err("--max-score: not negative".into());
    }
    let start = Instant::now();
    let lines = amalgam::tools::openings::generate(&v, &opts, &mut |kept, tried| {
        if kept % 50 == 0 {
            eprintln!(
                "{kept} positions kept of {tried} tried, {:.1} s",
                start.elapsed().as_secs_f64()
            );
        }
    });
    let mut text = format!(
        "# {} openings of {variant}: {} random plies, a {}-node search within {} cp, seed {}\n",
        lines.len(),
        opts.plies,
        opts.nodes,
        opts.max_score,
        opts.seed
    );
    for l in &lines {
        text.push_str(l);
        text.push('\n');
    }
    std::fs::write(&out, text).map_err(|e| format!("{out}: {e}"))?;
    amalgam::outln!(
        "{} positions written to {out} in {:.1} s",
        lines.len(),
        start.elapsed().as_secs_f64()
    );
    if lines.len() < opts.count {
        return Err(format!(
            "only {} of {} positions found within {} cp",
            lines.len(),
            opts.count,
            opts.max_score
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn selfplay_command(set: &VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let a = Args::parse(
        args,
        &[
            "--games",
            "--nodes",
            "--depth",
            "--movetime",
            "--pgn",
            "--seed",
        ],
    )?;
    let [variant] = a.positional.as_slice() else {
        return Err(format!("selfplay needs VARIANT\n{USAGE}"));
    };
    let v = compile(set, variant)?;
    let games: usize = a.get("--games")?.unwrap_or(10);
    // Every game's record is kept until the end.
    if games > amalgam::tools::matches::config::MAX_GAMES {
        return Err(format!(
            "--games: at most {}",
            amalgam::tools::matches::config::MAX_GAMES
        ));
    }
    let limits = limits_from(&a)?;
    if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
        return Err("selfplay needs --nodes, --depth or --movetime".into());
    }
    let seed: u64 = a.get("--seed")?.unwrap_or(1);
    let start = Instant::now();
    let (records, summary) = amalgam::tools::selfplay::run(&v, games, &limits, seed);
    if let Some(path) = a.get::<String>("--pgn")? {
        let mut text = String::new();
        for r in &records {
            text.push_str(
                &amalgam::tools::pgn::write_record(r, v.clone()).map_err(|e| e.to_string())?,
            );
        }
        std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))?;
    }
    amalgam::outln!(
        "{} games in {:.1} s: +{} ={} -{} (White wins, draws, Black wins), {} unterminated",
        records.len(),
        start.elapsed().as_secs_f64(),
        summary.white_wins,
        summary.draws,
        summary.black_wins,
        summary.unterminated
    );
    for (t, n) in &summary.by_termination {
        amalgam::outln!("  {}: {n}", t.describe());
    }
    for e in &summary.errors {
        amalgam::outln!("error: {e}");
    }
    Ok(if summary.errors.is_empty() && summary.unterminated == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn match_command(mut set: VariantSet, args: &[String]) -> Result<ExitCode, String> {
    use amalgam::tools::matches::config::{MatchConfig, USAGE as MATCH_USAGE};
    if args.iter().any(|a| a == "--help" || a == "-h") {
        amalgam::outln!("{MATCH_USAGE}");
        return Ok(ExitCode::SUCCESS);
    }
    let (cfg, variant) = MatchConfig::parse(args, &mut set)?;
    let start = Instant::now();
    let result = amalgam::tools::matches::run(&cfg, variant);
    amalgam::outln!(
        "{} games in {:.1} s",
        result.games,
        start.elapsed().as_secs_f64()
    );
    match result.fatal {
        Some(e) => Err(e),
        None => Ok(ExitCode::SUCCESS),
    }
}

fn pgn_command(set: &VariantSet, args: &[String]) -> Result<ExitCode, String> {
    let [sub, file] = args else {
        return Err(format!("pgn needs: check FILE\n{USAGE}"));
    };
    if sub != "check" {
        return Err(format!("unknown pgn command '{sub}'\n{USAGE}"));
    }
    let text = amalgam::util::textfile::read(file, amalgam::util::textfile::MAX_DATA_BYTES)
        .map_err(|e| format!("{file}: {e}"))?;
    let games = amalgam::tools::matches::pgn::read_games(&text);
    let mut bad = 0;
    let mut plies = 0;
    for (i, g) in games.iter().enumerate() {
        match amalgam::tools::matches::pgn::check_game(set, g) {
            Ok(n) => plies += n,
            Err(e) => {
                bad += 1;
                amalgam::outln!(
                    "game {} ({} - {}): {e}",
                    i + 1,
                    g.tag("White").unwrap_or("?"),
                    g.tag("Black").unwrap_or("?")
                );
            }
        }
    }
    amalgam::outln!(
        "{} game(s), {plies} move(s) checked, {bad} with errors",
        games.len()
    );
    Ok(if bad == 0 && !games.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
