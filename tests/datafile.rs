//! The binary data format: every move of every variant (the user's too)
//! decodes to exactly the move played; truncated, damaged and foreign files
//! are refused with the file and the byte offset, never a panic; `datagen`
//! to text and to binary from one seed gives the same training samples;
//! `data convert` and `data stats`.

mod common;

use amalgam::engine::eval::nnue::features::KingBuckets;
use amalgam::engine::eval::{self, nnue::Layout};
use amalgam::tools::datafile::binary::{self, Game, Ply};
use amalgam::tools::datafile::{self, DataPosition, LoadError};
use amalgam::tools::train::DataFiles;
use amalgam::tools::train::factor::Factoriser;
use amalgam::tools::train::loader::Reader;
use amalgam::util::rng::Rng;
use amalgam::{Position, Variant, VariantSet};
use common::{run_amalgam, run_amalgam_with_errors};
use std::sync::Arc;

/// The built-in variants and the test's user variants.
fn variant_set() -> (VariantSet, Vec<String>) {
    let mut set = VariantSet::builtin();
    let (names, errors) = set
        .load_file("tests/data/user-variants.ini")
        .expect("user variants");
    assert!(errors.is_empty(), "{errors:?}");
    (set, names)
}

fn variants() -> Vec<Arc<Variant>> {
    let (set, names) = variant_set();
    ["chess", "combination", "team-mate", "compound"]
        .into_iter()
        .map(String::from)
        .chain(names)
        .map(|n| set.compile(&n).unwrap_or_else(|e| panic!("{n}: {e:?}")))
        .collect()
}

/// A random game of `v` (random legal moves, random scores and flags).
fn random_game(v: &Arc<Variant>, rng: &mut Rng, plies: usize) -> Game {
    let mut pos = Position::startpos(v.clone());
    let start = pos.to_fen();
    let mut game = Game {
        start,
        plies: Vec::new(),
        result: [0.0, 0.5, 1.0][(rng.next_u64() % 3) as usize],
    };
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
        game.plies.push(Ply {
            mv: Some(m),
            score: (rng.next_u64() % 4001) as i32 - 2000,
            train: !rng.next_u64().is_multiple_of(3),
        });
        pos.make(m);
    }
    game
}

/// The plies a game record decodes to.
fn decode(v: &Arc<Variant>, record: &[u8]) -> Result<Vec<Ply>, binary::Damage> {
    let (records, damage) = binary::records(record, 0);
    if let Some(d) = damage {
        return Err(d);
    }
    let mut plies = Vec::new();
    binary::decode_game(v, &records[0], |_, ply, _| {
        plies.push(*ply);
        Ok(())
    })?;
    Ok(plies)
}

#[test]
fn every_legal_move_of_every_variant_decodes_to_itself() {
    let mut rng = Rng::new(11);
    for v in variants() {
        let (mut moves, mut extra) = (0, 0);
        for _ in 0..3 {
            let game = random_game(&v, &mut rng, 150);
            let record = binary::encode_game(&v, &game).expect("encode");
            assert_eq!(decode(&v, &record), Ok(game.plies.clone()), "{}", v.name);
            // Each position of the game, with every legal move there.
            let mut pos = Position::from_fen(v.clone(), &game.start).expect("fen");
            for ply in &game.plies {
                extra += moves_round_trip(&v, &pos.to_fen());
                moves += pos.legal_moves().len();
                pos.make(ply.mv.expect("move"));
            }
        }
        assert!(moves > 1000, "{}: {moves}", v.name);
        // Stack splits and merges need the extra field; plain moves do not.
        if v.is_stacking() {
            assert!(extra > 0, "{}", v.name);
        } else {
            assert!(extra < moves / 10, "{}: {extra} of {moves}", v.name);
        }
    }
}

/// Every legal move of `fen` as a one-ply game: each decodes to itself;
/// how many needed the extra field.
fn moves_round_trip(v: &Arc<Variant>, fen: &str) -> usize {
    let mut pos = Position::from_fen(v.clone(), fen).expect("fen");
    let mut extra = 0;
    for m in pos.legal_moves() {
        let one = Game {
            start: fen.to_string(),
            plies: vec![Ply {
                mv: Some(m),
                score: 0,
                train: false,
            }],
            result: 1.0,
        };
        let record = binary::encode_game(v, &one).expect("encode");
        // Type 1, length 4, result 1, FEN length 2, FEN, code 2, score 1,
        // sum 4: a ply without the extra field.
        extra += usize::from(record.len() > 15 + fen.len());
        assert_eq!(decode(v, &record), Ok(one.plies), "{fen}: {m:?}");
    }
    extra
}

