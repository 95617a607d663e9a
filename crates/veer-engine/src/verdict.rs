//! The one verdict: whether the gate trips and exactly what tripped it.
//!
//! Every front end and printer reads a [`Verdict`] instead of deciding for itself: the exit
//! code, JUnit failures, SARIF and GitHub levels, the HTML banner, the Markdown headline, the
//! Python result and the Spark job. The decision is `worst >= fail_on` over the signals of a
//! report (axis severities, a powered fingerprint rejection, policy regressions or violations,
//! inputs that could not be read); the signals at or above the threshold are what tripped. The
//! tool schema has its own threshold (`--fail-on-schema`, held in the report's block): its trip
//! joins the others whatever `fail_on` is.

use veer_base::Level;
use veer_contract::diff::DiffReport;
use veer_contract::diff::PairError;
use veer_contract::fingerprint::FingerprintBlock;
use veer_contract::policy::Violation;
use veer_contract::verdict::{Cause, Trip, Verdict};

/// The behaviour-axis signals of a pair report: each axis at its gate level
/// ([`axis_gate_level`]). The one place the axis-level input to the gate is chosen.
pub(crate) fn axis_signals(report: &DiffReport) -> Vec<Trip> {
    report
        .axes
        .iter()
        .filter_map(|a| {
            let level = axis_gate_level(a);
            (level != Level::None).then(|| Trip {
                trace: None,
                level,
                cause: Cause::Axis {
                    axis: a.axis.wire().to_string(),
                },
                reason: axis_reason(a, level),
            })
        })
        .collect()
}

/// The level at which one axis row signals the gate. The row's numbers and severity are
/// Shadow's; the gate departs from them in two ways (docs/diff.md, "The gate reads the calls"):
///
/// * only worse-direction changes gate: an improvement never trips (docs/diff.md, Direction);
/// * what the agent does is the hard signal: a changed tool call — dropped, added, renamed
///   argument or changed value — in any pair of turns (`trajectory`'s `changed_pairs`, the
///   pairs whose trajectory tokens differ) is at least `moderate`, even when the median over
///   the turns is 0 and the row's severity `none`;
/// * wording is the soft signal: a `semantic` change whose interval touches zero is at most
///   `moderate`, never `severe`; one whose changed pairs are all filler next to a tool call
///   (`filler_pairs == changed_pairs`) is at most `minor`.
pub fn axis_gate_level(a: &veer_contract::axis::AxisStat) -> Level {
    let regression = if a.direction == veer_contract::axis::Direction::Regression {
        a.severity
    } else {
        Level::None
    };
    match a.axis {
        veer_contract::axis::Axis::Trajectory if a.changed_pairs > 0 => {
            regression.max(Level::Moderate)
        }
        veer_contract::axis::Axis::Semantic
            if a.changed_pairs > 0 && a.filler_pairs == a.changed_pairs =>
        {
            regression.min(Level::Minor)
        }
        veer_contract::axis::Axis::Semantic if a.ci95_low <= 0.0 && a.ci95_high >= 0.0 => {
            regression.min(Level::Moderate)
        }
        _ => regression,
    }
}

/// Why an axis signals: its severity, or the changed calls when those raised it.
fn axis_reason(a: &veer_contract::axis::AxisStat, level: Level) -> String {
    let regression = a.direction == veer_contract::axis::Direction::Regression;
    if a.axis == veer_contract::axis::Axis::Trajectory && (!regression || level > a.severity) {
        return format!(
            "{} changed: tool calls differ in {} of {} turn pair(s)",
            a.axis.label(),
            a.changed_pairs,
            a.n
        );
    }
    format!("{} changed: {}", a.axis.label(), level.label())
}

/// The signal of a fingerprint test (pooled or not), None when it is not a powered rejection.
pub fn fingerprint_signal(block: Option<&FingerprintBlock>, pooled: bool) -> Option<Trip> {
    let level = block.map_or(Level::None, FingerprintBlock::gate_level);
    (level != Level::None).then(|| Trip {
        trace: None,
        level,
        cause: Cause::Fingerprint { pooled },
        reason: if pooled {
            "the pooled behaviour-fingerprint test is a powered rejection".to_string()
        } else {
            "the behaviour-fingerprint test is a powered rejection".to_string()
        },
    })
}

