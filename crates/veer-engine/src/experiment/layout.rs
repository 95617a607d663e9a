//! The experiment directory's layout (spec experiment.md), read for `veer experiment analyze DIR`
//! and written the same way by `veer experiment run`: `baseline.<ext>` (the clean run),
//! `perturbed/<name>.<ext>` (one trace per perturbation) and optionally `reruns/<any>.<ext>`
//! (clean re-runs for the noise floor). The front ends hand the result to
//! [`super::analyze_traces`].

use super::{RunInput, TraceExperiment};
use crate::Error;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use veer_trace::ReadOptions;

/// Where the reader's diagnostics go (reader warnings, skipped entries): the binary prints
/// each on stderr as a warning.
pub type Warn<'a> = &'a dyn Fn(&dyn Display);

/// Trace file endings an experiment directory may hold (longest first).
pub const TRACE_EXTENSIONS: [&str; 5] =
    [".agentlog.gz", ".agentlog", ".jsonl.gz", ".jsonl", ".json"];

/// How an experiment directory is laid out (for hints).
pub const LAYOUT: &str = "an experiment directory holds baseline.<ext> (the clean run), \
     perturbed/<name>.<ext> (one trace per perturbation) and optionally reruns/<any>.<ext> \
     (clean re-runs for the noise floor); <ext> is .agentlog, .agentlog.gz, .jsonl or .json";

/// The name of a trace file without its trace extension (`None` when it has none).
pub fn stem(name: &str) -> Option<&str> {
    TRACE_EXTENSIONS
        .iter()
        .find_map(|ext| name.strip_suffix(ext))
        .filter(|s| !s.is_empty())
}

/// The trace files directly in `dir` (sorted by name), as (name, path); hidden entries are
/// skipped, subdirectories and what is not a regular file told to `warn` and skipped.
fn trace_files_in(dir: &Path, warn: Warn<'_>) -> Result<Vec<(String, PathBuf)>, Error> {
    let cannot = |e: std::io::Error| {
        Error::input(format!("{}: cannot read directory: {e}", dir.display()))
            .hint("check that the directory exists and is readable")
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot)? {
        let entry = entry.map_err(cannot)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // Symlinks are followed; what is neither a directory nor a regular file (a FIFO, a
        // socket, a device, a dangling link) is never opened.
        let meta = std::fs::metadata(&path).ok();
        if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
            if dir
                .file_name()
                .is_some_and(|n| n == "perturbed" || n == "reruns")
            {
                warn(&format_args!(
                    "{}: subdirectory ignored (runs are files directly in {})",
                    path.display(),
                    dir.display()
                ));
            }
            continue;
        }
        if stem(&name).is_none() {
            continue;
        }
        if meta.as_ref().is_some_and(std::fs::Metadata::is_file) {
            out.push((name, path));
        } else {
            warn(&format_args!(
                "{}: skipped: not a regular file (only regular files are read from a directory)",
                path.display()
            ));
        }
    }
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(out)
}

/// Loads the runs of a `perturbed/` or `reruns/` directory; a run that cannot be read keeps
/// its error (the analysis turns it into an `error` pair or an `errors` line); each read trace's warnings
/// go to `warn`.
fn runs(dir: &Path, sub: &str, read: &ReadOptions, warn: Warn<'_>) -> Result<Vec<RunInput>, Error> {
    let mut out: Vec<RunInput> = Vec::new();
    for (name, path) in trace_files_in(&dir.join(sub), warn)? {
        let stem = stem(&name).unwrap_or(&name).to_string();
        if let Some(other) = out.iter().find(|r| r.name == stem) {
            return Err(Error::input(format!(
                "{}: two runs named \"{stem}\": {} and {sub}/{name}",
                dir.display(),
                other.file
            ))
            .hint(
                "keep one trace file per name (the name is the file name without its extension)",
            ));
        }
        let trace = veer_trace::load_trace(&path, read);
        if let Ok(t) = &trace {
            for w in &t.warnings {
                warn(w);
            }
        }
        out.push(RunInput {
            name: stem,
            file: format!("{sub}/{name}"),
            trace,
        });
    }
    Ok(out)
}

