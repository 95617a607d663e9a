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
