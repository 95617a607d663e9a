//! The behaviour policy as the front ends use it: loaded from a file or from text, compared on
//! two traces, and the live policy's recorded decisions read back from a trace. The binary,
//! the Python package and the recorder's setup call these (and name the loaded [`Policy`] and
//! the enforcement [`Mode`] through this module), so no front end depends on `veer-policy`.

use std::path::Path;
use veer_contract::policy::{LiveDecision, PolicyDiff};
use veer_trace::Trace;

/// A loaded policy (its rules, in file order, and its load warnings); the enforcement mode
/// `veer record --enforce` runs the live policy in; a load error (every problem found, each
/// with file, line, rule and hint).
pub use veer_policy::{runtime::Mode, Policy, PolicyError};

/// Loads and validates the policy file at `path` (.yaml/.yml, or .json by its extension).
/// Relative paths inside the policy resolve against the file's directory.
pub fn load(path: &Path) -> Result<Policy, PolicyError> {
    Policy::load(path)
}

/// The largest policy file read to compare it with a stored baseline's (bytes).
pub const MAX_POLICY_BYTES: u64 = 16 << 20;

/// A policy that cannot be loaded as the CLI shows it: every problem line, the first one as
/// the message, the file named.
pub fn load_error(e: &PolicyError) -> crate::Error {
    let mut lines = e.lines().into_iter();
    let mut error = crate::Error::new(
        crate::ErrorKind::Policy,
        lines.next().unwrap_or_else(|| e.file.clone()),
    );
    error.more = lines.collect();
    error.file = Some(e.file.clone());
    error
}

/// Loads the policy at `path` for a comparison: its load warnings told to `warn`, a load error
/// as [`load_error`] gives it.
pub fn load_warned(path: &Path, warn: &(dyn Fn(&str) + Sync)) -> Result<Policy, crate::Error> {
    let policy = load(path).map_err(|e| load_error(&e))?;
    for w in &policy.warnings {
        warn(w);
    }
    Ok(policy)
}

/// Loads a policy from `text`, named `file` in errors; `json` picks the JSON reader over the
/// YAML one; relative paths inside the policy resolve against `base_dir`.
pub fn load_str(
    text: &str,
    file: &str,
    json: bool,
    base_dir: &Path,
) -> Result<Policy, PolicyError> {
    Policy::load_str(text, file, json, base_dir)
}

/// The policy evaluated on both traces: the candidate's violations the baseline lacks
/// (regressions) and the baseline's the candidate lacks (fixes).
pub fn compare(policy: &Policy, baseline: &Trace, candidate: &Trace) -> PolicyDiff {
    veer_policy::compare(policy, baseline, candidate)
}

/// The live policy's decisions `veer record --enforce` wrote into `trace`, in record order
/// (empty for a trace recorded without a policy).
pub fn live_decisions(trace: &Trace) -> Vec<LiveDecision> {
    veer_policy::live::decisions(trace)
}
