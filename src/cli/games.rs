//! The commands that play or read whole games: `selfplay`, `openings`,
//! `match`, `pgn check`, `pgn stats` and `datagen`.

use super::{CommandResult, Limit, Threads, compile, text};
use crate::rules::variant_set::VariantSet;
use crate::tools::matches::config::{
    EngineSpec, EngineWord, MAX_GAMES, MatchConfig, OpeningChoice,
};
use crate::tools::matches::limits::{Limits, MAX_TIME_MS, TimeControl};
use crate::tools::matches::referee::{DrawRule, ResignRule, RuleWord};
use crate::tools::matches::shard::Shard;
use crate::tools::matches::stats::{Sprt, SprtParam};
use crate::tools::openings::SuiteOptions;
use crate::util::stop::Stop;
use clap::builder::{RangedI64ValueParser, RangedU64ValueParser};
use clap::{ArgAction, Args, Subcommand};
use std::process::ExitCode;
use std::time::Instant;

/// Largest opening suite, plies and node count `openings` accepts.
const MAX_SUITE: u64 = 100_000;
const MAX_SUITE_PLIES: u64 = 200;
const MAX_SUITE_NODES: u64 = 100_000_000;

/// Most games one `datagen` run plays.
const MAX_DATAGEN_GAMES: u64 = 100_000_000;

/// Play the engine against itself from random openings and count the results
#[derive(Args, Debug)]
#[command(mut_group("limit", |g| g.required(true)))]
pub struct Selfplay {
    /// The variant
    variant: String,
    /// Games to play (every game's record is kept until the end)
    #[arg(long, value_name = "N", default_value_t = 10,
          value_parser = RangedU64ValueParser::<usize>::new().range(0..=MAX_GAMES as u64))]
    games: usize,
    #[command(flatten)]
    limit: Limit,
    /// Write the games to this PGN file
    #[arg(long, value_name = "FILE")]
    pgn: Option<String>,
    /// Seed of the random openings
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
}

impl Selfplay {
    pub(super) fn run(&self, set: &VariantSet) -> CommandResult {
        let (v, eval) = compile(set, &self.variant)?;
        let games = self.games;
        let limits = self.limit.limits();
        let start = Instant::now();
        let (records, summary) = crate::tools::selfplay::run(&v, &eval, games, &limits, self.seed);
        if let Some(path) = &self.pgn {
            let mut text = String::new();
            for r in &records {
                text.push_str(&crate::tools::pgn::write_record(r, v.clone()).map_err(super::text)?);
            }
            std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))?;
        }
        crate::outln!(
            "{} games in {:.1} s: +{} ={} -{} (White wins, draws, Black wins), {} unterminated",
            records.len(),
            start.elapsed().as_secs_f64(),
            summary.white_wins,
            summary.draws,
            summary.black_wins,
            summary.unterminated
        );
        for (t, n) in &summary.by_termination {
            crate::outln!("  {}: {n}", t.describe());
        }
        for e in &summary.errors {
            crate::outln!("error: {e}");
        }
        Ok(if summary.errors.is_empty() && summary.unterminated == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }
}

/// Write an opening suite of positions after random plies
#[derive(Args, Debug)]
#[command(after_help = "The positions are distinct, and a search scores each within CP of equal.")]
pub struct Openings {
    /// The variant
    variant: String,
    /// Positions to find
    #[arg(long, value_name = "N", default_value_t = SuiteOptions::default().count,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_SUITE))]
    count: usize,
    /// Random plies from the start position
    #[arg(long, value_name = "P", default_value_t = SuiteOptions::default().plies,
          value_parser = RangedU64ValueParser::<usize>::new().range(0..=MAX_SUITE_PLIES))]
    plies: usize,
    /// Largest score kept, in centipawns (either side)
    #[arg(long, value_name = "CP", default_value_t = SuiteOptions::default().max_score,
          value_parser = RangedI64ValueParser::<i32>::new().range(0..))]
    max_score: i32,
    /// Seed of the random plies
    #[arg(long, value_name = "S", default_value_t = SuiteOptions::default().seed)]
    seed: u64,
    /// Nodes of the search that scores each position
    #[arg(long, value_name = "K", default_value_t = SuiteOptions::default().nodes,
          value_parser = RangedU64ValueParser::<u64>::new().range(1..=MAX_SUITE_NODES))]
    nodes: u64,
    /// The suite's file (overwritten)
    #[arg(long, value_name = "FILE")]
    out: String,
}

