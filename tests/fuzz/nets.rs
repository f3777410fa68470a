//! Net-file jobs: damaged `.nnue` files (and a folder, a FIFO, `/dev/zero`)
//! named by a variant file's `nnue =` key, through `amalgam check` and a
//! UCI session that loads the file by `VariantPath` and searches.

use super::*;

/// The embedded nets, as the files in `nets/`.
pub(crate) fn net_bases() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("nets");
    VARIANTS
        .iter()
        .filter_map(|v| std::fs::read(dir.join(format!("{v}.nnue"))).ok())
        .collect()
}

/// Values that break a header's sizes and counts.
const SIZES: [u32; 9] = [
    0,
    1,
    7,
    255,
    65_535,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFFF,
    0x0010_0000,
];

/// Where the header's 32-bit fields start: version, inputs, hidden, qa,
/// qb, scale, provenance length (and the layout hash's two halves).
const FIELDS: [usize; 9] = [4, 8, 12, 16, 20, 25, 29, 33, 37];
/// The activation's byte.
const ACTIVATION: usize = 24;

/// FNV-1a, 64 bits: the net file's checksum (of all bytes before it).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The file with its last 8 bytes made the checksum of the rest, so that
/// the damage is met by the checks after the checksum's.
fn resealed(mut b: Vec<u8>) -> Vec<u8> {
    if b.len() >= 8 {
        b.truncate(b.len() - 8);
        let sum = fnv1a(&b);
        b.extend_from_slice(&sum.to_le_bytes());
    }
    b
}

/// A damaged copy of one of the nets.
pub(crate) fn mutate_net(rng: &mut Rng, bases: &[Vec<u8>]) -> Vec<u8> {
    let mut b = rng.pick(bases).clone();
    for _ in 0..1 + rng.below(3) {
        let len = b.len();
        match rng.below(9) {
            // Flipped bits anywhere.
            0 | 1 => {
                let times = 1 + rng.below(8);
                flip_bits(rng, &mut b, times, 8);
            }
            // Flipped bits in the header, or an activation code.
            2 => {
                if rng.percent(30) && len > ACTIVATION {
                    b[ACTIVATION] = rng.next() as u8;
                } else {
                    let head = b.len().min(96);
                    flip_bits(rng, &mut b[..head], 1, 8);
                }
            }
            // A header field (a size, a count) replaced.
            3 | 4 => {
                let k = *rng.pick(&FIELDS);
                let v = if rng.percent(70) {
                    *rng.pick(&SIZES)
                } else {
                    rng.next() as u32
                };
                if k + 4 <= len {
                    b[k..k + 4].copy_from_slice(&v.to_le_bytes());
                }
            }
            // Truncated: in the header, or anywhere.
            5 | 6 => {
                let keep = if rng.percent(40) {
                    rng.below(len.min(96) + 1)
                } else {
                    rng.below(len + 1)
                };
                b.truncate(keep);
            }
            // Junk after the end.
            7 => {
                for _ in 0..rng.below(5000) {
                    b.push(rng.next() as u8);
                }
            }
            // One net's header before another's body.
            _ => {
                let other = rng.pick(bases);
                let cut = rng.below(len.min(other.len()).min(256) + 1);
                b.truncate(cut);
                b.extend_from_slice(&other[cut..]);
            }
        }
    }
    if rng.percent(60) {
        b = resealed(b);
    }
    if rng.percent(3) {
        // Junk alone.
        b = (0..rng.below(2000)).map(|_| rng.next() as u8).collect();
    }
    b
}

/// The net a job names: a damaged file beside the ini, or a path that is no
/// regular file. Returns the `nnue =` value.
fn net_file(rng: &mut Rng, ctx: &Ctx, dir: &Path) -> String {
    match rng.below(20) {
        0 => {
            let sub = dir.join("folder.nnue");
            let _ = std::fs::create_dir_all(&sub);
            "folder.nnue".into()
        }
        1 => {
            let fifo = dir.join("fifo.nnue");
            let _ = std::fs::remove_file(&fifo);
            let made = Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success());
            if made {
                "fifo.nnue".into()
            } else {
                "/dev/zero".into()
            }
        }
        2 => "/dev/zero".into(),
        3 => {
            std::fs::write(dir.join("empty.nnue"), b"").expect("write net");
            "empty.nnue".into()
        }
        _ => {
            std::fs::write(dir.join("net.nnue"), mutate_net(rng, &ctx.net_bases))
                .expect("write net");
            "net.nnue".into()
        }
    }
}

pub(crate) fn net_job(ctx: &Ctx, index: usize) {
    let mut rng = Rng::for_job(ctx.seed, 6, index);
    let _permit = ctx.permits.take(1);
    let job = format!("net file {index}");
    let dir = ctx.work.join(format!("net{index}"));
    std::fs::create_dir_all(&dir).expect("net dir");
    let net = net_file(&mut rng, ctx, &dir);
    let parent = *rng.pick(&["chess", "chess", "combination", "compound", "team-mate"]);
    let ini = dir.join("variants.ini");
    std::fs::write(&ini, format!("[fuzznet:{parent}]\nnnue = {net}\n")).expect("write ini");
    let p = ini.display().to_string();
    // The damaged net is the input to keep; the ini names it.
    let input = if net == "net.nnue" {
        dir.join("net.nnue")
    } else {
        ini.clone()
    };
    let replay = format!("{BIN} check {p}  (net: {{}}, named '{net}' by the ini)");
    let names = ("net-check", job.as_str());
    if file_command(
        ctx,
        &["check", &p],
        &[0, 1],
        names,
        &input,
        &replay,
        FILE_LIMIT,
    )
    .is_none()
    {
        return;
    }
    let (job, key) = (format!("{job} over UCI"), format!("net:{index}"));
    let mut st = Stream::start(ctx, job, key, &["--uci"]);
    st.s.say("uci");
    st.s.say(&format!("setoption name VariantPath value {p}"));
    st.s.say("setoption name UCI_Variant value fuzznet");
    st.s.say("isready");
    let context = format!("with nnue = {net}");
    st.await_line(ANSWER, "readyok", &context, |l| l == "readyok");
    if !st.failed {
        st.s.say("position startpos");
        st.s.say(&format!("go depth {}", rng.range(1, 3)));
        st.await_line(MOVE, "bestmove", &context, |l| l.starts_with("bestmove"));
    }
    if !st.failed {
        st.quit();
    }
    if !st.failed {
        st.check_stderr();
    }
    st.keep(&format!("net{index}"));
}
