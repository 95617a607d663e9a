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

/// Runs `veer policy validate`: the file loads; with `--against`, every rule can fire on the
/// traces named (exit 1 naming each one that cannot).
pub fn validate(args: &PolicyValidateArgs) -> Result<Exit, CliError> {
    let (validation, warnings) =
        veer_engine::policy::validate(&args.file, &args.against, &args.read.options())?;
    for w in &warnings {
        crate::output::diag::warn(w);
    }
    for u in validation.against.iter().flat_map(|a| &a.unreadable) {
        crate::output::diag::warn(format!(
            "{}: skipped, not readable as a trace: {}",
            u.file, u.error
        ));
    }
    emit(&veer_report::policy::validation::render(&validation), None)?;
    Ok(if validation.all_can_fire() {
        Exit::done()
    } else {
        Exit::Found
    })
}
