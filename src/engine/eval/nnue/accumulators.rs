//! The accumulators of one search thread: a stack with an entry per ply of
//! the line being searched, each holding both perspectives' accumulators.
//! Making a move pushes an entry that records only the move's board
//! changes; the accumulators of an entry are computed when its position is
//! evaluated, from the nearest computed entry below it, so that moves whose
//! positions are never evaluated cost almost nothing.

use super::net::Net;
use crate::rules::board::Position;
use crate::rules::types::{Cell, Color};
use arrayvec::ArrayVec;
use std::sync::Arc;

/// One board change of a move: square, old contents, new contents.
type Change = (u8, Cell, Cell);

/// What an entry of the stack knows beside its accumulators.
#[derive(Clone, Debug, Default)]
struct Ply {
    /// The board changes of the move that led here (none for a null move).
    changes: ArrayVec<Change, 4>,
    /// Whether this entry's accumulators hold its position's values.
    computed: bool,
}

/// The accumulator stack of one search thread (see the module comment).
#[derive(Clone, Debug)]
pub struct Accumulators {
    net: Arc<Net>,
    /// Per entry: White's perspective then Black's, `hidden` values each.
    values: Vec<i16>,
    plies: Vec<Ply>,
    /// Index of the current position's entry.
    top: usize,
    scratch: Vec<u32>,
}

impl Accumulators {
    /// The stack of `net` with `pos` as its bottom entry.
    pub fn new(net: Arc<Net>, pos: &Position) -> Accumulators {
        let mut a = Accumulators {
            values: vec![0; 2 * net.hidden()],
            plies: vec![Ply::default()],
            net,
            top: 0,
            scratch: Vec::new(),
        };
        a.reset(pos);
        a
    }

    pub fn net(&self) -> &Arc<Net> {
        &self.net
    }

    /// Start again from `pos`, computed from scratch.
    pub fn reset(&mut self, pos: &Position) {
        self.top = 0;
        let h = self.net.hidden();
        let (white, black) = self.values[..2 * h].split_at_mut(h);
        self.net
            .refresh(pos, Color::White, white, &mut self.scratch);
        self.net
            .refresh(pos, Color::Black, black, &mut self.scratch);
        self.plies[0].computed = true;
    }

    /// After a move is made on `pos`: push the entry of the position it
    /// reached, from the board changes the position recorded.
    #[inline]
    pub fn push_move(&mut self, pos: &Position) {
        self.push(pos.last_changes());
    }

    /// Push the entry of a null move (no feature changes).
    #[inline]
    pub fn push_null(&mut self) {
        self.push(ArrayVec::new());
    }

    #[inline]
    fn push(&mut self, changes: ArrayVec<Change, 4>) {
        self.top += 1;
        if self.top == self.plies.len() {
            self.plies.push(Ply::default());
            self.values
                .resize(self.values.len() + 2 * self.net.hidden(), 0);
        }
        let ply = &mut self.plies[self.top];
        ply.changes = changes;
        ply.computed = false;
    }

    /// After a move is unmade: back to the entry below.
    #[inline]
    pub fn pop(&mut self) {
        self.top = self.top.saturating_sub(1);
    }

    /// The accumulators of the current position, White's then Black's,
    /// computed from the nearest computed entry below if need be.
    pub fn current(&mut self) -> (&[i16], &[i16]) {
        self.compute();
        let h = self.net.hidden();
        self.values[self.top * 2 * h..(self.top + 1) * 2 * h].split_at(h)
    }

    /// Compute the entries from the nearest computed one up to the top.
    #[inline]
    fn compute(&mut self) {
        let h = self.net.hidden();
        let mut base = self.top;
        while !self.plies[base].computed {
            base -= 1;
        }
        for i in base + 1..=self.top {
            let (below, here) = self.values.split_at_mut(i * 2 * h);
            let here = &mut here[..2 * h];
            here.copy_from_slice(&below[(i - 1) * 2 * h..]);
            let (white, black) = here.split_at_mut(h);
            let changes = &self.plies[i].changes;
            apply(&self.net, changes, Color::White, white);
            apply(&self.net, changes, Color::Black, black);
            self.plies[i].computed = true;
        }
    }

    /// The network's score of `pos` (the current entry's position) for the
    /// side to move.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        self.compute();
        let h = self.net.hidden();
        let (white, black) = self.values[self.top * 2 * h..(self.top + 1) * 2 * h].split_at(h);
        let bucket = self.net.bucket(pos);
        match pos.side_to_move() {
            Color::White => self.net.output(white, black, bucket),
            Color::Black => self.net.output(black, white, bucket),
        }
    }
}

/// Apply a move's board changes to `acc`, seen from `perspective`.
#[inline]
fn apply(net: &Net, changes: &[Change], perspective: Color, acc: &mut [i16]) {
    let layout = net.layout();
    let mut add = ArrayVec::<&[i16], 4>::new();
    let mut sub = ArrayVec::<&[i16], 4>::new();
    for &(sq, old, new) in changes {
        if let Some(f) = layout.feature(perspective, old, sq as usize) {
            sub.push(net.row(f));
        }
        if let Some(f) = layout.feature(perspective, new, sq as usize) {
            add.push(net.row(f));
        }
    }
    net.kernel().apply(acc, &add, &sub);
}
