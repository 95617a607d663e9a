//! `veer init`: writes a commented `veer.toml`, a starter policy (`veer-policy.yaml`) and a
//! GitHub workflow (`.github/workflows/veer.yml`) into a directory. A file that already exists
//! (a symlink too, even a dangling one) is skipped and named, never overwritten: each file is
//! written to a temporary file beside it and hard-linked into place, which fails when the name
//! is taken. There is no `--force` (docs/config.md).

use crate::cli::InitArgs;
use crate::error::{CliError, Exit};
use std::io::Write;
use std::path::Path;

/// The files `veer init` writes: path under the directory, content, what it is.
pub const FILES: &[(&str, &str, &str)] = &[
    (
        "veer.toml",
        include_str!("init/veer.toml"),
        "veer's settings (docs/config.md)",
    ),
    (
        "veer-policy.yaml",
        include_str!("init/veer-policy.yaml"),
        "a starter behaviour policy (docs/policy.md)",
    ),
    (
        ".github/workflows/veer.yml",
        include_str!("init/veer.yml"),
        "a GitHub workflow running veer's action (docs/ci.md)",
    ),
];

/// The workflow's placeholder for the action's repository when it is not known.
pub const ACTION_PLACEHOLDER: &str = "OWNER/veer";

/// The repository holding veer's action: `--action`, else the GitHub repository this build
/// names as its own (`repository` in Cargo.toml), else None.
fn action_repo(given: Option<&str>) -> Option<String> {
    if let Some(a) = given {
        return Some(a.to_string());
    }
    let url = env!("CARGO_PKG_REPOSITORY");
    let rest = url
        .strip_prefix("https://github.com/")
        .map(|r| r.trim_end_matches(".git").trim_end_matches('/'))?;
    let (owner, repo) = rest.split_once('/')?;
    (!owner.is_empty() && !repo.is_empty() && !repo.contains('/')).then(|| rest.to_string())
}

/// A file's content as written: the workflow names the action's repository and this version.
fn content(template: &str, action: &str) -> String {
    template
        .replace("{{ACTION}}", action)
        .replace("{{VERSION}}", env!("CARGO_PKG_VERSION"))
}

/// What happened to one file.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Written,
    Exists,
}

/// Runs `veer init`: 0 when every file was written or already existed; the first write error
/// otherwise (exit 2; the files written before it stay).
pub fn run(args: &InitArgs) -> Result<Exit, CliError> {
    if !args.dir.is_dir() {
        return Err(
            CliError::input(format!("{}: not a directory", args.dir.display()))
                .hint("give the repository root, e.g. `veer init .`"),
        );
    }
    let action = action_repo(args.action.as_deref());
    let shown = action.as_deref().unwrap_or(ACTION_PLACEHOLDER);
    let mut workflow_written = false;
    for (rel, template, what) in FILES {
        let path = args.dir.join(rel);
        let text = content(template, shown);
        let outcome = write_new(&path, text.as_bytes())?;
        workflow_written |= outcome == Outcome::Written && rel.ends_with("veer.yml");
        match outcome {
            Outcome::Written => {
                crate::output::diag::say("", format!("wrote {}: {what}", path.display()))
            }
            Outcome::Exists => crate::output::diag::say(
                "",
                format!(
                    "skipped {}: it already exists (veer init never overwrites a file)",
                    path.display()
                ),
            ),
        }
    }
    if workflow_written && action.is_none() {
        crate::output::diag::warn(format!(
            "the workflow's `uses: {ACTION_PLACEHOLDER}@v{}` is a placeholder: replace {ACTION_PLACEHOLDER} with the GitHub repository holding veer's action (or rerun `veer init --action OWNER/REPO` on a fresh directory)",
            env!("CARGO_PKG_VERSION")
        ));
    }
    crate::output::diag::say(
        "",
        "next: edit veer-policy.yaml, then `veer policy validate veer-policy.yaml` and `veer config show`",
    );
    Ok(Exit::done())
}

/// Writes `bytes` to `path` unless the name is taken (by anything, a dangling symlink
/// included), creating missing parent directories.
fn write_new(path: &Path, bytes: &[u8]) -> Result<Outcome, CliError> {
    if path.symlink_metadata().is_ok() {
        return Ok(Outcome::Exists);
    }
    let err = |e: std::io::Error| CliError::output(&path.display().to_string(), &e);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(err)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.veer-init-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::hard_link(&tmp, path)
    })();
    let _ = std::fs::remove_file(&tmp);
    match result {
        Ok(()) => Ok(Outcome::Written),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(Outcome::Exists),
        Err(e) => Err(err(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workflow_names_the_action_and_this_version() {
        let text = content(FILES[2].1, "acme/veer");
        let uses = format!("uses: acme/veer@v{}", env!("CARGO_PKG_VERSION"));
        assert_eq!(text.matches(&uses).count(), 2, "{text}");
        assert!(
            !text.contains("{{ACTION}}") && !text.contains("{{VERSION}}"),
            "{text}"
        );
        assert_eq!(action_repo(Some("a/b")).as_deref(), Some("a/b"));
    }

    #[test]
    fn the_starter_policy_loads() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("veer-policy.yaml");
        std::fs::write(&p, FILES[1].1).unwrap();
        let policy = crate::commands::policy::load(&p).expect("the starter policy is valid");
        drop(policy);
    }

    #[test]
    fn the_settings_file_loads() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("veer.toml");
        std::fs::write(&p, FILES[0].1).unwrap();
        let c = crate::config::load(&p, crate::config::Origin::Flag).expect("valid veer.toml");
        assert!(c
            .get("policy")
            .next()
            .unwrap()
            .value
            .ends_with("veer-policy.yaml"));
        assert_eq!(c.get("diff.fail_on").next().unwrap().value, "severe");
    }

    #[test]
    fn an_existing_file_or_link_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "mine").unwrap();
        assert_eq!(write_new(&p, b"theirs").unwrap(), Outcome::Exists);
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "mine");
        let link = dir.path().join("dangling");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        assert_eq!(write_new(&link, b"x").unwrap(), Outcome::Exists);
        assert!(!dir.path().join("nowhere").exists());
        let fresh = dir.path().join("sub/dir/b.txt");
        assert_eq!(write_new(&fresh, b"new").unwrap(), Outcome::Written);
        assert_eq!(std::fs::read_to_string(&fresh).unwrap(), "new");
        // No temporary file is left behind.
        assert_eq!(
            std::fs::read_dir(dir.path().join("sub/dir"))
                .unwrap()
                .count(),
            1
        );
    }
}
