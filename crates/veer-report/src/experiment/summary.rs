//! The experiment summary text (spec `experiment.md` §11.5) and its noise-floor status line
//! (§10), byte for byte as traxr's `ExperimentResults.summary()` prints them, with veer's name
//! on line 1. It is its own module because the terminal output and the Markdown report both
//! embed it unchanged.

use super::cells::percent;
use veer_contract::experiment::ExperimentReport;

/// Line 1 of the summary.
pub(crate) const SUMMARY_TITLE: &str = "veer experiment summary";

/// The noise-floor status when the floor is unmeasured for an external agent (§10).
pub(crate) const UNMEASURED_STATUS: &str =
    "UNMEASURED — divergence below the (unknown) sampling-noise \
     floor may be reported as contamination. Set noise_floor_runs >= 1 for external agents.";

/// The noise-floor status of §10: the floor over its re-runs and how many measured pairs are
/// within it; the UNMEASURED warning for an external agent without a floor; otherwise
/// `unmeasured (deterministic built-in path)`.
pub(crate) fn noise_floor_status(r: &ExperimentReport) -> String {
    if let Some(floor) = r.noise_floor {
        let mut line = format!("{floor:.4} over {} clean re-run(s)", r.noise_floor_runs);
        if r.summary.measured > 0 {
            line.push_str(&format!(
                "; {} of {} measured pair(s) within floor",
                r.summary.within_floor, r.summary.measured
            ));
        }
        return line;
    }
    if floor_unmeasured_for_external(r) {
        return UNMEASURED_STATUS.to_string();
    }
    "unmeasured (deterministic built-in path)".to_string()
}

/// Whether the noise floor is unmeasured for an external agent (the case the summary warns
/// about).
pub fn floor_unmeasured_for_external(r: &ExperimentReport) -> bool {
    r.noise_floor.is_none() && r.summary.agent_kind.as_deref() == Some("external")
}

/// veer's noise-aware lines, printed after traxr's summary (which stays as traxr writes it):
/// how many measured pairs lie beyond the clean runs' spread, the spread itself, and the
/// perturbations whose effect lies within it; empty without clean re-runs.
pub(crate) fn noise_text(r: &ExperimentReport) -> String {
    let Some(n) = &r.noise else {
        return String::new();
    };
    let s = &n.spread;
    let mut lines = vec![
        "veer: noise-aware labels (traxr's classes kept)".to_string(),
        format!(
            "  beyond noise: {} of {} measured pair(s); within noise: {}",
            n.beyond_noise,
            n.beyond_noise + n.within_noise,
            n.within_noise
        ),
        format!(
            "  clean-run spread over {} clean run(s): d_norm up to {:.4}, answers {}",
            s.clean_runs,
            s.d_norm,
            if s.answer_changed { "vary" } else { "agree" }
        ),
    ];
    let within: Vec<String> = n
        .pairs
        .iter()
        .filter(|p| p.within_noise == Some(true))
        .map(|p| {
            format!(
                "{} ({})",
                p.perturbation.as_deref().unwrap_or("?"),
                p.manifestation.map_or("?", |m| m.name())
            )
        })
        .collect();
    if !within.is_empty() {
        lines.push(format!("  within noise: {}", within.join(", ")));
    }
    lines.join("\n")
}

/// The summary text, lines joined with `\n`, without a trailing newline.
pub(crate) fn summary_text(r: &ExperimentReport) -> String {
    let s = &r.summary;
    let mut lines: Vec<String> = vec![
        SUMMARY_TITLE.to_string(),
        format!(
            "  agent kind: {} (capture: {})",
            s.agent_kind.as_deref().unwrap_or("?"),
            s.capture_tier.as_deref().unwrap_or("?")
        ),
        format!(
            "  pairs: {} ({} scored, {} skipped)",
            s.pairs, s.scored, s.skipped
        ),
    ];
    let prevalence = &r.aggregates.manifestation_prevalence;
    if !prevalence.is_empty() {
        lines.push("  manifestations:".into());
        for (category, fraction) in prevalence {
            lines.push(format!("    {:>4}  {category}", percent(*fraction)));
        }
    }
    let div = &r.aggregates.divergence_summary;
    if div.pairs_measured > 0 {
        if let (Some(mean), Some(max)) = (div.mean_d_norm, div.max_d_norm) {
            lines.push(format!(
                "  d_norm: mean {mean:.4}, max {max:.4} over {} pair(s)",
                div.pairs_measured
            ));
        }
    }
    lines.push(format!("  noise floor (d_norm): {}", noise_floor_status(r)));
    if let Some(rate) = r.aggregates.recovery_rate {
        lines.push(format!(
            "  recovery rate: {} of diverged pairs kept their answer",
            percent(rate)
        ));
    }
    if let Some(mean) = r.aggregates.token_overhead_summary.mean {
        lines.push(format!("  token overhead: mean {mean:.2}x"));
    }
    if s.order_nondeterministic {
        lines.push(
            "  ⚠ concurrent LLM calls detected in at least one run — event order is \
             scheduling-dependent (order_nondeterministic pairs)."
                .into(),
        );
    }
    lines.join("\n")
}
