//! `DIR/progress.svg`: two small charts drawn by hand (axes, polylines,
//! labels): the Elo of each promoted generation over the first evaluation
//! (the promoted gates' Elo added up), and the validation loss of every
//! epoch, the generations one after another.

use std::fmt::Write;

/// One chart's place in the picture and its data's ranges.
struct Panel {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
    x: (f64, f64),
    y: (f64, f64),
}

const PANEL_W: f64 = 360.0;
const PANEL_H: f64 = 220.0;
const MARGIN: f64 = 50.0;

/// The range of `values`, widened where it is one point (or none).
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        (0.0, 1.0)
    } else if hi - lo < 1e-9 {
        (
            lo - 1.0_f64.max(lo.abs() * 0.1),
            hi + 1.0_f64.max(hi.abs() * 0.1),
        )
    } else {
        (lo, hi)
    }
}

impl Panel {
    fn px(&self, x: f64) -> f64 {
        self.left + (x - self.x.0) / (self.x.1 - self.x.0) * self.width
    }

    fn py(&self, y: f64) -> f64 {
        self.top + self.height - (y - self.y.0) / (self.y.1 - self.y.0) * self.height
    }

    /// Axes, title and the ranges' ends as labels.
    fn frame(&self, out: &mut String, title: &str, x_label: &str, y_text: [String; 2]) {
        let (l, t, w, h) = (self.left, self.top, self.width, self.height);
        let _ = write!(
            out,
            "<polyline points=\"{l:.1},{t:.1} {l:.1},{b:.1} {r:.1},{b:.1}\" fill=\"none\" stroke=\"black\"/>\n\
             <text x=\"{cx:.1}\" y=\"{ty:.1}\" text-anchor=\"middle\" font-size=\"14\">{title}</text>\n\
             <text x=\"{cx:.1}\" y=\"{ly:.1}\" text-anchor=\"middle\" font-size=\"11\">{x_label}</text>\n\
             <text x=\"{lx:.1}\" y=\"{b:.1}\" text-anchor=\"end\" font-size=\"11\">{lo}</text>\n\
             <text x=\"{lx:.1}\" y=\"{t1:.1}\" text-anchor=\"end\" font-size=\"11\">{hi}</text>\n\
             <text x=\"{l:.1}\" y=\"{xy:.1}\" text-anchor=\"middle\" font-size=\"11\">{x0}</text>\n\
             <text x=\"{r:.1}\" y=\"{xy:.1}\" text-anchor=\"middle\" font-size=\"11\">{x1}</text>\n",
            b = t + h,
            r = l + w,
            cx = l + w / 2.0,
            ty = t - 12.0,
            ly = t + h + 32.0,
            lx = l - 4.0,
            t1 = t + 10.0,
            xy = t + h + 16.0,
            lo = y_text[0],
            hi = y_text[1],
            x0 = self.x.0,
            x1 = self.x.1,
        );
    }

    fn line(&self, out: &mut String, points: &[(f64, f64)], colour: &str) {
        let text: Vec<String> = points
            .iter()
            .filter(|(_, y)| y.is_finite())
            .map(|&(x, y)| format!("{:.1},{:.1}", self.px(x), self.py(y)))
            .collect();
        let _ = writeln!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            text.join(" ")
        );
        for p in &text {
            if let Some((x, y)) = p.split_once(',') {
                let _ = writeln!(
                    out,
                    "<circle cx=\"{x}\" cy=\"{y}\" r=\"3\" fill=\"{colour}\"/>"
                );
            }
        }
    }
}

/// The picture of `elo` (generation, Elo over the first evaluation) and
/// `losses` (each generation's validation loss per epoch).
pub fn svg(variant: &str, elo: &[(u32, f64)], losses: &[(u32, Vec<f64>)]) -> String {
    let width = 2.0 * (PANEL_W + 2.0 * MARGIN);
    let height = PANEL_H + 2.5 * MARGIN;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    let elo_panel = Panel {
        left: 1.5 * MARGIN,
        top: MARGIN,
        width: PANEL_W,
        height: PANEL_H,
        // From generation 0 (the first evaluation) to the last promoted.
        x: (
            0.0,
            f64::from(elo.iter().map(|p| p.0).max().unwrap_or(0).max(1)),
        ),
        y: range(elo.iter().map(|p| p.1)),
    };
    elo_panel.frame(
        &mut out,
        &format!("{}: Elo of the promoted nets", escape(variant)),
        "generation",
        [elo_panel.y.0, elo_panel.y.1].map(|v| format!("{v:+.0}")),
    );
    let points: Vec<(f64, f64)> = elo.iter().map(|&(g, e)| (f64::from(g), e)).collect();
    elo_panel.line(&mut out, &points, "#1f5fbf");
    let epochs: usize = losses.iter().map(|(_, l)| l.len()).sum();
    let loss_panel = Panel {
        left: width / 2.0 + 1.5 * MARGIN,
        top: MARGIN,
        width: PANEL_W,
        height: PANEL_H,
        x: (1.0, (epochs.max(2)) as f64),
        y: range(losses.iter().flat_map(|(_, l)| l.iter().copied())),
    };
    loss_panel.frame(
        &mut out,
        "validation loss per epoch",
        "epoch (the generations one after another)",
        [loss_panel.y.0, loss_panel.y.1].map(|v| format!("{v:.4}")),
    );
    let mut at = 0usize;
    for (i, (g, l)) in losses.iter().enumerate() {
        let points: Vec<(f64, f64)> = l
            .iter()
            .enumerate()
            .map(|(e, &v)| ((at + e + 1) as f64, v))
            .collect();
        let colour = if i % 2 == 0 { "#bf3f1f" } else { "#3f8f3f" };
        loss_panel.line(&mut out, &points, colour);
        if let Some(&(x, _)) = points.first() {
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"{colour}\">{g}</text>",
                loss_panel.px(x),
                loss_panel.top + loss_panel.height - 4.0
            );
        }
        at += l.len();
    }
    out.push_str("</svg>\n");
    out
}

/// `text` safe inside an SVG text element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picture_has_a_line_for_the_elo_and_one_a_generation_for_the_losses() {
        let text = svg(
            "a<b",
            &[(0, 0.0), (1, 120.0), (3, 180.6)],
            &[(1, vec![0.3, 0.2, 0.15]), (2, vec![0.2, 0.1]), (3, vec![])],
        );
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
        assert!(text.contains("a&lt;b"));
        // Axes of both charts, the Elo line and two loss lines (the third
        // generation has no epochs: an empty line).
        assert_eq!(text.matches("<polyline").count(), 2 + 1 + 3);
        assert_eq!(text.matches("<circle").count(), 3 + 5);
        assert!(
            text.contains(">+181<") && text.contains(">0.1000<"),
            "{text}"
        );
        // No data: still a picture.
        let empty = svg("x", &[(0, 0.0)], &[]);
        assert!(empty.contains("</svg>") && !empty.contains("NaN"));
        // The generations' axis runs from the first evaluation, 0.
        assert!(
            empty.contains(">0</text>") && empty.contains(">1</text>"),
            "{empty}"
        );
    }
}
