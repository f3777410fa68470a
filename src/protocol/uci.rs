//! UCI front end. `vampirc-uci` parses the messages its grammar knows; the
//! `position` and `go` commands are parsed here, because variant moves (files
//! past h, ranks past 8, stack and Brute letters) are beyond that grammar.
//! Bad input gets an `info string` and changes nothing.

use super::{CommandError, Input, Next, StartupError, first_word};
use crate::engine::search::Limits;
use crate::engine::{Allowed, Engine, EngineError, info_line};
use crate::rules::types::Move;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use vampirc_uci::UciMessage;

/// The default of a string option that is empty, as GUIs write it.
const EMPTY: &str = "<empty>";

/// Default for the `Move Overhead` option, in milliseconds.
const DEFAULT_OVERHEAD_MS: u64 = 30;

struct Uci {
    engine: Arc<Mutex<Engine>>,
    stop: Arc<AtomicBool>,
    search: Option<JoinHandle<()>>,
    overhead: u64,
    /// Time limits of a `go ponder`, applied at `ponderhit`.
    ponder_limits: Option<Limits>,
    /// Set while the running search ponders; cleared at `ponderhit`.
    pondering: Option<Arc<AtomicBool>>,
    /// Counts searches, so that a `ponderhit` timer stops only its own search.
    search_id: Arc<std::sync::atomic::AtomicU64>,
}

/// Run UCI until `quit` or the end of input; `first` is a line already read.
/// `startup_errors` follow the answer to the first command (after `uciok`)
/// as `info string error: ...`.
///
/// The search runs on its own thread and holds the engine, so a command that
/// needs the engine (`position`, `go`, `setoption`, `ucinewgame`, `uci`) waits
/// in a queue while a search runs, and every line after it waits behind it:
/// commands take effect in the order they came. The input is still read
/// meanwhile, so the engine never hangs on a GUI that sends `position` or
/// `go` during `go infinite`: `quit` acts at once, and a waiting `stop` ends
/// the running search and, in its turn, the one a queued `go` starts.
pub fn run(
    engine: Engine,
    rx: Receiver<Input>,
    first: Option<String>,
    mut startup_errors: Vec<StartupError>,
) {
    let stop = engine.stop_handle();
    let mut uci = Uci {
        engine: Arc::new(Mutex::new(engine)),
        stop,
        search: None,
        overhead: DEFAULT_OVERHEAD_MS,
        ponder_limits: None,
        pondering: None,
        search_id: Arc::new(std::sync::atomic::AtomicU64::new(0)),
    };
    let mut queue: VecDeque<String> = first.into_iter().collect();
    'session: loop {
        // The head of the queue goes when the engine is free, or at once when
        // it does not need the engine.
        while let Some(line) = queue.pop_front() {
            if uci.searching() && needs_engine(&line) {
                // A `stop` further back ends every search before it.
                if queue.iter().any(|l| first_word(l) == Some("stop")) {
                    uci.stop.store(true, Ordering::Relaxed);
                }
                queue.push_front(line);
                break;
            }
            if !uci.command(&line) {
                break 'session;
            }
            for e in startup_errors.drain(..) {
                say(&format!("info string error: {}: {}", e.named_in, e.error));
            }
        }
        let line = match super::next_line(&rx, !queue.is_empty()) {
            Next::Line(line) => line,
            Next::Bad(reason, text) => {
                say(&format!("info string error: {reason}: {text}"));
                continue;
            }
            Next::Idle => continue,
            Next::End => break,
        };
        if first_word(&line) == Some("quit") {
            break;
        }
        queue.push_back(line);
    }
    uci.stop.store(true, Ordering::Relaxed);
    uci.wait();
}

/// Commands that use the engine, which a running search holds. The parser
/// also takes some of them in other forms (`UCINEWGAME`, `SetOption`, a
/// control character after the word), which must wait too: run at once,
/// they would block the loop until the search ends, and a search without
/// an end (`go infinite`, `go ponder`) would then never see the `stop`.
fn needs_engine(line: &str) -> bool {
    matches!(
        first_word(line),
        Some("position" | "go" | "setoption" | "ucinewgame" | "uci")
    ) || matches!(
        vampirc_uci::parse_one(line),
        UciMessage::Uci
            | UciMessage::UciNewGame
            | UciMessage::SetOption { .. }
            | UciMessage::Position { .. }
            | UciMessage::Go { .. }
    )
}

