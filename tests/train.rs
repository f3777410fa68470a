//! `amalgam train` from the command line: on a small datagen file
//! (`tests/data/train-chess.txt`, 16 games at 300 nodes a move) the loss
//! falls, the written net reads back with the variant's layout, the same
//! seed gives the same net whatever the thread count, and bad data lines
//! are refused with file and line; a variant defined only in the tests' ini
//! goes through datagen and train, and its net, named by the `nnue` key,
//! loads and changes the evaluation. A run that cannot succeed is refused
//! before it trains (a folder as the net file, options that contradict each
//! other, an unknown variant); the batch fits a small file; a net worse
//! than the hand-written evaluation is warned of; progress goes to a
//! terminal only. A run resumed from its checkpoint (after more epochs were
//! asked for, a stop between two batches, or SIGTERM) writes the net of the
//! run never stopped; a checkpoint of other options, or damaged, is
//! refused with what differs or the byte; the cosine schedule and a
//! warm-up change the net and are recorded. A net of four output buckets
//! says how many training positions each holds, and loads and plays in
//! the engine, each position scored by its bucket's layer.

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

/// `train chess` on the small file with `args`, its standard error sent to
/// a file: whether it succeeded, its standard output and standard error.
fn train_chess(dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let errors = dir.join("stderr.txt");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(["train", "chess", &fixture()])
        .args(args)
        .stderr(std::fs::File::create(&errors).expect("stderr file"))
        .output()
        .expect("run amalgam");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        std::fs::read_to_string(&errors).expect("stderr"),
    )
}

/// The net file's provenance holds `words`.
fn provenance_has(net_file: &str, words: &str) {
    let provenance = read_net(net_file).provenance;
    assert!(provenance.contains(words), "{words}: {provenance}");
}

/// [`train_chess`] that must succeed, writing `x.nnue` in `dir` (whose
/// name it returns with the standard output and error).
fn train_chess_ok(dir: &std::path::Path, args: &[&str]) -> (String, String, String) {
    let net_file = dir.join("x.nnue").to_string_lossy().into_owned();
    let mut line = vec!["--out", &net_file];
    line.extend_from_slice(args);
    let (ok, out, err) = train_chess(dir, &line);
    assert!(ok, "{args:?}: {out}{err}");
    (net_file, out, err)
}

