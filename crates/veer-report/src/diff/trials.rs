//! Printers of a directory diff with repeated trials (issue 28, item 5): terminal, Markdown (a
//! pull-request comment: the gate verdict first, then one line per case that is not
//! `unchanged`), JUnit (one test case per case, failing when it regressed or could not be
//! measured) and GitHub annotations (one per regressed case). JSON is
//! [`crate::json::trials_to_json`] of the report. Every number comes from the engine's block.
//!
//! A quarantined case (the engine's `quarantined` mark) is shown with its verdict and the word
//! `quarantined`; it never fails a JUnit test case and is at most a note in SARIF and GitHub
//! annotations (a case that could not be measured still fails: it still gates).

use veer_contract::trials::describe;
use veer_contract::trials::{CaseBlock, TrialsReport};

/// The headline: the gate's verdict and the verdict counts.
fn headline(r: &TrialsReport) -> String {
    let v = &r.trials.verdicts;
    let verdict = if r.gate.tripped {
        "FAIL"
    } else if r.gate.fail_on == veer_contract::Level::None {
        "no gate"
    } else {
        "pass"
    };
    format!(
        "{verdict}: {} cases with repeated trials ({} baseline / {} candidate trials) — {} regressed, {} improved, {} unchanged, {} inconclusive, {} flaky, {} missing, {} failed",
        r.trials.layout.cases,
        r.trials.layout.baseline_trials,
        r.trials.layout.candidate_trials,
        v.regressed,
        v.improved,
        v.unchanged,
        v.inconclusive,
        v.flaky,
        v.missing,
        v.failed
    )
}

/// What one case shows in a one-line summary: its verdict, trials, measures, where its
/// trials first diverge and what the candidate's modal trial does differently.
pub(crate) fn case_line(c: &CaseBlock) -> String {
    let mut s = format!(
        "{} — {}{} ({} vs {} trials)",
        c.case,
        c.verdict,
        if c.quarantined { ", quarantined" } else { "" },
        c.baseline_trials,
        c.candidate_trials
    );
    if !c.measures.is_empty() {
        s.push_str(&format!(": {}", c.measures.join(", ")));
    }
    for r in c.rules.iter().filter(|r| c.measures.contains(&r.rule)) {
        s.push_str(&format!(
            "; {} {}/{} → {}/{}",
            r.rule,
            r.baseline_violations,
            c.baseline_trials,
            r.candidate_violations,
            c.candidate_trials
        ));
    }
    for a in c
        .axes
        .iter()
        .filter(|a| c.measures.iter().any(|m| *m == a.axis))
    {
        s.push_str(&format!(
            "; {} {:.1} → {:.1} {}",
            a.axis, a.baseline_mean, a.candidate_mean, a.unit
        ));
    }
    if let Some(n) = c.trials_needed {
        s.push_str(&format!("; {n} trials a side would make it testable"));
    }
    if !c.noise_estimated {
        s.push_str("; noise not estimated (one trial a side)");
    }
    if let (Some(f), true) = (&c.first_divergence, c.verdict == "regressed") {
        if let Some(turn) = f.turn {
            s.push_str(&format!(
                "; first diverges at step {turn}: {} cross pairs, {} within",
                f.cross, f.within
            ));
        }
    }
    for change in &c.changes {
        s.push_str(&format!("; {change}"));
    }
    if let Some(e) = &c.error {
        s.push_str(&format!("; {}", e.error));
    }
    s
}

/// The terminal report.
pub fn terminal(r: &TrialsReport) -> String {
    let mut out = format!(
        "veer diff {} {}\n{}\n",
        r.baseline,
        r.candidate,
        headline(r)
    );
    for t in &r.trials.tripped {
        out.push_str(&format!("  tripped: {}\n", describe(t)));
    }
    for w in &r.trials.warnings {
        out.push_str(&format!("  warning: {w}\n"));
    }
    out.push_str("\ncases:\n");
    let mut quarantined = false;
    for c in r.trials.cases.iter() {
        quarantined |= c.quarantined;
        out.push_str(&format!("  {}\n", case_line(&c)));
        if let Some(b) = &c.behaviour {
            out.push_str(&format!(
                "      behaviour: within baseline {}, within candidate {}, across {:.3}, excess {:+.3} (p {:.4})\n",
                opt(b.d_bb),
                opt(b.d_cc),
                b.d_bc,
                b.excess,
                b.p_value
            ));
        }
    }
    if !r.trials.axes.is_empty() {
        out.push_str(if quarantined {
            "\nsuite (all cases but the quarantined):\n"
        } else {
            "\nsuite (all cases):\n"
        });
        for a in &r.trials.axes {
            out.push_str(&format!(
                "  {:<14} effect {:+.2} {} (95% {}), margin {:.2}, adjusted p {:.4}, {}{}\n",
                a.axis,
                a.effect,
                a.unit,
                a.interval
                    .map_or("n/a".to_string(), |[l, h]| format!("{l:+.2} … {h:+.2}")),
                a.margin,
                a.p_adjusted,
                outcome(a.outcome),
                a.mde.map_or(String::new(), |m| format!(", MDE {m:.2}"))
            ));
        }
        for rule in &r.trials.rules {
            out.push_str(&format!(
                "  rule {:<9} {} → {}, adjusted p {:.4}, {}\n",
                rule.rule,
                rule.baseline,
                rule.candidate,
                rule.p_adjusted,
                outcome(rule.outcome)
            ));
        }
    }
    if let Some(line) = pass_line(r) {
        out.push_str(&format!("\n{line}\n"));
    }
    out
}

