//! An engine driven over UCI. Moves travel in the engine's own notation
//! (RULES.md), which is orthodox UCI notation for chess.

use super::engine_proc::{EngineProcess, Launch, WaitError};
use super::errors::EngineError;
use super::player::{Answer, Failure, Player, Probe, Reply, SearchInfo, Turn, to_failure};
use crate::rules::board::Position;
use crate::rules::game::Outcome;
use crate::rules::types::Move;
use crate::rules::variant::Variant;
use crate::util::stop::Stop;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long start-up and synchronisation may take.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// How long an engine that overran its time gets to stop before it is killed.
const STOP_GRACE: Duration = Duration::from_millis(1000);

pub struct UciPlayer {
    proc: EngineProcess,
    thinking: bool,
    probe: Probe,
}

/// An option a UCI engine lists: its name and, for a combo, its values.
#[derive(Clone, Debug, PartialEq, Eq)]
struct UciOption {
    name: String,
    vars: Vec<String>,
}

/// The `option` lines of a UCI engine: name and `var` values.
fn parse_option(line: &str) -> Option<UciOption> {
    let rest = line.strip_prefix("option name ")?;
    let (name, tail) = rest.split_once(" type ")?;
    let vars = tail
        .split(" var ")
        .skip(1)
        .map(|v| v.trim().to_string())
        .collect();
    Some(UciOption {
        name: name.trim().to_string(),
        vars,
    })
}

/// What the handshake is doing when a wait fails.
const HANDSHAKE_STAGE: &str = "the UCI handshake";

/// Send `uci` and read the engine's options up to `uciok`.
fn read_options(proc: &mut EngineProcess) -> Result<Vec<UciOption>, EngineError> {
    let failed = |e: WaitError| e.in_handshake("uci with uciok", HANDSHAKE_STAGE);
    proc.send("uci").map_err(failed)?;
    let mut options = Vec::new();
    proc.wait_for(HANDSHAKE, |l| {
        if let Some(o) = parse_option(l) {
            options.push(o);
        }
        l == "uciok"
    })
    .map_err(failed)?;
    Ok(options)
}

/// Whether a line that an engine printed while an option was set refuses
/// the option: an `info string` that starts with "error" (Amalgam's
/// `info string error: ...`, Stockfish's `info string ERROR: ...`), or
/// free text, no UCI message, that speaks of a failure (Stockfish's
/// `No such option: X`, Fairy-Stockfish's `Unable to open file F`).
fn refuses(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    if let Some(text) = lower.strip_prefix("info string ") {
        return text.trim_start().starts_with("error");
    }
    const MESSAGES: [&str; 8] = [
        "id",
        "uciok",
        "readyok",
        "bestmove",
        "copyprotection",
        "registration",
        "info",
        "option",
    ];
    const FAILURES: [&str; 8] = [
        "error",
        "no such",
        "unknown",
        "unable",
        "invalid",
        "cannot",
        "not supported",
        "illegal",
    ];
    let first = lower.split_whitespace().next().unwrap_or("");
    !MESSAGES.contains(&first) && FAILURES.iter().any(|w| lower.contains(w))
}

/// Set an option and wait (`isready`) until the engine has answered it;
/// an answer that refuses it is an error.
fn set_option(proc: &mut EngineProcess, name: &str, value: &str) -> Result<(), EngineError> {
    let during = format!("option '{name}' = '{value}'");
    let failed = |e: WaitError| e.in_handshake("isready with readyok", &during);
    proc.send(&format!("setoption name {name} value {value}"))
        .map_err(failed)?;
    proc.send("isready").map_err(failed)?;
    let mut answer = None;
    proc.wait_for(HANDSHAKE, |l| {
        if answer.is_none() && refuses(l) {
            answer = Some(l.to_string());
        }
        l == "readyok"
    })
    .map_err(failed)?;
    EngineError::option_answer(name, value, answer)
}

/// Set the match's options, each one the engine lists (UCI option names
/// are not case sensitive).
fn set_options(
    proc: &mut EngineProcess,
    options: &[(String, String)],
    listed: &[UciOption],
) -> Result<(), EngineError> {
    for (name, value) in options {
        if !listed.iter().any(|o| o.name.eq_ignore_ascii_case(name)) {
            return Err(EngineError::UnknownOption {
                option: name.clone(),
                offered: listed.iter().map(|o| o.name.clone()).collect(),
            });
        }
        set_option(proc, name, value)?;
    }
    Ok(())
}

impl UciPlayer {
    /// Start the engine, set its options (each must be one it lists, and it
    /// must not answer an error), check that it plays `variant` and select
    /// it. Waits end when `stop` is requested.
    pub fn start(
        launch: &Launch,
        options: &[(String, String)],
        variant: &Variant,
        stop: &Stop,
    ) -> Result<UciPlayer, EngineError> {
        let mut proc = EngineProcess::spawn(launch, stop)?;
        let mut listed = read_options(&mut proc)?;
        // Options may change what the engine plays (Fairy-Stockfish's
        // `VariantPath` adds the file's variants), so they go first and the
        // list is read again.
        if !options.is_empty() {
            set_options(&mut proc, options, &listed)?;
            listed = read_options(&mut proc)?;
        }
        let variant_option = listed.iter().find(|o| o.name == "UCI_Variant");
        // The orthodox game needs no variant option: that is what UCI plays.
        let orthodox = variant.xboard.name == "normal";
        let refused = |offered: Vec<String>| EngineError::NoVariant {
            variant: variant.name.clone(),
            list: "UCI_Variant values",
            offered,
        };
        match variant_option {
            None if !orthodox => return Err(refused(Vec::new())),
            Some(o) if !o.vars.is_empty() && !o.vars.contains(&variant.name) => {
                return Err(refused(o.vars.clone()));
            }
            Some(_) => set_option(&mut proc, "UCI_Variant", &variant.name)?,
            None => {}
        }
        Ok(UciPlayer {
            proc,
            thinking: false,
            probe: Probe::default(),
        })
    }

