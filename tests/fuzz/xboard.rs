//! XBoard streams: a grammar of commands in the GUI's forms, some mutated.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Force,
    Plays(Color),
    Unknown,
}

pub(crate) struct XbModel {
    pub(crate) variant: Option<usize>,
    /// The engine's position, while the harness knows it.
    pub(crate) pos: Option<Position>,
    pub(crate) side: Side,
    pub(crate) analyzing: bool,
    pub(crate) pair: bool,
    pub(crate) threads_max: u64,
    /// A mutated line may have set a clock that makes a search run long.
    pub(crate) hazard: bool,
    /// `VariantPath` values sent unmutated, in order.
    pub(crate) loaded: Vec<String>,
    pub(crate) files: usize,
    /// `SplitCommand` is on: moves go both ways in the split form.
    pub(crate) split: bool,
}

pub(crate) fn xb_variant_index(name: &str) -> Option<usize> {
    match name {
        "normal" => Some(0),
        n => VARIANTS.iter().position(|v| *v == n),
    }
}

impl XbModel {
    /// The move forms the engine reads and writes now.
    pub(crate) fn gui(&self) -> Gui {
        if self.split { Gui::Split } else { Gui::Classic }
    }

    pub(crate) fn startpos(&self, ctx: &Ctx) -> Option<Position> {
        self.variant
            .map(|i| Position::startpos(ctx.variant(i, self.pair)))
    }

    /// Update from an unmutated line.
    pub(crate) fn observe(&mut self, line: &str, ctx: &Ctx) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else { return };
        match cmd {
            "new" => {
                self.variant = Some(0);
                self.pos = self.startpos(ctx);
                self.side = Side::Plays(Color::Black);
            }
            "variant" => {
                if let Some(i) = words.get(1).and_then(|n| xb_variant_index(n)) {
                    self.variant = Some(i);
                    self.pos = self.startpos(ctx);
                }
            }
            "force" | "result" => self.side = Side::Force,
            "go" => {
                self.pos = None;
                self.side = Side::Unknown;
                self.analyzing = false;
            }
            "playother" => {
                self.side = match &self.pos {
                    Some(p) => Side::Plays(p.side_to_move().flip()),
                    None => Side::Unknown,
                };
            }
            "setboard" => {
                let fen = line["setboard".len()..].trim();
                self.pos = self
                    .variant
                    .and_then(|i| Position::from_fen(ctx.variant(i, self.pair), fen).ok());
            }
            "undo" | "remove" => {
                let n = if cmd == "undo" { 1 } else { 2 };
                if let Some(p) = &mut self.pos
                    && p.ply_count() >= n
                {
                    for _ in 0..n {
                        p.unmake();
                    }
                }
            }
            "analyze" => {
                self.analyzing = true;
                self.side = Side::Force;
            }
            "exit" => self.analyzing = false,
            "option" => {
                let rest = line["option".len()..].trim();
                if let Some(v) = rest.strip_prefix("PairPromotion=") {
                    let on = match v {
                        "1" => true,
                        "0" => false,
                        _ => return,
                    };
                    if on != self.pair {
                        self.pair = on;
                        self.pos = self.startpos(ctx);
                    }
                } else if let Some(v) = rest.strip_prefix("VariantPath=")
                    && !v.is_empty()
                {
                    self.loaded.push(v.to_string());
                }
            }
            _ => {
                let text = match words.as_slice() {
                    ["usermove", mv] => Some(*mv),
                    [mv] if mv.len() >= 4 && mv.as_bytes()[1].is_ascii_digit() => Some(*mv),
                    _ => None,
                };
                let gui = self.gui();
                if let (Some(text), Some(p)) = (text, &mut self.pos)
                    && let Ok(mv) = moves::from_gui(p, text, gui)
                {
                    p.make(mv);
                    let over = amalgam::rules::game::outcome(p).is_some();
                    let stm = p.side_to_move();
                    let replies = !self.analyzing
                        && !over
                        && (self.side == Side::Unknown || self.side == Side::Plays(stm));
                    if replies {
                        self.pos = None;
                    }
                }
            }
        }
    }
}

