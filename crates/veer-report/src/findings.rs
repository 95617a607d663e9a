//! What the CI printers ([`crate::sarif`], [`crate::github`]) report: one [`Finding`] per policy
//! regression (or violation, for `veer check`), per severe axis and per other signal that
//! tripped the gate, picked from the report structs without computing anything. A finding is
//! an `error` exactly when the [`Verdict`] lists it as tripping the gate (and an unreadable
//! input always is); otherwise it is at most a `warning`.

use crate::diff::format::{axis_meaning, change, interval};
use crate::policy::locus;
use veer_base::Level;
use veer_contract::check::CheckReport;
use veer_contract::diff::DiffReport;
use veer_contract::diff::PairError;
use veer_contract::policy::Violation;
use veer_contract::verdict::{Cause, Verdict};

/// How loud a finding is (SARIF `level`, GitHub command).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FindingLevel {
    /// Informational (`note` / `::notice`).
    Note,
    /// Should be looked at (`warning` / `::warning`).
    Warning,
    /// Blocks a merge (`error` / `::error`).
    Error,
}

impl FindingLevel {
    /// The SARIF `level` value.
    pub fn sarif(self) -> &'static str {
        match self {
            FindingLevel::Note => "note",
            FindingLevel::Warning => "warning",
            FindingLevel::Error => "error",
        }
    }

    /// The level of a finding: `error` when it tripped the gate, otherwise its own level
    /// (`of`) capped at `warning`.
    pub fn gated(tripped: bool, of: FindingLevel) -> FindingLevel {
        if tripped {
            FindingLevel::Error
        } else {
            of.min(FindingLevel::Warning)
        }
    }

    /// The level of a policy rule severity: info → note, warning → warning, error and
    /// critical → error.
    pub(crate) fn of_policy(s: veer_contract::policy::Severity) -> FindingLevel {
        match s {
            veer_contract::policy::Severity::Info => FindingLevel::Note,
            veer_contract::policy::Severity::Warning => FindingLevel::Warning,
            veer_contract::policy::Severity::Error | veer_contract::policy::Severity::Critical => {
                FindingLevel::Error
            }
        }
    }
}

/// One result for a CI system.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Stable rule id: `policy/<rule id>` or `axis/<axis>`.
    pub rule_id: String,
    /// One-line description of the rule (SARIF `shortDescription`).
    pub rule_summary: String,
    /// What the rule checks and what to do about it (SARIF `help`).
    pub rule_help: String,
    /// How loud it is.
    pub level: FindingLevel,
    /// A short title (GitHub `title=`).
    pub title: String,
    /// The message.
    pub message: String,
    /// The trace file the finding is in (the candidate in a diff).
    pub file: String,
    /// 1-based line of the record, when known: the pair's response for a pair-level finding,
    /// the start of its session for a session-level one, the first divergence's candidate turn
    /// for an axis.
    pub line: Option<u64>,
}

fn policy_help(v: &Violation) -> String {
    format!(
        "The behaviour policy rule `{}` ({}, severity {}) holds on every run it applies to. \
         Open the trace at the reported line to see the turn that breaks it; the policy file \
         says what the agent must do instead.",
        v.rule_id,
        v.kind.name(),
        v.severity.name()
    )
}

/// Where a violation's trace holds its findings: the line of each turn's response and of each
/// policy session's start.
struct Lines<'a> {
    turns: &'a [Option<u64>],
    sessions: &'a [Option<u64>],
}

impl Lines<'_> {
    /// The pair's response line; for a session-level violation the line its session starts
    /// at; for a trace-level one the first session's.
    fn of(&self, v: &Violation) -> Option<u64> {
        match v.pair_index {
            Some(i) => self.turns.get(i).copied().flatten(),
            None => self.sessions.get(v.session.unwrap_or(0)).copied().flatten(),
        }
    }
}

/// Whether `cause` is among the verdict's trips (of `trace`, when given).
fn tripped(verdict: &Verdict, trace: Option<&str>, cause: &Cause) -> bool {
    verdict
        .trips
        .iter()
        .any(|t| &t.cause == cause && (trace.is_none() || t.trace.as_deref() == trace))
}

