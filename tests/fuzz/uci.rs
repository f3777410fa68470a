//! UCI streams: a grammar of commands with random arguments, some mutated.

use super::*;

#[derive(Default)]
pub(crate) struct UciModel {
    /// The variant the engine plays, when known to be a built-in one.
    pub(crate) variant: Option<usize>,
    pub(crate) pair: bool,
    pub(crate) threads_max: u64,
    /// A mutated line was sent since the last `stop`.
    pub(crate) mutated: bool,
    /// A search that only `stop` ends may run (infinite, pondering).
    pub(crate) open: bool,
    /// `go ponder` sent: whether its limits bound the search after `ponderhit`.
    pub(crate) ponder: Option<bool>,
    pub(crate) due_stop: Option<u64>,
    pub(crate) due_ponder_end: Option<u64>,
    pub(crate) files: usize,
    /// Markers sent to find the answers to this stream's probes.
    pub(crate) syncs: u64,
}

impl UciModel {
    /// Update from an unmutated line.
    pub(crate) fn observe(&mut self, line: &str) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["stop"] => {
                self.mutated = false;
                self.open = false;
                self.ponder = None;
            }
            ["ponderhit"] => {
                if let Some(bounded) = self.ponder.take() {
                    self.open |= !bounded;
                }
            }
            ["go", rest @ ..] => {
                if rest.contains(&"ponder") {
                    let bounded = rest.iter().any(|w| {
                        ["depth", "nodes", "movetime", "wtime", "btime", "mate"].contains(w)
                    });
                    self.ponder = Some(bounded);
                    self.open = true;
                } else if rest.contains(&"infinite") {
                    self.open = true;
                }
            }
            ["setoption", "name", "UCI_Variant", "value", v] => {
                self.variant = VARIANTS.iter().position(|x| x == v);
            }
            ["setoption", "name", "UCI_Variant", ..] => self.variant = None,
            ["setoption", "name", "PairPromotion", "value", v] => match *v {
                "true" => self.pair = true,
                "false" => self.pair = false,
                _ => {}
            },
            _ => {}
        }
    }

    pub(crate) fn hazard(&self) -> bool {
        self.mutated || self.open
    }
}

pub(crate) fn uci_position(rng: &mut Rng, m: &UciModel, ctx: &Ctx) -> String {
    let vi = m
        .variant
        .filter(|_| rng.percent(90))
        .unwrap_or_else(|| rng.below(4));
    let v = ctx.variant(vi, m.pair);
    let plies = rng.below(41);
    let (_, mut moves) = walk(rng, &v, plies);
    let mut head = "startpos".to_string();
    if rng.percent(35) {
        let split = rng.below(moves.len() + 1);
        let mut p = Position::startpos(v.clone());
        for t in &moves[..split] {
            if let Ok(mv) = p.parse_move(t) {
                p.make(mv);
            }
        }
        moves.drain(..split);
        let fen = p.to_fen();
        let fen = if rng.percent(20) {
            mutate_fen(rng, &fen)
        } else {
            fen
        };
        head = format!("fen {fen}");
    }
    if rng.percent(15) {
        // An illegal sequence.
        match rng.below(3) {
            0 if !moves.is_empty() => {
                let i = rng.below(moves.len());
                moves[i] = rng.pick(&BAD_MOVES).to_string();
            }
            1 if !moves.is_empty() => {
                let last = moves[moves.len() - 1].clone();
                moves.push(last);
            }
            _ => moves.push(rng.pick(&BAD_MOVES).to_string()),
        }
    }
    if moves.is_empty() && rng.percent(50) {
        format!("position {head}")
    } else {
        format!("position {head} moves {}", moves.join(" "))
    }
}

pub(crate) fn clock_args(rng: &mut Rng) -> String {
    let mut s = format!(
        "wtime {} btime {}",
        rng.range(10, 3000),
        rng.range(10, 3000)
    );
    if rng.percent(50) {
        s.push_str(&format!(
            " winc {} binc {}",
            rng.range(0, 100),
            rng.range(0, 100)
        ));
    }
    if rng.percent(30) {
        s.push_str(&format!(" movestogo {}", rng.range(1, 40)));
    }
    s
}

