//! `veer experiment pair` and `analyze` on bad inputs (exit 2 naming what is missing), `-o`
//! and `--help`.

use crate::common::{fixtures, veer, veer_ok};
use crate::experiment::{analyze, golden, shadow};
use serde_json::Value;

fn expect_error(args: &[&str], needles: &[&str]) {
    let r = veer(args);
    assert_eq!(
        r.code, 2,
        "{args:?}\nstdout:\n{}\nstderr:\n{}",
        r.stdout, r.stderr
    );
    assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    for n in needles {
        assert!(
            r.stderr.contains(n),
            "{args:?}: missing {n:?} in\n{}",
            r.stderr
        );
    }
}

#[test]
fn bad_inputs_exit_2_naming_what_is_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();

    let empty = root.join("empty");
    std::fs::create_dir(&empty).unwrap();
    expect_error(
        &["experiment", "analyze", &empty.display().to_string()],
        &[
            "directory holds no traces",
            "hint: an experiment directory holds baseline",
        ],
    );

    let no_base = root.join("no-base");
    std::fs::create_dir_all(no_base.join("perturbed")).unwrap();
    std::fs::copy(
        fixtures().join("shadow/demo/candidate.agentlog"),
        no_base.join("perturbed/x.agentlog"),
    )
    .unwrap();
    expect_error(
        &["experiment", "analyze", &no_base.display().to_string()],
        &["no baseline trace (expected ", "baseline.agentlog"],
    );

    let no_perturbed = root.join("no-perturbed");
    std::fs::create_dir_all(&no_perturbed).unwrap();
    std::fs::copy(
        fixtures().join("shadow/demo/baseline.agentlog"),
        no_perturbed.join("baseline.agentlog"),
    )
    .unwrap();
    expect_error(
        &["experiment", "analyze", &no_perturbed.display().to_string()],
        &["no perturbed/ directory"],
    );
    std::fs::create_dir(no_perturbed.join("perturbed")).unwrap();
    expect_error(
        &["experiment", "analyze", &no_perturbed.display().to_string()],
        &["perturbed: no perturbed traces"],
    );

    expect_error(
        &[
            "experiment",
            "analyze",
            &root.join("missing").display().to_string(),
        ],
        &["missing: (file): no such file or directory"],
    );

    let mut results: Value = serde_json::from_str(
        &std::fs::read_to_string(fixtures().join("traxr/goldens/builtin_stub.json")).unwrap(),
    )
    .unwrap();
    results["traces"]
        .as_object_mut()
        .unwrap()
        .remove("baseline");
    let no_base_results = root.join("results.json");
    std::fs::write(&no_base_results, results.to_string()).unwrap();
    expect_error(
        &[
            "experiment",
            "analyze",
            &no_base_results.display().to_string(),
        ],
        &["traces.baseline: the results file has no baseline trace"],
    );

    expect_error(
        &["experiment", "analyze", &shadow("demo", "baseline")],
        &["a single trace, not an experiment"],
    );
    expect_error(
        &["experiment", "pair", &shadow("demo", "baseline")],
        &["missing PERTURBED"],
    );
    expect_error(
        &[
            "experiment",
            "pair",
            &golden("builtin_stub"),
            &shadow("demo", "baseline"),
        ],
        &["results file", "veer experiment analyze"],
    );
    expect_error(
        &[
            "experiment",
            "pair",
            &shadow("demo", "baseline"),
            &root.join("nope.agentlog").display().to_string(),
        ],
        &["nope.agentlog: (file): no such file or directory"],
    );
    expect_error(
        &[
            "experiment",
            "analyze",
            &golden("builtin_stub"),
            "--format",
            "junit",
        ],
        &["invalid value 'junit'"],
    );
}

#[test]
fn output_file_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report.md");
    let r = veer_ok(
        &[
            "experiment",
            "analyze",
            &golden("external_mock"),
            "--format",
            "markdown",
            "-o",
            &out.display().to_string(),
        ],
        0,
    );
    assert!(r.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        analyze("external_mock", "markdown")
    );
}

#[test]
fn help_explains_with_examples() {
    for cmd in [
        &["experiment", "--help"][..],
        &["experiment", "pair", "--help"],
        &["experiment", "analyze", "--help"],
    ] {
        let r = veer_ok(cmd, 0);
        assert!(r.stdout.contains("Example"), "{cmd:?}: {}", r.stdout);
    }
}
