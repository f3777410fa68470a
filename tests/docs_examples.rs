//! The command examples of the docs run as written.
//!
//! An example is a line of README.md or of any docs/*.md file, indented by
//! four spaces or inside a fenced block, that starts with `amalgam `,
//! `cargo run --release -- ` or `target/release/amalgam` (with its `\`
//! continuation lines), or a command in the first column of the README's
//! command table. Two kinds:
//!
//! - A usage line (it has optional parts in brackets, alternatives with
//!   `|` or repeated arguments with `...`, as in `bench [VARIANT]`): its
//!   command must exist and every option it names must be one its
//!   `--help` lists.
//! - Any other example is run with the test build's binary, in a scratch
//!   folder where the files it writes go, after the placeholder words are
//!   replaced (`PLACEHOLDERS`) and the limits made small (`LIMITS`); it
//!   must exit with status 0. Examples that need programs from outside or
//!   a long run are named in `SKIPPED` with the reason.
//!
//! An indented block whose first line is `# NAME.ini` (the README's
//! `my-variants.ini`) is written to the scratch folder under that name
//! first, so the examples after it can load it.
//!
//! The links between the docs are checked too: every relative link names
//! a file that exists, and every `#anchor` a heading of that file.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The examples that are not run, each with why: the file it is in and a
/// part of its text that tells it apart. An entry that matches no example
/// fails the test, so the list cannot go stale.
const SKIPPED: &[(&str, &str, &str)] = &[
    // Fairy-Max must be installed (the real-client tests play it).
    (
        "docs/matches.md",
        "--engine name=Fairy-Max cmd=fairymax",
        "needs fairymax",
    ),
    // Reads the PGN that the Fairy-Max match above writes.
    (
        "docs/matches.md",
        "amalgam pgn check tm.pgn",
        "needs the Fairy-Max match's tm.pgn",
    ),
    // Fairy-Stockfish must be installed, with a variant file of its own.
    (
        "docs/matches.md",
        "cmd=fairy-stockfish",
        "needs fairy-stockfish",
    ),
    // Two builds of the engine, each in its own worktree.
    (
        "docs/matches.md",
        "cmd=./new/amalgam",
        "needs a second build in ./new and ./old",
    ),
    // untuned.ini is a copy of a built-in section the text describes, not a file of the repository.
    (
        "docs/matches.md",
        "AMALGAM_VARIANT_PATH=untuned.ini",
        "needs untuned.ini, made by hand",
    ),
    // Stockfish 15.1 must be installed.
    ("docs/results.md", "cmd=stockfish", "needs stockfish"),
    // Fairy-Max must be installed.
    ("docs/results.md", "cmd=fairymax", "needs fairymax"),
    // Fairy-Stockfish must be installed.
    (
        "docs/results.md",
        "cmd=fairy-stockfish",
        "needs fairy-stockfish",
    ),
    // v0.1.0 built from its tag in its own worktree.
    (
        "docs/results.md",
        "cmd=./v0.1.0/amalgam",
        "needs the v0.1.0 build in ./v0.1.0",
    ),
    // A net trained beforehand and an ini file that names it.
    (
        "docs/results.md",
        "option.VariantPath=new-net.ini",
        "needs a new net and new-net.ini",
    ),
    // An hour's run of the self-improvement loop.
    (
        "docs/results.md",
        "learn almost --dir learn-almost",
        "an hour's run",
    ),
    // The net that hour made.
    (
        "docs/results.md",
        "learn-almost/best.ini",
        "needs learn-almost/best.ini from the hour's run",
    ),
];

/// Placeholder words and what replaces them: (context, word, value). The
/// context is the option the word follows (`--out`), or the example's
/// command (`pgn check`), or empty for any place; the first entry that
/// fits is used. The `fixture.*` files are made in the scratch folder
/// before the examples run; `{n}` is the example's number, so that no
/// example appends to another's output.
const PLACEHOLDERS: &[(&str, &str, &str)] = &[
    ("--out", "FILE", "out-{n}.txt"),
    ("--out", "PARAMS", "params-{n}.txt"),
    ("--out", "NET", "net-{n}.nnue"),
    ("--out", "DIR", "pictures-{n}"),
    ("--pgn", "FILE", "games-{n}.pgn"),
    ("--openings", "FILE", "fixture.epd"),
    ("--variants", "FILE", "fixture.ini"),
    ("pgn check", "FILE", "fixture.pgn"),
    ("pgn stats", "FILE", "fixture.pgn"),
    ("epd", "FILE", "fixture.epd"),
    ("check", "FILE", "fixture.ini"),
    ("tune", "FILE", "fixture-data.txt"),
    ("train", "FILE", "fixture-data.txt"),
    // Chess has no piece pictures of its own: XBoard draws its men.
    ("pictures", "VARIANT", "combination"),
    ("", "VARIANT", "chess"),
    ("", "N", "2"),
    ("", "K", "500"),
    ("", "D", "3"),
    ("", "DEPTH", "3"),
    ("", "MS", "100"),
    ("", "S", "1"),
    ("", "T", "1"),
    ("", "MB", "16"),
    // The loop variable of a shell loop over seeds.
    ("", "$s", "1"),
];

