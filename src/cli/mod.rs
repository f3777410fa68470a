//! The command line: `amalgam` with no command speaks UCI or XBoard on
//! standard input; `amalgam COMMAND ...` runs one of the tools (perft,
//! bench, go, epd, selfplay, openings, match, pgn check, pgn stats, datagen,
//! data, tune, train, learn, pictures, check, variants). The options are declared with `clap`, which
//! gives every command its `--help` and one form for usage errors (exit
//! status 2); the commands themselves are thin calls into the layers below.
//!
//! - [`search`]: perft, bench, go, epd
//! - [`games`]: selfplay, openings, match, pgn check, pgn stats, datagen
//! - [`files`]: tune, pictures, check, variants
//! - [`train`]: train, the network trainer
//! - [`learn`]: learn, the self-improvement loop
//! - [`data`]: data convert, data stats

mod data;
mod files;
mod games;
mod learn;
mod search;
mod train;

use crate::engine::eval::Evaluator;
use crate::protocol::StartupError;
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use clap::builder::RangedU64ValueParser;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::process::ExitCode;
use std::sync::Arc;

/// The most threads a command may start (the engine's own limit too).
pub const MAX_THREADS: u64 = 256;

/// The environment variable that names variant files to load at start-up.
const VARIANT_PATH_VAR: &str = "AMALGAM_VARIANT_PATH";

/// What a command ends with: its exit status, or an error for standard
/// error (exit status 2).
type CommandResult = Result<ExitCode, String>;

/// A chess-variant engine: Combination, Team-Mate, Compound and orthodox chess.
#[derive(Parser, Debug)]
#[command(
    name = "amalgam",
    args_override_self = true,
    after_help = "Without a command, amalgam speaks UCI or XBoard on standard input, the \
                  protocol detected from the first command (or forced with --uci or --xboard).\n\
                  Variant files named in AMALGAM_VARIANT_PATH (separated as in PATH) are \
                  loaded before those given with --variants; in the protocol loop, one that \
                  does not load is reported through the protocol and left out."
)]
struct Cli {
    /// Load the variants of an ini file (whole or not at all); may be repeated
    // Read from the words in order by `split_words`: clap keeps only the
    // values after the command when the option also comes before it.
    #[arg(long = "variants", value_name = "FILE", global = true,
          action = clap::ArgAction::Append, display_order = 900)]
    #[allow(dead_code)]
    variant_files: Vec<String>,
    /// Speak UCI on standard input without waiting for `uci`
    #[arg(long, conflicts_with = "xboard")]
    uci: bool,
    /// Speak XBoard on standard input without waiting for `xboard`
    #[arg(long)]
    xboard: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    Perft(search::Perft),
    Bench(search::Bench),
    Go(search::Go),
    Epd(search::Epd),
    Selfplay(games::Selfplay),
    Openings(games::Openings),
    Match(Box<games::Match>),
    Pgn(games::Pgn),
    Datagen(games::Datagen),
    Data(data::Data),
    Tune(files::Tune),
    Train(train::Train),
    Learn(learn::Learn),
    Pictures(files::Pictures),
    Check(files::Check),
    /// List the defined variants
    Variants,
}

/// `--threads`: search threads, from 1 to [`MAX_THREADS`].
#[derive(Args, Debug)]
struct Threads {
    /// Search threads
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_THREADS))]
    threads: usize,
}

/// `--hash`: the size of the hash table.
#[derive(Args, Debug)]
struct Hash {
    /// Hash table size in megabytes
    #[arg(long, value_name = "MB", default_value_t = crate::engine::DEFAULT_HASH_MB,
          value_parser = RangedU64ValueParser::<usize>::new()
              .range(1..=crate::engine::MAX_HASH_MB as u64))]
    hash: usize,
}

/// The search's limits, `--nodes`, `--depth` and `--movetime`: one group,
/// declared once; given together, the search stops at the first reached.
#[derive(Args, Debug)]
#[group(id = "limit", multiple = true)]
struct Limit {
    /// Search to N nodes
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Search to depth D
    #[arg(long, value_name = "D")]
    depth: Option<u32>,
    /// Search for MS milliseconds
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
}

impl Limit {
    fn limits(&self) -> crate::engine::search::Limits {
        crate::engine::search::Limits {
            depth: self.depth,
            nodes: self.nodes,
            movetime: self.movetime,
            ..Default::default()
        }
    }
}

/// An error's text, whatever its type.
fn text<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// `name` refused unless the set defines it, with the names of those it
/// does.
fn known_variant(set: &VariantSet, name: &str) -> Result<(), String> {
    if set.names().iter().any(|n| n == name) {
        return Ok(());
    }
    Err(format!(
        "unknown variant '{name}': the variants are {} (a variant of your own: \
         --variants FILE before the command)",
        set.names().join(", ")
    ))
}

/// A variant of the set with its evaluation tables, or its compile errors
/// as one message.
fn compile(set: &VariantSet, name: &str) -> Result<(Arc<Variant>, Arc<Evaluator>), String> {
    crate::engine::eval::compile(set, name)
        .map_err(|e| e.iter().map(text).collect::<Vec<_>>().join("; "))
}

/// Load a variant file whole or not at all, as over the protocols: a file
/// that `check` refuses is refused here too.
fn load_variants(set: &mut VariantSet, file: &str) -> Result<(), String> {
    crate::engine::eval::load_file_checked(set, file)
        .map(|_| ())
        .map_err(|e| e.with_check_hint())
}