pub(crate) fn uci_go(rng: &mut Rng, m: &mut UciModel, ctx: &Ctx) -> String {
    match rng.below(12) {
        0 | 1 => format!("go depth {}", rng.range(1, 4)),
        2 | 3 => format!("go nodes {}", rng.range(1, 5000)),
        4 | 5 => format!("go movetime {}", rng.range(1, 50)),
        6 | 7 => format!("go {}", clock_args(rng)),
        8 => {
            m.due_stop = Some(rng.range(0, 4));
            "go infinite".to_string()
        }
        9 | 10 => {
            m.due_ponder_end = Some(rng.range(0, 3));
            let limit = match rng.below(5) {
                0 => String::new(),
                1 => format!(" depth {}", rng.range(1, 3)),
                2 => format!(" nodes {}", rng.range(1, 3000)),
                3 => format!(" movetime {}", rng.range(1, 50)),
                _ => format!(" {}", clock_args(rng)),
            };
            format!("go ponder{limit}")
        }
        _ => {
            let vi = m.variant.unwrap_or(0);
            let mut p = Position::startpos(ctx.variant(vi, m.pair));
            let moves = p.legal_moves();
            let some: Vec<String> = (0..1 + rng.below(3))
                .map(|_| p.move_text(moves[rng.below(moves.len())]))
                .collect();
            match rng.below(3) {
                0 => format!(
                    "go searchmoves {} depth {}",
                    some.join(" "),
                    rng.range(1, 3)
                ),
                1 => format!("go mate {}", rng.range(1, 2)),
                _ => format!(
                    "go depth {} searchmoves {}",
                    rng.range(1, 3),
                    some.join(" ")
                ),
            }
        }
    }
}

pub(crate) fn uci_setoption(
    rng: &mut Rng,
    m: &UciModel,
    ctx: &Ctx,
    job: &str,
    files: &mut usize,
) -> String {
    let (name, value) = match rng.below(16) {
        0 => ("Hash", rng.range(1, 64).to_string()),
        1 => ("Threads", rng.range(1, m.threads_max).to_string()),
        2 | 3 => ("MultiPV", rng.range(1, 4).to_string()),
        4 => ("Move Overhead", rng.range(0, 100).to_string()),
        5..=7 => {
            let names = ["chess", "combination", "team-mate", "compound"];
            let junk = [
                "zoo", "big-zoo", "chess960", "Chess", "", "normal", "fz1-0", "x y",
            ];
            let v = if rng.percent(75) {
                *rng.pick(&names)
            } else {
                *rng.pick(&junk)
            };
            ("UCI_Variant", v.to_string())
        }
        8 | 9 => (
            "PairPromotion",
            rng.pick(&["true", "false", "true", "false", "1", "yes", ""])
                .to_string(),
        ),
        10..=13 => ("VariantPath", variant_path(rng, ctx, job, files)),
        14 => ("Ponder", rng.pick(&["true", "false"]).to_string()),
        _ => ("NoSuchOption", "1".to_string()),
    };
    if rng.percent(3) {
        format!("setoption name {name}")
    } else {
        format!("setoption name {name} value {value}")
    }
}

