//! What a run found: the losses before and after (float and quantised)
//! beside the hand-written evaluation's, the epoch written and why, the
//! net's provenance text, and the warning a net worse than the hand-written
//! evaluation deserves.

use super::events::Plan;
use super::schedule::{Decay, Schedule};
use super::settings::{Architecture, MIN_STEPS, Settings};
use crate::engine::eval::nnue::Network;

/// A finished run.
pub struct Report {
    pub variant: String,
    pub architecture: Architecture,
    pub schedule: Schedule,
    pub settings: Settings,
    pub plan: Plan,
    pub losses: Losses,
    /// The epoch whose net is written.
    pub written_epoch: usize,
    /// Weights clamped to the integer range in quantising.
    pub clamped: usize,
    /// Seconds of the fit, and its threads.
    pub seconds: f64,
    pub threads: usize,
    /// The net written, with its provenance.
    pub network: Network,
}

/// The losses of a run: training and validation loss of the starting
/// weights and of the epoch written, the quantised net's validation loss,
/// and the hand-written evaluation's, the measure to beat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Losses {
    pub before: (f64, Option<f64>),
    pub after: (f64, Option<f64>),
    pub quantised: Option<f64>,
    pub hand_written: Option<f64>,
    /// The start net's own validation loss, where the net trained has
    /// another layout (a start without king buckets lifted into buckets,
    /// which evaluates a mirrored view as the mirror image): `before` is
    /// then the lifted model's, not the start net's.
    pub start_own: Option<f64>,
}

impl Losses {
    /// Before and after, float and quantised (`net` names the quantised
    /// one), as the summary and the provenance give them.
    pub fn text(&self, net: &str) -> String {
        let mut text = format!(
            "before: training {:.6}, validation {}; after: training {:.6}, validation {}; {net}: validation {}",
            self.before.0,
            loss_text(self.before.1),
            self.after.0,
            loss_text(self.after.1),
            loss_text(self.quantised)
        );
        if let Some(own) = self.start_own {
            text.push_str(&format!("; the start net itself: validation {own:.6}"));
        }
        text
    }
}

/// How the provenance's line of positions starts.
const POSITIONS_LINE: &str = "Positions: ";

/// The positions (training and validation) a net was trained on, read
/// from the provenance that `train` wrote into it; none when the text has
/// no such line (a net made elsewhere) or its numbers do not read.
pub fn positions_trained(provenance: &str) -> Option<usize> {
    let line = provenance
        .lines()
        .find_map(|l| l.strip_prefix(POSITIONS_LINE))?;
    let (training, rest) = line.split_once(" training, ")?;
    let validation = rest.strip_suffix(" validation")?;
    let number = |s: &str| s.trim().parse::<usize>().ok();
    number(training)?.checked_add(number(validation)?)
}

/// The schedule in words: its decay and its warm-up.
pub fn schedule_text(c: &Schedule) -> String {
    let decay = match c.decay() {
        Decay::Step { drop_epochs } => format!("step, lr drop {drop_epochs} epoch(s)"),
        Decay::Cosine { last } => format!("cosine to {last}"),
    };
    format!("Schedule: {decay}; warm-up {} step(s)", c.warmup())
}

/// A loss, or `none` where there is none.
pub fn loss_text(loss: Option<f64>) -> String {
    loss.map_or_else(|| "none".to_string(), |l| format!("{l:.6}"))
}

/// A net whose validation loss is above the hand-written evaluation's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorseThanHandWritten {
    pub net: f64,
    pub hand_written: f64,
    /// Adam steps in the whole run.
    pub steps: usize,
}

impl WorseThanHandWritten {
    /// The warning for a net of validation loss `net` where the
    /// hand-written evaluation's is `hand_written`, after `steps` steps;
    /// none where the net is no worse, or either loss is unknown.
    pub fn of(
        net: Option<f64>,
        hand_written: Option<f64>,
        steps: usize,
    ) -> Option<WorseThanHandWritten> {
        let (net, hand_written) = (net?, hand_written?);
        (net > hand_written).then_some(WorseThanHandWritten {
            net,
            hand_written,
            steps,
        })
    }
}

impl std::fmt::Display for WorseThanHandWritten {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the net's validation loss {:.6} is above the hand-written evaluation's {:.6}: \
             with this net the engine would likely play worse than without it",
            self.net, self.hand_written
        )?;
        if self.steps < MIN_STEPS {
            write!(
                f,
                " (only {} Adam step(s) in all: a smaller --batch or more --epochs)",
                self.steps
            )
        } else {
            write!(
                f,
                " (more positions, a smaller --hidden or the epochs cut to where the \
                 validation loss stops falling may help)"
            )
        }
    }
}

impl Report {
    /// Whether the epoch written was chosen by its validation loss (else it
    /// is the last).
    pub fn chosen_by_validation(&self) -> bool {
        self.plan.validation > 0
    }

    /// Whether the net written predicts the held-out positions no better
    /// than the net the run started from: the start itself written (no
    /// epoch lowered the loss), or, where the start was lifted into
    /// another layout, a quantised loss not below the start net's own.
    pub fn no_better_than_start(&self) -> bool {
        let start_kept = self.written_epoch == 0 && self.settings.init.is_some();
        let above_own = matches!(
            (self.losses.quantised, self.losses.start_own),
            (Some(q), Some(own)) if q >= own
        );
        start_kept || above_own
    }

