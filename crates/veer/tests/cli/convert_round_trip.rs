//! `veer convert` round trips on every trace file under `tests/fixtures/` (each format's real
//! files included): the converted `.agentlog` reads back under `inspect --strict`, and two files
//! of one folder diff as their conversions do — the same exit code and the same JSON report
//! apart from the paths, the source readers' warnings and the trace ids of records whose stored
//! id was a placeholder. An Inspect AI log and the directory `convert` writes from it give the
//! same case verdicts.

use crate::common::{fixtures, veer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every file under `tests/fixtures/` that is not a script, a note or a policy.
fn fixture_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else {
                let name = p.file_name().unwrap().to_string_lossy().to_lowercase();
                let skip = [
                    ".md", ".py", ".txt", ".yaml", ".yml", ".csv", ".toml", ".sh", ".lock",
                ];
                if !skip.iter().any(|s| name.ends_with(s)) && name != "versions" {
                    out.push(p);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&fixtures(), &mut out);
    out
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The report's JSON with `from` paths written as `to`, and the fields a conversion may change
/// on purpose taken out: the readers' warnings (the source format's own notes) and trace ids.
fn comparable(stdout: &str, paths: &[(&Path, &str)]) -> Option<serde_json::Value> {
    let mut text = stdout.to_owned();
    for (from, to) in paths {
        let quoted = serde_json::to_string(s(from)).unwrap();
        text = text.replace(&quoted[1..quoted.len() - 1], to);
    }
    let mut v: serde_json::Value = serde_json::from_str(&text).ok()?;
    fn scrub(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.remove("warnings");
                m.remove("trace_id");
                m.values_mut().for_each(scrub);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(scrub),
            _ => {}
        }
    }
    scrub(&mut v);
    Some(v)
}

#[test]
fn every_converted_fixture_reads_back_strictly_and_diffs_as_its_source() {
    let tmp = tempfile::tempdir().unwrap();
    let mut converted: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, file) in fixture_files().into_iter().enumerate() {
        let out = tmp.path().join(format!("{i}.agentlog"));
        if veer(&["convert", s(&file), "-o", s(&out)]).code != 0 {
            continue; // not a single trace veer reads (reports, goldens, Inspect logs of many samples)
        }
        let strict = veer(&["inspect", "--strict", s(&out)]);
        if strict.code != 0 {
            // A source whose own clock goes backwards keeps it: convert never invents times.
            let source = veer(&["inspect", "--strict", s(&file)]);
            let own_clock = source.code != 0 && source.stderr.contains(": ts: ");
            if !own_clock {
                problems.push(format!("{}: {}", file.display(), strict.stderr.trim()));
            }
        }
        converted.insert(file, out);
    }
    assert!(
        converted.len() >= 60,
        "only {} fixtures converted",
        converted.len()
    );
    let mut by_folder: BTreeMap<PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for f in converted.keys() {
        by_folder
            .entry(f.parent().unwrap().to_path_buf())
            .or_default()
            .push(f);
    }
    let mut compared = 0;
    for files in by_folder.values() {
        for pair in files.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let (ca, cb) = (&converted[a], &converted[b]);
            let source = veer(&["diff", s(a), s(b), "--format", "json"]);
            let conv = veer(&["diff", s(ca), s(cb), "--format", "json"]);
            if source.code != conv.code {
                problems.push(format!(
                    "{} vs {}: exit {} from the sources, {} from their conversions",
                    a.display(),
                    b.display(),
                    source.code,
                    conv.code
                ));
                continue;
            }
            if source.code == 2 {
                continue;
            }
            let left = comparable(&source.stdout, &[(a, "A"), (b, "B")]);
            let right = comparable(&conv.stdout, &[(ca, "A"), (cb, "B")]);
            if left.is_none() || left != right {
                problems.push(format!(
                    "{} vs {}: the reports differ",
                    a.display(),
                    b.display()
                ));
            }
            compared += 1;
        }
    }
    assert!(compared >= 30, "only {compared} pairs compared");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_traxr_results_file_converts_to_a_file_whose_clock_never_goes_back() {
    let tmp = tempfile::tempdir().unwrap();
    for golden in ["builtin_stub.json", "external_mock.json"] {
        let src = fixtures().join("traxr/goldens").join(golden);
        let out = tmp.path().join(golden).with_extension("agentlog");
        assert_eq!(veer(&["convert", s(&src), "-o", s(&out)]).code, 0);
        let strict = veer(&["inspect", "--strict", s(&out)]);
        assert_eq!(strict.code, 0, "{golden}: {}", strict.stderr);
        // Every run is kept, each starting with its root record, its intervals unchanged.
        let text = std::fs::read_to_string(&out).unwrap();
        let records: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let roots = records.iter().filter(|r| r["kind"] == "metadata").count();
        let runs =
            serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&src).unwrap())
                .unwrap()["traces"]
                .as_object()
                .map_or(0, |m| m.len());
        assert_eq!(roots, runs, "{golden}: one root record per run");
    }
}

#[test]
fn an_inspect_log_and_its_converted_directory_give_the_same_case_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = fixtures().join("inspect");
    let (b, c) = (dir.join("baseline.eval"), dir.join("candidate.eval"));
    let (bd, cd) = (tmp.path().join("b/"), tmp.path().join("c/"));
    for (log, out) in [(&b, &bd), (&c, &cd)] {
        assert_eq!(veer(&["convert", s(log), "-o", s(out)]).code, 0);
    }
    let policy = dir.join("policy.yaml");
    let verdicts = |x: &Path, y: &Path| {
        let r = veer(&[
            "diff",
            s(x),
            s(y),
            "--policy",
            s(&policy),
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let cases: Vec<(String, String)> = v["trials"]["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["case"].as_str().unwrap().to_owned(),
                    c["verdict"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        (r.code, cases)
    };
    let logs = verdicts(&b, &c);
    assert!(!logs.1.is_empty());
    assert_eq!(logs, verdicts(&bd, &cd));
}
