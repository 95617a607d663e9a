//! The quarantine file for `veer diff` (`--quarantine FILE`, default `.veer/quarantine.yaml`
//! when it exists): read, parsed by `veer_engine::quarantine`, resolved against today's date
//! (UTC), expired entries warned about on stderr. The gate itself honours it in the engine.

use super::provenance;
use crate::cli::DEFAULT_QUARANTINE;
use crate::error::CliError;
use std::path::Path;
use veer_engine::quarantine::{ActiveQuarantine, Day, Quarantine};

/// Today (UTC) as a calendar day (`SOURCE_DATE_EPOCH` is not consulted: expiry is about the
/// real date).
pub fn today() -> Day {
    Day::from_unix_days(provenance::now_ms().div_euclid(86_400_000))
}

/// Reads the quarantine file at `path`: None when it does not exist.
pub fn read_text(path: &Path) -> Result<Option<String>, CliError> {
    let shown = path.display().to_string();
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Ok(m) if m.is_dir() => {
            return Err(
                CliError::input(format!("{shown}: is a directory, not a quarantine file"))
                    .hint("name the YAML file, e.g. .veer/quarantine.yaml"),
            )
        }
        _ => {}
    }
    let bytes = veer_base::capped::read_capped(path, veer_base::capped::MAX_CONFIG_FILE_BYTES)
        .map_err(|e| match e.too_large_message("quarantine file", None) {
            Some((m, h)) => CliError::input(format!("{shown}: {m}")).hint(h),
            None => CliError::input(format!("{shown}: cannot read")).hint("check the path"),
        })?;
    String::from_utf8(bytes).map(Some).map_err(|_| {
        CliError::input(format!("{shown}: not UTF-8 text"))
            .hint("the quarantine file is YAML text (docs/history.md)")
    })
}

/// A loaded quarantine (empty when there is no file).
#[derive(Debug, Default)]
pub struct Loaded {
    /// The entries honoured today.
    pub active: ActiveQuarantine,
}

/// Loads `--quarantine FILE` (which must exist), or the default file when it exists; warns
/// on stderr about every expired entry. A malformed file is exit 2 naming line and field.
pub fn load(explicit: Option<&Path>) -> Result<Loaded, CliError> {
    let path = explicit.unwrap_or(Path::new(DEFAULT_QUARANTINE));
    let shown = path.display().to_string();
    let Some(text) = read_text(path)? else {
        if explicit.is_some() {
            return Err(CliError::input(format!("{shown}: no quarantine file here"))
                .hint("create it with `veer history flaky --write`, or leave --quarantine out"));
        }
        return Ok(Loaded::default());
    };
    let active = Quarantine::parse(&shown, &text)?
        .active(today())
        .from_source(&shown);
    for w in active.warnings(&shown) {
        crate::output::diag::warn(w);
    }
    Ok(Loaded { active })
}