#[test]
fn promotions_need_the_extra_field_and_decode_exactly() {
    let v = VariantSet::builtin().compile("chess").expect("chess");
    // Four promotions of the pawn on a7 (and five king moves).
    assert_eq!(moves_round_trip(&v, "4k3/P7/8/8/8/8/8/4K3 w - - 0 1"), 4);
    // Castling both ways, a double step and en passant need none.
    let fen = "r3k2r/8/8/3pP3/8/8/P7/R3K2R w KQkq d6 0 1";
    assert_eq!(moves_round_trip(&v, fen), 0);
    // A training position's score must be no mate.
    let game = Game {
        start: fen.to_string(),
        plies: vec![Ply {
            mv: None,
            score: binary::MATE_WHITE,
            train: true,
        }],
        result: 1.0,
    };
    let e = binary::encode_game(&v, &game).expect_err("mate");
    assert!(e.contains("for a training position"), "{e}");
}

fn temp(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("amalgam-datafile-{}", std::process::id()));
    // Each test's files have names of their own: the tests share the folder.
    std::fs::create_dir_all(&dir).expect("dir");
    dir.join(name).to_string_lossy().into_owned()
}

fn load(file: &str, v: &Arc<Variant>) -> Result<Vec<(String, i32, f64)>, LoadError> {
    datafile::load_with(
        &[file.to_string()],
        v,
        || (),
        |_, p: DataPosition| Ok((p.pos.to_fen(), p.score, p.result)),
    )
    .map(|l| l.samples)
}

/// A binary file of a few random chess games, its bytes and the offset of
/// each record.
fn chess_file(v: &Arc<Variant>) -> (Vec<u8>, Vec<usize>) {
    let mut rng = Rng::new(3);
    let mut bytes = binary::Header::new(v, "made by a test").to_bytes();
    let mut offsets = Vec::new();
    for _ in 0..4 {
        offsets.push(bytes.len());
        bytes.extend(binary::encode_game(v, &random_game(v, &mut rng, 40)).expect("encode"));
    }
    (bytes, offsets)
}

