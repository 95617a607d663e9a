//! The work of each tool, synchronous and free of the protocol: the same veer-engine calls the
//! matching `veer` command makes, the document its `--format json` writes (secrets redacted as
//! on stdout), and a short summary from veer-report's printers. The server runs these off its
//! async threads.

use crate::input::{
    CheckInput, DiffInput, ExplainInput, ExplainSource, InspectInput, PolicyValidateInput,
};
use serde_json::Value;
use std::sync::Mutex;
use veer_contract::inspect::{InspectDocument, InspectReport, INSPECT_SCHEMA_VERSION};
use veer_contract::report::Report;
use veer_engine::run::{Hooks, Outcome, Piece, Saved};
use veer_engine::Error;
use veer_report::diff::output::DiffFormat;
use veer_report::printer::OutputFormat as _;
use veer_report::style::Style;
use veer_trace::ReadOptions;

/// What a tool answers when it ran to its end.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolAnswer {
    /// The JSON document (the structured content); none for a text-only answer.
    pub document: Option<Value>,
    /// A few lines for a reader: the summary, then any warnings.
    pub text: String,
    /// A problem the document shows that no gate counted (an unreadable input with the gate
    /// off): the CLI writes the report, then exits 2 with this error; here the answer is an
    /// error result that still carries the document.
    pub failure: Option<Error>,
}

/// No colour: the answers are read by programs.
const PLAIN: Style = Style { colour: false };

/// Parses a printer's JSON back into a value, secrets redacted inside its strings as `veer`
/// redacts what it writes.
fn document(json: &str) -> Result<Value, Error> {
    let mut value: Value = serde_json::from_str(json).map_err(|e| {
        Error::new(
            veer_engine::ErrorKind::Internal,
            format!("cannot read back the report veer wrote: {e}"),
        )
        .hint("report this as a bug")
    })?;
    if let Some(d) = veer_secrets::display::redactor() {
        d.redact_json(&mut value);
    }
    Ok(value)
}

/// `text` with the warnings appended, one `warning:` line each.
fn with_warnings(mut text: String, warnings: &[String]) -> String {
    for w in warnings {
        text.push_str("warning: ");
        text.push_str(w);
        text.push('\n');
    }
    text
}

/// The engine's run of `input` (as `veer diff` runs it) and its JSON text: a pair's report, a
/// directory's streamed document, a trials report; warnings gathered.
fn run_diff(input: &DiffInput) -> Result<(Outcome, String, Vec<String>), Error> {
    let request = input.request()?;
    let warnings = Mutex::new(Vec::new());
    let mut printer = DiffFormat::Json.directory_printer(PLAIN);
    let mut text = String::new();
    let outcome = {
        let mut render = |piece: Piece| match piece {
            Piece::DirectoryBegins => printer.begin(),
            Piece::Pairs(pairs) => pairs.iter().map(|(p, v)| printer.pair(p, v)).collect(),
        };
        let mut write = |piece: String| {
            text.push_str(&piece);
            Ok(())
        };
        veer_engine::run(
            &request,
            Hooks {
                progress: &veer_engine::directory::Quiet,
                warn: &|m| {
                    if let Ok(mut w) = warnings.lock() {
                        w.push(m.to_string());
                    }
                },
                render: &mut render,
                write: &mut write,
            },
        )?
    };
    let json = match &outcome.report {
        Report::Directory(summary) => {
            text.push_str(&printer.finish(summary, &outcome.verdict));
            text
        }
        Report::Pair(report) => veer_report::json::to_json(report),
        Report::Trials(report) => {
            let json: String = veer_report::json::trials_json_pieces(report).collect();
            if let Some(e) = veer_engine::trials::spill::case_read_error(&report.trials.cases) {
                return Err(e);
            }
            json
        }
        Report::Gate(..) => {
            return Err(Error::new(
                veer_engine::ErrorKind::Internal,
                "a diff cannot answer with a gate report",
            ))
        }
    };
    let mut warnings = warnings.into_inner().unwrap_or_default();
    if let Report::Pair(report) = &outcome.report {
        warnings.extend(report.warnings.iter().map(ToString::to_string));
    }
    Ok((outcome, json, warnings))
}

/// `diff`: the `veer diff --format json` document, and the explanation of it.
pub fn diff(input: &DiffInput) -> Result<ToolAnswer, Error> {
    let (outcome, json, warnings) = run_diff(input)?;
    let summary = match &outcome.report {
        Report::Pair(r) => veer_report::diff::explain::render(r, Some(&outcome.verdict)),
        Report::Directory(s) => veer_report::diff::explain::directory(s, &outcome.verdict),
        Report::Trials(r) => veer_report::diff::explain::trials(r),
        Report::Gate(..) => String::new(),
    };
    Ok(ToolAnswer {
        document: Some(document(&json)?),
        text: with_warnings(summary, &warnings),
        failure: outcome.failure,
    })
}