/// Options whose number is made at most this (games, searches and
/// training short enough for a test).
const LIMITS: &[(&str, u64)] = &[
    ("--games", 2),
    ("--count", 2),
    ("--movetime", 10),
    ("--nodes", 2000),
    ("--depth", 4),
    ("--epochs", 1),
    ("--threads", 2),
    ("--concurrency", 2),
];

/// Options whose value is replaced whole.
const REPLACED: &[(&str, &str)] = &[("--tc", "1+0.01")];

/// A `perft` example's depth is made at most this.
const PERFT_DEPTH: u64 = 4;

/// The longest one example may run.
const TIMEOUT: Duration = Duration::from_secs(60);

const PREFIXES: &[&str] = &[
    "amalgam ",
    "cargo run --release -- ",
    "target/release/amalgam ",
];

/// One example: where it is and its text, continuation lines joined.
#[derive(Debug)]
struct Example {
    file: String,
    line: usize,
    text: String,
}

/// A word of a command line and whether any of it was quoted.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    quoted: bool,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files read: README.md and every docs/*.md, in name order.
fn doc_files() -> Vec<String> {
    let mut files = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(repo().join("docs"))
        .expect("docs folder")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

fn is_code_line(line: &str, in_fence: bool) -> bool {
    in_fence || line.starts_with("    ") || line.starts_with('\t')
}

/// The examples and `# NAME.ini` blocks of one Markdown file.
fn extract(file: &str, text: &str) -> (Vec<Example>, Vec<(String, String)>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut examples = Vec::new();
    let mut fixtures = Vec::new();
    let mut in_fence = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            i += 1;
            continue;
        }
        let code = is_code_line(line, in_fence);
        let body = line.trim();
        if code && body.starts_with("# ") && body.ends_with(".ini") && !body[2..].contains(' ') {
            let name = body[2..].trim().to_string();
            let mut content = String::new();
            let mut j = i + 1;
            while j < lines.len() && is_code_line(lines[j], in_fence) && !lines[j].trim().is_empty()
            {
                content.push_str(lines[j].trim());
                content.push('\n');
                j += 1;
            }
            fixtures.push((name, content));
            i = j;
            continue;
        }
        if code && PREFIXES.iter().any(|p| body.starts_with(p)) {
            let start = i;
            // A run of three spaces starts a usage line's comment column.
            let mut joined = strip_comment(body).to_string();
            while joined.ends_with('\\') && i + 1 < lines.len() {
                joined.pop();
                i += 1;
                joined.push(' ');
                joined.push_str(strip_comment(lines[i].trim()));
            }
            examples.push(Example {
                file: file.to_string(),
                line: start + 1,
                text: joined,
            });
        }
        i += 1;
    }
    (examples, fixtures)
}

fn strip_comment(line: &str) -> &str {
    match line.find("   ") {
        Some(at) => line[..at].trim_end(),
        None => line,
    }
}

/// The commands in the first column of the README's command table.
fn table_examples(text: &str) -> Vec<Example> {
    let mut in_commands = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') {
            in_commands = line.trim() == "## Commands";
            continue;
        }
        if !in_commands || !line.starts_with("| `") {
            continue;
        }
        let cell = &line[3..];
        let Some(end) = cell.find('`') else { continue };
        let command = cell[..end].replace("\\|", "|");
        out.push(Example {
            file: "README.md".into(),
            line: n + 1,
            text: format!("amalgam {command}"),
        });
    }
    out
}

/// Split a command line into words as a shell would (quotes, backslashes).
fn words(line: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut started = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                started = true;
                quoted = true;
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                    cur.push(d);
                }
            }
            '\\' => {
                started = true;
                if let Some(d) = chars.next() {
                    cur.push(d);
                }
            }
            c if c.is_whitespace() => {
                if started {
                    out.push(Word {
                        text: std::mem::take(&mut cur),
                        quoted,
                    });
                }
                started = false;
                quoted = false;
            }
            c => {
                started = true;
                cur.push(c);
            }
        }
    }
    if started {
        out.push(Word { text: cur, quoted });
    }
    out
}