/// The signal of a policy violation (a regression in a diff).
pub fn policy_signal(v: &Violation, regression: bool) -> Trip {
    Trip {
        trace: None,
        level: Level::from(v.severity),
        cause: Cause::Policy {
            rule_id: v.rule_id.clone(),
            pair_index: v.pair_index,
            session: v.session,
        },
        reason: format!(
            "policy rule {} {}: {}",
            v.rule_id,
            if regression { "regressed" } else { "violated" },
            v.detail
        ),
    }
}

/// The signal of an input that could not be read or compared.
pub(crate) fn unreadable_signal(trace: Option<&str>, file: Option<&str>, error: &str) -> Trip {
    Trip {
        trace: trace.map(str::to_string),
        level: Level::Severe,
        cause: Cause::Unreadable {
            file: file.map(str::to_string),
        },
        reason: error.lines().next().unwrap_or_default().to_string(),
    }
}

/// Every signal of one pair report: its axes, its fingerprint test, its policy regressions.
pub fn pair_signals(report: &DiffReport) -> Vec<Trip> {
    let mut out = axis_signals(report);
    out.extend(fingerprint_signal(report.fingerprint.as_ref(), false));
    if let Some(p) = &report.policy {
        out.extend(p.regressions.iter().map(|v| policy_signal(v, true)));
    }
    out
}

/// The gate level of a tool-schema change class: breaking severe, compatible moderate,
/// cosmetic minor.
pub fn schema_level(class: veer_contract::tool_schema::SchemaClass) -> Level {
    match class {
        veer_contract::tool_schema::SchemaClass::Breaking => Level::Severe,
        veer_contract::tool_schema::SchemaClass::Compatible => Level::Moderate,
        veer_contract::tool_schema::SchemaClass::Cosmetic => Level::Minor,
    }
}

/// The tool-schema signal of a pair report: its changes when they reach the block's own
/// threshold (`--fail-on-schema`, held in the block so a saved report re-decides the same);
/// None when the schema does not gate or stays below it.
pub fn tool_schema_signal(report: &DiffReport) -> Option<Trip> {
    let block = report.tool_schema.as_ref().filter(|b| b.tripped)?;
    let class = block.worst?;
    let level = schema_level(class);
    let count = match class {
        veer_contract::tool_schema::SchemaClass::Breaking => block.counts.breaking,
        veer_contract::tool_schema::SchemaClass::Compatible => block.counts.compatible,
        veer_contract::tool_schema::SchemaClass::Cosmetic => block.counts.cosmetic,
    };
    Some(Trip {
        trace: None,
        level,
        cause: Cause::ToolSchema { class },
        reason: format!(
            "the offered tools changed: {count} {} change(s) (--fail-on-schema {})",
            class.label(),
            block.fail_on.map_or("never", |c| c.label())
        ),
    })
}

/// The verdict of one trace pair at `fail_on` (and the tool-schema block's own threshold).
pub fn pair_verdict(report: &DiffReport, fail_on: Level) -> Verdict {
    let mut verdict = Verdict::decide(fail_on, pair_signals(report));
    if let Some(t) = tool_schema_signal(report) {
        verdict.trip_also(t);
    }
    verdict
}

/// The verdict of a directory diff, folded pair by pair in path order (so a streamed run
/// holds only the signals that trip, never the reports).
#[derive(Debug, Clone)]
pub struct DirectoryVerdict {
    fail_on: Level,
    worst: Level,
    signals: Vec<Trip>,
    quarantine: std::collections::BTreeSet<String>,
    quarantined: Vec<Trip>,
}

impl DirectoryVerdict {
    /// An empty fold at `fail_on`.
    pub fn new(fail_on: Level) -> DirectoryVerdict {
        DirectoryVerdict {
            fail_on,
            worst: Level::None,
            signals: Vec::new(),
            quarantine: std::collections::BTreeSet::new(),
            quarantined: Vec::new(),
        }
    }

    /// The same fold with quarantined cases (pairs by relative path, from
    /// [`crate::quarantine::ActiveQuarantine::cases`]): their pairs are measured and their
    /// signals kept in [`Verdict::quarantined`], but they never trip the gate. A pair that
    /// cannot be read still trips it: quarantine excuses flaky behaviour, not broken inputs.
    pub fn with_quarantine(mut self, cases: std::collections::BTreeSet<String>) -> Self {
        self.quarantine = cases;
        self
    }

