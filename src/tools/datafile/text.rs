//! The text data format, one position a line, `FEN | SCORE | RESULT`:
//! one line's fields, and a file's lines turned into samples in parallel
//! with every bad line reported with file and line number.

use super::{DataError, Place};
use rayon::prelude::*;

/// Scores beyond this are refused as no search score.
pub const MAX_SCORE: i32 = 100_000;

/// The fields of one data line, all from White's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataLine<'a> {
    pub fen: &'a str,
    /// The search's score in centipawns.
    pub score: i32,
    /// The game's result: 1, 0.5 or 0.
    pub result: f64,
}

/// Read one data line, `FEN | SCORE | RESULT`; the FEN is left to the
/// caller, who knows the variant.
pub fn parse_line(line: &str) -> Result<DataLine<'_>, String> {
    let fields: Vec<&str> = line.split('|').map(str::trim).collect();
    let [fen, score, result] = fields.as_slice() else {
        return Err(format!(
            "expected 'FEN | SCORE | RESULT', found {} field(s)",
            fields.len()
        ));
    };
    let score: i32 = score
        .parse()
        .ok()
        .filter(|s: &i32| s.abs() <= MAX_SCORE)
        .ok_or_else(|| format!("score '{score}' is no whole number within {MAX_SCORE}"))?;
    let result = match *result {
        "1" | "1.0" => 1.0,
        "0.5" => 0.5,
        "0" | "0.0" => 0.0,
        r => return Err(format!("result '{r}' is none of 1.0, 0.5, 0.0")),
    };
    Ok(DataLine { fen, score, result })
}

/// The samples of a data file's text (`file` names it in errors), each
/// line turned into one by `sample`. Blank lines and `#` comments are
/// skipped; every bad line is an error, in the file's order.
pub fn read_data<T: Send>(
    text: &str,
    file: &str,
    sample: impl Fn(DataLine) -> Result<T, String> + Sync,
) -> Result<Vec<T>, Vec<DataError>> {
    read_data_with(text, file, || (), |_, _, line| sample(line))
}

/// The lines of `text` that hold positions (not blank, not `#` comments),
/// trimmed, with their line numbers (from 1).
fn position_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

/// How many positions `text` holds: its lines other than blank ones and
/// comments, each a position when the file is good.
pub fn count_positions(text: &str) -> usize {
    position_lines(text).count()
}

/// [`read_data`] with a working state per thread (made by `init`, e.g. an
/// evaluation's caches) lent to `sample`, which is also told each
/// position's number in the file (from 0).
pub fn read_data_with<S, T: Send>(
    text: &str,
    file: &str,
    init: impl Fn() -> S + Sync + Send,
    sample: impl Fn(&mut S, usize, DataLine) -> Result<T, String> + Sync + Send,
) -> Result<Vec<T>, Vec<DataError>> {
    let (parts, _) = read_parts(
        text,
        file,
        init,
        Vec::with_capacity,
        |state, out, n, line| {
            out.push(sample(state, n, line)?);
            Ok(())
        },
    )?;
    Ok(super::concat(parts))
}

/// How many consecutive lines one part of [`read_parts`] holds: enough
/// that a part's making costs nothing beside its positions.
const LINES_A_PART: usize = 1024;

/// The lines of `text` read in parts of consecutive lines, in parallel:
/// each part made by `part` with room for its positions and filled line
/// by line by `fill` (told each position's number in the file, from 0),
/// the parts in the file's order. Every bad line is an error, in the
/// file's order (what a part holds after an error is not used). With the
/// parts, how many positions they hold.
pub(super) fn read_parts<S, P: Send>(
    text: &str,
    file: &str,
    init: impl Fn() -> S + Sync + Send,
    part: impl Fn(usize) -> P + Sync + Send,
    fill: impl Fn(&mut S, &mut P, usize, DataLine) -> Result<(), String> + Sync + Send,
) -> Result<(Vec<P>, usize), Vec<DataError>> {
    let lines: Vec<(usize, &str)> = position_lines(text).collect();
    let parsed: Vec<(P, Vec<DataError>)> = lines
        .par_chunks(LINES_A_PART)
        .enumerate()
        .map_init(&init, |state, (c, chunk)| {
            let mut out = part(chunk.len());
            let mut errors = Vec::new();
            for (k, &(n, l)) in chunk.iter().enumerate() {
                let index = c * LINES_A_PART + k;
                if let Err(message) =
                    parse_line(l).and_then(|line| fill(state, &mut out, index, line))
                {
                    errors.push(DataError {
                        file: file.to_string(),
                        at: Place::Line(n),
                        message,
                    });
                }
            }
            (out, errors)
        })
        .collect();
    let mut parts = Vec::with_capacity(parsed.len());
    let mut errors = Vec::new();
    for (p, e) in parsed {
        parts.push(p);
        errors.extend(e);
    }
    if errors.is_empty() {
        Ok((parts, lines.len()))
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_their_fields_or_say_what_is_wrong() {
        let line = parse_line("8/8/8/8/8/8/8/K6k w - - 0 1 | -12 | 0.5").expect("good line");
        assert_eq!(line.fen, "8/8/8/8/8/8/8/K6k w - - 0 1");
        assert_eq!((line.score, line.result), (-12, 0.5));
        for (bad, why) in [
            ("", "found 1 field"),
            ("x | y | z", "score 'y'"),
            ("fen | 1 | 0.7", "result '0.7'"),
            ("fen | 1", "found 2 field"),
            ("fen | 1 | 1.0 | 2", "found 4 field"),
            ("fen | 100001 | 1.0", "within 100000"),
        ] {
            let e = parse_line(bad).expect_err(bad);
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn every_bad_line_is_reported_with_its_number() {
        let text = "# made by hand\nf | 1 | 1.0\n\nf | x | 1.0\nbad\nf | 2 | 0.0\n";
        let errors = read_data(text, "d.txt", |l| Ok(l.score)).expect_err("bad lines");
        let at: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            at,
            [
                "d.txt:4: score 'x' is no whole number within 100000",
                "d.txt:5: expected 'FEN | SCORE | RESULT', found 1 field(s)"
            ]
        );
        let good = "# c\nf | 1 | 1.0\n\nf | 2 | 0.0\n";
        assert_eq!(read_data(good, "d.txt", |l| Ok(l.score)), Ok(vec![1, 2]));
        let refused = read_data(good, "d.txt", |l| {
            if l.score == 2 {
                Err("two".to_string())
            } else {
                Ok(l.score)
            }
        });
        assert_eq!(
            refused.map_err(|e| e[0].to_string()),
            Err("d.txt:4: two".to_string())
        );
    }
}
