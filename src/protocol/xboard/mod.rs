//! XBoard (CECP v2) front end. Searches run on their own thread; this thread
//! keeps reading input meanwhile: `?`, `.` and `quit` act at once, `ping`
//! is answered at once while the engine ponders or analyses and after the
//! move while it thinks on its own move (as the protocol asks), and a
//! command that must wait for our move never blocks the reading of the ones
//! after it. Commands are handled by group in [`commands`]. Moves are
//! translated to and from the GUI's forms in [`moves`]; variant set-up and
//! result claims are in [`setup`], the piece table's glyph slots in
//! [`glyphs`]. Bad input gets `Illegal move: ...` or `Error (...): ...` and
//! changes nothing.

mod clock;
mod commands;
mod entry;
mod glyphs;
pub mod moves;
pub mod pictures;
mod search;
pub mod setup;
pub mod split;

use super::{CommandError, Input, Next, StartupError, first_word};
use crate::engine::Engine;
use crate::rules::board::Position;
use crate::rules::types::Color;
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use clock::Clock;
use search::{Job, JobKind, Shared};
use std::collections::VecDeque;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};

struct Xboard {
    engine: Arc<Mutex<Engine>>,
    shared: Arc<Shared>,
    job: Option<Job>,
    clock: Clock,
    /// The side the engine plays; None in force mode.
    side: Option<Color>,
    analyzing: bool,
    /// Copies of the engine's variant set, current variant and pair
    /// promotion setting, so that `variant`, `setboard` and `protover` are
    /// answered without waiting for a search that holds the engine (see
    /// [`Xboard::mirror`]).
    variants: VariantSet,
    variant: Arc<Variant>,
    pair_promotion: bool,
    /// The engine's `UseNNUE` setting, for the feature list.
    use_nnue: bool,
    /// The engine's strength setting, for the feature list.
    strength: commands::StrengthCopy,
    /// The position of a `setboard` that follows a `variant` in the input
    /// already read (see [`setboard_ahead`]).
    setboard_ahead: Option<String>,
    /// A person's move entry in progress (`lift`, `put`).
    entry: entry::Entry,
}

/// How long input is read ahead after a `variant` command.
const READ_AHEAD: std::time::Duration = std::time::Duration::from_millis(30);

/// Read the lines that arrive within [`READ_AHEAD`] of each other into the
/// queue.
fn read_ahead(rx: &Receiver<Input>, queue: &mut VecDeque<Input>) {
    while let Ok(input) = rx.recv_timeout(READ_AHEAD) {
        queue.push_back(input);
    }
}

/// The FEN of the first `setboard` in the queue before anything that starts
/// play or changes the variant to another one. The GUI sends `variant` and,
/// for a position it loaded, `setboard` at once, then reads the engine's
/// `setup` reply; that reply sets its board, so it must hold this position.
fn setboard_ahead(queue: &VecDeque<Input>, variant: &str) -> Option<String> {
    for input in queue {
        let Input::Line(line) = input else { continue };
        let mut words = line.split_whitespace();
        match words.next() {
            Some("setboard") => return Some(words.collect::<Vec<_>>().join(" ")),
            Some("variant") if words.next() == Some(variant) => {}
            Some(
                "variant" | "go" | "usermove" | "playother" | "analyze" | "edit" | "white"
                | "black",
            ) => return None,
            // A move without `usermove`.
            Some(w)
                if w.starts_with(|c: char| c.is_ascii_lowercase())
                    && w.len() >= 4
                    && w.chars().any(|c| c.is_ascii_digit()) =>
            {
                return None;
            }
            _ => {}
        }
    }
    None
}

fn say(s: &str) {
    crate::util::output::line(s);
}

/// Report errors met before the session began, once: for each, an `Error`
/// line of fixed text, then the error after `#`. XBoard reads parts of an
/// `Error` line (`draw`, `time`, `analyze`, `protover`, ... switch features
/// off), so the error's own text, which holds file names, goes only in the
/// debug line.
fn report_startup_errors(errors: &mut Vec<StartupError>) {
    for e in errors.drain(..) {
        say(&format!("Error (variant file not loaded): {}", e.named_in));
        say(&format!("# {}: {}", e.named_in, e.error));
    }
}

