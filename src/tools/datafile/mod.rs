//! The training data that [`crate::tools::datagen`] writes, for every tool
//! that fits an evaluation to it (`tune`, `train`) and for `data`: two
//! formats, told apart by their first bytes, not by the file's name.
//!
//! - [`text`]: one position a line, `FEN | SCORE | RESULT`;
//! - [`binary`]: whole games, a start position and then each move with its
//!   score, with a header naming the variant and its layout;
//! - [`convert`]: from either format to either, and a file's counts.
//!
//! The loader gives each training position to the caller as a
//! [`DataPosition`] (a text line's FEN is read once, a binary game is
//! replayed), in parallel, with every bad line or the first damaged game
//! reported with file and line or byte offset, and keeps the files'
//! comment lines for the provenance of what is fitted.

pub mod binary;
pub mod convert;
pub mod text;

pub use text::{DataLine, MAX_SCORE, count_positions, parse_line, read_data, read_data_with};

use crate::rules::board::Position;
use crate::rules::variant::Variant;
use crate::util::textfile::{self, ReadError};
use rayon::prelude::*;
use std::sync::Arc;

/// The largest binary data file read: about the positions of a text file
/// of [`textfile::MAX_TRAINING_BYTES`] (binary files are 8 to 16 times
/// denser), so that what a file may hold still fits in memory once read.
pub const MAX_BINARY_BYTES: u64 = textfile::MAX_TRAINING_BYTES / 8;

/// How many comment lines of each file are kept as provenance.
const COMMENTS_KEPT: usize = 20;

/// The two formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Binary,
}

impl Format {
    /// The format a file of this name is written in: binary for a name
    /// ending in `.bin`, text for any other (as every name was before the
    /// binary format).
    pub fn for_path(path: &str) -> Format {
        if path.to_ascii_lowercase().ends_with(".bin") {
            Format::Binary
        } else {
            Format::Text
        }
    }
}

/// A training position as a loader gives it: the position, and the score
/// and result from White's side.
#[derive(Clone, Copy)]
pub struct DataPosition<'a> {
    pub pos: &'a Position,
    /// The search's score in centipawns.
    pub score: i32,
    /// The game's result: 1, 0.5 or 0.
    pub result: f64,
    /// The position's number among those of the files read together
    /// (from 0, in the files' order): what tells a caller which position
    /// it is given, the positions being read in parallel.
    pub index: usize,
    /// The game of a binary file's position (a number of its own among
    /// the files read together): a game's training positions come one
    /// after the other, in order, each the same position with the moves
    /// since the last made, to the same working state; a caller may keep
    /// what it drew from the last one and update it from the squares that
    /// changed ([`Position::changed_since`]). None for a text line.
    pub game: Option<usize>,
}

/// Where in a file an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A text file's line (from 1).
    Line(usize),
    /// A binary file's byte offset (from 0).
    Byte(u64),
}

/// Data that cannot be used, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    pub file: String,
    pub at: Place,
    pub message: String,
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Place::Line(n) => write!(f, "{}:{n}: {}", self.file, self.message),
            Place::Byte(n) => write!(f, "{}: byte {n}: {}", self.file, self.message),
        }
    }
}

impl DataError {
    fn at_byte(file: &str, d: binary::Damage) -> DataError {
        DataError {
            file: file.to_string(),
            at: Place::Byte(d.offset),
            message: d.message,
        }
    }
}

/// Why data files were not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// A file that cannot be read.
    Read { file: String, error: ReadError },
    /// A file with bad data: every bad line of a text file, in order, or
    /// the first damage of a binary file (a foreign or truncated file).
    Bad {
        file: String,
        errors: Vec<DataError>,
    },
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Read { file, error } => write!(f, "{file}: {error}"),
            LoadError::Bad { file, errors } => match errors.as_slice() {
                [one] => write!(f, "{one}"),
                _ => write!(f, "{file}: {} bad line(s)", errors.len()),
            },
        }
    }
}

/// The samples of several data files, and their comment lines.
pub struct Loaded<T> {
    pub samples: Vec<T>,
    /// Up to 20 comment lines of each file, as `FILE: text`.
    pub comments: Vec<String>,
}

/// A data file read whole, in its format.
pub enum DataFile {
    Text(String),
    Binary {
        header: binary::Header,
        bytes: Vec<u8>,
        /// Where the records start.
        start: usize,
    },
}