/// `check`: the `veer check --format json` document, and the gate's line.
pub fn check(input: &CheckInput) -> Result<ToolAnswer, Error> {
    let policy = veer_engine::policy::load(&input.policy)
        .map_err(|e| veer_engine::policy::load_error(&e))?;
    let inputs = veer_engine::check::read_traces(&input.trace, &ReadOptions::default())?;
    let fail_on = input.fail_on();
    let (report, mut warnings) = veer_engine::check::check(
        input.policy.display().to_string(),
        &policy,
        &inputs.named(),
        inputs.directory,
        fail_on,
    );
    warnings.extend(policy.warnings.iter().map(ToString::to_string));
    warnings.extend(inputs.skipped.iter().map(ToString::to_string));
    for (_, _, t) in &inputs.traces {
        warnings.extend(t.warnings.iter().map(ToString::to_string));
    }
    let (report, verdict) =
        veer_engine::check::judge(report, inputs.failures, input.allow_prevented, fail_on);
    let mut summary = veer_report::policy::check_summary(&report);
    summary.push_str(&veer_report::policy::gate_line(&report.gate));
    summary.push('\n');
    // With the gate off, unreadable traces end `veer check` with exit 2 once the report is
    // written.
    let failure = (verdict.exit_code() == veer_engine::error::EXIT_ERROR).then(|| {
        Error::input(format!(
            "{} trace(s) could not be read",
            report.errors.len()
        ))
        .hint("each is an error row of the report, with its own hint")
    });
    let page = veer_report::policy::CheckPage { report, verdict };
    let json = veer_report::policy::CheckFormat::Json.print(&page, PLAIN);
    Ok(ToolAnswer {
        document: Some(document(&json)?),
        text: with_warnings(summary, &warnings),
        failure,
    })
}

/// `inspect`: the `veer inspect --format json` document, and how many traces and turns it
/// shows (for an Inspect AI log, its sample-epochs).
pub fn inspect(input: &InspectInput) -> Result<ToolAnswer, Error> {
    let options = ReadOptions::default();
    if !input.trace.is_dir() {
        if let Some(log) = veer_trace::formats::inspect::open_inspect_log(&input.trace, &options)? {
            let mut warnings = Vec::new();
            let report = veer_engine::inspect::log_report(log, &mut |w| {
                warnings.push(w.to_string());
            })?;
            let doc = InspectDocument {
                schema_version: INSPECT_SCHEMA_VERSION.into(),
                traces: Vec::new(),
                log: Some(report),
            };
            return inspect_answer(&doc, &warnings, None);
        }
    }
    let inspected = veer_engine::inspect::read(&input.trace, &options)?;
    let reports: Vec<InspectReport> = inspected
        .traces
        .iter()
        .map(veer_engine::inspect::report)
        .collect();
    let mut warnings: Vec<String> = inspected.skipped.iter().map(ToString::to_string).collect();
    for t in &inspected.traces {
        warnings.extend(t.warnings.iter().map(ToString::to_string));
    }
    let doc = InspectDocument {
        schema_version: INSPECT_SCHEMA_VERSION.into(),
        traces: reports,
        log: None,
    };
    inspect_answer(&doc, &warnings, inspected.unreadable())
}

/// The answer of `inspect` on `doc`.
fn inspect_answer(
    doc: &InspectDocument,
    warnings: &[String],
    failure: Option<Error>,
) -> Result<ToolAnswer, Error> {
    let summary = veer_report::inspect::summary(doc);
    let json = veer_report::inspect::InspectFormat::Json.print(doc, PLAIN);
    Ok(ToolAnswer {
        document: Some(document(&json)?),
        text: with_warnings(summary, warnings),
        failure,
    })
}

/// The largest saved report `explain` reads (bytes), as `veer gate` reads by default.
const MAX_REPORT_BYTES: u64 = veer_base::capped::DEFAULT_MAX_REPORT_BYTES;

/// `explain`: a few sentences on a diff — a saved pair or trials report, or two traces or two
/// directories diffed now.
pub fn explain(input: &ExplainInput) -> Result<ToolAnswer, Error> {
    let not_a_pair = |what: &str| {
        Error::input(format!(
            "{what} is a saved directory report: explain reads a saved pair or trials report"
        ))
        .hint("explain the two directories themselves (baseline and candidate), or one pair of trace files")
    };
    let (text, warnings) = match input.source()? {
        ExplainSource::Report(path) => match veer_engine::run::read_saved(&path, MAX_REPORT_BYTES)?
        {
            Saved::Pair(report) => (
                veer_report::diff::explain::render(&report, None),
                Vec::new(),
            ),
            Saved::Trials(mut report) => {
                // Re-decided at its own threshold, as `veer gate` would: the verdict is not
                // stored in the JSON.
                let fail_on = report.gate.fail_on;
                veer_engine::trials::redecide(&mut report, fail_on, false);
                (veer_report::diff::explain::trials(&report), Vec::new())
            }
            _ => return Err(not_a_pair(&path.display().to_string())),
        },
        ExplainSource::Diff(diff) => {
            let (outcome, _, warnings) = run_diff(&diff)?;
            let text = match &outcome.report {
                Report::Pair(r) => veer_report::diff::explain::render(r, Some(&outcome.verdict)),
                Report::Directory(s) => veer_report::diff::explain::directory(s, &outcome.verdict),
                Report::Trials(r) => veer_report::diff::explain::trials(r),
                Report::Gate(..) => String::new(),
            };
            (text, warnings)
        }
    };
    let text = veer_secrets::display::redact(&text).into_owned();
    Ok(ToolAnswer {
        document: None,
        text: with_warnings(text, &warnings),
        failure: None,
    })
}

