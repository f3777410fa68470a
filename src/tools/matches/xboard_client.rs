//! An engine driven over the XBoard protocol (version 2). Moves go in the
//! forms a GUI sends and are read in the forms an engine sends (stack merges
//! and Dragon en passant in two legs, splits naming the remnant), by the
//! translation of the engine's own XBoard front end. The engine stays in
//! `force` mode until its first turn of a game; then it gets the moves so
//! far and `go`, and from then on each opponent move makes it think.

use super::engine_proc::{EngineProcess, Launch, WaitError};
use super::errors::EngineError;
use super::limits::Limits;
use super::player::{Answer, Failure, Player, Probe, Reply, SearchInfo, Turn, to_failure};
use crate::protocol::xboard::moves::{Gui, from_gui, gui_text};
use crate::rules::board::Position;
use crate::rules::game::Outcome;
use crate::rules::types::{Color, Move};
use crate::rules::variant::Variant;
use crate::util::stop::Stop;
use std::sync::Arc;
use std::time::{Duration, Instant};

const HANDSHAKE: Duration = Duration::from_secs(10);
/// How long an engine may take to answer `ping` after a game.
const SETTLE: Duration = Duration::from_millis(2000);
/// How long to watch for an error after an option is set, when the engine
/// knows no `ping` that would say it has read the option.
const OPTION_WITHOUT_PING: Duration = Duration::from_millis(300);

/// The features an engine announced that matter here.
#[derive(Clone, Debug, Default)]
struct Features {
    usermove: bool,
    setboard: bool,
    ping: bool,
    variants: Option<Vec<String>>,
    /// The names of its `feature option="NAME -TYPE ..."` options.
    options: Vec<String>,
}

/// The name of an option from its `feature option` value, `NAME -TYPE
/// ...` (the name may hold spaces).
fn option_name(spec: &str) -> Option<&str> {
    const TYPES: [&str; 10] = [
        "button", "save", "reset", "check", "string", "spin", "combo", "slider", "file", "path",
    ];
    let mut from = 0;
    while let Some(at) = spec[from..].find(" -") {
        let dash = from + at;
        let word = spec[dash + 2..].split_whitespace().next().unwrap_or("");
        if TYPES.contains(&word) {
            return Some(spec[..dash].trim()).filter(|n| !n.is_empty());
        }
        from = dash + 2;
    }
    None
}

/// Whether a line that an engine printed while an option was set refuses
/// it: the protocol's `Error (...): ...`, or `tellusererror`.
fn refuses(line: &str) -> bool {
    let lower = line.trim_start().to_ascii_lowercase();
    lower.starts_with("error") || lower.starts_with("tellusererror")
}

pub struct XboardPlayer {
    proc: EngineProcess,
    features: Features,
    /// The variant's XBoard name.
    variant: String,
    limits: Limits,
    /// True until the engine gets `go` in this game.
    forced: bool,
    /// How many moves of the game the engine has been told (or made).
    known: usize,
    thinking: bool,
    pings: u32,
    probe: Probe,
}

/// `key=value` pairs of a `feature` line (values may be quoted).
fn feature_pairs(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = line.strip_prefix("feature").unwrap_or("").trim_start();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().to_string();
        let after = &rest[eq + 1..];
        let (value, tail) = if let Some(q) = after.strip_prefix('"') {
            match q.find('"') {
                Some(end) => (&q[..end], &q[end + 1..]),
                None => (q, ""),
            }
        } else {
            match after.find(char::is_whitespace) {
                Some(end) => (&after[..end], &after[end..]),
                None => (after, ""),
            }
        };
        out.push((key, value.to_string()));
        rest = tail.trim_start();
    }
    out
}

