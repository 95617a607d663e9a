//! JUnit XML for CI test views: one test suite per trace pair, one test case per axis. An axis
//! with severity `moderate` or `severe` in its worse direction is a failure (an improvement
//! passes, its summary saying so); an axis with no observation is skipped.
//! A pair (or trace) that could not be read is a suite of one test case in error.

use super::format::{change, interval};
use super::stream::{render_all, DirectoryPrinter};
use veer_diff::{AxisStat, DiffReport, DirectoryPair, DirectoryReport, DirectorySummary, Severity};

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
/// `<error>` carries the error and its hint. `classname` is `veer.diff` or `veer.policy`.
pub fn error_suite(name: &str, classname: &str, error: &str, hint: Option<&str>) -> String {
    let detail = match hint {
        Some(h) => format!("{error}\nhint: {h}"),
        None => error.to_string(),
    };
    format!(
        "  <testsuite name=\"{}\" tests=\"1\" failures=\"0\" skipped=\"0\" errors=\"1\">\n    <testcase classname=\"{classname}\" name=\"read\">\n      <error type=\"unreadable\" message=\"{}\">{}</error>\n    </testcase>\n  </testsuite>\n",
        escape(name),
        escape(error),
        escape(&detail)
    )
}

fn fails(a: &AxisStat) -> bool {
    a.severity >= Severity::Moderate && a.direction != veer_diff::Direction::Improvement
}

fn suite(name: &str, r: &DiffReport, out: &mut String) {
    let failures = r.axes.iter().filter(|a| fails(a)).count();
    let skipped = r.axes.iter().filter(|a| a.n == 0).count();
    out.push_str(&format!(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\" errors=\"0\">\n",
        escape(name),
        r.axes.len()
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
        } else if fails(a) {
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
            out.push_str(&format!(
                "      <system-out>{}</system-out>\n",
                escape(&summary)
            ));
        }
        out.push_str("    </testcase>\n");
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
    /// Adds the suite of one trace pair (and its policy suite, if any).
    fn add(&mut self, name: &str, r: &DiffReport) {
        // A policy diff adds one case per regression and fix (one passing case when neither).
        let (policy_tests, policy_failures) = r.policy.as_ref().map_or((0, 0), |p| {
            (
                (p.regressions.len() + p.fixes.len()).max(1),
                p.regressions.len(),
            )
        });
        self.tests += r.axes.len() + policy_tests;
        self.failures += r.axes.iter().filter(|a| fails(a)).count() + policy_failures;
        suite(name, r, &mut self.body);
        if let Some(p) = &r.policy {
            self.body.push_str(&crate::policy::junit::diff_suite(
                &format!("{name} policy"),
                p,
            ));
        }
        if let Some(e) = &r.enforcement {
            self.tests += e.baseline.len() + e.candidate.len();
            live_suite(&format!("{name} live policy"), e, &mut self.body);
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

/// The live-policy decisions of both recordings: one passing test case per decision (class
/// `veer.live`, named `<side> <action> <rule> @ turn #i`), its line in `<system-out>`. They are
/// shown, not gated: the agent never acted on a blocked response.
fn live_suite(name: &str, e: &veer_policy::live::Enforcement, out: &mut String) {
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
                escape(&veer_policy::live::decision_line(d))
            ));
        }
    }
    out.push_str("  </testsuite>\n");
}

/// JUnit XML for one trace pair.
pub fn render(r: &DiffReport) -> String {
    let mut suites = DirectorySuites::default();
    suites.add(&format!("{} vs {}", r.baseline.path, r.candidate.path), r);
    suites.document()
}

/// JUnit XML for a directory diff: one suite per matched trace pair. Streamed, the printer
/// holds every rendered suite until the end, because the document's header carries the totals.
pub fn render_directory(d: &DirectoryReport) -> String {
    render_all(Box::new(DirectorySuites::default()), d)
}

impl DirectoryPrinter for DirectorySuites {
    fn pair(&mut self, p: &DirectoryPair) -> String {
        self.add(&p.baseline, &p.report);
        String::new()
    }

    fn finish(mut self: Box<Self>, d: &DirectorySummary) -> String {
        for e in &d.errors {
            self.tests += 1;
            self.errors += 1;
            self.body.push_str(&error_suite(
                &e.baseline,
                "veer.diff",
                &e.error,
                e.hint.as_deref(),
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
