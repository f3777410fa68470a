//! Match-runner jobs: `match --shard` with random words, `match --resume`
//! over damaged PGN files, and `pgn stats` over damaged files with random
//! option words. The engine plays itself at depth 1.

use super::*;

/// Time limit of a tiny match (two or four games at depth 1).
pub(crate) const MATCH_LIMIT: Duration = Duration::from_secs(90);

/// The words of a tiny match of the engine against itself.
pub(crate) fn match_args(games: usize) -> Vec<String> {
    let cmd = format!("cmd={BIN} --uci");
    [
        "match",
        "--engine",
        "name=A",
        &cmd,
        "proto=uci",
        "--engine",
        "name=B",
        &cmd,
        "proto=uci",
        "--depth",
        "1",
        "--seed",
        "7",
        "--games",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(std::iter::once(games.to_string()))
    .collect()
}

/// The replay line of a command.
fn replay_of(args: &[String]) -> String {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| {
            if a.contains(' ') || a.is_empty() {
                format!("'{a}'")
            } else {
                a.clone()
            }
        })
        .collect();
    format!("{BIN} {}", quoted.join(" "))
}

fn run_args(args: &[String], limit: Duration) -> Run {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run_once(&refs, limit)
}

/// The match PGN the resume and stats jobs damage (a finding if the match
/// itself fails).
pub(crate) fn match_games(ctx: &mut Ctx) {
    let path = ctx.work.join("match.pgn");
    let _ = std::fs::remove_file(&path);
    let mut args = match_args(4);
    args.extend(["--pgn".into(), path.display().to_string()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    ctx.setup_command(&refs, MATCH_LIMIT, "match 4 games");
    ctx.match_pgn = std::fs::read_to_string(&path).unwrap_or_default();
}

const SHARD_WORDS: [&str; 22] = [
    "1/1", "1/2", "2/2", "3/5", "0/1", "1/0", "0/0", "2/1", "-1/2", "1/-2", "1/", "/2", "/", "a/b",
    "1/2/3", "", " 1/2", "1 /2", "1/2 ", "½/2", "1\\2", "+1/+2",
];

fn shard_word(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 | 1 => rng.pick(&SHARD_WORDS).to_string(),
        2 => format!("{}/{}", rng.pick(&EXTREMES), rng.pick(&EXTREMES)),
        _ => {
            let n = rng.range(1, 40);
            format!("{}/{n}", rng.range(0, n + 2))
        }
    }
}

pub(crate) fn shard_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 8, index);
    let _permit = ctx.permits.take(1);
    let word = shard_word(&mut rng);
    let mut args = match_args(2);
    args.extend(["--shard".into(), word.clone()]);
    let r = run_args(&args, MATCH_LIMIT);
    let job = format!("shard {index}");
    let fail = |kind: &str, why: String| {
        ctx.report(
            &format!("shard-{kind}"),
            &job,
            format!("--shard '{word}': {why}"),
            format!("{}\n--- stderr\n{}", r.stdout, r.stderr).as_bytes(),
            "txt",
            &replay_of(&args),
        );
    };
    if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 2]) {
        return fail(kind, why);
    }
    if r.stderr.trim().is_empty() {
        match r.status.and_then(|s| s.code()) {
            Some(2) => fail("silent", "exit status 2 without a message".into()),
            // Played nothing, and said nothing.
            _ if r.stdout.lines().any(|l| l.starts_with("0 games in")) => {
                fail("silent", "an empty part without a message".into())
            }
            _ => {}
        }
    }
}

const STATS_KEYS: [&str; 7] = ["elo0", "elo1", "alpha", "beta", "gamma", "", "elo0=elo1"];
const STATS_VALUES: [&str; 14] = [
    "0", "5", "-5", "0.05", "1e-300", "-0", "nan", "inf", "-inf", "1", "0.5", "1e308", "", "x",
];

fn stats_option(rng: &mut Rng) -> Vec<String> {
    match rng.below(5) {
        0 | 1 => {
            let mut w = vec!["--sprt".to_string()];
            for _ in 0..rng.below(6) {
                let value = if rng.percent(80) {
                    rng.pick(&STATS_VALUES).to_string()
                } else {
                    rng.pick(&EXTREMES).to_string()
                };
                w.push(format!("{}={value}", rng.pick(&STATS_KEYS)));
            }
            w
        }
        2 => vec!["--separate".into()],
        3 => vec![
            rng.pick(&["--sprt", "--separate", "--", "-", "--x"])
                .to_string(),
        ],
        _ => vec![format!("{}", rng.pick(&STATS_VALUES))],
    }
}

