//! Variant files: generated and mutated ini text and Betza strings.

use super::*;

pub(crate) const PIECE_KEYS: [&str; 6] = ["pawn", "knight", "bishop", "rook", "queen", "king"];
pub(crate) const BETZA_MODS: &[u8] = b"anfblrsvmcpiyeh";
pub(crate) const BETZA_ATOMS: &[u8] = b"WFDNAHCZGKQRB";

pub(crate) fn gen_betza(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.below(3) {
        if rng.percent(15) {
            // Multi-leg moves; four or more legs are rare in real files.
            for _ in 0..1 + rng.below(6) {
                s.push('a');
            }
        }
        for _ in 0..rng.below(4) {
            s.push(*rng.pick(BETZA_MODS) as char);
        }
        if rng.percent(5) {
            s.push('(');
        }
        let atom = *rng.pick(BETZA_ATOMS) as char;
        s.push(atom);
        match rng.below(6) {
            0 => s.push(atom),
            1 => s.push(char::from(b'0' + rng.below(10) as u8)),
            2 if rng.percent(20) => s.push(')'),
            _ => {}
        }
    }
    if rng.percent(3) {
        let castle = *rng.pick(&["O2", "O3", "O9", "O"]);
        s.push_str(castle);
    }
    s
}

pub(crate) fn mutate_betza(rng: &mut Rng, betza: &str) -> String {
    let mut b: Vec<char> = betza.chars().collect();
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(b.len() + 1);
        match rng.below(9) {
            0 => b.insert(i, *rng.pick(BETZA_MODS) as char),
            1 | 2 => {
                for _ in 0..1 + rng.below(6) {
                    b.insert(i, 'a');
                }
            }
            3 if !b.is_empty() => {
                b.remove(i.min(b.len() - 1));
            }
            4 => b.insert(i, *rng.pick(BETZA_ATOMS) as char),
            5 => b.insert(i, char::from(b'0' + rng.below(10) as u8)),
            6 => b.insert(i, *rng.pick(&['(', ')', '[', ']', '-', '.'])),
            7 => b = gen_betza(rng).chars().collect(),
            _ => {
                let j = rng.below(b.len() + 1);
                let (lo, hi) = (i.min(j), i.max(j));
                let part: Vec<char> = b[lo..hi].to_vec();
                for (k, c) in part.into_iter().enumerate() {
                    b.insert(hi + k, c);
                }
            }
        }
    }
    b.into_iter().collect()
}

#[rustfmt::skip]
pub(crate) const INI_JUNK_LINES: [&str; 16] = [
    "", "=", "[", "[x:y]", "[dl:chess]", "maxFile = 99", "king = -", "customPiece3 = q:Q",
    "stackLetters = a:nb", "startFen = 8/8 w", "maxRank = 2", "castlingKingsideFile = a",
    "customPiece9 = z:aaW", "pieceToCharTable", "queen = q:aaaaW", "maxStackSize = 4",
];

#[rustfmt::skip]
pub(crate) const INI_JUNK_VALUES: [&str; 22] = [
    "", "-", "0", "-1", "99", "4294967296", "18446744073709551615", "q", "q:", ":Q", "zz",
    "a*", "*0", "*11", "m1", "true", "maybe", "k:k k", "a:nb a:nb", "p:999999999999", "l", "*",
];

pub(crate) fn is_piece_key(key: &str) -> bool {
    PIECE_KEYS.contains(&key) || key.starts_with("customPiece")
}

