//! `DIR/learn.log`: one line per step of the loop, appended, never
//! rewritten. A line is a time, an event and `key=value` fields; a field
//! whose value may hold spaces (the command, an error) comes last and
//! takes the rest of the line:
//!
//! ```text
//! 2026.12.06-17:40:01 data-end gen=3 positions=51234 games=702 seconds=60.2
//! ```
//!
//! A restarted run reads the log back into a [`History`]: which phases of
//! which generation are done, the gates' results and the epochs' losses.
//! A line cut short by a kill (no line end) or not understood is left out
//! of the history; the next run ends a cut line with [`CUT_MARK`] (a word
//! that is no field, so the line stays one that is not understood) before
//! it writes its own.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The fields whose value is the rest of the line.
const TEXT_KEYS: [&str; 2] = ["command", "error"];

/// What ends a line that a kill cut short.
pub const CUT_MARK: &str = " [cut-short]\n";

/// One line: its event and fields, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub event: String,
    pub fields: Vec<(String, String)>,
}

impl Line {
    pub fn new(event: &str) -> Line {
        Line {
            event: event.to_string(),
            fields: Vec::new(),
        }
    }

    /// The line with one more field (a text field must be the last).
    pub fn with(mut self, key: &str, value: impl std::fmt::Display) -> Line {
        self.fields.push((key.to_string(), value.to_string()));
        self
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn number<T: std::str::FromStr>(&self, key: &str) -> Option<T> {
        self.get(key)?.parse().ok()
    }

    /// The generation the line is about.
    pub fn generation(&self) -> Option<u32> {
        self.number("gen")
    }

    /// The line's text after its time (no line end): spaces in a field
    /// that is not a text field are written as `_`, so that the line reads
    /// back the same.
    pub fn text(&self) -> String {
        let mut out = self.event.clone();
        for (k, v) in &self.fields {
            let v = if TEXT_KEYS.contains(&k.as_str()) {
                v.replace('\n', " ")
            } else {
                v.replace(char::is_whitespace, "_")
            };
            out.push_str(&format!(" {k}={v}"));
        }
        out
    }

    /// Read a line's text after its time; `None` where it is no line of
    /// the log (a word that is not `key=value`).
    pub fn parse(text: &str) -> Option<Line> {
        let mut rest = text.trim();
        let (event, after) = rest.split_once(' ').unwrap_or((rest, ""));
        if event.is_empty() || event.contains('=') {
            return None;
        }
        let mut line = Line::new(event);
        rest = after.trim_start();
        while !rest.is_empty() {
            let (key, after) = rest.split_once('=')?;
            if key.is_empty() || key.contains(' ') {
                return None;
            }
            if TEXT_KEYS.contains(&key) {
                line.fields.push((key.to_string(), after.to_string()));
                break;
            }
            let (value, after) = after.split_once(' ').unwrap_or((after, ""));
            line.fields.push((key.to_string(), value.to_string()));
            rest = after.trim_start();
        }
        Some(line)
    }
}

/// The time of a line, `YYYY.MM.DD-HH:MM:SS` (UTC).
fn now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let day = secs % 86_400;
    format!(
        "{}-{:02}:{:02}:{:02}",
        crate::tools::matches::pgn::today(),
        day / 3600,
        day / 60 % 60,
        day % 60
    )
}

/// The log file, appended to line by line.
pub struct Log {
    path: PathBuf,
}

impl Log {
    /// The log at `path`; a last line cut short there is ended first (with
    /// [`CUT_MARK`]), so that the next line is whole.
    pub fn open(path: &Path) -> std::io::Result<Log> {
        let ends_cut = std::fs::read(path).is_ok_and(|b| b.last().is_some_and(|&c| c != b'\n'));
        let log = Log {
            path: path.to_path_buf(),
        };
        if ends_cut {
            log.write_raw(CUT_MARK)?;
        }
        Ok(log)
    }

    fn write_raw(&self, text: &str) -> std::io::Result<()> {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        // One write a line: a kill leaves at most the last line cut.
        file.write_all(text.as_bytes())?;
        file.flush()
    }

    /// Append `line` with the time.
    pub fn write(&self, line: &Line) -> std::io::Result<()> {
        self.write_raw(&format!("{} {}\n", now(), line.text()))
    }
}

