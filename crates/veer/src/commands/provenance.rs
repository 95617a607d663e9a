//! Where a run comes from, for baselines and history: the git commit, branch and CI run from
//! the CI's environment variables (GitHub Actions, GitLab CI, Buildkite, CircleCI, Jenkins),
//! else from `git` in the working directory; and the time, honouring `SOURCE_DATE_EPOCH`.
//! No network: `git` is asked only about the local repository.

use std::process::{Command, Stdio};

/// The first non-empty variable of `names`.
fn env_first(names: &[&str]) -> Option<String> {
    names
        .iter()
        .find_map(|n| std::env::var(n).ok().filter(|v| !v.trim().is_empty()))
}

/// `git ARGS` in the working directory: its trimmed stdout when it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// The commit: CI variables, else `git rev-parse HEAD`.
pub fn commit() -> Option<String> {
    env_first(&[
        "GITHUB_SHA",
        "CI_COMMIT_SHA",
        "BUILDKITE_COMMIT",
        "CIRCLE_SHA1",
        "GIT_COMMIT",
    ])
    .or_else(|| git(&["rev-parse", "HEAD"]))
}

/// The branch: CI variables (a pull request's head branch first), else the checked-out git
/// branch (none when detached).
pub fn branch() -> Option<String> {
    env_first(&[
        "GITHUB_HEAD_REF",
        "GITHUB_REF_NAME",
        "CI_COMMIT_REF_NAME",
        "BUILDKITE_BRANCH",
        "CIRCLE_BRANCH",
        "GIT_BRANCH",
    ])
    .or_else(|| git(&["rev-parse", "--abbrev-ref", "HEAD"]).filter(|b| b != "HEAD"))
}

/// The CI run and the CI system, when the environment names one.
pub fn ci_run() -> (Option<String>, Option<String>) {
    let known: [(&str, &str); 5] = [
        ("GITHUB_RUN_ID", "github"),
        ("CI_PIPELINE_ID", "gitlab"),
        ("BUILDKITE_BUILD_ID", "buildkite"),
        ("CIRCLE_WORKFLOW_ID", "circleci"),
        ("BUILD_TAG", "jenkins"),
    ];
    for (var, provider) in known {
        if let Some(v) = env_first(&[var]) {
            let run = match (provider, env_first(&["GITHUB_RUN_ATTEMPT"])) {
                ("github", Some(attempt)) => format!("{v}.{attempt}"),
                _ => v,
            };
            return (Some(run), Some(provider.to_string()));
        }
    }
    (None, None)
}

/// Who is acting: the CI actor or the user name.
pub fn actor() -> Option<String> {
    env_first(&[
        "GITHUB_ACTOR",
        "GITLAB_USER_LOGIN",
        "BUILDKITE_BUILD_CREATOR",
        "USER",
        "USERNAME",
    ])
    .or_else(|| git(&["config", "user.email"]))
    .or_else(|| git(&["config", "user.name"]))
}

/// Now, in milliseconds since the Unix epoch; `SOURCE_DATE_EPOCH` (seconds) when set, for
/// reproducible output.
pub fn now_ms() -> i64 {
    if let Some(s) = env_first(&["SOURCE_DATE_EPOCH"]).and_then(|s| s.trim().parse::<i64>().ok()) {
        return s.saturating_mul(1000);
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Parses `--since`/`--time`: `YYYY-MM-DD` (midnight UTC) or an RFC 3339 instant; ms since
/// the epoch.
pub fn parse_time(s: &str) -> Option<i64> {
    let s = s.trim();
    if s.len() == 10 {
        return veer_trace::timefmt::parse_iso_ms(&format!("{s}T00:00:00Z"));
    }
    veer_trace::timefmt::parse_iso_ms(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_instants_parse() {
        assert_eq!(parse_time("1970-01-02"), Some(86_400_000));
        assert_eq!(parse_time("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(parse_time("yesterday"), None);
        assert_eq!(parse_time("2026-13-01"), None);
    }
}