/// The example's arguments to the binary (its prefix taken off).
fn arguments(example: &Example) -> Vec<Word> {
    let rest = PREFIXES
        .iter()
        .find_map(|p| example.text.strip_prefix(p))
        .expect("an example starts with a prefix");
    words(rest)
}

fn is_usage(args: &[Word]) -> bool {
    args.iter().any(|w| {
        !w.quoted
            && (w.text.starts_with('[')
                || w.text.starts_with('(')
                || w.text.contains('|')
                || w.text.ends_with("..."))
    })
}

/// An upper-case word (`VARIANT`, `N`) or a shell variable (`$s`).
fn is_placeholder(word: &str) -> bool {
    let upper = word
        .chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    let first = word.chars().next();
    (upper && first.is_some_and(|c| c.is_ascii_uppercase())) || first == Some('$')
}

/// The commands that have commands of their own (`pgn check`).
const WITH_SUBCOMMANDS: &[&str] = &["pgn", "data"];

/// The command words of an argument list (`pgn stats`, `perft`), skipping
/// global options and bracketed parts.
fn command_of(args: &[Word]) -> Vec<String> {
    let mut depth = 0i32;
    let mut command: Vec<String> = Vec::new();
    let mut skip_value = false;
    for w in args {
        let t = &w.text;
        let opens = t.matches(['[', '(']).count() as i32;
        let closes = t.matches([']', ')']).count() as i32;
        let at_top = depth == 0 && opens == 0;
        depth += opens - closes;
        if !at_top || w.quoted {
            if !command.is_empty() {
                break;
            }
            continue;
        }
        if skip_value {
            skip_value = false;
            continue;
        }
        if t == "--variants" {
            skip_value = true;
            continue;
        }
        let word = !t.is_empty()
            && t.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            && !t.starts_with('-');
        let wanted = command.is_empty()
            || command.len() == 1 && WITH_SUBCOMMANDS.contains(&command[0].as_str());
        if word && wanted {
            command.push(t.clone());
        } else if !command.is_empty() || !t.starts_with('-') {
            break;
        }
    }
    command
}

/// `amalgam ARGS --help`: its text, or why it failed.
fn help_text(command: &[String]) -> Result<String, String> {
    let mut args: Vec<&str> = command.iter().map(|s| s.as_str()).collect();
    args.push("--help");
    let (ok, out, err) = common::run_amalgam_with_errors(&args);
    if ok {
        Ok(out)
    } else {
        Err(format!("`amalgam {}` failed: {out}{err}", args.join(" ")))
    }
}

/// Whether `help` names the option `option` as a whole word.
fn names_option(help: &str, option: &str) -> bool {
    help.match_indices(option).any(|(at, _)| {
        let next = help[at + option.len()..].chars().next();
        !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
    })
}

/// Check a usage line: its command exists and takes every option it names.
fn check_usage(args: &[Word]) -> Result<(), String> {
    let command = command_of(args);
    let help = help_text(&command)?;
    let global = help_text(&[])?;
    for w in args.iter().filter(|w| !w.quoted) {
        let t = w.text.trim_start_matches(['[', '(']);
        let Some(name) = t.strip_prefix("--") else {
            continue;
        };
        let name: String = name
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if name.is_empty() {
            continue;
        }
        let option = format!("--{name}");
        if !names_option(&help, &option) && !names_option(&global, &option) {
            return Err(format!(
                "`amalgam {} --help` lists no {option}",
                command.join(" ")
            ));
        }
    }
    Ok(())
}

/// The value of a placeholder word in its context.
fn substitute(word: &str, previous: Option<&str>, command: &str) -> Result<String, String> {
    let fits = |context: &str| {
        if context.starts_with("--") {
            previous == Some(context)
        } else {
            context.is_empty() || context == command
        }
    };
    PLACEHOLDERS
        .iter()
        .find(|(context, w, _)| *w == word && fits(context))
        .map(|(_, _, value)| value.to_string())
        .ok_or_else(|| format!("no substitution for the placeholder {word}"))
}

