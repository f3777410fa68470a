//! What a match is: engines, variant, games, limits, openings, output,
//! adjudication. The command line builds it from typed values; the rules
//! that tie options together are checked here, once.

use super::engine_proc::Launch;
use super::errors::ConfigError;
use super::limits::Limits;
use super::referee::{DrawRule, ResignRule};
use super::shard::Shard;
use super::stats::Sprt;
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use crate::tools::openings::{self, Opening};
use std::sync::Arc;

/// The most games one match may schedule.
pub const MAX_GAMES: usize = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proto {
    Uci,
    Xboard,
}

/// One engine of the match.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    pub name: String,
    pub launch: Launch,
    pub proto: Proto,
    pub options: Vec<(String, String)>,
}

/// One `key=value` word of an engine's description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineWord {
    Name(String),
    Cmd(String),
    Dir(String),
    Proto(Proto),
    /// `option.X=V`: the engine's option X set to V.
    Option(String, String),
}

impl EngineWord {
    /// Read `name=N`, `cmd=C`, `dir=D`, `proto=uci|xboard` or `option.X=V`.
    pub fn parse(word: &str) -> Result<EngineWord, String> {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, got '{word}'"))?;
        let v = v.to_string();
        Ok(match k {
            "name" => EngineWord::Name(v),
            "cmd" => EngineWord::Cmd(v),
            "dir" => EngineWord::Dir(v),
            "proto" => EngineWord::Proto(match v.as_str() {
                "uci" => Proto::Uci,
                "xboard" => Proto::Xboard,
                _ => return Err(format!("unknown protocol '{v}' (uci or xboard)")),
            }),
            _ => match k.strip_prefix("option.") {
                Some(o) if !o.is_empty() => EngineWord::Option(o.to_string(), v),
                _ => {
                    return Err(format!(
                        "unknown key '{k}' (name, cmd, dir, proto or option.X)"
                    ));
                }
            },
        })
    }
}

impl EngineSpec {
    /// The engine the words of one `--engine` describe (a later word of a
    /// key replaces an earlier one); unnamed, it is named by its command.
    pub fn from_words(words: &[EngineWord]) -> Result<EngineSpec, ConfigError> {
        let (mut name, mut command, mut dir, mut proto) = (None, None, None, None);
        let mut options = Vec::new();
        for w in words {
            match w {
                EngineWord::Name(n) => name = Some(n.clone()),
                EngineWord::Cmd(c) => command = Some(c.clone()),
                EngineWord::Dir(d) => dir = Some(d.clone()),
                EngineWord::Proto(p) => proto = Some(*p),
                EngineWord::Option(k, v) => options.push((k.clone(), v.clone())),
            }
        }
        let command: String = command.ok_or(ConfigError::EngineNeeds {
            what: "cmd=COMMAND",
        })?;
        Ok(EngineSpec {
            name: name.unwrap_or_else(|| command.clone()),
            proto: proto.ok_or(ConfigError::EngineNeeds {
                what: "proto=uci or proto=xboard",
            })?,
            launch: Launch { command, dir },
            options,
        })
    }
}

/// Where the games' openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningChoice {
    /// The variant's shipped suite (entered at a place the seed picks),
    /// else the start position.
    Shipped { seed: u64 },
    /// A FEN or EPD file.
    File(String),
    /// Random plies from the start position.
    Random { plies: usize, seed: u64 },
}

#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub engines: Vec<EngineSpec>,
    pub variant: String,
    pub pair_promotion: bool,
    /// Games per pairing of engines.
    pub games: usize,
    pub concurrency: usize,
    pub limits: Limits,
    pub margin_ms: u64,
    /// Send `isready`/`ping` while engines think and report the longest answer.
    pub probe: bool,
    pub openings: OpeningChoice,
    pub pgn: Option<String>,
    /// Continue the match whose games are already in the PGN file.
    pub resume: bool,
    pub sprt: Option<Sprt>,
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
    pub event: String,
    /// Play only this part of the schedule.
    pub shard: Option<Shard>,
    /// Variant files for the referee, loaded before the variant is compiled.
    pub ini: Vec<String>,
}

/// What a match plays, read from its configuration's files.
pub struct Prepared {
    /// The variant the referee plays.
    pub variant: Arc<Variant>,
    pub openings: Vec<Opening>,
}

impl MatchConfig {
    /// Check the rules that tie the options together.
    pub fn check(&self) -> Result<(), ConfigError> {
        let n = self.engines.len();
        if n < 2 {
            return Err(ConfigError::TooFewEngines);
        }
        // Every pairing plays `games` games, all scheduled up front.
        let total = n
            .checked_mul(n - 1)
            .and_then(|p| (p / 2).checked_mul(self.games));
        if total.is_none_or(|t| t > MAX_GAMES) {
            return Err(ConfigError::TooManyGames { most: MAX_GAMES });
        }
        if self.sprt.is_some() && n != 2 {
            return Err(ConfigError::SprtEngines);
        }
        if self.sprt.is_some() && self.shard.is_some() {
            return Err(ConfigError::SprtWithShard);
        }
        if self.resume && self.pgn.is_none() {
            return Err(ConfigError::ResumeWithoutPgn);
        }
        // The PGN tells the engines apart by name.
        for (i, e) in self.engines.iter().enumerate() {
            if self.engines[..i].iter().any(|o| o.name == e.name) {
                return Err(ConfigError::SameName(e.name.clone()));
            }
            if self.limits.nodes.is_some() && e.proto == Proto::Xboard {
                return Err(ConfigError::NodesOverXboard {
                    engine: e.name.clone(),
                });
            }
        }
        Ok(())
    }

    /// Load the `ini` files into `set`, compile the variant and read the
    /// openings.
    pub fn prepare(&self, set: &mut VariantSet) -> Result<Prepared, ConfigError> {
        for file in &self.ini {
            // Whole or not at all, as over the protocols: a file that
            // `check` refuses is refused here too.
            crate::engine::eval::load_file_checked(set, file)
                .map_err(|e| ConfigError::Ini(e.with_check_hint()))?;
        }
        let mut variant = set.compile(&self.variant).map_err(|e| {
            ConfigError::Variant(
                e.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        if !self.pair_promotion {
            if !variant.has_pair_promotion() {
                return Err(ConfigError::NoPairPromotion(self.variant.clone()));
            }
            variant = Arc::new(variant.without_pair_promotion());
        }
        let openings = match &self.openings {
            OpeningChoice::File(f) => {
                let bad = |reason: String| ConfigError::Openings {
                    file: f.clone(),
                    reason,
                };
                let text = crate::util::textfile::read(f, crate::util::textfile::MAX_DATA_BYTES)
                    .map_err(|e| bad(e.to_string()))?;
                openings::from_text(&variant, &text).map_err(bad)?
            }
            OpeningChoice::Random { plies, seed } => {
                openings::random(&variant, *plies, *seed, self.games.div_ceil(2).max(1))
            }
            // The shipped suite, entered at a place the seed picks.
            OpeningChoice::Shipped { seed } => match openings::shipped(&variant.name) {
                Some(text) => {
                    let mut list = openings::from_text(&variant, text).map_err(|reason| {
                        ConfigError::Openings {
                            file: format!("the shipped suite of {}", variant.name),
                            reason,
                        }
                    })?;
                    let at = (seed % list.len().max(1) as u64) as usize;
                    list.rotate_left(at);
                    list
                }
                None => vec![Opening::start(&variant)],
            },
        };
        Ok(Prepared { variant, openings })
    }
}