impl Openings {
    pub(super) fn run(&self, set: &VariantSet) -> CommandResult {
        let variant = &self.variant;
        let (v, eval) = compile(set, variant)?;
        let out = &self.out;
        let opts = SuiteOptions {
            count: self.count,
            plies: self.plies,
            max_score: self.max_score,
            seed: self.seed,
            nodes: self.nodes,
        };
        let start = Instant::now();
        let lines = crate::tools::openings::generate(&v, &eval, &opts, &mut |kept, tried| {
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
        std::fs::write(out, text).map_err(|e| format!("{out}: {e}"))?;
        crate::outln!(
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
}

/// Play a match between engines that speak UCI or XBoard
#[derive(Args, Debug)]
#[command(
    after_help = "Every pairing of two or more engines plays its games with both colours from \
                  each opening. Give one or more limits: --tc, --movetime, --depth, --nodes. \
                  An engine that does not offer the variant or an option given it, or that \
                  answers an option with an error, is refused before the first game. SIGINT \
                  or SIGTERM stops the match, its PGN holding only whole games; the same \
                  command with --resume plays the rest.",
    group(clap::ArgGroup::new("match_limit")
        .args(["tc", "movetime", "depth", "nodes"]).required(true).multiple(true))
)]
pub struct Match {
    /// An engine: name=N cmd=C proto=uci|xboard [dir=D] [option.X=V ...] (cmd is a command
    /// line, quoted; option.X=V sets the engine's option X); give two or more
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append,
          required = true, value_parser = EngineWord::parse)]
    engine: Vec<EngineWord>,
    /// The words of each `--engine`, one group per engine.
    #[arg(skip)]
    engines: Vec<Vec<EngineWord>>,
    /// The variant played
    #[arg(long, value_name = "V", default_value = "chess")]
    variant: String,
    /// Games per pairing of engines
    #[arg(long, value_name = "N", default_value_t = 2,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_GAMES as u64))]
    games: usize,
    /// Games played at once
    #[arg(long, value_name = "K", default_value_t = 1)]
    concurrency: usize,
    /// Time control: [MOVES/]BASE+INC in seconds (e.g. 10+0.1 or 40/60+0)
    #[arg(long, value_name = "TC", value_parser = TimeControl::parse)]
    tc: Option<TimeControl>,
    /// Milliseconds per move
    #[arg(long, value_name = "MS",
          value_parser = RangedU64ValueParser::<u64>::new().range(0..=MAX_TIME_MS))]
    movetime: Option<u64>,
    /// Depth per move
    #[arg(long, value_name = "D")]
    depth: Option<u32>,
    /// Nodes per move (UCI engines only)
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Milliseconds an engine may run past its clock or move time before it loses on time
    #[arg(long, value_name = "MS", default_value_t = 0,
          value_parser = RangedU64ValueParser::<u64>::new().range(0..=MAX_TIME_MS))]
    margin: u64,
    /// Openings from a FEN or EPD file, one a line (default: the variant's shipped suite,
    /// else the start position)
    #[arg(long, value_name = "FILE", conflicts_with = "random_plies")]
    openings: Option<String>,
    /// Openings of P random plies instead
    #[arg(long, value_name = "P")]
    random_plies: Option<usize>,
    /// Seed of the random plies, or where the shipped suite is entered
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Write the games to this PGN file
    #[arg(long, value_name = "FILE")]
    pgn: Option<String>,
    /// Continue the match whose games are already in the --pgn file (one stopped, or cut
    /// short): play only the games it lacks (a last game cut short is played again)
    #[arg(long, requires = "pgn")]
    resume: bool,
    /// Stop early on a sequential probability ratio test (two engines):
    /// elo0=E0 elo1=E1 [alpha=A] [beta=B] (alpha and beta 0.05 unless given)
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Set,
          value_parser = SprtParam::parse)]
    sprt: Option<Vec<SprtParam>>,
    /// Adjudicate a loss when both engines agree for M moves each that one side is at
    /// least CP centipawns behind: movecount=M score=CP
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Set,
          value_parser = RuleWord::parse)]
    resign: Option<Vec<RuleWord>>,
    /// Adjudicate a draw when from move N on both engines report scores within CP
    /// centipawns of zero for M moves each: movenumber=N movecount=M score=CP
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Set,
          value_parser = RuleWord::parse)]
    draw: Option<Vec<RuleWord>>,
    /// Pair promotion of the variant on or off
    #[arg(long, value_name = "on|off", default_value = "on",
          value_parser = ["on", "off"])]
    pair_promotion: String,
    /// Load the variants of an ini file for the referee; may be repeated
    #[arg(long, value_name = "FILE", action = ArgAction::Append)]
    ini: Vec<String>,
    /// The Event tag of the games
    #[arg(long, value_name = "NAME", num_args = 1.., action = ArgAction::Set,
          default_value = "Amalgam match")]
    event: Vec<String>,
    /// Send isready/ping while engines think and report the longest answer
    #[arg(long)]
    probe: bool,
    /// Play part K of N disjoint parts of the match, cut by game pair (an opening with both
    /// colours); merge the parts' PGN files with `amalgam pgn stats`
    #[arg(long, value_name = "K/N", value_parser = Shard::parse, allow_hyphen_values = true)]
    shard: Option<Shard>,
}

