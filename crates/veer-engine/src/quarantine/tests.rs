//! The quarantine file: parsing, errors with line and field, expiry, appending.

use super::*;

fn day(s: &str) -> Day {
    Day::parse(s).unwrap()
}

const FILE: &str = "# flaky cases\nquarantine:\n  - case: refund\n    reason: flips on main\n    expires: 2026-12-11\n  - case: \"a/b.agentlog\"\n    reason: timeouts\n    expires: 2026-11-01\n";

#[test]
fn days_parse_and_count() {
    assert_eq!(day("2026-12-11").to_string(), "2026-12-11");
    assert_eq!(day("1970-01-01").unix_days(), 0);
    assert_eq!(day("2000-03-01").unix_days(), 11_017);
    assert_eq!(Day::from_unix_days(11_017), day("2000-03-01"));
    assert_eq!(day("2024-02-28").plus_days(1), day("2024-02-29"));
    assert_eq!(day("2026-12-31").plus_days(14), day("2027-01-14"));
    for bad in [
        "2026-02-29",
        "2026-13-01",
        "2026-1-01",
        "26-01-01",
        "2026-00-10",
        "x",
    ] {
        assert_eq!(Day::parse(bad), None, "{bad}");
    }
    for n in [-1000_i64, 0, 59, 60, 10_000, 2_932_896] {
        assert_eq!(Day::from_unix_days(n).unix_days(), n);
    }
}

#[test]
fn a_file_parses_and_expiry_is_by_day() {
    let q = Quarantine::parse("q.yaml", FILE).unwrap();
    assert_eq!(q.entries.len(), 2);
    assert_eq!(q.entries[0].case, "refund");
    assert_eq!(q.entries[0].line, 3);
    assert_eq!(q.entries[1].case, "a/b.agentlog");
    let a = q.active(day("2026-11-01"));
    assert!(a.holds("refund") && a.holds("a/b.agentlog"));
    let a = q.active(day("2026-11-02"));
    assert!(a.holds("refund") && !a.holds("a/b.agentlog"));
    assert_eq!(a.expired.len(), 1);
    assert!(a.warnings("q.yaml")[0]
        .starts_with("q.yaml:6: quarantine of `a/b.agentlog` expired on 2026-11-01"));
    assert!(Quarantine::parse("q.yaml", "").unwrap().entries.is_empty());
    assert!(Quarantine::parse("q.yaml", "quarantine:\n")
        .unwrap()
        .entries
        .is_empty());
}

#[test]
fn malformed_files_name_line_and_field() {
    let cases = [
        ("quarantine:\n  - case: a\n    reason: r\n    expires: 2026-02-30\n", 4, "quarantine[0].expires"),
        ("quarantine:\n  - case: a\n    reason: r\n", 2, "quarantine[0].expires"),
        ("quarantine:\n  - case: a\n    expires: 2026-01-01\n", 2, "quarantine[0].reason"),
        ("quarantine:\n  - reason: r\n    expires: 2026-01-01\n", 2, "quarantine[0].case"),
        ("quarantine:\n  - case: a\n    reason: r\n    expires: 2026-01-01\n  - case: a\n    reason: r\n    expires: 2026-01-01\n", 5, "quarantine[1].case"),
        ("quarantine:\n  - case: a\n    reason: r\n    expires: 2026-01-01\n    until: x\n", 0, "yaml"),
        ("quarantine: [\n", 0, "yaml"),
        ("cases: []\n", 0, "yaml"),
    ];
    for (text, line, field) in cases {
        let e = Quarantine::parse("q.yaml", text).unwrap_err();
        assert_eq!(e.field.as_deref(), Some(field), "{text}: {}", e.message);
        if line > 0 {
            assert_eq!(e.line, Some(line), "{text}: {}", e.message);
        }
        assert!(e.hint.is_some());
        assert_eq!(e.exit_code(), 2);
        assert!(e.message.starts_with("q.yaml:"), "{}", e.message);
    }
}

