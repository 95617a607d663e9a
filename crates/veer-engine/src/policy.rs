//! The behaviour policy as the front ends use it: loaded from a file or from text, compared on
//! two traces, and the live policy's recorded decisions read back from a trace. The binary,
//! the Python package and the recorder's setup call these (and name the loaded [`Policy`] and
//! the enforcement [`Mode`] through this module), so no front end depends on `veer-policy`.

use std::path::Path;
use veer_contract::policy::{LiveDecision, PolicyDiff};
use veer_contract::policy_validation::{
    AgainstTraces, DeadRuleRow, PolicyValidation, UnreadableFile,
};
use veer_trace::Trace;

/// A loaded policy (its rules, in file order, and its load warnings); the enforcement mode
/// `veer record --enforce` runs the live policy in; a load error (every problem found, each
/// with file, line, rule and hint).
pub use veer_policy::{runtime::Mode, Policy, PolicyError};

/// What a policy's rules name that the traces it ran on never hold (a tool never called or
/// declared, a path that never resolves): the watch over traces and one dead rule.
pub use veer_policy::coverage::{Coverage, DeadRule};

/// A shared watch of the traces a policy runs on, filled from several threads.
pub type SharedCoverage = std::sync::Arc<std::sync::Mutex<Coverage>>;

/// Adds `trace` to `watch`: the trace is looked at outside the lock, then merged.
pub fn observe(watch: &std::sync::Mutex<Coverage>, policy: &Policy, trace: &Trace) {
    let mut one = Coverage::new(policy);
    one.observe(policy, trace);
    watch
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .merge(one);
}

/// The dead rules of `watch` as warnings, one line each: the rule, what it names, the hint.
pub fn dead_rule_warnings(watch: &std::sync::Mutex<Coverage>, policy: &Policy) -> Vec<String> {
    watch
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .dead_rules(policy)
        .into_iter()
        .map(|d| format!("policy rule `{}` {}; {}", d.rule_id, d.message, d.hint))
        .collect()
}

/// What watching a policy against traces found: its dead rules, how many traces were read,
/// and the files that could not be read (each with its error).
#[derive(Debug, Clone, Default)]
pub struct Against {
    /// The rules that can never fire on the traces read, in rule order.
    pub dead: Vec<DeadRule>,
    /// Traces read (a results file counts each of its runs).
    pub traces: usize,
    /// Files that could not be read as traces: (path, error).
    pub unreadable: Vec<(String, String)>,
}

/// Watches `policy` against every trace in `paths` (trace files, or directories walked for
/// trace files), one file at a time: memory holds one trace, never the corpus. A path that does
/// not exist is an error; a file inside a directory that cannot be read is listed in
/// [`Against::unreadable`]; a named file that cannot be read is an error.
pub fn against(
    policy: &Policy,
    paths: &[std::path::PathBuf],
    read: &veer_trace::ReadOptions,
) -> Result<Against, crate::Error> {
    let mut watch = Coverage::new(policy);
    let mut out = Against::default();
    let mut take = |t: &Trace, out: &mut Against| {
        watch.observe(policy, t);
        out.traces += 1;
    };
    for path in paths {
        if path.is_dir() {
            let mut files = Vec::new();
            veer_trace::load::walk_trace_files(path, |f| {
                files.push(f);
                Ok::<(), veer_trace::TraceError>(())
            })?;
            files.sort();
            for f in files {
                match veer_trace::load_file(&f, read) {
                    Ok(doc) => doc.into_traces().iter().for_each(|t| take(t, &mut out)),
                    Err(e) => out
                        .unreadable
                        .push((f.display().to_string(), e.to_string())),
                }
            }
        } else {
            let doc = veer_trace::load_file(path, read)?;
            doc.into_traces().iter().for_each(|t| take(t, &mut out));
        }
    }
    out.dead = watch.dead_rules(policy);
    Ok(out)
}

/// `veer policy validate`: the policy at `file` loads (else its load error, every problem
/// named), and with `against` non-empty every rule is watched on those traces
/// ([`against`]). Returns what was found and the policy's load warnings.
pub fn validate(
    file: &Path,
    against_paths: &[std::path::PathBuf],
    read: &veer_trace::ReadOptions,
) -> Result<(PolicyValidation, Vec<String>), crate::Error> {
    let policy = load(file).map_err(|e| load_error(&e))?;
    let warnings = policy.warnings.iter().map(ToString::to_string).collect();
    let against = if against_paths.is_empty() {
        None
    } else {
        let found = against(&policy, against_paths, read)?;
        Some(AgainstTraces {
            traces: found.traces,
            dead: found
                .dead
                .into_iter()
                .map(|d| DeadRuleRow {
                    rule_id: d.rule_id,
                    message: d.message,
                    hint: d.hint,
                })
                .collect(),
            unreadable: found
                .unreadable
                .into_iter()
                .map(|(file, error)| UnreadableFile { file, error })
                .collect(),
        })
    };
    let validation = PolicyValidation {
        file: file.display().to_string(),
        rules: policy.rules.len(),
        against,
    };
    Ok((validation, warnings))
}

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
