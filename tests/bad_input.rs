//! Bad input never panics and never corrupts state: a corpus of malformed
//! FENs, moves and ini files, plus random mutations of good ones.

mod common;

use amalgam::rules::variant_set::VariantSet;
use amalgam::{MoveError, Position};
use common::{Rng, data_dir};

fn corpus(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(data_dir().join(name)).expect("corpus file");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn bad_fens_are_refused() {
    let set = VariantSet::builtin();
    let rows = corpus("bad_fens.tsv");
    assert!(rows.len() >= 20);
    for row in rows {
        let v = set.compile(&row[0]).expect("variant");
        let fen = row.get(1).map_or("", |s| s.as_str());
        let result = Position::from_fen(v, fen);
        assert!(
            result.is_err(),
            "{} accepted bad FEN '{fen}' ({})",
            row[0],
            row.get(2).map_or("", |s| s)
        );
        let msg = result.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(!msg.is_empty());
    }
}

#[test]
fn bad_moves_are_refused_and_leave_the_position_alone() {
    let set = VariantSet::builtin();
    let rows = corpus("bad_moves.tsv");
    assert!(rows.len() >= 20);
    for row in rows {
        let v = set.compile(&row[0]).expect("variant");
        let mut p = if row[1] == "startpos" {
            Position::startpos(v)
        } else {
            Position::from_fen(v, &row[1]).expect("good FEN")
        };
        let before = (p.to_fen(), p.hash());
        let text = row.get(2).map_or("", |s| s.as_str());
        let kind = row.get(3).map_or("", |s| s.as_str());
        match (p.parse_move(text), kind) {
            (Err(MoveError::Malformed(_)), "malformed")
            | (Err(MoveError::Illegal(_)), "illegal") => {}
            (other, _) => panic!("{} '{text}': expected {kind}, got {other:?}", row[0]),
        }
        assert_eq!(
            (p.to_fen(), p.hash()),
            before,
            "position changed by a refused move"
        );
    }
}

/// Random edits of good FENs and moves: every result is either a clean error
/// or a position that survives a round trip and move generation.
#[test]
fn mutated_fens_and_moves_never_panic() {
    let set = VariantSet::builtin();
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let alphabet: Vec<char> = "pnbrqkPNBRQKsdcSDCaAmMhHeEwWfFlLgGuUjJ0123456789/ -wbKQkq"
        .chars()
        .collect();
    for variant in ["chess", "combination", "team-mate", "compound"] {
        let v = set.compile(variant).expect("variant");
        let base = Position::startpos(v.clone()).to_fen();
        let mut accepted = 0;
        for _ in 0..3000 {
            let mut chars: Vec<char> = base.chars().collect();
            for _ in 0..1 + rng.below(3) {
                let i = rng.below(chars.len());
                match rng.below(3) {
                    0 => chars[i] = alphabet[rng.below(alphabet.len())],
                    1 => {
                        chars.remove(i);
                    }
                    _ => chars.insert(i, alphabet[rng.below(alphabet.len())]),
                }
            }
            let fen: String = chars.into_iter().collect();
            if let Ok(mut p) = Position::from_fen(v.clone(), &fen) {
                accepted += 1;
                let again = Position::from_fen(v.clone(), &p.to_fen())
                    .expect("round trip of an accepted FEN");
                assert_eq!(again.to_fen(), p.to_fen());
                for m in p.legal_moves() {
                    let text = p.move_text(m);
                    assert_eq!(p.parse_move(&text), Ok(m), "{fen}: {text}");
                }
            }
        }
        assert!(accepted > 0, "{variant}: no mutation was accepted");
        // Random move texts.
        let mut p = Position::startpos(v);
        let move_chars: Vec<char> = "abcdefghijklz0123456789qrbnkxsdcaue".chars().collect();
        for _ in 0..3000 {
            let len = rng.below(8);
            let text: String = (0..len)
                .map(|_| move_chars[rng.below(move_chars.len())])
                .collect();
            let before = p.hash();
            if let Ok(m) = p.parse_move(&text) {
                p.make(m);
                p.unmake();
            }
            assert_eq!(p.hash(), before);
        }
    }
}

/// Every broken ini file reports an error on the line named in its header.
#[test]
fn broken_ini_files_report_their_lines() {
    let dir = data_dir().join("bad_ini");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(files.len() >= 6);
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read");
        let expected: Vec<usize> = text
            .lines()
            .find_map(|l| l.strip_prefix("# expect-lines:"))
            .expect("expect-lines header")
            .split_whitespace()
            .map(|n| n.parse().expect("line number"))
            .collect();
        let name = path.display().to_string();
        let mut set = VariantSet::builtin();
        let (sections, mut errors) = set.load_str(&text, &name);
        for s in &sections {
            if let Err(e) = set.compile(s) {
                errors.extend(e);
            }
        }
        let lines: Vec<usize> = errors
            .iter()
            .filter(|e| e.file == name)
            .map(|e| e.line)
            .collect();
        for l in &expected {
            assert!(
                lines.contains(l),
                "{name}: no error on line {l}; errors: {errors:?}"
            );
        }
        assert!(errors.iter().all(|e| !e.message.is_empty()));
    }
}

/// Random edits of the shipped ini file never panic the reader or compiler.
#[test]
fn mutated_ini_never_panics() {
    let base = amalgam::rules::variant::BUILTIN_INI;
    let lines: Vec<&str> = base.lines().collect();
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    let junk = [
        "",
        "=",
        "[",
        "[x:y]",
        "maxFile = 99",
        "king = -",
        "customPiece3 = q:Q",
        "stackLetters = a:nb",
        "startFen = 8/8 w",
        "maxRank = 2",
        "castlingKingsideFile = a",
        "customPiece9 = z:aaW",
        "pieceToCharTable",
    ];
    for _ in 0..300 {
        let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(l.len());
            match rng.below(3) {
                0 => l[i] = junk[rng.below(junk.len())].to_string(),
                1 => {
                    l.remove(i);
                }
                _ => l.insert(i, junk[rng.below(junk.len())].to_string()),
            }
        }
        let text = l.join("\n");
        let mut set = VariantSet::empty();
        let (names, _) = set.load_str(&text, "mutated.ini");
        for n in names {
            if let Ok(v) = set.compile(&n) {
                let mut p = Position::startpos(v);
                let _ = amalgam::rules::perft::perft(&mut p, 2);
            }
        }
    }
}
