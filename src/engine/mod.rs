//! The protocol-free engine: a variant, a position, a [`Searcher`] (the
//! transposition table, search memory and stop flag) and search options; `go` searches and reports through callbacks. The XBoard and
//! UCI front ends are thin layers over this.

pub mod bench;
mod error;
pub mod eval;
pub mod search;
pub mod strength;

pub use error::{Allowed, EngineError};

use crate::engine::eval::Evaluator;
use crate::engine::search::{Limits, SearchInfo, SearchOptions, SearchResult, Searcher};
use crate::engine::strength::{LastLines, Level, Strength};
use crate::rules::board::Position;
use crate::rules::types::Move;
use crate::rules::variant::{LoadError, Variant};
use crate::rules::variant_set::VariantSet;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Default transposition table size in megabytes.
pub const DEFAULT_HASH_MB: usize = 64;

/// Largest hash table accepted, in megabytes (the UCI option's maximum).
pub const MAX_HASH_MB: usize = 1 << 16;

pub struct Engine {
    variants: VariantSet,
    variant: Arc<Variant>,
    /// The evaluation of `variant`.
    eval: Arc<Evaluator>,
    position: Position,
    /// The table, the search memory of this game and the stop flag.
    searcher: Searcher,
    options: SearchOptions,
    /// Whether variants with a pair promotion (`pairPromotionTypes`) keep it;
    /// off, they play as engines that lack it expect (Fairy-Max's Team-Mate).
    pair_promotion: bool,
    /// Whether the evaluation the searches use has been told since the
    /// variant or `UseNNUE` was last set ([`Engine::evaluation_news`]).
    evaluation_told: bool,
    /// Full strength, or a level (`UCI_LimitStrength`, `UCI_Elo`) with the
    /// random numbers of its choices.
    strength: Strength,
}

impl Engine {
    /// An engine with the built-in variants, playing chess from the start.
    pub fn new() -> Engine {
        Engine::with_variants(VariantSet::builtin())
    }

    pub fn with_variants(variants: VariantSet) -> Engine {
        let (variant, eval) = eval::compile(&variants, "chess")
            .or_else(|_| {
                variants
                    .names()
                    .first()
                    .ok_or(())
                    .and_then(|n| eval::compile(&variants, n).map_err(|_| ()))
            })
            .unwrap_or_else(|_| {
                // The built-in file always defines chess; this is only reached
                // with an empty user-made set.
                eval::compile(&VariantSet::builtin(), "chess")
                    .unwrap_or_else(|e| panic!("built-in chess: {e:?}"))
            });
        let position = Position::startpos(variant.clone());
        Engine {
            variants,
            variant,
            eval,
            position,
            searcher: Searcher::new(DEFAULT_HASH_MB),
            options: SearchOptions::default(),
            pair_promotion: true,
            evaluation_told: false,
            strength: Strength::new(),
        }
    }

    pub fn variants(&self) -> &VariantSet {
        &self.variants
    }

    pub fn variants_mut(&mut self) -> &mut VariantSet {
        &mut self.variants
    }