impl DataFile {
    /// Read `file` (a text file of at most [`textfile::MAX_TRAINING_BYTES`],
    /// a binary one of at most [`MAX_BINARY_BYTES`]).
    pub fn read(file: &str) -> Result<DataFile, LoadError> {
        let read_error = |error| LoadError::Read {
            file: file.to_string(),
            error,
        };
        let bytes = textfile::read_bytes(file, textfile::MAX_TRAINING_BYTES).map_err(read_error)?;
        if !binary::is_binary(&bytes) {
            return String::from_utf8(bytes)
                .map(DataFile::Text)
                .map_err(|_| read_error(ReadError::NotText));
        }
        if bytes.len() as u64 > MAX_BINARY_BYTES {
            return Err(read_error(ReadError::TooLarge(MAX_BINARY_BYTES)));
        }
        let (header, start) = binary::Header::parse(&bytes).map_err(|d| LoadError::Bad {
            file: file.to_string(),
            errors: vec![DataError::at_byte(file, d)],
        })?;
        Ok(DataFile::Binary {
            header,
            bytes,
            start,
        })
    }

    /// The comment lines: a text file's `#` lines, a binary file's
    /// provenance and comment records.
    pub fn comments(&self) -> Vec<String> {
        match self {
            DataFile::Text(text) => text
                .lines()
                .filter(|l| l.starts_with('#'))
                .map(|l| l.trim_start_matches('#').trim().to_string())
                .collect(),
            DataFile::Binary {
                header,
                bytes,
                start,
            } => {
                let (records, _) = binary::records(bytes, *start);
                header
                    .provenance
                    .lines()
                    .map(str::to_string)
                    .chain(
                        records
                            .iter()
                            .filter(|r| r.kind == binary::COMMENT)
                            .flat_map(|r| {
                                String::from_utf8_lossy(r.body)
                                    .lines()
                                    .map(str::to_string)
                                    .collect::<Vec<_>>()
                            }),
                    )
                    .collect()
            }
        }
    }
}

/// The training positions of a binary file of `v` turned into samples by
/// `sample`, game records in parallel; a foreign file, a damaged game or a
/// truncated last record is an error with its byte offset.
pub fn read_binary_with<S, T: Send>(
    bytes: &[u8],
    file: &str,
    v: &Arc<Variant>,
    init: impl Fn() -> S + Sync + Send,
    sample: impl Fn(&mut S, DataPosition) -> Result<T, String> + Sync + Send,
) -> Result<Vec<T>, DataError> {
    let (parts, _) = read_binary_parts(
        bytes,
        file,
        v,
        0,
        init,
        Vec::with_capacity,
        |state, out, p| {
            out.push(sample(state, p)?);
            Ok(())
        },
    )?;
    Ok(concat(parts))
}

/// The parts' samples in one vector, in order.
fn concat<T>(parts: Vec<Vec<T>>) -> Vec<T> {
    let mut all = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for p in parts {
        all.extend(p);
    }
    all
}

/// The records of a binary file, checked to be of `v` and whole.
fn binary_records<'a>(
    bytes: &'a [u8],
    file: &str,
    v: &Arc<Variant>,
) -> Result<Vec<binary::Record<'a>>, DataError> {
    let bad = |d| DataError::at_byte(file, d);
    let (header, start) = binary::Header::parse(bytes).map_err(bad)?;
    header.check(v).map_err(|message| DataError {
        file: file.to_string(),
        at: Place::Byte(0),
        message,
    })?;
    let (records, damage) = binary::records(bytes, start);
    match damage {
        Some(d) => Err(bad(d)),
        None => Ok(records),
    }
}

/// The training positions of a binary file of `v`, game records in
/// parallel, a part a game: made by `part` with room for the game's
/// training positions and filled by `fill`, the file's first position
/// numbered `first`; the parts in the file's order, and how many
/// positions they hold.
fn read_binary_parts<S, P: Send>(
    bytes: &[u8],
    file: &str,
    v: &Arc<Variant>,
    first: usize,
    init: impl Fn() -> S + Sync + Send,
    part: impl Fn(usize) -> P + Sync + Send,
    fill: impl Fn(&mut S, &mut P, DataPosition) -> Result<(), String> + Sync + Send,
) -> Result<(Vec<P>, usize), DataError> {
    let records = binary_records(bytes, file, v)?;
    // Each game's first position's number and its training positions,
    // from the plies' codes.
    let mut next = first;
    let games: Vec<(usize, usize, &binary::Record)> = records
        .iter()
        .filter(|r| r.is_game())
        .map(|r| {
            let (start, count) = (next, binary::training_plies(r));
            next += count;
            (start, count, r)
        })
        .collect();
    let decoded: Vec<Result<P, binary::Damage>> = games
        .par_iter()
        .map_init(&init, |state, &(start, count, r)| {
            let mut out = part(count);
            let mut index = start;
            binary::decode_game(v, r, |pos, ply, result| {
                if ply.train {
                    let p = DataPosition {
                        pos,
                        score: ply.score,
                        result,
                        index,
                        game: Some(start),
                    };
                    fill(state, &mut out, p)?;
                    index += 1;
                }
                Ok(())
            })
            .map(|_| out)
        })
        .collect();
    let parts = decoded
        .into_iter()
        .map(|g| g.map_err(|d| DataError::at_byte(file, d)))
        .collect::<Result<_, _>>()?;
    Ok((parts, next - first))
}

