//! An output never replaces an input. Before a command runs, each path it will write is compared
//! with every file it reads, and with every file inside the directories it reads, by device and
//! inode — so the same file reached through a symlink, a hard link or another spelling of the
//! path is caught too.

use crate::error::CliError;
use std::collections::HashSet;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Most files looked at inside one input directory (the readers' own limit).
const MAX_FILES_SCANNED: usize = veer_trace::load::MAX_DIRECTORY_FILES;

/// Exit 2 with `refusing to write the report over an input: PATH` when `output` already exists
/// and is one of `inputs` or a file inside an input directory. A missing output is never an
/// input; an unreadable input is left for the command to report.
pub fn refuse_overwriting_inputs(output: &Path, inputs: &[&Path]) -> Result<(), CliError> {
    let Ok(target) = fs::metadata(output) else {
        return Ok(());
    };
    let id = (target.dev(), target.ino());
    for input in inputs {
        let Ok(meta) = fs::metadata(input) else {
            continue;
        };
        let hit = if meta.is_dir() {
            directory_holds(input, id)
        } else {
            (meta.dev(), meta.ino()) == id
        };
        if hit {
            return Err(CliError::input(format!(
                "refusing to write the report over an input: {}",
                output.display()
            ))
            .hint(if meta.is_dir() {
                format!(
                    "that file is inside the input directory {}; write the output elsewhere",
                    input.display()
                )
            } else {
                format!(
                    "that path names the same file as the input {}; write the output elsewhere",
                    input.display()
                )
            }));
        }
    }
    Ok(())
}

/// Whether the file `(device, inode)` lies anywhere below `dir` (links followed, each directory
/// visited once).
fn directory_holds(dir: &Path, id: (u64, u64)) -> bool {
    let mut pending = vec![dir.to_path_buf()];
    let mut seen_dirs = HashSet::new();
    let mut scanned = 0usize;
    while let Some(d) = pending.pop() {
        let Ok(meta) = fs::metadata(&d) else {
            continue;
        };
        if !seen_dirs.insert((meta.dev(), meta.ino())) {
            continue;
        }
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            scanned += 1;
            if scanned > MAX_FILES_SCANNED {
                return false;
            }
            let path = entry.path();
            let Ok(meta) = fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                pending.push(path);
            } else if (meta.dev(), meta.ino()) == id {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_file_by_any_path_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("run.agentlog");
        fs::write(&input, "{}\n").unwrap();
        let link = dir.path().join("link.agentlog");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let hard = dir.path().join("hard.agentlog");
        fs::hard_link(&input, &hard).unwrap();
        let dotted = dir.path().join(".").join("run.agentlog");
        for out in [&input, &link, &hard, &dotted] {
            let e = refuse_overwriting_inputs(out, &[&input]).unwrap_err();
            assert!(e
                .message
                .starts_with("refusing to write the report over an input: "));
        }
        // And the other way round: the input given through the link.
        assert!(refuse_overwriting_inputs(&input, &[&link]).is_err());
    }

    #[test]
    fn other_and_missing_outputs_pass() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("run.agentlog");
        fs::write(&input, "{}\n").unwrap();
        let other = dir.path().join("report.json");
        fs::write(&other, "{}").unwrap();
        assert!(refuse_overwriting_inputs(&other, &[&input]).is_ok());
        assert!(refuse_overwriting_inputs(&dir.path().join("new.json"), &[&input]).is_ok());
    }

    #[test]
    fn a_file_inside_an_input_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        fs::create_dir_all(runs.join("deep")).unwrap();
        let inner = runs.join("deep").join("a.agentlog");
        fs::write(&inner, "{}\n").unwrap();
        assert!(refuse_overwriting_inputs(&inner, &[&runs]).is_err());
        let outside = dir.path().join("report.md");
        fs::write(&outside, "x").unwrap();
        assert!(refuse_overwriting_inputs(&outside, &[&runs]).is_ok());
    }
}