/// What the log says of one generation: the positions of its data (once
/// made), whether its candidate was trained, the validation loss of each
/// epoch of its last training, and its gate's result (once it ended).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generation {
    pub data: Option<usize>,
    pub trained: bool,
    pub validation: Vec<f64>,
    /// The trained candidate's validation loss (quantised) and the
    /// hand-written evaluation's on the same positions, where known.
    pub losses: Option<(f64, f64)>,
    /// The candidate is the net it was trained from, unchanged: no epoch
    /// predicted the validation positions better.
    pub start_kept: bool,
    pub gate: Option<GateRecord>,
}

impl Generation {
    /// The Elo of its candidate over the best of the time, if its gate
    /// promoted it.
    pub fn promoted_elo(&self) -> Option<f64> {
        self.gate.filter(|g| g.promoted).map(|g| g.elo)
    }
}

/// A gate's result as the log keeps it: whether the candidate was
/// promoted, and its Elo over the best of the time (0 when unknown).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GateRecord {
    pub promoted: bool,
    pub elo: f64,
}

/// What the log says of the whole run: each generation, and the lines that
/// were left out (cut short, or not understood).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    pub generations: BTreeMap<u32, Generation>,
    pub left_out: usize,
}

impl History {
    /// The history in the log's text.
    pub fn parse(text: &str) -> History {
        let mut h = History::default();
        let whole = text.rfind('\n').map_or("", |end| &text[..end]);
        // The part after the last line end is a line cut short.
        h.left_out += usize::from(!text[whole.len()..].trim().is_empty());
        for raw in whole.lines().filter(|l| !l.trim().is_empty()) {
            let line = raw.split_once(' ').and_then(|(_, rest)| Line::parse(rest));
            match line {
                Some(line) => h.add(&line),
                None => h.left_out += 1,
            }
        }
        h
    }