/// The verdict's cause for a policy violation.
fn policy_cause(v: &Violation) -> Cause {
    Cause::Policy {
        rule_id: v.rule_id.clone(),
        pair_index: v.pair_index,
        session: v.session,
    }
}

fn violation(
    v: &Violation,
    file: &str,
    lines: &Lines<'_>,
    regression: bool,
    tripped: bool,
) -> Finding {
    let verb = if regression {
        "candidate regression"
    } else {
        "violation"
    };
    Finding {
        rule_id: format!("policy/{}", v.rule_id),
        rule_summary: format!("policy rule {} ({})", v.rule_id, v.kind.name()),
        rule_help: policy_help(v),
        level: FindingLevel::gated(tripped, FindingLevel::of_policy(v.severity)),
        title: format!("veer: {} {verb}", v.rule_id),
        message: format!(
            "[{}] {} @ {}: {}",
            v.severity.name(),
            v.rule_id,
            locus(v),
            v.detail
        ),
        file: file.to_string(),
        line: lines.of(v),
    }
}

/// The findings of one pair diff: each policy regression, then each severe or tripping axis
/// (located at the candidate turn of the first divergence, when there is one), then the
/// fingerprint test when it tripped the gate. `verdict` is the pair's.
pub fn diff_findings(r: &DiffReport, verdict: &Verdict) -> Vec<Finding> {
    let file = r.candidate.path.as_str();
    let mut out: Vec<Finding> = r
        .policy
        .iter()
        .flat_map(|p| &p.regressions)
        .map(|v| {
            let lines = Lines {
                turns: &r.candidate_lines,
                sessions: &r.candidate_session_lines,
            };
            violation(
                v,
                file,
                &lines,
                true,
                tripped(verdict, None, &policy_cause(v)),
            )
        })
        .collect();
    let divergence_line = r.first_divergence.as_ref().and_then(|d| {
        let last = r.candidate_lines.len().checked_sub(1)?;
        r.candidate_lines
            .get(d.candidate_turn.min(last))
            .copied()
            .flatten()
    });
    // The headline every format leads with, as a note at the first divergence's candidate
    // turn, so SARIF viewers and GitHub annotations name where the runs first diverged even
    // when no axis moved far enough to be reported (it never gates).
    if r.first_divergence.is_some() {
        out.insert(
            0,
            Finding {
                rule_id: "divergence/first".to_string(),
                rule_summary: "where the two runs' behaviour first diverges".to_string(),
                rule_help: "The first turn where the candidate run stops doing what the baseline \
                            run did (a different tool call, different arguments, a different \
                            answer), found by aligning the runs turn by turn. It is context for \
                            the other findings and never gates by itself; read the turns named \
                            here first."
                    .to_string(),
                level: FindingLevel::Note,
                title: "veer: first divergence".to_string(),
                message: r.headline.clone(),
                file: file.to_string(),
                line: divergence_line,
            },
        );
    }
    // Calls the live policy blocked while the candidate was recorded: notes at their policy
    // event (the agent never acted on them, so they do not gate).
    for d in r
        .enforcement
        .iter()
        .flat_map(|e| &e.candidate)
        .filter(|d| d.blocked)
    {
        out.push(Finding {
            rule_id: format!("live-policy/{}", d.rule_id),
            rule_summary: format!("policy rule {} enforced while recording", d.rule_id),
            rule_help: "veer record --policy … --enforce replace|raise judged this call while \
                        the run was recorded and blocked it: the agent got a replacement answer \
                        or an error instead of the response that broke the rule. `veer check` \
                        reports it as a violation with status prevented."
                .to_string(),
            level: FindingLevel::Note,
            title: format!("veer: {} blocked live", d.rule_id),
            message: veer_contract::policy::decision_line(d),
            file: file.to_string(),
            line: d.line,
        });
    }
    for a in &r.axes {
        let wire = a.axis.wire();
        let cause = Cause::Axis {
            axis: wire.to_string(),
        };
        let trips = tripped(verdict, None, &cause);
        if a.severity != Level::Severe && !trips {
            continue;
        }
        // An improvement (the axis's better direction) is a note, never a merge-blocking error.
        let improved = a.direction == veer_contract::axis::Direction::Improvement;
        let moved = if improved { "improved" } else { "changed" };
        out.push(Finding {
            rule_id: format!("axis/{wire}"),
            rule_summary: format!("behaviour axis {wire}: {}", axis_meaning(a.axis)),
            rule_help: format!(
                "The {} axis compares the candidate run with the baseline run ({}); a severe \
                 change means the 95% bootstrap interval of the change is far from zero. Look \
                 at the first divergence and the drill-down of `veer diff` to see which turns \
                 moved, then decide whether the change is intended.",
                a.axis.label(),
                axis_meaning(a.axis)
            ),
            level: if improved {
                FindingLevel::Note
            } else {
                FindingLevel::gated(trips, FindingLevel::Warning)
            },
            title: format!("veer: {wire} {moved} ({})", a.severity.label()),
            message: format!(
                "{} {moved} by {} (95% CI {}, n = {}): {}",
                a.axis.label(),
                change(a.axis, a.delta),
                interval(a),
                a.n,
                a.severity.label()
            ),
            file: file.to_string(),
            line: divergence_line,
        });
    }
    out.extend(schema_findings(r, verdict));
    if tripped(verdict, None, &Cause::Fingerprint { pooled: false }) {
        out.push(Finding {
            rule_id: "fingerprint/joint".to_string(),
            rule_summary: "the joint behaviour-fingerprint test of every response".to_string(),
            rule_help: "The behaviour-fingerprint test compares the distribution of every \
                        response's fingerprint (tokens, latency, tool calls, text length, \
                        argument keys) between the runs with a Hotelling T² test; a powered \
                        rejection with a real shift counts as a moderate change. Look at the \
                        fingerprint block of `veer diff` to see which dimensions moved."
                .to_string(),
            level: FindingLevel::Error,
            title: "veer: behaviour fingerprint changed".to_string(),
            message: "the behaviour-fingerprint test is a powered rejection (moderate)".to_string(),
            file: file.to_string(),
            line: divergence_line,
        });
    }
    out
}