pub(crate) fn xb_usermove(rng: &mut Rng, m: &mut XbModel, ctx: &Ctx) -> String {
    let gui = m.gui();
    let text = match &mut m.pos {
        Some(p) if rng.percent(85) => {
            let list = p.legal_moves();
            if list.is_empty() {
                rng.pick(&BAD_MOVES).to_string()
            } else {
                moves::gui_text(p, list[rng.below(list.len())], gui)
            }
        }
        _ => {
            if rng.percent(50) {
                rng.pick(&BAD_MOVES).to_string()
            } else {
                // A legal move of some other position.
                let v = ctx.variant(rng.below(4), true);
                let plies = rng.below(6);
                let (mut p, _) = walk(rng, &v, plies);
                let list = p.legal_moves();
                if list.is_empty() {
                    "e2e4".into()
                } else {
                    moves::gui_text(&p, list[rng.below(list.len())], gui)
                }
            }
        }
    };
    if rng.percent(15) {
        text
    } else {
        format!("usermove {text}")
    }
}

pub(crate) fn xb_command(rng: &mut Rng, m: &mut XbModel, ctx: &Ctx, job: &str) -> String {
    if m.pos.is_none() && rng.percent(25) {
        // Back to a position the harness knows, so that legal moves follow.
        let v = *rng.pick(&["normal", "combination", "team-mate", "compound"]);
        return if rng.percent(30) {
            "new".into()
        } else {
            format!("variant {v}")
        };
    }
    match rng.below(100) {
        0..=3 => "new".into(),
        4..=9 => {
            let names = ["chess", "normal", "combination", "team-mate", "compound"];
            let junk = [
                "zoo",
                "big-zoo",
                "10x8_compound",
                "8x8_normal",
                "suicide",
                "",
                "fz1-0",
            ];
            let v = if rng.percent(80) {
                *rng.pick(&names)
            } else {
                *rng.pick(&junk)
            };
            format!("variant {v}")
        }
        10..=14 => "force".into(),
        15..=34 => xb_usermove(rng, m, ctx),
        35..=39 => "go".into(),
        40..=41 => "?".into(),
        42..=48 => {
            let vi = m
                .variant
                .filter(|_| rng.percent(85))
                .unwrap_or_else(|| rng.below(4));
            let v = ctx.variant(vi, m.pair);
            let plies = rng.below(21);
            let (p, _) = walk(rng, &v, plies);
            let fen = p.to_fen();
            let fen = if rng.percent(25) {
                mutate_fen(rng, &fen)
            } else {
                fen
            };
            format!("setboard {fen}")
        }
        49..=51 => format!("time {}", rng.range(1, 6000)),
        52..=54 => format!("otim {}", rng.range(1, 6000)),
        55..=56 => rng
            .pick(&[
                "level 40 0:05 0",
                "level 0 0:10 0.1",
                "level 40 0:05 0",
                "level 0 0:03 0",
            ])
            .to_string(),
        57..=58 => format!("st 0.0{}", rng.range(1, 9)),
        59..=61 => format!("sd {}", rng.range(1, 4)),
        62..=63 => format!("ping {}", rng.range(1, 999)),
        64..=67 => rng
            .pick(&["analyze", ".", "exit", "analyze", "."])
            .to_string(),
        68..=70 => rng.pick(&["undo", "remove"]).to_string(),
        71..=72 => format!("memory {}", rng.range(1, 64)),
        73 => format!("cores {}", rng.range(1, m.threads_max)),
        74..=77 => {
            let mut files = m.files;
            let p = variant_path(rng, ctx, job, &mut files);
            m.files = files;
            format!("option VariantPath={p}")
        }
        78..=79 => format!(
            "option PairPromotion={}",
            rng.pick(&["0", "1", "0", "1", "2", ""])
        ),
        80..=81 => rng.pick(&["post", "nopost"]).to_string(),
        82..=83 => rng.pick(&["hard", "easy"]).to_string(),
        84 => "result 1-0 {x}".into(),
        85 => "draw".into(),
        86 => "hint".into(),
        87..=88 => "playother".into(),
        89..=90 => rng
            .pick(&[
                "computer",
                "random",
                "name x",
                "accepted setboard",
                "protover 2",
            ])
            .to_string(),
        91..=94 => rng.pick(&JUNK_COMMANDS).to_string(),
        95..=96 => String::new(),
        _ => {
            let start = Position::startpos(ctx.variant(rng.below(4), true)).to_fen();
            format!("setboard {}", mutate_fen(rng, &start))
        }
    }
}

