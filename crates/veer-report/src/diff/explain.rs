//! A pair diff in a few plain sentences, for a reader who asked "what changed?" (`veer mcp`'s
//! `explain` tool): the report's headline, the first divergence (where, what kind, what
//! changed), the axes that moved most, then the gate's line when a verdict is known. Built only
//! from values the report and the verdict hold.

use super::format::{change, turns};
use veer_base::Level;
use veer_contract::axis::{AxisStat, Direction};
use veer_contract::diff::{DiffReport, DirectorySummary};
use veer_contract::trials::TrialsReport;
use veer_contract::verdict::Verdict;

/// How many moved axes the explanation names, largest severity first.
pub const EXPLAINED_AXES: usize = 3;

/// The explanation of `report`: one paragraph per line, ending in a newline. With `verdict`
/// (a diff just run) the gate's line closes it; a saved report carries no verdict.
pub fn render(report: &DiffReport, verdict: Option<&Verdict>) -> String {
    let mut lines = vec![sentence(&report.headline)];
    lines.push(match &report.first_divergence {
        Some(d) => format!(
            "First divergence: {} ({} change on the {} axis): {}",
            turns(d),
            d.kind.label(),
            d.primary_axis.wire(),
            sentence(&d.explanation)
        ),
        None => "No divergence above the noise floor: the two runs take the same path.".into(),
    });
    let moved = moved_axes(report);
    if moved.is_empty() {
        lines.push(format!(
            "No axis moved beyond minor over {} response pair{}.",
            report.pair_count,
            if report.pair_count == 1 { "" } else { "s" }
        ));
    } else {
        let named: Vec<String> = moved.iter().map(|a| axis_change(a)).collect();
        lines.push(format!("Top axis changes: {}.", named.join("; ")));
    }
    if let Some(v) = verdict {
        lines.extend(gate_lines(v));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// A directory diff in a few lines: how many pairs were diffed and how many diverged, the worst
/// regression, the files on one side only, then the gate's line.
pub fn directory(summary: &DirectorySummary, verdict: &Verdict) -> String {
    let a = &summary.aggregate;
    let mut lines = vec![format!(
        "{} trace pair{} diffed, {} with a divergence; worst regression {}.",
        a.trace_pairs,
        if a.trace_pairs == 1 { "" } else { "s" },
        a.traces_with_divergence,
        a.worst_regression.name()
    )];
    if a.error_pairs > 0 {
        lines.push(format!("{} pair(s) could not be diffed.", a.error_pairs));
    }
    if a.unmatched > 0 {
        lines.push(format!(
            "{} file(s) on one side only (baseline only: {}; candidate only: {}).",
            a.unmatched,
            summary.unmatched.baseline_only.len(),
            summary.unmatched.candidate_only.len()
        ));
    }
    lines.extend(gate_lines(verdict));
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// A repeated-trials diff in a few lines: its headline (the verdict counts), then the gate's
/// line.
pub fn trials(report: &TrialsReport) -> String {
    let mut lines = vec![sentence(&super::trials::headline(report))];
    lines.extend(gate_lines(&report.verdict));
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The gate's line and, when it tripped, what tripped it.
fn gate_lines(verdict: &Verdict) -> Vec<String> {
    let mut lines = vec![crate::policy::gate_line(&verdict.gate())];
    if let Some(by) = verdict.tripped_by_line(EXPLAINED_AXES) {
        lines.push(format!("Tripped by: {by}."));
    }
    lines
}

/// The axes of at least moderate severity, most severe first (axis order among equals), at
/// most [`EXPLAINED_AXES`].
fn moved_axes(report: &DiffReport) -> Vec<&AxisStat> {
    let mut moved: Vec<&AxisStat> = report
        .axes
        .iter()
        .filter(|a| a.severity >= Level::Moderate)
        .collect();
    moved.sort_by_key(|a| std::cmp::Reverse(a.severity));
    moved.truncate(EXPLAINED_AXES);
    moved
}

/// `cost +0.000120 (severe regression, baseline median 0.000300 → 0.000420)`.
fn axis_change(a: &AxisStat) -> String {
    let direction = match a.direction {
        Direction::None => String::new(),
        d => format!(" {}", d.label()),
    };
    format!(
        "{} {} ({}{direction}, median {} → {})",
        a.axis.wire(),
        change(a.axis, a.delta),
        a.severity.name(),
        super::format::value(a.axis, a.baseline_median),
        super::format::value(a.axis, a.candidate_median),
    )
}

/// `text` ending in one full stop.
fn sentence(text: &str) -> String {
    let t = text.trim_end();
    if t.ends_with(['.', '!', '?']) {
        t.to_string()
    } else {
        format!("{t}.")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The diff of the bundled refund-agent example (its candidate skips a lookup and refunds
    /// more), with its verdict at `--fail-on moderate`.
    fn example() -> (DiffReport, Verdict) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/refund-agent");
        let load = |side: &str| {
            let path = dir.join(format!("{side}.agentlog"));
            veer_trace::load_trace(&path, &veer_trace::ReadOptions::default()).unwrap()
        };
        let options = veer_engine::DiffOptions::default();
        let (b, c) = (load("baseline"), load("candidate"));
        let (report, verdict) =
            veer_engine::diff::diff(&b, &c, ("b", "c"), &options, Level::Moderate);
        (report, verdict)
    }

    #[test]
    fn names_the_headline_the_first_divergence_and_the_moved_axes() {
        let (report, verdict) = example();
        let text = render(&report, Some(&verdict));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], sentence(&report.headline));
        let d = report.first_divergence.as_ref().unwrap();
        assert!(
            lines[1].starts_with(&format!("First divergence: {}", turns(d))),
            "{text}"
        );
        assert!(
            lines[1].contains(d.explanation.trim_end_matches('.')),
            "{text}"
        );
        let moved = moved_axes(&report);
        assert!(!moved.is_empty(), "the example moves an axis: {text}");
        for a in &moved {
            assert!(lines[2].contains(a.axis.wire()), "{text}");
        }
        assert!(
            text.contains(&crate::policy::gate_line(&verdict.gate())),
            "{text}"
        );
    }

    #[test]
    fn a_saved_report_has_no_gate_line_and_identical_runs_no_divergence() {
        let (report, _) = example();
        let text = render(&report, None);
        assert_eq!(text.lines().count(), 3, "{text}");
        let mut same = report.clone();
        same.first_divergence = None;
        same.axes.iter_mut().for_each(|a| a.severity = Level::None);
        let text = render(&same, None);
        assert!(
            text.contains("No divergence above the noise floor"),
            "{text}"
        );
        assert!(text.contains("No axis moved beyond minor"), "{text}");
    }

    proptest::proptest! {
        /// Whatever the severities, the named axes are at most three, each at least moderate,
        /// most severe first, and no axis left out is more severe than one named.
        #[test]
        fn the_named_axes_are_the_most_severe(levels in proptest::collection::vec(0u8..4, 9)) {
            static REPORT: std::sync::OnceLock<DiffReport> = std::sync::OnceLock::new();
            let mut report = REPORT.get_or_init(|| example().0).clone();
            let level = |l: u8| [Level::None, Level::Minor, Level::Moderate, Level::Severe][l as usize];
            for (a, &l) in report.axes.iter_mut().zip(&levels) {
                a.severity = level(l);
            }
            let moved = moved_axes(&report);
            proptest::prop_assert!(moved.len() <= EXPLAINED_AXES);
            proptest::prop_assert!(moved.iter().all(|a| a.severity >= Level::Moderate));
            proptest::prop_assert!(moved.windows(2).all(|w| w[0].severity >= w[1].severity));
            let least = moved.last().map_or(Level::Moderate, |a| a.severity);
            let left_out = report
                .axes
                .iter()
                .filter(|a| !moved.iter().any(|m| m.axis == a.axis));
            for a in left_out {
                if moved.len() < EXPLAINED_AXES {
                    proptest::prop_assert!(a.severity < Level::Moderate);
                } else {
                    proptest::prop_assert!(a.severity <= least);
                }
            }
        }
    }

    #[test]
    fn at_most_the_most_severe_axes_are_named() {
        let (mut report, _) = example();
        report
            .axes
            .iter_mut()
            .for_each(|a| a.severity = Level::Moderate);
        report.axes[4].severity = Level::Severe;
        let moved = moved_axes(&report);
        assert_eq!(moved.len(), EXPLAINED_AXES);
        assert_eq!(moved[0].axis, report.axes[4].axis);
    }

    #[test]
    fn a_sentence_ends_in_one_full_stop() {
        assert_eq!(sentence("cost rose"), "cost rose.");
        assert_eq!(sentence("cost rose. "), "cost rose.");
        assert_eq!(sentence("why?"), "why?");
    }
}
