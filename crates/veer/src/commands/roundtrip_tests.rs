//! The output contract's round trip: every JSON golden under `tests/golden/`
//! is read into the type its command writes and written back with that command's own writer
//! (pretty JSON, the Python layout of `experiment analyze`, the perturb summary's printer); the
//! bytes must equal the golden's (`write(read(g)) == g`). A field a type cannot read back, a
//! float that does not survive, or a default that changes what is written fails here.

use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// The workspace's `tests/golden/`.
fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden")
}

/// Reads `text` into `T` (naming the JSON path of a failure) and writes it with `write`.
fn round_trip<T: DeserializeOwned>(file: &Path, text: &str, write: fn(&T) -> String) -> String {
    let de = &mut serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(de)
        .unwrap_or_else(|e| panic!("{}: cannot read at {}: {}", file.display(), e.path(), e));
    write(&value)
}

/// `write(read(g))` for one golden, by the command directory it sits in.
fn rewrite(command: &str, file: &Path, text: &str) -> String {
    use veer_report::json::to_json;
    match command {
        "diff" => round_trip::<veer_contract::diff::DiffReport>(file, text, to_json),
        // A directory diff is the path-paired report, or the trials report when cases have
        // repeated trials (its `trials` block).
        "diff-directory" if text.contains("\n  \"trials\": {") => {
            round_trip::<veer_contract::trials::TrialsReport>(file, text, to_json)
        }
        "diff-directory" => round_trip::<veer_contract::diff::DirectoryReport>(file, text, to_json),
        "check" => round_trip::<veer_contract::check::CheckDocument>(file, text, to_json),
        "gate" => round_trip::<veer_contract::gate::GateReport>(
            file,
            text,
            veer_report::policy::gate::json,
        ),
        "inspect" => round_trip::<veer_contract::inspect::InspectDocument>(file, text, to_json),
        "scan" => round_trip::<veer_contract::scan::ScanReport>(file, text, to_json),
        "perturb" => round_trip::<veer_contract::perturb::Summary>(
            file,
            text,
            veer_report::experiment::perturb::json,
        ),
        "experiment-pair" => {
            round_trip::<veer_contract::experiment::PairReport>(file, text, to_json)
        }
        "experiment-analyze" => round_trip::<veer_contract::experiment::ExperimentReport>(
            file,
            text,
            veer_report::experiment::json::render,
        ),
        other => panic!(
            "{}: no type is known for tests/golden/{other}/",
            file.display()
        ),
    }
}

#[test]
fn every_golden_reads_into_its_type_and_writes_back_byte_identical() {
    let mut checked = 0;
    let mut commands: Vec<_> = std::fs::read_dir(golden_dir())
        .expect("tests/golden")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    commands.sort();
    for dir in commands {
        let command = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("golden directory")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("golden");
            let written = rewrite(command, &file, &text);
            if written != text {
                let line = written
                    .lines()
                    .zip(text.lines())
                    .position(|(a, b)| a != b)
                    .map_or(written.lines().count().min(text.lines().count()), |i| i);
                panic!(
                    "{}: write(read(g)) differs from the golden at line {}:\n  golden:  {:?}\n  written: {:?}",
                    file.display(),
                    line + 1,
                    text.lines().nth(line),
                    written.lines().nth(line)
                );
            }
            checked += 1;
        }
    }
    // Every golden of tests/golden (37 when this test was written) took part.
    assert!(checked >= 37, "only {checked} goldens were checked");
}

#[test]
fn a_report_of_another_shape_is_refused_with_its_json_path() {
    // The round trip must be able to fail: a diff report whose axis severity is not a
    // severity is refused, naming where.
    let file = golden_dir().join("diff/demo.json");
    let text = std::fs::read_to_string(&file).expect("golden");
    let bad = text.replacen("\"severity\": \"", "\"severity\": \"catastrophic-", 1);
    let de = &mut serde_json::Deserializer::from_str(&bad);
    let err = serde_path_to_error::deserialize::<_, veer_contract::diff::DiffReport>(de)
        .expect_err("an unknown severity must not read");
    assert!(
        err.path().to_string().starts_with("axes[0]."),
        "{}",
        err.path()
    );
}
