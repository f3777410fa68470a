//! The command line of `amalgam match`: engines, variant, games, limits,
//! openings, output, adjudication.

use super::engine_proc::Launch;
use super::limits::{Limits, TimeControl};
use super::referee::{DrawRule, ResignRule};
use super::shard::Shard;
use super::stats::Sprt;
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use crate::tools::openings::{self, Opening};
use std::sync::Arc;

pub const USAGE: &str =
    "usage: amalgam match --engine name=N cmd=C proto=uci|xboard [dir=D] [option.X=V ...]
       --engine ... [--engine ...] [--variant V] [--games N] [--concurrency K]
       (--tc [MOVES/]BASE+INC | --movetime MS | --depth D | --nodes N)
       [--openings FILE | --random-plies P [--seed S]] [--pgn FILE]
       [--sprt elo0=E0 elo1=E1 alpha=A beta=B] [--resign movecount=M score=CP]
       [--draw movenumber=N movecount=M score=CP] [--margin MS] [--pair-promotion on|off]
       [--ini FILE] [--event NAME] [--probe] [--shard K/N]";

/// Why `--sprt` and `--shard` do not go together.
pub const SPRT_AND_SHARD: &str = "--sprt stops a whole match early, which one part of it cannot do: \
     play the parts without it and give --sprt to `amalgam pgn stats` over their PGN files";

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

#[derive(Clone, Debug)]
pub enum OpeningSource {
    Start,
    File(Vec<Opening>),
    Random { plies: usize, seed: u64 },
}

#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub engines: Vec<EngineSpec>,
    pub variant: String,
    pub pair_promotion: bool,
    pub games: usize,
    pub concurrency: usize,
    pub limits: Limits,
    pub margin_ms: u64,
    /// Send `isready`/`ping` while engines think and report the longest answer.
    pub probe: bool,
    pub openings: OpeningSource,
    pub pgn: Option<String>,
    pub sprt: Option<Sprt>,
    pub resign: Option<ResignRule>,
    pub draw: Option<DrawRule>,
    pub event: String,
    /// Play only this part of the schedule.
    pub shard: Option<Shard>,
}

