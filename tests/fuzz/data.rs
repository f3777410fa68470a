//! Training-data jobs: small real files of both formats (made once a run
//! by `amalgam datagen`), damaged, through `amalgam data stats`, `data
//! convert` and a one-epoch `train`.

use super::*;

/// Real data files to damage: chess in text and binary, and a binary file
/// of another variant (its header goes before chess records).
#[derive(Default)]
pub(crate) struct DataBases {
    pub(crate) text: Vec<u8>,
    pub(crate) binary: Vec<u8>,
    pub(crate) foreign: Vec<u8>,
}

pub(crate) const DATAGEN_LIMIT: Duration = Duration::from_secs(120);
/// Time limit of `data stats`, `data convert` and `train`.
pub(crate) const DATA_LIMIT: Duration = Duration::from_secs(60);

/// Make the run's data files (a finding if `datagen` itself fails).
pub(crate) fn datagen_files(ctx: &mut Ctx) {
    let seed = (ctx.seed % 1_000_000).to_string();
    let mut made = Vec::new();
    for (variant, name) in [
        ("chess", "data.txt"),
        ("chess", "data.bin"),
        ("combination", "foreign.bin"),
    ] {
        let path = ctx.work.join(name);
        let _ = std::fs::remove_file(&path);
        let p = path.display().to_string();
        let args = [
            "datagen", variant, "--games", "2", "--nodes", "200", "--out", &p, "--seed", &seed,
        ];
        ctx.setup_command(&args, DATAGEN_LIMIT, &format!("datagen {variant} {name}"));
        made.push(std::fs::read(&path).unwrap_or_default());
    }
    let mut it = made.into_iter();
    ctx.data = DataBases {
        text: it.next().unwrap_or_default(),
        binary: it.next().unwrap_or_default(),
        foreign: it.next().unwrap_or_default(),
    };
}

/// Where a binary file's parts end: the header, then each record's type
/// and length, and its body (as far as the file's own lengths say).
fn binary_places(b: &[u8]) -> Vec<usize> {
    let u16_at = |k: usize| {
        b.get(k..k + 2)
            .map(|s| u16::from_le_bytes([s[0], s[1]]) as usize)
    };
    let u32_at = |k: usize| {
        b.get(k..k + 4)
            .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize)
    };
    let mut places = vec![0, 4, 8, 9, 10, 11, 12];
    let Some(name) = u16_at(10) else {
        return places;
    };
    let hash = 12 + name;
    places.extend([hash, hash + 4, hash + 8, hash + 10]);
    let Some(prov) = u32_at(hash + 8) else {
        return places;
    };
    let mut k = hash + 12 + prov;
    while k < b.len() {
        places.extend([k, k + 1, k + 3, k + 5, k + 6, k + 8]);
        let Some(len) = u32_at(k + 1) else { break };
        k = k.saturating_add(5).saturating_add(len);
        places.extend([k.saturating_sub(1), k.saturating_sub(2)]);
    }
    places.retain(|&p| p <= b.len());
    places
}

/// The header's length (up to the first record), if the lengths in it hold.
fn header_len(b: &[u8]) -> Option<usize> {
    let name = u16::from_le_bytes([*b.get(10)?, *b.get(11)?]) as usize;
    let at = 12 + name + 8;
    let prov = u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize;
    Some((at + 4 + prov).min(b.len()))
}

