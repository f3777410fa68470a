//! The XBoard commands, handled by group: the session (handshake, `ping`,
//! `?`, `.`, pondering, hints, draw offers), the clock (in [`super::clock`]),
//! the settings searches use (`memory`, `cores`, `option` and the feature
//! list of options), the game (`new`, `variant`, `setboard`, `go`, `force`,
//! take-backs, analysis) and the moves (the opponent's, and a person's move
//! entry). Each group answers None for a command that is not its own.

use super::search::{self, JobKind};
use super::{Xboard, say};
use crate::engine::{Allowed, Engine, EngineError};
use crate::protocol::CommandError;
use std::sync::atomic::Ordering;

/// The answer of one group of commands to a line: None when the command is
/// not of the group, else whether it was taken.
type Handled = Option<Result<(), CommandError>>;

/// The option that tells the engine its GUI has the `split` command.
const SPLIT_OPTION: &str = "SplitCommand";

/// The option's label in the feature list, which is all a GUI shows of it
/// (and the name it sends back): XBoard 4.9.1, which ignores `split`,
/// forfeits games with the option on. XBoard takes a label up to the
/// option's type, and `-firstOptions` cuts its list at commas: no `"`, `,`,
/// `=` or ` -` in it.
const SPLIT_LABEL: &str = "SplitCommand (XBoard v4.9.x (2025-11-28) or later only)";

/// Draw offers are accepted when the last search saw us this far behind.
const ACCEPT_DRAW_BELOW_CP: i32 = -150;

/// The value of a check option: `1` or `0`.
fn check(name: &str, value: &str) -> Result<bool, EngineError> {
    match value {
        "1" => Ok(true),
        "0" => Ok(false),
        _ => Err(EngineError::BadOption {
            name: name.to_string(),
            value: value.to_string(),
            allowed: Allowed::ZeroOrOne,
        }),
    }
}

/// The engine's strength setting (`UCI_LimitStrength`, `UCI_Elo` and the
/// Elo's range), copied for the feature list, which `protover` may ask for
/// while a search holds the engine.
#[derive(Clone, Copy, Debug)]
pub(super) struct StrengthCopy {
    on: bool,
    elo: u32,
    range: (u32, u32),
}

impl StrengthCopy {
    pub(super) fn of(e: &Engine) -> StrengthCopy {
        StrengthCopy {
            on: e.limit_strength(),
            elo: e.elo(),
            range: e.elo_range(),
        }
    }
}