pub(crate) fn stats_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 9, index);
    let _permit = ctx.permits.take(1);
    let mut args: Vec<String> = vec!["pgn".into(), "stats".into()];
    let mut words: Vec<Vec<String>> = Vec::new();
    let files = 1 + rng.below(3);
    let mut first = None;
    for f in 0..files {
        let path = ctx.work.join(format!("stats{index}-{f}.pgn"));
        let text = if rng.percent(75) || ctx.pgn_bases.is_empty() {
            &ctx.match_pgn
        } else {
            &ctx.pgn_bases[rng.below(ctx.pgn_bases.len())]
        };
        let bytes = if rng.percent(80) {
            mutate_pgn(&mut rng, text)
        } else {
            text.clone().into_bytes()
        };
        std::fs::write(&path, bytes).expect("write pgn");
        first.get_or_insert(path.clone());
        words.push(vec![path.display().to_string()]);
        if rng.percent(10) {
            // A file named twice.
            words.push(vec![path.display().to_string()]);
        }
    }
    for _ in 0..rng.below(4) {
        let k = rng.below(words.len() + 1);
        words.insert(k, stats_option(&mut rng));
    }
    args.extend(words.into_iter().flatten());
    let r = run_args(&args, FILE_LIMIT);
    if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 1, 2]) {
        let first = first.unwrap_or_else(|| ctx.work.clone());
        file_finding(
            ctx,
            &format!("stats-{kind}"),
            &format!("pgn stats {index}"),
            format!("amalgam pgn stats: {why}"),
            &first,
            &format!("{}  (first file saved: {{}})", replay_of(&args)),
        );
    }
}

/// Split a match PGN into its games (each from its first tag).
fn games_of(text: &str) -> Vec<String> {
    let mut games: Vec<String> = Vec::new();
    let mut in_moves = false;
    for line in text.lines() {
        if line.starts_with('[') && (in_moves || games.is_empty()) {
            games.push(String::new());
            in_moves = false;
        }
        if !line.starts_with('[') && !line.trim().is_empty() {
            in_moves = true;
        }
        if let Some(g) = games.last_mut() {
            g.push_str(line);
            g.push('\n');
        }
    }
    games
}

/// The tags by which `--resume` knows a game of the match (and others).
#[rustfmt::skip]
const MATCH_TAGS: [&str; 9] = [
    "Round", "GamePair", "White", "Black", "Variant", "FEN", "Result", "Event", "TimeControl",
];

fn damage_match_pgn(rng: &mut Rng, text: &str) -> Vec<u8> {
    let mut games = games_of(text);
    match rng.below(8) {
        // Truncated anywhere.
        0 | 1 => {
            let mut b = text.as_bytes().to_vec();
            b.truncate(rng.below(b.len() + 1));
            return b;
        }
        2 => {
            let mut b = text.as_bytes().to_vec();
            let times = 1 + rng.below(4);
            flip_bits(rng, &mut b, times, 7);
            return b;
        }
        3 if !games.is_empty() => {
            let k = rng.below(games.len());
            let g = games[k].clone();
            games.insert(rng.below(games.len() + 1), g);
        }
        4 if games.len() > 1 => {
            let (a, b) = (rng.below(games.len()), rng.below(games.len()));
            games.swap(a, b);
        }
        5 if !games.is_empty() => {
            games.remove(rng.below(games.len()));
        }
        6 if !games.is_empty() => {
            // A tag of the match changed.
            let k = rng.below(games.len());
            let tag = rng.pick(&MATCH_TAGS);
            let value = if rng.percent(50) {
                rng.pick(&EXTREMES).to_string()
            } else {
                rng.pick(&["A", "B", "1", "2", "3", "4", "*", "1-0", "chess", ""])
                    .to_string()
            };
            let lines: Vec<String> = games[k]
                .lines()
                .map(|l| {
                    if l.starts_with(&format!("[{tag} ")) {
                        format!("[{tag} \"{value}\"]")
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            games[k] = lines.join("\n") + "\n";
        }
        _ => return mutate_pgn(rng, text),
    }
    games.concat().into_bytes()
}

pub(crate) fn resume_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 10, index);
    let _permit = ctx.permits.take(1);
    let job = format!("resume {index}");
    let path = ctx.work.join(format!("resume{index}.pgn"));
    let damaged = damage_match_pgn(&mut rng, &ctx.match_pgn);
    std::fs::write(&path, &damaged).expect("write pgn");
    let input = ctx.work.join(format!("resume{index}-input.pgn"));
    std::fs::write(&input, &damaged).expect("write pgn");
    let mut args = match_args(4);
    args.extend([
        "--pgn".into(),
        path.display().to_string(),
        "--resume".into(),
    ]);
    let r = run_args(&args, MATCH_LIMIT);
    let replay = format!("cp {{}} {} && {}", path.display(), replay_of(&args));
    let fail = |kind: &str, why: String| {
        file_finding(ctx, &format!("resume-{kind}"), &job, why, &input, &replay);
    };
    if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 2]) {
        return fail(kind, format!("match --resume: {why}"));
    }
    if r.status.and_then(|s| s.code()) == Some(2) {
        if r.stderr.trim().is_empty() {
            return fail(
                "silent",
                "match --resume: status 2 without a message".into(),
            );
        }
        if std::fs::read(&path).unwrap_or_default() != damaged {
            return fail(
                "changed",
                format!(
                    "match --resume refused the file but changed it: {}",
                    r.stderr.trim()
                ),
            );
        }
        return;
    }
    let p = path.display().to_string();
    let check = run_once(&["pgn", "check", &p], FILE_LIMIT);
    if check.status.and_then(|s| s.code()) != Some(0) {
        let out: String = check.stdout.lines().take(6).collect::<Vec<_>>().join(" / ");
        fail(
            "broken",
            format!("after match --resume, pgn check refuses {p}: {out}"),
        );
    }
}
