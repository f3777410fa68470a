//! What UCI and XBoard streams share: the probe, the final search and the judging of a session.

use super::*;

/// One session under test.
pub(crate) struct Stream<'a> {
    pub(crate) ctx: &'a Ctx,
    pub(crate) job: String,
    /// The job for `AMALGAM_FUZZ_ONLY`.
    pub(crate) key: String,
    pub(crate) xboard: bool,
    pub(crate) s: Session,
    /// A finding ended the stream.
    pub(crate) failed: bool,
}

impl<'a> Stream<'a> {
    /// A session of the binary started with `args`.
    pub(crate) fn start(ctx: &'a Ctx, job: String, key: String, args: &[&str]) -> Stream<'a> {
        Stream {
            ctx,
            job,
            key,
            xboard: !args.contains(&"--uci"),
            s: Session::start(args),
            failed: false,
        }
    }

    pub(crate) fn fail(&mut self, kind: &str, detail: String) {
        self.failed = true;
        let proto = if self.xboard { "xboard" } else { "uci" };
        let args = if self.xboard { "" } else { " --uci" };
        let replay = format!(
            "{BIN}{args} < {{}}  (with the harness's timing: AMALGAM_FUZZ_SEED={} \
             AMALGAM_FUZZ_ONLY={} cargo test --profile checked --test fuzz -- --ignored --nocapture)",
            self.ctx.seed, self.key
        );
        // A session that hangs may hang in the file it was told to load.
        let detail = match &self.s.variant_path {
            Some((n, l)) if kind.starts_with("no-") => {
                format!("{detail} [last VariantPath line: {n}: {l}]")
            }
            _ => detail,
        };
        let path = self.ctx.report(
            &format!("{proto}-{kind}"),
            &self.job,
            detail,
            &self.s.sent,
            "in",
            &replay,
        );
        // The engine's output beside it.
        while let Ok(Out::Line(l)) = self.s.out.recv_timeout(Duration::from_millis(100)) {
            self.s.received.push(l);
        }
        let _ = std::fs::write(path.with_extension("out"), self.s.received.join("\n"));
    }

    /// The engine closed its output before `quit`.
    pub(crate) fn died(&mut self, waiting_for: &str) {
        let status = self.s.exit_within(Duration::from_secs(2));
        let stderr = self.s.stderr_text();
        let (kind, why) = match bad_status(status, &stderr, &[]) {
            Some(("timeout", _)) => (
                "exited-early",
                "closed its output but did not exit".to_string(),
            ),
            Some((k, w)) => (k, w),
            None => ("exited-early", "exit status 0".to_string()),
        };
        let kind = if kind == "status" {
            "exited-early"
        } else {
            kind
        };
        let utf8 = if self.s.bad_utf8.is_empty() {
            String::new()
        } else {
            format!(" [invalid UTF-8 on line(s) {:?}]", self.s.bad_utf8)
        };
        self.fail(
            kind,
            format!(
                "the session ended before 'quit' (after line {}, waiting for \
                 {waiting_for}): {why}{utf8}",
                self.s.lines
            ),
        );
    }

    /// Standard error after the session: a panic there is a finding even
    /// when the session survived it (a search thread's panic).
    pub(crate) fn check_stderr(&mut self) {
        if let Some(p) = panic_line(&self.s.stderr_text()) {
            self.fail("panic", format!("panic on standard error: {p}"));
        }
    }

    /// With `AMALGAM_FUZZ_KEEP` set, every stream is kept in the work
    /// directory (findings are always kept), with the engine's output.
    pub(crate) fn keep(&mut self, job: &str) {
        if std::env::var_os("AMALGAM_FUZZ_KEEP").is_some() {
            while let Ok(Out::Line(l)) = self.s.out.recv_timeout(Duration::from_millis(100)) {
                self.s.received.push(l);
            }
            let _ = std::fs::write(self.ctx.work.join(format!("{job}.in")), &self.s.sent);
            let out = self.s.received.join("\n");
            let _ = std::fs::write(self.ctx.work.join(format!("{job}.out")), out);
        }
    }

    /// Wait for the line `done` accepts: a finding (`no-WHAT`, or the
    /// session's end) if it does not come within `timeout`; `context` says
    /// what came before it.
    pub(crate) fn await_line(
        &mut self,
        timeout: Duration,
        what: &str,
        context: &str,
        done: impl Fn(&str) -> bool,
    ) {
        match self.s.expect(timeout, done) {
            Ok(_) => {}
            Err(Waited::Closed) => self.died(what),
            Err(Waited::Timeout(lines)) => self.fail(
                &format!("no-{what}"),
                format!(
                    "no {what} within {timeout:?} {context}; last output {}",
                    last_lines(&lines)
                ),
            ),
        }
    }

    /// `quit`: the process must exit with status 0 within 5 s.
    pub(crate) fn quit(&mut self) {
        self.s.say("quit");
        let status = self.s.exit_within(EXIT);
        let stderr = self.s.stderr_text();
        match bad_status(status, &stderr, &[0]) {
            Some(("timeout", _)) => {
                self.fail("no-exit", format!("still running {EXIT:?} after 'quit'"))
            }
            Some((k, w)) => self.fail(k, format!("after 'quit': {w}")),
            None => {}
        }
    }
}

pub(crate) fn last_lines(lines: &[String]) -> String {
    let start = lines.len().saturating_sub(4);
    let tail: Vec<String> = lines[start..]
        .iter()
        .map(|l| l.chars().take(160).collect())
        .collect();
    format!("{tail:?}")
}
