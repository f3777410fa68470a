//! Searches of the XBoard front end, each on its own thread: thinking about
//! our move (then pondering on the opponent's time, when allowed) or
//! analysing. The thread prints the thinking lines, the move and any result
//! claim; the input thread can stop it, with or without its move.

use super::moves::Gui;
use super::split::{self, SplitTable};
use super::{moves, say, setup};
use crate::engine::Engine;
use crate::engine::search::{Limits, SearchInfo, Value};
use crate::rules::board::Position;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Scores of mates as XBoard reads them.
const MATE_SCORE: i32 = 100_000;

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// State that the input thread and the search threads share.
pub struct Shared {
    pub stop: Arc<AtomicBool>,
    pub post: AtomicBool,
    pub ponder: AtomicBool,
    /// The opponent's expected reply, in the GUI's form.
    pub hint: Mutex<Option<String>>,
    /// Our last root score, in centipawns.
    pub last_score: AtomicI32,
    /// Progress of the running search for `.`: depth, nodes, start.
    depth: AtomicU64,
    nodes: AtomicU64,
    started: Mutex<Instant>,
    total_moves: AtomicU64,
    /// The game's position while a search holds the engine (the position
    /// after our move while pondering), for what the input thread answers
    /// from it meanwhile.
    pub position: Mutex<Option<Position>>,
    /// Whether the GUI has the `split` command (the `SplitCommand` option).
    pub split: AtomicBool,
}

impl Shared {
    pub fn new(stop: Arc<AtomicBool>) -> Shared {
        Shared {
            stop,
            post: AtomicBool::new(false),
            ponder: AtomicBool::new(false),
            hint: Mutex::new(None),
            last_score: AtomicI32::new(0),
            depth: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            started: Mutex::new(Instant::now()),
            total_moves: AtomicU64::new(0),
            position: Mutex::new(None),
            split: AtomicBool::new(false),
        }
    }

    /// The move forms of the GUI.
    pub fn gui(&self) -> Gui {
        if self.split.load(Ordering::Relaxed) {
            Gui::Split
        } else {
            Gui::Classic
        }
    }

    /// The `stat01` answer to `.` during analysis.
    pub fn status_line(&self) -> String {
        let cs = lock(&self.started).elapsed().as_millis() / 10;
        format!(
            "stat01: {cs} {} {} 0 {}",
            self.nodes.load(Ordering::Relaxed),
            self.depth.load(Ordering::Relaxed),
            self.total_moves.load(Ordering::Relaxed)
        )
    }

    /// Progress starts again from nothing, for a search of a position with
    /// `total_moves` legal moves.
    fn begin_status(&self, total_moves: usize) {
        *lock(&self.started) = Instant::now();
        self.total_moves
            .store(total_moves as u64, Ordering::Relaxed);
        self.depth.store(0, Ordering::Relaxed);
        self.nodes.store(0, Ordering::Relaxed);
    }

    fn report(&self, root: &Position, info: &SearchInfo) {
        self.depth.store(info.depth as u64, Ordering::Relaxed);
        self.nodes.store(info.nodes, Ordering::Relaxed);
        if info.multipv != 1 || !self.post.load(Ordering::Relaxed) {
            return;
        }
        say(&thinking_line(root, info, self.gui()));
    }
}

