//! `veer scan`'s printers: `file:line:column: kind` lines and a summary for a terminal, or the
//! report as JSON. Secret values never reach the report, so none can be printed.

use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use veer_contract::scan::ScanReport;

/// Formats `veer scan` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum ScanFormat {
    /// `file:line:column: kind` lines and a summary.
    Terminal,
    /// JSON: {schema_version, files_scanned, findings, errors} (`veer schema scan`).
    Json,
}

impl OutputFormat<ScanReport> for ScanFormat {
    fn printer(self, style: Style) -> Box<dyn Printer<ScanReport>> {
        match self {
            ScanFormat::Json => Box::new(|r: &ScanReport| crate::json::to_json(r)),
            ScanFormat::Terminal => Box::new(move |r: &ScanReport| terminal(r, style)),
        }
    }
}

/// One line per finding, the summary, then each path that could not be scanned.
pub fn terminal(r: &ScanReport, style: Style) -> String {
    let mut out = String::new();
    for f in &r.findings {
        out.push_str(&format!(
            "{}:{}:{}: {}\n",
            f.file,
            f.line,
            f.column,
            style.bad(&f.kind)
        ));
    }
    let files_with: std::collections::BTreeSet<&str> =
        r.findings.iter().map(|f| f.file.as_str()).collect();
    let summary = if r.findings.is_empty() {
        style.good(&format!("no secrets found in {} file(s)", r.files_scanned))
    } else {
        style.bad(&format!(
            "{} secret(s) in {} of {} file(s); values are not shown",
            r.findings.len(),
            files_with.len(),
            r.files_scanned
        ))
    };
    out.push_str(&summary);
    out.push('\n');
    for e in &r.errors {
        out.push_str(&style.bad(&format!("error: {}", e.error)));
        out.push('\n');
        if let Some(h) = &e.hint {
            out.push_str(&format!("  hint: {h}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_scan_says_how_many_files_were_read() {
        let r = ScanReport {
            schema_version: "1".into(),
            files_scanned: 3,
            findings: Vec::new(),
            errors: Vec::new(),
        };
        assert_eq!(
            ScanFormat::Terminal.print(&r, Style { colour: false }),
            "no secrets found in 3 file(s)\n"
        );
        assert!(ScanFormat::Json
            .print(&r, Style { colour: false })
            .contains("\"files_scanned\": 3"));
    }
}
