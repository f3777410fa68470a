//! The one place where a search is set up: a [`Searcher`] owns what a
//! search needs besides the position (the transposition table, what earlier
//! searches learnt about moves, and the stop flag) and runs searches with
//! it.

use super::driver;
use super::history::SearchMemory;
use super::tt::{TableRefused, TranspositionTable};
use super::{Limits, SearchInfo, SearchOptions, SearchResult};
use crate::engine::eval::Evaluator;
use crate::rules::board::Position;
use crate::rules::types::Move;
use crate::rules::variant::Variant;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A transposition table, the search memory of a game and a stop flag: the
/// searches of one game (or of one tool's job) run through one of these.
pub struct Searcher {
    tt: Arc<TranspositionTable>,
    /// What the searches of this game learnt about moves.
    memory: SearchMemory,
    stop: Arc<AtomicBool>,
}

impl Searcher {
    /// A searcher with a table of about `hash_mb` megabytes, nothing learnt
    /// and no stop requested.
    ///
    /// # Panics
    /// When the table's memory cannot be had; sizes that come from outside
    /// go through [`Searcher::set_hash_mb`].
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            memory: SearchMemory::default(),
            stop: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Resize the table to `mb` megabytes (a new, empty one). When the
    /// memory is refused, the old table stays and the error says so.
    pub fn set_hash_mb(&mut self, mb: usize) -> Result<(), TableRefused> {
        if mb == self.tt.size_mb() {
            return Ok(());
        }
        self.tt = Arc::new(TranspositionTable::try_new(mb)?);
        Ok(())
    }

    /// The table's size in megabytes.
    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    /// Forget what earlier searches learnt (a new game).
    pub fn new_game(&mut self) {
        // No search holds the table between searches.
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt.reset(),
            None => self.tt.clear(),
        }
        self.memory.clear();
    }

    /// Empty the table and size the search memory for `variant`, writing
    /// both, so that every page is in memory before a timed search starts.
    pub fn prefault(&mut self, variant: &Variant) {
        self.tt.clear();
        self.memory = SearchMemory::new(variant);
        self.memory.clear();
    }

    /// A handle that stops the running search when set.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Stop a running search (from another thread, through the handle).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Forget an earlier stop request (before a new search).
    pub fn clear_stop(&self) {
        self.stop.store(false, Ordering::Relaxed);
    }

    /// Search `pos` with its variant's evaluator `eval` and the
    /// given limits and options. Blocks until the search ends; `on_info` is
    /// called by the main thread after each iteration and each MultiPV
    /// line. `search_moves` limits the root moves (empty: all). The search
    /// memory is resized, and so forgotten, when the variant differs from
    /// the last search's.
    pub fn search(
        &mut self,
        pos: &Position,
        eval: &Evaluator,
        limits: &Limits,
        options: &SearchOptions,
        search_moves: &[Move],
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let query = driver::Query {
            pos,
            eval,
            limits,
            options,
            search_moves,
        };
        driver::search(&query, &self.tt, &mut self.memory, &self.stop, on_info)
    }
}