/// `depth score centiseconds nodes pv`.
fn thinking_line(root: &Position, info: &SearchInfo, gui: Gui) -> String {
    let score = match info.value {
        Value::Cp(cp) => cp,
        Value::Mate(n) if n > 0 => MATE_SCORE + n,
        Value::Mate(n) => -MATE_SCORE + n,
    };
    let mut pos = root.clone();
    let mut pv = Vec::new();
    for &m in &info.pv {
        if !pos.legal_moves().contains(&m) {
            break;
        }
        pv.push(moves::to_gui_joined(&pos, m, gui));
        pos.make(m);
    }
    format!(
        "{} {score} {} {} {}",
        info.depth,
        info.time_ms / 10,
        info.nodes,
        pv.join(" ")
    )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobKind {
    /// Our move: played when the search ends; pondering may follow.
    Think,
    /// Infinite, prints thinking lines, plays nothing.
    Analyze,
}

pub struct Job {
    pub kind: JobKind,
    handle: JoinHandle<()>,
    /// Set: the move of this search is not played.
    discard: Arc<AtomicBool>,
    /// Set: no pondering after the move.
    no_ponder: Arc<AtomicBool>,
    /// The thread has gone on to ponder (or analyse): only a stop ends it.
    endless: Arc<AtomicBool>,
    /// `?`: stop thinking and play; each report of the search repeats the
    /// stop, so it also reaches a search that is just starting.
    move_now: Arc<AtomicBool>,
}

impl Job {
    pub fn start(
        kind: JobKind,
        engine: &Arc<Mutex<Engine>>,
        shared: &Arc<Shared>,
        limits: Limits,
    ) -> std::io::Result<Job> {
        let discard = Arc::new(AtomicBool::new(false));
        let no_ponder = Arc::new(AtomicBool::new(false));
        let endless = Arc::new(AtomicBool::new(kind == JobKind::Analyze));
        let move_now = Arc::new(AtomicBool::new(false));
        // Cleared here, not in the thread, so that a stop sent while the
        // thread starts is kept.
        shared.stop.store(false, Ordering::Relaxed);
        if kind == JobKind::Analyze {
            // Here too, so that a `.` right after this reports the new
            // search, not the one before. No search holds the engine now.
            let total = lock(engine).position_mut().legal_moves().len();
            shared.begin_status(total);
        }
        let (engine, shared) = (engine.clone(), shared.clone());
        let (d, np, en, now) = (
            discard.clone(),
            no_ponder.clone(),
            endless.clone(),
            move_now.clone(),
        );
        let handle = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || {
                let mut e = lock(&engine);
                if let Some(news) = e.evaluation_news() {
                    say(&format!("# {news}"));
                }
                *lock(&shared.position) = Some(e.position().clone());
                match kind {
                    JobKind::Analyze => analyze(&mut e, &shared),
                    JobKind::Think => {
                        if play(&mut e, &shared, &limits, &d, &now)
                            && shared.ponder.load(Ordering::Relaxed)
                            && !np.load(Ordering::Relaxed)
                        {
                            // Set after the move's lines are out: a `ping`
                            // that waits for the move is answered after it.
                            en.store(true, Ordering::Release);
                            // The move search may have ended by a stop (`?`);
                            // one meant for the ponder search is repeated
                            // until the thread ends (`Job::end`).
                            shared.stop.store(false, Ordering::Relaxed);
                            let limits = Limits {
                                infinite: true,
                                ..Default::default()
                            };
                            e.go(&limits, &[], &mut |_| {});
                        }
                    }
                }
            })?;
        Ok(Job {
            kind,
            handle,
            discard,
            no_ponder,
            endless,
            move_now,
        })
    }

    /// Our move is out and the search goes on in the opponent's time.
    pub fn is_pondering(&self) -> bool {
        self.kind == JobKind::Think && self.endless.load(Ordering::Relaxed)
    }

    /// The search for our move is still running.
    pub fn is_thinking(&self) -> bool {
        self.kind == JobKind::Think
            && !self.endless.load(Ordering::Acquire)
            && !self.handle.is_finished()
    }

    /// Stop thinking and play the best move found so far.
    pub fn move_now(&self, shared: &Shared) {
        if self.kind == JobKind::Think && !self.endless.load(Ordering::Relaxed) {
            self.move_now.store(true, Ordering::Relaxed);
            shared.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Stop the search; its move, if not out yet, is dropped.
    pub fn abort(self, shared: &Shared) {
        self.discard.store(true, Ordering::Relaxed);
        self.no_ponder.store(true, Ordering::Relaxed);
        self.end(shared, true);
    }

    /// Wait for the move of a `Think` search; stop anything endless.
    pub fn finish(self, shared: &Shared) {
        self.no_ponder.store(true, Ordering::Relaxed);
        self.end(shared, false);
    }

    fn end(self, shared: &Shared, stop_now: bool) {
        // The ponder search that follows a move clears the stop flag, so the
        // stop is repeated until the thread is done.
        while !self.handle.is_finished() {
            if stop_now || self.endless.load(Ordering::Relaxed) {
                shared.stop.store(true, Ordering::Relaxed);
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = self.handle.join();
    }
}

fn analyze(e: &mut Engine, shared: &Shared) {
    let root = e.position().clone();
    let limits = Limits {
        infinite: true,
        ..Default::default()
    };
    e.go(&limits, &[], &mut |info| {
        if info.multipv == 1 && !shared.post.load(Ordering::Relaxed) {
            // Analysis shows its lines even without `post`.
            say(&thinking_line(&root, info, shared.gui()));
        }
        shared.report(&root, info);
    });
}

/// Search and play our move; true when the game goes on.
fn play(
    e: &mut Engine,
    shared: &Shared,
    limits: &Limits,
    discard: &AtomicBool,
    move_now: &AtomicBool,
) -> bool {
    let root = e.position().clone();
    let r = e.go(limits, &[], &mut |info| {
        if move_now.load(Ordering::Relaxed) {
            shared.stop.store(true, Ordering::Relaxed);
        }
        shared.report(&root, info)
    });
    if discard.load(Ordering::Relaxed) {
        return false;
    }
    let Some(best) = r
        .best
        .filter(|m| e.position_mut().legal_moves().contains(m))
    else {
        if let Some(c) = setup::claim(e.position_mut()) {
            say(&c);
        }
        return false;
    };
    if let Value::Cp(cp) = r.value {
        shared.last_score.store(cp, Ordering::Relaxed);
    }
    let gui = shared.gui();
    let lines = match gui {
        Gui::Classic => moves::to_gui(&root, best, gui)
            .into_iter()
            .map(|leg| format!("move {leg}"))
            .collect(),
        Gui::Split => split::lines_for(&root, best, &SplitTable::standard(root.variant())),
    };
    e.position_mut().make(best);
    *lock(&shared.position) = Some(e.position().clone());
    *lock(&shared.hint) = r
        .ponder
        .filter(|p| e.position_mut().legal_moves().contains(p))
        .map(|p| moves::to_gui_joined(e.position(), p, gui));
    for line in lines {
        say(&line);
    }
    match setup::claim(e.position_mut()) {
        Some(c) => {
            say(&c);
            false
        }
        None => true,
    }
}
