//! The node functions: the alpha-beta search of a node below the root and
//! the quiescence search, with their pruning and the table's mate scores.

use super::picker::{COUNTER_ORDER, GOOD_CAPTURE_ORDER};
use super::see::see_ge;
use super::tt::{self, Bound};
use super::{INFINITE, MATE, MATE_BOUND, NO_EVAL, Worker, history};
use crate::rules::movegen::{
    captures_of, captures_pseudo, gives_check, is_legal, leaves_king_safe_unchecked, legal_moves,
    legal_moves_king_untested, needs_test,
};
use crate::rules::types::{Color, Move, MoveKind, MoveList};
use crate::rules::variant::CodeMask;
use arrayvec::ArrayVec;

/// Late-move reduction in plies for a depth and move number (from 1).
fn reduction(depth: i32, move_number: usize) -> i32 {
    if depth < 3 || move_number < 4 {
        return 0;
    }
    // The logarithmic shape used by most modern engines.
    (0.8 + (depth as f64).ln() * (move_number as f64).ln() / 2.4) as i32
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The score a table entry proves for the window, if it proves one.
fn tt_cutoff(e: &tt::TtEntry, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    let s = from_tt(e.score, ply);
    let cut = match e.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}

impl Worker<'_> {
    /// Whether the position is drawn by rule (at a node below the root).
    fn is_draw(&self) -> bool {
        let v = self.pos.variant();
        if v.n_move_rule > 0 && self.pos.halfmove_clock() >= 2 * v.n_move_rule {
            return true;
        }
        if self.pos.repetitions() > 0 {
            return true;
        }
        let men = self.pos.men(Color::White).len() + self.pos.men(Color::Black).len();
        men <= 6
            && !self.pos.has_mating_potential(Color::White)
            && !self.pos.has_mating_potential(Color::Black)
    }

    /// Material that makes null-move pruning safe: at least two men that are
    /// neither the king nor of the pawn type.
    fn null_move_safe(&self) -> bool {
        let v = self.pos.variant();
        let us = self.pos.side_to_move();
        let pieces = self
            .pos
            .men(us)
            .iter()
            .filter(|&&sq| {
                let t = self.pos.cell(crate::rules::types::Square(sq)).kind();
                t != v.king && v.promotion_pawns & t.bit() == 0
            })
            .count();
        pieces >= 2
    }

    /// Whether the side to move's position is better than two plies before
    /// (or four, when that node was in check; yes when neither is known).
    fn improving(&self, ply: usize, eval: i32) -> bool {
        [2, 4]
            .iter()
            .filter_map(|&back| ply.checked_sub(back).map(|p| self.evals[p]))
            .find(|&e| e != NO_EVAL)
            .is_none_or(|e| eval > e)
    }

    /// Cell codes of the opponent's men worth at least `need`.
    fn victims_worth(&self, need: i32) -> CodeMask {
        let them = self.pos.side_to_move().flip() as u32;
        let mut mask = 0;
        for (t, &value) in self.values.iter().enumerate() {
            if value >= need {
                mask |= 1 << (2 + 2 * t as u32 + them);
            }
        }
        mask
    }

    /// The value of a node without legal moves: mated, or stalemate as the
    /// variant scores it.
    fn no_moves_value(&self, in_check: bool, ply: usize) -> i32 {
        if in_check {
            -MATE + ply as i32
        } else {
            self.pos.variant().stalemate_value as i32 * (MATE - ply as i32)
        }
    }

    /// Quiescence search. `in_check` is whether the side to move is in
    /// check, when the caller already knows it.
    fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, in_check: Option<bool>) -> i32 {
        if let Some(score) = self.enter_node(ply) {
            return score;
        }
        // Every entry is at least as deep as the quiescence search.
        if let Some(s) = self
            .shared
            .tt
            .probe(self.pos.hash())
            .and_then(|e| tt_cutoff(&e, alpha, beta, ply))
        {
            return s;
        }
        let in_check = in_check.unwrap_or_else(|| self.pos.in_check());
        let mut list = MoveList::new();
        let mut best = -INFINITE;
        if in_check {
            legal_moves(&mut self.pos, &mut list);
            if list.is_empty() {
                return -MATE + ply as i32;
            }
        } else {
            // Far above beta on material alone: no need for the full
            // evaluation (the hand-written one's material; a network's
            // scores are its own).
            if let Some(lower) = self.eval.lazy_cut(&self.pos, beta) {
                return lower;
            }
            let stand_pat = self.corrected_eval();
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            // The captures are generated only when the stand-pat fails to
            // cut, and only of men whose value can bring the score near alpha.
            captures_of(
                &self.pos,
                self.victims_worth(alpha - stand_pat - 200),
                &mut list,
            );
            // En passant and the choice not to promote come whatever the
            // victim: skip those that cannot bring the score near alpha.
            let mut keep = 0;
            for i in 0..list.len() {
                let m = list[i];
                let promo = matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion);
                if promo || stand_pat + self.capture_value(m).unwrap_or(0) + 200 >= alpha {
                    list[keep] = m;
                    keep += 1;
                }
            }
            list.truncate(keep);
        }
        let mut scores = ArrayVec::new();
        self.score_moves(&list, ply, false, &mut scores);
        for i in 0..list.len() {
            Self::pick(&mut list, &mut scores, i);
            let m = list[i];
            // Out of check, captures that lose material are not searched.
            if !in_check && !see_ge(self.tables(), &self.pos, m, 0) {
                continue;
            }
            if !in_check
                && needs_test(&self.pos, m)
                && !leaves_king_safe_unchecked(&mut self.pos, m)
            {
                continue;
            }
            self.make(m);
            let score = -self.qsearch(-beta, -alpha, ply + 1, None);
            self.unmake();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn search(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        pv_node: bool,
        null_ok: bool,
    ) -> i32 {
        self.pv[ply].clear();
        let in_check = if self.check_hint.0 == self.pos.hash() {
            self.check_hint.1
        } else {
            self.pos.in_check()
        };
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, Some(in_check));
        }
        if let Some(score) = self.enter_node(ply) {
            return score;
        }
        if ply > 0 {
            if self.is_draw() {
                return 0;
            }
            // Mate-distance pruning.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let hash = self.pos.hash();
        let entry = self.shared.tt.probe(hash);
        let tt_move = entry.map_or(Move::NONE, |e| e.mv);
        // A search that leaves a move out neither takes the entry's score
        // (it is about all the moves) nor stores its own.
        let excluded = self.excluded[ply];
        if let Some(e) = entry
            && !pv_node
            && excluded == Move::NONE
            && e.depth >= depth
            && let Some(s) = tt_cutoff(&e, alpha, beta, ply)
        {
            return s;
        }
        // Internal iterative reduction: without a table move the first moves
        // tried are guesses, so the node is searched a ply shallower (its
        // entry then gives the next visit a move).
        if depth >= 4 && tt_move == Move::NONE {
            depth -= 1;
        }
        let static_eval = if in_check {
            NO_EVAL
        } else {
            self.corrected_eval()
        };
        self.evals[ply] = static_eval;
        let improving = !in_check && self.improving(ply, static_eval);
        // The pruning below guesses the node's value: the table's score is
        // the better guess where its bound places it beyond the static
        // evaluation (a search saw more than the evaluation).
        let eval = match entry {
            Some(e)
                if !in_check
                    && excluded == Move::NONE
                    && e.score.abs() < MATE_BOUND
                    && e.bound.beyond(e.score, static_eval) =>
            {
                e.score
            }
            _ => static_eval,
        };
        if !pv_node && !in_check && ply > 0 && excluded == Move::NONE {
            // Reverse futility: far above beta near the leaves. Only at
            // the last four plies: deeper, a side far ahead after a
            // sacrifice is often lost to a quiet threat (a mate to come)
            // that the static evaluation cannot see, and a late quiet move
            // reduced into this range would never be searched again.
            if depth <= 4
                && eval - 90 * (depth - improving as i32) >= beta
                && beta.abs() < MATE_BOUND
            {
                return eval;
            }
            // Null move, not where zugzwang is likely.
            if null_ok && depth >= 3 && eval >= beta && self.null_move_safe() {
                let r = 3 + depth / 4;
                self.keys[ply] = None;
                self.make_null();
                let score = -self.search(-beta, -beta + 1, depth - 1 - r, ply + 1, false, false);
                self.unmake();
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }
        let mut list = MoveList::new();
        let mut scores = ArrayVec::new();
        // The table's move is tried before the others are generated.
        let mut tt_pending = excluded == Move::NONE && is_legal(&mut self.pos, tt_move, in_check);
        // Singular extension: when every other move falls well short of the
        // table move's score in a reduced search, the table move is the
        // only good one and is searched a ply deeper. When even without it
        // the node fails high, several moves refute the line (multi-cut).
        let mut tt_extension = 0;
        if let Some(e) = entry
            && tt_pending
            && ply > 0
            && depth >= 6
            && ply < 2 * self.root_depth as usize
            && e.depth >= depth - 3
            && e.bound != Bound::Upper
            && e.score.abs() < MATE_BOUND
        {
            let singular_beta = e.score - 2 * depth;
            self.excluded[ply] = tt_move;
            let v = self.search(
                singular_beta - 1,
                singular_beta,
                (depth - 1) / 2,
                ply,
                false,
                false,
            );
            self.excluded[ply] = Move::NONE;
            if self.aborted {
                return 0;
            }
            if v < singular_beta {
                tt_extension = 1;
            } else if !pv_node && singular_beta >= beta {
                return singular_beta;
            }
        }
        // The move already searched or left out, which the generated lists
        // must not bring again.
        let skip = if excluded != Move::NONE {
            excluded
        } else if tt_pending {
            tt_move
        } else {
            Move::NONE
        };
        // Staged generation: out of check the captures and promotions come
        // first, and the other moves are generated only when no capture
        // that wins or keeps material (and no promotion) is left, so a
        // cutoff by a capture saves their generation.
        let mut captures_generated = in_check;
        let mut rest_generated = false;
        // The moves `list[..staged]` are the captures and promotions, pseudo-legal.
        let mut staged = 0;
        let mut next = 0;
        let us = self.pos.side_to_move();
        let king = self.pos.king_square(us);
        let mut best = -INFINITE;
        let mut best_move = Move::NONE;
        // Whether the best move is quiet (or there is none yet).
        let mut best_quiet = true;
        let original_alpha = alpha;
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let mut captures_tried: ArrayVec<Move, 32> = ArrayVec::new();
        let before = self.before(ply);
        let mut i = 0usize;
        loop {
            // The move, and its ordering score when it came from the list.
            let (m, order) = if tt_pending {
                tt_pending = false;
                (tt_move, None)
            } else {
                if !captures_generated {
                    captures_generated = true;
                    captures_pseudo(&self.pos, &mut list);
                    if let Some(k) = list.iter().position(|&x| x == skip) {
                        list.remove(k);
                    }
                    staged = list.len();
                    self.score_moves(&list, ply, true, &mut scores);
                }
                if next < list.len() {
                    Self::pick(&mut list, &mut scores, next);
                }
                if !rest_generated && (next >= list.len() || scores[next] < GOOD_CAPTURE_ORDER) {
                    rest_generated = true;
                    let mut rest = MoveList::new();
                    legal_moves_king_untested(&mut self.pos, &mut rest);
                    if rest.is_empty() {
                        return self.no_moves_value(in_check, ply);
                    }
                    let from = list.len();
                    for &m in rest.iter() {
                        if m != skip && !list[..staged].contains(&m) {
                            list.push(m);
                        }
                    }
                    self.score_moves(&list[from..], ply, true, &mut scores);
                    if next < list.len() {
                        Self::pick(&mut list, &mut scores, next);
                    }
                }
                if next >= list.len() {
                    break;
                }
                next += 1;
                let m = list[next - 1];
                if next <= staged {
                    // A pseudo-legal capture or promotion.
                    if needs_test(&self.pos, m) && !leaves_king_safe_unchecked(&mut self.pos, m) {
                        continue;
                    }
                } else if !in_check
                    && m.from() == king
                    && m.kind() != MoveKind::Castle
                    && !leaves_king_safe_unchecked(&mut self.pos, m)
                {
                    // The king's own moves come untested (see
                    // `legal_moves_king_untested`).
                    continue;
                }
                (m, Some(scores[next - 1]))
            };
            let promotion = matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion);
            let capture = self.capture_value(m).is_some();
            let quiet = !capture && !promotion;
            // A quiet move's ordering score is its history, except for the
            // table move, the killers and the counter move.
            let history = match order {
                _ if !quiet => 0,
                Some(s) if s < COUNTER_ORDER => s,
                _ => self.mem.quiet(&self.pos, m, before),
            };
            // Pruning near the leaves, once a move has been searched.
            // Quiet moves: late ones (late-move pruning), those that cannot
            // bring the static evaluation near alpha (futility) and those
            // that lose the man (exchange evaluation); checking moves are
            // spared, found here without making the move. Captures: those
            // that lose more than a depth-scaled margin.
            if !pv_node && !in_check && best > -MATE_BOUND && depth <= 6 {
                let prune = if quiet {
                    let late = if improving {
                        4 + depth * depth
                    } else {
                        (4 + depth * depth) / 2
                    };
                    (depth <= 5 && i as i32 >= late
                        || eval + 100 + 90 * depth <= alpha
                        || depth <= 4 && history < -4_000 * depth
                        || !see_ge(self.tables(), &self.pos, m, -25 * depth * depth))
                        && !gives_check(&mut self.pos, m)
                } else {
                    !promotion && !see_ge(self.tables(), &self.pos, m, -100 * depth)
                };
                if prune {
                    i += 1;
                    continue;
                }
            }
            self.keys[ply] = Some(self.mem.key(&self.pos, m));
            self.make(m);
            let gives_check = quiet && self.pos.in_check();
            if quiet {
                self.check_hint = (self.pos.hash(), gives_check);
            }
            let mut score;
            if i == 0 {
                let extension = if m == tt_move { tt_extension } else { 0 };
                score = -self.search(-beta, -alpha, depth - 1 + extension, ply + 1, pv_node, true);
            } else {
                let mut r = if quiet && !in_check && !gives_check {
                    reduction(depth, i + 1)
                } else {
                    0
                };
                if pv_node {
                    r = (r - 1).max(0);
                }
                if m == self.killers[ply][0] || m == self.killers[ply][1] {
                    r = (r - 1).max(0);
                }
                // Moves with a good history are reduced less, bad ones more.
                r -= history / 16_384;
                let r = r.min(depth - 2).max(0);
                score = -self.search(-alpha - 1, -alpha, depth - 1 - r, ply + 1, false, true);
                if score > alpha && r > 0 {
                    score = -self.search(-alpha - 1, -alpha, depth - 1, ply + 1, false, true);
                }
                if score > alpha && score < beta {
                    score = -self.search(-beta, -alpha, depth - 1, ply + 1, true, true);
                }
            }
            self.unmake();
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                best_move = m;
                best_quiet = quiet;
                if score > alpha {
                    alpha = score;
                    if pv_node {
                        let (head, tail) = self.pv.split_at_mut(ply + 1);
                        head[ply].clear();
                        head[ply].push(m);
                        head[ply].extend_from_slice(&tail[0]);
                    }
                    if score >= beta {
                        let bonus = history::bonus(depth);
                        if quiet {
                            if self.killers[ply][0] != m {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = m;
                            }
                            if let Some(k) = self.counter_index() {
                                self.mem.counters[k] = m;
                            }
                            self.mem.update_quiet(&self.pos, m, before, bonus);
                            for &q in &quiets_tried {
                                self.mem.update_quiet(&self.pos, q, before, -bonus);
                            }
                        } else if capture {
                            self.mem.update_capture(&self.pos, m, bonus);
                        }
                        // The captures tried first did not refute the line.
                        for &c in &captures_tried {
                            self.mem.update_capture(&self.pos, c, -bonus);
                        }
                        break;
                    }
                }
            }
            if quiet {
                let _ = quiets_tried.try_push(m);
            } else if capture {
                let _ = captures_tried.try_push(m);
            }
            i += 1;
        }
        if best == -INFINITE && excluded != Move::NONE {
            // The left-out move was the only one.
            return alpha;
        }
        if i == 0 && best == -INFINITE {
            // Every generated move was an illegal king move.
            return self.no_moves_value(in_check, ply);
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // Teach the correction what the search found, where the best move
        // is quiet (a capture's gain is no fault of the evaluation) and the
        // bound proves the score on its side of the static evaluation.
        if !in_check
            && excluded == Move::NONE
            && best.abs() < MATE_BOUND
            && best_quiet
            && bound.beyond(best, static_eval)
        {
            let raw = static_eval - self.mem.correction(&self.pos);
            self.mem.update_correction(&self.pos, best - raw, depth);
        }
        if excluded == Move::NONE {
            self.shared
                .tt
                .store(hash, best_move, to_tt(best, ply), depth, bound);
        }
        best
    }
}
