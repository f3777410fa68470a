//! File jobs: variant files through `amalgam check` and PGN files through `amalgam pgn check`.

use super::*;

pub(crate) fn file_finding(
    ctx: &Ctx,
    kind: &str,
    job: &str,
    detail: String,
    file: &Path,
    replay: &str,
) {
    let bytes = std::fs::read(file).unwrap_or_default();
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("txt");
    ctx.report(kind, job, detail, &bytes, ext, replay);
}

/// Run a command over a file; a finding (`KIND-...`, with `file` kept) if
/// it ends in a way `bad_status` names. `None` when it was a finding.
pub(crate) fn file_command(
    ctx: &Ctx,
    args: &[&str],
    allowed: &[i32],
    (kind, job): (&str, &str),
    file: &Path,
    replay: &str,
    limit: Duration,
) -> Option<Run> {
    let r = run_once(args, limit);
    match bad_status(r.status, &r.stderr, allowed) {
        Some((k, why)) => {
            let what = format!("amalgam {}: {why}", args[..2.min(args.len())].join(" "));
            file_finding(ctx, &format!("{kind}-{k}"), job, what, file, replay);
            None
        }
        None => Some(r),
    }
}

pub(crate) fn ini_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 3, index);
    let _permit = ctx.permits.take(1);
    let job = format!("ini file {index}");
    let path = ctx.work.join(format!("ini{index}.ini"));
    std::fs::write(&path, gen_ini(&mut rng, ctx, index)).expect("write ini");
    let p = path.display().to_string();
    let r = run_once(&["check", &p], FILE_LIMIT);
    if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 1]) {
        let replay = format!("{BIN} check {{}}");
        return file_finding(
            ctx,
            &format!("check-{kind}"),
            &job,
            format!("amalgam check: {why}"),
            &path,
            &replay,
        );
    }
    if r.status.and_then(|s| s.code()) != Some(0) {
        return;
    }
    let names: Vec<String> = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("ok: "))
        .and_then(|l| l.split_once(": "))
        .map(|(_, n)| n.split(", ").map(str::to_string).collect())
        .unwrap_or_default();
    for name in names.iter().take(6) {
        let r = run_once(
            &["--variants", &p, "perft", name, "startpos", "2"],
            FILE_LIMIT,
        );
        if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 2]) {
            let replay = format!("{BIN} --variants {{}} perft {name} startpos 2");
            return file_finding(
                ctx,
                &format!("perft-{kind}"),
                &job,
                format!("perft {name} startpos 2: {why}"),
                &path,
                &replay,
            );
        }
    }
}

#[rustfmt::skip]
pub(crate) const PGN_JUNK: [&str; 20] = [
    "{", "}", "(", ")", "$1", "1-0", "*", ";comment", "%escape", "[Tag", "e9", "O-O-O-O",
    "Qxx9", "1.", "....", "\u{0}", "[FEN \"\"]", "[Variant \"zoo\"]", "=Q", "1/2-1/2",
];

pub(crate) fn mutate_pgn(rng: &mut Rng, text: &str) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(6) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        match rng.below(10) {
            0 => {
                let mut b = lines[i].clone().into_bytes();
                if !b.is_empty() {
                    let k = rng.below(b.len());
                    b[k] ^= 1 << rng.below(7);
                }
                lines[i] = String::from_utf8_lossy(&b).into_owned();
            }
            1..=3 => {
                // Move tokens of a move-text line.
                if lines[i].starts_with('[') {
                    continue;
                }
                let mut t: Vec<String> = lines[i].split(' ').map(str::to_string).collect();
                let k = rng.below(t.len());
                match rng.below(3) {
                    0 => {
                        t.remove(k);
                    }
                    1 => {
                        let x = t[k].clone();
                        t.insert(k, x);
                    }
                    _ => {
                        let j = rng.below(t.len());
                        t.swap(k, j);
                    }
                }
                lines[i] = t.join(" ");
            }
            4 | 5 => {
                // A damaged tag.
                let tags: Vec<usize> = (0..lines.len())
                    .filter(|&k| lines[k].starts_with('['))
                    .collect();
                if tags.is_empty() {
                    continue;
                }
                let k = *rng.pick(&tags);
                let l = lines[k].clone();
                lines[k] = if let Some(fen) = l
                    .strip_prefix("[FEN \"")
                    .and_then(|r| r.strip_suffix("\"]"))
                {
                    format!("[FEN \"{}\"]", mutate_fen(rng, fen))
                } else if l.starts_with("[Variant") {
                    let v = rng.pick(&[
                        "chess",
                        "combination",
                        "team-mate",
                        "compound",
                        "zoo",
                        "",
                        "x\"y",
                    ]);
                    format!("[Variant \"{v}\"]")
                } else {
                    match rng.below(4) {
                        0 => l.replace('"', ""),
                        1 => l.trim_end_matches(']').to_string(),
                        2 => l.replace('[', ""),
                        _ => format!(
                            "{} \"{}\"]",
                            l.split(' ').next().unwrap_or("["),
                            rng.pick(&EXTREMES)
                        ),
                    }
                };
            }
            6 => cut_lines(rng, &mut lines, i),
            7 | 8 => {
                let junk = rng.pick(&PGN_JUNK).to_string();
                let mut t: Vec<String> = lines[i].split(' ').map(str::to_string).collect();
                let k = rng.below(t.len() + 1);
                t.insert(k, junk);
                lines[i] = t.join(" ");
            }
            _ => {
                let j = rng.below(lines.len());
                let l = lines[j].clone();
                lines.insert(i, l);
            }
        }
    }
    let mut out = lines.join("\n").into_bytes();
    if rng.percent(10) {
        out = bad_utf8(rng, &out);
    }
    out
}

pub(crate) fn pgn_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 4, index);
    let _permit = ctx.permits.take(1);
    let mut text = ctx.pgn_bases[rng.below(ctx.pgn_bases.len())].clone();
    if rng.percent(30) {
        text.push('\n');
        text.push_str(&ctx.pgn_bases[rng.below(ctx.pgn_bases.len())]);
    }
    let path = ctx.work.join(format!("pgn{index}.pgn"));
    std::fs::write(&path, mutate_pgn(&mut rng, &text)).expect("write pgn");
    let p = path.display().to_string();
    let r = run_once(&["pgn", "check", &p], FILE_LIMIT);
    if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0, 1, 2]) {
        let replay = format!("{BIN} pgn check {{}}");
        file_finding(
            ctx,
            &format!("pgn-{kind}"),
            &format!("PGN file {index}"),
            format!("amalgam pgn check: {why}"),
            &path,
            &replay,
        );
    }
}
