//! Helpers shared by the integration tests: the reference perft rows, the
//! engine's command line, programs to drive it.

#![allow(dead_code)]

pub mod session;

use amalgam::{Position, VariantSet};

/// One row of `tests/data/<variant>.tsv`.
pub struct PerftRow {
    pub variant: String,
    pub fen: String,
    pub depth: u32,
    pub nodes: u64,
}

/// A program on PATH or in /usr/games (where Debian puts xboard, fairymax
/// and polyglot).
pub fn program(name: &str) -> std::path::PathBuf {
    let path = std::env::var("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([std::path::PathBuf::from("/usr/games")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed"))
}

/// Run the engine's command line with `args`: whether it succeeded, and its
/// standard output.
pub fn run_amalgam<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (bool, String) {
    let (ok, out, _) = run_amalgam_with_errors(args);
    (ok, out)
}

/// Run the engine's command line with `args`: whether it succeeded, its
/// standard output and its standard error.
pub fn run_amalgam_with_errors<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(args)
        .output()
        .expect("run amalgam");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An empty scratch folder for the test `name` of the tests `group`.
pub fn scratch_dir(group: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("amalgam-{group}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

/// The number after `label` in `text`.
pub fn number_after(text: &str, label: &str) -> f64 {
    let at = text
        .find(label)
        .unwrap_or_else(|| panic!("no '{label}' in {text}"));
    text[at + label.len()..]
        .trim_start()
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no number after '{label}' in {text}"))
}

/// Self-play data of `zoo`, the variant of the tests' ini
/// (`tests/data/user-variants.ini`): `games` games at `nodes` nodes a move,
/// seed 5, appended to `out`.
pub fn zoo_datagen(games: &str, nodes: &str, out: &str) {
    let ini = data_dir().join("user-variants.ini");
    let ini = ini.to_string_lossy();
    let (ok, o, e) = run_amalgam_with_errors(&[
        "--variants",
        &ini,
        "datagen",
        "zoo",
        "--games",
        games,
        "--nodes",
        nodes,
        "--seed",
        "5",
        "--threads",
        "2",
        "--out",
        out,
    ]);
    assert!(ok, "{o}{e}");
}

/// The score of a depth-1 search of `fen` in `variant` of the ini file
/// `ini`, as the last `info depth 1` line gives it (`cp N` or `mate N`).
fn depth_one_score(ini: &str, variant: &str, fen: &str) -> String {
    let (ok, out) = run_amalgam(&["--variants", ini, "go", variant, fen, "--depth", "1"]);
    assert!(ok, "{out}");
    out.lines()
        .filter(|l| l.starts_with("info depth 1 "))
        .filter_map(|l| l.split(" score ").nth(1))
        .map(|s| s.split(" nodes").next().unwrap_or("").to_string())
        .next_back()
        .unwrap_or_else(|| panic!("no score in {out}"))
}

/// Whether `zoo` and `other` (a variant of the ini file `ini` with zoo's
/// men) score any of a few zoo positions differently at depth 1.
pub fn zoo_scores_differ(ini: &str, other: &str) -> bool {
    let fens = [
        "lyzkzy/6/6/6/6/YZKZYL w - - 0 1",
        "1yzkzy/6/6/2Z3/6/Y1K1YL w - - 0 1",
        "lyzk2/6/1z4/6/6/YZK1YL b - - 0 1",
    ];
    fens.iter()
        .any(|fen| depth_one_score(ini, "zoo", fen) != depth_one_score(ini, other, fen))
}

pub fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("data")
}

/// Every row of every reference perft file.
pub fn perft_rows() -> Vec<PerftRow> {
    let mut rows = Vec::new();
    for variant in ["chess", "combination", "team-mate", "compound"] {
        let path = data_dir().join(format!("{variant}.tsv"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            assert!(f.len() >= 4, "bad row in {}: {line}", path.display());
            rows.push(PerftRow {
                variant: f[0].to_string(),
                fen: f[1].to_string(),
                depth: f[2].parse().expect("depth"),
                nodes: f[3].parse().expect("nodes"),
            });
        }
    }
    assert!(rows.len() > 100, "reference data missing");
    rows
}

/// The distinct test positions (variant, FEN) of the reference data.
pub fn test_positions() -> Vec<(String, String)> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for r in perft_rows() {
        let key = (r.variant.clone(), r.fen.clone());
        if !seen.contains(&key) {
            seen.push(key);
        }
    }
    seen
}

pub fn position(set: &VariantSet, variant: &str, fen: &str) -> Position {
    let v = set
        .compile(variant)
        .unwrap_or_else(|e| panic!("{variant}: {e:?}"));
    Position::from_fen(v, fen).unwrap_or_else(|e| panic!("{variant} {fen}: {e}"))
}

/// Deterministic pseudo-random numbers (xorshift64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Run the command line, killed after `limit`: its exit code (None when
/// killed) and standard output.
pub fn run_for(args: &[&str], limit: std::time::Duration) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run amalgam");
    let end = std::time::Instant::now() + limit;
    while std::time::Instant::now() < end {
        if matches!(child.try_wait(), Ok(Some(_))) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    if !matches!(child.try_wait(), Ok(Some(_))) {
        let _ = child.kill();
    }
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}
