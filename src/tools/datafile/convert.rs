//! `data convert` and `data stats`: data files from either format to
//! either, and what a file holds.
//!
//! A text file holds positions, not games: converted to binary, each line
//! becomes a game of its own, its position as the start and one scored ply
//! without a move (about the text line's size: the FEN is kept as text).
//! Converted to text, a binary file gives its training positions, one a
//! line, as `datagen` writes them. Comment lines go both ways: a text
//! file's leading `#` lines become the binary header's provenance, later
//! ones comment records, and back.

use super::binary::{self, COMMENT, Game, Header, Ply};
use super::{DataError, DataFile, Format, Place, parse_line};
use crate::rules::board::Position;
use crate::rules::variant::Variant;
use rayon::prelude::*;
use std::io::Write;
use std::sync::Arc;

/// What a data file holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// The variant a binary file names.
    pub variant: Option<String>,
    pub binary: bool,
    /// Whole games (a binary file's game records).
    pub games: usize,
    /// Scored positions: a binary file's plies, a text file's lines.
    pub positions: usize,
    pub training: usize,
    /// White wins, draws, Black wins: per game in a binary file, per
    /// position in a text file.
    pub results: [usize; 3],
    pub bytes: u64,
    pub comments: Vec<String>,
    /// Where the reading stopped early, if it did.
    pub damage: Option<DataError>,
}

fn result_index(r: f64) -> usize {
    if r == 1.0 {
        0
    } else if r == 0.5 {
        1
    } else {
        2
    }
}

/// A read file's variant: the binary header's, found by `find` and checked
/// against the header's layout, else `given` (text files name none).
pub fn variant_of(
    file: &str,
    data: &DataFile,
    given: Option<&Arc<Variant>>,
    find: impl Fn(&str) -> Result<Arc<Variant>, String>,
) -> Result<Arc<Variant>, String> {
    match (data, given) {
        (DataFile::Binary { header, .. }, Some(v)) => {
            header.check(v).map_err(|e| format!("{file}: {e}"))?;
            Ok(v.clone())
        }
        (DataFile::Binary { header, .. }, None) => {
            let v = find(&header.variant).map_err(|e| format!("{file}: {e}"))?;
            header.check(&v).map_err(|e| format!("{file}: {e}"))?;
            Ok(v)
        }
        (DataFile::Text(_), Some(v)) => Ok(v.clone()),
        (DataFile::Text(_), None) => Err(format!(
            "{file}: a text file does not name its variant: give it with --variant"
        )),
    }
}

/// The counts of `file`, read as `data`; a binary file's games are
/// replayed and checked with its variant `v` (found by [`variant_of`]), a
/// text file's lines only parsed (no variant needed).
pub fn stats(file: &str, data: &DataFile, v: Option<&Arc<Variant>>) -> Stats {
    let mut s = Stats {
        comments: data.comments(),
        ..Default::default()
    };
    match data {
        DataFile::Text(text) => {
            s.bytes = text.len() as u64;
            for (n, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                match parse_line(line) {
                    Ok(l) => {
                        s.positions += 1;
                        s.training += 1;
                        s.results[result_index(l.result)] += 1;
                    }
                    Err(message) => {
                        s.damage = Some(DataError {
                            file: file.to_string(),
                            at: Place::Line(n + 1),
                            message,
                        });
                        break;
                    }
                }
            }
        }
        DataFile::Binary {
            header,
            bytes,
            start,
        } => {
            s.binary = true;
            s.variant = Some(header.variant.clone());
            s.bytes = bytes.len() as u64;
            let Some(v) = v else {
                s.damage = Some(DataError {
                    file: file.to_string(),
                    at: Place::Byte(0),
                    message: format!("variant '{}' not given", header.variant),
                });
                return s;
            };
            let (records, damage) = binary::records(bytes, *start);
            let games: Vec<_> = records
                .par_iter()
                .filter(|r| r.is_game())
                .map(|r| binary::decode_game(v, r, |_, _, _| Ok(())))
                .collect();
            for g in games {
                match g {
                    Ok(info) => {
                        s.games += 1;
                        s.positions += info.positions;
                        s.training += info.training;
                        s.results[result_index(info.result)] += 1;
                    }
                    Err(d) => {
                        s.damage = Some(DataError::at_byte(file, d));
                        break;
                    }
                }
            }
            if s.damage.is_none() {
                s.damage = damage.map(|d| DataError::at_byte(file, d));
            }
        }
    }
    s
}

/// Converted totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Converted {
    pub games: usize,
    pub positions: usize,
    /// Truncated last records: the whole games before each were
    /// converted, the rest of that file left out.
    pub truncated: Vec<String>,
}

/// Writes one format, record by record.
pub struct Writer<'a> {
    out: &'a mut dyn Write,
    format: Format,
    v: Arc<Variant>,
    /// Whether the header (binary) is written.
    started: bool,
    pub totals: Converted,
}

fn io(e: std::io::Error) -> String {
    e.to_string()
}

impl<'a> Writer<'a> {
    pub fn new(out: &'a mut dyn Write, format: Format, v: &Arc<Variant>) -> Self {
        Writer {
            out,
            format,
            v: v.clone(),
            started: false,
            totals: Converted::default(),
        }
    }

