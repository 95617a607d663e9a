//! Directory diffs printed as the pairs stream past: the CLI diffs thousands of trace pairs in
//! parallel but hands them to one [`DirectoryPrinter`] in relative-path order, then gives it the
//! finished [`DirectorySummary`]. Each format has one printer, used both for a streamed
//! directory and for a whole `DirectoryReport` (the tests' `render_all` checks that the two
//! print the same bytes).
//!
//! What a printer holds between pairs depends on its format (docs/corpus.md): JSON and GitHub
//! commands write each pair at once and hold nothing; Markdown holds at most its table rows and
//! detailed sections (bounded); SARIF holds the findings; the terminal table, JUnit (whose
//! header carries totals) and HTML (a page with every pair) hold their rendered pair rows until
//! the end.

use veer_contract::diff::DirectoryPair;
#[cfg(test)]
use veer_contract::diff::DirectoryReport;
use veer_contract::diff::DirectorySummary;
use veer_contract::verdict::Verdict;

/// A printer fed one trace pair at a time, in path order, then the summary. Each pair comes
/// with its own verdict and the summary with the run's (decided by `veer-engine`).
pub trait DirectoryPrinter: Send {
    /// The text that opens the document (may be empty).
    fn begin(&mut self) -> String {
        String::new()
    }

    /// The text for `pair` that can be written now (empty when the format holds it until
    /// [`DirectoryPrinter::finish`]).
    fn pair(&mut self, pair: &DirectoryPair, verdict: &Verdict) -> String;

    /// The rest of the document, once every pair has been given.
    fn finish(self: Box<Self>, summary: &DirectorySummary, verdict: &Verdict) -> String;
}

#[cfg(test)]
/// The whole document `printer` prints for `report`, given each pair's verdict (in pair order)
/// and the run's.
pub(crate) fn render_all(
    mut printer: Box<dyn DirectoryPrinter>,
    report: &DirectoryReport,
    pair_verdicts: &[Verdict],
    verdict: &Verdict,
) -> String {
    let mut out = printer.begin();
    for (p, v) in report.pairs.iter().zip(pair_verdicts) {
        out.push_str(&printer.pair(p, v));
    }
    out.push_str(&printer.finish(&report.summary(), verdict));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use veer_contract::diff::Unmatched;
    use veer_contract::diff::DIFF_SCHEMA_VERSION;
    use veer_contract::policy::Gate;
    use veer_engine::DiffOptions;

    fn pair(name: &str) -> DirectoryPair {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/shadow");
        let load = |side: &str| {
            let path = dir.join(name).join(format!("{side}.agentlog"));
            veer_trace::load_trace(&path, &veer_trace::ReadOptions::default()).unwrap()
        };
        let (b, c) = (load("baseline"), load("candidate"));
        let options = DiffOptions::default();
        DirectoryPair {
            baseline: format!("{name}.agentlog"),
            candidate: format!("{name}.agentlog"),
            report: veer_engine::diff::diff(&b, &c, ("b", "c"), &options, veer_base::Level::None).0,
            quarantined: None,
        }
    }

    /// A directory report over `names`, its summary built the way the CLI builds it.
    fn report(names: &[&str]) -> DirectoryReport {
        let pairs: Vec<DirectoryPair> = names.iter().map(|n| pair(n)).collect();
        let unmatched = Unmatched {
            baseline_only: vec!["gone.agentlog".into()],
            candidate_only: Vec::new(),
        };
        let aggregate = veer_diff::aggregate::aggregate(&pairs, &unmatched);
        DirectoryReport {
            schema_version: DIFF_SCHEMA_VERSION.into(),
            pairs,
            errors: Vec::new(),
            unmatched,
            aggregate,
            fingerprint: None,
            gate: Gate::decide(veer_base::Level::None, veer_base::Level::None),
            quarantine: None,
            tool_schema: None,
        }
    }

    /// Each pair's verdict and the run's, as the CLI folds them (gate off).
    fn verdicts(r: &DirectoryReport) -> (Vec<Verdict>, Verdict) {
        let mut fold = veer_engine::verdict::DirectoryVerdict::new(veer_base::Level::None);
        let each = r
            .pairs
            .iter()
            .map(|p| fold.pair(&p.baseline, &p.report))
            .collect();
        (each, fold.finish(r.fingerprint.as_ref(), &r.errors))
    }

    #[test]
    fn streamed_json_is_the_whole_report_byte_for_byte() {
        for names in [
            &[][..],
            &["demo"],
            &["demo", "er-triage", "customer-support"],
        ] {
            let r = report(names);
            let (verdicts, verdict) = verdicts(&r);
            let streamed = render_all(
                Box::new(crate::json::DirectoryJson::new()),
                &r,
                &verdicts,
                &verdict,
            );
            assert_eq!(streamed, crate::json::to_json(&r), "{names:?}");
        }
    }

    #[test]
    fn streamed_json_with_a_quarantine_is_the_whole_report_byte_for_byte() {
        let mut r = report(&["demo", "er-triage"]);
        r.pairs[1].quarantined = Some(veer_contract::quarantine::QuarantineMark {
            reason: "flaky".into(),
            expires: "2999-12-31".into(),
        });
        r.quarantine = Some(veer_contract::quarantine::QuarantineSummary {
            file: ".veer/quarantine.yaml".into(),
            honoured: 1,
            excused: vec![veer_contract::quarantine::ExcusedPair {
                pair: "er-triage.agentlog".into(),
                signals: vec!["axis cost (severe)".into()],
            }],
            expired: Vec::new(),
        });
        let (verdicts, verdict) = verdicts(&r);
        let streamed = render_all(
            Box::new(crate::json::DirectoryJson::new()),
            &r,
            &verdicts,
            &verdict,
        );
        assert_eq!(streamed, crate::json::to_json(&r));
        let v: serde_json::Value = serde_json::from_str(&streamed).unwrap();
        assert_eq!(v["pairs"][1]["quarantined"]["reason"], "flaky");
        assert!(v["pairs"][0].get("quarantined").is_none());
        assert_eq!(v["quarantine"]["excused"][0]["pair"], "er-triage.agentlog");
        // the round trip reads the marks back
        let back: DirectoryReport = serde_json::from_str(&streamed).unwrap();
        assert_eq!(back.pairs[1].quarantined, r.pairs[1].quarantined);
        assert_eq!(back.quarantine, r.quarantine);
    }

    #[test]
    fn streamed_json_with_error_rows_is_the_whole_report_byte_for_byte() {
        for names in [&[][..], &["demo", "er-triage"]] {
            let mut r = report(names);
            r.errors = vec![veer_contract::diff::PairError {
                baseline: "bad.agentlog".into(),
                candidate: "bad.agentlog".into(),
                file: Some("b/bad.agentlog".into()),
                line: Some(3),
                error: "b/bad.agentlog:3: (line): invalid JSON\n\"quoted\"".into(),
                hint: None,
            }];
            r.aggregate.error_pairs = 1;
            r.gate = Gate::decide_with_errors(veer_base::Level::Minor, r.gate.worst, 1);
            let (verdicts, verdict) = verdicts(&r);
            let streamed = render_all(
                Box::new(crate::json::DirectoryJson::new()),
                &r,
                &verdicts,
                &verdict,
            );
            assert_eq!(streamed, crate::json::to_json(&r), "{names:?}");
            let v: serde_json::Value = serde_json::from_str(&streamed).unwrap();
            assert_eq!(v["errors"][0]["line"], 3);
            assert_eq!(v["gate"]["tripped"], true);
        }
    }
}