/// `policy_validate`: whether the policy loads and, with traces, whether every rule can fire.
pub fn policy_validate(input: &PolicyValidateInput) -> Result<ToolAnswer, Error> {
    let (validation, mut warnings) =
        veer_engine::policy::validate(&input.file, &input.against, &ReadOptions::default())?;
    warnings.extend(validation.against.iter().flat_map(|a| {
        a.unreadable
            .iter()
            .map(|u| format!("{}: skipped, not readable as a trace: {}", u.file, u.error))
    }));
    let text = veer_report::policy::validation::render(&validation);
    let json = veer_report::json::to_json(&validation);
    Ok(ToolAnswer {
        document: Some(document(&json)?),
        text: with_warnings(text, &warnings),
        failure: None,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::input::FailOn;
    use std::path::{Path, PathBuf};

    fn example(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/refund-agent")
            .join(name)
    }

    /// A directory with the example's candidate and one file that is not a trace.
    fn directory_with_a_bad_trace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(example("candidate.agentlog"), dir.path().join("a.agentlog")).unwrap();
        std::fs::write(dir.path().join("b.agentlog"), "{not json\n").unwrap();
        dir
    }

    #[test]
    fn a_pair_diff_answers_with_its_report_and_the_explanation() {
        let a = diff(&DiffInput {
            baseline: example("baseline.agentlog"),
            candidate: example("candidate.agentlog"),
            policy: None,
            pricing: None,
            pair_by: Default::default(),
            seed: None,
            top_k: None,
            fail_on: None,
        })
        .unwrap();
        let doc = a.document.unwrap();
        assert!(a.failure.is_none());
        let headline = doc["headline"].as_str().unwrap();
        assert!(
            a.text.starts_with(headline.trim_end_matches('.')),
            "{}",
            a.text
        );
        assert!(a.text.contains("gate disabled"), "{}", a.text);
    }

    #[test]
    fn an_unreadable_trace_trips_a_set_gate_and_fails_an_unset_one() {
        let dir = directory_with_a_bad_trace();
        let input = |fail_on| CheckInput {
            trace: dir.path().to_path_buf(),
            policy: example("policy.yaml"),
            fail_on,
            allow_prevented: false,
        };
        let gated = check(&input(None)).unwrap();
        assert!(gated.failure.is_none(), "a set gate counts the error row");
        let doc = gated.document.unwrap();
        assert_eq!(doc["errors"].as_array().unwrap().len(), 1, "{doc}");
        assert_eq!(doc["gate"]["tripped"], serde_json::json!(true));
        assert!(gated.text.contains("error: b.agentlog"), "{}", gated.text);

        let ungated = check(&input(Some(FailOn::Never))).unwrap();
        let failure = ungated.failure.unwrap();
        assert!(failure.message.contains("1 trace(s) could not be read"));
        assert!(ungated.document.is_some(), "the report is still given");
    }

    #[test]
    fn inspect_of_a_directory_shows_the_readable_traces_and_fails_on_the_other() {
        let dir = directory_with_a_bad_trace();
        let a = inspect(&InspectInput {
            trace: dir.path().to_path_buf(),
        })
        .unwrap();
        let doc = a.document.unwrap();
        assert_eq!(doc["traces"].as_array().unwrap().len(), 1);
        let failure = a.failure.unwrap();
        assert!(
            failure
                .message
                .starts_with("1 of 2 traces could not be read"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn a_rule_that_cannot_fire_is_named_but_is_no_error() {
        let dir = tempfile::tempdir().unwrap();
        let policy = dir.path().join("p.yaml");
        std::fs::write(
            &policy,
            "rules:\n  - id: no-delete\n    kind: no_call\n    severity: error\n    params: {tool: delete_everything}\n",
        )
        .unwrap();
        let a = policy_validate(&PolicyValidateInput {
            file: policy,
            against: vec![example("candidate.agentlog")],
        })
        .unwrap();
        let doc = a.document.unwrap();
        assert_eq!(doc["rules"], serde_json::json!(1));
        let dead = doc["against"]["dead"].as_array().unwrap();
        assert_eq!(dead.len(), 1, "{doc}");
        assert!(a.text.contains("can never fire"), "{}", a.text);
    }
}