fn entry(case: &str) -> QuarantineEntry {
    QuarantineEntry {
        case: case.into(),
        reason: "flipped on 2 of 3 \"re-runs\"".into(),
        expires: day("2026-12-11"),
        line: 0,
    }
}

#[test]
fn append_keeps_the_file_and_skips_listed_cases() {
    let (text, added) =
        append("q.yaml", Some(FILE), &[entry("refund"), entry("new: case")]).unwrap();
    assert!(text.starts_with(FILE), "{text}");
    assert_eq!(added.len(), 1);
    let q = Quarantine::parse("q.yaml", &text).unwrap();
    assert_eq!(q.entries.len(), 3);
    assert_eq!(q.entries[2].case, "new: case");
    assert_eq!(q.entries[2].reason, "flipped on 2 of 3 \"re-runs\"");
    // a new file
    let (text, added) = append("q.yaml", None, &[entry("x"), entry("x")]).unwrap();
    assert_eq!(added.len(), 1);
    assert_eq!(Quarantine::parse("q.yaml", &text).unwrap().entries.len(), 1);
    // an empty or comment-only file gets the key
    let (text, _) = append("q.yaml", Some("# mine\n"), &[entry("x")]).unwrap();
    assert!(text.starts_with("# mine\nquarantine:\n"));
    // a list that is not last: refused rather than rewritten
    let other = "quarantine:\n  - case: a\n    reason: r\n    expires: 2026-01-01\nversion: 1\n";
    assert!(append("q.yaml", Some(other), &[entry("x")]).is_err());
    let inline = "quarantine: []\n";
    assert!(append("q.yaml", Some(inline), &[entry("x")]).is_err());
    // a malformed file is its parse error
    let e = append("q.yaml", Some("quarantine:\n  - case: a\n"), &[entry("x")]).unwrap_err();
    assert!(e.message.contains("reason"), "{}", e.message);
}

#[test]
fn marks_and_the_report_block() {
    use veer_contract::verdict::Cause;
    use veer_contract::verdict::Trip;
    let q = Quarantine::parse("q.yaml", FILE).unwrap();
    let a = q.active(day("2026-11-15")).from_source("q.yaml");
    assert_eq!(a.source, "q.yaml");
    assert_eq!(
        a.mark("refund"),
        Some(veer_contract::quarantine::QuarantineMark {
            reason: "flips on main".into(),
            expires: "2026-12-11".into(),
        })
    );
    // expired and unknown cases carry no mark
    assert_eq!(a.mark("a/b.agentlog"), None);
    assert_eq!(a.mark("other"), None);
    let trip = |trace: &str, axis: &str| Trip {
        trace: Some(trace.into()),
        level: veer_base::Level::Severe,
        cause: Cause::Axis { axis: axis.into() },
        reason: "r".into(),
    };
    let mut v = veer_contract::verdict::Verdict::decide(veer_base::Level::Moderate, Vec::new());
    v.quarantined = vec![trip("refund", "cost"), trip("refund", "semantic")];
    let block = a.summary(&v).unwrap();
    assert_eq!(block.file, "q.yaml");
    assert_eq!(block.honoured, 1);
    assert_eq!(block.excused.len(), 1);
    assert_eq!(block.excused[0].pair, "refund");
    assert_eq!(
        block.excused[0].signals,
        ["axis cost (severe)", "axis semantic (severe)"]
    );
    assert_eq!(block.expired.len(), 1);
    assert_eq!(block.expired[0].case, "a/b.agentlog");
    assert_eq!(block.expired[0].line, 6);
    assert_eq!(block.expired[0].warning, a.warnings("q.yaml")[0]);
    // no entries: no block, so reports without a quarantine are unchanged
    assert_eq!(ActiveQuarantine::default().summary(&v), None);
    assert_eq!(
        Quarantine::default().active(day("2026-11-15")).summary(&v),
        None
    );
}