    /// Adds one measured pair (by relative path) and returns its own verdict.
    pub fn pair(&mut self, name: &str, report: &DiffReport) -> Verdict {
        let mut signals = pair_signals(report);
        for s in &mut signals {
            s.trace = Some(name.to_string());
        }
        let mut verdict = Verdict::decide(self.fail_on, signals);
        if let Some(mut t) = tool_schema_signal(report) {
            t.trace = Some(name.to_string());
            verdict.trip_also(t);
        }
        if self.quarantine.contains(name) {
            // The gate's worst leaves quarantined pairs out, so the JSON gate block
            // (`worst >= fail_on`) agrees with the exit code; the pair keeps its own worst.
            verdict.quarantined = std::mem::take(&mut verdict.trips);
            verdict.tripped = false;
            self.quarantined.extend(verdict.quarantined.iter().cloned());
        } else {
            self.worst = self.worst.max(verdict.worst);
            self.signals.extend(verdict.trips.iter().cloned());
        }
        verdict
    }

    /// The verdict once every pair is in: the pairs' signals, the pooled fingerprint test and
    /// the pairs that could not be read or compared.
    pub fn finish(mut self, pooled: Option<&FingerprintBlock>, errors: &[PairError]) -> Verdict {
        self.signals.extend(fingerprint_signal(pooled, true));
        self.signals.extend(errors.iter().map(|e| {
            unreadable_signal(
                Some(&e.baseline),
                Some(e.file.as_deref().unwrap_or(&e.candidate)),
                &e.error,
            )
        }));
        let (schema, signals): (Vec<Trip>, Vec<Trip>) = self
            .signals
            .into_iter()
            .partition(|t| matches!(t.cause, Cause::ToolSchema { .. }));
        let mut verdict = Verdict::decide(self.fail_on, signals);
        for t in schema {
            verdict.trip_also(t);
        }
        verdict.worst = verdict.worst.max(self.worst);
        verdict.quarantined = self.quarantined;
        verdict
    }
}

/// The verdict of `veer check`: every violation of every trace (named by path when there are
/// several) and every trace that could not be read.
pub fn check_verdict<'a>(
    fail_on: Level,
    traces: impl IntoIterator<Item = (Option<&'a str>, &'a [Violation])>,
    unreadable: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Verdict {
    let mut signals = Vec::new();
    for (trace, violations) in traces {
        signals.extend(violations.iter().map(|v| Trip {
            trace: trace.map(str::to_string),
            ..policy_signal(v, false)
        }));
    }
    signals.extend(
        unreadable
            .into_iter()
            .map(|(file, error)| unreadable_signal(Some(file), Some(file), error)),
    );
    Verdict::decide(fail_on, signals)
}

#[cfg(test)]
mod tests;

/// The verdict of `veer scan`: every secret found trips it (a secret in a trace is always a
/// failure, whatever its kind), each named by file and kind.
pub fn scan_verdict(findings: &[veer_contract::scan::FileFinding]) -> Verdict {
    let signals = findings
        .iter()
        .map(|f| Trip {
            trace: Some(f.file.clone()),
            level: Level::Severe,
            cause: Cause::Secret {
                file: f.file.clone(),
                secret: f.kind.clone(),
            },
            reason: format!("{}:{}: a {} secret", f.file, f.line, f.kind),
        })
        .collect();
    Verdict::decide(Level::Minor, signals)
}

/// The verdict of `veer history drift`: each axis or case drifting at its latest comparison
/// trips it.
pub fn drift_verdict(report: &veer_contract::history::DriftReport) -> Verdict {
    use veer_contract::history::DriftStatus;
    let signals = report
        .axes
        .iter()
        .chain(&report.cases)
        .filter(|s| s.detection.status == DriftStatus::Drift)
        .map(|s| Trip {
            trace: None,
            level: Level::Severe,
            cause: Cause::Drift {
                series: s.name.clone(),
            },
            reason: format!("{} is drifting", s.name),
        })
        .collect();
    Verdict::decide(Level::Minor, signals)
}

#[cfg(test)]
mod scan_tests {
    use super::*;
    use veer_contract::scan::FileFinding;

    #[test]
    fn a_scan_trips_exactly_when_a_secret_is_found() {
        assert_eq!(scan_verdict(&[]).exit_code(), 0);
        let found = FileFinding {
            file: "t.agentlog".into(),
            line: 3,
            column: 7,
            kind: "openai_key".into(),
        };
        let v = scan_verdict(&[found]);
        assert_eq!(v.exit_code(), 1);
        assert_eq!(v.trips[0].label(), "secret (openai_key) in t.agentlog");
    }
}