    /// Why the epoch written was chosen, in words.
    pub fn written_why(&self) -> &'static str {
        if self.written_epoch == 0 && self.settings.init.is_some() {
            "the net it started from: no epoch lowered its validation loss"
        } else if self.chosen_by_validation() {
            "the lowest validation loss"
        } else {
            "the last; no validation positions to choose by"
        }
    }

    /// The warning that the written net is worse than the hand-written
    /// evaluation, by the quantised net's validation loss.
    pub fn worse_than_hand_written(&self) -> Option<WorseThanHandWritten> {
        WorseThanHandWritten::of(
            self.losses.quantised,
            self.losses.hand_written,
            self.plan.steps() * self.schedule.epochs(),
        )
    }

    /// The net file's provenance text: `comments` are the data files'.
    pub fn provenance(&self, comments: &[String]) -> String {
        let (a, s, c) = (&self.architecture, &self.settings, &self.schedule);
        let mut lines = vec![
            format!("Network for {}, trained by amalgam train.", self.variant),
            format!("Command: {}", s.command),
            format!(
                "Seed {}; hidden {}; activation {:?}; factoriser {}; epochs {}; lambda {}; lr {}; lr drop {} epoch(s); batch {}",
                s.seed,
                a.hidden,
                a.activation,
                if a.factoriser { "on" } else { "off" },
                c.epochs(),
                s.lambda,
                c.rate(),
                c.drop_epochs(),
                self.plan.batch_text()
            ),
        ];
        // Said only of more than one bucket, so that a net of one is the
        // file of a build without buckets.
        if let Some(buckets) = self.plan.buckets_text() {
            lines.push(format!(
                "Output buckets {} by men (training positions): {buckets}",
                a.buckets
            ));
        }
        // Said only of a net with king buckets, so that the nets without
        // them are the files of a build without them.
        if a.kings > 0 {
            lines.push(format!(
                "King buckets: preset {} ({} buckets, the board mirrored by file while the king is on its right half)",
                a.kings,
                self.network.kings.count()
            ));
        }
        // Said only of a net that did not start from random weights, so
        // that the nets of random starts are a build's without this line.
        if let Some(start) = &s.init {
            lines.push(format!("Started from the weights of {}", start.text()));
        }
        // Said only of a schedule the step options could not ask for, so
        // that the older options still make the same bytes.
        if !c.is_plain_step() {
            lines.push(schedule_text(c));
        }
        // Said only where not every file held out, so that the other
        // nets are a build's without this line.
        if s.held_from > 0 {
            lines.push(format!(
                "Validation positions drawn from data file {} on (the files before it all trained)",
                s.held_from + 1
            ));
        }
        lines.extend([
            format!(
                "{POSITIONS_LINE}{} training, {} validation",
                self.plan.training, self.plan.validation
            ),
            format!("Loss {}", self.losses.text("quantised")),
            format!(
                "The hand-written evaluation's validation loss: {}",
                loss_text(self.losses.hand_written)
            ),
        ]);
        if let Some(w) = self.worse_than_hand_written() {
            lines.push(format!("Warning: {w}"));
        }
        lines.extend([
            format!(
                "Written: the net of epoch {} ({})",
                self.written_epoch,
                self.written_why()
            ),
            format!("Weights clamped in quantising: {}", self.clamped),
        ]);
        if let Some((title, notes)) = &s.notes {
            lines.push(format!("{title}:"));
            lines.extend(notes.iter().map(|n| format!("  {n}")));
        }
        lines.push("Data:".to_string());
        lines.extend(comments.iter().cloned());
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped nets' provenance gives their positions; text without
    /// the line or with numbers that do not read gives none.
    #[test]
    fn a_nets_trained_positions_are_read_from_its_provenance() {
        for (name, bytes) in crate::engine::eval::nnue::EMBEDDED_NETS {
            let net = Network::from_bytes(bytes).expect("a shipped net");
            let n = positions_trained(&net.provenance).unwrap_or(0);
            assert!(n > 1_000_000, "{name}: {n}");
        }
        let text = "Seed 1\nPositions: 2700089 training, 300009 validation\nLoss";
        assert_eq!(positions_trained(text), Some(3_000_098));
        assert_eq!(positions_trained("Seed 1\nLoss"), None);
        assert_eq!(
            positions_trained("Positions: x training, 5 validation"),
            None
        );
        let huge = format!("Positions: {} training, 1 validation", usize::MAX);
        assert_eq!(positions_trained(&huge), None);
    }

    #[test]
    fn only_a_net_worse_than_the_hand_written_evaluation_is_warned_of() {
        assert_eq!(WorseThanHandWritten::of(Some(0.03), Some(0.04), 5), None);
        assert_eq!(WorseThanHandWritten::of(Some(0.04), Some(0.04), 5), None);
        assert_eq!(WorseThanHandWritten::of(None, Some(0.04), 5), None);
        assert_eq!(WorseThanHandWritten::of(Some(0.05), None, 5), None);
        let few = WorseThanHandWritten::of(Some(0.05), Some(0.04), 5).expect("worse");
        let text = few.to_string();
        assert!(
            text.contains("0.050000 is above") && text.contains("0.040000"),
            "{text}"
        );
        assert!(text.contains("only 5 Adam step(s)"), "{text}");
        let many = WorseThanHandWritten::of(Some(0.05), Some(0.04), MIN_STEPS).expect("worse");
        assert!(many.to_string().contains("more positions"), "{many}");
    }
}
