//! `veer bisect` on bad inputs (clear errors, exit 2) and its --help.

use crate::common::veer;

#[test]
fn bad_inputs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(p("a.json"), "{\"a\": 1}").unwrap();
    std::fs::write(p("same.json"), "{\"a\": 1}").unwrap();
    std::fs::write(p("bad.json"), "{\n\"a\": }").unwrap();
    std::fs::write(p("b.toml"), "a = 2\n").unwrap();
    std::fs::write(p("b.json"), "{\"a\": 2}").unwrap();
    let run = |a: &str, b: &str, extra: &[&str]| {
        let (a, b, o) = (p(a), p(b), p("out"));
        let mut args = vec![
            "bisect",
            "--baseline-config",
            &a,
            "--candidate-config",
            &b,
            "--out",
            &o,
            "--plan",
        ];
        args.extend_from_slice(extra);
        veer(&args)
    };
    let r = run("a.json", "same.json", &[]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("nothing to bisect"), "{}", r.stderr);
    let r = run("a.json", "bad.json", &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("bad.json:2: not valid JSON"),
        "{}",
        r.stderr
    );
    let r = run("a.json", "b.toml", &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("must have the same format"),
        "{}",
        r.stderr
    );
    let r = run("a.json", "b.json", &["--group", "nope"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("not PATH=NAME"), "{}", r.stderr);
    let r = run("a.json", "b.json", &["--group", "zz=x"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("the deltas between the two configurations are: a"),
        "{}",
        r.stderr
    );
    // --from-runs with a point missing names it.
    std::fs::create_dir_all(p("runs/p001")).unwrap();
    let (a, b, o, runs) = (p("a.json"), p("b.json"), p("out"), p("runs"));
    let r = veer(&[
        "bisect",
        "--baseline-config",
        &a,
        "--candidate-config",
        &b,
        "--out",
        &o,
        "--from-runs",
        &runs,
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("no finished run for design point(s) p001, p002"),
        "{}",
        r.stderr
    );
    // Output safety: -o never replaces an input, --out is never a file or holds an input.
    let r = run("a.json", "b.json", &["-o", &p("a.json")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(p("a.json")).unwrap(), "{\"a\": 1}");
    let (a, b) = (p("a.json"), p("b.json"));
    for out in [p("a.json"), dir.path().display().to_string()] {
        let r = veer(&[
            "bisect",
            "--baseline-config",
            &a,
            "--candidate-config",
            &b,
            "--out",
            &out,
            "--plan",
        ]);
        assert_eq!(r.code, 2, "{out}: {}", r.stderr);
        assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    }
    assert_eq!(std::fs::read_to_string(p("a.json")).unwrap(), "{\"a\": 1}");
    // Extreme numbers: refused before anything runs.
    for extra in [
        &["--trials", "0"][..],
        &["--max-runs", "0"][..],
        &["--trials", "18446744073709551615"][..],
    ] {
        let r = run("a.json", "b.json", extra);
        assert_eq!(r.code, 2, "{extra:?}: {}", r.stderr);
        assert!(r.stderr.contains("hint:"), "{}", r.stderr);
    }
    // No agent command.
    let r = veer(&[
        "bisect",
        "--baseline-config",
        &a,
        "--candidate-config",
        &b,
        "--out",
        &o,
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("missing the agent command"),
        "{}",
        r.stderr
    );
}

#[test]
fn help_explains_with_examples() {
    let r = veer(&["bisect", "--help"]);
    assert_eq!(r.code, 0);
    for needle in [
        "{config}",
        "VEER_CONFIG",
        "--plan",
        "--from-runs",
        "--max-runs",
        "130",
    ] {
        assert!(r.stdout.contains(needle), "{needle}");
    }
}
