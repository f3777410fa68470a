//! Command-line front end: `perft`, `check`, and (later) the protocol loop.

use amalgam::board::Position;
use amalgam::perft::divide;
use amalgam::variant::VariantSet;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage:
  amalgam [--variants FILE]... perft VARIANT FEN|startpos DEPTH [--divide] [--threads N]
  amalgam check [FILE...]        validate ini files (default: the built-in variants.ini)
  amalgam variants               list the defined variants";

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
    let mut rest: Vec<String> = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        if a == "--variants" {
            let file = it.next().ok_or("--variants needs a file")?;
            let (_, errors) = set.load_file(&file).map_err(|e| e.to_string())?;
            if let Some(e) = errors.first() {
                return Err(format!("{e} (run `amalgam check {file}` for every error)"));
            }
        } else {
            rest.push(a);
        }
    }
    let Some(command) = rest.first().cloned() else {
        println!("{USAGE}");
        return Ok(ExitCode::SUCCESS);
    };
    let args = &rest[1..];
    match command.as_str() {
        "perft" => perft_command(&set, args),
        "check" => Ok(check_command(args)),
        "variants" => {
            for name in set.names() {
                println!("{name}");
            }
            Ok(ExitCode::SUCCESS)
        }
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
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
                    .filter(|&n| n >= 1)
                    .ok_or("--threads needs a positive number")?;
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
            println!("{m}: {n}");
        }
    }
    let secs = elapsed.as_secs_f64();
    let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
    println!("Nodes: {nodes}");
    println!("Time: {:.3} s, {:.1} M nodes/s", secs, nps / 1e6);
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
            amalgam::variant::BUILTIN_INI,
            amalgam::variant::BUILTIN_INI_NAME,
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
        println!("{e}");
    }
    if errors.is_empty() {
        println!("ok: {} variant(s): {}", names.len(), names.join(", "));
        ExitCode::SUCCESS
    } else {
        println!("{} error(s)", errors.len());
        ExitCode::FAILURE
    }
}
