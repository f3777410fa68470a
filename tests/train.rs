//! `amalgam train` from the command line: on a small datagen file
//! (`tests/data/train-chess.txt`, 16 games at 300 nodes a move) the loss
//! falls, the written net reads back with the variant's layout, the same
//! seed gives the same net whatever the thread count, and bad data lines
//! are refused with file and line; a variant defined only in the tests' ini
//! goes through datagen and train, and its net, named by the `nnue` key,
//! loads and changes the evaluation.

mod common;

use amalgam::VariantSet;
use amalgam::engine::eval::nnue::{Layout, Network};
use common::{
    data_dir, number_after, run_amalgam, run_amalgam_with_errors, scratch_dir, zoo_datagen,
    zoo_scores_differ,
};

const USER_INI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/user-variants.ini");

fn scratch(name: &str) -> std::path::PathBuf {
    scratch_dir("train", name)
}

fn fixture() -> String {
    data_dir()
        .join("train-chess.txt")
        .to_string_lossy()
        .into_owned()
}

/// The net file at `path`, read back.
fn read_net(path: &str) -> Network {
    Network::from_bytes(&std::fs::read(path).expect("net file")).expect("a valid net file")
}

fn layout(ini: Option<&str>, variant: &str) -> Layout {
    let mut set = VariantSet::builtin();
    if let Some(file) = ini {
        set.load_file(file).expect("ini");
    }
    let (v, _) = amalgam::engine::eval::compile(&set, variant).expect("variant");
    Layout::new(&v)
}

const FIT: [&str; 10] = [
    "--hidden", "16", "--epochs", "12", "--batch", "64", "--lr", "0.005", "--seed", "3",
];

