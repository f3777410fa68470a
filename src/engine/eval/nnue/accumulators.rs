//! The accumulators of one search thread: a stack with an entry per ply of
//! the line being searched, each holding both perspectives' accumulators.
//! Making a move pushes an entry that records only the move's board
//! changes; the accumulators of an entry are computed when its position is
//! evaluated, from the nearest computed entry below it, so that moves whose
//! positions are never evaluated cost almost nothing. Under king buckets
//! a perspective whose view changed on the way (its king moved to another
//! bucket or half) is computed from scratch instead.

use super::features::View;
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
    /// How White's perspective and Black's see this position.
    views: [View; 2],
    /// Whether this entry's accumulators hold its position's values, per
    /// perspective.
    computed: [bool; 2],
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
    /// Whether the net has king buckets (else every view is plain and
    /// both perspectives are brought up to date together).
    kings: bool,
    scratch: Vec<u32>,
}

impl Accumulators {
    /// The stack of `net` with `pos` as its bottom entry.
    pub fn new(net: Arc<Net>, pos: &Position) -> Accumulators {
        let mut a = Accumulators {
            values: vec![0; 2 * net.hidden()],
            plies: vec![Ply::default()],
            kings: !net.layout().kings().is_none(),
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
        self.plies[0].views = self.views(pos);
        self.plies[0].computed = [true; 2];
    }

    /// How both perspectives see `pos`.
    #[inline]
    fn views(&self, pos: &Position) -> [View; 2] {
        if !self.kings {
            return [View::PLAIN; 2];
        }
        self.net.layout().views(pos)
    }

    /// After a move is made on `pos`: push the entry of the position it
    /// reached, from the board changes the position recorded.
    #[inline]
    pub fn push_move(&mut self, pos: &Position) {
        let views = self.views(pos);
        self.push(pos.last_changes(), views);
    }

    /// Push the entry of a null move (no feature changes, the kings where
    /// they were).
    #[inline]
    pub fn push_null(&mut self) {
        let views = self.plies[self.top].views;
        self.push(ArrayVec::new(), views);
    }

    #[inline]
    fn push(&mut self, changes: ArrayVec<Change, 4>, views: [View; 2]) {
        self.top += 1;
        if self.top == self.plies.len() {
            self.plies.push(Ply::default());
            self.values
                .resize(self.values.len() + 2 * self.net.hidden(), 0);
        }
        let ply = &mut self.plies[self.top];
        ply.changes = changes;
        ply.views = views;
        ply.computed = [false; 2];
    }

    /// After a move is unmade: back to the entry below.
    #[inline]
    pub fn pop(&mut self) {
        self.top = self.top.saturating_sub(1);
    }

    /// The accumulators of the current position `pos`, White's then
    /// Black's, computed from the nearest computed entry below if need be.
    pub fn current(&mut self, pos: &Position) -> (&[i16], &[i16]) {
        self.compute(pos);
        let h = self.net.hidden();
        self.values[self.top * 2 * h..(self.top + 1) * 2 * h].split_at(h)
    }

    /// Compute the top entry, whose position is `pos`, from the nearest
    /// computed one, each perspective by itself.
    #[inline]
    fn compute(&mut self, pos: &Position) {
        if self.kings {
            for (side, perspective) in Color::BOTH.into_iter().enumerate() {
                self.compute_side(pos, side, perspective);
            }
            return;
        }
        // Plain views: both perspectives move by move together.
        let h = self.net.hidden();
        let mut base = self.top;
        while !self.plies[base].computed[0] {
            base -= 1;
        }
        for i in base + 1..=self.top {
            let (below, here) = self.values.split_at_mut(i * 2 * h);
            let here = &mut here[..2 * h];
            here.copy_from_slice(&below[(i - 1) * 2 * h..]);
            let (white, black) = here.split_at_mut(h);
            let changes = &self.plies[i].changes;
            apply::<false>(&self.net, changes, View::PLAIN, Color::White, white);
            apply::<false>(&self.net, changes, View::PLAIN, Color::Black, black);
            self.plies[i].computed = [true; 2];
        }
    }

    /// [`Accumulators::compute`] of one perspective: move by move from the
    /// nearest computed entry while its view stays the same, else from
    /// scratch at the top (the entries between stay uncomputed).
    #[inline]
    fn compute_side(&mut self, pos: &Position, side: usize, perspective: Color) {
        if self.plies[self.top].computed[side] {
            return;
        }
        let h = self.net.hidden();
        let mut base = self.top;
        while !self.plies[base].computed[side] {
            base -= 1;
        }
        let view = self.plies[self.top].views[side];
        if self.plies[base..self.top]
            .iter()
            .any(|p| p.views[side] != view)
        {
            let at = (self.top * 2 + side) * h;
            self.net.refresh(
                pos,
                perspective,
                &mut self.values[at..at + h],
                &mut self.scratch,
            );
            self.plies[self.top].computed[side] = true;
            return;
        }
        for i in base + 1..=self.top {
            let (below, here) = self.values.split_at_mut((i * 2 + side) * h);
            let here = &mut here[..h];
            here.copy_from_slice(&below[((i - 1) * 2 + side) * h..][..h]);
            apply::<true>(&self.net, &self.plies[i].changes, view, perspective, here);
            self.plies[i].computed[side] = true;
        }
    }

    /// The network's score of `pos` (the current entry's position) for the
    /// side to move.
    #[inline]
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        self.compute(pos);
        let h = self.net.hidden();
        let (white, black) = self.values[self.top * 2 * h..(self.top + 1) * 2 * h].split_at(h);
        let bucket = self.net.bucket(pos);
        match pos.side_to_move() {
            Color::White => self.net.output(white, black, bucket),
            Color::Black => self.net.output(black, white, bucket),
        }
    }
}

/// Apply a move's board changes to `acc`, seen from `perspective` with
/// `view` (the same before the move and after it; `KINGS` false for a
/// net without king buckets, whose views are plain).
#[inline]
fn apply<const KINGS: bool>(
    net: &Net,
    changes: &[Change],
    view: View,
    perspective: Color,
    acc: &mut [i16],
) {
    let layout = net.layout();
    let feature = |cell, sq| match KINGS {
        true => layout.feature(view, perspective, cell, sq),
        false => layout.plain_feature(perspective, cell, sq),
    };
    let mut add = ArrayVec::<&[i16], 4>::new();
    let mut sub = ArrayVec::<&[i16], 4>::new();
    for &(sq, old, new) in changes {
        if let Some(f) = feature(old, sq as usize) {
            sub.push(net.row(f));
        }
        if let Some(f) = feature(new, sq as usize) {
            add.push(net.row(f));
        }
    }
    net.kernel().apply(acc, &add, &sub);
}