#[test]
fn a_folder_as_the_net_file_is_refused_before_the_training() {
    let dir = scratch("folder");
    let folder = dir.join("nets");
    std::fs::create_dir(&folder).expect("folder");
    let folder = folder.to_string_lossy().into_owned();
    // Hours of training if it began: the refusal must come first.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(["train", "chess", &fixture(), "--out", &folder])
        .args(["--hidden", "4096", "--epochs", "100000", "--threads", "1"])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(dir.join("stderr.txt")).expect("stderr file"))
        .spawn()
        .expect("run amalgam");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if started.elapsed().as_secs() >= 20 {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let err = std::fs::read_to_string(dir.join("stderr.txt")).expect("stderr");
    let status = status.unwrap_or_else(|| panic!("still training after 20 s: {err}"));
    assert!(!status.success(), "{err}");
    assert!(err.contains("is a folder"), "{err}");
    // Nothing was left in the folder or beside it.
    assert_eq!(std::fs::read_dir(&folder).expect("folder").count(), 0);
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_net_file_is_replaced_only_when_the_new_net_is_written() {
    let dir = scratch("replace");
    let net_file = dir.join("x.nnue").to_string_lossy().into_owned();
    std::fs::write(&net_file, b"the old net").expect("old");
    let listing = || std::fs::read_dir(&dir).expect("dir").count();
    // A run refused before it starts, and one whose data turn out bad
    // after the file beside the net was made, leave the old net and
    // nothing else (the net and the standard error file).
    let refused = ["--out", &net_file, "--epochs", "1", "--lr-drop", "2"];
    assert!(!train_chess(&dir, &refused).0);
    assert_eq!(std::fs::read(&net_file).expect("net"), b"the old net");
    assert_eq!(listing(), 2);
    let bad = dir.join("bad.data").to_string_lossy().into_owned();
    std::fs::write(&bad, "not a data line\n").expect("data");
    let (ok, _, err) = run_amalgam_with_errors(&["train", "chess", &bad, "--out", &net_file]);
    assert!(!ok && err.contains("nothing trained"), "{err}");
    assert_eq!(std::fs::read(&net_file).expect("net"), b"the old net");
    assert_eq!(listing(), 3);
    train_chess_ok(&dir, &["--epochs", "1", "--hidden", "8"]);
    assert!(read_net(&net_file).provenance.contains("Command: "));
    // The net, its checkpoint (kept), the bad data, standard error.
    assert!(dir.join("x.nnue.ckpt").is_file());
    assert_eq!(listing(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_batch_fits_a_small_file_unless_one_is_given() {
    let dir = scratch("batch");
    let (net_file, out, _) = train_chess_ok(&dir, &["--epochs", "1", "--hidden", "8"]);
    let batch = number_after(&out, "batch");
    let training = number_after(&out, "chosen for");
    let steps = number_after(&out, "training positions:");
    assert!(steps >= 8.0 && steps == (training / batch).ceil(), "{out}");
    let chosen = format!("; batch {batch} (chosen for {training} training positions");
    provenance_has(&net_file, &chosen);
    let given = ["--epochs", "1", "--hidden", "8", "--batch", "5000"];
    let (_, out, _) = train_chess_ok(&dir, &given);
    assert!(out.lines().any(|l| l == "batch 5000"), "{out}");
    provenance_has(&net_file, "; batch 5000\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_net_worse_than_the_hand_written_evaluation_is_warned_of() {
    let dir = scratch("worse");
    // One step from random weights: far from the hand-written evaluation.
    let (net_file, out, err) = train_chess_ok(&dir, &["--epochs", "1", "--batch", "16384"]);
    let quantised = |label| number_after(&out, label);
    assert!(
        quantised("quantised net: validation") > quantised("(the measure to beat):"),
        "{out}"
    );
    for words in [
        "warning: the net's validation loss",
        "above the hand-written evaluation's",
        "only 1 Adam step(s)",
    ] {
        assert!(err.contains(words), "{words}: {err}");
    }
    provenance_has(&net_file, "\nWarning: the net's");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn contradicting_options_and_unknown_variants_are_refused_before_the_training() {
    let dir = scratch("options");
    let net_file = dir.join("x.nnue").to_string_lossy().into_owned();
    let drop = |n: &str| train_chess(&dir, &["--out", &net_file, "--epochs", "3", "--lr-drop", n]);
    let (ok, out, err) = drop("4");
    assert!(!ok, "{out}");
    assert!(err.contains("--lr-drop 4 is more than --epochs 3"), "{err}");
    assert!(!out.contains("epoch"), "{out}");
    assert!(!std::path::Path::new(&net_file).exists());
    assert!(drop("3").0, "every epoch at the dropped step size");

    let data = fixture();
    let (ok, _, err) = run_amalgam_with_errors(&["train", "zoo", &data, "--out", &net_file]);
    assert!(!ok);
    for words in ["unknown variant 'zoo'", "chess, ", "--variants FILE"] {
        assert!(err.contains(words), "{words}: {err}");
    }
    assert!(!err.contains("<variants>"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_validation_positions_the_last_epoch_is_written_and_said_so() {
    let dir = scratch("blind");
    let blind = ["--epochs", "2", "--hidden", "8", "--validation", "0"];
    let (net_file, out, err) = train_chess_ok(&dir, &blind);
    assert!(!out.contains("lowest validation loss"), "{out}");
    let said = "the net of epoch 2 is written (the last; no validation positions";
    assert!(out.contains(said), "{out}");
    // Nothing to compare with the hand-written evaluation: no warning.
    assert!(!err.contains("warning"), "{err}");
    let provenance = read_net(&net_file).provenance;
    assert!(
        !provenance.contains("lowest validation loss"),
        "{provenance}"
    );
    provenance_has(
        &net_file,
        "Written: the net of epoch 2 (the last; no validation",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn progress_goes_to_a_terminal_only() {
    let dir = scratch("progress");
    let (_, _, err) = train_chess_ok(&dir, &["--epochs", "3", "--hidden", "8", "--batch", "16"]);
    // Standard error is a file: whole lines, none overwritten or blank.
    assert!(!err.contains('\r'), "{err:?}");
    assert!(err.lines().all(|l| !l.trim().is_empty()), "{err:?}");
    assert!(err.contains("positions read in"), "{err:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

const RESUMED: [&str; 8] = [
    "--hidden",
    "16",
    "--batch",
    "64",
    "--seed",
    "5",
    "--threads",
    "2",
];

/// The net file's bytes after `train chess` with `args` and [`RESUMED`].
fn net_bytes(dir: &std::path::Path, args: &[&str]) -> Vec<u8> {
    let mut line = RESUMED.to_vec();
    line.extend_from_slice(args);
    net_bytes_of(dir, &line)
}

#[test]
fn a_resumed_run_writes_the_uninterrupted_runs_net() {
    let dir = scratch("resume");
    let whole = net_bytes(&dir, &["--epochs", "4"]);
    std::fs::remove_file(dir.join("x.nnue.ckpt")).expect("checkpoint");
    let two = net_bytes(&dir, &["--epochs", "2"]);
    assert_ne!(two, whole, "2 epochs are not 4");
    let resumed = net_bytes(&dir, &["--epochs", "4", "--resume"]);
    assert!(resumed == whole, "the resumed net differs");
    // Resumed again with all its epochs done, the run writes the same net.
    assert!(net_bytes(&dir, &["--epochs", "4", "--resume"]) == whole);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_checkpoint_of_other_options_or_damaged_is_refused() {
    let dir = scratch("refused");
    let net_file = dir.join("x.nnue").to_string_lossy().into_owned();
    let resume = |extra: &[&str]| {
        let mut line = vec!["--out", &net_file, "--epochs", "3", "--resume"];
        line.extend_from_slice(&RESUMED);
        line.extend_from_slice(extra);
        let (ok, out, err) = train_chess(&dir, &line);
        assert!(!ok, "{extra:?}: {out}");
        err
    };
    let missing = resume(&[]);
    assert!(missing.contains("x.nnue.ckpt: no checkpoint"), "{missing}");
    let folder = dir.to_string_lossy().into_owned();
    let (ok, _, err) = train_chess(&dir, &["--out", &net_file, "--checkpoint", &folder]);
    assert!(
        !ok && err.contains(&format!("--checkpoint {folder} is a folder")),
        "{err}"
    );
    net_bytes(&dir, &["--epochs", "2"]);
    for (extra, words) in [
        (&["--hidden", "8"][..], "its hidden is 16, this run's 8"),
        (&["--lambda", "0.7"], "its lambda is 0.5, this run's 0.7"),
        (
            &["--no-factoriser"],
            "its factoriser is true, this run's false",
        ),
        (
            &["--output-buckets", "4"],
            "its output buckets is 1, this run's 4",
        ),
        (&["--lr", "0.002"], "epoch 1 ran at other step sizes"),
        (
            &["--lr-schedule", "cosine"],
            "epoch 1 ran at other step sizes",
        ),
        (
            &["--epochs", "1"],
            "2 epoch(s) done or begun, more than --epochs 1",
        ),
    ] {
        let err = resume(extra);
        assert!(err.contains(words), "{extra:?}: {err}");
    }
    let checkpoint = dir.join("x.nnue.ckpt");
    let good = std::fs::read(&checkpoint).expect("checkpoint");
    let mut damaged = good.clone();
    let at = damaged.len() / 2;
    damaged[at] ^= 0x10;
    std::fs::write(&checkpoint, &damaged).expect("damaged");
    let err = resume(&[]);
    assert!(
        err.contains("x.nnue.ckpt: byte ") && err.contains("do not match their hash"),
        "{err}"
    );
    std::fs::write(&checkpoint, &good[..good.len() - 3]).expect("cut");
    let err = resume(&[]);
    assert!(err.contains("the file ends inside"), "{err}");
    std::fs::write(&checkpoint, b"something else").expect("foreign");
    let err = resume(&[]);
    assert!(err.contains("byte 0: not a checkpoint"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_cosine_schedule_and_a_warm_up_change_the_net_and_say_so() {
    let dir = scratch("schedule");
    let step = net_bytes(&dir, &["--epochs", "3"]);
    let cosine = net_bytes(&dir, &["--epochs", "3", "--lr-schedule", "cosine"]);
    assert_ne!(step, cosine);
    provenance_has(
        &dir.join("x.nnue").to_string_lossy(),
        "Schedule: cosine to 0.00001",
    );
    let warm = net_bytes(&dir, &["--epochs", "3", "--lr-warmup", "20"]);
    assert_ne!(step, warm);
    provenance_has(
        &dir.join("x.nnue").to_string_lossy(),
        "Schedule: step, lr drop 0 epoch(s); warm-up 20 step(s)",
    );
    let (ok, _, err) = train_chess(&dir, &["--out", "y.nnue", "--lr-final", "0.0001"]);
    assert!(
        !ok && err.contains("--lr-final 0.0001 belongs to --lr-schedule cosine"),
        "{err}"
    );
    let (ok, _, err) = train_chess(
        &dir,
        &[
            "--out",
            "y.nnue",
            "--lr-schedule",
            "cosine",
            "--lr-drop",
            "1",
        ],
    );
    assert!(
        !ok && err.contains("--lr-drop belongs to --lr-schedule step"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run of `epochs` epochs of the small file in `dir` through the
/// library, a stop requested at the `stop_at`th progress report if given.
fn train_in_process(
    dir: &std::path::Path,
    epochs: usize,
    resume: bool,
    stop_at: Option<usize>,
) -> Result<Vec<u8>, amalgam::tools::train::TrainError> {
    use amalgam::tools::train::{
        Architecture, Batch, DataFiles, Event, Schedule, Settings, StopRequest, Trainer,
    };
    let (v, evaluator) =
        amalgam::engine::eval::compile(&VariantSet::builtin(), "chess").expect("chess");
    let trainer = Trainer::new(
        v,
        evaluator,
        Architecture {
            hidden: 16,
            ..Architecture::default()
        },
    );
    let out = dir.join("lib.nnue").to_string_lossy().into_owned();
    let stop = amalgam::util::stop::Stop::new();
    let settings = Settings {
        batch: Batch::Given(64),
        threads: 2,
        out: out.clone(),
        resume,
        stop: StopRequest(Some(stop.clone())),
        ..Settings::default()
    };
    let schedule = Schedule::new(epochs, 0.002, 1).expect("schedule");
    let mut reports = 0;
    let mut on_event = |e: Event| {
        if let Event::Progress { .. } = e {
            reports += 1;
            if Some(reports) == stop_at {
                stop.request();
            }
        }
    };
    trainer.run(
        &schedule,
        &settings,
        &DataFiles::new(vec![fixture()]),
        &mut on_event,
    )?;
    Ok(std::fs::read(out).expect("net"))
}

#[test]
fn a_stop_between_two_batches_is_resumed_exactly() {
    use amalgam::tools::train::TrainError;
    let dir = scratch("stop");
    let whole = train_in_process(&dir, 3, false, None).expect("whole run");
    for file in ["lib.nnue", "lib.nnue.ckpt"] {
        std::fs::remove_file(dir.join(file)).expect("written");
    }
    // 655 training positions, 11 batches an epoch: the 14th batch is the
    // third of epoch 2.
    match train_in_process(&dir, 3, false, Some(14)) {
        Err(TrainError::Stopped {
            epochs: 1,
            batches: 3,
            checkpoint,
        }) => assert!(checkpoint.ends_with("lib.nnue.ckpt")),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("not stopped"),
    }
    assert!(!dir.join("lib.nnue").exists(), "no net written");
    let resumed = train_in_process(&dir, 3, true, None).expect("resumed");
    assert!(resumed == whole, "the resumed net differs");
    // A stop at an epoch's last batch ends the run after that epoch.
    std::fs::remove_file(dir.join("lib.nnue.ckpt")).expect("checkpoint");
    match train_in_process(&dir, 3, false, Some(11)) {
        Err(TrainError::Stopped {
            epochs: 1,
            batches: 0,
            ..
        }) => {}
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("not stopped"),
    }
    let resumed = train_in_process(&dir, 3, true, None).expect("resumed");
    assert!(resumed == whole, "the resumed net differs");
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM stops a run between two batches with the checkpoint written and
/// the signal's exit status; `--resume` then writes the net of the run
/// that was not stopped.
#[test]
fn a_run_stopped_by_sigterm_resumes_to_the_unstopped_net() {
    let dir = scratch("sigterm");
    let args = [
        "--hidden",
        "64",
        "--epochs",
        "150",
        "--batch",
        "64",
        "--seed",
        "2",
        "--threads",
        "1",
    ];
    let whole = net_bytes_of(&dir, &args);
    for file in ["x.nnue", "x.nnue.ckpt"] {
        std::fs::remove_file(dir.join(file)).expect("written");
    }
    let net_file = dir.join("x.nnue").to_string_lossy().into_owned();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(["train", "chess", &fixture(), "--out", &net_file])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run amalgam");
    // Stopped once the first epoch's checkpoint is there.
    let begun = std::time::Instant::now();
    while !dir.join("x.nnue.ckpt").exists() {
        assert!(begun.elapsed().as_secs() < 120, "no checkpoint written");
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let kill = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(kill.success());
    let out = child.wait_with_output().expect("the run ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(143), "{stderr}");
    assert!(
        stderr.contains("stopped after epoch") && stderr.contains("--resume goes on"),
        "{stderr}"
    );
    assert!(!dir.join("x.nnue").exists(), "no net written");
    let mut resumed = args.to_vec();
    resumed.push("--resume");
    assert!(
        net_bytes_of(&dir, &resumed) == whole,
        "the resumed net differs"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The net file's bytes after `train chess` with `args` alone.
fn net_bytes_of(dir: &std::path::Path, args: &[&str]) -> Vec<u8> {
    let (net_file, _, _) = train_chess_ok(dir, args);
    std::fs::read(net_file).expect("net")
}

#[test]
fn a_net_of_four_output_buckets_loads_and_plays_in_the_engine() {
    use amalgam::engine::eval::nnue::{Accumulators, Net};
    use amalgam::rules::board::Position;
    use std::sync::Arc;

    let dir = scratch("buckets");
    let (net_file, out, err) =
        train_chess_ok(&dir, &[&FIT[..], &["--output-buckets", "4"]].concat());
    assert!(
        out.contains("training positions by output bucket: 0 (2-8 men): ")
            && out.contains(", 3 (25+ men): "),
        "{out}{err}"
    );
    let network = read_net(&net_file);
    assert_eq!((network.buckets, network.output_bias.len()), (4, 4));
    assert_eq!(network.output_weights.len(), 4 * 2 * 16);
    let bytes = std::fs::read(&net_file).expect("net");
    assert_eq!(bytes[4..8], 2u32.to_le_bytes(), "version 2");
    provenance_has(
        &net_file,
        "Output buckets 4 by men (training positions): 0 (2-8 men): ",
    );
    // Each bucket's layer was trained apart from the others.
    let layers: Vec<&[i16]> = network.output_weights.chunks(32).collect();
    assert!(layers.windows(2).all(|w| w[0] != w[1]));

    // In the engine: read for chess, the incremental evaluation of
    // positions of every bucket is the evaluation from scratch.
    let set = VariantSet::builtin();
    let (v, _) = amalgam::engine::eval::compile(&set, "chess").expect("chess");
    let net =
        Arc::new(Net::from_bytes(Layout::new(&v), &bytes, "b4").expect("the engine reads it"));
    let fens = [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "r1bqk2r/pp3ppp/2n5/8/8/2N5/PP3PPP/R1BQK2R w KQkq - 0 1",
        "4k3/pp3pp1/8/3r4/8/2R5/PP3PP1/4K3 b - - 0 1",
        "4k3/8/8/3q4/8/8/3P4/4K3 w - - 0 1",
    ];
    let mut buckets = Vec::new();
    for fen in fens {
        let pos = Position::from_fen(v.clone(), fen).expect("fen");
        buckets.push(net.bucket(&pos));
        let score = Accumulators::new(net.clone(), &pos).evaluate(&pos);
        assert_eq!(score, net.evaluate(&pos), "{fen}");
    }
    assert_eq!(buckets, [3, 2, 1, 0]);

    plays_through_a_variants_nnue_key(&dir, "chess-b4", fens[2], "2");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `DIR/x.nnue` through a variant `name`'s `nnue` key: `check` passes it
/// and the engine searches `fen` to `depth` with it.
fn plays_through_a_variants_nnue_key(dir: &std::path::Path, name: &str, fen: &str, depth: &str) {
    let ini = dir
        .join(format!("{name}.ini"))
        .to_string_lossy()
        .into_owned();
    std::fs::write(&ini, format!("[{name}:chess]\nnnue = x.nnue\n")).expect("ini");
    let (ok, out) = run_amalgam(&["check", &ini]);
    assert!(ok && out.contains("x.nnue ok: "), "{out}");
    let (ok, out) = run_amalgam(&["--variants", &ini, "go", name, fen, "--depth", depth]);
    assert!(ok && out.contains("bestmove"), "{out}");
}

/// A chess net trained from random weights with [`FIT`], copied into
/// `dir` as `name` to start later trainings from: its path, and the
/// training's output and errors.
fn start_net(dir: &std::path::Path, name: &str) -> (String, String, String) {
    let (first, out, err) = train_chess_ok(dir, &FIT);
    let start = dir.join(name).to_string_lossy().into_owned();
    std::fs::copy(&first, &start).expect("copy");
    (start, out, err)
}

/// A net of king buckets, trained from a net without them: its training
/// starts from that net (below a random start), its file is version 3
/// with the buckets named in its provenance, and in the engine its
/// incremental evaluation is the evaluation from scratch with the kings on
/// either half and in each bucket; it plays through a variant's `nnue` key.
/// A net of other king buckets is refused as a start.
#[test]
fn a_net_of_king_buckets_trains_from_a_plain_net_and_plays_in_the_engine() {
    use amalgam::engine::eval::nnue::{Accumulators, Net};
    use amalgam::rules::board::Position;
    use std::sync::Arc;

    let dir = scratch("kings");
    let (start, out, _) = start_net(&dir, "plain.nnue");
    let random_start = number_after(&out, "loss before: training ");
    let plain_loss = number_after(&out, "quantised net: validation ");
    let mut args = FIT.to_vec();
    args.extend([
        "--epochs",
        "3",
        "--lr",
        "0.001",
        "--king-buckets",
        "4",
        "--init",
        &start,
    ]);
    let (net_file, out, err) = train_chess_ok(&dir, &args);
    let before = number_after(&out, "loss before: training ");
    // Most of these positions are seen mirrored (a king on the e-file is
    // on the right half), where the start is the net's evaluation of the
    // mirror image: not the net's loss, but far from a random start's.
    assert!(
        before < 0.8 * random_start,
        "{before} vs {random_start}: {out}{err}"
    );
    // The start is also measured as itself, in its own layout, from the
    // positions read again: the same held-out positions as the plain
    // net's own training (same data and seed), so the same loss as that
    // training measured from its features.
    let own = number_after(&out, "the start net itself: validation ");
    assert!(
        (own - plain_loss).abs() < 2e-6,
        "{own} vs {plain_loss}: {out}"
    );
    let network = read_net(&net_file);
    assert_eq!(network.kings.count(), 4);
    assert_eq!(network.inputs, 4 * read_net(&start).inputs);
    let bytes = std::fs::read(&net_file).expect("net");
    assert_eq!(bytes[4..8], 3u32.to_le_bytes(), "version 3");
    provenance_has(
        &net_file,
        "King buckets: preset 4 (4 buckets, the board mirrored",
    );

    let set = VariantSet::builtin();
    let (v, _) = amalgam::engine::eval::compile(&set, "chess").expect("chess");
    let net =
        Arc::new(Net::from_bytes(Layout::new(&v), &bytes, "k4").expect("the engine reads it"));
    let mut planes = std::collections::HashSet::new();
    for fen in [
        "r1bq1rk1/pp3ppp/2n5/8/8/2N5/PP3PPP/R1BQK2R w KQ - 0 1",
        "2kr3r/pp3ppp/2n5/8/8/2N5/PP3PPP/R1B2RK1 b - - 0 1",
        "8/5pk1/8/3r4/8/1KR5/PP6/8 w - - 0 1",
        "8/8/4k3/3q4/8/8/3P1K2/8 b - - 0 1",
    ] {
        let pos = Position::from_fen(v.clone(), fen).expect("fen");
        for c in amalgam::rules::types::Color::BOTH {
            planes.insert(net.layout().view(&pos, c));
        }
        let score = Accumulators::new(net.clone(), &pos).evaluate(&pos);
        assert_eq!(score, net.evaluate(&pos), "{fen}");
    }
    assert!(planes.len() >= 5, "{planes:?}");

    plays_through_a_variants_nnue_key(&dir, "chess-k4", "startpos", "4");

    // A start of other king buckets is refused before the data are read.
    let kings = dir.join("kings.nnue").to_string_lossy().into_owned();
    std::fs::copy(&net_file, &kings).expect("copy");
    let refused = dir.join("refused.nnue").to_string_lossy().into_owned();
    let mut args = vec!["--out", &refused];
    args.extend(FIT);
    args.extend(["--king-buckets", "2", "--init", &kings]);
    let (ok, out, err) = train_chess(&dir, &args);
    assert!(
        !ok && err.contains("4 king bucket(s), not those of --king-buckets 2"),
        "{out}{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--validation-from 2` holds the validation positions out of the second
/// file alone: a tenth of its positions, not of both files', and the
/// provenance says so.
#[test]
fn the_validation_comes_from_the_files_named() {
    let dir = scratch("validation-from");
    let positions = |out: &str| {
        let net_file = dir.join("x.nnue").to_string_lossy().into_owned();
        let line = read_net(&net_file)
            .provenance
            .lines()
            .find_map(|l| l.strip_prefix("Positions: ").map(str::to_string))
            .expect("a positions line");
        let number = |w: &str| {
            line.split(", ")
                .find_map(|p| p.strip_suffix(w))
                .and_then(|n| n.trim().parse::<usize>().ok())
                .unwrap_or_else(|| panic!("{line}: {out}"))
        };
        (number(" training"), number(" validation"))
    };
    let second = fixture();
    let mut args = FIT.to_vec();
    args.extend(["--epochs", "1", &second]);
    let (_, out, _) = train_chess_ok(&dir, &args);
    let (train_all, held_all) = positions(&out);
    args.extend(["--validation-from", "2"]);
    let (net_file, out, _) = train_chess_ok(&dir, &args);
    let (train_second, held_second) = positions(&out);
    let total = train_all + held_all;
    assert_eq!(train_second + held_second, total);
    assert_eq!(held_all, total / 10, "{out}");
    assert_eq!(held_second, total / 2 / 10, "{out}");
    provenance_has(&net_file, "Validation positions drawn from data file 2 on");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A training from a net's weights starts where the net is: its loss
/// before the first epoch is the net's (not a random start's), its
/// provenance says so, and a run whose every epoch is worse writes the net
/// it started from. A net of another size, another variant or no net at
/// all is refused before the data are read.
#[test]
fn a_training_from_a_net_starts_where_the_net_is() {
    let dir = scratch("init");
    let (start, out, err) = start_net(&dir, "start.nnue");
    let random_start = number_after(&out, "loss before: training ");
    let net_loss = number_after(&out, "quantised net: validation ");
    let go_on = |lr: &str| {
        let mut args = FIT.to_vec();
        args.extend(["--epochs", "2", "--lr", lr, "--init", &start]);
        train_chess_ok(&dir, &args)
    };
    let (net_file, out2, _) = go_on("0.0005");
    let before = number_after(&out2, "loss before: training ");
    let losses = &out2[out2.find("loss before: ").expect("losses")..];
    let before_validation = number_after(losses, ", validation ");
    assert!(
        (before_validation - net_loss).abs() < 0.02 * net_loss,
        "{before_validation} vs the net's {net_loss}: {out}{err}\n{out2}"
    );
    assert!(before < random_start / 2.0, "{before} vs {random_start}");
    provenance_has(
        &net_file,
        &format!("Started from the weights of {start} (checksum "),
    );
    // A wider training from the net starts where the net is too: its new
    // neurons add nothing until they learn.
    let mut wider: Vec<&str> = FIT
        .iter()
        .map(|&a| if a == "16" { "32" } else { a })
        .collect();
    wider.extend(["--epochs", "1", "--lr", "0.0005", "--init", &start]);
    let (net_file, out4, _) = train_chess_ok(&dir, &wider);
    let losses = &out4[out4.find("loss before: ").expect("losses")..];
    let wide_before = number_after(losses, ", validation ");
    assert!(
        (wide_before - net_loss).abs() < 0.02 * net_loss,
        "{wide_before} vs the net's {net_loss}:\n{out4}"
    );
    assert_eq!(read_net(&net_file).hidden, 32);
    // A step so large that every epoch is worse: the start is written.
    let (net_file, out3, _) = go_on("0.5");
    assert!(
        out3.contains("the net of epoch 0 is written (the net it started from"),
        "{out3}"
    );
    let (written, started) = (read_net(&net_file), read_net(&start));
    assert!(written.feature_weights == started.feature_weights);
    assert!(written.output_weights == started.output_weights);
    assert_eq!(written.output_bias, started.output_bias);

    for (args, refusal) in [
        (
            vec!["--hidden", "8", "--init", &start],
            format!("--init {start} cannot be trained on: hidden size 16, more than 8"),
        ),
        (
            vec!["--hidden", "16", "--output-buckets", "2", "--init", &start],
            format!("--init {start} cannot be trained on: 1 output bucket(s), not 2"),
        ),
        (
            vec![
                "--init",
                concat!(env!("CARGO_MANIFEST_DIR"), "/nets/compound.nnue"),
            ],
            "cannot be trained on: not a net of chess".to_string(),
        ),
        (
            vec!["--init", &fixture()],
            format!("--init {}: ", fixture()),
        ),
    ] {
        let net_file = dir.join("refused.nnue").to_string_lossy().into_owned();
        let mut line = vec!["--out", &net_file];
        line.extend(args);
        let (ok, out, err) = train_chess(&dir, &line);
        assert!(!ok && err.contains(&refusal), "{refusal}: {out}{err}");
        assert!(!out.contains("epoch 1"), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