/// The tool-schema changes worth a CI annotation: each breaking change (a warning) and
/// compatible change (a note), and any change at or above `--fail-on-schema` when the tool
/// schema tripped the gate (an error). Cosmetic changes that do not gate are left to the
/// report.
fn schema_findings(r: &DiffReport, verdict: &Verdict) -> Vec<Finding> {
    use veer_contract::tool_schema::SchemaClass;
    let Some(t) = &r.tool_schema else {
        return Vec::new();
    };
    let gated = verdict
        .trips
        .iter()
        .any(|trip| matches!(trip.cause, Cause::ToolSchema { .. }));
    t.changes
        .iter()
        .filter_map(|c| {
            let trips = gated && t.fail_on.is_some_and(|f| c.class >= f);
            let level = match (trips, c.class) {
                (true, _) => FindingLevel::Error,
                (false, SchemaClass::Breaking) => FindingLevel::Warning,
                (false, SchemaClass::Compatible) => FindingLevel::Note,
                (false, SchemaClass::Cosmetic) => return None,
            };
            Some(Finding {
                rule_id: format!("tool-schema/{}", c.class.label()),
                rule_summary: format!("a {} change of the offered tools", c.class.label()),
                rule_help: "veer compares the tools the baseline's and the candidate's requests \
                            offered the model. Breaking changes (a removed or renamed tool or \
                            parameter, a changed type, a new required parameter) can make calls \
                            the agent was built for fail; compatible ones keep them valid; \
                            cosmetic ones change only descriptions. See docs/tool-schema.md; \
                            --fail-on-schema makes a class gate."
                    .to_string(),
                level,
                title: format!("veer: tool schema {} change", c.class.label()),
                message: crate::diff::tool_schema::change_line(c),
                file: r.candidate.path.clone(),
                line: None,
            })
        })
        .collect()
}