/// What a GUI that does not know the variant needs to draw it, in
/// Fairy-Stockfish's form: `info string variant NAME files F ranks R pocket 0
/// template PARENT startpos FEN`. None for a variant GUIs know (no piece
/// table of its own).
fn variant_line(v: &crate::rules::variant::Variant) -> Option<String> {
    if v.xboard.piece_table.is_empty() {
        return None;
    }
    let template = if v.xboard.parent.is_empty() {
        "fairy"
    } else {
        v.xboard.parent.as_str()
    };
    Some(format!(
        "info string variant {} files {} ranks {} pocket 0 template {template} startpos {}",
        v.name, v.files, v.ranks, v.start_fen
    ))
}

/// A count from outside as a u32: the largest one when it does not fit.
fn saturate_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn say(s: &str) {
    crate::util::output::line(s);
}

impl Uci {
    /// Whether a search is running (it holds the engine).
    fn searching(&self) -> bool {
        self.search.as_ref().is_some_and(|h| !h.is_finished())
    }

    /// Wait for a running search to end.
    fn wait(&mut self) {
        if let Some(h) = self.search.take() {
            let _ = h.join();
        }
    }

    fn engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        match self.engine.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Handle one line; false on `quit`.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else {
            return true;
        };
        match cmd {
            "position" => {
                self.wait();
                if let Err(e) = self.position(&words[1..]) {
                    say(&format!("info string error: {e}"));
                }
                return true;
            }
            "go" => {
                self.wait();
                if let Err(e) = self.go(&words[1..]) {
                    say(&format!("info string error: {e}"));
                }
                return true;
            }
            // Fairy-Stockfish's command for a variant file: as `VariantPath`.
            "load" => {
                self.wait();
                let path = line.trim_start()[cmd.len()..].trim();
                let result = if path.is_empty() {
                    Err(CommandError::from("load needs a file"))
                } else {
                    self.set_option("VariantPath", path)
                };
                if let Err(e) = result {
                    say(&format!("info string error: {e}"));
                }
                return true;
            }
            _ => {}
        }
        match vampirc_uci::parse_one(line) {
            UciMessage::Uci => self.identify(),
            UciMessage::IsReady => say("readyok"),
            UciMessage::UciNewGame => {
                self.wait();
                let mut e = self.engine();
                e.new_game();
                let _ = e.set_position(None, &[]);
            }
            UciMessage::SetOption { name, value } => {
                self.wait();
                if let Err(e) = self.set_option(&name, value.as_deref().unwrap_or("")) {
                    say(&format!("info string error: {e}"));
                }
            }
            UciMessage::Stop => self.stop.store(true, Ordering::Relaxed),
            UciMessage::PonderHit => self.ponderhit(),
            UciMessage::Quit => return false,
            UciMessage::Debug(_) | UciMessage::Register { .. } => {}
            _ => say(&format!(
                "info string error: unknown command: {}",
                line.trim()
            )),
        }
        true
    }

    fn identify(&self) {
        let e = self.engine();
        say(&format!("id name Amalgam {}", env!("CARGO_PKG_VERSION")));
        say("id author the Amalgam developers");
        say(&format!(
            "option name Hash type spin default {} min 1 max {}",
            crate::engine::DEFAULT_HASH_MB,
            crate::engine::MAX_HASH_MB
        ));
        say("option name Threads type spin default 1 min 1 max 256");
        say("option name MultiPV type spin default 1 min 1 max 256");
        say("option name Ponder type check default false");
        say(&format!(
            "option name Move Overhead type spin default {DEFAULT_OVERHEAD_MS} min 0 max 5000"
        ));
        let vars: String = e
            .variants()
            .names()
            .iter()
            .map(|n| format!(" var {n}"))
            .collect();
        say(&format!(
            "option name UCI_Variant type combo default {}{vars}",
            e.variant().name
        ));
        say(&format!(
            "option name VariantPath type string default {EMPTY}"
        ));
        say(&format!(
            "option name UseNNUE type check default {}",
            e.use_nnue()
        ));
        let (min, max) = e.elo_range();
        say(&format!(
            "option name UCI_LimitStrength type check default {}",
            e.limit_strength()
        ));
        say(&format!(
            "option name UCI_Elo type spin default {} min {min} max {max}",
            e.elo()
        ));
        // Offered only when a loaded variant defines a pair promotion.
        let has_pair = e.variants().names().iter().any(|n| {
            e.variants()
                .compile(n)
                .is_ok_and(|v| v.has_pair_promotion())
        });
        if has_pair {
            say(&format!(
                "option name PairPromotion type check default {}",
                e.pair_promotion()
            ));
        }
        say("uciok");
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), CommandError> {
        let bad_value = |allowed| EngineError::BadOption {
            name: name.to_string(),
            value: value.to_string(),
            allowed,
        };
        let number = || {
            value
                .trim()
                .parse::<usize>()
                .map_err(|_| bad_value(Allowed::Number))
        };
        let mut e = self.engine();
        match name.trim().to_ascii_lowercase().as_str() {
            "hash" => e.set_hash_mb(number()?)?,
            "threads" => e.set_threads(number()?),
            "multipv" => e.set_multipv(number()?),
            "ponder" => {}
            "move overhead" => {
                let n = number()? as u64;
                drop(e);
                self.overhead = n;
            }
            "uci_variant" => {
                e.set_variant(value.trim())?;
                if let Some(line) = variant_line(e.variant()) {
                    say(&line);
                }
            }
            "pairpromotion" => match value.trim() {
                "true" => e.set_pair_promotion(true)?,
                "false" => e.set_pair_promotion(false)?,
                _ => return Err(bad_value(Allowed::TrueOrFalse).into()),
            },
            "usennue" => match value.trim() {
                "true" => e.set_use_nnue(true),
                "false" => e.set_use_nnue(false),
                _ => return Err(bad_value(Allowed::TrueOrFalse).into()),
            },
            "uci_limitstrength" => match value.trim() {
                "true" => e.set_limit_strength(true),
                "false" => e.set_limit_strength(false),
                _ => return Err(bad_value(Allowed::TrueOrFalse).into()),
            },
            "uci_elo" => {
                let (min, max) = e.elo_range();
                let elo = value
                    .trim()
                    .parse::<u32>()
                    .map_err(|_| bad_value(Allowed::Range { min, max }))?;
                e.set_elo(elo)?
            }
            // Nothing to load: an empty value, as in XBoard, or the default
            // the option advertises.
            "variantpath" if matches!(value.trim(), "" | EMPTY) => {}
            "variantpath" => {
                let path = value.trim();
                let names = e.load_variant_file(path)?;
                say(&format!("info string loaded {}", names.join(", ")));
            }
            other => return Err(format!("unknown option '{other}'").into()),
        }
        Ok(())
    }

    fn position(&mut self, args: &[&str]) -> Result<(), CommandError> {
        let moves_at = args.iter().position(|w| *w == "moves");
        let (head, moves) = match moves_at {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &args[args.len()..]),
        };
        let fen = match head.first() {
            Some(&"startpos") if head.len() == 1 => None,
            Some(&"fen") if head.len() > 1 => Some(head[1..].join(" ")),
            _ => return Err("position needs 'startpos' or 'fen FEN'".into()),
        };
        Ok(self.engine().set_position(fen.as_deref(), moves)?)
    }

    fn go(&mut self, args: &[&str]) -> Result<(), CommandError> {
        let mut limits = Limits {
            overhead: self.overhead,
            ..Default::default()
        };
        let (mut wtime, mut btime, mut winc, mut binc) = (None, None, 0, 0);
        let mut ponder = false;
        let mut search_moves: Vec<Move> = Vec::new();
        let mut i = 0;
        let num = |i: usize| -> Result<u64, CommandError> {
            args.get(i + 1)
                .and_then(|s| s.parse::<i64>().ok())
                .map(|n| n.max(0) as u64)
                .ok_or_else(|| CommandError::Usage(format!("go {}: needs a number", args[i])))
        };
        let mut pos = self.engine().position().clone();
        while i < args.len() {
            match args[i] {
                "wtime" => wtime = Some(num(i)?),
                "btime" => btime = Some(num(i)?),
                "winc" => winc = num(i)?,
                "binc" => binc = num(i)?,
                "movestogo" => limits.movestogo = Some(saturate_u32(num(i)?)),
                "depth" => limits.depth = Some(saturate_u32(num(i)?)),
                "nodes" => limits.nodes = Some(num(i)?),
                "movetime" => limits.movetime = Some(num(i)?),
                "mate" => limits.depth = Some(saturate_u32(num(i)?.saturating_mul(2))),
                "infinite" => {
                    limits.infinite = true;
                    i += 1;
                    continue;
                }
                "ponder" => {
                    ponder = true;
                    i += 1;
                    continue;
                }
                "searchmoves" => {
                    i += 1;
                    while i < args.len() {
                        match pos.parse_move(args[i]) {
                            Ok(m) => search_moves.push(m),
                            Err(_) => break,
                        }
                        i += 1;
                    }
                    continue;
                }
                other => return Err(format!("go: unknown parameter '{other}'").into()),
            }
            i += 2;
        }
        let white = pos.side_to_move() == crate::Color::White;
        let (mine, theirs, inc, oinc) = if white {
            (wtime, btime, winc, binc)
        } else {
            (btime, wtime, binc, winc)
        };
        limits.time = mine;
        limits.opponent_time = theirs;
        limits.inc = inc;
        limits.opponent_inc = oinc;
        if ponder {
            // The clock applies from `ponderhit` on; the depth, node and
            // mate limits from now.
            let flag = Arc::new(AtomicBool::new(true));
            self.ponder_limits = Some(limits.clone());
            self.pondering = Some(flag.clone());
            limits = Limits {
                depth: limits.depth,
                nodes: limits.nodes,
                infinite: limits.infinite,
                ponder: Some(flag),
                ..Default::default()
            };
        } else {
            self.ponder_limits = None;
            self.pondering = None;
        }
        let engine = self.engine.clone();
        self.search_id.fetch_add(1, Ordering::Relaxed);
        self.stop.store(false, Ordering::Relaxed);
        self.search = Some(
            std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn(move || {
                    let mut e = match engine.lock() {
                        Ok(g) => g,
                        Err(p) => p.into_inner(),
                    };
                    if let Some(news) = e.evaluation_news() {
                        say(&format!("info string {news}"));
                    }
                    let root = e.position().clone();
                    let r = e.go(&limits, &search_moves, &mut |info| {
                        say(&info_line(&root, info))
                    });
                    let best = r.best.map(|m| root.move_text(m));
                    match best {
                        None => say("bestmove 0000"),
                        Some(b) => {
                            let mut after = root.clone();
                            if let Some(m) = r.best {
                                after.make(m);
                            }
                            match r.ponder.filter(|p| after.legal_moves().contains(p)) {
                                Some(p) => {
                                    say(&format!("bestmove {b} ponder {}", after.move_text(p)))
                                }
                                None => say(&format!("bestmove {b}")),
                            }
                        }
                    }
                })
                .map_err(|e| format!("cannot start the search: {e}"))?,
        );
        Ok(())
    }

    /// The opponent played the expected move: the ponder search becomes a
    /// timed one, stopped after the budget its clock allows.
    fn ponderhit(&mut self) {
        let Some(limits) = self.ponder_limits.take() else {
            return;
        };
        if let Some(flag) = self.pondering.take() {
            flag.store(false, Ordering::Relaxed);
        }
        let budget = limits.budget();
        let stop = self.stop.clone();
        let ids = self.search_id.clone();
        let id = ids.load(Ordering::Relaxed);
        if let Some(soft) = budget.soft {
            std::thread::spawn(move || {
                std::thread::sleep(soft);
                if ids.load(Ordering::Relaxed) == id {
                    stop.store(true, Ordering::Relaxed);
                }
            });
        }
    }
}
