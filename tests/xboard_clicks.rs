//! A person at the real client: XBoard 4.9.1 under Xvfb, driven by mouse
//! clicks (`xdotool`), enters moves of every kind against the engine: plain
//! moves, captures, castling, promotions to a chosen man, Combination merges
//! and partial moves, a Dragon's en passant. Each must reach the engine as
//! the move meant and be accepted (the engine answers with its own move),
//! the debug log must show `lift`, `highlight` and `put`, and a drop on an
//! unmarked square must be refused by the GUI. Needs `xboard`, `Xvfb`,
//! `xdotool` and ImageMagick (`import`, `convert`), so it runs only when
//! asked: `cargo test --release --test xboard_clicks -- --ignored`.

mod common;

use common::program;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The square colours the test finds the board by (no theme uses them).
const LIGHT: &str = "#b4c8a0";
const DARK: &str = "#6e8250";

/// Pixels the mouse moves per step of a promotion sweep (XBoard steps the
/// offered man once the pointer has moved 25 pixels).
const SWEEP_STEP: i32 = 30;

#[derive(Clone, Copy, Debug)]
enum Act {
    /// Click a square.
    Click(&'static str),
    /// Press on a square (a promotion or stack choice), move the pointer
    /// down this many steps to change the man offered, release.
    Sweep(&'static str, u32),
}

struct Case {
    name: &'static str,
    variant: &'static str,
    files: i32,
    ranks: i32,
    fen: &'static str,
    acts: &'static [Act],
    /// The move the engine must receive.
    expect: &'static str,
    /// Before the move: lift this man and drop it on this unmarked square.
    refused: Option<(&'static str, &'static str)>,
}

use Act::{Click, Sweep};

const CASES: &[Case] = &[
    Case {
        name: "combination-plain",
        variant: "combination",
        files: 8,
        ranks: 8,
        fen: "4k3/8/8/8/8/8/4B3/3QK3 w - - 0 1",
        acts: &[Click("e2"), Click("c4")],
        expect: "e2c4",
        refused: Some(("e2", "e3")),
    },
    Case {
        name: "combination-capture",
        variant: "combination",
        files: 8,
        ranks: 8,
        fen: "4k3/8/8/8/2n5/8/4B3/3QK3 w - - 0 1",
        acts: &[Click("e2"), Click("c4")],
        expect: "e2c4",
        refused: None,
    },
    Case {
        name: "combination-merge",
        variant: "combination",
        files: 8,
        ranks: 8,
        fen: "4k3/8/8/8/8/8/4B3/3QK3 w - - 0 1",
        // The queen joins the bishop: the bishop, the queen (cyan), the
        // bishop again (blue, the stack forced).
        acts: &[Click("e2"), Click("d1"), Click("e2")],
        expect: "e2e2,d1",
        refused: None,
    },
    Case {
        name: "combination-partial",
        variant: "combination",
        files: 8,
        ranks: 8,
        fen: "4k3/8/8/8/8/2A5/8/4K3 w - - 0 1",
        // The knight leaves the knight-bishop stack: offered first is the
        // whole stack, one step on the bishop that stays.
        acts: &[Click("c3"), Sweep("b5", 1)],
        expect: "c3b5b",
        refused: None,
    },
    Case {
        name: "combination-promotion",
        variant: "combination",
        files: 8,
        ranks: 8,
        fen: "4k3/P7/8/8/8/8/8/4K3 w - - 0 1",
        // Offered first the rook (the most valuable), one step on the queen.
        acts: &[Click("a7"), Sweep("a8", 1)],
        expect: "a7a8q",
        refused: None,
    },
    Case {
        name: "combination-castling",
        variant: "combination",
        files: 8,
        ranks: 8,
        fen: "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
        acts: &[Click("e1"), Click("g1")],
        expect: "e1g1",
        refused: None,
    },
    Case {
        name: "team-mate-plain",
        variant: "team-mate",
        files: 8,
        ranks: 8,
        fen: "ufeakmnc/pppppppp/8/8/8/8/PPPPPPPP/UFEAKMNC w KQkq - 0 1",
        acts: &[Click("e2"), Click("e4")],
        expect: "e2e4",
        refused: Some(("g1", "g4")),
    },
    Case {
        name: "team-mate-capture",
        variant: "team-mate",
        files: 8,
        ranks: 8,
        fen: "4k3/pppp4/8/3p4/8/4N3/PPPP4/4K3 w - - 0 1",
        acts: &[Click("e3"), Click("d5")],
        expect: "e3d5",
        refused: None,
    },
    Case {
        name: "team-mate-promotion",
        variant: "team-mate",
        files: 8,
        ranks: 8,
        fen: "4k3/1P3ppp/8/8/8/8/PPP5/4K3 w - - 0 1",
        // Offered first the most valuable man; one step on the next in
        // the GUI's order of men.
        acts: &[Click("b7"), Sweep("b8", 1)],
        expect: "b7b8c",
        refused: None,
    },
    Case {
        name: "team-mate-brute-pair",
        variant: "team-mate",
        files: 8,
        ranks: 8,
        fen: "4k3/1P3ppp/8/8/8/8/PPP5/4K3 w - - 0 1",
        acts: &[Click("b7"), Sweep("b8", 3)],
        expect: "b7b8b",
        refused: None,
    },
    Case {
        name: "team-mate-castling",
        variant: "team-mate",
        files: 8,
        ranks: 8,
        fen: "4k3/pppppppp/8/8/8/8/PPPPPPPP/U3K2C w K - 0 1",
        acts: &[Click("e1"), Click("g1")],
        expect: "e1g1",
        refused: None,
    },
    Case {
        name: "compound-plain",
        variant: "compound",
        files: 10,
        ranks: 8,
        fen: "rdcbqkbcdr/ssssssssss/10/10/10/10/SSSSSSSSSS/RDCBQKBCDR w KQkq - 0 1",
        acts: &[Click("e2"), Click("e4")],
        expect: "e2e4",
        refused: Some(("e2", "e5")),
    },
    Case {
        name: "compound-capture",
        variant: "compound",
        files: 10,
        ranks: 8,
        fen: "5k4/10/10/4s5/3S6/10/10/5K4 w - - 0 1",
        acts: &[Click("d4"), Click("e5")],
        expect: "d4e5",
        refused: None,
    },
    Case {
        name: "compound-promotion",
        variant: "compound",
        files: 10,
        ranks: 8,
        fen: "5k4/1S8/10/10/10/10/10/5K4 w - - 0 1",
        // Offered first the queen; one step on the Centaur.
        acts: &[Click("b7"), Sweep("b8", 1)],
        expect: "b7b8c",
        refused: None,
    },
    Case {
        name: "compound-castling",
        variant: "compound",
        files: 10,
        ranks: 8,
        fen: "r4k3r/ssssssssss/10/10/10/10/SSSSSSSSSS/R4K3R w KQkq - 0 1",
        acts: &[Click("f1"), Click("i1")],
        expect: "f1i1",
        refused: None,
    },
    Case {
        name: "compound-dragon-en-passant",
        variant: "compound",
        files: 10,
        ranks: 8,
        fen: "4k5/10/10/4Ds4/10/10/10/4K5 w - f6 0 1",
        // Through the victim (cyan), then on.
        acts: &[Click("e5"), Click("f5"), Click("f6")],
        expect: "e5f5,f5f6",
        refused: None,
    },
];

/// A virtual X display, ended on drop.
struct Display {
    child: Child,
    name: String,
}

impl Display {
    fn start() -> Display {
        let mut child = Command::new(program("Xvfb"))
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1280x1024x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("Xvfb output");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("Xvfb names its display");
        Display {
            child,
            name: format!(":{}", line.trim()),
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The board's pixel box on the screen: x, y, width, height.
fn board_box(display: &str, dir: &Path) -> Option<(i32, i32, i32, i32)> {
    let shot = dir.join("shot.png");
    let ok = Command::new(program("import"))
        .env("DISPLAY", display)
        .args(["-window", "root"])
        .arg(&shot)
        .status()
        .ok()?
        .success();
    if !ok {
        return None;
    }
    let out = Command::new(program("convert"))
        .arg(&shot)
        .args(["-fill", "black", "+opaque", LIGHT, "-format", "%@", "info:"])
        .output()
        .ok()?;
    // WxH+X+Y
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (size, at) = text.trim().split_once('+')?;
    let (w, h) = size.split_once('x')?;
    let (x, y) = at.split_once('+')?;
    let b = (
        x.parse().ok()?,
        y.parse().ok()?,
        w.parse().ok()?,
        h.parse().ok()?,
    );
    (b.2 > 100 && b.3 > 100).then_some(b)
}

fn square_point(case: &Case, b: (i32, i32, i32, i32), sq: &str) -> (i32, i32) {
    let file = sq.as_bytes()[0] as i32 - b'a' as i32;
    let rank: i32 = sq[1..].parse().expect("rank");
    let x = b.0 + (2 * file + 1) * b.2 / (2 * case.files);
    let y = b.1 + (2 * (case.ranks - rank) + 1) * b.3 / (2 * case.ranks);
    (x, y)
}

fn xdotool(display: &str, args: &[String]) {
    let ok = Command::new(program("xdotool"))
        .env("DISPLAY", display)
        .args(args)
        .status()
        .expect("xdotool runs")
        .success();
    assert!(ok, "xdotool {args:?}");
}

fn click(display: &str, (x, y): (i32, i32)) {
    xdotool(
        display,
        &["mousemove", &x.to_string(), &y.to_string(), "click", "1"].map(String::from),
    );
    std::thread::sleep(Duration::from_millis(400));
}

fn sweep(display: &str, (x, y): (i32, i32), steps: u32) {
    let at = |y: i32| ["mousemove".to_string(), x.to_string(), y.to_string()];
    xdotool(
        display,
        &[at(y).to_vec(), vec!["mousedown".into(), "1".into()]].concat(),
    );
    // The engine's `choice` arrives meanwhile.
    std::thread::sleep(Duration::from_millis(600));
    for k in 1..=steps as i32 {
        xdotool(display, &at(y + k * SWEEP_STEP));
        std::thread::sleep(Duration::from_millis(300));
    }
    xdotool(display, &["mouseup".to_string(), "1".to_string()]);
    std::thread::sleep(Duration::from_millis(400));
}

/// The moves the GUI sent to the engine, from its debug log (XBoard writes
/// `usermove ` and the move in two pieces, each with its own prefix).
fn user_moves(log: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = log;
    while let Some(i) = rest.find(">first : usermove ") {
        rest = &rest[i + ">first : usermove ".len()..];
        let mut text = rest;
        if let Some(j) = text.find(">first : ")
            && text[..j].trim().chars().all(|c| c.is_ascii_digit())
        {
            text = &text[j + ">first : ".len()..];
        }
        out.push(text.lines().next().unwrap_or("").trim().to_string());
    }
    out
}

/// The piece table and board size of the engine's `setup` reply to
/// `variant`. XBoard reads the position file before the engine defines the
/// variant, so it must know them from the command line.
fn engine_setup(variant: &str) -> (String, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .arg("--xboard")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("engine starts");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("engine input");
        let _ = write!(
            stdin,
            "xboard\nprotover 2\nvariant {variant}\nping 1\nquit\n"
        );
    }
    let out = child.wait_with_output().expect("engine output");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("setup ("))
        .expect("setup line");
    let (table, rest) = line["setup (".len()..]
        .split_once(") ")
        .expect("piece table");
    let size = rest.split('+').next().expect("board size");
    let (w, h) = size.split_once('x').expect("WxH");
    (table.to_string(), w.to_string(), h.to_string())
}

fn start_xboard(case: &Case, display: &str, dir: &Path) -> Child {
    std::fs::write(dir.join("position.fen"), format!("{}\n", case.fen)).expect("position file");
    let engine = format!("{} --xboard", env!("CARGO_BIN_EXE_amalgam"));
    let (table, width, height) = engine_setup(case.variant);
    Command::new(program("xboard"))
        .current_dir(dir)
        .env("DISPLAY", display)
        .args(["-fcp", &engine, "-variant", case.variant])
        .args(["-pieceToCharTable", &table])
        .args(["-boardWidth", &width, "-boardHeight", &height])
        .args(["-testLegality", "false", "-showTargetSquares", "true"])
        .args(["-highlightDragging", "true", "-sweepPromotions", "true"])
        .args([
            "-lpf",
            "position.fen",
            "-debug",
            "-nameOfDebugFile",
            "xboard.debug",
        ])
        .args(["-liteBackTextureFile", "", "-darkBackTextureFile", ""])
        .args(["-lightSquareColor", LIGHT, "-darkSquareColor", DARK])
        .args([
            "-size",
            "49",
            "-tc",
            "0:30",
            "-depth",
            "3",
            "-animateMoving",
            "false",
        ])
        .args([
            "-saveSettingsOnExit",
            "false",
            "-startupMessage",
            "",
            "-soundProgram",
            "",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xboard starts")
}

/// Run one case; the problems found.
fn run(case: &Case, display: &str, root: &Path) -> Vec<String> {
    let dir: PathBuf = root.join(case.name);
    std::fs::create_dir_all(&dir).expect("case directory");
    let mut xboard = start_xboard(case, display, &dir);
    let mut problems = Vec::new();
    let started = Instant::now();
    let board = loop {
        // The engine's `setup` reply resizes the board; wait for it to settle.
        std::thread::sleep(Duration::from_millis(1500));
        if let Some(b) = board_box(display, &dir) {
            break Some(b);
        }
        if started.elapsed() > Duration::from_secs(20) {
            break None;
        }
    };
    let log_path = dir.join("xboard.debug");
    let read_log = || std::fs::read_to_string(&log_path).unwrap_or_default();
    match board {
        None => problems.push(format!("{}: no board on the screen", case.name)),
        Some(b) => {
            if let Some((from, to)) = case.refused {
                click(display, square_point(case, b, from));
                click(display, square_point(case, b, to));
                std::thread::sleep(Duration::from_millis(500));
                if !user_moves(&read_log()).is_empty() {
                    problems.push(format!("{}: a drop on unmarked {to} was sent", case.name));
                }
                // Put it back down where it stood.
                click(display, square_point(case, b, from));
            }
            for act in case.acts {
                match *act {
                    Click(sq) => click(display, square_point(case, b, sq)),
                    Sweep(sq, n) => sweep(display, square_point(case, b, sq), n),
                }
            }
            // The engine answers with a move once it accepted ours.
            let deadline = Instant::now() + Duration::from_secs(15);
            let mut log = read_log();
            while !log.contains("<first : move ") && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(200));
                log = read_log();
            }
            let sent = user_moves(&log);
            if !sent.iter().any(|m| m.starts_with(case.expect)) {
                problems.push(format!(
                    "{}: the GUI sent {sent:?}, not {}",
                    case.name, case.expect
                ));
            }
            if log.contains("<first : Illegal move") || log.contains("<first : Error") {
                problems.push(format!("{}: the engine refused a line", case.name));
            }
            if !log.contains("<first : move ") {
                problems.push(format!("{}: the engine did not answer", case.name));
            }
            for word in [">first : lift ", "<first : highlight ", ">first : put "] {
                if !log.contains(word) {
                    problems.push(format!("{}: no `{}` in the log", case.name, word.trim()));
                }
            }
        }
    }
    let _ = xboard.kill();
    let _ = xboard.wait();
    problems
}

#[test]
#[ignore]
fn a_person_enters_every_kind_of_move_by_clicks() {
    let root = std::env::temp_dir().join(format!("amalgam-clicks-{}", std::process::id()));
    let display = Display::start();
    let only = std::env::var("AMALGAM_CLICK_CASE").ok();
    let mut problems = Vec::new();
    for case in CASES {
        if only.as_deref().is_some_and(|o| o != case.name) {
            continue;
        }
        let found = run(case, &display.name, &root);
        eprintln!(
            "{}: {}",
            case.name,
            if found.is_empty() { "ok" } else { "FAILED" }
        );
        problems.extend(found);
    }
    assert!(
        problems.is_empty(),
        "{problems:#?}\n(logs in {})",
        root.display()
    );
    let _ = std::fs::remove_dir_all(&root);
}