/// Data files read whole, in order, before any position is made of them:
/// how many positions they hold is known first.
pub struct DataSet {
    files: Vec<(String, DataFile)>,
}

impl DataSet {
    /// Read `files` (each at most its format's size limit); the first that
    /// cannot be read ends the reading.
    pub fn read(files: &[String]) -> Result<DataSet, LoadError> {
        let files = files
            .iter()
            .map(|f| DataFile::read(f).map(|d| (f.clone(), d)))
            .collect::<Result<_, _>>()?;
        Ok(DataSet { files })
    }

    /// How many positions the files hold, counted without reading them:
    /// text lines, binary training plies (as many as a load gives when the
    /// files are good).
    pub fn positions(&self) -> usize {
        self.file_positions().iter().sum()
    }

    /// [`DataSet::positions`] file by file, in the files' order.
    pub fn file_positions(&self) -> Vec<usize> {
        self.files
            .iter()
            .map(|(_, data)| match data {
                DataFile::Text(text) => count_positions(text),
                DataFile::Binary { bytes, start, .. } => binary_positions(bytes, *start),
            })
            .collect()
    }

    /// The positions of the files of `v` made into samples by `sample`
    /// (each thread lending it a working state made by `init`, as in
    /// [`read_data_with`]), and the files' comment lines; the first file
    /// with bad data ends the reading.
    pub fn load_with<S, T: Send>(
        &self,
        v: &Arc<Variant>,
        init: impl Fn() -> S + Sync + Send,
        sample: impl Fn(&mut S, DataPosition) -> Result<T, String> + Sync + Send,
    ) -> Result<Loaded<T>, LoadError> {
        let parts = self.load_parts(v, init, Vec::with_capacity, |state, out, p| {
            out.push(sample(state, p)?);
            Ok(())
        })?;
        Ok(Loaded {
            samples: concat(parts.samples),
            comments: parts.comments,
        })
    }

    /// [`DataSet::load_with`] for a caller that keeps positions in parts of
    /// its own (e.g. a packed array each, without a value a position): the
    /// positions read together (a binary game, a run of text lines) go to
    /// one part, made by `part` with room for that many positions and
    /// filled position by position by `fill`; the parts come back in the
    /// files' order, as the loaded samples.
    pub fn load_parts<S, P: Send>(
        &self,
        v: &Arc<Variant>,
        init: impl Fn() -> S + Sync + Send,
        part: impl Fn(usize) -> P + Sync + Send,
        fill: impl Fn(&mut S, &mut P, DataPosition) -> Result<(), String> + Sync + Send,
    ) -> Result<Loaded<P>, LoadError> {
        let mut loaded = Loaded {
            samples: Vec::new(),
            comments: Vec::new(),
        };
        // Positions read so far: the next file's first one's number.
        let mut first = 0;
        for (file, data) in &self.files {
            loaded.comments.extend(
                data.comments()
                    .iter()
                    .take(COMMENTS_KEPT)
                    .map(|l| format!("{file}: {l}")),
            );
            let bad = |errors| LoadError::Bad {
                file: file.clone(),
                errors,
            };
            let (parts, count) = match data {
                DataFile::Text(text) => {
                    text::read_parts(text, file, &init, &part, |state, out, n, line| {
                        let pos = Position::from_fen(v.clone(), line.fen)
                            .map_err(|e| format!("bad FEN: {e}"))?;
                        let p = DataPosition {
                            pos: &pos,
                            score: line.score,
                            result: line.result,
                            index: first + n,
                            game: None,
                        };
                        fill(state, out, p)
                    })
                    .map_err(bad)?
                }
                DataFile::Binary { bytes, .. } => {
                    read_binary_parts(bytes, file, v, first, &init, &part, &fill)
                        .map_err(|e| bad(vec![e]))?
                }
            };
            first += count;
            loaded.samples.extend(parts);
        }
        Ok(loaded)
    }
}

/// How many training positions a binary file's records hold (those of its
/// whole records), counted from the plies' codes.
fn binary_positions(bytes: &[u8], start: usize) -> usize {
    let (records, _) = binary::records(bytes, start);
    records
        .iter()
        .filter(|r| r.is_game())
        .map(binary::training_plies)
        .sum()
}

/// Read the data files of `v` in order, either format (each at most its
/// format's size limit); a file that cannot be read, or the first with bad
/// data, ends the reading. Each thread lends `sample` a working state made
/// by `init`, as in [`read_data_with`].
pub fn load_with<S, T: Send>(
    files: &[String],
    v: &Arc<Variant>,
    init: impl Fn() -> S + Sync + Send,
    sample: impl Fn(&mut S, DataPosition) -> Result<T, String> + Sync + Send,
) -> Result<Loaded<T>, LoadError> {
    DataSet::read(files)?.load_with(v, init, sample)
}
