//! `data`: converting training data files between the text and the binary
//! format, and counting what they hold; the format rule and the append
//! check that `datagen` shares.

use super::{CommandResult, compile};
use crate::rules::variant::Variant;
use crate::rules::variant_set::VariantSet;
use crate::tools::datafile::convert::{self, Writer};
use crate::tools::datafile::{DataFile, Format, binary};
use clap::{Args, Subcommand, ValueEnum};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

/// A data format on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(super) enum FormatArg {
    /// One position a line, FEN | SCORE | RESULT
    Text,
    /// Whole games, about 4 bytes a position
    Binary,
}

/// The format given, else the one `path`'s name calls for (binary for
/// `.bin`, else text).
pub(super) fn format_of(given: Option<FormatArg>, path: &str) -> Format {
    match given {
        Some(FormatArg::Text) => Format::Text,
        Some(FormatArg::Binary) => Format::Binary,
        None => Format::for_path(path),
    }
}

/// Whether data of `v` in `format` can be appended to `path`: a missing or
/// empty file can (and is new: `Ok(true)`); a binary file must be of `v`
/// and end with a whole record, a text file must not be binary.
pub(super) fn check_appendable(
    path: &str,
    v: &Arc<Variant>,
    format: Format,
) -> Result<bool, String> {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if len == 0 {
        return Ok(true);
    }
    // The first bytes tell the format: a text file is not read further
    // (it may be larger than a file the loader reads).
    let mut head = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(binary::MAGIC.len() as u64).read_to_end(&mut head))
        .map_err(|e| format!("{path}: {e}"))?;
    match (binary::is_binary(&head), format) {
        (false, Format::Text) => return Ok(false),
        (true, Format::Text) => {
            return Err(format!(
                "{path} holds binary data: append with --format binary, or write text to another file"
            ));
        }
        (false, Format::Binary) => {
            return Err(format!(
                "{path} holds text data: append with --format text, or write binary data to another file"
            ));
        }
        (true, Format::Binary) => {}
    }
    let DataFile::Binary {
        header,
        bytes,
        start,
    } = DataFile::read(path).map_err(|e| e.to_string())?
    else {
        return Err(format!("{path} holds text data"));
    };
    header.check(v).map_err(|e| format!("{path}: {e}"))?;
    if let (_, Some(d)) = binary::records(&bytes, start) {
        return Err(format!(
            "{path}: byte {}: {}; nothing appended (`amalgam data convert` copies the whole games to a new file)",
            d.offset, d.message
        ));
    }
    Ok(false)
}

/// Convert and count training data files (text or binary)
#[derive(Args, Debug)]
pub struct Data {
    #[command(subcommand)]
    command: DataCommand,
}

#[derive(Subcommand, Debug)]
enum DataCommand {
    Convert(Convert),
    Stats(Stats),
}

/// Convert data files to one file of either format
#[derive(Args, Debug)]
#[command(
    after_help = "The format of each input is found from its first bytes. A text position becomes a \
                  binary game of its own (no smaller than the text line). A truncated last record \
                  (an interrupted datagen) ends its file: the whole games before it are converted."
)]
struct Convert {
    /// The data files to read
    #[arg(required = true)]
    files: Vec<String>,
    /// The file to write (replaced)
    #[arg(long, value_name = "FILE")]
    out: String,
    /// The variant (needed when every input is text; else a binary input's)
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,
    /// The format written (default: binary for a FILE ending in .bin, else text)
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
}

/// Count the games, positions and results of data files
#[derive(Args, Debug)]
struct Stats {
    /// The data files
    #[arg(required = true)]
    files: Vec<String>,
    /// The variant of binary files (default: the one each names)
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,
}

impl Data {
    pub(super) fn run(&self, set: &VariantSet) -> CommandResult {
        let find = |name: &str| compile(set, name).map(|(v, _)| v);
        match &self.command {
            DataCommand::Convert(a) => a.run(&find),
            DataCommand::Stats(a) => a.run(&find),
        }
    }
}

type Find<'a> = dyn Fn(&str) -> Result<Arc<Variant>, String> + 'a;

fn given_variant(name: &Option<String>, find: &Find) -> Result<Option<Arc<Variant>>, String> {
    name.as_deref().map(find).transpose()
}

impl Convert {
    fn run(&self, find: &Find) -> CommandResult {
        let out = &self.out;
        if self.files.iter().any(|f| f == out) {
            return Err(format!("{out} is also an input"));
        }
        let mut variant = given_variant(&self.variant, find)?;
        if variant.is_none() {
            for file in &self.files {
                let data = DataFile::read(file).map_err(|e| e.to_string())?;
                if let DataFile::Binary { .. } = data {
                    variant = Some(convert::variant_of(file, &data, None, find)?);
                    break;
                }
            }
        }
        let v = variant
            .ok_or("text files do not name their variant: give it with --variant".to_string())?;
        let format = format_of(self.format, out);
        let file = std::fs::File::create(out).map_err(|e| format!("{out}: {e}"))?;
        let mut w = std::io::BufWriter::new(file);
        let totals = {
            let mut writer = Writer::new(&mut w, format, &v);
            convert::convert(&self.files, &mut writer)?
        };
        w.flush().map_err(|e| format!("{out}: {e}"))?;
        crate::outln!(
            "{} games, {} training positions written to {out} ({})",
            totals.games,
            totals.positions,
            match format {
                Format::Text => "text",
                Format::Binary => "binary",
            }
        );
        for t in &totals.truncated {
            eprintln!("warning: {t}: the rest of that file left out");
        }
        Ok(if totals.truncated.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }
}

impl Stats {
    fn run(&self, find: &Find) -> CommandResult {
        let given = given_variant(&self.variant, find)?;
        let mut damaged = false;
        for file in &self.files {
            let data = DataFile::read(file).map_err(|e| e.to_string())?;
            let v = match &data {
                // A text file's lines are only parsed: no variant needed.
                DataFile::Text(_) => None,
                DataFile::Binary { .. } => {
                    Some(convert::variant_of(file, &data, given.as_ref(), find)?)
                }
            };
            let s = convert::stats(file, &data, v.as_ref());
            print_stats(file, &data, &s);
            damaged |= s.damage.is_some();
        }
        Ok(if damaged {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        })
    }
}

fn print_stats(file: &str, data: &DataFile, s: &convert::Stats) {
    match data {
        DataFile::Binary { header, .. } => crate::outln!(
            "{file}: binary, variant {} (layout {:016x})",
            header.variant,
            header.layout
        ),
        DataFile::Text(_) => crate::outln!("{file}: text"),
    }
    if s.binary {
        crate::outln!(
            "  games {}, positions {}, training positions {}",
            s.games,
            s.positions,
            s.training
        );
    } else {
        crate::outln!("  training positions {}", s.training);
    }
    let [w, d, l] = s.results;
    crate::outln!(
        "  results per {}: White wins {w}, draws {d}, Black wins {l}",
        if s.binary { "game" } else { "position" }
    );
    let per = |n: usize| s.bytes as f64 / n.max(1) as f64;
    crate::outln!(
        "  {} bytes: {:.2} a training position{}",
        s.bytes,
        per(s.training),
        if s.binary {
            format!(", {:.2} a position", per(s.positions))
        } else {
            String::new()
        }
    );
    for c in s.comments.iter().take(20) {
        crate::outln!("  # {c}");
    }
    if s.comments.len() > 20 {
        crate::outln!("  ({} more comment lines)", s.comments.len() - 20);
    }
    if let Some(e) = &s.damage {
        crate::outln!("  error: {e}");
    }
}