    /// Load an ini file into the engine's variants only when all of it is
    /// good, its variants' parameter files included (see
    /// [`eval::load_file_checked`]). Gives the names of the sections read.
    pub fn load_variant_file(&mut self, path: &str) -> Result<Vec<String>, LoadError> {
        eval::load_file_checked(&mut self.variants, path)
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The evaluation of the current variant.
    pub fn eval(&self) -> &Arc<Evaluator> {
        &self.eval
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn position_mut(&mut self) -> &mut Position {
        &mut self.position
    }

    /// Switch to a variant (its start position). Errors leave the engine as it was.
    pub fn set_variant(&mut self, name: &str) -> Result<(), EngineError> {
        if !self.variants.names().iter().any(|n| n == name) {
            return Err(EngineError::UnknownVariant(name.to_string()));
        }
        let (mut v, eval) =
            eval::compile(&self.variants, name).map_err(EngineError::BadVariantFile)?;
        if !self.pair_promotion && v.has_pair_promotion() {
            v = Arc::new(v.without_pair_promotion());
        }
        self.position = Position::startpos(v.clone());
        self.variant = v;
        self.eval = eval;
        self.evaluation_told = false;
        Ok(())
    }

    /// Switch the pair promotion of variants that have one on or off. The
    /// current variant is compiled again and set to its start position.
    pub fn set_pair_promotion(&mut self, on: bool) -> Result<(), EngineError> {
        self.pair_promotion = on;
        let name = self.variant.name.clone();
        self.set_variant(&name)
    }

    pub fn pair_promotion(&self) -> bool {
        self.pair_promotion
    }

    /// Set the position: a FEN (`None` for the start position) and moves in
    /// the engine's notation. Errors leave the engine as it was.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), EngineError> {
        self.position = Engine::read_position(&self.variant, fen, moves)?;
        Ok(())
    }

    /// The position [`Engine::set_position`] would set in `variant`, read
    /// without the engine (a front end checks input with it while a search
    /// holds the engine).
    pub fn read_position(
        variant: &Arc<Variant>,
        fen: Option<&str>,
        moves: &[&str],
    ) -> Result<Position, EngineError> {
        let mut pos = match fen {
            None => Position::startpos(variant.clone()),
            Some(f) => Position::from_fen(variant.clone(), f)?,
        };
        for m in moves {
            let mv = pos.parse_move(m)?;
            pos.make(mv);
        }
        Ok(pos)
    }

    /// Resize the hash table to `mb` megabytes (1 to [`MAX_HASH_MB`]). When
    /// the memory is refused, the old table stays and the error says so.
    pub fn set_hash_mb(&mut self, mb: usize) -> Result<(), EngineError> {
        Ok(self.searcher.set_hash_mb(mb.clamp(1, MAX_HASH_MB))?)
    }

    pub fn hash_mb(&self) -> usize {
        self.searcher.hash_mb()
    }

    pub fn set_threads(&mut self, n: usize) {
        self.options.threads = n.clamp(1, 256);
    }

    pub fn set_multipv(&mut self, n: usize) {
        self.options.multipv = n.clamp(1, 256);
    }

    /// Evaluate with the variant's network where it has one (on), or with
    /// the hand-written evaluation always (off), to compare the two.
    pub fn set_use_nnue(&mut self, on: bool) {
        if on != self.options.use_nnue {
            self.evaluation_told = false;
        }
        self.options.use_nnue = on;
    }

    /// Which evaluation the searches use (`evaluation: ...`), once after
    /// each choice of variant or of `UseNNUE`: a front end tells it, in its
    /// protocol's form, as the next search starts.
    pub fn evaluation_news(&mut self) -> Option<String> {
        if std::mem::replace(&mut self.evaluation_told, true) {
            return None;
        }
        Some(format!(
            "evaluation: {}",
            self.eval.evaluation(self.options.use_nnue)
        ))
    }

    pub fn use_nnue(&self) -> bool {
        self.options.use_nnue
    }

    /// Play at the level of [`Engine::elo`] (on) or at full strength (off).
    pub fn set_limit_strength(&mut self, on: bool) {
        self.strength.set_on(on);
    }

    pub fn limit_strength(&self) -> bool {
        self.strength.is_on()
    }

    /// Set the level's Elo, within [`Engine::elo_range`]: one outside it is
    /// refused (`UCI_Elo` names the option in the error).
    pub fn set_elo(&mut self, elo: u32) -> Result<(), EngineError> {
        self.strength
            .set_elo(elo)
            .map_err(|r| EngineError::BadOption {
                name: "UCI_Elo".to_string(),
                value: elo.to_string(),
                allowed: Allowed::Range {
                    min: r.min,
                    max: r.max,
                },
            })
    }

    pub fn elo(&self) -> u32 {
        self.strength.elo()
    }

    /// The lowest and highest level.
    pub fn elo_range(&self) -> (u32, u32) {
        self.strength.table().range()
    }

    /// Seed the random numbers of a level's choices (a new engine seeds
    /// them from the clock): a fixed seed repeats its choices.
    pub fn set_strength_seed(&mut self, seed: u64) {
        self.strength.set_seed(seed);
    }

    /// Forget what earlier searches learnt (a new game).
    pub fn new_game(&mut self) {
        self.searcher.new_game();
    }

    /// A handle that stops the running search when set.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.searcher.stop_handle()
    }

