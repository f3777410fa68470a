//! The data of the loop: one binary file per generation,
//! `DIR/data/gen-NNNN.bin`, made by `datagen` with the best evaluation,
//! and the shards that others made (`scripts/`) put into `DIR/shards/`.
//!
//! A generation's file only ever holds whole games: `datagen` writes a
//! game in one write and stops between games, and a file that a kill left
//! with a record cut short is cut back to its last whole game before
//! anything else is done with it.

use super::Stop;
use crate::engine::eval::Evaluator;
use crate::engine::search::Limits;
use crate::rules::variant::Variant;
use crate::tools::datafile::binary::{self, Header};
use crate::tools::datafile::convert::{stats, variant_of};
use crate::tools::datafile::{DataFile, Format};
use crate::tools::datagen::{DatagenOptions, run};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// What a data file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub games: usize,
    pub positions: usize,
}

/// Most games one call of `datagen` plays: a generation is made in
/// several calls, each seeded apart, so that it can end near its target.
const MAX_CALL_GAMES: usize = 2_000;

/// Cut the binary file at `path` back to its last whole record (a header
/// cut short: to nothing), and count what is left; a file of another
/// variant is an error.
pub fn cut_to_whole_games(path: &Path, v: &Arc<Variant>) -> Result<Counts, String> {
    let name = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Counts::default()),
        Err(e) => return Err(format!("{name}: {e}")),
    };
    let keep = match Header::parse(&bytes) {
        // Our own file, begun with the magic: its header was cut.
        Err(_) if binary::MAGIC.starts_with(&bytes[..bytes.len().min(8)]) => 0,
        Err(d) => return Err(format!("{name}: byte {}: {}", d.offset, d.message)),
        Ok((header, start)) => {
            header.check(v).map_err(|e| format!("{name}: {e}"))?;
            let (records, _) = binary::records(&bytes, start);
            records.last().map_or(start, |r| r.end())
        }
    };
    if keep < bytes.len() {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| format!("{name}: {e}"))?;
        file.set_len(keep as u64)
            .map_err(|e| format!("{name}: {e}"))?;
    }
    if keep == 0 {
        return Ok(Counts::default());
    }
    count(path, v)
}

/// The games and training positions of a data file of `v`; a damaged file
/// is an error.
pub fn count(path: &Path, v: &Arc<Variant>) -> Result<Counts, String> {
    let name = path.display().to_string();
    let data = DataFile::read(&name).map_err(|e| e.to_string())?;
    variant_of(&name, &data, Some(v), |_| Err(String::new()))?;
    let s = stats(&name, &data, Some(v));
    if let Some(d) = s.damage {
        return Err(d.to_string());
    }
    Ok(Counts {
        games: s.games,
        positions: s.training,
    })
}

/// How a generation's data are made.
pub struct Making<'a> {
    pub variant: &'a Arc<Variant>,
    pub evaluator: &'a Evaluator,
    pub nodes: u64,
    pub threads: usize,
    /// Seeds each call apart from every other generation's.
    pub seed: u64,
    pub stop: &'a Stop,
}

/// Progress of a generation's data: positions so far, the target, and
/// positions a second in this run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DataProgress {
    pub positions: usize,
    pub target: usize,
    pub per_second: f64,
}

/// How many positions a generation's file is to hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goal {
    /// Positions it holds at least.
    pub target: usize,
    /// Games go on past the target until this time...
    pub until: Option<Instant>,
    /// ...but not past this many positions.
    pub most: usize,
}

impl Goal {
    /// Positions still to make, `rate` positions a second being made:
    /// those to the target, else those the time left allows.
    fn missing(&self, have: usize, rate: Option<f64>) -> usize {
        if have >= self.most {
            return 0;
        }
        if have < self.target {
            return self.target - have;
        }
        let Some(until) = self.until else {
            return 0;
        };
        let left = until
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        if left <= 0.0 {
            return 0;
        }
        match rate {
            // At least one game's worth, so that the time left is used.
            Some(r) => ((r * left) as usize).clamp(1, self.most - have),
            None => 1,
        }
    }
}

