//! The commands that play or read whole games: `selfplay`, `openings`,
//! `match`, `pgn check`, `pgn stats` and `datagen`.

use super::{CommandResult, Limit, Threads, compile, text};
use crate::rules::variant_set::VariantSet;
use crate::tools::matches::config::MAX_GAMES;
use crate::tools::openings::SuiteOptions;
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
                  each opening. Give one or more limits: --tc, --movetime, --depth, --nodes.",
    group(clap::ArgGroup::new("match_limit")
        .args(["tc", "movetime", "depth", "nodes"]).required(true).multiple(true))
)]
pub struct Match {
    /// An engine: name=N cmd=C proto=uci|xboard [dir=D] [option.X=V ...] (cmd is a command
    /// line, quoted; option.X=V sets the engine's option X); give two or more
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Append,
          required = true)]
    engine: Vec<String>,
    /// The words of each `--engine`, one group per engine.
    #[arg(skip)]
    engines: Vec<Vec<String>>,
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
    #[arg(long, value_name = "TC", value_parser = time_control)]
    tc: Option<String>,
    /// Milliseconds per move
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// Depth per move
    #[arg(long, value_name = "D")]
    depth: Option<u32>,
    /// Nodes per move
    #[arg(long, value_name = "N")]
    nodes: Option<u64>,
    /// Milliseconds an engine may run past its clock or move time before it loses on time
    #[arg(long, value_name = "MS", default_value_t = 0)]
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
    /// Stop early on a sequential probability ratio test (two engines):
    /// elo0=E0 elo1=E1 alpha=A beta=B
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Set)]
    sprt: Option<Vec<String>>,
    /// Adjudicate a loss when both engines agree for M moves each that one side is at
    /// least CP centipawns behind: movecount=M score=CP
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Set)]
    resign: Option<Vec<String>>,
    /// Adjudicate a draw when from move N on both engines report scores within CP
    /// centipawns of zero for M moves each: movenumber=N movecount=M score=CP
    #[arg(long, value_name = "KEY=VALUE", num_args = 1.., action = ArgAction::Set)]
    draw: Option<Vec<String>>,
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
    #[arg(long, value_name = "K/N", value_parser = shard, allow_hyphen_values = true)]
    shard: Option<String>,
}

/// A part of a match that the match runner reads.
fn shard(s: &str) -> Result<String, String> {
    crate::tools::matches::shard::Shard::parse(s)
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

/// A time control that the match runner reads.
fn time_control(s: &str) -> Result<String, String> {
    crate::tools::matches::limits::TimeControl::parse(s).map(|_| s.to_string())
}

impl Match {
    /// Group the `--engine` words by engine: the derived field holds them
    /// all in one list.
    pub(super) fn take_engine_groups(&mut self, m: &clap::ArgMatches) {
        self.engines = m
            .get_occurrences::<String>("engine")
            .map(|groups| groups.map(|g| g.cloned().collect()).collect())
            .unwrap_or_default();
    }

    /// The options as the match runner's command line reads them.
    fn words(&self) -> Vec<String> {
        let mut w: Vec<String> = Vec::new();
        let mut group = |flag: &str, values: &[String]| {
            w.push(flag.to_string());
            w.extend(values.iter().cloned());
        };
        for e in &self.engines {
            group("--engine", e);
        }
        for file in &self.ini {
            group("--ini", std::slice::from_ref(file));
        }
        let numbers = [
            ("--games", Some(self.games.to_string())),
            ("--concurrency", Some(self.concurrency.to_string())),
            ("--margin", Some(self.margin.to_string())),
            ("--seed", Some(self.seed.to_string())),
            ("--movetime", self.movetime.map(|x| x.to_string())),
            ("--depth", self.depth.map(|x| x.to_string())),
            ("--nodes", self.nodes.map(|x| x.to_string())),
            ("--random-plies", self.random_plies.map(|x| x.to_string())),
        ];
        let strings = [
            ("--variant", Some(&self.variant)),
            ("--pair-promotion", Some(&self.pair_promotion)),
            ("--tc", self.tc.as_ref()),
            ("--openings", self.openings.as_ref()),
            ("--pgn", self.pgn.as_ref()),
            ("--shard", self.shard.as_ref()),
        ];
        for (flag, value) in numbers {
            if let Some(v) = value {
                group(flag, &[v]);
            }
        }
        for (flag, value) in strings {
            if let Some(v) = value {
                group(flag, std::slice::from_ref(v));
            }
        }
        for (flag, words) in [
            ("--sprt", &self.sprt),
            ("--resign", &self.resign),
            ("--draw", &self.draw),
        ] {
            if let Some(words) = words {
                group(flag, words);
            }
        }
        group("--event", &self.event);
        if self.probe {
            group("--probe", &[]);
        }
        w
    }

    pub(super) fn run(&self, mut set: VariantSet) -> CommandResult {
        use crate::tools::matches::config::MatchConfig;
        if self.engines.len() < 2 {
            super::usage_error(&["match"], "a match needs two or more --engine");
        }
        if self.shard.is_some() && self.sprt.is_some() {
            super::usage_error(&["match"], crate::tools::matches::config::SPRT_AND_SHARD);
        }
        let (cfg, variant) = MatchConfig::parse(&self.words(), &mut set).map_err(text)?;
        let start = Instant::now();
        let result = crate::tools::matches::run(&cfg, variant);
        crate::outln!(
            "{} games in {:.1} s",
            result.games,
            start.elapsed().as_secs_f64()
        );
        match result.fatal {
            Some(e) => Err(text(e)),
            None => Ok(ExitCode::SUCCESS),
        }
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
        after_help = "Games with the result * are listed as unfinished and not counted. \
                            Games of one opening pair are found by their GamePair tag, or by \
                            their Round in older files."
    )]
    Stats {
        /// The PGN files
        #[arg(required = true)]
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

fn pgn_stats(files: &[String], sprt: Option<&[String]>, separate: bool) -> CommandResult {
    use crate::tools::matches::pgn_stats::FileRelation;
    use crate::tools::matches::stats::Sprt;
    let sprt = sprt.map(|words| {
        // The runner's test, with alpha and beta at 0.05 unless given.
        let mut all = vec!["alpha=0.05", "beta=0.05"];
        all.extend(words.iter().map(String::as_str));
        Sprt::parse(&all)
            .unwrap_or_else(|e| super::usage_error(&["pgn", "stats"], &format!("--sprt: {e}")))
    });
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