/// The arguments an example runs with: placeholders replaced, limits made
/// small, files of the repository named by their full path.
fn runnable(args: &[Word], number: usize) -> Result<Vec<String>, String> {
    let command = command_of(args).join(" ");
    let mut out: Vec<String> = Vec::new();
    for (i, w) in args.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| args[p].text.as_str());
        let mut text = w.text.clone();
        if !w.quoted && is_placeholder(&text) {
            text = substitute(&text, previous, &command)?.replace("{n}", &number.to_string());
        }
        if let Some(option) = previous {
            if let Some((_, cap)) = LIMITS.iter().find(|(o, _)| *o == option)
                && let Ok(n) = text.parse::<u64>()
            {
                text = n.min(*cap).to_string();
            }
            if let Some((_, value)) = REPLACED.iter().find(|(o, _)| *o == option) {
                text = value.to_string();
            }
        }
        if !text.starts_with('-')
            && !text.starts_with('/')
            && text.contains('/')
            && repo().join(&text).exists()
        {
            text = repo().join(&text).to_string_lossy().into_owned();
        }
        out.push(text);
    }
    if command == "perft"
        && let Some(last) = out.iter_mut().rev().find(|a| a.parse::<u64>().is_ok())
    {
        let depth: u64 = last.parse().unwrap_or(PERFT_DEPTH);
        *last = depth.min(PERFT_DEPTH).to_string();
    }
    Ok(out)
}

/// Run the binary with `args` in `dir`: Ok, or its output when it failed
/// or ran past the timeout.
fn run_in(dir: &Path, args: &[String]) -> Result<(), String> {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_amalgam"));
    let bin_dir = exe.parent().expect("binary folder").to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let paths = std::iter::once(bin_dir).chain(std::env::split_paths(&path));
    let mut child = Command::new(&exe)
        .args(args)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).expect("PATH"))
        .env_remove("AMALGAM_VARIANT_PATH")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the binary: {e}"))?;
    let started = Instant::now();
    // Read the output on threads so that a full pipe never stalls the child.
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = format!(
        "{}{}",
        out.join().unwrap_or_default(),
        err.join().unwrap_or_default()
    );
    match status {
        Some(s) if s.success() => Ok(()),
        Some(s) => Err(format!("exit {s}: {}", tail(&text))),
        None => Err(format!("ran past {} s: {}", TIMEOUT.as_secs(), tail(&text))),
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}

/// The files the placeholders name, made in `dir`.
fn make_fixtures(dir: &Path) {
    let data = repo().join("tests/data");
    std::fs::copy(data.join("user-variants.ini"), dir.join("fixture.ini")).expect("fixture.ini");
    let wac = std::fs::read_to_string(data.join("wac.epd")).expect("wac.epd");
    let epd: String = wac.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("fixture.epd"), epd).expect("fixture.epd");
    let run = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        run_in(dir, &args).unwrap_or_else(|e| panic!("making a fixture: {e}"));
    };
    run(&[
        "selfplay",
        "chess",
        "--games",
        "2",
        "--nodes",
        "300",
        "--pgn",
        "fixture.pgn",
    ]);
    run(&[
        "datagen",
        "chess",
        "--games",
        "4",
        "--nodes",
        "300",
        "--out",
        "fixture-data.txt",
    ]);
}

fn skip_reason(example: &Example) -> Option<usize> {
    SKIPPED
        .iter()
        .position(|(file, part, _)| *file == example.file && example.text.contains(part))
}

/// Every example of the docs, and the `# NAME.ini` blocks.
fn all_examples() -> (Vec<Example>, Vec<(String, String)>) {
    let mut examples = Vec::new();
    let mut fixtures = Vec::new();
    for file in doc_files() {
        let text = std::fs::read_to_string(repo().join(&file)).expect("read a doc");
        let (e, f) = extract(&file, &text);
        examples.extend(e);
        fixtures.extend(f);
        if file == "README.md" {
            examples.extend(table_examples(&text));
        }
    }
    (examples, fixtures)
}

