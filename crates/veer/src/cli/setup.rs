//! The flags of `veer config` and `veer init` (docs/config.md).

use clap::{Args, Subcommand};
use std::path::PathBuf;
pub use veer_report::config::ConfigShowFormat as ConfigFormat;

/// `veer config …`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective settings and where each came from: veer's default, a line of
    /// veer.toml, or a flag. After the options, a command line (e.g. `diff runs/main runs/pr
    /// --fail-on minor`) shows the settings that command would run with.
    #[command(
        after_help = "Examples:\n  veer config show\n  veer config show --format json\n  veer config show diff runs/main runs/pr --fail-on minor\n  veer --config ci/veer.toml config show"
    )]
    Show(ConfigShowArgs),
}

/// `veer config show`.
#[derive(Debug, Args)]
pub struct ConfigShowArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = ConfigFormat::Text)]
    pub format: ConfigFormat,
    /// A veer command line to resolve the settings of (without `veer`), e.g. `diff a b
    /// --fail-on minor`; without one, every key with the file's value or the default.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<String>,
    #[command(flatten)]
    pub out: crate::cli::OutputArgs,
}

/// `veer init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The directory to set up (the repository root).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// The GitHub repository holding veer's action (OWNER/REPO), written into the workflow's
    /// `uses:` with this veer's version. Default: the repository this veer was released from;
    /// when it is not known, a placeholder `veer init` asks you to fill in.
    #[arg(long, value_name = "OWNER/REPO", value_parser = parse_action_repo)]
    pub action: Option<String>,
}

/// `--action`: `OWNER/REPO`, each part non-empty letters, digits, `-`, `_` or `.`.
fn parse_action_repo(s: &str) -> Result<String, String> {
    let ok = |p: &str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match s.split_once('/') {
        Some((owner, repo)) if ok(owner) && ok(repo) => Ok(s.to_string()),
        _ => Err(format!("`{s}` is not OWNER/REPO, e.g. acme/veer")),
    }
}
