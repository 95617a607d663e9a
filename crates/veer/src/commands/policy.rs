//! `veer policy validate FILE`: load a policy strictly and report every problem (exit 2) or
//! confirm it is valid (exit 0).

use crate::cli::PolicyValidateArgs;
use crate::error::{CliError, Exit};
use crate::output::emit;
use veer_engine::policy::{Policy, PolicyError};

/// A policy load error as a CLI error: the first problem as the message, the others as
/// further lines (each carries its own hint), exit 2.
pub fn policy_error(e: &PolicyError) -> CliError {
    veer_engine::policy::load_error(e)
}

/// Loads a policy, printing its load warnings to stderr.
pub fn load(path: &std::path::Path) -> Result<Policy, CliError> {
    let policy = veer_engine::policy::load(path).map_err(|e| policy_error(&e))?;
    for w in &policy.warnings {
        crate::output::diag::warn(w);
    }
    Ok(policy)
}

/// Runs `veer policy validate`.
pub fn validate(args: &PolicyValidateArgs) -> Result<Exit, CliError> {
    let policy = load(&args.file)?;
    let n = policy.rules.len();
    emit(
        &format!(
            "{}: valid ({n} rule{})\n",
            args.file.display(),
            if n == 1 { "" } else { "s" }
        ),
        None,
    )?;
    Ok(Exit::done())
}
