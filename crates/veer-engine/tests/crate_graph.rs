//! The crate graph of docs/architecture.md, read from `cargo metadata` (issue 27, item 1): no
//! measure crate depends on another measure crate, and below the measures there are only the
//! basics (`veer-base`) and the trace model (`veer-trace`), which depend on no veer crate but
//! each other (trace → base).
//!
//! The output contract (`veer-contract`: every report type) sits with them below the
//! measures, so a measure fills report types without depending on a sibling, and the printers
//! (`veer-report`) render them without depending on any measure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// The measure crates: pure functions of the model, composed only by `veer-engine`.
const MEASURES: [&str; 5] = [
    "veer-diff",
    "veer-experiment",
    "veer-policy",
    "veer-perturb",
    "veer-trials",
];

/// The crates below the measures.
const BELOW: [&str; 3] = ["veer-base", "veer-trace", "veer-contract"];

/// Every workspace package's veer dependencies that its library and binaries build with
/// (normal and build dependencies; dev-dependencies are left out: a measure's tests and
/// benches may compare it with another), read from `cargo metadata`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let packages = meta["packages"].as_array().expect("a packages array");
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .expect("a dependencies array")
                .iter()
                .filter(|d| d["kind"].is_null() || d["kind"] == "build")
                .filter_map(|d| d["name"].as_str())
                .filter(|n| n.starts_with("veer"))
                .map(str::to_string)
                .collect();
            (p["name"].as_str().expect("a name").to_string(), deps)
        })
        .collect()
}

#[test]
fn no_measure_crate_depends_on_another() {
    let graph = graph();
    for m in MEASURES.iter().chain(&BELOW) {
        assert!(graph.contains_key(*m), "{m} is not a workspace package");
    }
    let mut edges = BTreeSet::new();
    for m in MEASURES {
        for d in &graph[m] {
            assert!(
                MEASURES.contains(&d.as_str()) || BELOW.contains(&d.as_str()),
                "measure {m} depends on {d}, which is not below the measures (only {BELOW:?} are)"
            );
            if MEASURES.contains(&d.as_str()) {
                edges.insert((m.to_string(), d.clone()));
            }
        }
    }
    assert!(
        edges.is_empty(),
        "measure crates depend on other measure crates: {edges:?} (compose them in veer-engine)"
    );
}

#[test]
fn the_printers_depend_on_no_measure_and_not_on_the_engine() {
    // Printers read veer-contract's documents and the engine's Verdict (a contract type); they
    // never reach a measure, directly or through the engine.
    let graph = graph();
    let allowed = ["veer-base", "veer-contract", "veer-trace", "veer-secrets"];
    let other: Vec<&String> = graph["veer-report"]
        .iter()
        .filter(|d| !allowed.contains(&d.as_str()))
        .collect();
    assert!(
        other.is_empty(),
        "veer-report depends on {other:?}: printers depend only on {allowed:?}"
    );
}

#[test]
fn only_the_basics_are_below_the_measures() {
    let graph = graph();
    assert!(
        graph["veer-base"].is_empty(),
        "veer-base must depend on no veer crate: {:?}",
        graph["veer-base"]
    );
    let trace: Vec<&String> = graph["veer-trace"]
        .iter()
        .filter(|d| d.as_str() != "veer-base")
        .collect();
    assert!(
        trace.is_empty(),
        "veer-trace may depend only on veer-base: {trace:?}"
    );
    let contract: Vec<&String> = graph["veer-contract"]
        .iter()
        .filter(|d| d.as_str() != "veer-base")
        .collect();
    assert!(
        contract.is_empty(),
        "veer-contract may depend only on veer-base: {contract:?}"
    );
}

#[test]
fn the_perturbation_operators_and_trials_stand_on_the_basics_alone() {
    // Goal of the seeded-RNG move: neither borrows a sibling measure's generator.
    let graph = graph();
    for m in [
        "veer-perturb",
        "veer-trials",
        "veer-experiment",
        "veer-policy",
    ] {
        let measures: Vec<&String> = graph[m]
            .iter()
            .filter(|d| MEASURES.contains(&d.as_str()))
            .collect();
        assert!(measures.is_empty(), "{m} depends on {measures:?}");
    }
}