pub(crate) fn mutate_binary(rng: &mut Rng, bases: &DataBases) -> Vec<u8> {
    let mut b = bases.binary.clone();
    for _ in 0..1 + rng.below(2) {
        match rng.below(8) {
            // Truncated at a part's edge, or next to it.
            0..=2 => {
                let places = binary_places(&b);
                let p = *rng.pick(&places);
                let p = (p + rng.below(3)).saturating_sub(1).min(b.len());
                b.truncate(p);
            }
            3 | 4 => {
                let times = 1 + rng.below(6);
                flip_bits(rng, &mut b, times, 8);
            }
            // A length or count replaced by an extreme.
            5 => {
                let places = binary_places(&b);
                let k = *rng.pick(&places);
                let v: u32 = *rng.pick(&[0, 1, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF]);
                for (i, byte) in v.to_le_bytes().iter().enumerate() {
                    if let Some(x) = b.get_mut(k + i) {
                        *x = *byte;
                    }
                }
            }
            // Another variant's header before these records.
            6 => {
                if let (Some(h), Some(f)) = (header_len(&b), header_len(&bases.foreign)) {
                    let mut out = bases.foreign[..f].to_vec();
                    out.extend_from_slice(&b[h..]);
                    b = out;
                }
            }
            // Records appended twice, or the foreign file's records after ours.
            _ => {
                let src = if rng.percent(50) { &bases.foreign } else { &b };
                if let Some(h) = header_len(src) {
                    let tail = src[h..].to_vec();
                    b.extend_from_slice(&tail);
                }
            }
        }
    }
    b
}

const DATA_JUNK: [&str; 12] = [
    "|", "||", "1.0", "0.5", "0", "2", "-1", "nan", "inf", "1e-300", "x", "-0",
];

pub(crate) fn mutate_text_data(rng: &mut Rng, text: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(5) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len());
        let mut parts: Vec<String> = lines[i].split('|').map(|s| s.trim().to_string()).collect();
        let k = rng.below(parts.len());
        match rng.below(8) {
            0 => parts[0] = mutate_fen(rng, &parts[0]),
            1 | 2 => parts[k] = rng.pick(&EXTREMES).to_string(),
            3 => parts[k] = rng.pick(&DATA_JUNK).to_string(),
            4 => {
                parts.remove(k);
            }
            5 => {
                cut_lines(rng, &mut lines, i);
                continue;
            }
            6 => {
                let l = lines[rng.below(lines.len())].clone();
                lines.insert(i, l);
                continue;
            }
            _ => {
                lines[i] = String::from_utf8_lossy(&mutate_line(rng, lines[i].as_bytes())).into();
                continue;
            }
        }
        lines[i] = parts.join(" | ");
    }
    let mut out = lines.join("\n").into_bytes();
    if rng.percent(50) {
        out.push(b'\n');
    }
    if rng.percent(10) {
        bad_utf8(rng, &out)
    } else {
        out
    }
}

pub(crate) fn data_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 7, index);
    let _permit = ctx.permits.take(1);
    let job = format!("data file {index}");
    let binary = rng.percent(60);
    let (bytes, ext) = if binary {
        (mutate_binary(&mut rng, &ctx.data), "bin")
    } else {
        (mutate_text_data(&mut rng, &ctx.data.text), "txt")
    };
    let path = ctx.work.join(format!("data{index}.{ext}"));
    std::fs::write(&path, bytes).expect("write data");
    let p = path.display().to_string();
    let out_ext = if rng.percent(50) { "bin" } else { "txt" };
    let out = ctx.work.join(format!("data{index}-out.{out_ext}"));
    let _ = std::fs::remove_file(&out);
    let o = out.display().to_string();
    let net = ctx
        .work
        .join(format!("data{index}.nnue"))
        .display()
        .to_string();
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["data", "stats", &p],
        vec!["data", "convert", &p, "--out", &o],
    ];
    if rng.percent(40) {
        commands.push(vec![
            "train", "chess", &p, "--out", &net, "--epochs", "1", "--hidden", "8",
        ]);
    }
    for args in commands {
        let shown: Vec<&str> = args
            .iter()
            .map(|a| if *a == p { "{}" } else { a })
            .collect();
        let replay = format!("{BIN} {}", shown.join(" "));
        let names = (args[0], job.as_str());
        let Some(r) = file_command(ctx, &args, &[0, 1, 2], names, &path, &replay, DATA_LIMIT)
        else {
            return;
        };
        // A failure says why: on standard error, or (`data stats`) as an
        // error in its report.
        let failed = r.status.and_then(|s| s.code()) != Some(0);
        if failed && r.stderr.trim().is_empty() && !r.stdout.contains("error") {
            let what = format!("amalgam {} {}: failed without a message", args[0], args[1]);
            let kind = format!("{}-silent", args[0]);
            return file_finding(ctx, &kind, &job, what, &path, &replay);
        }
    }
}