/// Run XBoard until `quit` or the end of input. `startup_errors` follow the
/// answer to the first command after `xboard`: the feature list, when it is
/// `protover`, so that the GUI reads `#` lines as debug output (see
/// [`report_startup_errors`]).
pub fn run(engine: Engine, rx: Receiver<Input>, mut startup_errors: Vec<StartupError>) {
    let shared = Arc::new(Shared::new(engine.stop_handle()));
    let (variants, variant, pair_promotion) = copies(&engine);
    let strength = commands::StrengthCopy::of(&engine);
    let mut xb = Xboard {
        engine: Arc::new(Mutex::new(engine)),
        shared,
        job: None,
        clock: Clock::default(),
        side: Some(Color::Black),
        analyzing: false,
        variants,
        variant,
        pair_promotion,
        use_nnue: true,
        strength,
        setboard_ahead: None,
        entry: entry::Entry::default(),
    };
    // Lines wait in `queue` behind a command that waits for our move (see
    // [`waits_for_move`]), so that they take effect in the order they came,
    // while input is still read: `quit`, `?` and `.` act at once, and a
    // command that would end the search anyway ends it now.
    let mut queue: VecDeque<Input> = VecDeque::new();
    'session: loop {
        while let Some(input) = queue.pop_front() {
            let line = match input {
                Input::Line(line) => line,
                Input::Bad { reason, text } => {
                    say(&format!("Error ({reason}): {text}"));
                    continue;
                }
            };
            if xb.thinking() && waits_for_move(&line) {
                // Lines read ahead after a `variant` are in the queue already,
                // so they get here what a line read now gets below.
                if act_at_once(&mut xb, &mut queue) {
                    break 'session;
                }
                queue.push_front(Input::Line(line));
                break;
            }
            let mut words = line.split_whitespace();
            if words.next() == Some("variant") {
                read_ahead(&rx, &mut queue);
                xb.setboard_ahead = words.next().and_then(|name| setboard_ahead(&queue, name));
            }
            if !xb.command(line.trim()) {
                break 'session;
            }
            if first_word(&line) != Some("xboard") {
                report_startup_errors(&mut startup_errors);
            }
        }
        let line = match super::next_line(&rx, !queue.is_empty()) {
            Next::Line(line) => line,
            Next::Bad(reason, text) => {
                say(&format!("Error ({reason}): {text}"));
                continue;
            }
            Next::Idle => continue,
            Next::End => break,
        };
        match first_word(&line) {
            Some("quit") => break,
            Some("?" | ".") if !queue.is_empty() => {
                xb.command(line.trim());
                continue;
            }
            Some(cmd) if !queue.is_empty() && ends_search(cmd) => xb.abort(),
            _ => {}
        }
        queue.push_back(Input::Line(line));
    }
    xb.abort();
}

/// While the head of the queue waits for our move: `?` and `.` in the
/// queue act now (and leave it), and a command that ends the search ends it
/// now (and stays, to act in its turn). True on a queued `quit`.
fn act_at_once(xb: &mut Xboard, queue: &mut VecDeque<Input>) -> bool {
    let mut rest = VecDeque::with_capacity(queue.len());
    for input in queue.drain(..) {
        let Input::Line(line) = &input else {
            rest.push_back(input);
            continue;
        };
        match first_word(line) {
            Some("quit") => return true,
            Some("?" | ".") => {
                xb.command(line.trim());
                continue;
            }
            Some(cmd) if ends_search(cmd) => xb.abort(),
            _ => {}
        }
        rest.push_back(input);
    }
    *queue = rest;
    false
}

/// The engine's settings that the front end keeps copies of (see
/// [`Xboard::mirror`]).
fn copies(e: &Engine) -> (VariantSet, Arc<Variant>, bool) {
    (
        e.variants().clone(),
        e.variant().clone(),
        e.pair_promotion(),
    )
}

/// Commands that wait until the search for our move has played it: those
/// that change what a search uses, and `ping`, whose `pong` must follow our
/// move (and both lines of a two-leg move). Pondering and analysis do not
/// count as thinking on our move: `ping` is answered at once then.
fn waits_for_move(line: &str) -> bool {
    matches!(
        first_word(line),
        Some("option" | "memory" | "cores" | "ping")
    )
}

/// Commands that end a running search without its move.
fn ends_search(cmd: &str) -> bool {
    matches!(
        cmd,
        "new" | "force" | "result" | "go" | "playother" | "undo" | "remove" | "analyze" | "exit"
    )
}

