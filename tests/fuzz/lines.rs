//! Mutations of a protocol line: flipped bytes, tokens dropped or shuffled, extremes, invalid UTF-8, control characters, long lines.

use super::*;

/// Lines that must never be mutated: a mutation could raise the engine's
/// thread count or its memory.
pub(crate) fn protected(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    l.contains("threads") || l.contains("hash") || l.starts_with("memory") || l.starts_with("cores")
}

pub(crate) fn tokens(line: &[u8]) -> Vec<Vec<u8>> {
    line.split(|&b| b == b' ').map(<[u8]>::to_vec).collect()
}

pub(crate) fn long_line(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let chunks: [&[u8]; 7] = [
        b" e2e4",
        b" 9",
        b" x",
        b" 18446744073709551615",
        b"/8",
        b"a",
        b" name value",
    ];
    let chunk = *rng.pick(&chunks);
    let mut out = line.to_vec();
    let target = 150_000 + rng.below(100_000);
    while out.len() < target {
        out.extend_from_slice(chunk);
    }
    out
}

pub(crate) fn insert_at(rng: &mut Rng, line: &[u8], what: &[u8]) -> Vec<u8> {
    let i = rng.below(line.len() + 1);
    let mut out = line[..i].to_vec();
    out.extend_from_slice(what);
    out.extend_from_slice(&line[i..]);
    out
}

pub(crate) fn bad_utf8(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let what = *rng.pick(&BAD_UTF8);
    insert_at(rng, line, what)
}

pub(crate) fn mutate_line(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let mut toks = tokens(line);
    match rng.below(12) {
        0 | 1 => {
            let mut out = line.to_vec();
            for _ in 0..1 + rng.below(3) {
                if out.is_empty() {
                    break;
                }
                let i = rng.below(out.len());
                let b = if rng.percent(50) {
                    out[i] ^ (1 << rng.below(8))
                } else {
                    rng.next() as u8
                };
                // A new line inside the line would make two commands of it.
                out[i] = if b == b'\n' { b'?' } else { b };
            }
            out
        }
        2 => {
            if toks.len() > 1 {
                let i = rng.below(toks.len());
                toks.remove(i);
            }
            toks.join(&b' ')
        }
        3 => {
            let i = rng.below(toks.len());
            let t = toks[i].clone();
            toks.insert(i, t);
            toks.join(&b' ')
        }
        4 => {
            for i in (1..toks.len()).rev() {
                let j = rng.below(i + 1);
                toks.swap(i, j);
            }
            toks.join(&b' ')
        }
        5 => line[..rng.below(line.len() + 1)].to_vec(),
        6 | 7 => {
            let numeric: Vec<usize> = (0..toks.len())
                .filter(|&i| {
                    !toks[i].is_empty()
                        && toks[i]
                            .iter()
                            .all(|b| b.is_ascii_digit() || b"-.:".contains(b))
                })
                .collect();
            let extreme = rng.pick(&EXTREMES).as_bytes().to_vec();
            if numeric.is_empty() {
                toks.push(extreme);
            } else {
                let i = *rng.pick(&numeric);
                toks[i] = extreme;
            }
            toks.join(&b' ')
        }
        8 | 9 => {
            let c = *rng.pick(&CONTROL);
            insert_at(rng, line, &[c])
        }
        10 => long_line(rng, line),
        _ => Vec::new(),
    }
}

/// The line as sent, and whether it was mutated. One line in 25 gets
/// invalid UTF-8 and one in five another mutation (a flipped byte also
/// makes invalid UTF-8 at times: one line in twenty in all).
pub(crate) fn maybe_mutate(rng: &mut Rng, line: String) -> (Vec<u8>, bool) {
    if protected(&line) {
        return (line.into_bytes(), false);
    }
    let r = rng.below(100);
    let out = if r < 4 {
        bad_utf8(rng, line.as_bytes())
    } else if r < 24 {
        mutate_line(rng, line.as_bytes())
    } else {
        return (line.into_bytes(), false);
    };
    // A mutation must not make a `quit` (the session would end by right).
    if String::from_utf8_lossy(&out)
        .to_ascii_lowercase()
        .contains("quit")
    {
        return (line.into_bytes(), false);
    }
    (out, true)
}

#[rustfmt::skip]
pub(crate) const JUNK_COMMANDS: [&str; 14] = [
    "register later", "hello", "go go go", "setoption", "setoption name", "setoption value 3",
    "position", "position fen", "position moves e2e4", "ping", "usermove", "level", "time",
    "option",
];

/// Flip one bit in each of `times` random bytes of `b` (bits below `bits`:
/// 7 keeps ASCII text ASCII).
pub(crate) fn flip_bits(rng: &mut Rng, b: &mut [u8], times: usize, bits: usize) {
    for _ in 0..times {
        if !b.is_empty() {
            let k = rng.below(b.len());
            b[k] ^= 1 << rng.below(bits);
        }
    }
}

/// Cut `lines` inside line `i`: it loses its end, and the lines after it go.
pub(crate) fn cut_lines(rng: &mut Rng, lines: &mut Vec<String>, i: usize) {
    let keep = rng.below(lines[i].len() + 1);
    lines.truncate(i + 1);
    let l = lines[i].as_bytes()[..keep].to_vec();
    lines[i] = String::from_utf8_lossy(&l).into_owned();
}