/// `m:ss` for the `level` command.
fn minutes_seconds(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

/// Depth and score of a thinking-output line `ply score time nodes pv`.
fn read_post(line: &str, info: &mut SearchInfo) -> bool {
    let mut w = line.split_whitespace();
    let (Some(Ok(ply)), Some(Ok(score))) = (
        w.next()
            .map(|x| x.trim_end_matches(['.', '&']).parse::<u32>()),
        w.next().map(|x| x.parse::<i32>()),
    ) else {
        return false;
    };
    info.depth = Some(ply);
    info.score_cp = Some(score);
    info.mate = None;
    true
}

impl XboardPlayer {
    /// Start the engine, read its features, refuse it when it does not
    /// play the variant, and set its options (each must be one it offers,
    /// and it must not answer an error). Waits end when `stop` is requested.
    pub fn start(
        launch: &Launch,
        options: &[(String, String)],
        variant: &Variant,
        limits: &Limits,
        stop: &Stop,
    ) -> Result<XboardPlayer, EngineError> {
        let mut proc = EngineProcess::spawn(launch, stop)?;
        let stage = "the XBoard handshake";
        let gone = |e: WaitError| e.in_handshake("protover with its features", stage);
        proc.send("xboard").map_err(gone)?;
        proc.send("protover 2").map_err(gone)?;
        let mut features = Features::default();
        let mut accepted = Vec::new();
        // A version-1 engine sends no features: a short wait then.
        let mut deadline = Instant::now() + Duration::from_secs(2);
        loop {
            let line = match proc.recv(deadline) {
                Ok((_, l)) => l,
                Err(WaitError::Timeout) => break,
                Err(e) => return Err(gone(e)),
            };
            if !line.starts_with("feature") {
                continue;
            }
            let mut done = false;
            for (k, v) in feature_pairs(&line) {
                match k.as_str() {
                    "usermove" => features.usermove = v == "1",
                    "setboard" => features.setboard = v == "1",
                    "ping" => features.ping = v == "1",
                    "variants" => {
                        features.variants =
                            Some(v.split(',').map(|s| s.trim().to_string()).collect())
                    }
                    "option" => features.options.extend(option_name(&v).map(str::to_string)),
                    "done" if v == "0" => deadline = Instant::now() + HANDSHAKE,
                    "done" => done = true,
                    _ => {}
                }
                accepted.push(k);
            }
            if done {
                break;
            }
        }
        for k in accepted {
            proc.send(&format!("accepted {k}")).map_err(gone)?;
        }
        let name = variant.xboard.name.clone();
        // Every engine plays the orthodox game.
        if name != "normal" {
            let offered = features.variants.clone().unwrap_or_default();
            if !offered.contains(&name) {
                return Err(EngineError::NoVariant {
                    variant: name,
                    list: "feature variants",
                    offered,
                });
            }
        }
        let mut p = XboardPlayer {
            proc,
            features,
            variant: name,
            limits: *limits,
            forced: true,
            known: 0,
            thinking: false,
            pings: 0,
            probe: Probe::default(),
        };
        for (k, v) in options {
            p.set_option(k, v)?;
        }
        p.await_pong(HANDSHAKE)
            .map_err(|e| e.in_handshake("ping after the handshake", stage))?;
        Ok(p)
    }

    /// Set an option the engine offers and wait until it has read it; an
    /// error it answers refuses the option.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        if !self.features.options.iter().any(|o| o == name) {
            return Err(EngineError::UnknownOption {
                option: name.to_string(),
                offered: self.features.options.clone(),
            });
        }
        let during = format!("option '{name}' = '{value}'");
        let failed = |e: WaitError| e.in_handshake("ping after its options", &during);
        self.proc
            .send(&format!("option {name}={value}"))
            .map_err(failed)?;
        let answer = if self.features.ping {
            self.await_pong(HANDSHAKE).map_err(failed)?
        } else {
            let deadline = Instant::now() + OPTION_WITHOUT_PING;
            let mut answer = None;
            while answer.is_none() {
                match self.proc.recv(deadline) {
                    Ok((_, l)) if refuses(&l) => answer = Some(l.trim().to_string()),
                    Ok(_) => {}
                    Err(WaitError::Timeout) => break,
                    Err(e) => return Err(failed(e)),
                }
            }
            answer
        };
        EngineError::option_answer(name, value, answer)
    }

    /// Wait until the engine has read everything sent (by `ping`), dropping
    /// what it printed meanwhile but the first error it answered, which is
    /// returned.
    fn await_pong(&mut self, wait: Duration) -> Result<Option<String>, WaitError> {
        if !self.features.ping {
            return Ok(None);
        }
        self.pings += 1;
        let n = self.pings;
        self.proc.send(&format!("ping {n}"))?;
        let pong = format!("pong {n}");
        // A probe's pong still out is counted if it comes first; later, it is
        // passed over (pongs are numbered).
        let probe = &mut self.probe;
        let mut error = None;
        let synced = self.proc.wait_for(wait, |l| {
            probe.answered(l, Instant::now());
            if error.is_none() && refuses(l) {
                error = Some(l.to_string());
            }
            l == pong
        });
        self.probe.forget();
        synced.map(|_| error)
    }

    /// [`Self::await_pong`] during a game, where an error answered is passed over.
    fn sync(&mut self, wait: Duration) -> Result<(), Failure> {
        self.await_pong(wait).map(drop).map_err(to_failure)
    }

    fn send(&mut self, line: &str) -> Result<(), Failure> {
        self.proc.send(line).map_err(to_failure)
    }

    /// Send a move of the game to the engine.
    fn send_move(&mut self, pos: &Position, m: Move) -> Result<(), Failure> {
        let text = gui_text(pos, m, Gui::Classic);
        if self.features.usermove {
            self.send(&format!("usermove {text}"))
        } else {
            self.send(&text)
        }
    }
}