    fn sync(&mut self) -> Result<(), Failure> {
        self.proc.send("isready").map_err(to_failure)?;
        // A probe's `readyok` still to come arrives first.
        let mut needed = 1 + usize::from(self.probe.forget());
        self.proc
            .wait_for(HANDSHAKE, |l| {
                if l == "readyok" {
                    needed -= 1;
                }
                needed == 0
            })
            .map_err(to_failure)
    }
}

/// Depth and score of a UCI `info` line, added to what is known.
fn read_info(line: &str, info: &mut SearchInfo) {
    let w: Vec<&str> = line.split_whitespace().collect();
    let mut i = 1;
    while i + 1 < w.len() {
        match w[i] {
            "depth" => info.depth = w[i + 1].parse().ok().or(info.depth),
            "score" if i + 2 < w.len() => {
                let n = w[i + 2].parse().ok();
                match w[i + 1] {
                    "cp" => (info.score_cp, info.mate) = (n, None),
                    "mate" => info.mate = n,
                    _ => {}
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
}

/// The `position` command for a turn.
fn position_command(turn: &Turn) -> String {
    let start_fen = turn.start.to_fen();
    let mut s = if start_fen == turn.start.variant().start_fen {
        "position startpos".to_string()
    } else {
        format!("position fen {start_fen}")
    };
    if !turn.history.is_empty() {
        s.push_str(" moves");
        let mut pos = turn.start.clone();
        for &m in turn.history {
            s.push(' ');
            s.push_str(&pos.move_text(m));
            pos.make(m);
        }
    }
    s
}

/// The `go` command for a turn.
fn go_command(turn: &Turn) -> String {
    let mut s = "go".to_string();
    if let Some(tc) = turn.limits.clock {
        let [w, b] = turn.clocks.map(|t| t.max(1));
        s.push_str(&format!(
            " wtime {w} btime {b} winc {0} binc {0}",
            tc.inc_ms
        ));
        if let Some(m) = turn.moves_to_go {
            s.push_str(&format!(" movestogo {m}"));
        }
    }
    if let Some(ms) = turn.limits.movetime_ms {
        s.push_str(&format!(" movetime {ms}"));
    }
    if let Some(d) = turn.limits.depth {
        s.push_str(&format!(" depth {d}"));
    }
    if let Some(n) = turn.limits.nodes {
        s.push_str(&format!(" nodes {n}"));
    }
    s
}

impl Player for UciPlayer {
    fn new_game(&mut self, _variant: &Arc<Variant>, _start: &Position) -> Result<(), Failure> {
        self.proc.send("ucinewgame").map_err(to_failure)?;
        self.sync()
    }

    fn think(&mut self, turn: &Turn) -> Result<(Answer, Instant), Failure> {
        self.proc
            .send(&position_command(turn))
            .map_err(to_failure)?;
        self.proc.send(&go_command(turn)).map_err(to_failure)?;
        let sent = Instant::now();
        self.thinking = true;
        let deadline = sent + turn.wait;
        let mut info = SearchInfo::default();
        self.probe.search_starts(sent);
        loop {
            let (at, line) = self.probe.read_search_line(&mut self.proc, deadline, || {
                ("isready".to_string(), "readyok".to_string())
            })?;
            let line = line.as_str();
            if line.starts_with("info ") {
                read_info(line, &mut info);
            } else if let Some(rest) = line.strip_prefix("bestmove") {
                self.thinking = false;
                let mv = rest.split_whitespace().next().unwrap_or("(none)");
                let answer = Answer {
                    reply: Reply::Move(mv.to_string()),
                    at,
                    info,
                    probe: self.probe.search_ends(),
                };
                return Ok((answer, sent));
            }
        }
    }

    fn parse_move(&self, pos: &mut Position, text: &str) -> Option<Move> {
        pos.parse_move(text).ok()
    }

    fn game_over(&mut self, _result: Outcome, _reason: &str) {
        if self.thinking {
            self.thinking = false;
            let probe = &mut self.probe;
            let stopped = self.proc.send("stop").is_ok()
                && self
                    .proc
                    .wait_for(STOP_GRACE, |l| {
                        probe.answered(l, Instant::now());
                        l.starts_with("bestmove")
                    })
                    .is_ok();
            self.probe.search_ends();
            if !stopped {
                self.proc.kill();
            }
        }
    }

    fn is_alive(&self) -> bool {
        !self.proc.has_exited()
    }

    fn enable_probe(&mut self) {
        self.probe.on = true;
    }

    fn quit(&mut self) {
        self.proc.shut_down("quit");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_options_and_info() {
        let o = parse_option(
            "option name UCI_Variant type combo default chess var chess var team-mate",
        )
        .unwrap();
        assert_eq!(o.name, "UCI_Variant");
        assert_eq!(o.vars, vec!["chess", "team-mate"]);
        let mut i = SearchInfo::default();
        read_info(
            "info depth 12 seldepth 20 score cp -35 nodes 100 pv e2e4",
            &mut i,
        );
        assert_eq!((i.depth, i.score_cp, i.mate), (Some(12), Some(-35), None));
        read_info("info depth 13 score mate 3 pv e2e4", &mut i);
        assert_eq!((i.depth, i.mate), (Some(13), Some(3)));
        assert_eq!(i.score(), Some(99_997));
    }
}
