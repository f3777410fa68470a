//! The command line: every command's `--help` names every option it takes,
//! and bad arguments end with status 2 and the one form of usage error.

use std::process::{Command, Output};

/// Every command (with its words) and the options it takes.
const COMMANDS: &[(&[&str], &[&str])] = &[
    (&["perft"], &["--divide", "--threads"]),
    (&["bench"], &["--depth", "--threads"]),
    (
        &["go"],
        &[
            "--depth",
            "--movetime",
            "--nodes",
            "--threads",
            "--multipv",
            "--hash",
            "--elo",
            "--seed",
        ],
    ),
    (
        &["epd"],
        &["--variant", "--movetime", "--nodes", "--threads", "--hash"],
    ),
    (
        &["selfplay"],
        &[
            "--games",
            "--nodes",
            "--depth",
            "--movetime",
            "--pgn",
            "--seed",
        ],
    ),
    (
        &["openings"],
        &[
            "--count",
            "--plies",
            "--max-score",
            "--seed",
            "--nodes",
            "--out",
        ],
    ),
    (
        &["match"],
        &[
            "--engine",
            "--variant",
            "--games",
            "--concurrency",
            "--tc",
            "--movetime",
            "--depth",
            "--nodes",
            "--margin",
            "--openings",
            "--random-plies",
            "--seed",
            "--pgn",
            "--resume",
            "--sprt",
            "--resign",
            "--draw",
            "--pair-promotion",
            "--ini",
            "--event",
            "--probe",
            "--shard",
        ],
    ),
    (&["pgn"], &[]),
    (&["pgn", "check"], &[]),
    (&["pgn", "stats"], &["--sprt"]),
    (
        &["datagen"],
        &[
            "--games",
            "--nodes",
            "--depth",
            "--out",
            "--threads",
            "--seed",
            "--openings",
            "--format",
        ],
    ),
    (&["data"], &[]),
    (&["data", "convert"], &["--out", "--variant", "--format"]),
    (&["data", "stats"], &["--variant"]),
    (
        &["tune"],
        &[
            "--out",
            "--epochs",
            "--seed",
            "--lambda",
            "--rate",
            "--batch",
            "--validation",
            "--decay",
            "--start",
        ],
    ),
    (
        &["train"],
        &[
            "--out",
            "--hidden",
            "--epochs",
            "--lambda",
            "--seed",
            "--validation",
            "--validation-from",
            "--threads",
            "--batch",
            "--lr",
            "--lr-drop",
            "--lr-schedule",
            "--lr-final",
            "--lr-warmup",
            "--checkpoint",
            "--resume",
            "--activation",
            "--no-factoriser",
            "--output-buckets",
            "--king-buckets",
            "--init",
        ],
    ),
    (
        &["learn"],
        &[
            "--dir",
            "--hours",
            "--generations",
            "--threads",
            "--nodes",
            "--positions",
            "--min-positions",
            "--max-positions",
            "--window",
            "--hidden",
            "--epochs",
            "--fresh",
            "--batch",
            "--lambda",
            "--output-buckets",
            "--king-buckets",
            "--elo0",
            "--elo1",
            "--alpha",
            "--beta",
            "--gate-tc",
            "--gate-games",
            "--seed",
        ],
    ),
    (&["pictures"], &["--out"]),
    (&["check"], &[]),
    (&["variants"], &[]),
];

fn amalgam(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_amalgam"))
        .args(args)
        .output()
        .expect("run amalgam")
}

