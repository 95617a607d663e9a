//! JUnit XML for CI test views: one test suite per trace pair, one test case per axis. A test
//! case fails exactly when the [`Verdict`] lists it as tripping the gate (so `--fail-on never`
//! writes no failure and the failures agree with the exit code); an axis with no observation is
//! skipped; a fingerprint test that tripped the gate is one more failing case. A pair (or
//! trace) that could not be read is a suite of one test case: a failure when it tripped a set
//! gate, an error when no gate counts it (exit 2).

use super::format::{change, interval};
use super::stream::DirectoryPrinter;
use veer_contract::diff::{DiffReport, DirectoryPair, DirectorySummary};
use veer_contract::quarantine::QuarantineMark;
use veer_contract::verdict::{Cause, Verdict};

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// The suite of an input that could not be read or compared: one test case `read` whose
/// `<failure>` (when it tripped a set gate) or `<error>` (when no gate counts it) carries the
/// error and its hint. `classname` is `veer.diff` or `veer.policy`.
pub(crate) fn error_suite(
    name: &str,
    classname: &str,
    error: &str,
    hint: Option<&str>,
    failed: bool,
) -> String {
    let detail = match hint {
        Some(h) => format!("{error}\nhint: {h}"),
        None => error.to_string(),
    };
    let (failures, errors, element) = if failed {
        (1, 0, "failure")
    } else {
        (0, 1, "error")
    };
    format!(
        "  <testsuite name=\"{}\" tests=\"1\" failures=\"{failures}\" skipped=\"0\" errors=\"{errors}\">\n    <testcase classname=\"{classname}\" name=\"read\">\n      <{element} type=\"unreadable\" message=\"{}\">{}</{element}>\n    </testcase>\n  </testsuite>\n",
        escape(name),
        escape(error),
        escape(&detail)
    )
}

/// Whether the pair's verdict lists `cause` as tripping the gate.
pub(crate) fn trips(v: &Verdict, cause: &Cause) -> bool {
    v.trips.iter().any(|t| &t.cause == cause)
}

/// Whether the axis `wire` tripped the gate.
fn axis_trips(v: &Verdict, wire: &str) -> bool {
    trips(
        v,
        &Cause::Axis {
            axis: wire.to_string(),
        },
    )
}

/// Whether the pair's own fingerprint test tripped the gate.
fn fingerprint_trips(v: &Verdict) -> bool {
    trips(v, &Cause::Fingerprint { pooled: false })
}

fn suite(name: &str, r: &DiffReport, v: &Verdict, mark: Option<&QuarantineMark>, out: &mut String) {
    let fingerprint = usize::from(fingerprint_trips(v));
    let failures = r
        .axes
        .iter()
        .filter(|a| axis_trips(v, a.axis.wire()))
        .count()
        + fingerprint;
    let skipped = r.axes.iter().filter(|a| a.n == 0).count();
    out.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\" errors=\"0\">\n",
        escape(name),
        r.axes.len() + fingerprint
    ));
    // The headline every format leads with (the first divergence whenever there is one).
    // A quarantined pair (measured, never a failure) says so in a property too.
    let quarantined = mark.map_or(String::new(), |m| {
        format!(
            "      <property name=\"quarantined\" value=\"{}\"/>\n",
            escape(&super::quarantine::tag(m))
        )
    });
    out.push_str(&format!(
        "    <properties>\n      <property name=\"headline\" value=\"{}\"/>\n{quarantined}    </properties>\n",
        escape(&r.headline)
    ));
    for a in &r.axes {
        let summary = format!(
            "{}: {} (delta {}, 95% CI {}, n {})",
            a.axis.wire(),
            super::format::severity_label(a),
            change(a.axis, a.delta),
            interval(a),
            a.n
        );
        out.push_str(&format!(
            "    <testcase classname=\"veer.diff\" name=\"{}\">\n",
            a.axis.wire()
        ));
        if a.n == 0 {
            out.push_str("      <skipped message=\"no observation for this axis\"/>\n");
        } else if axis_trips(v, a.axis.wire()) {
            let mut detail = summary.clone();
            if let Some(d) = &r.first_divergence {
                detail.push_str(&format!(
                    "\nfirst divergence: baseline turn #{} / candidate turn #{} ({}): {}",
                    d.baseline_turn,
                    d.candidate_turn,
                    d.kind.label(),
                    d.explanation
                ));
            }
            out.push_str(&format!(
                "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                a.severity.label(),
                escape(&summary),
                escape(&detail)
            ));
        } else {
            let excused = v.quarantined.iter().any(|t| {
                t.cause
                    == Cause::Axis {
                        axis: a.axis.wire().to_string(),
                    }
            });
            out.push_str(&format!(
                "      <system-out>{}{}</system-out>\n",
                if excused {
                    "quarantined, not gating: "
                } else {
                    ""
                },
                escape(&summary)
            ));
        }
        out.push_str("    </testcase>\n");
    }
    if fingerprint == 1 {
        out.push_str(
            "    <testcase classname=\"veer.diff\" name=\"fingerprint\">\n      <failure type=\"moderate\" message=\"the behaviour-fingerprint test is a powered rejection\">the behaviour-fingerprint test is a powered rejection (moderate): the responses' joint distribution moved</failure>\n    </testcase>\n",
        );
    }
    out.push_str("  </testsuite>\n");
}