impl Xboard {
    fn engine(&self) -> std::sync::MutexGuard<'_, Engine> {
        search::lock(&self.engine)
    }

    /// Copy the engine's variant set, variant and pair promotion setting
    /// after they changed (no search runs then).
    fn mirror(&mut self) {
        let (variants, variant, pair_promotion) = copies(&self.engine());
        self.variants = variants;
        self.variant = variant;
        self.pair_promotion = pair_promotion;
    }

    /// Whether a search for our move runs (pondering and analysis do not count).
    fn thinking(&self) -> bool {
        self.job.as_ref().is_some_and(|j| j.is_thinking())
    }

    /// End the running search without its move.
    fn abort(&mut self) {
        if let Some(job) = self.job.take() {
            job.abort(&self.shared);
        }
    }

    /// Let a search for our move end by itself (its move is played); end
    /// pondering or analysis at once.
    fn finish(&mut self) {
        if let Some(job) = self.job.take() {
            job.finish(&self.shared);
        }
    }

    /// The variant the GUI calls `name` (its XBoard name or our section name),
    /// with a board-size prefix such as `10x8_` allowed.
    fn find_variant(&self, name: &str) -> Option<String> {
        let bare = match name.split_once('_') {
            Some((size, rest))
                if size.contains('x') && size.starts_with(|c: char| c.is_ascii_digit()) =>
            {
                rest
            }
            _ => name,
        };
        let set = &self.variants;
        set.names()
            .iter()
            .find(|n| set.compile(n).is_ok_and(|v| v.xboard.name == bare))
            .or_else(|| set.names().iter().find(|n| n.as_str() == bare))
            .cloned()
    }

    fn new_game(&mut self) -> Result<(), CommandError> {
        let normal = self
            .find_variant("normal")
            .or_else(|| self.variants.names().first().cloned())
            .ok_or("no variants loaded")?;
        {
            let mut e = self.engine();
            e.new_game();
            e.set_variant(&normal)?;
        }
        self.mirror();
        self.side = Some(Color::Black);
        self.clock.depth = None;
        self.clock.own_ms = None;
        self.clock.opponent_ms = None;
        search::lock(&self.shared.hint).take();
        self.resume_analysis();
        Ok(())
    }

    fn variant(&mut self, args: &[&str]) -> Result<(), CommandError> {
        let [name] = args else {
            return Err("variant needs a name".into());
        };
        let found = self.find_variant(name).ok_or("unknown variant")?;
        self.abort();
        let ahead = self.setboard_ahead.take();
        let lines = {
            let mut e = self.engine();
            e.set_variant(&found)?;
            let v = e.variant().clone();
            // A position that parses; else the start position.
            let fen = ahead
                .map(|f| setup::fill_castling(&v, &f))
                .filter(|f| Position::from_fen(v.clone(), f).is_ok());
            setup::setup_lines(&v, fen.as_deref(), self.shared.gui())
        };
        self.mirror();
        for l in lines {
            say(&l);
        }
        self.resume_analysis();
        Ok(())
    }

    /// Bad input is refused before a running search is disturbed: the
    /// position is read with the copy of the engine's variant.
    fn setboard(&mut self, fen: &str) -> Result<(), CommandError> {
        let fen = setup::fill_castling(&self.variant, fen);
        let pos = Engine::read_position(&self.variant, Some(&fen), &[])?;
        self.abort();
        *self.engine().position_mut() = pos;
        search::lock(&self.shared.hint).take();
        self.resume_analysis();
        Ok(())
    }

    fn take_back(&mut self, plies: usize) -> Result<(), CommandError> {
        {
            let mut e = self.engine();
            if e.position().ply_count() < plies {
                return Err("no move to undo".into());
            }
            for _ in 0..plies {
                e.position_mut().unmake();
            }
        }
        self.resume_analysis();
        Ok(())
    }

    /// The game's position, also while a search holds the engine.
    fn game_position(&self) -> Option<Position> {
        match self.engine.try_lock() {
            Ok(e) => Some(e.position().clone()),
            Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner().position().clone()),
            Err(std::sync::TryLockError::WouldBlock) => search::lock(&self.shared.position).clone(),
        }
    }

    /// `lift`, `put` and `hover`: a person entering a move (see [`entry`]).
    fn entry_command(&mut self, cmd: &str, args: &[&str]) -> Result<(), CommandError> {
        let [square] = args else {
            return Err(format!("{cmd} needs one square").into());
        };
        let sq = self.variant.parse_square(square).ok_or("bad square")?;
        let Some(pos) = self.game_position() else {
            return Ok(());
        };
        let reply = match cmd {
            "lift" => self.entry.lift(&pos, sq),
            "put" => self.entry.put(&pos, sq),
            _ => entry::Reply::Nothing,
        };
        match reply {
            entry::Reply::Highlight(fen) => say(&format!("highlight {fen}")),
            entry::Reply::Choice(list) => say(&format!("choice {list}")),
            entry::Reply::Nothing => {}
        }
        Ok(())
    }

    fn user_move(&mut self, text: &str) {
        self.abort();
        let claim = {
            let mut e = self.engine();
            match moves::from_gui(e.position_mut(), text, self.shared.gui()) {
                Ok(m) => e.position_mut().make(m),
                Err(crate::rules::notation::MoveError::Malformed(_)) => {
                    say(&format!("Illegal move (malformed): {text}"));
                    return;
                }
                Err(_) => {
                    say(&format!("Illegal move: {text}"));
                    return;
                }
            }
            setup::claim(e.position_mut())
        };
        search::lock(&self.shared.hint).take();
        if self.analyzing {
            self.resume_analysis();
            return;
        }
        let Some(side) = self.side else { return };
        if let Some(c) = claim {
            say(&c);
            return;
        }
        if self.engine().position().side_to_move() == side {
            self.think();
        }
    }

    fn resume_analysis(&mut self) {
        if self.analyzing {
            self.start(JobKind::Analyze);
        }
    }

    /// Search for our move, or claim the result when the game is over.
    fn think(&mut self) {
        let claim = setup::claim(self.engine().position_mut());
        match claim {
            Some(c) => say(&c),
            None => self.start(JobKind::Think),
        }
    }

    fn start(&mut self, kind: JobKind) {
        let moves_made = self.engine().position().ply_count() / 2;
        let limits = self.clock.limits(moves_made);
        match Job::start(kind, &self.engine, &self.shared, limits) {
            Ok(job) => self.job = Some(job),
            Err(e) => say(&format!("Error (cannot start the search: {e}): go")),
        }
    }
}