/// The value that the words of an option `flag` (if given) make.
fn group<W, T, E: std::fmt::Display>(
    flag: &str,
    words: &Option<Vec<W>>,
    make: impl Fn(&[W]) -> Result<T, E>,
) -> Result<Option<T>, String> {
    words
        .as_deref()
        .map(make)
        .transpose()
        .map_err(|e| format!("{flag}: {e}"))
}

impl Match {
    /// Group the `--engine` words by engine: the derived field holds them
    /// all in one list.
    pub(super) fn take_engine_groups(&mut self, m: &clap::ArgMatches) {
        self.engines = m
            .get_occurrences::<EngineWord>("engine")
            .map(|groups| groups.map(|g| g.cloned().collect()).collect())
            .unwrap_or_default();
    }

    /// The match the options describe; an error is in the command line.
    fn config(&self) -> Result<MatchConfig, String> {
        let engines = self
            .engines
            .iter()
            .map(|words| EngineSpec::from_words(words))
            .collect::<Result<Vec<_>, _>>()
            .map_err(text)?;
        let sprt = group("--sprt", &self.sprt, Sprt::from_params)?;
        let resign = group("--resign", &self.resign, ResignRule::from_words)?;
        let draw = group("--draw", &self.draw, DrawRule::from_words)?;
        let openings = match (&self.openings, self.random_plies) {
            (Some(file), _) => OpeningChoice::File(file.clone()),
            (None, Some(plies)) => OpeningChoice::Random {
                plies,
                seed: self.seed,
            },
            (None, None) => OpeningChoice::Shipped { seed: self.seed },
        };
        let cfg = MatchConfig {
            engines,
            variant: self.variant.clone(),
            pair_promotion: self.pair_promotion == "on",
            games: self.games,
            concurrency: self.concurrency,
            limits: Limits {
                clock: self.tc,
                movetime_ms: self.movetime,
                depth: self.depth,
                nodes: self.nodes,
            },
            margin_ms: self.margin,
            probe: self.probe,
            openings,
            pgn: self.pgn.clone(),
            resume: self.resume,
            sprt,
            resign,
            draw,
            event: self.event.join(" "),
            shard: self.shard,
            ini: self.ini.clone(),
        };
        cfg.check().map_err(text)?;
        Ok(cfg)
    }