pub(crate) fn mutate_ini(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    for _ in 0..1 + rng.below(5) {
        let n = lines.len().max(1);
        let i = rng.below(n).min(lines.len().saturating_sub(1));
        match rng.below(14) {
            0 if lines.len() > 1 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            3 | 4 => {
                let Some(eq) = lines[i].iter().position(|&b| b == b'=') else {
                    continue;
                };
                let value = if rng.percent(30) {
                    rng.pick(&EXTREMES).to_string()
                } else {
                    rng.pick(&INI_JUNK_VALUES).to_string()
                };
                lines[i].truncate(eq + 1);
                lines[i].extend_from_slice(format!(" {value}").as_bytes());
            }
            5 => {
                if !lines[i].is_empty() {
                    let k = rng.below(lines[i].len());
                    lines[i][k] ^= 1 << rng.below(7);
                }
            }
            6 => {
                let junk = rng.pick(&INI_JUNK_LINES).as_bytes().to_vec();
                lines.insert(i, junk);
            }
            7 if rng.percent(15) => {
                let l = bad_utf8(rng, &lines[i]);
                lines[i] = l;
            }
            _ => {
                // A Betza string: the part after `letter:` of a piece line.
                let pieces: Vec<usize> = (0..lines.len())
                    .filter(|&k| {
                        let l = String::from_utf8_lossy(&lines[k]);
                        l.split_once('=')
                            .is_some_and(|(key, v)| is_piece_key(key.trim()) && v.contains(':'))
                    })
                    .collect();
                if pieces.is_empty() {
                    continue;
                }
                let k = *rng.pick(&pieces);
                let l = String::from_utf8_lossy(&lines[k]).into_owned();
                let (head, betza) = l.split_once(':').unwrap_or((&l, ""));
                lines[k] = format!("{head}:{}", mutate_betza(rng, betza.trim())).into_bytes();
            }
        }
    }
    lines.join(&b'\n')
}

/// A small file with random men: children of the built-in variants, or a
/// 6x6 variant of its own.
pub(crate) fn synthetic_ini(rng: &mut Rng, tag: usize) -> Vec<u8> {
    let mut s = String::new();
    for k in 0..1 + rng.below(2) {
        if rng.percent(60) {
            let parent = *rng.pick(&VARIANTS);
            s.push_str(&format!("[fz{tag}-{k}:{parent}]\n"));
            s.push_str(&format!("queen = q:{}\n", gen_betza(rng)));
            if rng.percent(50) {
                s.push_str(&format!("knight = n:{}\n", gen_betza(rng)));
            }
            if rng.percent(30) {
                s.push_str(&format!(
                    "customPiece{} = x:{}\n",
                    1 + rng.below(9),
                    gen_betza(rng)
                ));
            }
        } else {
            s.push_str(&format!(
                "[fz{tag}-{k}]\nmaxFile = f\nmaxRank = 6\ncastling = false\n"
            ));
            s.push_str("startFen = rnbkqr/pppppp/6/6/PPPPPP/RNBKQR w - - 0 1\n");
            for key in ["knight", "bishop", "rook", "queen"] {
                if rng.percent(50) {
                    s.push_str(&format!(
                        "{key} = {}:{}\n",
                        &key[..1].replace('k', "n"),
                        gen_betza(rng)
                    ));
                }
            }
            if rng.percent(30) {
                s.push_str(&format!("pawn = p:{}\n", gen_betza(rng)));
            }
        }
        s.push('\n');
    }
    s.into_bytes()
}

pub(crate) fn gen_ini(rng: &mut Rng, ctx: &Ctx, tag: usize) -> Vec<u8> {
    match rng.below(10) {
        0..=3 => mutate_ini(rng, amalgam::rules::variant::BUILTIN_INI.as_bytes()),
        4 | 5 => mutate_ini(rng, &ctx.user_ini_text),
        _ => {
            let s = synthetic_ini(rng, tag);
            if rng.percent(25) {
                mutate_ini(rng, &s)
            } else {
                s
            }
        }
    }
}

/// A value for `VariantPath`: mostly a mutated file written for this stream.
pub(crate) fn variant_path(rng: &mut Rng, ctx: &Ctx, job: &str, files: &mut usize) -> String {
    match rng.below(20) {
        0..=10 => {
            *files += 1;
            let path = ctx.work.join(format!("{job}-{files}.ini"));
            let text = gen_ini(rng, ctx, *files);
            std::fs::write(&path, text).expect("write ini");
            path.display().to_string()
        }
        11 | 12 => ctx.user_ini.display().to_string(),
        13 => ctx.pristine_ini.display().to_string(),
        14 => ctx.work.join("missing.ini").display().to_string(),
        15 => ctx.work.display().to_string(),
        16 => ctx.junk_ini.display().to_string(),
        17 => String::new(),
        _ => "/nonexistent/dir/variants.ini".to_string(),
    }
}
