//! Training data from self-play: games from varied openings at a fixed
//! number of nodes (or depth) per move, each quiet position written with
//! the search's score and the game's result, for fitting an evaluation.
//!
//! Two formats (see [`crate::tools::datafile`]): text, one position a line
//! appended to the output file,
//!
//! ```text
//! FEN | SCORE | RESULT
//! ```
//!
//! or binary, a record per game: its start position and every move with
//! the search's score, the quiet positions flagged as training positions.
//! SCORE is the search's score in centipawns from White's side, RESULT the
//! game's result from White's side: `1.0`, `0.5` or `0.0`. A position is
//! kept when the side to move is not in check, the move the search chose is
//! neither a capture nor a promotion, and the score is no mate and within
//! plus or minus 2,000. Games start from the opening suite given, else the
//! variant's shipped suite (either followed by a few random plies), else
//! random plies. Each run writes its settings as a comment (a `#` line, or
//! the binary header's provenance or a comment record). Each game is
//! written in one write, so an interrupted run leaves at most its last
//! game cut short.

use crate::engine::eval::Evaluator;
use crate::engine::search::{Limits, Searcher, Value};
use crate::rules::board::Position;
use crate::rules::game::{Outcome, outcome};
use crate::rules::types::{Color, MoveKind};
use crate::rules::variant::Variant;
use crate::tools::datafile::Format;
use crate::tools::datafile::binary::{self, Game, MATE_BLACK, MATE_WHITE, MAX_CP, Ply};
use crate::tools::openings::{self, Opening, random_opening};
use crate::tools::selfplay::{MAX_PLIES, RANDOM_PLIES, game_move};
use crate::util::rng::Rng;
use crate::util::stop::Stop;
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Scores beyond this are left out (the game is decided; they teach little
/// and pull the fit toward the sigmoid's flat ends).
const MAX_SCORE: i32 = 2_000;

/// A game played: every move with its score, the training positions
/// flagged, and the FEN of each training position (for the text format).
struct Played {
    game: Game,
    fens: Vec<String>,
}

/// What a run is asked for.
pub struct DatagenOptions {
    pub games: usize,
    pub limits: Limits,
    pub threads: usize,
    pub seed: u64,
    /// Openings to start from (else the variant's shipped suite, else
    /// random plies).
    pub openings: Option<Vec<Opening>>,
    /// The format written.
    pub format: Format,
    /// A binary file to be started (with its header), not appended to.
    pub new_file: bool,
    /// Ends the run between games when requested.
    pub stop: Stop,
}

/// Totals of a run.
#[derive(Debug, Default)]
pub struct DatagenSummary {
    pub games: usize,
    pub positions: usize,
    pub errors: Vec<String>,
}

/// Random plies played after a suite's opening: the games are searched
/// to a fixed number of nodes with a fresh table, so without them every
/// game from one opening would be the same game.
const SUITE_RANDOM_PLIES: usize = 4;

/// The opening of game `g`.
fn opening(variant: &Arc<Variant>, suite: &[Opening], rng: &mut Rng) -> Result<Position, String> {
    if suite.is_empty() {
        return Ok(random_opening(variant, RANDOM_PLIES, rng));
    }
    let o = &suite[(rng.next_u64() % suite.len() as u64) as usize];
    let mut pos = Position::from_fen(variant.clone(), &o.fen).map_err(|e| e.to_string())?;
    for &m in &o.moves {
        pos.make(m);
    }
    for _ in 0..SUITE_RANDOM_PLIES {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.make(moves[(rng.next_u64() % moves.len() as u64) as usize]);
    }
    Ok(pos)
}

/// A search value as White's score, as the binary format stores it.
fn white_score(value: Value, side: Color) -> i32 {
    let ours = match value {
        Value::Cp(cp) => cp.clamp(-MAX_CP, MAX_CP),
        Value::Mate(n) if n > 0 => MATE_WHITE,
        Value::Mate(_) => MATE_BLACK,
    };
    if side == Color::White { ours } else { -ours }
}

/// Play one game.
fn play(
    variant: &Arc<Variant>,
    eval: &Evaluator,
    suite: &[Opening],
    limits: &Limits,
    seed: u64,
) -> Result<Played, String> {
    let mut rng = Rng::new(seed);
    let mut pos = opening(variant, suite, &mut rng)?;
    let mut searcher = Searcher::new(8);
    let start = pos.to_fen();
    let (mut plies, mut fens) = (Vec::new(), Vec::new());
    let result = loop {
        if let Some((o, _)) = outcome(&mut pos) {
            break match o {
                Outcome::WhiteWins => 1.0,
                Outcome::BlackWins => 0.0,
                Outcome::Draw => 0.5,
            };
        }
        if plies.len() >= MAX_PLIES {
            break 0.5;
        }
        let (m, value) = game_move(&mut pos, eval, limits, &mut searcher)?;
        let capture = pos.cell(m.to()).is_piece() || m.kind() == MoveKind::EnPassant;
        let promotion = matches!(m.kind(), MoveKind::Promotion | MoveKind::PairPromotion);
        let train = matches!(value, Value::Cp(cp) if cp.abs() <= MAX_SCORE)
            && !capture
            && !promotion
            && !pos.in_check();
        if train {
            fens.push(pos.to_fen());
        }
        plies.push(Ply {
            mv: Some(m),
            score: white_score(value, pos.side_to_move()),
            train,
        });
        pos.make(m);
    };
    Ok(Played {
        game: Game {
            start,
            plies,
            result,
        },
        fens,
    })
}

/// A game's bytes in `format`: its training positions' lines, or its
/// record.
fn game_bytes(variant: &Arc<Variant>, played: &Played, format: Format) -> Result<Vec<u8>, String> {
    match format {
        Format::Binary => binary::encode_game(variant, &played.game),
        Format::Text => {
            let mut text = String::new();
            let kept = played.game.plies.iter().filter(|p| p.train);
            for (fen, ply) in played.fens.iter().zip(kept) {
                text.push_str(&format!(
                    "{fen} | {} | {:.1}\n",
                    ply.score, played.game.result
                ));
            }
            Ok(text.into_bytes())
        }
    }
}

/// The games' bytes written in game order whatever order they finish in,
/// so that a seed gives the same file with any number of threads: a game
/// that finishes early waits until every game before it is written.
struct InOrder<'a> {
    out: &'a mut (dyn Write + Send),
    /// The next game to write.
    next: usize,
    /// Finished games waiting for an earlier one; `None` for a game that
    /// failed (nothing to write).
    waiting: BTreeMap<usize, Option<Vec<u8>>>,
}

