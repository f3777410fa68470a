//! Files that are not what they are named as: a folder or a named pipe
//! where a variant file or a net should be is refused at once with an
//! error naming it (never read, never waited on, never replaced by an
//! embedded net); `check` and the searches say which evaluation each
//! variant uses.

mod common;

use amalgam::VariantSet;
use amalgam::engine::eval::nnue::{Layout, Network};
use common::session::Session;
use common::{run_amalgam, scratch_dir};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// `amalgam` with `args`, which must end within five seconds: whether it
/// succeeded and its standard output.
#[cfg(unix)]
fn run_within_five_seconds(args: &[&str]) -> (bool, String) {
    let (code, out) = common::run_for(args, Duration::from_secs(5));
    let code = code.unwrap_or_else(|| panic!("amalgam {args:?} still ran after 5 s: {out}"));
    (code == 0, out)
}

/// A named pipe at `path`, made with `mkfifo`.
#[cfg(unix)]
fn fifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

/// The bytes of a random chess net.
fn chess_net() -> Vec<u8> {
    let v = VariantSet::builtin().compile("chess").expect("chess");
    Network::random(&Layout::new(&v), 32, 7).to_bytes()
}

#[test]
fn a_folder_named_by_nnue_is_an_error_naming_it() {
    let dir = scratch_dir("odd-files", "folder-net");
    // A name the binary also embeds: the folder must not be passed over
    // for the embedded net.
    let net = dir.join("chess.nnue");
    std::fs::create_dir(&net).expect("folder");
    let ini = dir.join("v.ini");
    std::fs::write(&ini, "[mine:chess]\nnnue = chess.nnue\n").expect("ini");
    let (ini, net) = (ini.to_string_lossy(), net.to_string_lossy());
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("{ini}:2: nnue: {net}: not a regular file")),
        "{out}"
    );
    assert!(!out.contains("network chess.nnue ok"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_named_pipe_as_variant_file_or_net_is_refused_at_once() {
    let dir = scratch_dir("odd-files", "fifo");
    let pipe = dir.join("fifo.ini");
    fifo(&pipe);
    let pipe = pipe.to_string_lossy().into_owned();
    let (ok, out) = run_within_five_seconds(&["check", &pipe]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("{pipe}:0: not a regular file")),
        "{out}"
    );

    fifo(&dir.join("mine.nnue"));
    let ini = dir.join("v.ini");
    std::fs::write(&ini, "[mine:chess]\nnnue = mine.nnue\n").expect("ini");
    let ini = ini.to_string_lossy().into_owned();
    let net = dir.join("mine.nnue").to_string_lossy().into_owned();
    let (ok, out) = run_within_five_seconds(&["check", &ini]);
    assert!(!ok, "{out}");
    assert!(
        out.contains(&format!("{ini}:2: nnue: {net}: not a regular file")),
        "{out}"
    );

    // Over UCI the session refuses the file and goes on.
    let mut s = Session::start();
    s.send("uci");
    s.until("uciok");
    let start = Instant::now();
    s.send(&format!("setoption name VariantPath value {pipe}"));
    s.send("isready");
    let lines = s.until("readyok");
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(
        lines[0].starts_with("info string error: ") && lines[0].contains(&pipe),
        "{lines:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_names_each_variants_evaluation() {
    let dir = scratch_dir("odd-files", "check");
    let net = dir.join("mine.nnue");
    std::fs::write(&net, chess_net()).expect("net");
    let ini = dir.join("v.ini");
    std::fs::write(
        &ini,
        "[mine:chess]\nnnue = mine.nnue\n[plain:chess]\n[shipped:chess]\nnnue = chess.nnue\n",
    )
    .expect("ini");
    let (ini, net) = (ini.to_string_lossy(), net.to_string_lossy());
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(ok, "{out}");
    let line = |variant: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{variant}: ")))
            .unwrap_or_else(|| panic!("no line for {variant}: {out}"))
    };
    assert!(
        line("mine").starts_with(&format!(
            "mine: network file {net} ok: 768 inputs, 32 hidden"
        )),
        "{out}"
    );
    assert_eq!(line("plain"), "plain: hand-written evaluation", "{out}");
    assert!(
        line("shipped").starts_with("shipped: embedded network chess.nnue ok: "),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lines of a search that say which evaluation it uses.
fn evaluation_lines<'a>(lines: &'a [String], prefix: &str) -> Vec<&'a str> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter(|l| l.starts_with("evaluation: "))
        .collect()
}

#[test]
fn a_search_says_its_evaluation_once_per_variant() {
    let dir = scratch_dir("odd-files", "search");
    let ini = dir.join("v.ini");
    std::fs::write(&ini, "[plain:chess]\n").expect("ini");
    let ini = ini.to_string_lossy().into_owned();

    let mut s = Session::start();
    s.send("uci");
    s.until("uciok");
    s.send(&format!("setoption name VariantPath value {ini}"));
    let search = |s: &mut Session| {
        s.send("position startpos");
        s.send("go depth 2");
        s.until("bestmove")
    };
    // The first search after each choice says it, the others do not.
    let expect = |s: &mut Session, news: &[&str]| {
        let lines = search(s);
        assert_eq!(evaluation_lines(&lines, "info string "), news, "{lines:?}");
    };
    expect(&mut s, &["evaluation: embedded network chess.nnue"]);
    expect(&mut s, &[]);
    s.send("setoption name UCI_Variant value plain");
    expect(&mut s, &["evaluation: hand-written evaluation"]);
    s.send("setoption name UCI_Variant value chess");
    s.send("setoption name UseNNUE value false");
    expect(&mut s, &["evaluation: hand-written evaluation"]);

    let mut s = Session::start();
    s.send("xboard");
    s.send("protover 2");
    s.until("feature done=1");
    s.send("new");
    s.send("variant compound");
    s.send("sd 2");
    s.send("go");
    let lines = s.until("move ");
    assert_eq!(
        evaluation_lines(&lines, "# "),
        ["evaluation: embedded network compound.nnue"],
        "{lines:?}"
    );
    s.send("force");
    s.send("go");
    let lines = s.until("move ");
    assert!(evaluation_lines(&lines, "# ").is_empty(), "{lines:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