impl Making<'_> {
    /// Add games to the file at `path` until it holds what `goal` asks
    /// for or a stop is asked for; gives what it then holds.
    pub fn run(
        &self,
        path: &Path,
        goal: Goal,
        progress: &(dyn Fn(DataProgress) + Sync),
    ) -> Result<Counts, String> {
        let mut have = cut_to_whole_games(path, self.variant)?;
        let name = path.display().to_string();
        let started = Instant::now();
        let at_start = have.positions;
        let target = goal.target;
        loop {
            let made = have.positions - at_start;
            let secs = started.elapsed().as_secs_f64();
            let rate = (made > 0 && secs > 0.0).then(|| made as f64 / secs);
            let missing = goal.missing(have.positions, rate);
            if missing == 0 || self.stop.is_requested() {
                break;
            }
            // A first sample of a few games a thread; then three quarters
            // of the games that the positions a game has given so far say
            // are missing, so that the last call ends near the goal.
            let games = match have.positions.checked_div(have.games) {
                Some(per_game) if per_game > 0 => missing.saturating_mul(3) / 4 / per_game + 1,
                _ => 4 * self.threads,
            }
            .clamp(self.threads.max(1), MAX_CALL_GAMES);
            let new_file = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
            let opts = DatagenOptions {
                games,
                limits: Limits {
                    nodes: Some(self.nodes),
                    ..Default::default()
                },
                threads: self.threads,
                // Each call its own games: the seed counts the games made.
                seed: self.seed.wrapping_add(have.games as u64),
                openings: None,
                format: Format::Binary,
                new_file,
                stop: self.stop.clone(),
            };
            let opened = std::fs::File::options()
                .append(true)
                .create(true)
                .open(path);
            let mut file = opened.map_err(|e| format!("{name}: {e}"))?;
            let before = have;
            let show = |_games: usize, positions: usize, _secs: f64| {
                let now = before.positions + positions;
                progress(DataProgress {
                    positions: now,
                    target,
                    per_second: (now - at_start) as f64 / started.elapsed().as_secs_f64().max(1e-3),
                });
            };
            let summary = run(self.variant, self.evaluator, &opts, &mut file, &show)?;
            if let Some(e) = summary.errors.first() {
                return Err(format!("{name}: {e}"));
            }
            have.games += summary.games;
            have.positions += summary.positions;
            if summary.games == 0 && !self.stop.is_requested() {
                return Err(format!("{name}: datagen played no game"));
            }
        }
        Ok(have)
    }
}

/// The file of generation `g` under `data`.
pub fn generation_file(data: &Path, g: u32) -> PathBuf {
    data.join(format!("gen-{g:04}.bin"))
}

/// The files of `folder` that are data (not hidden, not a temporary or
/// partial file), each with its time of last change.
fn data_files(folder: &Path) -> Vec<(PathBuf, std::time::SystemTime)> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && !name.ends_with(".part") && !name.ends_with(".tmp")
        })
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            meta.is_file()
                .then(|| (e.path(), meta.modified().unwrap_or(std::time::UNIX_EPOCH)))
        })
        .collect()
}

/// How many of `files` (oldest first, as [`window`] gives them) the net
/// at `net` may have trained on: those last changed before the net was
/// written. The files after them hold data made since, which the net has
/// never seen: a training that starts from the net holds out its
/// validation positions from those alone, so that the net's own loss is
/// not measured on positions it learnt. 0 (every file held out from) where
/// no file is newer than the net or a time cannot be read.
pub fn trained_on_by(files: &[PathBuf], net: &Path) -> usize {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(written) = modified(net) else {
        return 0;
    };
    let older = files
        .iter()
        .take_while(|f| modified(f).is_some_and(|t| t <= written))
        .count();
    if older == files.len() { 0 } else { older }
}

/// A file left out of the training data, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeftOut {
    pub file: PathBuf,
    pub why: String,
}

/// The training data of a generation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Window {
    pub files: Vec<PathBuf>,
    pub positions: usize,
    pub left_out: Vec<LeftOut>,
}

