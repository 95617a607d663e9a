//! `veer config show`'s printers: one line per effective setting — key, value, where it came
//! from — or the document as JSON. The settings are resolved by the binary.

use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use veer_contract::config::{ConfigDocument, SettingRow};

/// Formats `veer config show` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ConfigShowFormat {
    /// One line per setting: key, value, source.
    Text,
    /// JSON: {schema_version, file, settings: [{key, axis, value, source, line}]} (`veer
    /// schema config`).
    Json,
}

impl OutputFormat<ConfigDocument> for ConfigShowFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<ConfigDocument>> {
        match self {
            ConfigShowFormat::Json => Box::new(|d: &ConfigDocument| crate::json::to_json(d)),
            ConfigShowFormat::Text => Box::new(text),
        }
    }
}

/// One line per setting: key, value, source (`veer.toml:LINE` for the file).
pub fn text(doc: &ConfigDocument) -> String {
    let mut out = match &doc.file {
        Some(f) => format!("settings file: {} ({})\n", f.path, f.origin),
        None => "settings file: none (veer's defaults and flags only)\n".to_string(),
    };
    let name = |r: &SettingRow| match &r.axis {
        Some(a) => format!("{}.{a}", r.key),
        None => r.key.clone(),
    };
    let width = doc
        .settings
        .iter()
        .map(|r| name(r).len())
        .max()
        .unwrap_or(0);
    let vwidth = doc
        .settings
        .iter()
        .map(|r| r.value.len())
        .max()
        .unwrap_or(0)
        .min(48);
    for r in &doc.settings {
        let source = match (r.source.as_ref(), r.line, &doc.file) {
            ("file", Some(l), Some(f)) => format!("{}:{l}", f.path),
            (s, _, _) => s.to_string(),
        };
        out.push_str(&format!(
            "{:<width$}  {:<vwidth$}  {source}\n",
            name(r),
            r.value
        ));
    }
    out
}
