//! `veer inspect` and `veer demo`.

use crate::common::{veer, veer_ok};

#[test]
fn inspect_terminal_demo_fixture() {
    let r = veer_ok(
        &["inspect", "tests/fixtures/shadow/demo/baseline.agentlog"],
        0,
    );
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn inspect_json_refund_audit() {
    let r = veer_ok(
        &[
            "inspect",
            "tests/fixtures/shadow/refund-agent-audit/baseline.agentlog",
            "--format",
            "json",
        ],
        0,
    );
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn inspect_traxr_results_shows_every_run() {
    let r = veer_ok(
        &["inspect", "tests/fixtures/traxr/goldens/external_mock.json"],
        0,
    );
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn demo_runs_without_files() {
    let r = veer_ok(&["demo"], 0);
    assert!(r.stdout.contains("refund-agent"), "{}", r.stdout);
}

#[test]
fn strict_rejects_placeholder_ids_naming_line_and_field() {
    let r = veer(&[
        "inspect",
        "--strict",
        "tests/fixtures/shadow/harmful-content-judge/baseline.agentlog",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("baseline.agentlog:1: id: content id mismatch (stored sha256:"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("hint:"), "{}", r.stderr);
}

#[test]
fn help_explains_with_examples() {
    for cmd in [&["--help"][..], &["inspect", "--help"], &["demo", "--help"]] {
        let r = veer_ok(cmd, 0);
        assert!(r.stdout.contains("Example"), "{cmd:?}: {}", r.stdout);
    }
}
