//! The evaluation a variant plays with, chosen once when the variant is
//! compiled: the hand-written one, or the network its `nnue` names. The
//! search asks its [`Evaluator`] for one [`ThreadEval`] per thread, which
//! keeps what follows the searched line (the net's accumulators, the
//! pawn-structure cache) and evaluates.

use super::handwritten::evaluate;
use super::nnue::{Accumulators, Net, NetOrigin, network};
use super::pawns::PawnCache;
use super::tables::{EvalTables, build_tables};
use super::terms::{LAZY_MARGIN, quick};
use crate::rules::board::Position;
use crate::rules::sums::SumTable;
use crate::rules::variant::{IniError, LoadError, Variant};
use crate::rules::variant_set::VariantSet;
use std::fmt;
use std::sync::Arc;

/// A variant's evaluation: the hand-written evaluation's tables (which the
/// search also reads for exchange values and move ordering), and the
/// network that replaces that evaluation where the variant names one.
#[derive(Debug)]
pub struct Evaluator {
    tables: EvalTables,
    net: Option<(Arc<Net>, NetOrigin)>,
}

/// Which evaluation a search uses, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evaluation<'a> {
    HandWritten,
    Net(&'a NetOrigin),
}

impl fmt::Display for Evaluation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Evaluation::HandWritten => write!(f, "hand-written evaluation"),
            Evaluation::Net(origin) => write!(f, "{origin}"),
        }
    }
}

impl Evaluator {
    /// The evaluation of variant `v`, with the table of what each man adds
    /// to the board's sums. Errors are those of the variant's parameter
    /// file and of its net (which name the file and the ini line).
    pub fn new(v: &Variant) -> Result<(Evaluator, SumTable), Vec<IniError>> {
        let (tables, sums) = build_tables(v)?;
        let net = network::load(v)
            .map_err(|e| vec![e])?
            .map(|(net, origin)| (Arc::new(net), origin));
        Ok((Evaluator { tables, net }, sums))
    }

    /// The hand-written evaluation's tables.
    pub fn tables(&self) -> &EvalTables {
        &self.tables
    }

    /// The variant's net, if it names one.
    pub fn net(&self) -> Option<&Arc<Net>> {
        self.net.as_ref().map(|(net, _)| net)
    }

    /// The evaluation a search uses: the net where the variant has one and
    /// `use_net` is on, else the hand-written one.
    pub fn evaluation(&self, use_net: bool) -> Evaluation<'_> {
        match &self.net {
            Some((_, origin)) if use_net => Evaluation::Net(origin),
            _ => Evaluation::HandWritten,
        }
    }

    /// A search thread's evaluation from `pos` on (see
    /// [`Evaluator::evaluation`] for `use_net`).
    pub fn for_thread(&self, pos: &Position, use_net: bool) -> ThreadEval<'_> {
        ThreadEval {
            tables: &self.tables,
            pawns: PawnCache::new(),
            accumulators: match &self.net {
                Some((net, _)) if use_net => Some(Accumulators::new(net.clone(), pos)),
                _ => None,
            },
        }
    }
}

/// One search thread's evaluation, following the line it searches: the
/// net's accumulators when the net evaluates, else the hand-written
/// evaluation with its pawn-structure cache.
pub struct ThreadEval<'a> {
    tables: &'a EvalTables,
    pawns: PawnCache,
    accumulators: Option<Accumulators>,
}

impl<'a> ThreadEval<'a> {
    /// The hand-written evaluation's tables (exchange values, move
    /// ordering), whichever evaluation is used.
    #[inline]
    pub fn tables(&self) -> &'a EvalTables {
        self.tables
    }

    /// The static evaluation of `pos`, the position at the end of the line
    /// followed, from the side to move's point of view.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        match &mut self.accumulators {
            Some(acc) => acc.evaluate(pos),
            None => evaluate(self.tables, pos, &mut self.pawns),
        }
    }

    /// A score at least `beta` from material alone, when the hand-written
    /// evaluation is far enough above it that its other terms cannot bring
    /// it below; never with the net, whose scores are its own.
    #[inline]
    pub fn lazy_cut(&self, pos: &Position, beta: i32) -> Option<i32> {
        if self.accumulators.is_some() {
            return None;
        }
        let lower = quick(self.tables, pos) - LAZY_MARGIN;
        (lower >= beta).then_some(lower)
    }

    /// The line went on by a move: `pos` is the position after it.
    #[inline]
    pub fn push_move(&mut self, pos: &Position) {
        if let Some(acc) = &mut self.accumulators {
            acc.push_move(pos);
        }
    }

    /// The line goes on by a null move (told before it is made).
    #[inline]
    pub fn push_null(&mut self) {
        if let Some(acc) = &mut self.accumulators {
            acc.push_null();
        }
    }

    /// The last move or null move of the line was taken back.
    #[inline]
    pub fn pop(&mut self) {
        if let Some(acc) = &mut self.accumulators {
            acc.pop();
        }
    }
}

/// Compile variant `name` of `set` for play: the rules' variant with the
/// evaluation's material and piece-square table installed as its board
/// sums, and its evaluator. The errors of the variant's parameter file and
/// net are the variant's.
pub fn compile(
    set: &VariantSet,
    name: &str,
) -> Result<(Arc<Variant>, Arc<Evaluator>), Vec<IniError>> {
    let mut v = set.compile(name)?;
    let (evaluator, sums) = Evaluator::new(&v)?;
    // Just compiled, the variant has no other holder: no copy is made.
    Arc::make_mut(&mut v).sums = sums;
    Ok((v, Arc::new(evaluator)))
}

/// Load an ini file into `set` only when all of it is good, its variants'
/// parameter files and nets included (see
/// [`VariantSet::load_file_checked`]).
pub fn load_file_checked(set: &mut VariantSet, path: &str) -> Result<Vec<String>, LoadError> {
    set.load_file_checked(path, &|v| Evaluator::new(v).map(drop))
}