/// pass^k per side with the outcome's source, e.g. `pass^k (k = 1..2; outcome: field
/// scores.accuracy, score ≥ 0.5): baseline 1.00, 0.67 · candidate 0.50, 0.17`.
fn pass_line(r: &TrialsReport) -> Option<String> {
    let p = r.trials.pass_hat_k.as_ref()?;
    if p.baseline.values.is_empty() {
        return None;
    }
    let source = match (p.outcome.as_ref(), &p.field, &p.file) {
        ("field", Some(f), _) => format!("field {f}"),
        ("file", _, Some(f)) => format!("file {f}"),
        ("outcome", _, _) => "metadata outcome".to_string(),
        (other, _, _) => other.to_string(),
    };
    let threshold = p
        .threshold
        .map_or(String::new(), |t| format!(", score ≥ {t}"));
    let values = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Some(format!(
        "pass^k (k = 1..{}; outcome: {source}{threshold}): baseline {} · candidate {}",
        p.baseline.max_k,
        values(&p.baseline.values),
        values(&p.candidate.values)
    ))
}

fn opt(v: Option<f64>) -> String {
    v.map_or("n/a".to_string(), |x| format!("{x:.3}"))
}

fn outcome(o: veer_contract::trials::SuiteOutcome) -> &'static str {
    match o {
        veer_contract::trials::SuiteOutcome::Regressed => "regressed",
        veer_contract::trials::SuiteOutcome::Improved => "improved",
        veer_contract::trials::SuiteOutcome::NoSupportedChange => "no supported change",
    }
}

/// The Markdown report (a pull-request comment): gate verdict first, one line per case that is
/// not `unchanged`.
pub fn markdown(r: &TrialsReport) -> String {
    let mut out = format!("### veer: {}\n\n", md(&headline(r)));
    for t in &r.trials.tripped {
        out.push_str(&format!("- **tripped**: {}\n", md(&describe(t))));
    }
    for w in &r.trials.warnings {
        out.push_str(&format!("- **warning**: {}\n", md(w)));
    }
    let mut header = false;
    for c in r.trials.cases.iter().filter(|c| c.verdict != "unchanged") {
        if !header {
            out.push_str("\n| case | verdict | detail |\n|---|---|---|\n");
            header = true;
        }
        let line = case_line(&c);
        let detail = line.split_once(": ").map_or("", |(_, d)| d);
        out.push_str(&format!(
            "| `{}` | {}{} | {} |\n",
            md(&c.case),
            c.verdict,
            if c.quarantined { " (quarantined)" } else { "" },
            md(detail)
        ));
    }
    if let Some(line) = pass_line(r) {
        out.push_str(&format!("\n{}\n", md(&line)));
    }
    out
}

/// Markdown-safe text: `|` and newlines escaped.
fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Whether a case fails its JUnit test case (and is an error annotation): it could not be
/// measured, or it regressed and is not quarantined.
fn failing(c: &CaseBlock) -> bool {
    c.verdict == "failed" || (c.verdict == "regressed" && !c.quarantined)
}

