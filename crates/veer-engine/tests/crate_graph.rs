//! The crate graph of docs/architecture.md, read from `cargo metadata`: no
//! measure crate depends on another measure crate, and below the measures there are only the
//! basics (`veer-base`) and the trace model (`veer-trace`), which depend on no veer crate but
//! each other (trace → base).
//!
//! The output contract (`veer-contract`: every report type) sits with them below the
//! measures, so a measure fills report types without depending on a sibling, and the printers
//! (`veer-report`) render them without depending on any measure.
//!
//! Tidiness of the library crates: no two of them define a public type,
//! trait, const or static of the same name (so a reader never has to ask which `Summary` an
//! import means), and every normal dependency a library crate declares is named in its `src`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
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
    let meta = metadata();
    let packages = meta["packages"].as_array().expect("a packages array");
    packages
        .iter()
        .map(|p| {
            let deps = normal_dependencies(p)
                .into_iter()
                .map(|(name, _)| name)
                .filter(|n| n.starts_with("veer"))
                .collect();
            (p["name"].as_str().expect("a name").to_string(), deps)
        })
        .collect()
}

/// `cargo metadata` of the workspace (no dependencies resolved, offline).
fn metadata() -> Value {
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
    serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
}

/// A package's normal and build dependencies as (package name, name in Rust code).
fn normal_dependencies(package: &Value) -> Vec<(String, String)> {
    package["dependencies"]
        .as_array()
        .expect("a dependencies array")
        .iter()
        .filter(|d| d["kind"].is_null() || d["kind"] == "build")
        .filter_map(|d| {
            let name = d["name"].as_str()?;
            let rust = d["rename"].as_str().unwrap_or(name).replace('-', "_");
            Some((name.to_string(), rust))
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
fn the_front_ends_depend_on_no_measure() {
    // The binary and the Python package reach every measure through the engine:
    // flags or arguments in, engine calls, printers, files out.
    let graph = graph();
    for front in ["veer-cli", "veer-py", "veer-mcp"] {
        assert!(
            graph.contains_key(front),
            "{front} is not a workspace package"
        );
        let measures: Vec<&String> = graph[front]
            .iter()
            .filter(|d| MEASURES.contains(&d.as_str()))
            .collect();
        assert!(
            measures.is_empty(),
            "{front} depends on the measures {measures:?}: call them through veer-engine"
        );
        assert!(
            graph[front].contains("veer-engine"),
            "{front} does not depend on veer-engine"
        );
    }
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

/// The workspace root (two levels above this crate).
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/veer-engine sits two levels below the workspace root")
        .to_path_buf()
}

/// The library crates: every directory under `crates/` but the binary's (`crates/veer`, the
/// package `veer-cli`), by directory name (each library's package name).
fn library_crates() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(workspace_root().join("crates"))
        .expect("crates/ is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| {
            let name = p
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            (name, p)
        })
        .filter(|(name, _)| name != "veer")
        .collect();
    out.sort();
    out
}

/// Every `.rs` file under `dir`, in path order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("a readable source directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The name a line defines publicly, if it is `pub struct|enum|trait|type|const|static NAME`
/// (leading space allowed; `pub(crate)` and `pub(super)` are not public; `pub const fn` and
/// `pub static mut` are read as the function and the static they define).
fn public_definition(line: &str) -> Option<&str> {
    let mut words = line.trim_start().strip_prefix("pub ")?.split_whitespace();
    let kind = words.next()?;
    if !["struct", "enum", "trait", "type", "const", "static"].contains(&kind) {
        return None;
    }
    let mut word = words.next()?;
    if kind == "const" && (word == "fn" || word == "unsafe") {
        return None;
    }
    if kind == "static" && word == "mut" {
        word = words.next()?;
    }
    let end = word
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(word.len());
    (end > 0).then(|| &word[..end])
}

#[test]
fn public_definitions_are_read_as_the_line_scan_means() {
    assert_eq!(public_definition("pub struct Summary {"), Some("Summary"));
    assert_eq!(
        public_definition("    pub const ALL: [Axis; 9] = ["),
        Some("ALL")
    );
    assert_eq!(
        public_definition("pub enum Node<'a, V: PyValue> {"),
        Some("Node")
    );
    assert_eq!(
        public_definition("pub type Status = String;"),
        Some("Status")
    );
    assert_eq!(
        public_definition("pub static mut COUNT: u32 = 0;"),
        Some("COUNT")
    );
    assert_eq!(public_definition("pub(crate) struct State {"), None);
    assert_eq!(public_definition("pub(super) enum Role {"), None);
    assert_eq!(public_definition("pub const fn of(x: u8) -> u8 {"), None);
    assert_eq!(public_definition("pub fn summary() -> Summary {"), None);
    assert_eq!(public_definition("/// pub struct Doc"), None);
}

#[test]
fn no_two_library_crates_define_a_public_type_of_the_same_name() {
    let mut definers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let crates = library_crates();
    assert!(
        crates.iter().any(|(name, _)| name == "veer-contract"),
        "the library crates were not found under {}",
        workspace_root().display()
    );
    for (name, dir) in &crates {
        for file in rust_files(&dir.join("src")) {
            let text = std::fs::read_to_string(&file).expect("a readable source file");
            for line in text.lines() {
                if let Some(item) = public_definition(line) {
                    definers
                        .entry(item.to_string())
                        .or_default()
                        .insert(name.clone());
                }
            }
        }
    }
    let duplicates: Vec<String> = definers
        .iter()
        .filter(|(_, crates)| crates.len() > 1)
        .map(|(item, crates)| format!("{item}: {crates:?}"))
        .collect();
    assert!(
        duplicates.is_empty(),
        "public items defined in more than one library crate (make the one only its crate uses \
         pub(crate), else rename the less central one to say what it is):\n{}",
        duplicates.join("\n")
    );
}

/// Whether `word` occurs in `text` with no identifier character on either side.
fn names(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

#[test]
fn every_library_crate_uses_each_of_its_dependencies() {
    let meta = metadata();
    let root = workspace_root();
    let mut unused = Vec::new();
    let mut checked = 0;
    let mut crates = library_crates();
    crates.push(("veer-cli".to_string(), root.join("crates").join("veer")));
    for (name, dir) in crates {
        let package = meta["packages"]
            .as_array()
            .expect("a packages array")
            .iter()
            .find(|p| p["name"] == name.as_str())
            .unwrap_or_else(|| panic!("{name} under {} is not a package", root.display()));
        // Only the code the crate builds with counts: a dependency named only by its unit
        // tests (test-only files, the `#[cfg(test)] mod` at a file's end) or its `tests/`
        // belongs in [dev-dependencies].
        let sources: Vec<String> = rust_files(&dir.join("src"))
            .iter()
            .filter(|f| !is_test_file(f))
            .map(|f| std::fs::read_to_string(f).expect("a readable source file"))
            .map(|text| without_test_module(&text).to_string())
            .collect();
        for (dep, rust) in normal_dependencies(package) {
            checked += 1;
            if !sources.iter().any(|s| names(s, &rust)) {
                unused.push(format!("{name} → {dep}"));
            }
        }
    }
    assert!(checked > 20, "only {checked} dependencies were checked");
    assert!(
        unused.is_empty(),
        "[dependencies] entries the crate's non-test source never names (remove them, or move \
         them to [dev-dependencies] when only tests use them): {unused:?}"
    );
}

/// Whether `file` holds only unit tests (`tests.rs`, `*_tests.rs`, `proptests.rs`, a `tests/`
/// module directory).
fn is_test_file(file: &Path) -> bool {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    name == "tests.rs"
        || name.ends_with("_tests.rs")
        || name == "proptests.rs"
        || file.components().any(|c| c.as_os_str() == "tests")
}

/// `text` before its trailing `#[cfg(test)] mod …` unit-test module.
fn without_test_module(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    }
}

#[test]
fn a_dependency_is_named_only_as_a_whole_word() {
    assert!(names("use serde_json::Value;", "serde_json"));
    assert!(names("#[derive(schemars::JsonSchema)]", "schemars"));
    assert!(!names("use serde_json::Value;", "serde"));
    assert!(!names("my_regex_helper()", "regex"));
}
