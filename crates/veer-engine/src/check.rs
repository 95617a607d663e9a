//! `veer check` composed: the policy evaluated on each trace, the calls the live policy
//! blocked while a trace was recorded added as `prevented` violations, and the gate over
//! them all. The binary and the Python package both call [`check`]; the binary and `veer mcp`
//! read their traces with [`read_traces`] and decide the gate with [`judge`].

use std::path::Path;
use veer_base::Level;
use veer_contract::check::{CheckReport, CheckRule, CheckedTrace, TraceFailure};
use veer_contract::policy::Violation;
use veer_contract::verdict::Verdict;
use veer_trace::{Document, ReadOptions, Trace};

/// One trace to check: the name shown in the report, the file it came from, the trace.
pub type NamedTrace<'a> = (String, String, &'a veer_trace::Trace);

/// The traces one `veer check TRACE` reads.
#[derive(Debug)]
pub struct CheckInputs {
    /// Each readable trace: (name shown in the report, file path, trace), in path order.
    pub traces: Vec<(String, String, Trace)>,
    /// Whether the report lists several traces (a directory, or a file holding several runs).
    pub directory: bool,
    /// The traces of a directory that could not be read, in path order (each fails the gate).
    pub failures: Vec<TraceFailure>,
    /// The files of a directory that were skipped as not traces, for the caller to show.
    pub skipped: Vec<veer_trace::load::SkippedEntry>,
}

impl CheckInputs {
    /// The traces as [`check`] takes them.
    pub fn named(&self) -> Vec<NamedTrace<'_>> {
        self.traces
            .iter()
            .map(|(name, path, t)| (name.clone(), path.clone(), t))
            .collect()
    }
}

/// Reads the traces `path` names: every trace under a directory (one that cannot be read
/// becomes a [`TraceFailure`]), or the runs of one file, which must load.
pub fn read_traces(path: &Path, options: &ReadOptions) -> Result<CheckInputs, crate::Error> {
    if path.is_dir() {
        let mut traces = Vec::new();
        let mut failures = Vec::new();
        let (entries, skipped) = veer_trace::load_directory(path, options)?;
        for entry in entries {
            let file = path.join(&entry.relative).display().to_string();
            match entry.trace {
                Ok(t) => traces.push((entry.relative, file, t)),
                Err(e) => failures.push(TraceFailure {
                    trace: entry.relative,
                    file,
                    line: e.line,
                    error: e.to_string(),
                    hint: e.hint,
                }),
            }
        }
        return Ok(CheckInputs {
            traces,
            directory: true,
            failures,
            skipped,
        });
    }
    let name = path.display().to_string();
    let traces = match veer_trace::load_file(path, options)? {
        Document::Trace(t) => vec![(name.clone(), name, t)],
        Document::Results(r) => r
            .traces
            .into_iter()
            .map(|(label, t)| (format!("{name} [{label}]"), name.clone(), t))
            .collect(),
        Document::AnalyzerCase(c) => vec![
            (format!("{name} [clean]"), name.clone(), c.clean),
            (format!("{name} [perturbed]"), name, c.perturbed),
        ],
    };
    Ok(CheckInputs {
        directory: traces.len() > 1,
        traces,
        failures: Vec::new(),
        skipped: Vec::new(),
    })
}

/// The gate over a [`check`] report at `fail_on`: the unreadable traces added as error rows
/// (each trips the gate), and with `allow_prevented` the calls the live policy blocked kept in
/// the report but not counted. Returns the report, its `gate` filled, and the verdict.
pub fn judge(
    report: CheckReport,
    failures: Vec<TraceFailure>,
    allow_prevented: bool,
    fail_on: Level,
) -> (CheckReport, Verdict) {
    let mut report = report.with_errors(failures);
    let counted: Vec<Vec<Violation>> = report
        .traces
        .iter()
        .map(|t| {
            t.violations
                .iter()
                .filter(|v| !allow_prevented || v.status.is_none())
                .cloned()
                .collect()
        })
        .collect();
    let verdict = crate::verdict::check_verdict(
        fail_on,
        report
            .traces
            .iter()
            .zip(&counted)
            .map(|(t, v)| (Some(t.trace.as_str()), v.as_slice())),
        report
            .errors
            .iter()
            .map(|e| (e.trace.as_str(), e.error.as_str())),
    );
    report.gate = verdict.gate();
    (report, verdict)
}

/// Evaluates `policy` (loaded from `policy_name`) on each trace and gathers the report
/// `veer check` prints, with the gate at `fail_on`. Also returns the evaluation's warnings,
/// each prefixed with its trace's name, for the caller to show.
pub fn check(
    policy_name: String,
    policy: &veer_policy::Policy,
    traces: &[NamedTrace<'_>],
    directory: bool,
    fail_on: Level,
) -> (CheckReport, Vec<String>) {
    let mut warnings = Vec::new();
    let checked: Vec<CheckedTrace> = traces
        .iter()
        .map(|(name, path, t)| {
            let e = veer_policy::evaluate_with_warnings(policy, t);
            warnings.extend(e.warnings.iter().map(|w| format!("{name}: {w}")));
            CheckedTrace {
                trace: name.clone(),
                violations: with_prevented(policy, e.violations, t),
                path: path.clone(),
                lines: t.responses().iter().map(|r| r.record.line).collect(),
                session_lines: t.policy_session_lines(),
            }
        })
        .collect();
    let mut watch = veer_policy::coverage::Coverage::new(policy);
    for (_, _, t) in traces {
        watch.observe(policy, t);
    }
    warnings.extend(
        watch
            .dead_rules(policy)
            .into_iter()
            .map(|d| format!("policy rule `{}` {}; {}", d.rule_id, d.message, d.hint)),
    );
    let all: Vec<Violation> = checked
        .iter()
        .flat_map(|c| c.violations.iter().cloned())
        .collect();
    let rules = policy
        .rules
        .iter()
        .map(|r| CheckRule {
            id: r.id.clone(),
            kind: r.check.kind().name().to_string(),
            severity: r.severity.name().to_string(),
        })
        .collect();
    let report = CheckReport {
        policy: policy_name,
        rules,
        traces: checked,
        errors: Vec::new(),
        directory,
        gate: veer_contract::policy::gate_violations(fail_on, &all),
    };
    (report, warnings)
}

/// The violations `evaluate` found plus the calls the live policy blocked while `trace` was
/// recorded (status `prevented`; one already found at the same rule, session and turn is not
/// repeated), in rule order (a rule the policy does not have last), found before prevented.
fn with_prevented(
    policy: &veer_policy::Policy,
    mut found: Vec<Violation>,
    trace: &veer_trace::Trace,
) -> Vec<Violation> {
    let decisions = veer_policy::live::decisions(trace);
    if decisions.is_empty() {
        return found;
    }
    for p in veer_policy::live::prevented(policy, &decisions) {
        if !found.iter().any(|v| v.key() == p.key()) {
            found.push(p);
        }
    }
    let rank = |v: &Violation| {
        policy
            .rules
            .iter()
            .position(|r| r.id == v.rule_id)
            .unwrap_or(usize::MAX)
    };
    found.sort_by_key(|v| (rank(v), v.status.is_some()));
    found
}
