//! An engine driven over UCI. Moves travel in the engine's own notation
//! (RULES.md), which is orthodox UCI notation for chess.

use super::engine_proc::{EngineProcess, Launch, WaitError};
use super::player::{Answer, Failure, Player, Probe, Reply, SearchInfo, Turn};
use crate::rules::board::Position;
use crate::rules::game::Outcome;
use crate::rules::types::Move;
use crate::rules::variant::Variant;
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

/// The `option` lines of a UCI engine: name and `var` values.
fn parse_option(line: &str) -> Option<(String, Vec<String>)> {
    let rest = line.strip_prefix("option name ")?;
    let (name, tail) = rest.split_once(" type ")?;
    let vars = tail
        .split(" var ")
        .skip(1)
        .map(|v| v.trim().to_string())
        .collect();
    Some((name.trim().to_string(), vars))
}

/// Send `uci` and read the engine's options up to `uciok`.
fn read_options(proc: &mut EngineProcess) -> Result<Vec<(String, Vec<String>)>, WaitError> {
    proc.send("uci")?;
    let mut options = Vec::new();
    proc.wait_for(HANDSHAKE, |l| {
        if let Some(o) = parse_option(l) {
            options.push(o);
        }
        l == "uciok"
    })?;
    Ok(options)
}

impl UciPlayer {
    /// Start the engine, check that it plays `variant`, set its options.
    pub fn start(
        launch: &Launch,
        options: &[(String, String)],
        variant: &Variant,
    ) -> Result<UciPlayer, String> {
        let mut proc = EngineProcess::spawn(launch)?;
        let fail = |e: WaitError| match e {
            WaitError::Timeout => format!("'{}' did not answer uciok", launch.command),
            WaitError::Exited => format!("'{}' exited during the UCI handshake", launch.command),
        };
        let mut engine_options = read_options(&mut proc).map_err(fail)?;
        // Options may change what the engine plays (Fairy-Stockfish's
        // `VariantPath` adds the file's variants), so they go first and the
        // list is read again.
        if !options.is_empty() {
            for (k, v) in options {
                proc.send(&format!("setoption name {k} value {v}"))
                    .map_err(fail)?;
            }
            engine_options = read_options(&mut proc).map_err(fail)?;
        }
        let variant_option = engine_options.iter().find(|o| o.0 == "UCI_Variant");
        // The orthodox game needs no variant option: that is what UCI plays.
        let orthodox = variant.xboard.name == "normal";
        match variant_option {
            None if !orthodox => {
                return Err(format!(
                    "'{}' has no UCI_Variant option, so it cannot play {}",
                    launch.command, variant.name
                ));
            }
            Some((_, vars)) if !vars.is_empty() && !vars.contains(&variant.name) => {
                return Err(format!(
                    "'{}' does not play {} (its UCI_Variant values: {})",
                    launch.command,
                    variant.name,
                    vars.join(", ")
                ));
            }
            _ => {}
        }
        if variant_option.is_some() {
            proc.send(&format!(
                "setoption name UCI_Variant value {}",
                variant.name
            ))
            .map_err(fail)?;
        }
        let mut p = UciPlayer {
            proc,
            thinking: false,
            probe: Probe::default(),
        };
        p.sync().map_err(|_| {
            format!(
                "'{}' did not answer isready after its options",
                launch.command
            )
        })?;
        Ok(p)
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

pub(super) fn to_failure(e: WaitError) -> Failure {
    match e {
        WaitError::Timeout => Failure::Timeout,
        WaitError::Exited => Failure::Crashed,
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
            let now = Instant::now();
            if self.probe.due(now) {
                self.proc.send("isready").map_err(to_failure)?;
                self.probe.asked(Instant::now(), "readyok".to_string());
            }
            let (at, line) = match self.proc.recv(self.probe.wake(deadline)) {
                Err(WaitError::Timeout) if Instant::now() < deadline => continue,
                r => r.map_err(to_failure)?,
            };
            let line = line.trim();
            if self.probe.answered(line, at) {
                continue;
            }
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
        assert_eq!(o.0, "UCI_Variant");
        assert_eq!(o.1, vec!["chess", "team-mate"]);
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
