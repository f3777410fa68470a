//! Self-play: complete games inside one process from seeded openings (the
//! variant's shipped suite, else random plies),
//! ended by the variant's rules, with every move checked against the legal
//! move list.

use crate::engine::eval::Evaluator;
use crate::engine::search::{Limits, SearchOptions, Searcher, Value};
use crate::rules::board::Position;
use crate::rules::game::{GameRecord, Outcome, Termination, outcome};
use crate::rules::types::Move;
use crate::rules::variant::Variant;
use crate::tools::openings::{self, random_opening};
use crate::util::rng::Rng;
use rayon::prelude::*;
use std::sync::Arc;

/// Plies of random moves that open each game.
pub const RANDOM_PLIES: usize = 6;
/// A game longer than this many plies is reported as unterminated (a
/// safeguard: the move rules end every game long before).
pub const MAX_PLIES: usize = 2000;

/// The move a one-thread search chooses in a game (with the variant's
/// evaluation tables `eval`), and its score; `Err` if the search gave no
/// move or an illegal one.
pub fn game_move(
    pos: &mut Position,
    eval: &Evaluator,
    limits: &Limits,
    searcher: &mut Searcher,
) -> Result<(Move, Value), String> {
    let r = searcher.search(
        pos,
        eval,
        limits,
        &SearchOptions::default(),
        &[],
        &mut |_| {},
    );
    let Some(m) = r.best else {
        return Err(format!("no move in {}", pos.to_fen()));
    };
    if !pos.legal_moves().contains(&m) {
        return Err(format!("illegal move {:?} in {}", m, pos.to_fen()));
    }
    Ok((m, r.value))
}

/// Play one game; `Err` if the engine produced an illegal move or none.
pub fn play_game(
    variant: &Arc<Variant>,
    eval: &Evaluator,
    limits: &Limits,
    seed: u64,
    round: usize,
) -> Result<GameRecord, String> {
    let mut rng = Rng::new(seed);
    // A position of the shipped suite, else random plies.
    let suite =
        openings::shipped(&variant.name).and_then(|text| openings::from_text(variant, text).ok());
    let start_fen = match suite {
        Some(list) => list[(rng.next_u64() % list.len() as u64) as usize]
            .fen
            .clone(),
        None => random_opening(variant, RANDOM_PLIES, &mut rng).to_fen(),
    };
    let mut pos = Position::from_fen(variant.clone(), &start_fen).map_err(|e| e.to_string())?;
    let mut searcher = Searcher::new(8);
    let mut moves = Vec::new();
    let mut result = None;
    while moves.len() < MAX_PLIES {
        if let Some(r) = outcome(&mut pos) {
            result = Some(r);
            break;
        }
        let (m, _) = game_move(&mut pos, eval, limits, &mut searcher)?;
        pos.make(m);
        moves.push(m);
    }
    Ok(GameRecord {
        variant: variant.name.clone(),
        start_fen,
        moves,
        result,
        white: "Amalgam".into(),
        black: "Amalgam".into(),
        round,
        event: "Amalgam self-play".into(),
    })
}

/// Summary of a self-play run.
#[derive(Default, Debug)]
pub struct Summary {
    pub white_wins: usize,
    pub black_wins: usize,
    pub draws: usize,
    pub unterminated: usize,
    pub by_termination: std::collections::BTreeMap<Termination, usize>,
    pub errors: Vec<String>,
}

/// Play `games` games in parallel (one search thread each).
pub fn run(
    variant: &Arc<Variant>,
    eval: &Evaluator,
    games: usize,
    limits: &Limits,
    seed: u64,
) -> (Vec<GameRecord>, Summary) {
    let results: Vec<Result<GameRecord, String>> = (0..games)
        .into_par_iter()
        .map(|g| {
            play_game(
                variant,
                eval,
                limits,
                seed.wrapping_add(g as u64 * 0x1000_0001),
                g + 1,
            )
        })
        .collect();
    let mut summary = Summary::default();
    let mut records = Vec::new();
    for r in results {
        match r {
            Err(e) => summary.errors.push(e),
            Ok(rec) => {
                match rec.result {
                    None => summary.unterminated += 1,
                    Some((o, t)) => {
                        match o {
                            Outcome::WhiteWins => summary.white_wins += 1,
                            Outcome::BlackWins => summary.black_wins += 1,
                            Outcome::Draw => summary.draws += 1,
                        }
                        *summary.by_termination.entry(t).or_default() += 1;
                    }
                }
                records.push(rec);
            }
        }
    }
    (records, summary)
}