impl Xboard {
    /// Handle one line; false on `quit`.
    pub(super) fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&cmd) = words.first() else {
            return true;
        };
        if cmd == "quit" {
            return false;
        }
        let args = &words[1..];
        // What follows the command's name, for the commands that take the
        // rest of the line whole (`option`, `setboard`).
        let rest = line.trim_start()[cmd.len()..].trim();
        // A move entry lasts only while the GUI reports it.
        if !matches!(cmd, "lift" | "put" | "hover" | "ping") {
            self.entry.reset();
        }
        let result = self
            .session_command(cmd, args)
            .or_else(|| self.clock.command(cmd, args))
            .or_else(|| self.settings_command(cmd, args, rest))
            .or_else(|| self.game_command(cmd, args, rest))
            .or_else(|| self.move_command(cmd, args))
            .unwrap_or_else(|| Err("unknown command".into()));
        if let Err(reason) = result {
            say(&format!("Error ({reason}): {line}"));
        }
        true
    }

    /// The handshake and what the GUI asks or tells outside the game:
    /// `protover`, `ping`, `?`, `.`, `post`, `hard`, `hint`, `draw`, and the
    /// commands taken without effect. None for any other command.
    fn session_command(&mut self, cmd: &str, args: &[&str]) -> Handled {
        match cmd {
            "xboard" | "accepted" | "rejected" | "computer" | "random" | "name" | "ics"
            | "white" | "black" | "bk" | "nps" | "otherboard" => {}
            "protover" => self.features(),
            "ping" => say(&format!("pong {}", args.first().unwrap_or(&""))),
            "?" => {
                if let Some(job) = &self.job {
                    job.move_now(&self.shared);
                }
            }
            "." => {
                if self.analyzing {
                    say(&self.shared.status_line());
                }
            }
            "post" | "nopost" => self.shared.post.store(cmd == "post", Ordering::Relaxed),
            "hard" => self.shared.ponder.store(true, Ordering::Relaxed),
            "easy" => {
                self.shared.ponder.store(false, Ordering::Relaxed);
                if self.job.as_ref().is_some_and(|j| j.is_pondering()) {
                    self.finish();
                }
            }
            "hint" => {
                if let Some(h) = search::lock(&self.shared.hint).clone() {
                    say(&format!("Hint: {h}"));
                }
            }
            "draw" => {
                if self.shared.last_score.load(Ordering::Relaxed) < ACCEPT_DRAW_BELOW_CP {
                    say("offer draw");
                }
            }
            _ => return None,
        }
        Some(Ok(()))
    }

    /// What searches use: `memory`, `cores` and `option` (`rest`: the
    /// option's `NAME=VALUE`). None for any other command.
    fn settings_command(&mut self, cmd: &str, args: &[&str], rest: &str) -> Handled {
        Some(match cmd {
            "memory" | "cores" => match args.first().and_then(|s| s.parse::<usize>().ok()) {
                Some(n) => {
                    self.finish();
                    let mut e = self.engine();
                    if cmd == "memory" {
                        e.set_hash_mb(n).map_err(CommandError::from)
                    } else {
                        e.set_threads(n);
                        Ok(())
                    }
                }
                None => Err(format!("{cmd} needs a number").into()),
            },
            "option" => {
                self.finish();
                let r = self.option(rest);
                self.mirror();
                r
            }
            _ => return None,
        })
    }

    /// The game and who plays it: `new`, `variant`, `setboard` (`rest`: the
    /// FEN), `force`, `result`, `go`, `playother`, `undo`, `remove`,
    /// `analyze` and `exit`. None for any other command.
    fn game_command(&mut self, cmd: &str, args: &[&str], rest: &str) -> Handled {
        Some(match cmd {
            "new" => {
                self.abort();
                self.new_game()
            }
            // Bad input is refused before a running search is disturbed.
            "variant" => self.variant(args),
            "setboard" => self.setboard(rest),
            "force" | "result" => {
                self.abort();
                self.side = None;
                Ok(())
            }
            "go" | "playother" => {
                self.abort();
                let stm = self.engine().position().side_to_move();
                if cmd == "go" {
                    self.side = Some(stm);
                    self.analyzing = false;
                    self.think();
                } else {
                    self.side = Some(stm.flip());
                }
                Ok(())
            }
            "undo" | "remove" => {
                self.abort();
                self.take_back(if cmd == "undo" { 1 } else { 2 })
            }
            "analyze" => {
                self.abort();
                self.analyzing = true;
                self.side = None;
                self.start(JobKind::Analyze);
                Ok(())
            }
            "exit" => {
                self.abort();
                self.analyzing = false;
                Ok(())
            }
            _ => return None,
        })
    }

    /// The opponent's moves (`usermove`, or a bare move for GUIs without
    /// `usermove`) and a person's move entry (`lift`, `put`, `hover`). None
    /// for any other command.
    fn move_command(&mut self, cmd: &str, args: &[&str]) -> Handled {
        Some(match (cmd, args) {
            ("lift" | "put" | "hover", _) => self.entry_command(cmd, args),
            ("usermove", [mv]) => {
                self.user_move(mv);
                Ok(())
            }
            ("usermove", _) => Err("usermove needs one move".into()),
            (_, []) if looks_like_move(cmd) => {
                self.user_move(cmd);
                Ok(())
            }
            _ => return None,
        })
    }

    /// The feature list, from the mirrored settings: `protover` may come
    /// while a search holds the engine.
    fn features(&self) {
        let mut names: Vec<String> = Vec::new();
        let mut pair = false;
        for n in self.variants.names() {
            if let Ok(v) = self.variants.compile(n) {
                pair |= v.has_pair_promotion();
                if !names.contains(&v.xboard.name) {
                    names.push(v.xboard.name.clone());
                }
            }
        }
        say(&format!(
            "feature myname=\"Amalgam {}\" variants=\"{}\" setboard=1 ping=1 usermove=1 \
             playother=1 colors=0 sigint=0 sigterm=0 time=1 draw=1 reuse=1 analyze=1 san=0 \
             debug=1 memory=1 smp=1 highlight=1",
            env!("CARGO_PKG_VERSION"),
            names.join(",")
        ));
        // Offered only when a loaded variant defines a pair promotion.
        if pair {
            say(&format!(
                "feature option=\"PairPromotion -check {}\"",
                u8::from(self.pair_promotion)
            ));
        }
        say("feature option=\"VariantPath -file \"");
        say(&format!(
            "feature option=\"{SPLIT_LABEL} -check {}\"",
            u8::from(self.shared.split.load(Ordering::Relaxed))
        ));
        say(&format!(
            "feature option=\"UseNNUE -check {}\"",
            u8::from(self.use_nnue)
        ));
        let s = self.strength;
        say(&format!(
            "feature option=\"UCI_LimitStrength -check {}\"",
            u8::from(s.on)
        ));
        say(&format!(
            "feature option=\"UCI_Elo -spin {} {} {}\"",
            s.elo, s.range.0, s.range.1
        ));
        say("feature done=1");
    }

    fn option(&mut self, text: &str) -> Result<(), CommandError> {
        let (name, value) = text.split_once('=').unwrap_or((text, ""));
        let (name, value) = (name.trim(), value.trim());
        if name == SPLIT_OPTION || name == SPLIT_LABEL {
            // Takes effect with the next `variant`: its `setup` names the
            // parent and piece table the forms of moves rely on.
            self.shared
                .split
                .store(check(SPLIT_OPTION, value)?, Ordering::Relaxed);
            self.entry.set_gui(self.shared.gui());
            return Ok(());
        }
        let mut e = self.engine();
        match name {
            "PairPromotion" => {
                let on = check(name, value)?;
                // Switching compiles the variant again from its start position,
                // so only a change of value does it.
                if on != e.pair_promotion() {
                    e.set_pair_promotion(on)?;
                }
                Ok(())
            }
            "UseNNUE" => {
                let on = check(name, value)?;
                e.set_use_nnue(on);
                drop(e);
                self.use_nnue = on;
                Ok(())
            }
            "UCI_LimitStrength" => {
                e.set_limit_strength(check(name, value)?);
                let copy = StrengthCopy::of(&e);
                drop(e);
                self.strength = copy;
                Ok(())
            }
            "UCI_Elo" => {
                let (min, max) = e.elo_range();
                let elo = value.parse::<u32>().map_err(|_| EngineError::BadOption {
                    name: name.to_string(),
                    value: value.to_string(),
                    allowed: Allowed::Range { min, max },
                })?;
                e.set_elo(elo)?;
                let copy = StrengthCopy::of(&e);
                drop(e);
                self.strength = copy;
                Ok(())
            }
            "VariantPath" if value.is_empty() => Ok(()),
            "VariantPath" => {
                e.load_variant_file(value)?;
                Ok(())
            }
            _ => Err("unknown option".into()),
        }
    }
}

/// A bare word shaped like a move (for GUIs that omit `usermove`).
fn looks_like_move(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() >= 4
        && b[0].is_ascii_lowercase()
        && b[1].is_ascii_digit()
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == ',')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The label must survive XBoard's reading of it: the feature's quotes,
    /// the option's type after ` -`, `-firstOptions` lists cut at commas,
    /// and `option NAME=VALUE`.
    #[test]
    fn the_split_label_fits_what_xboard_reads() {
        assert!(SPLIT_LABEL.starts_with(SPLIT_OPTION));
        for bad in ["\"", ",", "=", " -", "Draw"] {
            assert!(!SPLIT_LABEL.contains(bad), "{bad:?} in {SPLIT_LABEL}");
        }
    }
}
