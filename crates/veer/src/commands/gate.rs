//! `veer gate REPORT.json`: re-applies the merge gate to a saved diff report (spec `policy.md`
//! §12). Without `--policy` the report's stored policy regressions count (the diff computed
//! them once); with `--policy` both traces are required and the policy diff is recomputed once.
//! A directory report's error rows (pairs that could not be read) count as `veer diff` counts
//! them: each trips a set gate (exit 1); with `--fail-on never` they make the exit code 2.

use crate::cli::{GateArgs, GateFormat};
use crate::error::{CliError, EXIT_ERROR, EXIT_GATE, EXIT_OK};
use crate::output::{colour_enabled, emit};
use serde_json::Value;
use veer_diff::fingerprint;
use veer_diff::hotelling::Decision;
use veer_policy::{compare, Gate, Kind, Level, Severity, Violation};
use veer_report::policy::gate::{GateRegression, GateReport};
use veer_report::style::Style;

/// The single-pair reports inside a diff report (a directory report holds one per pair), each
/// with the trace it is about: the pair's relative path, or the candidate's path.
fn pair_reports(doc: &Value) -> Vec<(String, &Value)> {
    let candidate = |r: &Value| {
        r.get("candidate")
            .and_then(|c| c.get("path"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    match doc.get("pairs").and_then(Value::as_array) {
        Some(pairs) => pairs
            .iter()
            .filter_map(|p| {
                let report = p.get("report")?;
                let name = p.get("baseline").and_then(Value::as_str);
                Some((
                    name.map_or_else(|| candidate(report), str::to_string),
                    report,
                ))
            })
            .collect(),
        None => vec![(candidate(doc), doc)],
    }
}

fn bad_report(file: &str, message: String) -> CliError {
    CliError::input(format!("{file}: {message}"))
        .hint("pass a report written by `veer diff --format json`")
}

/// The worst axis severity of one pair report (`axes`, or Shadow's `rows`), improvements
/// left out.
fn worst_axis(file: &str, report: &Value) -> Result<Level, CliError> {
    let rows = report
        .get("axes")
        .or_else(|| report.get("rows"))
        .and_then(Value::as_array);
    let Some(rows) = rows else {
        return match report.get("worst_severity").and_then(Value::as_str) {
            Some(s) => Level::parse(s)
                .ok_or_else(|| bad_report(file, format!("unknown worst_severity '{s}'"))),
            None => Err(bad_report(file, "no `axes` array".into())),
        };
    };
    let mut worst = Level::None;
    for (i, row) in rows.iter().enumerate() {
        // Only worse-direction changes gate (docs/policy.md); older reports have no field.
        if row.get("direction").and_then(Value::as_str) == Some("improvement") {
            continue;
        }
        let s = row.get("severity").and_then(Value::as_str).ok_or_else(|| {
            bad_report(
                file,
                format!("axes[{i}].severity is missing or not a string"),
            )
        })?;
        let level = Level::parse(s).ok_or_else(|| {
            bad_report(file, format!("axes[{i}].severity: unknown severity '{s}'"))
        })?;
        worst = worst.max(level);
    }
    Ok(worst)
}

/// The gate level of a stored `fingerprint` block (a pair's, or a directory's pooled test):
/// `moderate` for a powered rejection, the rule `veer diff` applies; none when the block is
/// absent or null.
fn fingerprint_level(file: &str, block: Option<&Value>) -> Result<Level, CliError> {
    let Some(block) = block.filter(|b| !b.is_null()) else {
        return Ok(Level::None);
    };
    let bad = |what: &str| bad_report(file, format!("fingerprint.{what}"));
    let decision = match block.get("decision").and_then(Value::as_str) {
        Some("reject") => Decision::Reject,
        Some("fail_to_reject") => Decision::FailToReject,
        Some("underpowered") => Decision::Underpowered,
        _ => return Err(bad("decision is missing or unknown")),
    };
    let power = match block.get("power") {
        Some(Value::Null) => None,
        Some(v) => Some(v.as_f64().ok_or_else(|| bad("power is not a number"))?),
        None => return Err(bad("power is missing")),
    };
    let dims = block
        .get("dimensions")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("dimensions is missing"))?;
    let mut largest_shift = 0.0f64;
    for d in dims {
        let mean = |k: &str| d.get(k).and_then(Value::as_f64);
        let (Some(b), Some(c)) = (mean("baseline_mean"), mean("candidate_mean")) else {
            return Err(bad(
                "dimensions[].baseline_mean / candidate_mean must be numbers",
            ));
        };
        largest_shift = largest_shift.max((c - b).abs());
    }
    Ok(fingerprint::block::gate_level(
        decision,
        power,
        largest_shift,
    ))
}

/// The stored policy regressions of one pair report (`policy`, or Shadow's `policy_diff`).
fn stored_regressions(file: &str, report: &Value) -> Result<Option<Vec<Violation>>, CliError> {
    let Some(policy) = report.get("policy").or_else(|| report.get("policy_diff")) else {
        return Ok(None);
    };
    if policy.is_null() {
        return Ok(None);
    }
    let list = policy
        .get("regressions")
        .and_then(Value::as_array)
        .ok_or_else(|| bad_report(file, "policy.regressions is not a list".into()))?;
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let field = |k: &str| v.get(k).and_then(Value::as_str);
        let severity = field("severity").and_then(Severity::parse).ok_or_else(|| {
            bad_report(
                file,
                format!("policy.regressions[{i}].severity is not a policy severity"),
            )
        })?;
        let kind = field("kind").and_then(Kind::parse).ok_or_else(|| {
            bad_report(
                file,
                format!("policy.regressions[{i}].kind is not a rule kind"),
            )
        })?;
        let index = |k: &str| v.get(k).and_then(Value::as_u64).map(|n| n as usize);
        out.push(Violation {
            rule_id: field("rule_id").unwrap_or("").to_string(),
            kind,
            severity,
            session: index("session"),
            pair_index: index("pair_index"),
            detail: field("detail").unwrap_or("").to_string(),
            tags: v
                .get("tags")
                .and_then(Value::as_array)
                .map(|t| {
                    t.iter()
                        .filter_map(|x| x.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            status: None,
        });
    }
    Ok(Some(out))
}

/// Runs `veer gate`.
pub fn run(args: &GateArgs) -> Result<u8, CliError> {
    let file = args.report.display().to_string();
    if args.policy.is_some() && (args.baseline.is_none() || args.candidate.is_none()) {
        return Err(
            CliError::input("--policy requires --baseline and --candidate.")
                .hint("veer gate report.json --policy P --baseline B --candidate C"),
        );
    }
    let bytes = veer_trace::limits::read_capped(&args.report, args.max_report_bytes).map_err(
        |e| match e {
            veer_trace::limits::CappedError::Io(e) => {
                CliError::input(format!("{file}: cannot read: {e}")).hint("check the path")
            }
            other => {
                let (message, hint) = other
                    .too_large_message("report", Some("--max-report-bytes"))
                    .unwrap_or_default();
                CliError::input(format!("{file}: {message}")).hint(hint)
            }
        },
    )?;
    let text = String::from_utf8(bytes).map_err(|e| {
        CliError::input(format!(
            "{file}: cannot read: not valid UTF-8 (byte {})",
            e.utf8_error().valid_up_to()
        ))
        .hint("check the path")
    })?;
    let doc: Value = serde_json::from_str(&text)
        .map_err(|e| bad_report(&file, format!("not valid JSON: {e}")))?;
    let reports = pair_reports(&doc);
    let errors = match doc.get("pairs").and(doc.get("errors")) {
        None => 0,
        Some(rows) => rows
            .as_array()
            .ok_or_else(|| bad_report(&file, "errors is not a list".into()))?
            .len(),
    };
    let mut axis = Level::None;
    let mut fingerprint = fingerprint_level(&file, doc.get("pairs").and(doc.get("fingerprint")))?;
    for (_, r) in &reports {
        axis = axis.max(worst_axis(&file, r)?);
        fingerprint = fingerprint.max(fingerprint_level(&file, r.get("fingerprint"))?);
    }
    let (policy_source, regressions) = match (&args.policy, &args.baseline, &args.candidate) {
        (Some(p), Some(b), Some(c)) => {
            let policy = super::policy::load(p)?;
            let options = args.read.options();
            let baseline = veer_trace::load_trace(b, &options)?;
            let candidate = veer_trace::load_trace(c, &options)?;
            let trace = c.display().to_string();
            (
                "recomputed",
                compare(&policy, &baseline, &candidate)
                    .regressions
                    .into_iter()
                    .map(|violation| GateRegression {
                        trace: trace.clone(),
                        violation,
                    })
                    .collect(),
            )
        }
        _ => {
            let mut any = false;
            let mut all = Vec::new();
            for (trace, r) in &reports {
                if let Some(list) = stored_regressions(&file, r)? {
                    any = true;
                    // A report without the candidate's path (Shadow's) names itself.
                    let trace = if trace.is_empty() { &file } else { trace };
                    all.extend(list.into_iter().map(|violation| GateRegression {
                        trace: trace.clone(),
                        violation,
                    }));
                }
            }
            (if any { "report" } else { "none" }, all)
        }
    };
    let worst = regressions
        .iter()
        .map(|v| Level::from(v.violation.severity))
        .fold(axis.max(fingerprint), Level::max);
    let report = GateReport {
        schema_version: veer_report::policy::gate::GATE_SCHEMA_VERSION,
        report: file,
        worst_axis: axis,
        fingerprint,
        policy_source,
        regressions,
        gate: Gate::decide_with_errors(args.fail_on, worst, errors),
    };
    let text = match args.format {
        GateFormat::Terminal => veer_report::policy::gate::terminal(
            &report,
            Style {
                colour: colour_enabled(args.out.output.is_some()),
            },
        ),
        GateFormat::Json => veer_report::policy::gate::json(&report),
    };
    emit(&text, args.out.output.as_deref())?;
    crate::output::diag::say("", veer_report::policy::gate_line(&report.gate));
    if report.gate.errors_without_gate() {
        return Ok(EXIT_ERROR);
    }
    Ok(if report.gate.tripped {
        EXIT_GATE
    } else {
        EXIT_OK
    })
}
