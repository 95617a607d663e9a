//! The JSON printer: pretty-printed, keys in struct order, a trailing newline. Floats print in
//! shortest round-trip form, so the same report always gives the same bytes.
//!
//! Redaction happens here, on values: every string of the document (keys included) passes
//! through the redactor ([`veer_secrets::display::redactor`], on unless `--no-redact`) before
//! it is written, so a report holding a secret keeps exactly the layout it would have without
//! one; nothing re-parses rendered text.

use serde::Serialize;
use serde_json::Value;

/// `value` as a JSON tree whose strings have been redacted (unchanged when redaction is off).
pub(crate) fn redacted_value<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Value> {
    redacted_value_with(value, veer_secrets::display::redactor())
}

/// `value` as a JSON tree whose strings `redactor` has redacted (none: unchanged). The Python
/// package chooses per call (`redact=False`); the CLI passes the process' choice
/// (`--no-redact`).
pub(crate) fn redacted_value_with<T: Serialize + ?Sized>(
    value: &T,
    redactor: Option<&veer_secrets::Detector>,
) -> serde_json::Result<Value> {
    let mut tree = serde_json::to_value(value)?;
    if let Some(detector) = redactor {
        detector.redact_json(&mut tree);
    }
    Ok(tree)
}

/// Serialises `report` as pretty JSON followed by `\n`, its strings redacted.
pub fn to_json<T: Serialize>(report: &T) -> String {
    to_json_with(report, veer_secrets::display::redactor())
}

/// [`to_json`] with the strings redacted by `redactor` (none: written verbatim, as
/// `--no-redact`).
pub fn to_json_with<T: Serialize>(report: &T, redactor: Option<&veer_secrets::Detector>) -> String {
    match redacted_value_with(report, redactor).and_then(|tree| serde_json::to_string_pretty(&tree))
    {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        // Report structs hold only strings, numbers, bools and maps with string keys.
        Err(e) => format!("{{\"error\": \"cannot serialise report: {e}\"}}\n"),
    }
}

/// The directory diff as JSON, written pair by pair: the same bytes as [`to_json`] of the whole
/// [`veer_contract::diff::DirectoryReport`] (each pair is pretty-printed alone and indented to its depth;
/// JSON strings hold no raw newline, so indenting line by line is exact).
#[derive(Debug, Default)]
pub struct DirectoryJson {
    /// Pairs written so far.
    written: usize,
}

impl DirectoryJson {
    /// A printer for a new document.
    pub fn new() -> DirectoryJson {
        DirectoryJson::default()
    }
}

/// The report of a diff with repeated trials as JSON: the same bytes as [`to_json`] of the
/// whole report ([`trials_json_pieces`] joined).
pub fn trials_to_json(report: &veer_contract::trials::TrialsReport) -> String {
    trials_json_pieces(report).collect()
}

/// The JSON of a trials report in pieces — the document up to its cases, each case, then the
/// rest — whose concatenation is [`to_json`] of the whole report. Each case is turned into a
/// JSON tree and printed alone when its piece is asked for, so neither the document's tree nor
/// its text need ever be held whole (the CLI writes the pieces as they come).
/// The report without its cases is printed first and the cases go in the place of its empty
/// `"cases": []` (keys are unique and JSON strings hold no raw newline, so the place is found
/// exactly).
pub fn trials_json_pieces(
    report: &veer_contract::trials::TrialsReport,
) -> impl Iterator<Item = String> + '_ {
    use veer_contract::trials::{TrialsBlock, TrialsReport};
    let t = &report.trials;
    let shell = TrialsReport {
        schema_version: report.schema_version.clone(),
        baseline: report.baseline.clone(),
        candidate: report.candidate.clone(),
        trials: TrialsBlock {
            layout: t.layout.clone(),
            alpha: t.alpha,
            seed: t.seed,
            margins: t.margins.clone(),
            cases: Default::default(),
            behaviour: t.behaviour.clone(),
            axes: t.axes.clone(),
            rules: t.rules.clone(),
            pass_hat_k: t.pass_hat_k.clone(),
            plan: t.plan.clone(),
            verdicts: t.verdicts,
            tripped: t.tripped.clone(),
            allow_missing: t.allow_missing,
            warnings: t.warnings.clone(),
        },
        gate: report.gate,
        verdict: Default::default(),
    };
    let text = to_json(&shell);
    const EMPTY: &str = "\n    \"cases\": [],\n";
    let split = text.find(EMPTY).filter(|_| !t.cases.is_empty());
    let (head, tail) = match split {
        Some(at) => (
            format!("{}\n    \"cases\": [", &text[..at]),
            format!("\n    ],\n{}", &text[at + EMPTY.len()..]),
        ),
        None => (text, String::new()),
    };
    let cases = split.map(|_| t.cases.iter()).into_iter().flatten();
    std::iter::once(head)
        .chain(cases.enumerate().map(|(i, case)| {
            let sep = if i == 0 { "\n      " } else { ",\n      " };
            format!("{sep}{}", indented(&*case, "      "))
        }))
        .chain(std::iter::once(tail).filter(|s| !s.is_empty()))
}