/// `option SplitCommand=...`, by its name or its long label, mostly 0 or 1.
pub(crate) fn split_option(rng: &mut Rng) -> String {
    let name = if rng.percent(30) {
        "SplitCommand (XBoard v4.9.x (2025-11-28) or later only)"
    } else {
        "SplitCommand"
    };
    let value = *rng.pick(&["0", "1", "0", "1", "0", "1", "", "2", "true", "-1"]);
    format!("option {name}={value}")
}

/// Whether a mutated line may have set a clock or depth the harness cannot
/// bound.
pub(crate) fn clock_line(bytes: &[u8]) -> bool {
    String::from_utf8_lossy(bytes).split('\n').any(|l| {
        matches!(
            l.split_whitespace().next(),
            Some("time" | "otim" | "level" | "st" | "sd")
        )
    })
}

pub(crate) fn xb_probe(st: &mut Stream, m: &mut XbModel, n: &mut u64) -> bool {
    if m.hazard {
        // The engine may think with a huge clock: make it move, then stop.
        st.s.say("?");
        st.s.say("force");
        m.side = Side::Force;
        m.pos = None;
    }
    *n += 1;
    let pong = format!("pong {}", 100_000 + *n);
    st.s.say(&format!("ping {}", 100_000 + *n));
    match st.s.expect(ANSWER, |l| l == pong) {
        Ok(_) => true,
        Err(Waited::Closed) => {
            st.died(&pong);
            false
        }
        Err(Waited::Timeout(lines)) => {
            st.s.say("?");
            st.s.say("force");
            let after = match st.s.expect(ANSWER, |l| l == pong) {
                Ok(_) => "it came only after '?' and 'force'",
                Err(_) => "none after '?' and 'force' either",
            };
            st.fail(
                "no-pong",
                format!(
                    "no '{pong}' within {ANSWER:?} after line {}; {after}; last output {}",
                    st.s.lines,
                    last_lines(&lines)
                ),
            );
            false
        }
    }
}