/// The data files of `folders` (the generations' and the shards'), the
/// newest first, until they hold `window` positions; a file that cannot be
/// read as data of `v` (another variant's, damaged, still being copied) is
/// left out and named.
pub fn window(folders: &[&Path], v: &Arc<Variant>, window: usize) -> Window {
    let mut files: Vec<_> = folders.iter().flat_map(|f| data_files(f)).collect();
    // Newest first; files of one time by name, the later first.
    files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    let mut w = Window::default();
    for (file, _) in files {
        if w.positions >= window {
            break;
        }
        match count(&file, v) {
            Ok(c) if c.positions == 0 => w.left_out.push(LeftOut {
                file,
                why: "no training positions".into(),
            }),
            Ok(c) => {
                w.positions += c.positions;
                w.files.push(file);
            }
            Err(why) => w.left_out.push(LeftOut { file, why }),
        }
    }
    // The trainer reads them oldest first.
    w.files.reverse();
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::variant_set::VariantSet;
    use std::time::Duration;

    /// The files written before a net are those it may have trained on;
    /// where none is newer, every file may be held out from.
    #[test]
    fn the_files_a_net_trained_on_are_those_older_than_it() {
        let dir = std::env::temp_dir().join(format!("amalgam-trained-on-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let at = |name: &str, secs: u64| {
            let path = dir.join(name);
            let file = std::fs::File::create(&path).expect("create");
            file.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(secs))
                .expect("time");
            path
        };
        let files = vec![at("a.bin", 100), at("b.bin", 200), at("c.bin", 400)];
        assert_eq!(trained_on_by(&files, &at("net", 300)), 2);
        assert_eq!(trained_on_by(&files, &at("net", 50)), 0);
        assert_eq!(trained_on_by(&files, &at("net", 500)), 0);
        assert_eq!(trained_on_by(&files, &at("net", 150)), 1);
        assert_eq!(trained_on_by(&files, &dir.join("no net")), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Chess games at 200 nodes a move, added to `path` until it holds
    /// `positions` (or `stop` is asked for); the variant, and what the
    /// file then holds.
    fn chess_games(path: &Path, positions: usize, stop: &Stop) -> (Arc<Variant>, Counts) {
        let (v, eval) =
            crate::engine::eval::compile(&VariantSet::builtin(), "chess").expect("chess");
        let making = Making {
            variant: &v,
            evaluator: &eval,
            nodes: 200,
            threads: 1,
            seed: 5,
            stop,
        };
        let goal = Goal {
            target: positions,
            until: None,
            most: usize::MAX,
        };
        let made = making.run(path, goal, &|_| {}).expect("data");
        (v, made)
    }

    #[test]
    fn the_goal_asks_for_the_target_then_for_what_the_time_left_allows() {
        let later = Instant::now() + Duration::from_secs(100);
        let goal = Goal {
            target: 1000,
            until: None,
            most: 5000,
        };
        assert_eq!(goal.missing(400, Some(50.0)), 600);
        assert_eq!(goal.missing(1000, Some(50.0)), 0);
        let timed = Goal {
            until: Some(later),
            ..goal
        };
        assert_eq!(timed.missing(400, Some(50.0)), 600);
        // Past the target: the positions of the time left, 100 s at 10 a
        // second (the clock has moved on a little), within the most.
        let more = timed.missing(1000, Some(10.0));
        assert!((990..=1000).contains(&more), "{more}");
        assert_eq!(timed.missing(1000, Some(1000.0)), 4000);
        assert_eq!(timed.missing(5000, Some(10.0)), 0);
        // No rate known yet: a game's worth, to measure one.
        assert_eq!(timed.missing(1000, None), 1);
        let past = Goal {
            until: Some(Instant::now()),
            ..goal
        };
        assert_eq!(past.missing(1000, Some(10.0)), 0);
        assert_eq!(past.missing(10, Some(10.0)), 990);
    }

    #[test]
    fn a_file_cut_in_a_game_is_cut_back_to_its_whole_games() {
        let dir = crate::tools::learn::scratch_dir("data");
        let path = generation_file(&dir, 1);
        let stop = Stop::new();
        let (v, made) = chess_games(&path, 30, &stop);
        assert!(made.positions >= 30 && made.games >= 1, "{made:?}");
        let whole = std::fs::read(&path).expect("read");
        // A kill in the middle of the next game's record.
        let mut cut = whole.clone();
        cut.extend_from_slice(&whole[whole.len() - 40..whole.len() - 10]);
        std::fs::write(&path, &cut).expect("write");
        assert!(count(&path, &v).is_err());
        assert_eq!(cut_to_whole_games(&path, &v), Ok(made));
        assert_eq!(std::fs::read(&path).expect("read"), whole);
        // A header cut short: nothing is kept.
        std::fs::write(&path, &whole[..5]).expect("write");
        assert_eq!(cut_to_whole_games(&path, &v), Ok(Counts::default()));
        assert_eq!(std::fs::metadata(&path).expect("meta").len(), 0);
        // Another variant's file is refused, and left as it is.
        std::fs::write(&path, &whole).expect("write");
        let (other, _) =
            crate::engine::eval::compile(&VariantSet::builtin(), "compound").expect("compound");
        assert!(cut_to_whole_games(&path, &other).is_err());
        assert_eq!(std::fs::read(&path).expect("read"), whole);
        // A stop asked for before the start makes nothing more.
        stop.request();
        assert_eq!(chess_games(&path, 10_000, &stop).1, made);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_window_takes_the_newest_good_files_of_both_folders() {
        let dir = crate::tools::learn::scratch_dir("window");
        let (data, shards) = (dir.join("data"), dir.join("shards"));
        for f in [&data, &shards] {
            std::fs::create_dir_all(f).expect("dir");
        }
        let generation = generation_file(&data, 1);
        let (v, made) = chess_games(&generation, 20, &Stop::new());
        // A shard made elsewhere, a file still being written, a hidden
        // one, and one that is no data, from the oldest to the newest.
        let shard = shards.join("part-1.bin");
        std::fs::copy(&generation, &shard).expect("copy");
        std::fs::write(shards.join("part-2.bin.part"), b"x").expect("write");
        std::fs::write(shards.join(".hidden"), b"x").expect("write");
        let bad = shards.join("notes.txt");
        std::fs::write(&bad, "not data\n").expect("write");
        let at = std::time::SystemTime::now();
        for (i, f) in [&generation, &shard, &bad].into_iter().enumerate() {
            let file = std::fs::File::options().append(true).open(f).expect("open");
            file.set_modified(at - Duration::from_secs(100 - i as u64))
                .expect("time");
        }
        let all = window(&[&data, &shards], &v, usize::MAX);
        assert_eq!(all.files, vec![generation.clone(), shard.clone()]);
        assert_eq!(all.positions, 2 * made.positions);
        assert_eq!(all.left_out.len(), 1, "{:?}", all.left_out);
        assert_eq!(all.left_out[0].file, bad);
        // A window the newest good file fills leaves the older out.
        let newest = window(&[&data, &shards], &v, made.positions);
        assert_eq!(newest.files, vec![shard]);
        assert_eq!(newest.positions, made.positions);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