fn help_of(words: &[&str]) -> String {
    let mut args = words.to_vec();
    args.push("--help");
    let out = amalgam(&args);
    assert_eq!(out.status.code(), Some(0), "{args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_command_documents_every_option() {
    for (words, options) in COMMANDS {
        let help = help_of(words);
        assert!(help.contains("Usage: amalgam "), "{words:?}:\n{help}");
        for option in options.iter().chain(&["--variants", "--help"]) {
            assert!(
                help.contains(&format!("{option} ")) || help.contains(&format!("{option}\n")),
                "{words:?}: {option} missing from\n{help}"
            );
        }
    }
}

/// The table above is complete: every command and every option the command
/// line defines is in it, and every option in its help.
#[test]
fn the_table_lists_every_command_and_option() {
    let cli = amalgam::cli::command();
    let mut seen = 0;
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        let (_, options) = COMMANDS
            .iter()
            .find(|(w, _)| w == &[name])
            .unwrap_or_else(|| panic!("command {name} missing from the table"));
        let help = help_of(&[name]);
        for arg in sub.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let long = format!("--{long}");
            if long != "--variants" && long != "--help" {
                assert!(options.contains(&long.as_str()), "{name}: {long}");
            }
            assert!(help.contains(&long), "{name}: {long} not in its help");
        }
        seen += 1;
    }
    // `pgn check`, `pgn stats`, `data convert` and `data stats` are the
    // commands under another.
    assert_eq!(seen + 4, COMMANDS.len());
}

#[test]
fn help_lists_every_command() {
    for args in [&["help"][..], &["--help"], &["-h"]] {
        let out = amalgam(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        for (words, _) in COMMANDS {
            assert!(
                text.lines()
                    .any(|l| l.trim_start().starts_with(&format!("{} ", words[0]))),
                "{args:?}: {words:?} missing from\n{text}"
            );
        }
        for option in ["--variants", "--uci", "--xboard"] {
            assert!(text.contains(option), "{option}");
        }
    }
}

#[test]
fn bad_arguments_end_with_status_2_and_one_form() {
    let out_file = std::env::temp_dir().join(format!("amalgam-cli-{}.txt", std::process::id()));
    let out = out_file.to_str().expect("path");
    let cases: &[&[&str]] = &[
        // Unknown commands and options.
        &["nosuch"],
        &["perft", "chess", "startpos", "2", "--bogus"],
        &["datagen", "--bogus"],
        &["pgn", "nosuch", "file"],
        // Thread counts out of range, the same for every command.
        &["perft", "chess", "startpos", "1", "--threads", "0"],
        &["bench", "chess", "--threads", "0"],
        &["go", "chess", "startpos", "--threads", "0"],
        &["epd", "file.epd", "--threads", "257"],
        &[
            "datagen",
            "chess",
            "--games",
            "1",
            "--nodes",
            "9",
            "--out",
            out,
            "--threads",
            "0",
        ],
        // Not a number.
        &["perft", "chess", "startpos", "two"],
        &["go", "chess", "startpos", "--depth", "x"],
        &["tune", "chess", "data", "--out", out, "--epochs", "many"],
        &["tune", "chess", "data", "--out", out, "--lambda", "2"],
        &["train", "chess", "data", "--out", out, "--hidden", "0"],
        &["train", "chess", "data", "--out", out, "--activation", "x"],
        &["openings", "chess", "--out", out, "--count", "0"],
        &["go", "chess", "startpos", "--hash", "0"],
        // Missing arguments.
        &["perft", "chess", "startpos"],
        &["selfplay", "chess"],
        &["datagen", "chess", "--games", "1", "--out", out],
        &["match", "--engine", "cmd=a", "proto=uci", "--depth", "1"],
        &[
            "match",
            "--engine",
            "cmd=a",
            "proto=uci",
            "--engine",
            "cmd=b",
            "proto=uci",
        ],
        &["match", "--engine", "cmd=a", "proto=uci", "--tc", "fast"],
        &["pgn", "stats"],
        &["pgn", "stats", "x.pgn", "--sprt", "elo0=5", "elo1=0"],
        &["--uci", "variants"],
    ];
    for args in cases {
        let o = amalgam(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(
            err.ends_with("\n\nFor more information, try '--help'.\n"),
            "{args:?}: {err}"
        );
    }
    assert!(!out_file.exists(), "a refused command wrote its file");
}

/// Limits given together are all kept, as before the command line moved to
/// clap: the search stops at the first one reached.
#[test]
fn limits_given_together_all_apply() {
    let out = amalgam(&[
        "go", "chess", "startpos", "--depth", "20", "--nodes", "3000",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("bestmove "), "{text}");
    // The node limit stopped a search that depth 20 would not have ended.
    assert!(!text.contains(" depth 20 "), "{text}");
}
