//! The run's configuration, the state its jobs share (core permits, findings, the work directory) and how findings are kept.

use super::*;

#[derive(Clone)]
pub(crate) struct Config {
    pub(crate) name: &'static str,
    pub(crate) seed: u64,
    pub(crate) streams: usize,
    pub(crate) ini_files: usize,
    pub(crate) pgn_files: usize,
    /// Net files, data files and `pgn stats` runs, each.
    pub(crate) tool_files: usize,
    /// `match --shard` and `match --resume` runs, each.
    pub(crate) matches: usize,
    /// Only this job (`uci:N`, `xboard:N`, `ini:N`, `pgn:N`, `net:N`,
    /// `data:N`, `shard:N`, `stats:N`, `resume:N`).
    pub(crate) only: Option<String>,
}

pub(crate) struct Finding {
    pub(crate) kind: String,
    pub(crate) seed: u64,
    pub(crate) job: String,
    pub(crate) detail: String,
    pub(crate) input: PathBuf,
    pub(crate) replay: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "FINDING [{}] seed {}, {}: {}\n  input:  {}\n  replay: {}",
            self.kind,
            self.seed,
            self.job,
            self.detail,
            self.input.display(),
            self.replay
        )
    }
}

#[derive(Default)]
pub(crate) struct Summary {
    pub(crate) uci_streams: usize,
    pub(crate) xboard_streams: usize,
    pub(crate) lines: usize,
    pub(crate) ini_files: usize,
    pub(crate) pgn_files: usize,
    /// Jobs of the other kinds: kind and count.
    pub(crate) tools: Vec<(&'static str, usize)>,
    pub(crate) judged: usize,
    pub(crate) unjudged: usize,
    pub(crate) findings: Vec<String>,
}

/// Counting semaphore over the two cores: a job takes one permit per engine
/// search thread it may run.
pub(crate) struct Permits {
    pub(crate) state: Mutex<(usize, bool)>,
    pub(crate) freed: Condvar,
}

pub(crate) struct Permit<'a>(pub(crate) &'a Permits, pub(crate) usize);

impl Permits {
    pub(crate) fn new() -> Permits {
        Permits {
            state: Mutex::new((2, false)),
            freed: Condvar::new(),
        }
    }

    pub(crate) fn take(&self, n: usize) -> Permit<'_> {
        let mut s = lock(&self.state);
        loop {
            // A waiting request for both permits goes before new single ones.
            if s.0 >= n && (n == 2 || !s.1) {
                s.0 -= n;
                if n == 2 {
                    s.1 = false;
                }
                return Permit(self, n);
            }
            if n == 2 {
                s.1 = true;
            }
            s = self.freed.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        lock(&self.0.state).0 += self.1;
        self.0.freed.notify_all();
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) struct Ctx {
    pub(crate) seed: u64,
    pub(crate) work: PathBuf,
    pub(crate) findings_dir: PathBuf,
    /// A copy of the built-in `variants.ini` (loaded to undo user files).
    pub(crate) pristine_ini: PathBuf,
    pub(crate) user_ini: PathBuf,
    pub(crate) user_ini_text: Vec<u8>,
    /// 3 MB of ini-like junk.
    pub(crate) junk_ini: PathBuf,
    pub(crate) pgn_bases: Vec<String>,
    /// The embedded nets (the files in `nets/`).
    pub(crate) net_bases: Vec<Vec<u8>>,
    /// Real training data files of both formats.
    pub(crate) data: DataBases,
    /// A tiny match's PGN (four games at depth 1).
    pub(crate) match_pgn: String,
    pub(crate) builtin: VariantSet,
    /// The four variants, with and without their pair promotion.
    pub(crate) variants: Vec<Arc<Variant>>,
    pub(crate) no_pair: Vec<Arc<Variant>>,
    pub(crate) permits: Permits,
    pub(crate) findings: Mutex<Vec<Finding>>,
    pub(crate) lines: AtomicUsize,
    /// Final moves judged, and those not judged (the variant was not the
    /// library's).
    pub(crate) judged: AtomicUsize,
    pub(crate) unjudged: AtomicUsize,
}

impl Ctx {
    pub(crate) fn count_judged(&self, judged: bool) {
        let c = if judged { &self.judged } else { &self.unjudged };
        c.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn variant(&self, i: usize, pair: bool) -> Arc<Variant> {
        if pair {
            self.variants[i].clone()
        } else {
            self.no_pair[i].clone()
        }
    }

    /// Run a command that makes the run's material (a finding if it fails:
    /// its output is kept).
    pub(crate) fn setup_command(&self, args: &[&str], limit: Duration, job: &str) {
        let r = run_once(args, limit);
        if let Some((kind, why)) = bad_status(r.status, &r.stderr, &[0]) {
            let tail: Vec<&str> = r.stdout.lines().rev().take(3).collect();
            let output = format!("{}\n--- stderr\n{}", r.stdout, r.stderr);
            let first = args.first().copied().unwrap_or("");
            self.report(
                &format!("{first}-{kind}"),
                job,
                format!("{why}; output: {}", tail.join(" / ")),
                output.as_bytes(),
                "txt",
                &format!("{BIN} {}", args.join(" ")),
            );
        }
    }

    /// Record a finding: the input goes to the findings directory, and its
    /// path is returned.
    pub(crate) fn report(
        &self,
        kind: &str,
        job: &str,
        detail: String,
        input: &[u8],
        ext: &str,
        replay: &str,
    ) -> PathBuf {
        let name = format!(
            "seed{}-{}-{}.{ext}",
            self.seed,
            job.replace(' ', "").to_lowercase(),
            kind
        );
        let path = self.findings_dir.join(name);
        let _ = std::fs::create_dir_all(&self.findings_dir);
        if let Err(e) = std::fs::write(&path, input) {
            eprintln!("cannot write {}: {e}", path.display());
        }
        let f = Finding {
            kind: kind.to_string(),
            seed: self.seed,
            job: job.to_string(),
            detail,
            replay: replay.replace("{}", &path.display().to_string()),
            input: path,
        };
        eprintln!(
            "finding [{}] seed {}, {}: {}",
            f.kind,
            f.seed,
            f.job,
            f.input.display()
        );
        let path = f.input.clone();
        lock(&self.findings).push(f);
        path
    }
}

pub(crate) fn target_dir() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().unwrap_or(tmp).to_path_buf()
}
