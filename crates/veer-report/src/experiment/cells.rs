//! Cell formatting shared by the experiment printers, written once so the terminal table and
//! the Markdown report spell every value the same way (traxr's `to_report("md")` rules, spec
//! `experiment.md` §11.4): fixed decimals, `—` for unknown, yes/no, the floor mark, the t* cell
//! and the compact control-flow summary.

use veer_contract::experiment::PairResult;
use veer_contract::experiment::PerturbationAggregate;
use veer_contract::structural::ControlFlowChanges;

/// What a cell shows for an unknown value.
pub(crate) const UNKNOWN: &str = "—";

/// `v` with `decimals` fixed decimals (Python `f"{v:.Nf}"`: round half to even on the exact
/// binary value, as Rust's formatter does), or `—`.
pub fn fixed(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| UNKNOWN.to_string(), |x| format!("{x:.decimals$}"))
}

/// A token-overhead ratio as `1.23x`, or `—` when unavailable (never `1.00x` for unknown).
pub fn tokens(v: Option<f64>) -> String {
    v.map_or_else(|| UNKNOWN.to_string(), |x| format!("{x:.2}x"))
}

/// Python's `f"{fraction:.0%}"`: fraction × 100 (in f64) with no decimals, then `%`.
pub fn percent(fraction: f64) -> String {
    format!("{:.0}%", fraction * 100.0)
}

/// An optional fraction as a percentage, or `—`.
pub(crate) fn percent_opt(fraction: Option<f64>) -> String {
    fraction.map_or_else(|| UNKNOWN.to_string(), percent)
}

/// `yes` / `no` / `—`.
pub(crate) fn tristate(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => UNKNOWN,
    }
}

/// The per-pair noise-floor mark: `✓` within the floor, `·` above it, `—` unknown.
pub(crate) fn floor_mark(within: Option<bool>) -> &'static str {
    match within {
        Some(true) => "✓",
        Some(false) => "·",
        None => UNKNOWN,
    }
}

/// The t* cell: `step N · <event type of the first perturbed event at step N>`, `step N` when
/// no perturbed event has that step, `—` without a t*.
pub fn t_star(pair: &PairResult) -> String {
    match (pair.t_star, &pair.t_star_event_type) {
        (None, _) => UNKNOWN.to_string(),
        (Some(step), Some(kind)) => format!("step {step} · {kind}"),
        (Some(step), None) => format!("step {step}"),
    }
}

/// The compact control-flow summary: `N× reroute`, `tool ok→fail`, `tool fail→ok`,
/// `N× +tool call`, `N× −tool call`, `N× +routing`, `N× −routing`, `early stop`, `ran longer`
/// (non-zero ones, in that order, joined with `, `), or `—`.
pub fn control_flow(c: Option<&ControlFlowChanges>) -> String {
    let Some(c) = c else {
        return UNKNOWN.to_string();
    };
    fn count(n: usize, label: &str, parts: &mut Vec<String>) {
        if n > 0 {
            parts.push(format!("{n}× {label}"));
        }
    }
    let mut parts: Vec<String> = Vec::new();
    count(c.reroutes, "reroute", &mut parts);
    if c.tool_failures_introduced > 0 {
        parts.push("tool ok→fail".into());
    }
    if c.tool_failures_avoided > 0 {
        parts.push("tool fail→ok".into());
    }
    count(c.tool_calls_added, "+tool call", &mut parts);
    count(c.tool_calls_removed, "−tool call", &mut parts);
    count(c.extra_routing_cycles, "+routing", &mut parts);
    count(c.missing_routing_cycles, "−routing", &mut parts);
    if c.early_termination {
        parts.push("early stop".into());
    }
    if c.extended_execution {
        parts.push("ran longer".into());
    }
    if parts.is_empty() {
        UNKNOWN.to_string()
    } else {
        parts.join(", ")
    }
}

/// The non-zero control-flow fields as `(name, value)` in traxr's `to_dict()` order, without
/// the two totals.
pub(crate) fn control_flow_fields(c: &ControlFlowChanges) -> Vec<(&'static str, String)> {
    let counts = [
        ("reroutes", c.reroutes),
        ("extra_routing_cycles", c.extra_routing_cycles),
        ("missing_routing_cycles", c.missing_routing_cycles),
        ("tool_failures_introduced", c.tool_failures_introduced),
        ("tool_failures_avoided", c.tool_failures_avoided),
        ("tool_calls_added", c.tool_calls_added),
        ("tool_calls_removed", c.tool_calls_removed),
    ];
    let mut out: Vec<(&'static str, String)> = counts
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| (k, n.to_string()))
        .collect();
    for (k, flag) in [
        ("early_termination", c.early_termination),
        ("extended_execution", c.extended_execution),
    ] {
        if flag {
            out.push((k, "yes".into()));
        }
    }
    out
}

/// Column names of the by-perturbation table (terminal and Markdown).
pub(crate) const PERTURBATION_COLUMNS: [&str; 10] = [
    "perturbation",
    "pairs",
    "measured",
    "mean d_norm",
    "max d_norm",
    "mean t*/T",
    "recovery rate",
    "mean tokens",
    "max tokens",
    "manifestations",
];

/// The cells of one by-perturbation row, in [`PERTURBATION_COLUMNS`] order; the first and
/// the last are text, the others numbers.
pub(crate) fn perturbation_row(a: &PerturbationAggregate) -> [String; 10] {
    let d = &a.divergence_summary;
    let manifestations: Vec<String> = a
        .manifestations
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    [
        a.perturbation.clone(),
        a.pairs.to_string(),
        d.pairs_measured.to_string(),
        fixed(d.mean_d_norm, 4),
        fixed(d.max_d_norm, 4),
        fixed(d.mean_t_star_norm, 4),
        percent_opt(a.recovery_rate),
        tokens(a.token_overhead_summary.mean),
        tokens(a.token_overhead_summary.max),
        if manifestations.is_empty() {
            UNKNOWN.to_string()
        } else {
            manifestations.join(", ")
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_formatting() {
        assert_eq!(percent(0.125), "12%");
        assert_eq!(percent(0.5), "50%");
        assert_eq!(percent(1.0), "100%");
        assert_eq!(fixed(Some(0.7857142857142857), 4), "0.7857");
        assert_eq!(fixed(None, 4), "—");
        assert_eq!(tokens(Some(3.0)), "3.00x");
        assert_eq!(tokens(None), "—");
    }

    #[test]
    fn control_flow_summary() {
        let c = ControlFlowChanges {
            extra_routing_cycles: 9,
            tool_calls_removed: 1,
            extended_execution: true,
            total_changes: 11,
            ..ControlFlowChanges::default()
        };
        assert_eq!(
            control_flow(Some(&c)),
            "1× −tool call, 9× +routing, ran longer"
        );
        assert_eq!(control_flow(Some(&ControlFlowChanges::default())), "—");
        assert_eq!(control_flow(None), "—");
        let t = ControlFlowChanges {
            tool_failures_introduced: 2,
            reroutes: 1,
            ..ControlFlowChanges::default()
        };
        assert_eq!(control_flow(Some(&t)), "1× reroute, tool ok→fail");
        assert_eq!(
            control_flow_fields(&c),
            vec![
                ("extra_routing_cycles", "9".to_string()),
                ("tool_calls_removed", "1".to_string()),
                ("extended_execution", "yes".to_string())
            ]
        );
    }
}