/// What a file of [`VARIANT_PATH_VAR`] that does not load does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BadPathFile {
    /// It ends the command, as a bad `--variants` file does.
    Ends,
    /// It is left out and its error kept: the protocol loop reports it
    /// through the protocol, so that a GUI sees an engine that runs with
    /// the files that loaded rather than one that died.
    LeftOut,
}

/// The built-in variants, those of the files in [`VARIANT_PATH_VAR`], then
/// those of the `--variants` files; with the errors of the files of
/// [`VARIANT_PATH_VAR`] left out (see [`BadPathFile`]).
fn variant_set(
    files: &[String],
    bad: BadPathFile,
) -> Result<(VariantSet, Vec<StartupError>), String> {
    let mut set = VariantSet::builtin();
    let mut left_out = Vec::new();
    if let Some(paths) = std::env::var_os(VARIANT_PATH_VAR) {
        for file in std::env::split_paths(&paths) {
            let file = file.to_string_lossy().into_owned();
            if file.is_empty() {
                continue;
            }
            match bad {
                BadPathFile::Ends => load_variants(&mut set, &file)
                    .map_err(|e| format!("{VARIANT_PATH_VAR}: {e}"))?,
                BadPathFile::LeftOut => {
                    if let Err(error) = crate::engine::eval::load_file_checked(&mut set, &file) {
                        left_out.push(StartupError {
                            named_in: VARIANT_PATH_VAR.to_string(),
                            error,
                        });
                    }
                }
            }
        }
    }
    for file in files {
        load_variants(&mut set, file)?;
    }
    Ok((set, left_out))
}

/// The command line's `--variants` files in order, and its other words
/// (the command's name first).
fn split_words(args: &[OsString]) -> (Vec<String>, Vec<String>) {
    let (mut files, mut words) = (Vec::new(), Vec::new());
    let mut it = args.iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(w) = it.next() {
        if w == "--variants" {
            files.extend(it.next());
        } else if let Some(file) = w.strip_prefix("--variants=") {
            files.push(file.to_string());
        } else {
            words.push(w);
        }
    }
    (files, words)
}

/// The command line's definition: every command and option, for help.
pub fn command() -> clap::Command {
    Cli::command()
}

/// Run the command line `args` (without the program's name).
pub fn run(args: Vec<OsString>) -> ExitCode {
    let parsed = Cli::command()
        .try_get_matches_from(
            std::iter::once(OsString::from("amalgam")).chain(args.iter().cloned()),
        )
        .and_then(|m| Ok((Cli::from_arg_matches(&m)?, m)));
    let cli = match parsed {
        Ok((mut cli, m)) => {
            if let (Some(Command::Match(a)), Some(m)) =
                (&mut cli.command, m.subcommand_matches("match"))
            {
                a.take_engine_groups(m);
            }
            cli
        }
        Err(e) => {
            let code = e.exit_code();
            // Nothing is left to report to when the output is closed.
            let _ = e.print();
            return ExitCode::from(u8::try_from(code).unwrap_or(2));
        }
    };
    match dispatch(cli, &args) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(cli: Cli, args: &[OsString]) -> CommandResult {
    let forced = if cli.uci {
        Some(crate::protocol::Protocol::Uci)
    } else if cli.xboard {
        Some(crate::protocol::Protocol::Xboard)
    } else {
        None
    };
    if cli.command.is_some() && forced.is_some() {
        usage_error(
            &[],
            "--uci and --xboard start the protocol loop: give them without a command",
        );
    }
    let (files, words) = split_words(args);
    let Some(command) = cli.command else {
        let (set, left_out) = variant_set(&files, BadPathFile::LeftOut)?;
        crate::protocol::run(crate::engine::Engine::with_variants(set), forced, left_out);
        return Ok(ExitCode::SUCCESS);
    };
    let (set, _) = variant_set(&files, BadPathFile::Ends)?;
    match command {
        Command::Perft(a) => a.run(&set),
        Command::Bench(a) => a.run(&set),
        Command::Go(a) => a.run(set),
        Command::Epd(a) => a.run(set),
        Command::Selfplay(a) => a.run(&set),
        Command::Openings(a) => a.run(&set),
        Command::Match(a) => a.run(set),
        Command::Pgn(a) => a.run(&set),
        Command::Datagen(a) => a.run(&set),
        Command::Data(a) => a.run(&set),
        Command::Tune(a) => a.run(&set, words.get(1..).unwrap_or_default()),
        Command::Train(a) => a.run(&set, args),
        Command::Learn(a) => a.run(&set, args),
        Command::Pictures(a) => a.run(&set),
        Command::Check(a) => Ok(a.run()),
        Command::Variants => {
            for name in set.names() {
                crate::outln!("{name}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// End with a usage error of the command at `path` (names of commands under
/// `amalgam`), in the form of every other usage error.
fn usage_error(path: &[&str], msg: &str) -> ! {
    let mut cmd = Cli::command();
    cmd.build();
    for name in path {
        match cmd.find_subcommand(name) {
            Some(sub) => cmd = sub.clone(),
            None => break,
        }
    }
    cmd.error(clap::error::ErrorKind::ValueValidation, msg)
        .exit()
}