impl Player for XboardPlayer {
    fn new_game(&mut self, _variant: &Arc<Variant>, start: &Position) -> Result<(), Failure> {
        self.send("new")?;
        if self.variant != "normal" {
            let line = format!("variant {}", self.variant);
            self.send(&line)?;
        }
        self.send("force")?;
        self.send("easy")?;
        self.send("post")?;
        if let Some(tc) = self.limits.clock {
            let line = format!(
                "level {} {} {}",
                tc.moves.unwrap_or(0),
                minutes_seconds(tc.base_ms),
                tc.inc_ms as f64 / 1000.0
            );
            self.send(&line)?;
        }
        if let Some(ms) = self.limits.movetime_ms {
            // `st` takes whole seconds.
            self.send(&format!("st {}", ms.div_ceil(1000).max(1)))?;
        }
        if let Some(d) = self.limits.depth {
            self.send(&format!("sd {d}"))?;
        }
        let fen = start.to_fen();
        if fen != start.variant().start_fen {
            if !self.features.setboard {
                return Err(Failure::Protocol(
                    "the engine knows no setboard and the game does not start from the start position"
                        .into(),
                ));
            }
            self.send(&format!("setboard {fen}"))?;
        }
        self.forced = true;
        self.known = 0;
        self.sync(HANDSHAKE)
    }