    /// Comment lines: the provenance in a new binary file's header, else a
    /// comment record; `#` lines in text.
    pub fn comment(&mut self, lines: &[String]) -> Result<(), String> {
        if lines.is_empty() {
            return Ok(());
        }
        match self.format {
            Format::Text => {
                for l in lines {
                    writeln!(self.out, "# {l}").map_err(io)?;
                }
            }
            Format::Binary if !self.started => {
                self.started = true;
                let header = Header::new(&self.v, &lines.join("\n"));
                self.out.write_all(&header.to_bytes()).map_err(io)?;
            }
            Format::Binary => {
                let record = binary::comment_record(&lines.join("\n"))?;
                self.out.write_all(&record).map_err(io)?;
            }
        }
        Ok(())
    }

    /// Write the header now if it is not yet written (a file with no
    /// comment lines).
    pub fn start(&mut self) -> Result<(), String> {
        if self.format == Format::Binary && !self.started {
            self.started = true;
            let header = Header::new(&self.v, "");
            self.out.write_all(&header.to_bytes()).map_err(io)?;
        }
        Ok(())
    }

    /// A checked game record of a binary file, copied to a binary file.
    fn record(&mut self, r: &binary::Record, training: usize) -> Result<(), String> {
        self.start()?;
        self.out.write_all(&r.to_bytes()).map_err(io)?;
        self.totals.games += 1;
        self.totals.positions += training;
        Ok(())
    }

    /// A game (binary: one record in one write; text: its training
    /// positions).
    pub fn game(&mut self, game: &Game) -> Result<(), String> {
        self.start()?;
        let bytes = match self.format {
            Format::Binary => binary::encode_game(&self.v, game)?,
            Format::Text => {
                let mut pos = Position::from_fen(self.v.clone(), &game.start)
                    .map_err(|e| format!("bad FEN: {e}"))?;
                let mut text = String::new();
                for ply in &game.plies {
                    if ply.train {
                        text.push_str(&text_line(&pos, ply.score, game.result));
                    }
                    if let Some(m) = ply.mv {
                        pos.make(m);
                    }
                }
                text.into_bytes()
            }
        };
        self.out.write_all(&bytes).map_err(io)?;
        self.totals.games += 1;
        self.totals.positions += game.plies.iter().filter(|p| p.train).count();
        Ok(())
    }
}

/// A text data line, as `datagen` writes it.
pub fn text_line(pos: &Position, score: i32, result: f64) -> String {
    format!("{} | {score} | {result:.1}\n", pos.to_fen())
}

/// Convert the files `inputs` to `writer`'s format (and variant): the
/// first file's leading comment lines become the output's provenance. A
/// bad line or a damaged game stops it with the file and the line or byte;
/// a truncated record (an interrupted `datagen`) ends its file's part,
/// noted in the totals with the count of whole games before it.
pub fn convert(inputs: &[String], writer: &mut Writer) -> Result<Converted, String> {
    for file in inputs {
        let data = DataFile::read(file).map_err(|e| e.to_string())?;
        let v = writer.v.clone();
        match &data {
            DataFile::Text(text) => {
                let mut comments = Vec::new();
                for (n, line) in text.lines().enumerate() {
                    let line = line.trim();
                    if let Some(c) = line.strip_prefix('#') {
                        comments.push(c.trim().to_string());
                        continue;
                    }
                    if line.is_empty() {
                        continue;
                    }
                    writer.comment(&std::mem::take(&mut comments))?;
                    let bad = |message: String| {
                        DataError {
                            file: file.clone(),
                            at: Place::Line(n + 1),
                            message,
                        }
                        .to_string()
                    };
                    let l = parse_line(line).map_err(bad)?;
                    let game = Game {
                        start: l.fen.to_string(),
                        plies: vec![Ply {
                            mv: None,
                            score: l.score,
                            train: true,
                        }],
                        result: l.result,
                    };
                    writer.game(&game).map_err(bad)?;
                }
                writer.comment(&comments)?;
            }
            DataFile::Binary {
                header,
                bytes,
                start,
            } => {
                header.check(&v).map_err(|e| format!("{file}: {e}"))?;
                let provenance: Vec<String> =
                    header.provenance.lines().map(str::to_string).collect();
                writer.comment(&provenance)?;
                let (records, damage) = binary::records(bytes, *start);
                for r in &records {
                    if r.kind == COMMENT {
                        let text = String::from_utf8_lossy(r.body);
                        writer.comment(&text.lines().map(str::to_string).collect::<Vec<_>>())?;
                        continue;
                    }
                    if writer.format == Format::Binary {
                        // Checked, then copied as it is.
                        let info = binary::decode_game(&v, r, |_, _, _| Ok(()))
                            .map_err(|d| DataError::at_byte(file, d).to_string())?;
                        writer.record(r, info.training)?;
                        continue;
                    }
                    let mut game = Game {
                        start: String::new(),
                        plies: Vec::new(),
                        result: 0.5,
                    };
                    binary::decode_game(&v, r, |pos, ply, result| {
                        if game.plies.is_empty() {
                            game.start = pos.to_fen();
                        }
                        game.plies.push(*ply);
                        game.result = result;
                        Ok(())
                    })
                    .map_err(|d| DataError::at_byte(file, d).to_string())?;
                    if game.plies.is_empty() {
                        continue;
                    }
                    writer.game(&game)?;
                }
                if let Some(d) = damage {
                    writer
                        .totals
                        .truncated
                        .push(DataError::at_byte(file, d).to_string());
                }
            }
        }
    }
    writer.start()?;
    Ok(writer.totals.clone())
}