/// The next command of a UCI stream, before mutation.
pub(crate) fn uci_command(rng: &mut Rng, m: &mut UciModel, ctx: &Ctx, job: &str) -> String {
    if let Some(n) = m.due_stop {
        if n == 0 {
            m.due_stop = None;
            return "stop".into();
        }
        m.due_stop = Some(n - 1);
    }
    if let Some(n) = m.due_ponder_end {
        if n == 0 {
            m.due_ponder_end = None;
            return if rng.percent(70) { "ponderhit" } else { "stop" }.into();
        }
        m.due_ponder_end = Some(n - 1);
    }
    let mut files = m.files;
    let line = match rng.below(100) {
        0..=7 => "isready".to_string(),
        8..=11 => "ucinewgame".to_string(),
        12..=26 => uci_setoption(rng, m, ctx, job, &mut files),
        27..=50 => uci_position(rng, m, ctx),
        51..=76 => uci_go(rng, m, ctx),
        77..=83 => "stop".to_string(),
        84..=85 => rng.pick(&["debug on", "debug off"]).to_string(),
        86..=87 => "ponderhit".to_string(),
        88..=91 => rng.pick(&JUNK_COMMANDS).to_string(),
        92..=93 => "uci".to_string(),
        94..=95 => String::new(),
        _ => {
            let start = Position::startpos(ctx.variant(rng.below(4), true)).to_fen();
            format!("position fen {}", mutate_fen(rng, &start))
        }
    };
    m.files = files;
    line
}

/// `isready` must be answered within 15 s. Answers to earlier `isready`
/// lines of the stream may still be on their way, so an unknown command
/// with a fresh number follows it: both are answered in order without the
/// engine, so its error line comes after the answer to this `isready`.
pub(crate) fn uci_probe(st: &mut Stream, m: &mut UciModel) -> bool {
    if m.hazard() {
        // A search the harness cannot bound may run: end it first.
        st.s.say("stop");
        m.observe("stop");
    }
    m.syncs += 1;
    let marker = format!("fuzz-sync-{}", m.syncs);
    let echo = format!("info string error: unknown command: {marker}");
    st.s.say("isready");
    st.s.say(&marker);
    match st.s.expect(ANSWER, |l| l == echo) {
        Ok(lines) if lines.iter().any(|l| l == "readyok") => true,
        Ok(lines) => {
            st.fail(
                "no-readyok",
                format!(
                    "isready after line {} was not answered, the line after it was; last output {}",
                    st.s.lines - 1,
                    last_lines(&lines)
                ),
            );
            false
        }
        Err(Waited::Closed) => {
            st.died("readyok");
            false
        }
        Err(Waited::Timeout(lines)) => {
            st.s.say("stop");
            let after = match st.s.expect(ANSWER, |l| l == echo) {
                Ok(_) => "it came only after a 'stop': a search ran past its limits",
                Err(_) => "none after a 'stop' either",
            };
            st.fail(
                "no-readyok",
                format!(
                    "no readyok within {ANSWER:?} after line {}; {after}; last output {}",
                    st.s.lines - 1,
                    last_lines(&lines)
                ),
            );
            false
        }
    }
}

pub(crate) fn uci_stream(ctx: &Ctx, index: usize) -> usize {
    let mut rng = Rng::for_job(ctx.seed, 1, index);
    let two = rng.percent(35);
    let _permit = ctx.permits.take(if two { 2 } else { 1 });
    let job = format!("uci{index}");
    let mut st = Stream {
        ctx,
        job: format!("UCI stream {index}"),
        key: format!("uci:{index}"),
        xboard: false,
        s: Session::start(&["--uci"]),
        failed: false,
    };
    let mut m = UciModel {
        variant: Some(0),
        pair: true,
        threads_max: if two { 2 } else { 1 },
        ..Default::default()
    };
    st.s.say("uci");
    match st.s.expect(ANSWER, |l| l == "uciok") {
        Ok(_) => {}
        Err(Waited::Closed) => st.died("uciok"),
        Err(Waited::Timeout(_)) => st.fail("no-uciok", "no uciok".into()),
    }
    let count = rng.range(20, 60);
    let mut probe_in = rng.range(10, 20);
    for _ in 0..count {
        if st.failed {
            break;
        }
        let line = uci_command(&mut rng, &mut m, ctx, &job);
        let (bytes, mutated) = maybe_mutate(&mut rng, line.clone());
        if mutated {
            m.mutated = true;
        } else {
            m.observe(&line);
        }
        st.s.send(&bytes);
        if line.starts_with("go") && rng.percent(30) {
            std::thread::sleep(Duration::from_millis(rng.range(1, 30)));
        }
        probe_in -= 1;
        if probe_in == 0 {
            probe_in = rng.range(10, 20);
            uci_probe(&mut st, &mut m);
        }
    }
    if !st.failed {
        uci_final(&mut st, &mut rng, &mut m);
    }
    if !st.failed {
        st.quit();
    }
    if !st.failed {
        st.check_stderr();
    }
    st.keep(&job);
    st.s.lines
}