/// JUnit XML: one test case per case, failing when it regressed (unless quarantined) or could
/// not be measured.
pub fn junit(r: &TrialsReport) -> String {
    let failures = r.trials.cases.iter().filter(|c| failing(c)).count();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"veer diff\" tests=\"{}\" failures=\"{failures}\">\n  <testsuite name=\"trials\" tests=\"{}\" failures=\"{failures}\">\n",
        r.trials.cases.len(),
        r.trials.cases.len()
    );
    for c in r.trials.cases.iter() {
        out.push_str(&format!(
            "    <testcase classname=\"trials\" name=\"{}\"",
            xml(&c.case)
        ));
        match c.verdict.as_ref() {
            _ if failing(&c) => out.push_str(&format!(
                ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                c.verdict,
                xml(&case_line(&c))
            )),
            "missing" => out.push_str(&format!(
                ">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                xml(&case_line(&c))
            )),
            _ => out.push_str(&format!(
                ">\n      <system-out>{}</system-out>\n    </testcase>\n",
                xml(&case_line(&c))
            )),
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

/// GitHub Actions workflow commands: one `::error` per regressed or failed case, a
/// `::warning` per inconclusive or flaky one; a quarantined case is at most a `::notice`.
pub fn github(r: &TrialsReport) -> String {
    let mut out = String::new();
    for c in r.trials.cases.iter() {
        let level = match c.verdict.as_ref() {
            _ if failing(&c) => "error",
            "regressed" | "inconclusive" | "flaky" if c.quarantined => "notice",
            "inconclusive" | "flaky" => "warning",
            _ => continue,
        };
        out.push_str(&format!(
            "::{level} title={}::{}\n",
            crate::github::escape_property(&format!("veer: case {} {}", c.case, c.verdict)),
            crate::github::escape_data(&case_line(&c))
        ));
    }
    out
}

/// SARIF 2.1.0: one result per regressed or failed case (level `error`; `note` for a
/// quarantined regressed case), at the case under the candidate directory.
pub fn sarif(r: &TrialsReport) -> String {
    let results: Vec<serde_json::Value> = r
        .trials
        .cases
        .iter()
        .filter(|c| matches!(c.verdict.as_ref(), "regressed" | "failed"))
        .map(|c| {
            serde_json::json!({
                "ruleId": if c.verdict == "failed" { "veer/trials/failed".to_string() } else { format!("veer/trials/{}", c.measures.first().map_or("regressed", String::as_str)) },
                "level": if failing(&c) { "error" } else { "note" },
                "message": {"text": case_line(&c)},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": format!("{}/{}", r.candidate.trim_end_matches('/'), c.case)}}}],
            })
        })
        .collect();
    let log = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "veer", "informationUri": "https://example.invalid/veer", "rules": []}}, "results": results}],
    });
    crate::json::to_json(&log)
}

fn html_escape(s: &str) -> String {
    xml(s).replace('\'', "&#39;")
}

/// One self-contained HTML page: the gate first, then each case's trials side by side — per
/// axis the baseline's and the candidate's mean ± sd, and the behaviour's within-side vs
/// across-side spread.
pub fn html(r: &TrialsReport) -> String {
    let mut out = String::from("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>veer: repeated trials</title>\n<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}th:first-child,td:first-child{text-align:left}.regressed{color:#b00020}.improved{color:#1b5e20}.inconclusive,.flaky{color:#8a6d00}</style></head><body>\n");
    out.push_str(&format!("<h1>{}</h1>\n<ul>\n", html_escape(&headline(r))));
    for t in &r.trials.tripped {
        out.push_str(&format!(
            "<li>tripped: {}</li>\n",
            html_escape(&describe(t))
        ));
    }
    for w in &r.trials.warnings {
        out.push_str(&format!("<li>warning: {}</li>\n", html_escape(w)));
    }
    out.push_str("</ul>\n");
    let sd = |v: Option<f64>| v.map_or(String::new(), |x| format!(" ± {x:.1}"));
    for c in r.trials.cases.iter() {
        out.push_str(&format!(
            "<h2>{} <span class=\"{}\">{}</span>{}</h2>\n<p>{}</p>\n",
            html_escape(&c.case),
            c.verdict,
            c.verdict,
            if c.quarantined { " (quarantined)" } else { "" },
            html_escape(&case_line(&c))
        ));
        if c.axes.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "<table><tr><th>axis</th><th>baseline ({} trials)</th><th>candidate ({} trials)</th><th>change</th><th>margin</th></tr>\n",
            c.baseline_trials, c.candidate_trials
        ));
        for a in &c.axes {
            out.push_str(&format!(
                "<tr><td>{} ({})</td><td>{:.1}{}</td><td>{:.1}{}</td><td>{:+.1}</td><td>{:.1}</td></tr>\n",
                a.axis,
                a.unit,
                a.baseline_mean,
                sd(a.baseline_sd),
                a.candidate_mean,
                sd(a.candidate_sd),
                a.effect,
                a.margin
            ));
        }
        if let Some(b) = &c.behaviour {
            out.push_str(&format!(
                "<tr><td>behaviour (tool calls)</td><td>within {}</td><td>within {}</td><td>across {:.3}, excess {:+.3}</td><td>p {:.4}</td></tr>\n",
                opt(b.d_bb),
                opt(b.d_cc),
                b.d_bc,
                b.excess,
                b.p_value
            ));
        }
        out.push_str("</table>\n");
    }
    out.push_str("</body></html>\n");
    out
}
