//! `amalgam tune` from the command line, on a variant defined only in the
//! tests' ini: self-play data from `datagen`, a fit whose loss falls, and a
//! written parameter file that loads through `evalParams` and changes the
//! evaluation; bad data and bad parameter files are refused with file and
//! line.

mod common;

use common::{
    number_after, run_amalgam, run_amalgam_with_errors, scratch_dir, zoo_datagen, zoo_scores_differ,
};

const USER_INI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/user-variants.ini");

fn scratch(name: &str) -> std::path::PathBuf {
    scratch_dir("tune", name)
}

#[test]
fn a_user_variant_goes_through_datagen_and_tune() {
    let dir = scratch("zoo");
    let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let data = path("zoo.data");
    zoo_datagen("60", "400", &data);
    let positions = std::fs::read_to_string(&data)
        .expect("data")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .count();
    assert!(positions > 500, "{positions} positions");

    let params = path("zoo.params");
    let tune_with = |out_file: &str, extra: &[&str]| {
        let mut args = vec![
            "--variants",
            USER_INI,
            "tune",
            "zoo",
            &data,
            "--out",
            out_file,
        ];
        args.extend_from_slice(extra);
        run_amalgam_with_errors(&args)
    };
    let fit = ["--epochs", "40", "--batch", "256", "--seed", "3"];
    let tune = |out_file: &str| tune_with(out_file, &fit);
    let (ok, out, err) = tune(&params);
    assert!(ok, "{out}{err}");
    let before = number_after(&out, "loss before: training");
    let after = number_after(&out, "after: training");
    assert!(after < before, "training loss {before} -> {after}\n{out}");
    assert!(out.contains("epoch 40:"), "{out}");
    // Deterministic for a seed.
    let again = path("again.params");
    assert!(tune(&again).0);
    let weights = |f: &str| {
        std::fs::read_to_string(f)
            .expect("params")
            .lines()
            .filter(|l| !l.starts_with("# Command"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(weights(&params), weights(&again), "same seed, same weights");
    // The decay holds the weights near their start: a run whose steps are
    // too small to move any weight writes the starting weights.
    let start = path("start.params");
    let (ok, out, err) = tune_with(&start, &["--epochs", "1", "--rate", "0.000001"]);
    assert!(ok, "{out}{err}");
    let decayed = path("decayed.params");
    let (ok, out, err) = tune_with(&decayed, &[&fit[..], &["--decay", "1000"]].concat());
    assert!(ok, "{out}{err}");
    assert!(out.contains("epoch 40:"), "{out}");
    let numbers = |f: &str| -> Vec<i64> {
        std::fs::read_to_string(f)
            .expect("params")
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_once('='))
            .flat_map(|(_, v)| {
                v.split_whitespace()
                    .map(|n| n.parse::<i64>().expect("weight"))
            })
            .collect()
    };
    let distance = |f: &str| -> i64 {
        let (a, b) = (numbers(f), numbers(&start));
        assert_eq!(a.len(), b.len());
        a.iter().zip(&b).map(|(x, y)| (x - y).abs()).sum()
    };
    let (free, held) = (distance(&params), distance(&decayed));
    assert!(
        free > 0 && held * 4 < free,
        "distance from the start: {free} without decay, {held} with"
    );

    let written = std::fs::read_to_string(&params).expect("params");
    assert!(
        written.starts_with("# Evaluation weights for zoo"),
        "{written}"
    );
    assert!(written.contains("Positions: "), "{written}");

    // The written file loads through `evalParams` and changes the evaluation.
    let ini = path("tuned.ini");
    let user = std::fs::read_to_string(USER_INI).expect("ini");
    std::fs::write(
        &ini,
        format!("{user}\n[zoo-tuned:zoo]\nevalParams = zoo.params\n"),
    )
    .expect("ini");
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(ok, "{out}");
    assert!(
        zoo_scores_differ(&ini, "zoo-tuned"),
        "the tuned weights change no score"
    );

    // A fit starts from the variant's current weights (its file), or from
    // its defaults when asked: steps too small to move a weight write them.
    let tune_tuned = |out_file: &str, start: &str| {
        run_amalgam_with_errors(&[
            "--variants",
            &ini,
            "tune",
            "zoo-tuned",
            &data,
            "--out",
            out_file,
            "--epochs",
            "1",
            "--rate",
            "0.000001",
            "--start",
            start,
        ])
    };
    let from = |start: &str| {
        let out_file = path(&format!("from-{start}.params"));
        let (ok, out, err) = tune_tuned(&out_file, start);
        assert!(ok, "{out}{err}");
        numbers(&out_file)
    };
    assert_eq!(from("current"), numbers(&params));
    assert_eq!(from("defaults"), numbers(&start));
    let (ok, _, err) = tune_tuned(&path("x"), "nowhere");
    assert!(!ok && err.contains("--start"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_data_lines_are_refused_with_file_and_line() {
    let dir = scratch("bad-data");
    let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let good = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 30 | 0.5";
    for (bad, line) in [
        ("not a data line", 3),
        ("rnbqkbnr/pppppppp/8/8 w - - 0 1 | 10 | 1.0", 3),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | x | 1.0",
            3,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 99999999999 | 1.0",
            3,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 10 | 2",
            3,
        ),
    ] {
        let file = path("bad.data");
        std::fs::write(&file, format!("# comment\n{good}\n{bad}\n{good}\n")).expect("data");
        let out_file = path("out.params");
        let (ok, out, err) =
            run_amalgam_with_errors(&["tune", "chess", &file, "--out", &out_file, "--epochs", "1"]);
        assert!(!ok, "{bad}: {out}");
        assert!(err.contains(&format!("{file}:{line}:")), "{bad}: {err}");
        assert!(!std::path::Path::new(&out_file).exists(), "{bad}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_parameter_files_are_refused_with_file_and_line() {
    let dir = scratch("bad-params");
    let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let ini = path("v.ini");
    std::fs::write(&ini, "[mine:chess]\nevalParams = mine.params\n").expect("ini");
    let params = path("mine.params");
    for (text, line, what) in [
        (
            "value.n = 300 300\nvalue.z = 1 1\n",
            2,
            "unknown parameter 'value.z'",
        ),
        ("psq.n.mg.4 = 1 2 3\n", 1, "8 numbers expected, found 3"),
        ("# fine\ntempo = 10\n", 2, "2 numbers expected, found 1"),
        ("tempo = 10 10\ntempo = 10 10\n", 2, "given twice"),
        ("doubled = -10 abc\n", 1, "no whole number"),
        ("pair.n = 1 1\n", 1, "unknown parameter 'pair.n'"),
    ] {
        std::fs::write(&params, text).expect("params");
        let (ok, out) = run_amalgam(&["check", &ini]);
        assert!(!ok, "{text}: {out}");
        assert!(out.contains(&format!("{params}:{line}:")), "{text}: {out}");
        assert!(out.contains(what), "{text}: {out}");
    }
    std::fs::remove_file(&params).expect("remove");
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(!ok && out.contains("mine.params"), "{out}");
    // A good file passes and is used.
    std::fs::write(&params, "value.q = 2000 2000\n").expect("params");
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(ok, "{out}");
    let fen = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1";
    let score = |v: &str| {
        let (ok, out) = run_amalgam(&["--variants", &ini, "go", v, fen, "--depth", "1"]);
        assert!(ok, "{out}");
        out.lines()
            .find(|l| l.starts_with("info depth 1 "))
            .and_then(|l| l.split(" score cp ").nth(1))
            .and_then(|s| s.split_whitespace().next())
            .and_then(|s| s.parse::<i32>().ok())
            .unwrap_or_else(|| panic!("no score: {out}"))
    };
    assert!(score("mine") > score("chess") + 500);
    let _ = std::fs::remove_dir_all(&dir);
}