/// `text` pretty-printed as `serde_json` does at the top level, each line after the first
/// indented by `indent` more spaces (the first line is placed by the caller).
fn indented<T: Serialize>(value: &T, indent: &str) -> String {
    let text = match redacted_value(value).and_then(|tree| serde_json::to_string_pretty(&tree)) {
        Ok(s) => s,
        Err(e) => format!("{{\"error\": \"cannot serialise report: {e}\"}}"),
    };
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

impl crate::diff::stream::DirectoryPrinter for DirectoryJson {
    fn begin(&mut self) -> String {
        format!(
            "{{\n  \"schema_version\": {},\n  \"pairs\": [",
            indented(&veer_contract::diff::DIFF_SCHEMA_VERSION, "")
        )
    }

    fn pair(
        &mut self,
        pair: &veer_contract::diff::DirectoryPair,
        _: &veer_contract::verdict::Verdict,
    ) -> String {
        let sep = if self.written == 0 {
            "\n    "
        } else {
            ",\n    "
        };
        self.written += 1;
        format!("{sep}{}", indented(pair, "    "))
    }

    fn finish(
        self: Box<Self>,
        summary: &veer_contract::diff::DirectorySummary,
        _: &veer_contract::verdict::Verdict,
    ) -> String {
        // The summary's own object, opened by "{\n" and closed by "\n}", continues this one.
        let rest = indented(summary, "");
        let rest = rest.strip_prefix("{\n").unwrap_or(&rest);
        let close = if self.written == 0 { "]" } else { "\n  ]" };
        format!("{close},\n{rest}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trials report of `cases` scripted cases of 3 trials a side (and one baseline-only
    /// case), composed by the engine.
    fn trials_report(cases: usize) -> veer_contract::trials::TrialsReport {
        use veer_engine::trials::scripted::{agentlog, Script};
        let mut sides = [
            std::collections::BTreeMap::new(),
            std::collections::BTreeMap::new(),
        ];
        for (s, side) in sides.iter_mut().enumerate() {
            for c in 0..cases {
                let key = format!("case \"{c}\"\n");
                let traces = (1..=3)
                    .map(|t| {
                        let text = agentlog(&key, t, s as u64, &Script::default());
                        veer_trace::agentlog::reader::read_agentlog_bytes(
                            "t.agentlog",
                            text.as_bytes(),
                            &veer_trace::ReadOptions::default(),
                        )
                        .unwrap()
                    })
                    .collect::<Vec<_>>();
                side.insert(key, traces);
            }
        }
        let [mut b, c] = sides;
        if cases > 0 {
            let one = b.values().next().cloned().unwrap();
            b.insert("only-baseline".into(), one);
        }
        veer_engine::trials::analyse_in_memory(
            "b",
            "c",
            b,
            c,
            None,
            1 << 20,
            &veer_engine::trials::TrialsOptions::default(),
            veer_base::Level::Severe,
            false,
        )
        .unwrap()
    }

    #[test]
    fn trials_json_case_by_case_is_the_same_bytes_as_the_whole_tree() {
        for cases in [0, 1, 3] {
            let report = trials_report(cases);
            assert_eq!(report.trials.cases.len(), cases + usize::from(cases > 0));
            assert_eq!(trials_to_json(&report), to_json(&report), "{cases} cases");
        }
    }

    #[test]
    fn indenting_keeps_every_line_but_the_first() {
        let v = serde_json::json!({"a": [1, 2], "b": {}});
        assert_eq!(
            indented(&v, "  "),
            "{\n    \"a\": [\n      1,\n      2\n    ],\n    \"b\": {}\n  }"
        );
    }
}
