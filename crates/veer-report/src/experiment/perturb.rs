//! `veer experiment perturb`'s summary: one line per operator — what it wrote, or why it
//! skipped — or the summary as JSON (`veer schema perturb`).

use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use veer_contract::perturb::Summary;

/// Formats `veer experiment perturb` offers for its summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ExperimentPerturbFormat {
    /// One line: what was applied, or why not.
    Terminal,
    /// JSON: {schema_version, file, base_seed, bytes_in, perturbations: [{operator, seed,
    /// status, reason, out, bytes_out}]} (`veer schema perturb`).
    Json,
}

impl OutputFormat<Summary> for ExperimentPerturbFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<Summary>> {
        match self {
            ExperimentPerturbFormat::Json => Box::new(json),
            ExperimentPerturbFormat::Terminal => Box::new(terminal),
        }
    }
}

/// The summary as pretty JSON with a final newline (not redacted: it holds no trace text).
pub fn json(summary: &Summary) -> String {
    let mut s = serde_json::to_string_pretty(summary).unwrap_or_default();
    s.push('\n');
    s
}

/// One line per operator.
pub fn terminal(summary: &Summary) -> String {
    let mut s = String::new();
    for p in &summary.perturbations {
        match (&p.out, &p.reason) {
            (Some(out), _) => s.push_str(&format!(
                "{}: {} applied (seed {}) -> {out} ({} bytes){}\n",
                summary.file,
                p.operator,
                p.seed,
                p.bytes_out.unwrap_or(0),
                p.note
                    .as_ref()
                    .map(|n| format!("; {n}"))
                    .unwrap_or_default()
            )),
            (None, reason) => s.push_str(&format!(
                "{}: {} skipped (seed {}): {}; nothing written\n",
                summary.file,
                p.operator,
                p.seed,
                reason.as_deref().unwrap_or("")
            )),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::perturb::Applied;

    #[test]
    fn each_operator_is_one_line() {
        let summary = Summary {
            schema_version: "1".into(),
            file: "a.csv".into(),
            base_seed: 7,
            bytes_in: 10,
            perturbations: vec![
                Applied {
                    operator: "shuffle_rows".into(),
                    seed: 3,
                    status: "applied".into(),
                    reason: None,
                    out: Some("out/a.csv".into()),
                    bytes_out: Some(10),
                    note: None,
                },
                Applied {
                    operator: "drop_rows".into(),
                    seed: 4,
                    status: "skipped".into(),
                    reason: Some("one row".into()),
                    out: None,
                    bytes_out: None,
                    note: None,
                },
            ],
        };
        assert_eq!(
            ExperimentPerturbFormat::Terminal.print(&summary, Style { colour: false }),
            "a.csv: shuffle_rows applied (seed 3) -> out/a.csv (10 bytes)\n\
             a.csv: drop_rows skipped (seed 4): one row; nothing written\n"
        );
        assert!(json(&summary).ends_with("}\n"));
    }
}
