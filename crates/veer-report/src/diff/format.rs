//! Number and label formatting shared by the diff printers.

use veer_base::Level;
use veer_contract::axis::Axis;
use veer_contract::axis::AxisStat;
use veer_contract::axis::Direction;
use veer_contract::axis::Flag;
use veer_contract::divergence::Divergence;

/// What an axis measures, in a few words. The semantic axis is lexical (veer has no semantic
/// backend), so it measures wording, not meaning.
pub(crate) fn axis_meaning(axis: Axis) -> &'static str {
    match axis {
        Axis::Semantic => "wording similarity (lexical)",
        Axis::Trajectory => "tool-call sequence (edit distance)",
        Axis::Safety => "refusal rate",
        Axis::Verbosity => "output tokens",
        Axis::Latency => "latency (ms)",
        Axis::Cost => "cost per response (USD)",
        Axis::Reasoning => "reasoning depth",
        Axis::Judge => "LLM judge (not run)",
        Axis::Conformance => "structured-output conformance",
    }
}

/// A value of `axis` for a table cell.
pub fn value(axis: Axis, v: f64) -> String {
    match axis {
        Axis::Cost => format!("{v:.6}"),
        Axis::Verbosity | Axis::Latency | Axis::Reasoning => trim(format!("{v:.1}")),
        _ => format!("{v:.3}"),
    }
}

/// A signed change of `axis`.
pub fn change(axis: Axis, v: f64) -> String {
    let v = if v == 0.0 { 0.0 } else { v };
    match axis {
        Axis::Cost => format!("{v:+.6}"),
        Axis::Verbosity | Axis::Latency | Axis::Reasoning => trim(format!("{v:+.1}")),
        _ => format!("{v:+.3}"),
    }
}

/// The unit of a single-pair change of `axis`, for text.
fn unit(axis: Axis) -> &'static str {
    match axis {
        Axis::Semantic => "similarity",
        Axis::Trajectory => "edit distance",
        Axis::Safety => "refusal",
        Axis::Verbosity => "tokens",
        Axis::Latency => "ms",
        Axis::Cost => "USD",
        Axis::Reasoning => "reasoning",
        Axis::Judge => "score",
        Axis::Conformance => "conformance",
    }
}

/// The turns of a position: `turn 2`, `turn 2→3`, `baseline turn 2 (dropped)`,
/// `candidate turn 3 (added)`.
fn position(b: Option<usize>, c: Option<usize>) -> String {
    match (b, c) {
        (Some(b), Some(c)) if b == c => format!("turn {b}"),
        (Some(b), Some(c)) => format!("turn {b}→{c}"),
        (Some(b), None) => format!("baseline turn {b} (dropped)"),
        (None, Some(c)) => format!("candidate turn {c} (added)"),
        (None, None) => "no turn".to_string(),
    }
}

/// The turns a recommendation cites: ` (evidence: turn 2; baseline turn 0 (dropped))`, or
/// nothing when it cites none.
pub fn evidence(rec: &veer_contract::recommend::Recommendation) -> String {
    if rec.evidence.is_empty() {
        return String::new();
    }
    let turns: Vec<String> = rec
        .evidence
        .iter()
        .map(|p| position(p.baseline_turn, p.candidate_turn))
        .collect();
    format!(" (evidence: {})", turns.join("; "))
}

/// How many pairs changed and the largest change: `1 of 3 pairs; turn 2: +55 tokens`, or
/// `0 of 3 pairs`; empty for a row with no observation.
pub fn pair_changes(row: &AxisStat) -> String {
    if row.n == 0 {
        return String::new();
    }
    let mut s = format!(
        "{} of {} {}",
        row.changed_pairs,
        row.n,
        if row.n == 1 { "pair" } else { "pairs" }
    );
    if let Some(l) = row.largest_change {
        s.push_str(&format!(
            "; {}: {} {}",
            position(l.baseline_turn, l.candidate_turn),
            change(row.axis, l.delta),
            unit(row.axis)
        ));
    }
    s
}

/// A severity label with the direction of the change: `severe`, `severe (improvement)`.
pub(crate) fn severity_label(row: &AxisStat) -> String {
    match row.direction {
        Direction::Improvement => format!("{} (improvement)", row.severity.label()),
        Direction::Regression | Direction::None => row.severity.label().to_string(),
    }
}

fn trim(s: String) -> String {
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// `[low, high]` with signed values.
pub fn interval(row: &AxisStat) -> String {
    format!(
        "[{}, {}]",
        change(row.axis, row.ci95_low),
        change(row.axis, row.ci95_high)
    )
}

/// Flags as words.
pub fn flags(row: &AxisStat) -> String {
    row.flags
        .iter()
        .map(|f| match f {
            Flag::LowPower => "low power",
            Flag::CiCrossesZero => "CI crosses 0",
            Flag::NoPricing => "no pricing",
            Flag::ApproximateEditDistance => "approximate edit distance",
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A confidence in [0, 1] as a whole percentage.
pub fn percent(v: f64) -> String {
    format!("{:.0}%", v * 100.0)
}

/// `baseline turn #i ↔ candidate turn #j`.
pub fn turns(d: &Divergence) -> String {
    format!(
        "baseline turn #{} ↔ candidate turn #{}",
        d.baseline_turn, d.candidate_turn
    )
}

/// A Markdown severity badge.
pub(crate) fn badge(s: Level) -> &'static str {
    match s {
        Level::None => "🟢 none",
        Level::Minor => "🟡 minor",
        Level::Moderate => "🟠 moderate",
        Level::Severe => "🔴 severe",
    }
}

/// The structural block in one line: d_norm, the edit decomposition, t* and t*/T with the
/// divergence type, and the non-zero control-flow changes.
pub fn structural(s: &veer_contract::structural::StructuralBlock) -> String {
    let e = &s.edit_distance;
    let mut line = format!(
        "d_norm {:.4} · edit distance {} ({} substituted, {} inserted, {} deleted)",
        s.d_norm, e.distance, e.substitutions, e.insertions, e.deletions
    );
    match (s.t_star, s.t_star_norm) {
        (Some(step), Some(pos)) => line.push_str(&format!(
            " · first structural divergence at step {step} (t*/T {pos:.4}, {})",
            s.first_divergence_type.as_deref().unwrap_or("unknown")
        )),
        _ => line.push_str(" · no structural divergence"),
    }
    let flow = crate::experiment::cells::control_flow(Some(&s.control_flow));
    if flow != crate::experiment::cells::UNKNOWN {
        line.push_str(&format!(" · control flow: {flow}"));
    }
    line
}
