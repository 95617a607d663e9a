//! CSV export of an experiment: one row per pair, columns in traxr's `PairResult` /
//! DataFrame order (spec `experiment.md` §11.2), for spreadsheets and data-frame tools. traxr
//! has no CSV exporter, so the cell rules here are veer's: RFC 4180 quoting, `\n` line ends,
//! null as an empty cell, floats in shortest round-trip form (Python `repr`, as in the JSON),
//! booleans `true`/`false`, `control_flow_changes` as a compact JSON object and `warnings`
//! joined with `; `.

use veer_base::pyjson::py_float_repr;
use veer_contract::experiment::ExperimentReport;
use veer_contract::experiment::PairResult;

/// The header, in §11.2 order.
pub(crate) const COLUMNS: [&str; 19] = [
    "item_id",
    "perturbation",
    "delivery",
    "status_baseline",
    "status_perturbed",
    "d_norm",
    "t_star",
    "t_star_norm",
    "divergence_type",
    "control_flow_changes",
    "task_success",
    "answer_changed",
    "recovery",
    "token_overhead",
    "manifestation",
    "manifestation_group",
    "within_noise_floor",
    "order_nondeterministic",
    "warnings",
];

/// One field, quoted when it holds a comma, a double quote, CR or LF (quotes doubled).
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn text(v: Option<&str>) -> String {
    v.unwrap_or_default().to_string()
}

fn float(v: Option<f64>) -> String {
    v.map(py_float_repr).unwrap_or_default()
}

fn boolean(v: Option<bool>) -> String {
    v.map(|b| b.to_string()).unwrap_or_default()
}

fn row(p: &PairResult) -> Vec<String> {
    vec![
        text(p.item_id.as_deref()),
        text(p.perturbation.as_deref()),
        text(p.delivery.as_deref()),
        p.status_baseline.clone(),
        p.status_perturbed.clone(),
        float(p.d_norm),
        p.t_star.map(|t| t.to_string()).unwrap_or_default(),
        float(p.t_star_norm),
        text(p.divergence_type.as_deref()),
        p.control_flow_changes
            .as_ref()
            .and_then(|c| serde_json::to_string(c).ok())
            .unwrap_or_default(),
        boolean(p.task_success),
        boolean(p.answer_changed),
        boolean(p.recovery),
        float(p.token_overhead),
        text(p.manifestation.map(|m| m.name())),
        text(p.manifestation_group.map(|g| g.name())),
        boolean(p.within_noise_floor),
        p.order_nondeterministic.to_string(),
        p.warnings.join("; "),
    ]
}

/// The pairs of `report` as CSV: the header, then one row per pair in report order.
pub fn render(report: &ExperimentReport) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for p in &report.pairs {
        let cells: Vec<String> = row(p).iter().map(|c| field(c)).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc4180_quoting() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("two\nlines"), "\"two\nlines\"");
        assert_eq!(field(""), "");
    }
}
