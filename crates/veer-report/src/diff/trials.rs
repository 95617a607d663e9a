//! Printers of a directory diff with repeated trials: terminal, Markdown (a
//! pull-request comment: the gate verdict first, then one line per case that is not
//! `unchanged`), JUnit (one test case per case, failing when it regressed or could not be
//! measured) and GitHub annotations (one per regressed case). JSON is
//! [`crate::json::trials_to_json`] of the report. Every number comes from the engine's block.
//!
//! A quarantined case (the engine's `quarantined` mark) is shown with its verdict and the word
//! `quarantined`; it never fails a JUnit test case and is at most a note in SARIF and GitHub
//! annotations (a case that could not be measured still fails: it still gates).

use veer_contract::trials::describe;
use veer_contract::trials::{CaseBlock, CaseVerdict, TrialsReport};
use veer_contract::verdict::Cause;

/// The headline: the gate's verdict and the verdict counts.
pub(crate) fn headline(r: &TrialsReport) -> String {
    let v = &r.trials.verdicts;
    let verdict = if r.verdict.tripped {
        "FAIL"
    } else if r.verdict.fail_on == veer_base::Level::None {
        "no gate"
    } else {
        "pass"
    };
    let changed = if v.changed > 0 {
        format!("{} changed, ", v.changed)
    } else {
        String::new()
    };
    format!(
        "{verdict}: {} cases with repeated trials ({} baseline / {} candidate trials) — {} regressed, {changed}{} improved, {} unchanged, {} inconclusive, {} flaky, {} missing, {} failed",
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
    if let (Some(f), true) = (&c.first_divergence, c.verdict == CaseVerdict::Regressed) {
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
    if let Some(t) = &c.tool_schema {
        s.push_str(&format!(
            "; offered tools: {}",
            super::tool_schema::summary(t)
        ));
    }
    if let Some(e) = &c.error {
        s.push_str(&format!("; {}", e.error));
    }
    s
}

/// Tool-schema changes listed per case in the terminal report.
const TOOL_CHANGES_SHOWN: usize = 10;

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
        if let Some(t) = &c.tool_schema {
            for change in t.changes.iter().take(TOOL_CHANGES_SHOWN) {
                out.push_str(&format!(
                    "      tool schema: {}\n",
                    super::tool_schema::change_line(change)
                ));
            }
            if t.changes.len() > TOOL_CHANGES_SHOWN {
                out.push_str(&format!(
                    "      tool schema: … {} more (--format json lists every change)\n",
                    t.changes.len() - TOOL_CHANGES_SHOWN
                ));
            }
        }
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
    for c in r
        .trials
        .cases
        .iter()
        .filter(|c| c.verdict != CaseVerdict::Unchanged || c.tool_schema.is_some())
    {
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
    out.push_str(&markdown_suite(r));
    if let Some(line) = pass_line(r) {
        out.push_str(&format!("\n{}\n", md(&line)));
    }
    out
}

/// The suite table of the Markdown report: per axis and per policy rule, the effect over all
/// cases, its interval, the adjusted p and the outcome (empty when no case was compared).
fn markdown_suite(r: &TrialsReport) -> String {
    if r.trials.axes.is_empty() && r.trials.rules.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n**Suite** (all cases compared):\n\n| measure | effect | 95% interval | margin | adjusted p | outcome |\n|---|---|---|---|---|---|\n",
    );
    for a in &r.trials.axes {
        out.push_str(&format!(
            "| {} | {:+.2} {} | {} | {:.2} | {:.4} | {} |\n",
            md(&a.axis),
            a.effect,
            md(&a.unit),
            a.interval
                .map_or("n/a".to_string(), |[l, h]| format!("{l:+.2} … {h:+.2}")),
            a.margin,
            a.p_adjusted,
            outcome(a.outcome)
        ));
    }
    for rule in &r.trials.rules {
        out.push_str(&format!(
            "| rule `{}` | {} → {} | — | — | {:.4} | {} |\n",
            md(&rule.rule),
            md(&rule.baseline),
            md(&rule.candidate),
            rule.p_adjusted,
            outcome(rule.outcome)
        ));
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
/// measured, it regressed and is not quarantined, or the verdict names it among what tripped
/// the gate (e.g. a missing case, or a `changed` one when the suite test is significant).
pub(crate) fn trips_gate(r: &TrialsReport, c: &CaseBlock) -> bool {
    failing(r, c)
}

fn failing(r: &TrialsReport, c: &CaseBlock) -> bool {
    c.verdict == CaseVerdict::Failed
        || (c.verdict == CaseVerdict::Regressed && !c.quarantined)
        || r.verdict.trips.iter().any(|t| match &t.cause {
            Cause::Trials { cases, .. } => cases.contains(&c.case),
            _ => false,
        })
}

/// JUnit XML: one test case per case, failing when it regressed (unless quarantined) or could
/// not be measured.
pub fn junit(r: &TrialsReport) -> String {
    let failures = r.trials.cases.iter().filter(|c| failing(r, c)).count();
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
        match c.verdict {
            _ if failing(r, &c) => out.push_str(&format!(
                ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                c.verdict,
                xml(&case_line(&c))
            )),
            CaseVerdict::Missing => out.push_str(&format!(
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

/// GitHub Actions workflow commands: one per case finding ([`crate::findings::trials_findings`]:
/// `::error` when it trips the gate, `::notice` when quarantined, else `::warning`), each with
/// `file=` and `line=` at the candidate's typical trial, then the gate's command.
pub fn github(r: &TrialsReport) -> String {
    crate::github::render(&crate::findings::trials_findings(r), &r.verdict)
}

/// SARIF 2.1.0 of the case findings ([`crate::findings::trials_findings`]): a rule per policy
/// rule, axis, behaviour and missing/failed case, each result at the candidate's typical trial
/// file and the line where it first differs.
pub fn sarif(r: &TrialsReport) -> String {
    crate::sarif::render(&crate::findings::trials_findings(r))
}

/// One self-contained HTML page ([`crate::html::trials::render`]).
pub fn html(r: &TrialsReport) -> String {
    crate::html::trials::render(r)
}
