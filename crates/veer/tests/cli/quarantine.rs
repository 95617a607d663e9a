//! `veer diff --quarantine`: a quarantined pair is still measured and shown (marked
//! quarantined) but does not trip the gate; an expired entry is a warning and gates again; a
//! malformed file is exit 2 with line, field and hint.

use super::baseline::{ok_in, workspace};
use std::fs;

const DIFF: [&str; 5] = ["diff", "runs/main", "runs/pr", "--fail-on", "moderate"];

fn quarantine(d: &std::path::Path, expires: &str) -> String {
    let text = format!(
        "quarantine:\n  - case: refund/t2.agentlog\n    reason: flips on re-runs of main\n    expires: {expires}\n"
    );
    fs::create_dir_all(d.join(".veer")).unwrap();
    fs::write(d.join(".veer/quarantine.yaml"), &text).unwrap();
    text
}

#[test]
fn a_quarantined_case_is_shown_but_does_not_gate() {
    let ws = workspace();
    let d = ws.path();
    // without a quarantine the changed pair trips the gate
    let r = ok_in(d, &DIFF, 1);
    assert!(
        r.stdout
            .contains("gate tripped by: axis semantic (severe) in refund/t2.agentlog"),
        "{}",
        r.stdout
    );
    let text = quarantine(d, "2999-12-31");
    // the default file is picked up: exit 0, the pair still shown, marked quarantined
    let r = ok_in(d, &DIFF, 0);
    assert!(!r.stdout.contains("gate tripped by"), "{}", r.stdout);
    assert!(r.stdout.contains("refund/t2.agentlog"), "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "quarantined (measured, not gating): axis semantic (severe) in refund/t2.agentlog"
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // Markdown marks it too; JSON's gate agrees with the exit code and keeps the pair
    let md = ok_in(d, &[&DIFF[..], &["--format", "markdown"]].concat(), 0);
    assert!(
        md.stdout.contains("Quarantined (measured, not gating):"),
        "{}",
        md.stdout
    );
    let js = ok_in(d, &[&DIFF[..], &["--format", "json"]].concat(), 0);
    let v: serde_json::Value = serde_json::from_str(&js.stdout).unwrap();
    assert_eq!(v["gate"]["tripped"], false);
    assert!(v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["baseline"] == "refund/t2.agentlog"));
    // an explicit file elsewhere works the same; the file is never changed
    fs::rename(d.join(".veer/quarantine.yaml"), d.join("q.yaml")).unwrap();
    ok_in(d, &DIFF, 1);
    ok_in(d, &[&DIFF[..], &["--quarantine", "q.yaml"]].concat(), 0);
    assert_eq!(fs::read_to_string(d.join("q.yaml")).unwrap(), text);
    // a missing explicit file is an error
    let r = ok_in(d, &[&DIFF[..], &["--quarantine", "nope.yaml"]].concat(), 2);
    assert!(
        r.stderr.contains("nope.yaml: no quarantine file here"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_expired_entry_warns_and_gates_again() {
    let ws = workspace();
    let d = ws.path();
    quarantine(d, "2001-01-01");
    let r = ok_in(d, &DIFF, 1);
    assert!(
        r.stderr.contains(
            "warning: .veer/quarantine.yaml:2: quarantine of `refund/t2.agentlog` expired on 2001-01-01"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout
            .contains("gate tripped by: axis semantic (severe) in refund/t2.agentlog"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_malformed_quarantine_file_is_exit_2() {
    let ws = workspace();
    let d = ws.path();
    fs::create_dir_all(d.join(".veer")).unwrap();
    for (text, want) in [
        (
            "quarantine:\n  - case: refund/t2.agentlog\n    reason: r\n    expires: 2026-02-30\n",
            ".veer/quarantine.yaml:4: (quarantine[0].expires) `2026-02-30` is not a date YYYY-MM-DD",
        ),
        (
            "quarantine:\n  - case: refund/t2.agentlog\n    expires: 2999-01-01\n",
            ".veer/quarantine.yaml:2: (quarantine[0].reason) missing",
        ),
        ("quarantine:\n  - case: [\n", ".veer/quarantine.yaml:"),
    ] {
        fs::write(d.join(".veer/quarantine.yaml"), text).unwrap();
        let r = ok_in(d, &DIFF, 2);
        assert!(r.stderr.contains(want), "{text}\n{}", r.stderr);
        assert!(r.stderr.contains("hint: each entry is"), "{}", r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
    }
}

/// The formats of a directory diff with the quarantined pair `refund/t2.agentlog`: JSON marks
/// the pair and names it excused; Markdown, terminal and HTML tag it; JUnit counts no failure;
/// SARIF, GitHub and GitLab report its findings as notes.
#[test]
fn every_format_marks_the_quarantined_pair() {
    let ws = workspace();
    let d = ws.path();
    quarantine(d, "2999-12-31");
    let json = ok_in(d, &[&DIFF[..], &["--format", "json"]].concat(), 0).stdout;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    for p in pairs {
        if p["baseline"] == "refund/t2.agentlog" {
            assert_eq!(
                p["quarantined"],
                serde_json::json!({"reason": "flips on re-runs of main", "expires": "2999-12-31"})
            );
        } else {
            assert!(p.get("quarantined").is_none(), "{p}");
        }
    }
    assert_eq!(
        v["quarantine"],
        serde_json::json!({
            "file": ".veer/quarantine.yaml",
            "honoured": 1,
            "excused": [{"pair": "refund/t2.agentlog", "signals": ["axis semantic (severe)", "axis trajectory (moderate)"]}]
        })
    );
    assert_eq!(v["gate"]["tripped"], false);
    // the JSON report re-gated by `veer gate` keeps the pair excused
    fs::write(d.join("report.json"), &json).unwrap();
    ok_in(d, &["gate", "report.json", "--fail-on", "moderate"], 0);

    let md = ok_in(d, &[&DIFF[..], &["--format", "markdown"]].concat(), 0).stdout;
    assert!(
        md.contains(
            "| `refund/t2.agentlog` (quarantined until 2999-12-31: flips on re-runs of main) |"
        ),
        "{md}"
    );
    assert!(
        md.contains("_quarantine .veer/quarantine.yaml: 1 entry honoured, 1 tripping pair excused"),
        "{md}"
    );
    let term = ok_in(d, &DIFF, 0).stdout;
    assert!(
        term.contains("quarantined until 2999-12-31: flips on re-runs of main"),
        "{term}"
    );
    assert!(
        term.contains(
            "quarantine .veer/quarantine.yaml: 1 entry honoured, 1 tripping pair excused"
        ),
        "{term}"
    );
    let html = ok_in(d, &[&DIFF[..], &["--format", "html"]].concat(), 0).stdout;
    assert!(
        html.contains("quarantined until 2999-12-31: flips on re-runs of main"),
        "{html}"
    );

    // JUnit: the pair's suite has no failure and says it is quarantined; without the
    // quarantine the same suite fails.
    let junit = ok_in(d, &[&DIFF[..], &["--format", "junit"]].concat(), 0).stdout;
    let suite = |xml: &str| -> String {
        let at = xml.find("<testsuite name=\"refund/t2.agentlog\"").unwrap();
        let end = at + xml[at..].find("</testsuite>").unwrap();
        xml[at..end].to_string()
    };
    let s = suite(&junit);
    assert!(s.contains("failures=\"0\""), "{s}");
    assert!(!s.contains("<failure"), "{s}");
    assert!(
        s.contains("<property name=\"quarantined\" value=\"quarantined until 2999-12-31: flips on re-runs of main\"/>"),
        "{s}"
    );
    assert!(s.contains("quarantined, not gating: semantic"), "{s}");
    assert!(
        junit.contains("<testsuites name=\"veer diff\" tests=\"27\" failures=\"0\">"),
        "{junit}"
    );

    // CI formats: the pair's findings are notes (GitLab: info), tagged quarantined.
    let sarif = ok_in(d, &[&DIFF[..], &["--format", "sarif"]].concat(), 0).stdout;
    let s: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    let results = s["runs"][0]["results"].as_array().unwrap();
    assert!(
        results.iter().any(|r| r["level"] == "note"
            && r["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with("[quarantined until 2999-12-31")),
        "{sarif}"
    );
    for r in results {
        let msg = r["message"]["text"].as_str().unwrap();
        if msg.contains("quarantined") {
            assert_eq!(r["level"], "note", "{r}");
        }
        assert_ne!(r["level"], "error", "{r}");
    }
    let gitlab = ok_in(d, &[&DIFF[..], &["--format", "gitlab"]].concat(), 0).stdout;
    let g: serde_json::Value = serde_json::from_str(&gitlab).unwrap();
    let quarantined: Vec<&serde_json::Value> = g
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            i["description"]
                .as_str()
                .unwrap()
                .contains("quarantined until")
        })
        .collect();
    assert!(!quarantined.is_empty(), "{gitlab}");
    assert!(
        quarantined.iter().all(|i| i["severity"] == "info"),
        "{gitlab}"
    );
    let github = ok_in(d, &[&DIFF[..], &["--format", "github"]].concat(), 0).stdout;
    for line in github.lines().filter(|l| l.contains("quarantined until")) {
        assert!(line.starts_with("::notice "), "{line}");
    }
    assert!(github.contains("quarantined until"), "{github}");
}

/// Without the quarantine the same pair's SARIF result is an error: the note above is the
/// quarantine's doing, not the fixture's.
#[test]
fn without_a_quarantine_the_pair_is_an_error_and_the_json_has_no_quarantine_fields() {
    let ws = workspace();
    let d = ws.path();
    let sarif = ok_in(d, &[&DIFF[..], &["--format", "sarif"]].concat(), 1).stdout;
    assert!(sarif.contains("\"level\": \"error\""), "{sarif}");
    assert!(!sarif.contains("quarantined"), "{sarif}");
    let json = ok_in(d, &[&DIFF[..], &["--format", "json"]].concat(), 1).stdout;
    assert!(!json.contains("quarantine"), "{json}");
}

#[test]
fn an_expired_entry_is_a_warning_in_the_reports() {
    let ws = workspace();
    let d = ws.path();
    quarantine(d, "2001-01-01");
    let warning = ".veer/quarantine.yaml:2: quarantine of `refund/t2.agentlog` expired on 2001-01-01; it gates again (renew or remove the entry)";
    let json = ok_in(d, &[&DIFF[..], &["--format", "json"]].concat(), 1).stdout;
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["quarantine"],
        serde_json::json!({
            "file": ".veer/quarantine.yaml",
            "honoured": 0,
            "excused": [],
            "expired": [{
                "case": "refund/t2.agentlog",
                "reason": "flips on re-runs of main",
                "expires": "2001-01-01",
                "line": 2,
                "warning": warning
            }]
        })
    );
    assert_eq!(v["gate"]["tripped"], true);
    assert!(v["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p.get("quarantined").is_none()));
    let md = ok_in(d, &[&DIFF[..], &["--format", "markdown"]].concat(), 1).stdout;
    assert!(md.contains(&format!("- ⚠️ {warning}")), "{md}");
    assert!(md.contains("**Gate: \u{274c} failed**"), "{md}");
    let term = ok_in(d, &DIFF, 1).stdout;
    assert!(term.contains(&format!("warning: {warning}")), "{term}");
    let html = ok_in(d, &[&DIFF[..], &["--format", "html"]].concat(), 1).stdout;
    assert!(
        html.contains("quarantine of `refund/t2.agentlog` expired on 2001-01-01"),
        "{html}"
    );
}