/// The suites of a JUnit document as they are added, and the totals its header needs.
#[derive(Debug, Default)]
pub struct DirectorySuites {
    tests: usize,
    failures: usize,
    /// Suites of pairs that could not be read (counted in `tests` too).
    errors: usize,
    /// The rendered suites, in order (the header, written last, carries the totals).
    body: String,
}

impl DirectorySuites {
    /// Adds the suite of one trace pair (and its policy suite, if any), failing the cases the
    /// pair's verdict lists.
    fn add(&mut self, name: &str, r: &DiffReport, v: &Verdict, mark: Option<&QuarantineMark>) {
        let fingerprint = usize::from(fingerprint_trips(v));
        self.tests += r.axes.len() + fingerprint;
        self.failures += r
            .axes
            .iter()
            .filter(|a| axis_trips(v, a.axis.wire()))
            .count()
            + fingerprint;
        suite(name, r, v, mark, &mut self.body);
        if let Some(p) = &r.policy {
            let (text, tests, failures) =
                crate::policy::junit::diff_suite(&format!("{name} policy"), p, v);
            self.tests += tests;
            self.failures += failures;
            self.body.push_str(&text);
        }
        if let Some(e) = &r.enforcement {
            self.tests += e.baseline.len() + e.candidate.len();
            live_suite(&format!("{name} live policy"), e, &mut self.body);
        }
        if let Some(t) = &r.tool_schema {
            self.tests += t.changes.len();
            self.failures += schema_suite(&format!("{name} tool schema"), t, v, &mut self.body);
        }
    }

    /// The whole document.
    fn document(self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        if self.errors == 0 {
            out.push_str(&format!(
                "<testsuites name=\"veer diff\" tests=\"{}\" failures=\"{}\">\n",
                self.tests, self.failures
            ));
        } else {
            out.push_str(&format!(
                "<testsuites name=\"veer diff\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
                self.tests, self.failures, self.errors
            ));
        }
        out.push_str(&self.body);
        out.push_str("</testsuites>\n");
        out
    }
}