#[test]
fn the_loss_falls_and_the_net_reads_back_with_the_variants_layout() {
    let dir = scratch("chess");
    let net_file = dir.join("chess.nnue").to_string_lossy().into_owned();
    let data = fixture();
    let mut args = vec![
        "train",
        "chess",
        &data,
        "--out",
        &net_file,
        "--threads",
        "2",
    ];
    args.extend_from_slice(&FIT);
    let (ok, out, err) = run_amalgam_with_errors(&args);
    assert!(ok, "{out}{err}");
    let before = number_after(&out, "loss before: training");
    let after = number_after(&out, "after: training");
    let first = number_after(&out, "epoch 1: training loss");
    let last = number_after(&out, "epoch 12: training loss");
    assert!(
        after < before / 2.0,
        "training loss {before} -> {after}\n{out}"
    );
    assert!(last < first, "{out}");
    let summary = &out[out.find("loss before:").expect("summary")..];
    let validation_before = number_after(summary, "validation");
    let quantised = number_after(summary, "quantised net: validation");
    assert!(quantised < validation_before, "{out}");
    assert!(
        out.contains("positions x epochs per second per thread"),
        "{out}"
    );
    // The hand-written evaluation's loss on the same positions, to compare.
    let hce = number_after(&out, "(the measure to beat):");
    assert!(hce > 0.0 && hce < 0.25, "{out}");

    let net = read_net(&net_file);
    let chess = layout(None, "chess");
    assert_eq!(net.layout_hash, chess.hash());
    assert_eq!(net.inputs as usize, chess.inputs());
    assert!(net.check_layout(&chess).is_ok());
    assert_eq!(net.hidden, 16);
    assert!(net.feature_weights.iter().any(|&w| w != 0));
    for words in [
        "Command: amalgam train chess",
        "Seed 3; hidden 16",
        "factoriser on",
        "The hand-written evaluation's validation loss: 0.",
        "Positions: ",
        "amalgam datagen chess: 16 games, seed 1",
    ] {
        assert!(
            net.provenance.contains(words),
            "{words}: {}",
            net.provenance
        );
    }
    // Another variant's layout is told apart.
    assert!(net.check_layout(&layout(None, "compound")).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_seed_gives_the_same_net_on_one_and_two_threads() {
    let dir = scratch("threads");
    let data = fixture();
    let net = |threads: &str, seed: &str| {
        let out_file = dir
            .join(format!("t{threads}-s{seed}.nnue"))
            .to_string_lossy()
            .into_owned();
        let mut args = vec!["train", "chess", &data, "--out", &out_file];
        args.extend_from_slice(&FIT[..8]);
        args.extend_from_slice(&["--seed", seed, "--threads", threads]);
        let (ok, out, err) = run_amalgam_with_errors(&args);
        assert!(ok, "{out}{err}");
        std::fs::read(&out_file).expect("net")
    };
    // The provenance records the command line, which names the thread
    // count and the file: the rest of the file is compared byte for byte.
    let without_command = |bytes: Vec<u8>| {
        let mut n = Network::from_bytes(&bytes).expect("net");
        n.provenance = n
            .provenance
            .lines()
            .filter(|l| !l.starts_with("Command: "))
            .collect::<Vec<_>>()
            .join("\n");
        n.to_bytes()
    };
    let one = without_command(net("1", "5"));
    assert_eq!(one, without_command(net("2", "5")), "1 and 2 threads");
    assert_ne!(one, without_command(net("1", "6")), "another seed");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_data_lines_and_arguments_are_refused() {
    let dir = scratch("bad");
    let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let good = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 30 | 0.5";
    let file = path("bad.data");
    let out_file = path("out.nnue");
    for bad in [
        "not a data line",
        "rnbqkbnr/pppppppp/8/8 w - - 0 1 | 10 | 1.0",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | x | 1.0",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 10 | 2",
    ] {
        std::fs::write(&file, format!("# comment\n{good}\n\n{bad}\n{good}\n")).expect("data");
        let (ok, out, err) = run_amalgam_with_errors(&[
            "train", "chess", &file, "--out", &out_file, "--epochs", "1",
        ]);
        assert!(!ok, "{bad}: {out}");
        assert!(err.contains(&format!("{file}:4:")), "{bad}: {err}");
        assert!(err.contains("nothing trained"), "{bad}: {err}");
        assert!(!std::path::Path::new(&out_file).exists(), "{bad}");
    }
    std::fs::write(&file, format!("{good}\n")).expect("data");
    for (args, why) in [
        (vec!["--hidden", "0"], "--hidden"),
        (vec!["--hidden", "5000"], "--hidden"),
        (vec!["--lambda", "1.5"], "--lambda"),
        (vec!["--validation", "0.95"], "--validation"),
        (vec!["--activation", "tanh"], "--activation"),
        (vec!["--lr", "0"], "--lr"),
        (vec!["--threads", "0"], "--threads"),
    ] {
        let mut line = vec!["train", "chess", &file, "--out", &out_file];
        line.extend_from_slice(&args);
        let (ok, out, err) = run_amalgam_with_errors(&line);
        assert!(!ok && err.contains(why), "{args:?}: {out}{err}");
        assert!(!std::path::Path::new(&out_file).exists(), "{args:?}");
    }
    let nowhere = path("no/such/folder/x.nnue");
    let (ok, _, err) = run_amalgam_with_errors(&["train", "chess", &file, "--out", &nowhere]);
    assert!(!ok && err.contains("no such folder"), "{err}");
    let (ok, _, err) =
        run_amalgam_with_errors(&["train", "chess", &path("missing"), "--out", &out_file]);
    assert!(!ok && err.contains("missing"), "{err}");
    std::fs::write(&file, "# only a comment\n").expect("data");
    let (ok, _, err) = run_amalgam_with_errors(&["train", "chess", &file, "--out", &out_file]);
    assert!(!ok && err.contains("no positions"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_user_variant_goes_through_datagen_and_train() {
    let dir = scratch("zoo");
    let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let data = path("zoo.data");
    zoo_datagen("20", "300", &data);
    let net_file = path("zoo.nnue");
    let mut args = vec![
        "--variants",
        USER_INI,
        "train",
        "zoo",
        &data,
        "--out",
        &net_file,
    ];
    args.extend_from_slice(&FIT);
    args.extend_from_slice(&["--activation", "crelu"]);
    let (ok, out, err) = run_amalgam_with_errors(&args);
    assert!(ok, "{out}{err}");
    let before = number_after(&out, "loss before: training");
    let after = number_after(&out, "after: training");
    assert!(after < before, "training loss {before} -> {after}\n{out}");
    let net = read_net(&net_file);
    assert!(net.check_layout(&layout(Some(USER_INI), "zoo")).is_ok());
    assert!(net.check_layout(&layout(None, "chess")).is_err());
    assert!(
        net.provenance.contains("amalgam datagen zoo"),
        "{}",
        net.provenance
    );

    // The net loads through the `nnue` key and changes the evaluation.
    let ini = path("net.ini");
    let user = std::fs::read_to_string(USER_INI).expect("ini");
    std::fs::write(&ini, format!("{user}\n[zoo-net:zoo]\nnnue = zoo.nnue\n")).expect("ini");
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(ok && out.contains("zoo.nnue ok: "), "{out}");
    assert!(
        zoo_scores_differ(&ini, "zoo-net"),
        "the trained net changes no score"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
