//! GitHub Actions workflow commands: `::error file=…,line=…,title=…::message` (or
//! `::warning`, `::notice`) per [`Finding`], escaped as the runner expects, then one notice with
//! the verdict (an error naming what tripped the gate, when it did). Appending the Markdown
//! report to `$GITHUB_STEP_SUMMARY` is the CLI's I/O.

use crate::findings::{Finding, FindingLevel};
use veer_contract::verdict::Verdict;

/// Escapes a command's message: `%`, `\r`, `\n`.
pub(crate) fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: as [`escape_data`], plus `:` and `,`.
pub(crate) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(level: FindingLevel) -> &'static str {
    match level {
        FindingLevel::Note => "notice",
        FindingLevel::Warning => "warning",
        FindingLevel::Error => "error",
    }
}

/// One workflow command for `f`.
pub fn line(f: &Finding) -> String {
    let mut props = vec![format!("file={}", escape_property(&f.file))];
    if let Some(l) = f.line {
        props.push(format!("line={l}"));
    }
    props.push(format!("title={}", escape_property(&f.title)));
    format!(
        "::{} {}::{}",
        command(f.level),
        props.join(","),
        escape_data(&f.message)
    )
}

/// The commands of `findings`, then a notice (or error, when tripped) with the verdict.
pub fn render(findings: &[Finding], verdict: &Verdict) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&line(f));
        out.push('\n');
    }
    out.push_str(&gate_command(verdict));
    out
}

/// The closing command: a notice with the gate line (an error when tripped or incomplete,
/// naming what tripped the gate).
fn gate_command(verdict: &Verdict) -> String {
    let level = if verdict.exit_code() != 0 {
        "error"
    } else {
        "notice"
    };
    format!(
        "::{level} title={}::{}\n",
        escape_property("veer gate"),
        escape_data(&crate::policy::verdict_line(verdict))
    )
}

/// The GitHub printer of a streamed directory diff: each pair's commands are written as soon
/// as the pair is done (nothing is held); the gate's command ends the output.
#[derive(Debug, Default)]
pub struct DirectoryCommands;

impl crate::diff::stream::DirectoryPrinter for DirectoryCommands {
    fn pair(&mut self, p: &veer_contract::diff::DirectoryPair, verdict: &Verdict) -> String {
        let mut out = String::new();
        for f in crate::findings::pair_findings(p, verdict) {
            out.push_str(&line(&f));
            out.push('\n');
        }
        out
    }

    fn finish(
        self: Box<Self>,
        summary: &veer_contract::diff::DirectorySummary,
        verdict: &Verdict,
    ) -> String {
        let mut out = String::new();
        for f in crate::findings::pair_error_findings(&summary.errors) {
            out.push_str(&line(&f));
            out.push('\n');
        }
        out.push_str(&gate_command(verdict));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_properties_are_escaped() {
        assert_eq!(escape_data("50% off\r\nnext"), "50%25 off%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }

    #[test]
    fn a_finding_is_one_line() {
        let f = Finding {
            rule_id: "policy/x".into(),
            rule_summary: String::new(),
            rule_help: String::new(),
            level: FindingLevel::Warning,
            title: "veer: x, y".into(),
            message: "line one\nline two: 100%".into(),
            file: "C:\\runs\\c,1.agentlog".into(),
            line: Some(12),
        };
        assert_eq!(
            line(&f),
            "::warning file=C%3A\\runs\\c%2C1.agentlog,line=12,title=veer%3A x%2C y::line one%0Aline two: 100%25"
        );
    }
}
