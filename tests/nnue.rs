//! Network files named by a variant's `nnue` key: a good net loads, passes
//! `check` and changes the search's scores (unless `UseNNUE` is off); bad
//! ones are refused with the net file's name, by `check` and by a UCI
//! session that goes on.

mod common;

use amalgam::VariantSet;
use amalgam::engine::eval::nnue::{Layout, Network};
use common::run_amalgam;
use common::session::Session;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("amalgam-nnue-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The bytes of a random net for a shipped variant.
fn net_bytes(variant: &str, seed: u64) -> Vec<u8> {
    let v = VariantSet::builtin().compile(variant).expect("variant");
    Network::random(&Layout::new(&v), 32, seed).to_bytes()
}

/// The score of the last `info` line before `bestmove`.
fn score(lines: &[String]) -> i32 {
    lines
        .iter()
        .rev()
        .find_map(|l| l.split(" score cp ").nth(1))
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no score: {lines:?}"))
}

#[test]
fn a_good_net_loads_and_evaluates_unless_switched_off() {
    let dir = scratch("good");
    std::fs::write(dir.join("mine.nnue"), net_bytes("chess", 1)).expect("net");
    let ini = dir.join("v.ini");
    std::fs::write(&ini, "[mine:chess]\nnnue = mine.nnue\n[plain:chess]\n").expect("ini");
    let ini = ini.to_string_lossy().into_owned();
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(ok, "{out}");
    assert!(
        out.contains("mine: network ") && out.contains("mine.nnue ok: 768 inputs, 32 hidden"),
        "{out}"
    );

    let mut s = Session::start();
    s.send("uci");
    let option = "option name UseNNUE type check default true".to_string();
    assert!(s.until("uciok").contains(&option));
    s.send(&format!("setoption name VariantPath value {ini}"));
    let search = |s: &mut Session, variant: &str| {
        s.send(&format!("setoption name UCI_Variant value {variant}"));
        s.send("position startpos moves e2e4");
        s.send("go depth 3");
        score(&s.until("bestmove"))
    };
    let with_net = search(&mut s, "mine");
    let plain = search(&mut s, "plain");
    s.send("setoption name UseNNUE value false");
    let switched_off = search(&mut s, "mine");
    assert_eq!(switched_off, plain);
    assert_ne!(with_net, plain, "the random net gives other scores");
    s.send("setoption name UseNNUE value maybe");
    s.send("isready");
    let lines = s.until("readyok");
    assert!(lines[0].starts_with("info string error: "), "{lines:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_nets_are_refused_naming_the_file() {
    let dir = scratch("bad");
    let good = net_bytes("chess", 2);
    let mut wrong_magic = good.clone();
    wrong_magic[0] = b'Z';
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", good[..good.len() / 2].to_vec(), "truncated"),
        ("header cut", good[..10].to_vec(), "truncated"),
        ("empty", Vec::new(), "truncated"),
        ("wrong magic", wrong_magic, "not a net file"),
        ("other men", net_bytes("compound", 2), "other men"),
        ("text", b"value.q = 1 1\n".to_vec(), "not a net file"),
    ];
    let ini = dir.join("v.ini");
    std::fs::write(&ini, "[mine:chess]\nnnue = mine.nnue\n").expect("ini");
    let ini = ini.to_string_lossy().into_owned();
    let net = dir.join("mine.nnue").to_string_lossy().into_owned();
    for (what, bytes, message) in &cases {
        std::fs::write(&net, bytes).expect("net");
        let (ok, out) = run_amalgam(&["check", &ini]);
        assert!(!ok, "{what}: {out}");
        assert!(
            out.contains(&format!("{ini}:2: nnue: {net}: ")),
            "{what}: {out}"
        );
        assert!(out.contains(message), "{what}: {out}");
        assert!(!out.contains("panicked"), "{what}: {out}");

        // The session refuses the file and goes on.
        let mut s = Session::start();
        s.send("uci");
        s.until("uciok");
        s.send(&format!("setoption name VariantPath value {ini}"));
        s.send("isready");
        let lines = s.until("readyok");
        assert!(
            lines.len() == 2
                && lines[0].starts_with("info string error: ")
                && lines[0].contains(&net)
                && lines[0].contains(message),
            "{what}: {lines:?}"
        );
        s.send("setoption name UCI_Variant value mine");
        s.send("position startpos");
        s.send("go depth 1");
        let lines = s.until("bestmove");
        assert!(
            lines[0].starts_with("info string error: "),
            "{what}: {lines:?}"
        );
    }
    std::fs::remove_file(&net).expect("remove");
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(
        !ok && out.contains(&format!("{ini}:2: nnue: {net}: cannot read file")),
        "{out}"
    );
    // The command line refuses the ini too.
    let (ok, out) = run_amalgam(&["--variants", &ini, "go", "mine", "--depth", "1"]);
    assert!(!ok && !out.contains("bestmove"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shipped_variants_name_only_embedded_nets() {
    // Every net the shipped file names is embedded, and reads back.
    let (ok, out) = run_amalgam(&["check"]);
    assert!(ok, "{out}");
    let nets: Vec<&str> = out.lines().filter(|l| l.contains("network")).collect();
    assert_eq!(
        nets.len(),
        amalgam::engine::eval::nnue::EMBEDDED_NETS.len(),
        "{out}"
    );
    for (name, _) in amalgam::engine::eval::nnue::EMBEDDED_NETS {
        assert!(
            nets.iter()
                .any(|l| l.contains(&format!("network {name} ok"))),
            "{name}: {out}"
        );
    }
    // Each net's provenance follows, indented: the command that made it
    // (train, or the learn run whose trainer it was).
    assert_eq!(
        out.lines()
            .filter(|l| {
                l.starts_with("    Command: amalgam train ")
                    || l.starts_with("    Command: amalgam learn ")
            })
            .count(),
        nets.len(),
        "{out}"
    );
    let mut set = VariantSet::builtin();
    let (_, errors) = set.load_str(
        "[mine:chess]\nnnue = nowhere.nnue\n",
        amalgam::rules::variant::BUILTIN_INI_NAME,
    );
    assert!(errors.is_empty(), "{errors:?}");
    let e = amalgam::engine::eval::compile(&set, "mine").expect_err("no such embedded net");
    assert!(
        e[0].message
            .contains("no embedded network file 'nowhere.nnue'"),
        "{e:?}"
    );
}

#[test]
fn xboard_offers_the_switch() {
    let mut s = Session::start_with(&["--xboard"]);
    s.send("protover 2");
    let feature = "feature option=\"UseNNUE -check 1\"".to_string();
    assert!(s.until("feature done=1").contains(&feature));
    s.send("option UseNNUE=0");
    s.send("option UseNNUE=2");
    s.send("ping 1");
    let lines = s.until("pong 1");
    assert!(
        lines.len() == 2 && lines[0].starts_with("Error (") && lines[0].contains("UseNNUE"),
        "{lines:?}"
    );
    s.send("protover 2");
    let feature = "feature option=\"UseNNUE -check 0\"".to_string();
    assert!(s.until("feature done=1").contains(&feature));
}
