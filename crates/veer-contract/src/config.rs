//! The `veer config show --format json` document: the settings file in use and every
//! effective setting with where it came from.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The `schema_version` of `veer config show --format json`.
pub const CONFIG_SCHEMA_VERSION: &str = "1";

/// `veer config show --format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConfigDocument {
    /// Always "1".
    pub schema_version: Cow<'static, str>,
    /// The settings file in use, or null when none (none found, or --no-config).
    pub file: Option<ConfigFile>,
    /// The command line the settings were resolved for (empty: every key).
    pub command: Vec<String>,
    /// Every effective setting, in docs/config.md order.
    pub settings: Vec<SettingRow>,
}

/// The settings file in use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConfigFile {
    /// Its path.
    pub path: String,
    /// How it was chosen: "flag --config", "env VEER_CONFIG" or "found from the working
    /// directory".
    pub origin: String,
}

/// One effective setting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SettingRow {
    /// The dotted key, e.g. `diff.fail_on`.
    pub key: String,
    /// For `trials.margins`, the axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<String>,
    /// The value as the flag takes it (paths resolved against the file's directory; a flag's
    /// value as typed, repeated values joined by commas).
    pub value: String,
    /// "default", "file" or "flag".
    pub source: Cow<'static, str>,
    /// With source "file": the 1-based line of the key in the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
}