/// The findings of one pair of a directory diff: its [`diff_findings`], but for a pair the
/// engine marked quarantined each is a note saying so (measured and shown, never gating).
pub(crate) fn pair_findings(
    p: &veer_contract::diff::DirectoryPair,
    verdict: &Verdict,
) -> Vec<Finding> {
    let mut out = diff_findings(&p.report, verdict);
    if let Some(m) = &p.quarantined {
        let tag = crate::diff::quarantine::tag(m);
        for f in &mut out {
            f.level = FindingLevel::Note;
            f.message = format!("[{tag}] {}", f.message);
        }
    }
    out
}

/// The rule id of an input that could not be read or compared.
pub(crate) const UNREADABLE_RULE: &str = "input/unreadable";

/// The finding of an input that could not be read or compared: an error at the file (and
/// line) at fault, with the error and its hint.
pub fn unreadable(file: &str, line: Option<u64>, error: &str, hint: Option<&str>) -> Finding {
    let message = match hint {
        Some(h) => format!("{error} (hint: {h})"),
        None => error.to_string(),
    };
    Finding {
        rule_id: UNREADABLE_RULE.to_string(),
        rule_summary: "an input trace that could not be read or compared".to_string(),
        rule_help: "veer could not measure this trace: it is malformed, over a reading limit, \
                    unreadable, or has nothing to compare (no responses). The other traces were \
                    measured; this one counts as a failure of the gate. Fix or re-record the \
                    file, then run again."
            .to_string(),
        level: FindingLevel::Error,
        title: "veer: trace could not be read".to_string(),
        message,
        file: file.to_string(),
        line,
    }
}

/// One finding per error row of a directory diff, in path order.
pub(crate) fn pair_error_findings(errors: &[PairError]) -> Vec<Finding> {
    errors
        .iter()
        .map(|e| {
            let file = e.file.as_deref().unwrap_or(&e.candidate);
            unreadable(file, e.line, &e.error, e.hint.as_deref())
        })
        .collect()
}

/// The findings of `veer check`: every violation of every trace, then one per trace that could
/// not be read. `verdict` is the check's ([`veer_engine::verdict::check_verdict`], traces
/// named by path).
pub fn check_findings(r: &CheckReport, verdict: &Verdict) -> Vec<Finding> {
    let mut out: Vec<Finding> = r
        .traces
        .iter()
        .flat_map(|t| {
            t.violations.iter().map(|v| {
                let lines = Lines {
                    turns: &t.lines,
                    sessions: &t.session_lines,
                };
                let trips = tripped(verdict, Some(&t.trace), &policy_cause(v));
                violation(v, &t.path, &lines, false, trips)
            })
        })
        .collect();
    out.extend(
        r.errors
            .iter()
            .map(|e| unreadable(&e.file, e.line, &e.error, e.hint.as_deref())),
    );
    out
}

/// A CI printer of a streamed directory diff that needs every finding before it writes (SARIF
/// indexes its rules; GitLab's report is one array): it keeps each pair's findings, then the
/// error rows', and renders them once at the end with `render`.
#[derive(Debug)]
pub struct DirectoryFindings {
    findings: Vec<Finding>,
    render: fn(&[Finding]) -> String,
}

impl DirectoryFindings {
    /// An empty collection rendered by `render` at the end.
    pub fn new(render: fn(&[Finding]) -> String) -> DirectoryFindings {
        DirectoryFindings {
            findings: Vec::new(),
            render,
        }
    }
}

impl crate::diff::stream::DirectoryPrinter for DirectoryFindings {
    fn pair(&mut self, p: &veer_contract::diff::DirectoryPair, verdict: &Verdict) -> String {
        self.findings.extend(pair_findings(p, verdict));
        String::new()
    }

    fn finish(
        mut self: Box<Self>,
        summary: &veer_contract::diff::DirectorySummary,
        _: &Verdict,
    ) -> String {
        self.findings.extend(pair_error_findings(&summary.errors));
        (self.render)(&self.findings)
    }
}