#[test]
fn docs_examples_run_as_written() {
    let dir = common::scratch_dir("docs", "examples");
    make_fixtures(&dir);
    let (examples, fixtures) = all_examples();
    for (name, content) in &fixtures {
        std::fs::write(dir.join(name), content).expect("write an ini block");
    }
    let mut used = vec![false; SKIPPED.len()];
    let mut failures = Vec::new();
    let (mut ran, mut usages) = (0, 0);
    for (number, example) in examples.iter().enumerate() {
        if let Some(k) = skip_reason(example) {
            used[k] = true;
            println!(
                "skipped {}:{} ({})",
                example.file, example.line, SKIPPED[k].2
            );
            continue;
        }
        let args = arguments(example);
        let result = if is_usage(&args) {
            usages += 1;
            println!("usage   {}:{}", example.file, example.line);
            check_usage(&args)
        } else {
            ran += 1;
            let started = Instant::now();
            let result = runnable(&args, number).and_then(|a| run_in(&dir, &a));
            println!(
                "ran     {}:{} in {:.1} s",
                example.file,
                example.line,
                started.elapsed().as_secs_f64()
            );
            result
        };
        if let Err(why) = result {
            failures.push(format!(
                "{}:{}: `{}`\n  {why}",
                example.file, example.line, example.text
            ));
        }
    }
    for (k, (file, part, _)) in SKIPPED.iter().enumerate() {
        if !used[k] {
            failures.push(format!("SKIPPED names no example: {file} `{part}`"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of the docs' examples fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        ran >= 5 && usages >= 5,
        "too few examples found: {ran} run, {usages} usage lines"
    );
}

/// The extraction finds indented and fenced examples with their
/// continuation lines, and the `# NAME.ini` blocks.
#[test]
fn examples_are_extracted() {
    let text = "Text `amalgam not this`.\n\n    amalgam go chess startpos \\\n      --depth 3\n\n```\ntarget/release/amalgam bench\n```\n\n    # my.ini\n    [v:chess]\n\n    cargo run --release -- perft chess startpos 9   a comment\n";
    let (examples, fixtures) = extract("x.md", text);
    let texts: Vec<&str> = examples.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "amalgam go chess startpos  --depth 3",
            "target/release/amalgam bench",
            "cargo run --release -- perft chess startpos 9"
        ]
    );
    assert_eq!(
        fixtures,
        [("my.ini".to_string(), "[v:chess]\n".to_string())]
    );
    let args = runnable(&arguments(&examples[2]), 0).expect("runnable");
    assert_eq!(args, ["perft", "chess", "startpos", "4"]);
    assert!(is_usage(&words("bench [VARIANT]")));
    assert!(!is_usage(&words("perft chess \"a|b\" 3")));
}

/// A usage line naming an option its command does not take fails, and so
/// does an example that no longer parses.
#[test]
fn broken_examples_fail() {
    assert!(check_usage(&words("selfplay VARIANT --games N [--no-such-option]")).is_err());
    assert!(check_usage(&words("selfplay VARIANT --games N [--seed S]")).is_ok());
    let dir = common::scratch_dir("docs", "broken");
    let bad = runnable(&words("selfplay VARIANT --games N"), 0).expect("runnable");
    assert!(
        run_in(&dir, &bad).is_err(),
        "selfplay without a limit should fail"
    );
    let good = runnable(&words("selfplay VARIANT --games N --nodes K"), 1).expect("runnable");
    assert_eq!(run_in(&dir, &good), Ok(()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The anchor GitHub gives a heading: lower case, punctuation dropped,
/// spaces made hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (fenced blocks left out).
fn anchors(text: &str) -> Vec<String> {
    let mut in_fence = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The targets of the inline links `[text](target)` of a Markdown text,
/// code spans and indented code left out.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with("    ")) {
        let mut in_code = false;
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'`' => in_code = !in_code,
                b']' if !in_code && bytes.get(i + 1) == Some(&b'(') => {
                    if let Some(end) = line[i + 2..].find(')') {
                        out.push(line[i + 2..i + 2 + end].to_string());
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// Every relative link of README.md, docs/*.md and nets/README.md names a
/// file that exists, and every `#anchor` a heading of its file.
#[test]
fn doc_links_resolve() {
    let mut files = doc_files();
    files.push("nets/README.md".into());
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(repo().join(file)).expect("read a doc");
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let linked = if path.is_empty() {
                PathBuf::from(file)
            } else {
                dir.join(path)
            };
            let full = repo().join(&linked);
            if !full.exists() {
                broken.push(format!("{file}: ({target}): no file {}", linked.display()));
                continue;
            }
            if let Some(anchor) = anchor {
                let linked_text = std::fs::read_to_string(&full).unwrap_or_default();
                if !anchors(&linked_text).iter().any(|a| a == anchor) {
                    broken.push(format!("{file}: ({target}): no heading #{anchor}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked > 20, "only {checked} links found");
}

#[test]
fn anchors_follow_github() {
    assert_eq!(
        slug(" The fourth-generation chess net (shipped from 730a0ab)"),
        "the-fourth-generation-chess-net-shipped-from-730a0ab"
    );
    assert_eq!(slug(" Against v0.1.0"), "against-v010");
    assert_eq!(slug(" `amalgam match`, SPRT"), "amalgam-match-sprt");
    assert_eq!(
        link_targets("a [b](c.md#d) `[e](f)` ![g](h.png)"),
        ["c.md#d", "h.png"]
    );
}