    /// Stop a running search (from another thread, through the handle).
    pub fn stop(&self) {
        self.searcher.stop();
    }

    /// Forget an earlier stop request (before a new search).
    pub fn clear_stop(&self) {
        self.searcher.clear_stop();
    }

    /// Search the current position. Blocks until the search ends; `on_info`
    /// receives the progress. `search_moves` limits the root moves (empty: all).
    ///
    /// A stop requested before the call is honoured (the search returns at
    /// once), so a front end that starts the search on another thread clears
    /// the flag with [`Engine::clear_stop`] before it starts the thread: a
    /// `stop` that arrives while the thread is starting is then never lost.
    ///
    /// At a level (see [`Engine::set_limit_strength`]) the search takes the
    /// level's lower node and depth limits and the move is chosen among its
    /// best lines (see [`strength::choose`]); infinite searches (analysis,
    /// pondering) are the full engine's always.
    pub fn go(
        &mut self,
        limits: &Limits,
        search_moves: &[Move],
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        match self.strength.level().filter(|_| !limits.infinite) {
            Some(level) => self.go_at_level(level, limits, search_moves, on_info),
            None => self.searcher.search(
                &self.position,
                &self.eval,
                limits,
                &self.options,
                search_moves,
                on_info,
            ),
        }
    }

    /// A search at a level: `level.moves` lines searched (or the MultiPV
    /// asked for, if more), those the user asked for reported as the search
    /// goes, and the line chosen played. When the choice is not the first
    /// line, the chosen line is reported last as line 1, so that the last
    /// line shown begins with the move played.
    fn go_at_level(
        &mut self,
        level: Level,
        limits: &Limits,
        search_moves: &[Move],
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let shown = self.options.multipv;
        let options = SearchOptions {
            multipv: shown.max(level.moves),
            ..self.options.clone()
        };
        let mut last = LastLines::default();
        let mut result = self.searcher.search(
            &self.position,
            &self.eval,
            &level.lower(limits),
            &options,
            search_moves,
            &mut |info| {
                last.record(info);
                if info.multipv <= shown {
                    on_info(info);
                }
            },
        );
        let lines = &last.lines()[..last.lines().len().min(level.moves)];
        let Some(i) = strength::choose(lines, level.spread, self.strength.rng()) else {
            return result;
        };
        let chosen = &lines[i];
        if i > 0
            && let Some(&mv) = chosen.pv.first()
        {
            result.best = Some(mv);
            result.ponder = chosen.pv.get(1).copied();
            result.value = chosen.value;
            on_info(&SearchInfo {
                multipv: 1,
                ..chosen.clone()
            });
        }
        result
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

/// Moves of a principal variation in the engine's notation.
pub fn pv_text(pos: &Position, pv: &[Move]) -> Vec<String> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for &m in pv {
        if !p.legal_moves().contains(&m) {
            break;
        }
        out.push(p.move_text(m));
        p.make(m);
    }
    out
}

/// A UCI-style `info` line for a search report.
pub fn info_line(pos: &Position, info: &SearchInfo) -> String {
    let score = match info.value {
        search::Value::Cp(cp) => format!("cp {cp}"),
        search::Value::Mate(n) => format!("mate {n}"),
    };
    format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} hashfull {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        score,
        info.nodes,
        info.nps,
        info.hashfull,
        info.time_ms,
        pv_text(pos, &info.pv).join(" ")
    )
}