    pub(super) fn run(&self, mut set: VariantSet) -> CommandResult {
        let cfg = self
            .config()
            .unwrap_or_else(|e| super::usage_error(&["match"], &e));
        let prepared = cfg.prepare(&mut set).map_err(text)?;
        let stop =
            Stop::on_signals().map_err(|e| format!("cannot catch SIGINT and SIGTERM: {e}"))?;
        let start = Instant::now();
        let result = crate::tools::matches::run(&cfg, prepared, &stop);
        crate::outln!(
            "{} games in {:.1} s",
            result.games,
            start.elapsed().as_secs_f64()
        );
        if let Some(e) = result.fatal {
            return Err(text(e));
        }
        if result.stopped {
            let signal = stop.signal();
            let done = result.resumed + result.games;
            let rest = match &cfg.pgn {
                Some(path) => format!(
                    "{path} holds them, each whole; the same command with --resume plays the rest"
                ),
                None => "without --pgn the match cannot be resumed".to_string(),
            };
            eprintln!(
                "match stopped{} after {done} of its {} games: {rest}",
                signal.map_or(String::new(), |s| format!(" by {s}")),
                result.scheduled
            );
            return Ok(ExitCode::from(
                signal.map_or(1, crate::util::stop::StopSignal::exit_status),
            ));
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// Read PGN files
#[derive(Args, Debug)]
pub struct Pgn {
    #[command(subcommand)]
    command: PgnCommand,
}

#[derive(Subcommand, Debug)]
enum PgnCommand {
    /// Replay every game of a PGN file with the rules and verify it
    Check {
        /// The PGN file
        file: String,
    },
    /// Merge the match runner's PGN files (e.g. the parts of a match played with --shard)
    /// and print the match's results, pentanomial counts and SPRT
    #[command(
        override_usage = "amalgam pgn stats FILE... [--sprt elo0=E0 elo1=E1 [alpha=A] [beta=B]] \
                          [--separate]",
        after_help = "Games with the result * are listed as unfinished and not counted. \
                            Games of one opening pair are found by their GamePair tag, or by \
                            their Round in older files. Files may come before or after the \
                            options."
    )]
    Stats {
        /// The PGN files
        #[arg(value_name = "FILE")]
        files: Vec<String>,
        /// A sequential probability ratio test of the two engines' results:
        /// elo0=E0 elo1=E1 [alpha=A] [beta=B] (alpha and beta 0.05 unless given)
        #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Set)]
        sprt: Option<Vec<String>>,
        /// The files are separate matches (another seed, or a match continued),
        /// not the parts of one: each file's game pairs are its own
        #[arg(long)]
        separate: bool,
    },
}

impl Pgn {
    pub(super) fn run(&self, set: &VariantSet) -> CommandResult {
        match &self.command {
            PgnCommand::Check { file } => check_pgn(set, file),
            PgnCommand::Stats {
                files,
                sprt,
                separate,
            } => pgn_stats(files, sprt.as_deref(), *separate),
        }
    }
}

fn read_pgn(file: &str) -> Result<String, String> {
    crate::util::textfile::read(file, crate::util::textfile::MAX_DATA_BYTES)
        .map_err(|e| format!("{file}: {e}"))
}

fn check_pgn(set: &VariantSet, file: &str) -> CommandResult {
    let text = read_pgn(file)?;
    let games = crate::tools::matches::pgn::read_games(&text);
    let mut bad = 0;
    let mut plies = 0;
    for (i, g) in games.iter().enumerate() {
        match crate::tools::matches::pgn::check_game(set, g) {
            Ok(n) => plies += n,
            Err(e) => {
                bad += 1;
                crate::outln!(
                    "game {} ({} - {}): {e}",
                    i + 1,
                    g.tag("White").unwrap_or("?"),
                    g.tag("Black").unwrap_or("?")
                );
            }
        }
    }
    crate::outln!(
        "{} game(s), {plies} move(s) checked, {bad} with errors",
        games.len()
    );
    Ok(if bad == 0 && !games.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The words after `--sprt`: its `key=value` words first, then the files
/// that follow them on the command line (clap gives the option every word
/// up to the next option).
fn sprt_and_files(words: &[String]) -> (&[String], &[String]) {
    let params = words.iter().take_while(|w| w.contains('=')).count();
    words.split_at(params)
}

fn pgn_stats(files: &[String], sprt: Option<&[String]>, separate: bool) -> CommandResult {
    use crate::tools::matches::pgn_stats::FileRelation;
    let usage = |msg: &str| -> ! { super::usage_error(&["pgn", "stats"], msg) };
    let (sprt, more_files) = match sprt {
        Some(words) => {
            let (params, more) = sprt_and_files(words);
            let test = Sprt::parse(&params.iter().map(String::as_str).collect::<Vec<_>>())
                .unwrap_or_else(|e| usage(&format!("--sprt: {e}")));
            (Some(test), more)
        }
        None => (None, &[][..]),
    };
    let files: Vec<String> = files.iter().chain(more_files).cloned().collect();
    if files.is_empty() {
        usage("give one or more PGN files");
    }
    let files = files.as_slice();
    let mut texts = Vec::new();
    for file in files {
        texts.push((file.clone(), read_pgn(file)?));
    }
    let relation = if separate {
        FileRelation::Runs
    } else {
        FileRelation::Parts
    };
    let merged = crate::tools::matches::pgn_stats::merge(&texts, relation).map_err(text)?;
    let results = &merged.results;
    for (file, n) in files.iter().zip(&merged.games_per_file) {
        crate::outln!("{file}: {n} game{}", if *n == 1 { "" } else { "s" });
    }
    let games: usize = merged.games_per_file.iter().sum();
    if games == 0 {
        return Err("no games in the files".into());
    }
    let names = results.names();
    if sprt.is_some() && names.len() != 2 {
        return Err(format!(
            "--sprt needs exactly two engines; the games have {}: {}",
            names.len(),
            names.join(", ")
        ));
    }
    crate::outln!(
        "{games} games of {}, {} unfinished",
        names.join(", "),
        merged.unfinished.len()
    );
    crate::outln!();
    for line in results.summary(sprt) {
        crate::outln!("{line}");
    }
    for u in &merged.unfinished {
        crate::outln!(
            "Unfinished: Round {} {} - {} ({}), not counted",
            u.round,
            u.white,
            u.black,
            u.place
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Append self-play training data to a file
#[derive(Args, Debug)]
#[command(after_help = "Quiet positions of the games, each with its score and the game's result.")]
pub struct Datagen {
    /// The variant
    variant: String,
    /// Games to play
    #[arg(long, value_name = "N",
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_DATAGEN_GAMES))]
    games: usize,
    #[command(flatten)]
    limit: DatagenLimit,
    /// The data file (appended to)
    #[arg(long, value_name = "FILE")]
    out: String,
    /// The data format (default: binary for a FILE ending in .bin, else text)
    #[arg(long, value_enum)]
    format: Option<super::data::FormatArg>,
    #[command(flatten)]
    threads: Threads,
    /// Seed of the openings' random plies
    #[arg(long, value_name = "S", default_value_t = 1)]
    seed: u64,
    /// Start the games from these openings (default: the variant's shipped
    /// suite, else random plies)
    #[arg(long, value_name = "FILE")]
    openings: Option<String>,
}

/// The search of each move: to a node count or a depth, never a time, so
/// that a run does not depend on the machine; given both, each search stops
/// at the first reached.
#[derive(Args, Debug)]
#[group(required = true, multiple = true)]
struct DatagenLimit {
    /// Search each move to K nodes
    #[arg(long, value_name = "K")]
    nodes: Option<u64>,
    /// Search each move to depth D
    #[arg(long, value_name = "D")]
    depth: Option<u32>,
}

impl Datagen {
    pub(super) fn run(&self, set: &VariantSet) -> CommandResult {
        let (v, eval) = compile(set, &self.variant)?;
        let games = self.games;
        let limits = crate::engine::search::Limits {
            depth: self.limit.depth,
            nodes: self.limit.nodes,
            ..Default::default()
        };
        let out = &self.out;
        let openings = match &self.openings {
            None => None,
            Some(file) => {
                let text = crate::util::textfile::read(file, crate::util::textfile::MAX_DATA_BYTES)
                    .map_err(|e| format!("{file}: {e}"))?;
                Some(
                    crate::tools::openings::from_text(&v, &text)
                        .map_err(|e| format!("{file}: {e}"))?,
                )
            }
        };
        let format = super::data::format_of(self.format, out);
        let new_file = super::data::check_appendable(out, &v, format)?;
        let opts = crate::tools::datagen::DatagenOptions {
            games,
            limits,
            threads: self.threads.threads,
            seed: self.seed,
            openings,
            format,
            new_file,
            stop: crate::util::stop::Stop::new(),
        };
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(out)
            .map_err(|e| format!("{out}: {e}"))?;
        let progress = |g: usize, p: usize, secs: f64| {
            let left = secs / g as f64 * (games - g) as f64;
            eprint!(
                "\rgames {g}/{games}, positions {p} ({:.0}/s), {secs:.0} s, about {left:.0} s left   ",
                p as f64 / secs.max(1e-3)
            );
        };
        let summary =
            crate::tools::datagen::run(&v, &eval, &opts, &mut file, &progress).map_err(text)?;
        eprintln!();
        for e in &summary.errors {
            eprintln!("error: {e}");
        }
        crate::outln!(
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::matches::config::Proto;
    use clap::{CommandFactory, FromArgMatches};

    /// A command line as a shell splits it (white space, double quotes).
    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut word = String::new();
        let (mut quoted, mut any) = (false, false);
        for c in text.chars() {
            match c {
                '"' => (quoted, any) = (!quoted, true),
                c if c.is_whitespace() && !quoted => {
                    if any {
                        out.push(std::mem::take(&mut word));
                    }
                    any = false;
                }
                c => {
                    word.push(c);
                    any = true;
                }
            }
        }
        if any {
            out.push(word);
        }
        out
    }

    /// The match of `amalgam match LINE`, or the error that refuses it.
    fn match_of(line: &str) -> Result<MatchConfig, String> {
        let args = ["amalgam", "match"].map(String::from).into_iter();
        let m = super::super::Cli::command()
            .try_get_matches_from(args.chain(words(line)))
            .map_err(text)?;
        let sub = m.subcommand_matches("match").ok_or("no match")?;
        let mut a = Match::from_arg_matches(sub).map_err(text)?;
        a.take_engine_groups(sub);
        a.config()
    }

    #[test]
    fn the_command_line_builds_the_match() {
        // --sprt and --shard do not go together.
        let e = match_of(
            "--engine cmd=a proto=uci --engine cmd=b proto=uci --tc 1+0 --sprt elo0=0 elo1=5 \
             --shard 2/3",
        )
        .unwrap_err();
        assert!(e.contains("--sprt stops a whole match early"), "{e}");
        let cfg = match_of(
            r#"--engine name=A "cmd=amalgam --uci" proto=uci option.Hash=16 "option.Move Overhead=10"
               --engine name=B cmd=fairymax proto=xboard dir=/tmp
               --variant team-mate --pair-promotion off --games 4 --tc 40/60+0.5
               --random-plies 4 --seed 9 --sprt elo0=0 elo1=5 beta=0.1
               --resign movecount=3 score=1000 --draw movenumber=40 movecount=8 score=10
               --pgn x.pgn --resume --event Long match"#,
        )
        .unwrap();
        assert_eq!(cfg.engines.len(), 2);
        assert_eq!(cfg.engines[0].launch.command, "amalgam --uci");
        assert_eq!(
            cfg.engines[0].options[1],
            ("Move Overhead".into(), "10".into())
        );
        assert_eq!(cfg.engines[1].proto, Proto::Xboard);
        assert_eq!(cfg.engines[1].launch.dir.as_deref(), Some("/tmp"));
        assert!(!cfg.pair_promotion);
        assert_eq!(cfg.limits.clock.map(|c| c.moves), Some(Some(40)));
        let sprt = cfg.sprt.unwrap();
        assert_eq!((sprt.elo1, sprt.alpha, sprt.beta), (5.0, 0.05, 0.1));
        assert_eq!(
            cfg.resign,
            Some(ResignRule {
                movecount: 3,
                score: 1000
            })
        );
        assert_eq!(cfg.draw.map(|d| d.movenumber), Some(40));
        assert_eq!(cfg.openings, OpeningChoice::Random { plies: 4, seed: 9 });
        assert!(cfg.resume);
        assert_eq!(cfg.event, "Long match");
        let part = match_of(
            "--engine cmd=a proto=uci --engine cmd=b proto=uci --tc 1+0 --shard 2/3 --nodes 5",
        )
        .unwrap();
        assert_eq!(part.shard.map(|s| s.to_string()), Some("2/3".into()));
        assert_eq!(part.engines[1].name, "b");
    }

    #[test]
    fn each_bad_line_is_refused() {
        let two = "--engine cmd=a proto=uci --engine cmd=b proto=uci";
        for (bad, what) in [
            ("--engine cmd=a proto=uci --tc 1+0", "two or more --engine"),
            (two, "required arguments"),
            (&format!("{two} --tc 1+0 --games x"), "invalid value 'x'"),
            (&format!("{two} --tc 1+0 --games 1000001"), "--games"),
            (
                &format!("{two} --engine cmd=c proto=uci --tc 1+0 --games 400000"),
                "at most 1000000 games",
            ),
            (&format!("{two} --tc 1+0 --bogus"), "--bogus"),
            (&format!("{two} --tc 1+0 --shard 3/2"), "part 3 of 2"),
            (&format!("{two} --tc 1+0 --resume"), "--pgn"),
            (&format!("{two} --tc fast"), "bad time control"),
            (&format!("{two} --movetime 10000000001"), "--movetime"),
            (
                &format!("{two} --tc 1+0 --sprt elo0=0"),
                "--sprt: elo1 is needed",
            ),
            (
                &format!("{two} --tc 1+0 --sprt elo0=0 elo1"),
                "expected key=value",
            ),
            (
                &format!("{two} --tc 1+0 --resign score=5"),
                "--resign: movecount= is needed",
            ),
            (
                &format!("{two} --tc 1+0 --draw movenumber=-1 movecount=1 score=1"),
                "movenumber: -1",
            ),
            (
                &format!("{two} --tc 1+0 --resign movecount=1 score=1 x=2"),
                "unknown key 'x'",
            ),
            (
                "--engine cmd=a proto=uci --engine cmd=a proto=uci --tc 1+0",
                "two engines are named 'a'",
            ),
            (
                "--engine cmd=a proto=telnet --engine cmd=b proto=uci --tc 1+0",
                "unknown protocol 'telnet'",
            ),
            (
                "--engine cmd=a --engine cmd=b proto=uci --tc 1+0",
                "proto=uci or proto=xboard",
            ),
            (
                "--engine proto=uci --engine cmd=b proto=uci --tc 1+0",
                "cmd=COMMAND",
            ),
            (
                "--engine cmd=a proto=uci colour=red --engine cmd=b proto=uci --tc 1+0",
                "unknown key 'colour'",
            ),
            (
                "--engine cmd=a proto=xboard --engine cmd=b proto=uci --nodes 100",
                "--nodes cannot be given over the XBoard protocol (engine a)",
            ),
        ] {
            let e = match_of(bad).err().unwrap_or_default();
            assert!(e.contains(what), "{bad}: {e}");
        }
    }

    #[test]
    fn sprt_words_end_where_the_files_begin() {
        let w = words("elo0=0 elo1=5 a.pgn b=c.pgn");
        let (sprt, files) = sprt_and_files(&w);
        assert_eq!((sprt.len(), files), (2, &w[2..]));
    }
}