/// The end of a UCI stream: a search from a legal position must give a legal
/// move.
pub(crate) fn uci_final(st: &mut Stream, rng: &mut Rng, m: &mut UciModel) {
    m.observe("stop");
    st.s.say("stop");
    if !uci_probe(st, m) {
        return;
    }
    let vi = rng.below(4);
    let v = st.ctx.variant(vi, true);
    let (mut pos, moves) = open_walk(rng, &v, false);
    st.s.say("ucinewgame");
    st.s.say(&format!(
        "setoption name VariantPath value {}",
        st.ctx.pristine_ini.display()
    ));
    st.s.say("setoption name PairPromotion value true");
    st.s.say(&format!(
        "setoption name UCI_Variant value {}",
        VARIANTS[vi]
    ));
    if moves.is_empty() {
        st.s.say("position startpos");
    } else {
        st.s.say(&format!("position startpos moves {}", moves.join(" ")));
    }
    // This unknown option waits, as `setoption` does, until every earlier
    // search has ended and printed its move; its error line follows.
    m.syncs += 1;
    st.s.say(&format!("setoption name FuzzSync{} value 1", m.syncs));
    let echo = format!("info string error: unknown option 'fuzzsync{}'", m.syncs);
    let set_up = match st.s.expect(ANSWER, |l| l == echo) {
        Ok(lines) => lines,
        Err(Waited::Closed) => return st.died("the answer to the final set-up"),
        Err(Waited::Timeout(_)) => {
            return st.fail("no-answer", "no answer to the final set-up".into());
        }
    };
    // The built-in file may be refused when a user file loaded before
    // depends on sections it changed: then the variant is not the library's.
    let refused = set_up
        .iter()
        .any(|l| l.starts_with("info string error") && *l != echo);
    let ponder = rng.percent(25);
    let go = if ponder {
        "go ponder depth 3"
    } else {
        "go depth 3"
    };
    st.s.say(go);
    if ponder {
        st.s.say("ponderhit");
    }
    let setup = format!(
        "{} after {}",
        VARIANTS[vi],
        if moves.is_empty() {
            "startpos".into()
        } else {
            moves.join(" ")
        }
    );
    match st.s.expect(MOVE, |l| l.starts_with("bestmove")) {
        Ok(lines) => {
            let best = lines
                .last()
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap_or("")
                .to_string();
            let legal: Vec<String> = pos
                .legal_moves()
                .iter()
                .map(|&mv| pos.move_text(mv))
                .collect();
            st.ctx.count_judged(!refused);
            if !refused && !legal.contains(&best) {
                st.fail(
                    "illegal-bestmove",
                    format!(
                        "'{go}' in {setup}: bestmove '{best}' is not legal; legal: {}",
                        legal.join(" ")
                    ),
                );
            }
        }
        Err(Waited::Closed) => st.died("bestmove"),
        Err(Waited::Timeout(lines)) => {
            st.s.say("stop");
            let after = match st.s.expect(ANSWER, |l| l.starts_with("bestmove")) {
                Ok(_) => "it came only after a 'stop'",
                Err(_) => "none after a 'stop' either",
            };
            let kind = if ponder {
                "ponderhit-no-bestmove"
            } else {
                "no-bestmove"
            };
            let what = if ponder {
                "'go ponder depth 3' then 'ponderhit'"
            } else {
                "'go depth 3'"
            };
            st.fail(
                kind,
                format!(
                    "{what} in {setup}: no bestmove within {MOVE:?}; {after}; last output {}",
                    last_lines(&lines)
                ),
            );
        }
    }
}