pub(crate) fn xboard_stream(ctx: &Ctx, index: usize) -> usize {
    let mut rng = Rng::for_job(ctx.seed, 2, index);
    let two = rng.percent(35);
    let _permit = ctx.permits.take(if two { 2 } else { 1 });
    let job = format!("xboard{index}");
    let mut st = Stream {
        ctx,
        job: format!("XBoard stream {index}"),
        key: format!("xboard:{index}"),
        xboard: true,
        s: Session::start(&[]),
        failed: false,
    };
    let mut m = XbModel {
        variant: Some(0),
        pos: Some(Position::startpos(ctx.variant(0, true))),
        side: Side::Plays(Color::Black),
        analyzing: false,
        pair: true,
        threads_max: if two { 2 } else { 1 },
        hazard: false,
        loaded: Vec::new(),
        files: 0,
        split: false,
    };
    st.s.say("xboard");
    st.s.say("protover 2");
    match st.s.expect(ANSWER, |l| l == "feature done=1") {
        Ok(_) => {}
        Err(Waited::Closed) => st.died("feature done=1"),
        Err(Waited::Timeout(_)) => st.fail("no-features", "no 'feature done=1'".into()),
    }
    // Mostly short searches, so that moves come out between the commands.
    match rng.below(4) {
        0 | 1 => st.s.say(&format!("st 0.0{}", rng.range(1, 9))),
        2 => st.s.say(&format!("sd {}", rng.range(1, 3))),
        _ => {}
    }
    if rng.percent(25) {
        // A Combination game from the start (stack moves, split or not).
        m.observe("variant combination", ctx);
        st.s.say("variant combination");
    }
    let mut pings = 0;
    let count = rng.range(20, 60);
    let mut probe_in = rng.range(10, 20);
    for _ in 0..count {
        if st.failed {
            break;
        }
        if rng.percent(6) {
            // The GUI's split command switched on or off mid-game.
            let line = split_option(&mut rng);
            // Only 0 and 1 are taken; the engine refuses other values.
            if let Some(on) = line
                .strip_suffix("=1")
                .map(|_| true)
                .or(line.strip_suffix("=0").map(|_| false))
            {
                m.split = on;
            }
            st.s.say(&line);
        }
        let line = xb_command(&mut rng, &mut m, ctx, &job);
        let (bytes, mutated) = maybe_mutate(&mut rng, line.clone());
        if mutated {
            m.pos = None;
            m.side = Side::Unknown;
            m.hazard |= clock_line(&bytes);
        } else {
            m.observe(&line, ctx);
        }
        st.s.send(&bytes);
        // Time to think: a search is ended by most commands that follow.
        if (line == "go" || line.starts_with("usermove")) && rng.percent(60) {
            std::thread::sleep(Duration::from_millis(rng.range(5, 80)));
        }
        probe_in -= 1;
        if probe_in == 0 {
            probe_in = rng.range(10, 20);
            xb_probe(&mut st, &mut m, &mut pings);
        }
    }
    if !st.failed {
        xb_final(&mut st, &mut rng, &mut m, &mut pings);
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

/// The variant that `variant NAME` selects in a set (XBoard name first, as
/// the engine looks it up).
pub(crate) fn xb_lookup(set: &VariantSet, name: &str) -> Option<String> {
    set.names()
        .iter()
        .find(|n| set.compile(n).is_ok_and(|v| v.xboard.name == name))
        .or_else(|| set.names().iter().find(|n| n.as_str() == name))
        .cloned()
}

/// The end of an XBoard stream: `sd 3` and `go` from a legal position must
/// give a legal move.
pub(crate) fn xb_final(st: &mut Stream, rng: &mut Rng, m: &mut XbModel, pings: &mut u64) {
    m.hazard = true;
    if !xb_probe(st, m, pings) {
        return;
    }
    let vi = rng.below(4);
    let v = st.ctx.variant(vi, true);
    let (p, moves) = open_walk(rng, &v, true);
    let fen = p.to_fen();
    let pristine = st.ctx.pristine_ini.display().to_string();
    for line in [
        "new".to_string(),
        format!("option VariantPath={pristine}"),
        "option PairPromotion=1".to_string(),
        format!("variant {}", VARIANTS[vi]),
        format!("setboard {fen}"),
        "level 40 0:05 0".to_string(),
        "sd 3".to_string(),
    ] {
        st.s.say(&line);
    }
    *pings += 1;
    let pong = format!("pong {}", 100_000 + *pings);
    st.s.say(&format!("ping {}", 100_000 + *pings));
    let set_up = match st.s.expect(ANSWER, |l| l == pong) {
        Ok(lines) => lines,
        Err(Waited::Closed) => return st.died("pong before the final search"),
        Err(Waited::Timeout(_)) => {
            return st.fail("no-pong", "no pong after the final set-up".into());
        }
    };
    // What the engine's variant set is now, replayed with the library (the
    // engine survived these loads, so the library does too).
    let mut set = st.ctx.builtin.clone();
    for f in m.loaded.iter().chain([&pristine]) {
        let _ = amalgam::engine::eval::load_file_checked(&mut set, f);
    }
    let same_variant = xb_lookup(&set, VARIANTS[vi]).as_deref() == Some(VARIANTS[vi]);
    let refused = set_up.iter().any(|l| l.starts_with("Error"));
    st.s.say("go");
    let setup = format!("{} '{fen}' (from start: {})", VARIANTS[vi], moves.join(" "));
    let mut legs: Vec<String> = Vec::new();
    loop {
        match st.s.expect(MOVE, |l| l.starts_with("move ")) {
            Ok(lines) => {
                let leg = lines.last().map_or("", |l| &l[5..]).trim().to_string();
                let more = leg.ends_with(',');
                legs.push(leg);
                if !more {
                    break;
                }
            }
            Err(Waited::Closed) => return st.died("move"),
            Err(Waited::Timeout(lines)) => {
                return st.fail(
                    "no-move",
                    format!(
                        "'sd 3', 'go' in {setup}: no move within {MOVE:?}; last output {}",
                        last_lines(&lines)
                    ),
                );
            }
        }
    }
    let played = legs.concat();
    let mut pos = Position::from_fen(v.clone(), &fen).expect("own FEN");
    let legal: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|&mv| moves::to_gui_joined(&pos, mv, m.gui()))
        .collect();
    st.ctx.count_judged(!refused && same_variant);
    if !refused && same_variant && !legal.contains(&played) {
        st.fail(
            "illegal-move",
            format!(
                "'sd 3', 'go' in {setup}: 'move {played}' is not legal; legal: {}",
                legal.join(" ")
            ),
        );
    }
}