#[test]
fn truncated_damaged_and_foreign_files_are_refused_with_the_byte() {
    let all = variants();
    let chess = &all[0];
    let (bytes, offsets) = chess_file(chess);
    let file = temp("games.bin");
    std::fs::write(&file, &bytes).expect("write");
    assert!(load(&file, chess).expect("whole file").len() > 50);
    // Cut inside the last record: the error names the file, the record's
    // offset and the whole games before it.
    let last = offsets[3];
    std::fs::write(&file, &bytes[..last + 9]).expect("write");
    let e = load(&file, chess).expect_err("truncated").to_string();
    assert!(
        e.starts_with(&format!("{file}: byte {last}: truncated record"))
            && e.contains("(3 whole games before it)"),
        "{e}"
    );
    // Another variant's file, and a changed definition of the same name.
    std::fs::write(&file, &bytes).expect("write");
    let e = load(&file, &all[3]).expect_err("foreign").to_string();
    assert_eq!(
        e,
        format!("{file}: byte 0: data of variant 'chess', not of 'compound'")
    );
    let mine = |betza: &str| {
        let mut set = VariantSet::builtin();
        let (_, errors) = set.load_str(
            &format!("[mine:chess]\ncustomPiece1 = a:{betza}\n"),
            "mine.ini",
        );
        assert!(errors.is_empty(), "{errors:?}");
        set.compile("mine").expect("mine")
    };
    std::fs::write(&file, binary::Header::new(&mine("BN"), "").to_bytes()).expect("write");
    assert_eq!(load(&file, &mine("BN")), Ok(Vec::new()));
    let e = load(&file, &mine("RN")).expect_err("changed").to_string();
    assert!(e.contains("data of another definition of 'mine'"), "{e}");
    // Every cut and many flipped bytes: an error or the same games, never
    // a panic; a file cut elsewhere than between records is refused.
    for n in 0..bytes.len() {
        let r = datafile::read_binary_with(&bytes[..n], "f", chess, || (), |_, p| Ok(p.score));
        assert_eq!(r.is_err(), !offsets.contains(&n), "cut at {n}");
    }
    // A flipped bit in a record (a summed game) is always found; in the
    // header, unless in its free provenance text.
    let mut rng = Rng::new(5);
    let mut refused = 0;
    for _ in 0..3000 {
        let mut damaged = bytes.clone();
        let at = (rng.next_u64() % bytes.len() as u64) as usize;
        damaged[at] ^= 1 << (rng.next_u64() % 8);
        let r = datafile::read_binary_with(&damaged, "f", chess, || (), |_, p| Ok(p.score));
        assert!(r.is_err() || at < offsets[0], "flip at {at} read");
        refused += usize::from(r.is_err());
    }
    assert!(refused > 2500, "{refused}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn datagen_to_text_and_to_binary_give_the_same_samples_and_convert_both_ways() {
    let (t, b) = (temp("same.txt"), temp("same.bin"));
    let datagen = |out: &str, seed: &str| {
        let args = [
            "datagen",
            "combination",
            "--games",
            "3",
            "--nodes",
            "300",
            "--threads",
            "2",
            "--seed",
            seed,
            "--out",
            out,
        ];
        let (ok, out, err) = run_amalgam_with_errors(&args);
        assert!(ok, "{out}{err}");
    };
    datagen(&t, "4");
    datagen(&b, "4");
    let bytes = std::fs::read(&b).expect("binary");
    assert!(binary::is_binary(&bytes));
    let text = std::fs::read_to_string(&t).expect("text");
    assert!(
        bytes.len() * 4 < text.len(),
        "{} {}",
        bytes.len(),
        text.len()
    );
    let v = VariantSet::builtin()
        .compile("combination")
        .expect("combination");
    let from_text = load(&t, &v).expect("text");
    assert!(from_text.len() > 20);
    assert_eq!(load(&b, &v).expect("binary"), from_text);
    // Binary to text: the text file, byte for byte (the provenance too).
    let back = temp("back.txt");
    assert!(run_amalgam(&["data", "convert", &b, "--out", &back]).0);
    assert_eq!(std::fs::read_to_string(&back).expect("back"), text);
    // Text to binary needs the variant; then the same samples again.
    let (ok, _, err) = run_amalgam_with_errors(&["data", "convert", &t, "--out", &temp("x.bin")]);
    assert!(!ok && err.contains("--variant"), "{err}");
    let (tb, tbt) = (temp("t.bin"), temp("tb.txt"));
    let args = [
        "data",
        "convert",
        &t,
        "--variant",
        "combination",
        "--out",
        &tb,
    ];
    assert!(run_amalgam(&args).0);
    assert_eq!(load(&tb, &v).expect("converted"), from_text);
    assert!(run_amalgam(&["data", "convert", &tb, "--out", &tbt]).0);
    assert_eq!(std::fs::read_to_string(&tbt).expect("again"), text);
    // `--format` over the name's rule (binary for `.bin` only).
    let named = temp("named.data");
    assert!(run_amalgam(&["data", "convert", &tb, "--out", &named]).0);
    assert_eq!(std::fs::read_to_string(&named).expect("text"), text);
    let args = [
        "data", "convert", &tb, "--format", "binary", "--out", &named,
    ];
    assert!(run_amalgam(&args).0);
    assert!(binary::is_binary(&std::fs::read(&named).expect("binary")));
    // Stats: the games and positions of both.
    let (ok, out) = run_amalgam(&["data", "stats", &b, &t]);
    assert!(ok, "{out}");
    let training = format!("training positions {}", from_text.len());
    assert!(
        out.contains("binary, variant combination") && out.contains("games 3,"),
        "{out}"
    );
    assert_eq!(out.matches(&training).count(), 2, "{out}");
    assert!(
        out.contains("# amalgam datagen combination: 3 games, seed 4"),
        "{out}"
    );
    // A second run appends; a run of another variant is refused.
    datagen(&b, "5");
    assert!(load(&b, &v).expect("appended").len() > from_text.len());
    let appended = std::fs::read(&b).expect("binary");
    let (ok, out) = run_amalgam(&["data", "stats", &b]);
    assert!(
        ok && out.contains("games 6,") && out.contains("seed 5"),
        "{out}"
    );
    // One more game of `variant` appended to the binary file: refused.
    let refused = |variant: &str, format: &str| {
        let args = [
            "datagen", variant, "--games", "1", "--nodes", "50", "--format", format, "--out", &b,
        ];
        let (ok, _, err) = run_amalgam_with_errors(&args);
        assert!(!ok, "{err}");
        err
    };
    let err = refused("chess", "binary");
    assert!(
        err.contains("data of variant 'combination', not of 'chess'"),
        "{err}"
    );
    let err = refused("combination", "text");
    assert!(err.contains("holds binary data"), "{err}");
    assert_eq!(std::fs::read(&b).expect("binary"), appended, "unchanged");
    // A killed datagen's file: not appended to; its whole games converted.
    let (records, _) = binary::records(
        &appended,
        binary::Header::parse(&appended).expect("header").1,
    );
    let last = records.last().expect("records").offset as usize;
    std::fs::write(&b, &appended[..last + 20]).expect("cut");
    let err = refused("combination", "binary");
    assert!(
        err.contains(&format!("byte {last}: truncated record")),
        "{err}"
    );
    let (ok, out) = run_amalgam(&["data", "stats", &b]);
    assert!(
        !ok && out.contains("games 5,") && out.contains("(5 whole games before it)"),
        "{out}"
    );
    let whole = temp("whole.bin");
    let (ok, out, err) = run_amalgam_with_errors(&["data", "convert", &b, "--out", &whole]);
    assert!(
        !ok && out.starts_with("5 games") && err.contains("truncated"),
        "{out}{err}"
    );
    let (ok, out) = run_amalgam(&["data", "stats", &whole]);
    assert!(ok && out.contains("games 5,"), "{out}");
    for f in [t, b, back, tb, tbt, whole, named] {
        let _ = std::fs::remove_file(f);
    }
}

/// The loader's speed, text against binary, alternating: with
/// `AMALGAM_READ_SPEED=TEXT,BINARY` (two files of the same games, e.g. from
/// `datagen chess --games 200 --nodes 1000` with one seed) and
/// `--ignored --nocapture`; each file is read 20 times a round, the
/// positions given to a callback that takes the side to move (so the
/// loader's own work is measured, not a trainer's).
#[test]
#[ignore]
fn read_speed() {
    let Ok(files) = std::env::var("AMALGAM_READ_SPEED") else {
        return;
    };
    let (text, bin) = files.split_once(',').expect("TEXT,BINARY");
    let v = VariantSet::builtin().compile("chess").expect("chess");
    let copies = |f: &str| vec![f.to_string(); 20];
    for round in 1..=3 {
        for (name, file) in [("text", text), ("binary", bin)] {
            let started = std::time::Instant::now();
            let loaded =
                datafile::load_with(&copies(file), &v, || (), |_, p| Ok(p.pos.side_to_move()))
                    .expect("load");
            let secs = started.elapsed().as_secs_f64();
            println!(
                "round {round}: {name}: {} positions in {secs:.2} s, {:.0} positions/s",
                loaded.samples.len(),
                loaded.samples.len() as f64 / secs
            );
        }
    }
}

/// `file` read by the trainer's loader as `train` reads it: the variant's
/// layout with the king bucket preset `kings`, the factoriser on, `buckets`
/// output buckets, the hand-written evaluation of the `held` share.
fn trainer_load(
    set: &VariantSet,
    name: &str,
    [buckets, kings]: [usize; 2],
    file: &str,
    held: f64,
) -> amalgam::tools::train::loader::Loaded {
    let (v, evaluator) = eval::compile(set, name).expect("variant");
    let kings = KingBuckets::preset(kings, v.files, v.ranks).expect("preset");
    let layout = Layout::new(&v).with_kings(kings).expect("kings");
    let factoriser = Factoriser::of(&layout);
    let reader = Reader {
        variant: &v,
        layout: &layout,
        factoriser: Some(&factoriser),
        tables: evaluator.tables(),
        buckets,
    };
    DataFiles::new(vec![file.to_string()])
        .load(&reader, held, 0, 1)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `train`'s reading alone: the trainer's loader ([`DataFiles::load`],
/// from the files to the packed positions, with the reader `train` builds:
/// the variant's layout, the factoriser on, the hand-written evaluation of
/// the held-out tenth). With `AMALGAM_TRAIN_READ=VARIANTS,VARIANT,FILE`
/// (`VARIANTS` an ini file, or empty for the built-in variants) and
/// `--ignored --nocapture`; it prints the positions and the time. Under
/// callgrind (`valgrind --tool=callgrind` on the test binary with this
/// test alone), the instructions of `DataFiles::load` divided by the
/// positions are what one position costs to read.
#[test]
#[ignore]
fn train_read_speed() {
    let Ok(spec) = std::env::var("AMALGAM_TRAIN_READ") else {
        return;
    };
    let [ini, name, file] = spec.split(',').collect::<Vec<_>>()[..] else {
        panic!("AMALGAM_TRAIN_READ=VARIANTS,VARIANT,FILE");
    };
    let mut set = VariantSet::builtin();
    if !ini.is_empty() {
        let (_, errors) = set.load_file(ini).expect("variants file");
        assert!(errors.is_empty(), "{errors:?}");
    }
    let started = std::time::Instant::now();
    let loaded = trainer_load(&set, name, [1, 0], file, 0.1);
    println!(
        "{file}: {} positions read in {:.3} s",
        loaded.samples.len(),
        started.elapsed().as_secs_f64()
    );
}

/// The trainer's positions of a file of `v` (features, scores, buckets),
/// as (side to move's features, other side's, score, result, baseline,
/// bucket).
type Packed = (Vec<u32>, Vec<u32>, f32, f32, f32, u8);

fn trainer_samples(v: &Arc<Variant>, file: &str, kings: usize) -> Vec<Packed> {
    let loaded = trainer_load(&variant_set().0, &v.name, [4, kings], file, 0.5);
    (0..loaded.samples.len())
        .map(|i| {
            let s = loaded.samples.get(i);
            let f = |x: &[u32]| x.to_vec();
            (f(s.us), f(s.them), s.score, s.result, s.baseline, s.bucket)
        })
        .collect()
}

/// A binary game's positions after the first are read from the last one's
/// features and the squares the moves between changed: the trainer gets
/// the same positions from a binary file as from the same games as text
/// lines (each read from every man), in every variant, with captures,
/// promotions, castling, en passant, stack splits and merges, and runs of
/// plies that are no training positions; with king buckets too.
#[test]
fn the_trainer_reads_the_same_positions_from_binary_games_as_from_text() {
    let mut rng = Rng::new(17);
    for v in variants() {
        let (bin, txt) = (
            temp(&format!("same-{}.bin", v.name)),
            temp(&format!("same-{}.txt", v.name)),
        );
        let mut bytes = binary::Header::new(&v, "").to_bytes();
        for _ in 0..6 {
            bytes.extend(binary::encode_game(&v, &random_game(&v, &mut rng, 120)).expect("encode"));
        }
        std::fs::write(&bin, &bytes).expect("write");
        let _ = std::fs::remove_file(&txt);
        let ini = "tests/data/user-variants.ini";
        let args = ["--variants", ini, "data", "convert", &bin, "--out", &txt];
        let (ok, out, err) = run_amalgam_with_errors(&args);
        assert!(ok, "{out}{err}");
        // Without king buckets and with them, where a king's move
        // changes a perspective's view and every feature with it.
        for kings in [0, 4] {
            let from_text = trainer_samples(&v, &txt, kings);
            assert!(from_text.len() > 300, "{}: {}", v.name, from_text.len());
            assert_eq!(trainer_samples(&v, &bin, kings), from_text, "{}", v.name);
        }
        let _ = std::fs::remove_file(&bin);
        let _ = std::fs::remove_file(&txt);
    }
}

/// A game record of chess by hand: start position `fen`, then each ply's
/// origin and destination (squares numbered `rank * 12 + file`), scores 0,
/// no training position; summed or not.
fn hand_record(fen: &str, plies: &[(u16, u16)], summed: bool) -> Vec<u8> {
    let mut body = vec![1u8];
    body.extend((fen.len() as u16).to_le_bytes());
    body.extend(fen.as_bytes());
    for &(from, to) in plies {
        body.extend((from * 120 + to).to_le_bytes());
        body.push(0);
    }
    let kind = if summed {
        body.extend(binary::sum(&body).to_le_bytes());
        binary::SUMMED_GAME
    } else {
        binary::GAME
    };
    let mut out = vec![kind];
    out.extend((body.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

/// A summed game whose sum holds is replayed with each move checked to be
/// its man's and to take no king; a game without a sum (earlier files) has
/// each move checked legal. Neither lets a forged game take a king.
#[test]
fn summed_games_check_moves_as_playable_and_unsummed_ones_as_legal() {
    let v = VariantSet::builtin().compile("chess").expect("chess");
    // The white king walks into the rook's file (e1-e2: legal for its
    // man, not legal), then the rook takes it (d2xe2).
    let fen = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1";
    let (e1, e2, d2) = (4, 16, 15);
    let into_check = [(e1, e2)];
    let takes_king = [(e1, e2), (d2, e2)];
    let plies = |r: &[u8]| decode(&v, r).map(|p| p.len());
    assert_eq!(plies(&hand_record(fen, &into_check, true)), Ok(1));
    let e = plies(&hand_record(fen, &takes_king, true)).expect_err("king taken");
    assert!(
        e.message.contains("d2e2 is no move of its man here"),
        "{e:?}"
    );
    let e = plies(&hand_record(fen, &into_check, false)).expect_err("not legal");
    assert!(e.message.contains("e1e2 is not legal here"), "{e:?}");
    // A legal game reads the same with and without its sum.
    let legal = [(e1, 5)];
    assert_eq!(plies(&hand_record(fen, &legal, false)), Ok(1));
    assert_eq!(plies(&hand_record(fen, &legal, true)), Ok(1));
    // A move that its man cannot make, summed or not.
    for summed in [true, false] {
        let e = plies(&hand_record(fen, &[(e1, 28)], summed)).expect_err("no such move");
        assert_eq!(e.offset, 5 + 3 + fen.len() as u64, "{e:?}");
    }
    // A sum that does not hold: the record's offset.
    let mut r = hand_record(fen, &legal, true);
    let last = r.len() - 1;
    r[last] ^= 1;
    let e = plies(&r).expect_err("sum");
    assert_eq!(
        (e.offset, e.message.contains("sum does not hold")),
        (0, true),
        "{e:?}"
    );
}

/// The text path reads each FEN once, in the loader: a bad one is
/// reported with its file and line, like any bad line.
#[test]
fn a_text_file_bad_fen_is_reported_with_its_line() {
    let v = VariantSet::builtin().compile("chess").expect("chess");
    let file = temp("bad-fen.txt");
    let good = "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 | 12 | 1.0";
    std::fs::write(&file, format!("# c\n{good}\n8/8 w - - 0 1 | 1 | 1.0\n")).expect("write");
    let e = load(&file, &v).expect_err("bad FEN").to_string();
    assert!(e.starts_with(&format!("{file}:3: bad FEN")), "{e}");
    std::fs::write(&file, format!("{good}\n")).expect("write");
    let fen = "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1".to_string();
    assert_eq!(load(&file, &v), Ok(vec![(fen, 12, 1.0)]));
    let _ = std::fs::remove_file(&file);
}

/// The positions of a text and a binary file read together are counted
/// before they are read, and each is given with its number in the files'
/// order, though they are read in parallel.
#[test]
fn positions_are_counted_first_and_numbered_in_file_order() {
    let chess = &variants()[0];
    let (bytes, _) = chess_file(chess);
    let bin = temp("numbered.bin");
    std::fs::write(&bin, &bytes).expect("write");
    let text = temp("numbered.txt");
    std::fs::write(
        &text,
        "# a comment\n\n4k3/8/8/8/8/8/3P4/4K3 w - - 0 1 | 10 | 1.0\n\
         4k3/8/8/8/8/8/3P4/4K3 b - - 0 1 | -10 | 0.0\n",
    )
    .expect("write");
    let files = [bin.clone(), text, bin];
    let set = datafile::DataSet::read(&files).expect("read");
    let loaded = set
        .load_with(
            chess,
            || (),
            |_, p: DataPosition| Ok((p.index, p.pos.to_fen())),
        )
        .expect("load");
    let indices: Vec<usize> = loaded.samples.iter().map(|s| s.0).collect();
    assert!(indices.len() > 100, "{}", indices.len());
    assert_eq!(set.positions(), indices.len());
    assert_eq!(indices, (0..indices.len()).collect::<Vec<_>>());
    // The two copies of the binary file number their positions apart.
    let half = (indices.len() - 2) / 2;
    assert_eq!(loaded.samples[half].1, "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1");
    assert_eq!(loaded.samples[0].1, loaded.samples[half + 2].1);
}