impl<'a> InOrder<'a> {
    fn new(out: &'a mut (dyn Write + Send)) -> Self {
        InOrder {
            out,
            next: 0,
            waiting: BTreeMap::new(),
        }
    }

    /// Game `g` finished with `bytes`: write it (in one write) and the
    /// games waiting on it that can now follow.
    fn finished(&mut self, g: usize, bytes: Option<Vec<u8>>) -> std::io::Result<()> {
        self.waiting.insert(g, bytes);
        while let Some(bytes) = self.waiting.remove(&self.next) {
            self.next += 1;
            if let Some(bytes) = bytes {
                self.out.write_all(&bytes)?;
                self.out.flush()?;
            }
        }
        Ok(())
    }
}

/// Play the games on `threads` threads, appending each game's positions to
/// `out` in game order as soon as the games before it are written (an
/// interrupted run keeps what it wrote); a stop request of `opts.stop`
/// ends the run between games: no game starts after it, and the games in
/// progress are finished and written, so that the output ends with a
/// whole game. `progress` is called after each game with (games,
/// positions, elapsed s).
pub fn run(
    variant: &Arc<Variant>,
    eval: &Evaluator,
    opts: &DatagenOptions,
    out: &mut (dyn Write + Send),
    progress: &(dyn Fn(usize, usize, f64) + Sync),
) -> Result<DatagenSummary, String> {
    let shipped;
    let suite: &[Opening] = match &opts.openings {
        Some(list) => list,
        None => {
            shipped = openings::shipped(&variant.name)
                .and_then(|text| openings::from_text(variant, text).ok())
                .unwrap_or_default();
            &shipped
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.max(1))
        .build()
        .map_err(|e| format!("cannot start {} threads: {e}", opts.threads))?;
    let out = Mutex::new(InOrder::new(out));
    let games = AtomicUsize::new(0);
    let positions = AtomicUsize::new(0);
    let errors = Mutex::new(Vec::new());
    let start = Instant::now();
    {
        let mut w = out.lock().map_err(|_| "output lock")?;
        let settings = format!(
            "amalgam datagen {}: {} games, seed {}, {}",
            variant.name,
            opts.games,
            opts.seed,
            match (opts.limits.nodes, opts.limits.depth) {
                (Some(n), _) => format!("{n} nodes a move"),
                (_, Some(d)) => format!("depth {d}"),
                _ => "no limit".to_string(),
            }
        );
        let bytes = match opts.format {
            Format::Text => format!("# {settings}\n").into_bytes(),
            Format::Binary if opts.new_file => binary::Header::new(variant, &settings).to_bytes(),
            Format::Binary => binary::comment_record(&settings)?,
        };
        w.out.write_all(&bytes).map_err(|e| e.to_string())?;
    }
    let record = |e: String| {
        if let Ok(mut v) = errors.lock() {
            v.push(e);
        }
    };
    let one_game = |g: usize| {
        let seed = opts.seed.wrapping_mul(0x9E37_79B9).wrapping_add(g as u64);
        let bytes = match play(variant, eval, suite, &opts.limits, seed)
            .and_then(|played| Ok((game_bytes(variant, &played, opts.format)?, played)))
        {
            Err(e) => {
                record(e);
                None
            }
            Ok((bytes, played)) => {
                let kept = played.fens.len();
                let n = games.fetch_add(1, Ordering::Relaxed) + 1;
                let p = positions.fetch_add(kept, Ordering::Relaxed) + kept;
                progress(n, p, start.elapsed().as_secs_f64());
                Some(bytes)
            }
        };
        match out.lock() {
            Err(_) => record("output lock".to_string()),
            Ok(mut w) => {
                if let Err(e) = w.finished(g, bytes) {
                    record(e.to_string());
                }
            }
        }
    };
    // Each thread takes the next game not yet started, so the games run
    // nearly in order and few wait to be written (a split of the range
    // would leave half the games waiting on the first half).
    let next_game = AtomicUsize::new(0);
    pool.scope(|s| {
        for _ in 0..opts.threads.max(1) {
            s.spawn(|_| {
                while !opts.stop.is_requested() {
                    let g = next_game.fetch_add(1, Ordering::Relaxed);
                    if g >= opts.games {
                        break;
                    }
                    one_game(g);
                }
            });
        }
    });
    Ok(DatagenSummary {
        games: games.load(Ordering::Relaxed),
        positions: positions.load(Ordering::Relaxed),
        errors: errors.into_inner().unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;

    /// Games finishing out of order are written in game order; a failed
    /// game writes nothing and holds nothing up.
    #[test]
    fn games_are_written_in_game_order() {
        let mut buf: Vec<u8> = Vec::new();
        {
            let mut w = InOrder::new(&mut buf);
            w.finished(2, Some("c\n".into())).expect("write");
            w.finished(1, None).expect("write");
            assert!(w.waiting.len() == 2 && w.next == 0);
            w.finished(0, Some("a\n".into())).expect("write");
            w.finished(4, Some("e\n".into())).expect("write");
            w.finished(3, Some("d\n".into())).expect("write");
            assert!(w.waiting.is_empty() && w.next == 5);
        }
        assert_eq!(String::from_utf8(buf).expect("utf-8"), "a\nc\nd\ne\n");
    }

    /// `games` games at 300 nodes a move on 2 threads, in the text format.
    fn text_options(games: usize) -> DatagenOptions {
        DatagenOptions {
            games,
            limits: Limits {
                nodes: Some(300),
                ..Default::default()
            },
            threads: 2,
            seed: 7,
            openings: None,
            format: Format::Text,
            new_file: true,
            stop: Stop::new(),
        }
    }

    /// A stop asked for ends the run between games: no game starts after
    /// it (here none at all), and what was written ends whole.
    #[test]
    fn a_stop_ends_the_run_between_games() {
        let set = VariantSet::builtin();
        let (v, eval) = crate::engine::eval::compile(&set, "chess").expect("variant");
        let opts = text_options(50);
        opts.stop.request();
        let mut buf: Vec<u8> = Vec::new();
        let summary = run(&v, &eval, &opts, &mut buf, &|_, _, _| {}).expect("run");
        assert_eq!((summary.games, summary.positions), (0, 0));
        let text = String::from_utf8(buf).expect("utf-8");
        assert!(text.lines().all(|l| l.starts_with('#')), "{text}");
    }

    #[test]
    fn games_write_quiet_positions_with_score_and_result() {
        let set = VariantSet::builtin();
        for name in ["chess", "combination"] {
            let (v, eval) = crate::engine::eval::compile(&set, name).expect("variant");
            let opts = text_options(2);
            let mut buf: Vec<u8> = Vec::new();
            let summary = run(&v, &eval, &opts, &mut buf, &|_, _, _| {}).expect("run");
            assert_eq!(summary.games, 2, "{:?}", summary.errors);
            let text = String::from_utf8(buf).expect("utf-8");
            let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
            assert_eq!(lines.len(), summary.positions);
            assert!(summary.positions > 10, "{name}: {}", summary.positions);
            for line in lines {
                let l = crate::tools::datafile::parse_line(line)
                    .unwrap_or_else(|e| panic!("{line}: {e}"));
                let (fen, score) = (l.fen, l.score);
                let mut pos = Position::from_fen(v.clone(), fen).expect("fen");
                assert!(!pos.in_check(), "{line}");
                assert!(score.abs() <= MAX_SCORE);
                assert!(!pos.legal_moves().is_empty());
            }
        }
    }
}