/// Reads the experiment directory `dir` ([`LAYOUT`]): `baseline.<ext>`, `perturbed/<name>.<ext>`
/// (at least one) and `reruns/<any>.<ext>` (optional). `expected` is the expected answer;
/// `include_traces` and `include_alignment` ask the report for the per-run traces and event
/// alignments. Reader warnings and skipped entries go to `warn`, in the order they are met. An
/// input error (naming the directory or file, with the layout as the hint) when there is no
/// single baseline, no perturbed run, or two runs of one name; a perturbed or re-run trace that
/// cannot be read is kept as its error. Work is one read of each trace file.
pub fn read_directory(
    dir: &Path,
    read: &ReadOptions,
    expected: Option<String>,
    include_traces: bool,
    include_alignment: bool,
    warn: Warn<'_>,
) -> Result<TraceExperiment, Error> {
    let source = dir.display().to_string();
    // A directory without a single trace anywhere is named as such.
    veer_trace::load::trace_files(dir).map_err(|e| Error::from(e).hint(LAYOUT))?;
    let baselines: Vec<(String, PathBuf)> = trace_files_in(dir, warn)?
        .into_iter()
        .filter(|(name, _)| stem(name) == Some("baseline"))
        .collect();
    let (base_name, base_path) = match baselines.as_slice() {
        [] => {
            return Err(Error::input(format!(
                "{source}: no baseline trace (expected {source}/baseline.agentlog, \
                 baseline.agentlog.gz, baseline.jsonl or baseline.json)"
            ))
            .hint(LAYOUT))
        }
        [one] => one.clone(),
        many => {
            let names: Vec<&str> = many.iter().map(|(n, _)| n.as_str()).collect();
            return Err(Error::input(format!(
                "{source}: more than one baseline trace: {}",
                names.join(", ")
            ))
            .hint("keep exactly one baseline.<ext>"));
        }
    };
    let baseline = veer_trace::load_trace(&base_path, read)?;
    for w in &baseline.warnings {
        warn(w);
    }

    let perturbed_dir = dir.join("perturbed");
    if !perturbed_dir.is_dir() {
        return Err(Error::input(format!(
            "{source}: no perturbed/ directory: nothing to compare with the baseline"
        ))
        .hint(LAYOUT));
    }
    let perturbed = runs(dir, "perturbed", read, warn)?;
    if perturbed.is_empty() {
        return Err(Error::input(format!(
            "{}: no perturbed traces: nothing to compare with the baseline",
            perturbed_dir.display()
        ))
        .hint(LAYOUT));
    }
    let reruns = if dir.join("reruns").is_dir() {
        runs(dir, "reruns", read, warn)?
    } else {
        Vec::new()
    };
    let item_id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .or_else(|| {
            dir.canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        })
        .unwrap_or_else(|| source.clone());
    Ok(TraceExperiment {
        source,
        item_id,
        baseline: (base_name, baseline),
        reruns,
        perturbed,
        expected_answer: expected,
        include_traces,
        include_alignment,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// The refund agent's baseline run (examples/refund-agent), a valid `.agentlog`.
    fn trace_text() -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/refund-agent");
        std::fs::read_to_string(root.join("baseline.agentlog")).unwrap()
    }

    fn read(dir: &Path, notes: &RefCell<Vec<String>>) -> Result<TraceExperiment, Error> {
        read_directory(dir, &ReadOptions::default(), None, false, false, &|w| {
            notes.borrow_mut().push(w.to_string())
        })
    }

    #[test]
    fn a_directory_reads_into_its_runs_and_names_what_is_missing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let notes = RefCell::new(Vec::new());
        std::fs::write(dir.join("notes.agentlog"), trace_text()).unwrap();
        let e = read(dir, &notes).unwrap_err();
        assert!(e.message.contains("no baseline trace"), "{}", e.message);
        assert_eq!(e.hint.as_deref(), Some(LAYOUT));

        std::fs::write(dir.join("baseline.agentlog"), trace_text()).unwrap();
        let e = read(dir, &notes).unwrap_err();
        assert!(
            e.message.contains("no perturbed/ directory"),
            "{}",
            e.message
        );

        std::fs::create_dir_all(dir.join("perturbed/nested")).unwrap();
        std::fs::write(dir.join("perturbed/typo.jsonl"), trace_text()).unwrap();
        std::fs::write(dir.join("perturbed/noise.agentlog"), "not json\n").unwrap();
        let exp = read(dir, &notes).unwrap();
        assert_eq!(exp.baseline.0, "baseline.agentlog");
        let names: Vec<&str> = exp.perturbed.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["noise", "typo"], "sorted by file name");
        assert!(
            exp.perturbed[0].trace.is_err(),
            "an unreadable run keeps its error"
        );
        assert!(exp.reruns.is_empty());
        assert!(
            notes
                .borrow()
                .iter()
                .any(|n| n.contains("subdirectory ignored")),
            "{:?}",
            notes.borrow()
        );

        std::fs::write(dir.join("perturbed/typo.agentlog"), trace_text()).unwrap();
        let e = read(dir, &notes).unwrap_err();
        assert!(
            e.message.contains("two runs named \"typo\""),
            "{}",
            e.message
        );
    }
}