/// `key=value` words of an option group.
fn pairs<'a>(flag: &str, words: &'a [String]) -> Result<Vec<(&'a str, &'a str)>, String> {
    words
        .iter()
        .map(|w| {
            w.split_once('=')
                .ok_or_else(|| format!("{flag}: expected key=value, got '{w}'"))
        })
        .collect()
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, String> {
    v.parse().map_err(|_| format!("bad value '{v}' for {flag}"))
}

/// Milliseconds, at most [`super::limits::MAX_TIME_MS`].
fn time_ms(flag: &str, v: &str) -> Result<u64, String> {
    let ms: u64 = number(flag, v)?;
    if ms > super::limits::MAX_TIME_MS {
        return Err(format!("{flag}: at most {} ms", super::limits::MAX_TIME_MS));
    }
    Ok(ms)
}

fn engine_spec(words: &[String]) -> Result<EngineSpec, String> {
    let mut name = None;
    let mut command = None;
    let mut dir = None;
    let mut proto = None;
    let mut options = Vec::new();
    for (k, v) in pairs("--engine", words)? {
        match k {
            "name" => name = Some(v.to_string()),
            "cmd" => command = Some(v.to_string()),
            "dir" => dir = Some(v.to_string()),
            "proto" => {
                proto = Some(match v {
                    "uci" => Proto::Uci,
                    "xboard" => Proto::Xboard,
                    _ => return Err(format!("--engine: unknown protocol '{v}' (uci or xboard)")),
                })
            }
            _ => match k.strip_prefix("option.") {
                Some(o) if !o.is_empty() => options.push((o.to_string(), v.to_string())),
                _ => return Err(format!("--engine: unknown key '{k}'")),
            },
        }
    }
    let command = command.ok_or("--engine needs cmd=COMMAND")?;
    Ok(EngineSpec {
        name: name.unwrap_or_else(|| command.clone()),
        launch: Launch { command, dir },
        proto: proto.ok_or("--engine needs proto=uci or proto=xboard")?,
        options,
    })
}

/// Split arguments into `--flag value...` groups.
fn groups(args: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for a in args {
        if a.starts_with("--") {
            out.push((a.clone(), Vec::new()));
        } else {
            match out.last_mut() {
                Some(g) => g.1.push(a.clone()),
                None => return Err(format!("unexpected '{a}'\n{USAGE}")),
            }
        }
    }
    Ok(out)
}

impl MatchConfig {
    /// Read the command line; `--ini` files are loaded into `set`. Returns
    /// the configuration and the compiled variant the referee plays.
    pub fn parse(
        args: &[String],
        set: &mut VariantSet,
    ) -> Result<(MatchConfig, Arc<Variant>), String> {
        let groups = groups(args)?;
        // Variant files first: the other options may name their variants.
        for (flag, vals) in &groups {
            if flag == "--ini" {
                let [file] = vals.as_slice() else {
                    return Err("--ini needs one file".into());
                };
                // Whole or not at all, as over the protocols: a file that
                // `check` refuses is refused here too.
                if let Err(e) = crate::engine::eval::load_file_checked(set, file) {
                    return Err(e.with_check_hint());
                }
            }
        }
        let mut cfg = MatchConfig {
            engines: Vec::new(),
            variant: "chess".into(),
            pair_promotion: true,
            games: 2,
            concurrency: 1,
            limits: Limits::default(),
            margin_ms: 0,
            probe: false,
            openings: OpeningSource::Start,
            pgn: None,
            sprt: None,
            resign: None,
            draw: None,
            event: "Amalgam match".into(),
            shard: None,
        };
        let mut openings_file = None;
        let mut plies = None;
        let mut seed = 1u64;
        for (flag, vals) in &groups {
            let one = || match vals.as_slice() {
                [v] => Ok(v.as_str()),
                _ => Err(format!("{flag} needs one value")),
            };
            match flag.as_str() {
                "--engine" => cfg.engines.push(engine_spec(vals)?),
                "--variant" => cfg.variant = one()?.to_string(),
                "--games" => cfg.games = number(flag, one()?)?,
                "--concurrency" => cfg.concurrency = number(flag, one()?)?,
                "--tc" => cfg.limits.clock = Some(TimeControl::parse(one()?)?),
                "--movetime" => cfg.limits.movetime_ms = Some(time_ms(flag, one()?)?),
                "--depth" => cfg.limits.depth = Some(number(flag, one()?)?),
                "--nodes" => cfg.limits.nodes = Some(number(flag, one()?)?),
                "--margin" => cfg.margin_ms = time_ms(flag, one()?)?,
                "--openings" => openings_file = Some(one()?.to_string()),
                "--random-plies" => plies = Some(number::<usize>(flag, one()?)?),
                "--seed" => seed = number(flag, one()?)?,
                "--pgn" => cfg.pgn = Some(one()?.to_string()),
                "--event" => cfg.event = vals.join(" "),
                "--ini" => {}
                "--probe" if vals.is_empty() => cfg.probe = true,
                "--shard" => {
                    cfg.shard = Some(Shard::parse(one()?).map_err(|e| format!("--shard: {e}"))?)
                }
                "--pair-promotion" => {
                    cfg.pair_promotion = match one()? {
                        "on" => true,
                        "off" => false,
                        v => return Err(format!("--pair-promotion: '{v}' is not on or off")),
                    }
                }
                "--sprt" => {
                    let words: Vec<&str> = vals.iter().map(String::as_str).collect();
                    cfg.sprt = Some(Sprt::parse(&words)?);
                }
                "--resign" => {
                    let (mut movecount, mut score) = (None, None);
                    for (k, v) in pairs(flag, vals)? {
                        match k {
                            "movecount" => movecount = Some(number(flag, v)?),
                            "score" => score = Some(number(flag, v)?),
                            _ => return Err(format!("--resign: unknown key '{k}'")),
                        }
                    }
                    cfg.resign = Some(ResignRule {
                        movecount: movecount.ok_or("--resign needs movecount=")?,
                        score: score.ok_or("--resign needs score=")?,
                    });
                }
                "--draw" => {
                    let (mut movenumber, mut movecount, mut score) = (None, None, None);
                    for (k, v) in pairs(flag, vals)? {
                        match k {
                            "movenumber" => movenumber = Some(number(flag, v)?),
                            "movecount" => movecount = Some(number(flag, v)?),
                            "score" => score = Some(number(flag, v)?),
                            _ => return Err(format!("--draw: unknown key '{k}'")),
                        }
                    }
                    cfg.draw = Some(DrawRule {
                        movenumber: movenumber.ok_or("--draw needs movenumber=")?,
                        movecount: movecount.ok_or("--draw needs movecount=")?,
                        score: score.ok_or("--draw needs score=")?,
                    });
                }
                _ => return Err(format!("unknown option {flag}\n{USAGE}")),
            }
        }
        if cfg.engines.len() < 2 {
            return Err(format!("a match needs two or more --engine\n{USAGE}"));
        }
        if cfg.games == 0 {
            return Err("--games must be at least 1".into());
        }
        // Every pairing plays `games` games, all scheduled up front.
        let n = cfg.engines.len();
        let total = n
            .checked_mul(n - 1)
            .and_then(|p| (p / 2).checked_mul(cfg.games));
        if total.is_none_or(|t| t > MAX_GAMES) {
            return Err(format!(
                "--games: a match has at most {MAX_GAMES} games (--games times the pairings of engines)"
            ));
        }
        if cfg.limits.is_empty() {
            return Err("give a limit: --tc, --movetime, --depth or --nodes".into());
        }
        if cfg.sprt.is_some() && cfg.engines.len() != 2 {
            return Err("--sprt needs exactly two engines".into());
        }
        if cfg.sprt.is_some() && cfg.shard.is_some() {
            return Err(SPRT_AND_SHARD.into());
        }
        // The PGN tells the engines apart by name.
        for (i, e) in cfg.engines.iter().enumerate() {
            if cfg.engines[..i].iter().any(|o| o.name == e.name) {
                return Err(format!(
                    "two engines are named '{}': give each its own name=",
                    e.name
                ));
            }
        }
        let mut variant = set.compile(&cfg.variant).map_err(|e| {
            e.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        })?;
        if !cfg.pair_promotion {
            if !variant.has_pair_promotion() {
                return Err(format!(
                    "{} has no pair promotion to switch off",
                    cfg.variant
                ));
            }
            variant = Arc::new(variant.without_pair_promotion());
        }
        cfg.openings = match (openings_file, plies) {
            (Some(_), Some(_)) => {
                return Err("give --openings or --random-plies, not both".into());
            }
            (Some(f), None) => {
                let text = crate::util::textfile::read(&f, crate::util::textfile::MAX_DATA_BYTES)
                    .map_err(|e| format!("{f}: {e}"))?;
                OpeningSource::File(
                    openings::from_text(&variant, &text).map_err(|e| format!("{f}: {e}"))?,
                )
            }
            (None, Some(p)) => OpeningSource::Random { plies: p, seed },
            // The shipped suite, entered at a place the seed picks.
            (None, None) => match openings::shipped(&variant.name) {
                Some(text) => {
                    let mut list = openings::from_text(&variant, text)?;
                    let at = (seed % list.len() as u64) as usize;
                    list.rotate_left(at);
                    OpeningSource::File(list)
                }
                None => OpeningSource::Start,
            },
        };
        Ok((cfg, variant))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command line as a shell splits it (white space, double quotes).
    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('#') {
                continue;
            }
            let mut word = String::new();
            let mut quoted = false;
            let mut any = false;
            for c in line.chars() {
                match c {
                    '"' => {
                        quoted = !quoted;
                        any = true;
                    }
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
        }
        out
    }

    #[test]
    fn parses_a_match() {
        let mut set = VariantSet::builtin();
        let args = words(
            r#"--engine name=A "cmd=amalgam --uci" proto=uci option.Hash=16 "option.Move Overhead=10"
               --engine name=B cmd=fairymax proto=xboard dir=/tmp
               --variant team-mate --pair-promotion off --games 4 --tc 40/60+0.5
               --random-plies 4 --seed 9 --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05
               --resign movecount=3 score=1000 --draw movenumber=40 movecount=8 score=10"#,
        );
        let (cfg, v) = MatchConfig::parse(&args, &mut set).unwrap();
        assert_eq!(cfg.engines.len(), 2);
        assert_eq!(cfg.engines[0].launch.command, "amalgam --uci");
        assert_eq!(
            cfg.engines[0].options[1],
            ("Move Overhead".into(), "10".into())
        );
        assert_eq!(cfg.engines[1].proto, Proto::Xboard);
        assert!(!v.has_pair_promotion());
        assert_eq!(cfg.limits.clock.unwrap().moves, Some(40));
        assert_eq!(
            cfg.resign,
            Some(ResignRule {
                movecount: 3,
                score: 1000
            })
        );
        assert_eq!(cfg.draw.unwrap().movenumber, 40);
        assert!(matches!(
            cfg.openings,
            OpeningSource::Random { plies: 4, seed: 9 }
        ));
    }

    #[test]
    fn refuses_bad_lines() {
        let mut set = VariantSet::builtin();
        let two = "--engine cmd=a proto=uci --engine cmd=b proto=uci";
        for bad in [
            "--engine cmd=a proto=uci --tc 1+0",
            two,
            &format!("{two} --tc 1+0 --variant nosuch"),
            &format!("{two} --tc 1+0 --pair-promotion off"),
            &format!("{two} --tc 1+0 --games x"),
            &format!("{two} --tc 1+0 --games 1000001"),
            &format!("{two} --tc 1+0 --games 18446744073709551615 --random-plies 2"),
            &format!("{two} --engine cmd=c proto=uci --tc 1+0 --games 400000"),
            &format!("{two} --tc 1+0 --bogus"),
            &format!("{two} --tc 1+0 --shard 3/2"),
            &format!("{two} --tc 1+0 --shard 1/2 --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"),
            "--engine cmd=a proto=uci --engine cmd=a proto=uci --tc 1+0",
            "--engine cmd=a proto=telnet --engine cmd=b proto=uci --tc 1+0",
        ] {
            assert!(MatchConfig::parse(&words(bad), &mut set).is_err(), "{bad}");
        }
        let part = MatchConfig::parse(&words(&format!("{two} --tc 1+0 --shard 2/3")), &mut set);
        assert_eq!(
            part.unwrap().0.shard.map(|s| s.to_string()),
            Some("2/3".into())
        );
    }
}
