//! `veer experiment analyze` on an experiment directory: a corrupt perturbed run, no clean
//! re-runs (the noise floor is unmeasured), and an effect the clean re-runs show too.

use crate::common::{fixtures, veer_ok};
use serde_json::Value;
use std::path::Path;

/// Builds `<tmp>/item-7` with a baseline, one clean re-run and two perturbed runs, one of
/// them corrupt.
fn experiment_dir(tmp: &Path, with_rerun: bool) -> std::path::PathBuf {
    let dir = tmp.join("item-7");
    std::fs::create_dir_all(dir.join("perturbed")).unwrap();
    let fx = fixtures().join("shadow");
    std::fs::copy(
        fx.join("demo/baseline.agentlog"),
        dir.join("baseline.agentlog"),
    )
    .unwrap();
    if with_rerun {
        std::fs::create_dir_all(dir.join("reruns")).unwrap();
        std::fs::copy(
            fx.join("demo/baseline.agentlog"),
            dir.join("reruns/run-2.agentlog"),
        )
        .unwrap();
    }
    std::fs::copy(
        fx.join("demo/candidate.agentlog"),
        dir.join("perturbed/content_filter.agentlog"),
    )
    .unwrap();
    std::fs::write(dir.join("perturbed/corrupt.agentlog"), "{\"not json\n").unwrap();
    dir
}

fn scrub(text: &str, tmp: &Path) -> String {
    text.replace(&tmp.display().to_string(), "[TMP]")
}

#[test]
fn directory_experiment_with_a_corrupt_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = experiment_dir(tmp.path(), true);
    let d = dir.display().to_string();

    let terminal = veer_ok(&["experiment", "analyze", &d], 0);
    insta::assert_snapshot!("directory_terminal", scrub(&terminal.stdout, tmp.path()));
    assert!(
        !terminal.stderr.contains("noise floor"),
        "{}",
        terminal.stderr
    );

    let json = veer_ok(&["experiment", "analyze", &d, "--format", "json"], 0);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert_eq!(pairs[0]["perturbation"], "content_filter");
    assert_eq!(pairs[0]["item_id"], "item-7");
    assert_eq!(pairs[0]["status_perturbed"], "ok");
    assert_eq!(pairs[0]["d_norm"], 0.2);
    assert_eq!(pairs[0]["within_noise_floor"], false);
    assert_eq!(pairs[1]["perturbation"], "corrupt");
    assert_eq!(pairs[1]["status_perturbed"], "error");
    assert_eq!(pairs[1]["d_norm"], Value::Null);
    assert_eq!(v["noise_floor"], 0.0);
    assert_eq!(v["noise_floor_runs"], 1);
    let errors = v["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .as_str()
            .unwrap()
            .starts_with("perturbed run corrupt: "),
        "{errors:?}"
    );
    assert!(
        json.stderr.contains("warning: perturbed run corrupt: "),
        "{}",
        json.stderr
    );
    let labels: Vec<&String> = v["traces"].as_object().unwrap().keys().collect();
    assert_eq!(
        labels,
        ["baseline", "item-7::content_filter", "noise_floor_1"]
    );
    assert_eq!(
        v["fingerprint"]["files"],
        serde_json::json!([
            "baseline.agentlog",
            "reruns/run-2.agentlog",
            "perturbed/content_filter.agentlog",
            "perturbed/corrupt.agentlog"
        ])
    );

    let csv = veer_ok(&["experiment", "analyze", &d, "--format", "csv"], 0);
    insta::assert_snapshot!("directory_csv", scrub(&csv.stdout, tmp.path()));
    let md = veer_ok(&["experiment", "analyze", &d, "--format", "markdown"], 0);
    assert!(
        md.stdout.contains("## Errors\n\n- perturbed run corrupt: "),
        "{}",
        md.stdout
    );
}

#[test]
fn directory_without_reruns_warns_that_the_floor_is_unmeasured() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = experiment_dir(tmp.path(), false);
    let r = veer_ok(
        &[
            "experiment",
            "analyze",
            &dir.display().to_string(),
            "--expected",
            "x",
        ],
        0,
    );
    assert!(
        r.stdout.contains(
            "  noise floor (d_norm): UNMEASURED — divergence below the (unknown) sampling-noise \
             floor may be reported as contamination. Set noise_floor_runs >= 1 for external \
             agents.\n"
        ),
        "{}",
        r.stdout
    );
    let floor_lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning: noise floor unmeasured"))
        .collect();
    assert_eq!(floor_lines.len(), 1, "{}", r.stderr);
    assert!(floor_lines[0].contains("reruns/"), "{}", r.stderr);
}

/// A perturbation whose effect the clean re-runs show on their own keeps traxr's class and is
/// labelled `within_noise` in veer's own `noise` block; traxr's pair layout is unchanged.
#[test]
fn an_effect_the_clean_reruns_show_too_is_within_noise() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("item-8");
    std::fs::create_dir_all(dir.join("perturbed")).unwrap();
    std::fs::create_dir_all(dir.join("reruns")).unwrap();
    let fx = fixtures().join("shadow/demo");
    std::fs::copy(fx.join("baseline.agentlog"), dir.join("baseline.agentlog")).unwrap();
    // A clean re-run that drifted as far as the perturbed run does.
    std::fs::copy(
        fx.join("candidate.agentlog"),
        dir.join("reruns/run-2.agentlog"),
    )
    .unwrap();
    std::fs::copy(
        fx.join("candidate.agentlog"),
        dir.join("perturbed/content_filter.agentlog"),
    )
    .unwrap();
    let d = dir.display().to_string();
    let json = veer_ok(&["experiment", "analyze", &d, "--format", "json"], 0);
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    let pair = &v["pairs"][0];
    assert!(pair.get("within_noise").is_none(), "traxr's pair layout");
    assert_eq!(pair["d_norm"], 0.2);
    let noise = &v["noise"];
    assert_eq!(noise["spread"]["clean_runs"], 2);
    assert_eq!(noise["spread"]["d_norm"], 0.2);
    assert_eq!(noise["pairs"][0]["within_noise"], true);
    assert_eq!(noise["pairs"][0]["manifestation"], pair["manifestation"]);
    assert_eq!(
        (
            noise["within_noise"].as_u64(),
            noise["beyond_noise"].as_u64()
        ),
        (Some(1), Some(0))
    );
    let terminal = veer_ok(&["experiment", "analyze", &d], 0);
    assert!(
        terminal
            .stdout
            .contains("beyond noise: 0 of 1 measured pair(s); within noise: 1"),
        "{}",
        terminal.stdout
    );
    // Byte-identical across thread counts.
    let one = std::process::Command::new(env!("CARGO_BIN_EXE_veer"))
        .args(["experiment", "analyze", &d, "--format", "json"])
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&one.stdout), json.stdout);
}