    /// The history in the log file at `path` (none when there is none).
    pub fn read(path: &Path) -> std::io::Result<History> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(History::parse(&String::from_utf8_lossy(&bytes))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(History::default()),
            Err(e) => Err(e),
        }
    }

    /// Take in one line.
    pub fn add(&mut self, line: &Line) {
        let Some(g) = line.generation() else { return };
        let generation = self.generations.entry(g).or_default();
        match line.event.as_str() {
            "data-end" => generation.data = line.number("positions"),
            "train-start" => {
                generation.trained = false;
                generation.validation.clear();
                generation.losses = None;
                generation.start_kept = false;
            }
            "epoch" => {
                if let Some(loss) = line.number("validation") {
                    generation.validation.push(loss);
                }
            }
            "train-end" => {
                generation.trained = true;
                generation.start_kept = line.get("start_kept") == Some("yes");
                generation.losses = line
                    .number("validation")
                    .zip(line.number("hand_written"))
                    .filter(|(a, b): &(f64, f64)| a.is_finite() && b.is_finite());
            }
            "gate-end" => {
                let promoted = match line.get("verdict") {
                    Some("promoted") => true,
                    Some("rejected") => false,
                    _ => return,
                };
                generation.gate = Some(GateRecord {
                    promoted,
                    elo: line
                        .number("elo")
                        .filter(|e: &f64| e.is_finite())
                        .unwrap_or(0.0),
                });
            }
            _ => {}
        }
    }

    /// The first generation whose gate has not ended (1 for a new run).
    pub fn current(&self) -> u32 {
        self.generations
            .iter()
            .rev()
            .find(|(_, g)| g.gate.is_some())
            .map_or(1, |(&n, _)| n.saturating_add(1))
    }

    /// Positions of the data of the generations before `g`.
    pub fn positions_before(&self, g: u32) -> usize {
        self.generations
            .range(..g)
            .filter_map(|(_, x)| x.data)
            .fold(0, usize::saturating_add)
    }

    /// Each promoted generation with its Elo over the first evaluation
    /// (the sum of the promoted gates' Elo up to it), from (0, 0).
    pub fn promoted_elo(&self) -> Vec<(u32, f64)> {
        let mut out = vec![(0, 0.0)];
        let mut sum = 0.0;
        for (&n, g) in &self.generations {
            if let Some(elo) = g.promoted_elo() {
                sum += elo;
                out.push((n, sum));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_training_end_keeps_its_losses_and_whether_it_kept_its_start_and_a_new_start_clears_them() {
        let text = "t train-start gen=1 positions=5\n\
                    t train-end gen=1 validation=0.035686 hand_written=0.032323 epoch_written=3\n\
                    t train-start gen=2 positions=9\n\
                    t train-end gen=2 validation=none hand_written=0.03\n\
                    t train-end gen=3 validation=0.02 hand_written=0.03 start_kept=yes\n\
                    t train-start gen=3 positions=12\n\
                    t train-end gen=4 validation=0.02 hand_written=0.03 start_kept=yes\n\
                    t train-end gen=5 validation=0.02 hand_written=0.03 start_kept=no\n";
        let h = History::parse(text);
        let kept: Vec<bool> = (1..=5).map(|g| h.generations[&g].start_kept).collect();
        assert_eq!(kept, [false, false, false, true, false]);
        let losses = |g| h.generations.get(&g).and_then(|r| r.losses);
        assert_eq!(losses(1), Some((0.035686, 0.032323)));
        assert_eq!(losses(2), None);
        assert_eq!(losses(3), None);
        assert!(h.generations.get(&1).is_some_and(|r| r.trained));
    }

    #[test]
    fn lines_read_back_as_written() {
        let line = Line::new("run-start")
            .with("threads", 2)
            .with("note", "two words")
            .with("command", "amalgam learn zoo --dir a b");
        let text = line.text();
        assert_eq!(
            text,
            "run-start threads=2 note=two_words command=amalgam learn zoo --dir a b"
        );
        let back = Line::parse(&text).expect("parses");
        assert_eq!(back.get("command"), Some("amalgam learn zoo --dir a b"));
        assert_eq!(back.get("note"), Some("two_words"));
        assert_eq!(Line::parse("a=b c=d"), None);
        assert_eq!(Line::parse("ev word"), None);
    }

    #[test]
    fn the_history_says_where_a_run_stopped_and_leaves_out_a_cut_line() {
        let log = "t run-start command=amalgam learn x\n\
                   t data-start gen=1 target=100\n\
                   t data-end gen=1 positions=120 games=3\n\
                   t train-start gen=1\n\
                   t epoch gen=1 epoch=1 validation=0.5\n\
                   t epoch gen=1 epoch=2 validation=0.4\n\
                   t train-end gen=1\n\
                   t gate-end gen=1 verdict=promoted elo=80.5\n\
                   t data-start gen=2 target=100\n\
                   t data-end gen=2 positions=110\n\
                   t train-start gen=2\n\
                   t epoch gen=2 epoch=1 validation=0.3\n\
                   t train-end gen=2\n\
                   t gate-end gen=2 verdict=rejected elo=-5\n\
                   t data-end gen=3 positions=90\n\
                   t train-start gen=3\n\
                   t epoch gen=3 epoch=1 validation=0.2\n\
                   t train-end gen=3\n\
                   t gate-end gen=3 verdict=promo";
        let h = History::parse(log);
        // The gate of generation 3 was cut short: generation 3 is the
        // current one, its data and training done.
        assert_eq!(h.left_out, 1);
        assert_eq!(h.current(), 3);
        let g3 = &h.generations[&3];
        assert_eq!((g3.data, g3.trained, g3.gate), (Some(90), true, None));
        assert_eq!(h.positions_before(3), 230);
        assert_eq!(h.generations[&1].validation, vec![0.5, 0.4]);
        assert_eq!(h.promoted_elo(), vec![(0, 0.0), (1, 80.5)]);
        // With the line whole, generation 4 is next.
        let h = History::parse(&format!("{log}ted elo=30\n"));
        assert_eq!((h.left_out, h.current()), (0, 4));
        assert_eq!(h.promoted_elo(), vec![(0, 0.0), (1, 80.5), (3, 110.5)]);
        // A training begun again forgets the epochs of the one stopped.
        let h = History::parse(
            "t train-start gen=5\nt epoch gen=5 validation=0.9\nt train-start gen=5\n",
        );
        assert!(h.generations[&5].validation.is_empty() && !h.generations[&5].trained);
        assert_eq!(History::parse("").current(), 1);
    }

    #[test]
    fn a_line_after_a_cut_one_starts_on_its_own() {
        let dir = crate::tools::learn::scratch_dir("log");
        let path = dir.join("learn.log");
        std::fs::write(&path, "t data-end gen=1 positions=5\nt gate-end gen=1 verd")
            .expect("write");
        let log = Log::open(&path).expect("open");
        log.write(&Line::new("run-start").with("command", "x"))
            .expect("write");
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(
            text.starts_with("t data-end gen=1 positions=5\nt gate-end gen=1 verd [cut-short]\n")
        );
        let h = History::parse(&text);
        assert_eq!((h.left_out, h.current()), (1, 1));
        assert_eq!(h.generations[&1].data, Some(5));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