    fn think(&mut self, turn: &Turn) -> Result<(Answer, Instant), Failure> {
        let mut clock_lines = Vec::new();
        if turn.limits.clock.is_some() {
            let us = turn.position.side_to_move();
            let cs = |c: Color| (turn.clocks[c.index()].max(1) as u64).div_ceil(10);
            clock_lines.push(format!("time {}", cs(us)));
            clock_lines.push(format!("otim {}", cs(us.flip())));
        }
        // A playing engine starts to think on the opponent's move, so the
        // clocks go first; a forced one thinks on `go`, after them.
        if !self.forced {
            for l in &clock_lines {
                self.send(l)?;
            }
        }
        // Replay the game to translate the moves the engine has not seen.
        let mut pos = turn.start.clone();
        for (i, &m) in turn.history.iter().enumerate() {
            if i >= self.known {
                self.send_move(&pos, m)?;
            }
            pos.make(m);
        }
        self.known = turn.history.len();
        if self.forced {
            for l in &clock_lines {
                self.send(l)?;
            }
            self.send("go")?;
            self.forced = false;
        }
        let sent = Instant::now();
        self.thinking = true;
        let deadline = sent + turn.wait;
        let mut info = SearchInfo::default();
        let mut first_leg = String::new();
        self.probe.search_starts(sent);
        loop {
            let pings = &mut self.pings;
            let (at, line) = self.probe.read_search_line(&mut self.proc, deadline, || {
                *pings += 1;
                (format!("ping {pings}"), format!("pong {pings}"))
            })?;
            let line = line.as_str();
            let reply = if let Some(m) = line.strip_prefix("move ") {
                let m = m.trim();
                if m.ends_with(',') {
                    first_leg.push_str(m);
                    continue;
                }
                Reply::Move(format!("{first_leg}{m}"))
            } else if line.starts_with("resign") {
                Reply::Resign
            } else if let Some((result, reason)) = claim(line) {
                Reply::Claim(result, reason)
            } else if line.starts_with("Illegal move") {
                return Err(Failure::Protocol(format!(
                    "the engine refused a legal move: {line}"
                )));
            } else {
                read_post(line, &mut info);
                continue;
            };
            self.thinking = false;
            if matches!(reply, Reply::Move(_)) {
                self.known += 1;
            }
            let probe = self.probe.search_ends();
            return Ok((
                Answer {
                    reply,
                    at,
                    info,
                    probe,
                },
                sent,
            ));
        }
    }

    fn parse_move(&self, pos: &mut Position, text: &str) -> Option<Move> {
        // The reader of the engine's own front end takes the forms an engine
        // writes (legs joined) as well as the GUI's.
        from_gui(pos, text, Gui::Classic).ok()
    }

    fn game_over(&mut self, result: Outcome, reason: &str) {
        let ok = self
            .send(&format!("result {} {{{reason}}}", result.pgn()))
            .and_then(|_| self.send("force"))
            .and_then(|_| self.sync(SETTLE));
        self.thinking = false;
        if ok.is_err() {
            self.proc.kill();
        }
    }

    fn enable_probe(&mut self) {
        // Only an engine that answers `ping` can be probed.
        self.probe.on = self.features.ping;
    }

    fn is_alive(&self) -> bool {
        !self.proc.has_exited()
    }

    fn quit(&mut self) {
        self.proc.shut_down("quit");
    }
}

/// A result claim line: `1-0 {White mates}` and the like.
fn claim(line: &str) -> Option<(Outcome, String)> {
    let (result, reason) = line.split_once(' ').unwrap_or((line, ""));
    let outcome = Outcome::from_pgn(result)?;
    Some((outcome, reason.trim().trim_matches(['{', '}']).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_features_and_posts() {
        let f = feature_pairs(
            r#"feature myname="Fairy-Max 5.0b" setboard=0 variants="normal,team-mate" done=1"#,
        );
        assert_eq!(f[0], ("myname".to_string(), "Fairy-Max 5.0b".to_string()));
        assert_eq!(f[1], ("setboard".to_string(), "0".to_string()));
        assert_eq!(f[2].1, "normal,team-mate");
        assert_eq!(f[3], ("done".to_string(), "1".to_string()));
        let mut i = SearchInfo::default();
        assert!(read_post(" 5     17       15     140864 g8f6 d2d3", &mut i));
        assert_eq!((i.depth, i.score_cp), (Some(5), Some(17)));
        assert!(!read_post("# debug", &mut i));
        assert_eq!(minutes_seconds(90_500), "1:30");
        assert_eq!(
            claim("1-0 {White mates}"),
            Some((Outcome::WhiteWins, "White mates".into()))
        );
        assert_eq!(claim("resign"), None);
    }
}