/// The tool-schema changes: one test case per change (class `veer.schema`, named
/// `<tool.parameter> <kind>`), a failure when the verdict lists the tool schema as tripping the
/// gate and the change is at or above `--fail-on-schema`, else its line in `<system-out>`.
/// Returns the failures.
fn schema_suite(
    name: &str,
    t: &veer_contract::tool_schema::ToolSchemaDiff,
    v: &Verdict,
    out: &mut String,
) -> usize {
    let gated = v
        .trips
        .iter()
        .any(|trip| matches!(trip.cause, Cause::ToolSchema { .. }));
    let fails = |c: &veer_contract::tool_schema::SchemaChange| {
        gated && t.fail_on.is_some_and(|f| c.class >= f)
    };
    let failures = t.changes.iter().filter(|c| fails(c)).count();
    out.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"0\" errors=\"0\">\n",
        escape(name),
        t.changes.len()
    ));
    for c in &t.changes {
        let line = super::tool_schema::change_line(c);
        out.push_str(&format!(
            "    <testcase classname=\"veer.schema\" name=\"{}\">\n",
            escape(&format!("{} {}", c.location(), c.kind.label()))
        ));
        if fails(c) {
            out.push_str(&format!(
                "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                c.class.label(),
                escape(&line),
                escape(&line)
            ));
        } else {
            out.push_str(&format!(
                "      <system-out>{}</system-out>\n",
                escape(&line)
            ));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n");
    failures
}

/// The live-policy decisions of both recordings: one passing test case per decision (class
/// `veer.live`, named `<side> <action> <rule> @ turn #i`), its line in `<system-out>`. They are
/// shown, not gated: the agent never acted on a blocked response.
fn live_suite(name: &str, e: &veer_contract::policy::Enforcement, out: &mut String) {
    let n = e.baseline.len() + e.candidate.len();
    out.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"0\" skipped=\"0\" errors=\"0\">\n",
        escape(name)
    ));
    for (side, ds) in [("baseline", &e.baseline), ("candidate", &e.candidate)] {
        for d in ds {
            let place = d
                .pair_index
                .map_or("trace".to_string(), |i| format!("turn #{i}"));
            out.push_str(&format!(
                "    <testcase classname=\"veer.live\" name=\"{}\">\n      <system-out>{}</system-out>\n    </testcase>\n",
                escape(&format!("{side} {} {} @ {place}", d.action.name(), d.rule_id)),
                escape(&veer_contract::policy::decision_line(d))
            ));
        }
    }
    out.push_str("  </testsuite>\n");
}

/// JUnit XML for one trace pair, its failures those of `verdict`.
pub fn render(r: &DiffReport, verdict: &Verdict) -> String {
    let mut suites = DirectorySuites::default();
    suites.add(
        &format!("{} vs {}", r.baseline.path, r.candidate.path),
        r,
        verdict,
        None,
    );
    suites.document()
}

/// JUnit XML for a directory diff: one suite per matched trace pair. Streamed, the printer
/// holds every rendered suite until the end, because the document's header carries the totals.
impl DirectoryPrinter for DirectorySuites {
    fn pair(&mut self, p: &DirectoryPair, verdict: &Verdict) -> String {
        self.add(&p.baseline, &p.report, verdict, p.quarantined.as_ref());
        String::new()
    }

    fn finish(mut self: Box<Self>, d: &DirectorySummary, verdict: &Verdict) -> String {
        if verdict.tripped_by(None, &Cause::Fingerprint { pooled: true }) {
            self.tests += 1;
            self.failures += 1;
            self.body.push_str(
                "  <testsuite name=\"pooled fingerprint\" tests=\"1\" failures=\"1\" skipped=\"0\" errors=\"0\">\n    <testcase classname=\"veer.diff\" name=\"pooled fingerprint\">\n      <failure type=\"moderate\" message=\"the pooled behaviour-fingerprint test is a powered rejection\">the pooled behaviour-fingerprint test of every response is a powered rejection (moderate)</failure>\n    </testcase>\n  </testsuite>\n",
            );
        }
        for e in &d.errors {
            let failed = verdict.tripped;
            self.tests += 1;
            if failed {
                self.failures += 1;
            } else {
                self.errors += 1;
            }
            self.body.push_str(&error_suite(
                &e.baseline,
                "veer.diff",
                &e.error,
                e.hint.as_deref(),
                failed,
            ));
        }
        (*self).document()
    }
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn xml_escaping() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("line\nnext\ttab"), "line\nnext\ttab");
    }
}