/// The rule a trials case is reported under: its first moved measure (a policy rule, the
/// behaviour, or a per-trial axis), or what kept it from being measured; with the rule's
/// one-line summary and help.
fn trials_rule(c: &veer_contract::trials::CaseBlock) -> (String, String, String) {
    use veer_contract::trials::CaseVerdict;
    let first = c.measures.first().map(String::as_str);
    match (c.verdict, first) {
        (CaseVerdict::Missing, _) => (
            "trials/missing".into(),
            "a case with trials on one side only".into(),
            "The case has trials in one directory and none in the other: an eval job that \
             stopped early, a renamed case, or a case added or removed on purpose. It fails the \
             gate unless --allow-missing is given; re-run the missing side or rename it back."
                .into(),
        ),
        (CaseVerdict::Failed, _) => (
            "trials/failed".into(),
            "a case one of whose trials could not be measured".into(),
            "A trial file of this case could not be read or compared (malformed, over a reading \
             limit, or without responses). The case counts as a failure of the gate; fix or \
             re-record the file and run again."
                .into(),
        ),
        (_, Some(rule)) if c.rules.iter().any(|r| r.rule == rule) => (
            format!("policy/{rule}"),
            format!("policy rule `{rule}` across repeated trials"),
            format!(
                "The candidate's trials of this case violate policy rule `{rule}` more often than \
                 the baseline's (an exact test on the violating trials, or a break in every \
                 candidate trial of a rule no baseline trial breaks). Read the candidate trial \
                 named here at the line shown."
            ),
        ),
        (_, Some("behaviour")) | (CaseVerdict::Changed, None) => (
            "trials/behaviour".into(),
            "what the agent did changed across repeated trials".into(),
            "The candidate's trials of this case call other tools, in another order or with \
             other arguments than the baseline's, more than the trials of each side differ among \
             themselves (the excess behaviour divergence, a permutation test within the case). \
             The message says what changed, from the most typical trial of each side; the \
             location is the candidate's typical trial where it first differs."
                .into(),
        ),
        (_, Some(axis)) => (
            format!("trials/axis/{axis}"),
            format!("`{axis}` moved across repeated trials"),
            format!(
                "The per-trial `{axis}` of this case moved beyond its practical margin between \
                 the baseline's and the candidate's trials (a permutation test of the means). \
                 The message gives both means; the location is the candidate's typical trial."
            ),
        ),
        (_, None) => (
            "trials/case".into(),
            "a case of a repeated-trials diff".into(),
            "A case whose verdict is shown in the message.".into(),
        ),
    }
}

/// The findings of a repeated-trials diff: one per case that could not be measured, is
/// missing, regressed, changed, or is named among what tripped the gate — an `error` when it
/// trips the gate, a `note` when quarantined, else a `warning`; plus a `warning` per
/// inconclusive case whose measures moved. Each is located at the candidate's typical (modal)
/// trial file and the line where it first differs from the baseline's, when the report has
/// them; otherwise at the case's folder under the candidate directory.
pub fn trials_findings(r: &veer_contract::trials::TrialsReport) -> Vec<Finding> {
    use veer_contract::trials::CaseVerdict;
    let root = r.candidate.trim_end_matches('/');
    let mut out = Vec::new();
    for c in r.trials.cases.iter() {
        let trips = crate::diff::trials::trips_gate(r, &c);
        let reported = trips
            || matches!(
                c.verdict,
                CaseVerdict::Regressed
                    | CaseVerdict::Changed
                    | CaseVerdict::Failed
                    | CaseVerdict::Missing
            )
            || (c.verdict == CaseVerdict::Inconclusive && !c.measures.is_empty());
        if !reported {
            continue;
        }
        let level = if trips {
            FindingLevel::Error
        } else if c.quarantined {
            FindingLevel::Note
        } else {
            FindingLevel::Warning
        };
        let (rule_id, rule_summary, rule_help) = trials_rule(&c);
        let (file, line) = match &c.modal {
            Some(m) => (format!("{root}/{}", m.candidate_file), m.candidate_line),
            None => (format!("{root}/{}", c.case), None),
        };
        out.push(Finding {
            rule_id,
            rule_summary,
            rule_help,
            level,
            title: format!("veer: case {} {}", c.case, c.verdict),
            message: crate::diff::trials::case_line(&c),
            file,
            line,
        });
    }
    out
}
