//! What each Python function computes, as plain Rust: inputs (a path or bytes) in, the JSON
//! text the CLI prints out. The same library calls and the same JSON printer as `veer diff`,
//! `veer check`, `veer experiment pair` and `veer convert`, so a Python result parses to the
//! same object as the CLI's `--format json` output. No Python types here: the bindings
//! (`python.rs`) only convert arguments and results and release the GIL around these calls.

use crate::error::{ApiError, ErrorKind};
use std::path::Path;
use std::sync::Arc;
use veer_base::Level;
use veer_contract::axis::Axis;
use veer_contract::divergence::PairBy;
use veer_engine::directory::summary::PairSummary;
use veer_engine::options::{
    BehaviourOptions, FingerprintOptions, Pricing, DEFAULT_MAX_ALIGN_CELLS,
};
use veer_engine::policy::Policy;
use veer_engine::DiffOptions;
use veer_trace::agentlog::writer::write_record;
use veer_trace::{Document, ReadOptions, Trace};

/// One input: a file path, or a document held in memory with the name its errors show.
#[derive(Debug, Clone)]
pub enum Input {
    /// A file veer reads, any format (detected by content).
    Path(String),
    /// The bytes of one document, and the name shown in errors and reports.
    Bytes {
        /// Name in errors and in the report's `path` fields.
        name: String,
        /// The document.
        bytes: Vec<u8>,
    },
}

impl Input {
    /// The name the report and errors show (the path as given, or the given name).
    pub fn name(&self) -> &str {
        match self {
            Input::Path(p) => p,
            Input::Bytes { name, .. } => name,
        }
    }

    /// Reads the document, detecting its format by content.
    pub fn load(&self) -> Result<Document, ApiError> {
        let options = ReadOptions::default();
        Ok(match self {
            Input::Path(p) => veer_trace::load_file(Path::new(p), &options)?,
            Input::Bytes { name, bytes } => veer_trace::load_bytes(name, bytes, &options)?,
        })
    }

    /// Reads a document that must hold one trace.
    pub fn load_trace(&self) -> Result<Trace, ApiError> {
        Ok(self.load()?.into_trace(self.name())?)
    }
}

/// The options of [`diff`], as `veer diff`'s flags of the same names.
#[derive(Debug, Clone)]
pub struct DiffParams {
    /// `--policy FILE`.
    pub policy: Option<String>,
    /// `--pricing FILE`.
    pub pricing: Option<String>,
    /// `--seed N`.
    pub seed: u64,
    /// `--top-k N` (≥ 1).
    pub top_k: usize,
    /// `--fail-on LEVEL`: `never`/`none`, `minor`, `moderate`, `severe`.
    pub fail_on: String,
    /// Redact secrets in the report's strings (the default); false is `--no-redact`.
    pub redact: bool,
}

impl Default for DiffParams {
    fn default() -> DiffParams {
        DiffParams {
            policy: None,
            pricing: None,
            seed: 42,
            top_k: 5,
            fail_on: "never".to_string(),
            redact: true,
        }
    }
}

fn fail_on(s: &str) -> Result<Level, ApiError> {
    Level::parse_fail_on(s).ok_or_else(|| {
        crate::error::input(
            format!("fail_on: unknown level {s:?}"),
            "use one of never, none, minor, moderate, severe",
        )
    })
}

fn load_policy(path: &str) -> Result<Policy, ApiError> {
    Ok(veer_engine::policy::load(Path::new(path))?)
}

impl DiffParams {
    /// The library's options, as `veer diff` builds them from the same flags (the other flags
    /// at their defaults).
    pub fn options(&self) -> Result<DiffOptions, ApiError> {
        if self.top_k == 0 {
            return Err(crate::error::input(
                "top_k: must be at least 1",
                "top_k is the number of ranked divergences in the report",
            ));
        }
        let pricing = match &self.pricing {
            Some(p) => veer_engine::diff::load_pricing(Path::new(p)).map_err(|e| ApiError {
                kind: ErrorKind::Pricing,
                ..e
            })?,
            None => Pricing::none(),
        };
        Ok(DiffOptions {
            behaviour: BehaviourOptions {
                seed: self.seed,
                top_k: self.top_k,
                pair_by: PairBy::Auto,
                pricing,
                max_align_cells: DEFAULT_MAX_ALIGN_CELLS,
                fingerprint: FingerprintOptions::default(),
                lanes: false,
            },
            policy: match &self.policy {
                Some(p) => Some(Arc::new(load_policy(p)?)),
                None => None,
            },
            coverage: None,
            fail_on_schema: None,
        })
    }
}

/// The redactor of a call: the built-in detector, or none for `redact=False` (`--no-redact`).
pub fn redactor(redact: bool) -> Option<&'static veer_secrets::Detector> {
    static BUILTIN: std::sync::OnceLock<veer_secrets::Detector> = std::sync::OnceLock::new();
    redact.then(|| BUILTIN.get_or_init(veer_secrets::Detector::builtin))
}

/// The engine's verdict as JSON: `{fail_on, worst, tripped, unreadable, trips: [...]}`, each
/// trip `{trace?, level, kind, axis | rule_id…, reason}` and the one-line `tripped_by` the CLI
/// prints (null when the gate did not trip), naming at most `max` trips as the CLI's report
/// does (`veer diff`'s terminal report 10, `veer check`'s 5).
pub fn verdict_json(verdict: &veer_contract::verdict::Verdict, max: usize, redact: bool) -> String {
    let mut value = match serde_json::to_value(verdict) {
        Ok(v) => v,
        Err(e) => serde_json::json!({ "error": e.to_string() }),
    };
    if let serde_json::Value::Object(map) = &mut value {
        map.insert(
            "tripped_by".into(),
            verdict
                .tripped_by_line(max)
                .map_or(serde_json::Value::Null, serde_json::Value::String),
        );
    }
    if let Some(detector) = redactor(redact) {
        detector.redact_json(&mut value);
    }
    serde_json::to_string(&value).unwrap_or_default()
}

/// The diff of two traces: the JSON `veer diff B C --format json` prints, the engine's verdict
/// ([`verdict_json`]) and, when asked, the pair's [`PairSummary`] as JSON (what a corpus job
/// merges).
pub fn diff(
    baseline: &Input,
    candidate: &Input,
    params: &DiffParams,
    with_summary: bool,
) -> Result<(String, String, Option<String>), ApiError> {
    let options = params.options()?;
    let level = fail_on(&params.fail_on)?;
    let b = baseline.load_trace()?;
    let c = candidate.load_trace()?;
    veer_engine::diff::check_pair(&b, &c)?;
    // The engine decides the verdict, as for `veer diff`: the report's `gate` block is it.
    let (report, verdict) =
        veer_engine::diff::diff(&b, &c, (baseline.name(), candidate.name()), &options, level);
    let summary = with_summary.then(|| summary_json(&PairSummary::of_pair(&report)));
    Ok((
        veer_report::json::to_json_with(&report, redactor(params.redact)),
        verdict_json(&verdict, 10, params.redact),
        summary,
    ))
}

/// The report of `veer check TRACE --policy POLICY --format json` (gate at `fail_on`, secrets
/// redacted unless `redact` is false) and the engine's verdict ([`verdict_json`]).
pub fn check(
    trace: &Input,
    policy: &str,
    fail_on_level: &str,
    redact: bool,
) -> Result<(String, String), ApiError> {
    let level = fail_on(fail_on_level)?;
    let policy_loaded = load_policy(policy)?;
    let name = trace.name().to_string();
    let traces: Vec<(String, Trace)> = match trace.load()? {
        Document::Trace(t) => vec![(name.clone(), t)],
        Document::Results(r) => r
            .traces
            .into_iter()
            .map(|(label, t)| (format!("{name} [{label}]"), t))
            .collect(),
        Document::AnalyzerCase(c) => vec![
            (format!("{name} [clean]"), c.clean),
            (format!("{name} [perturbed]"), c.perturbed),
        ],
    };
    let named: Vec<veer_engine::check::NamedTrace<'_>> = traces
        .iter()
        .map(|(n, t)| (n.clone(), name.clone(), t))
        .collect();
    let (mut report, _warnings) =
        veer_engine::check::check(policy.to_string(), &policy_loaded, &named, false, level);
    // The engine decides, as for `veer check`: every violation of every trace counts.
    let verdict = veer_engine::verdict::check_verdict(
        level,
        report
            .traces
            .iter()
            .map(|t| (Some(t.trace.as_str()), t.violations.as_slice())),
        report
            .errors
            .iter()
            .map(|e| (e.trace.as_str(), e.error.as_str())),
    );
    report.gate = verdict.gate();
    Ok((
        veer_report::policy::json::check_with(&report, redactor(redact)),
        verdict_json(&verdict, 5, redact),
    ))
}

/// The report of `veer experiment pair CLEAN PERTURBED [--rerun R]… --format json`.
pub fn experiment_pair(
    clean: &Input,
    perturbed: &Input,
    reruns: &[Input],
    redact: bool,
) -> Result<String, ApiError> {
    let clean = clean.load_trace()?;
    let perturbed = perturbed.load_trace()?;
    let reruns = reruns
        .iter()
        .map(Input::load_trace)
        .collect::<Result<Vec<Trace>, ApiError>>()?;
    let options = veer_engine::experiment::PairOptions {
        task_id: None,
        expected_answer: None,
        detail: false,
    };
    let report = veer_engine::experiment::pair_report(&clean, &perturbed, &reruns, &options);
    Ok(veer_report::json::to_json_with(&report, redactor(redact)))
}

/// The records of every input in veer's model, as `veer convert` writes them: `.agentlog`
/// bytes, one JSON record per line, with secrets redacted unless `redact` is false
/// (`--no-redact`) by the engine's `redact_records`, as the CLI redacts them.
pub fn convert(inputs: &[Input], redact: bool) -> Result<Vec<u8>, ApiError> {
    let mut traces = Vec::new();
    for i in inputs {
        traces.extend(i.load()?.into_traces());
    }
    let mut bytes = Vec::new();
    let mut line = Vec::new();
    let records = veer_engine::redact::converted_records(&traces, redactor(redact));
    for r in &records {
        write_record(&mut bytes, &mut line, r).map_err(|e| {
            crate::error::input(
                format!("cannot encode a record: {e}"),
                "report this as a bug",
            )
        })?;
    }
    Ok(bytes)
}

/// The empty summary (the identity of [`merge_summaries`]), as JSON.
pub fn empty_summary() -> String {
    summary_json(&PairSummary::default())
}

/// A summary as JSON.
pub fn summary_json(s: &PairSummary) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn parse_summary(text: &str, which: &str) -> Result<PairSummary, ApiError> {
    serde_json::from_str(text).map_err(|e| {
        crate::error::input(
            format!("{which}: not a pair summary: {e}"),
            "pass a summary returned by veer.diff_summarized or veer.merge_summaries",
        )
    })
}

/// Two summaries merged ([`PairSummary::merge`]), as JSON. `keep_deltas: false` drops the
/// per-pair deltas (constant-size result; finish it with medians computed elsewhere).
pub fn merge_summaries(a: &str, b: &str, keep_deltas: bool) -> Result<String, ApiError> {
    let mut a = parse_summary(a, "a")?;
    let b = parse_summary(b, "b")?;
    if !keep_deltas {
        a = a.without_deltas();
    }
    a.merge(if keep_deltas { b } else { b.without_deltas() });
    Ok(summary_json(&a))
}

/// The directory diff's `aggregate` block, as JSON, from a merged summary and the number of
/// files found on one side only. With `middles`, each axis's median is taken from the middle
/// element(s) of that axis's sorted deltas (one for an odd count, the two for an even count,
/// none for no deltas), keyed by the axis's JSON name; otherwise from the summary's deltas.
pub fn finish_summary(
    summary: &str,
    unmatched: usize,
    middles: Option<&[(String, Vec<f64>)]>,
) -> Result<String, ApiError> {
    let s = parse_summary(summary, "summary")?;
    let aggregate = match middles {
        None => s.finish(unmatched),
        Some(m) => {
            let mut by_axis = Vec::with_capacity(m.len());
            for (name, values) in m {
                match axis_by_name(name) {
                    Some(axis) if values.len() <= 2 => by_axis.push((axis, values.clone())),
                    _ => {
                        return Err(crate::error::input(
                            format!("medians: {name:?}: not an axis name with one or two middle values"),
                            "key the middle values by axis name (semantic, trajectory, …), each a list of 0–2 numbers",
                        ))
                    }
                }
            }
            veer_engine::directory::summary::finish_with_middles(s, unmatched, &by_axis)
        }
    };
    Ok(veer_report::json::to_json_with(&aggregate, redactor(true)))
}

fn axis_by_name(name: &str) -> Option<Axis> {
    Axis::ALL.into_iter().find(|a| {
        serde_json::to_value(a)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            == Some(name.to_string())
    })
}

/// The files `veer diff DIR DIR` pairs under `dir`, as `/`-separated relative paths in order
/// (the engine's listing, `veer_engine::directory::trace_files_of`).
pub fn trace_files(dir: &str) -> Result<Vec<String>, ApiError> {
    Ok(veer_engine::directory::trace_files_of(Path::new(dir))?
        .into_iter()
        .map(|(name, _)| name)
        .collect())
}

/// A directory pairing: (relative paths under both directories, under the baseline only, under
/// the candidate only), each in byte order.
pub type DirectoryPairing = (Vec<String>, Vec<String>, Vec<String>);

/// The pairing of `veer diff DIR DIR` (the engine's, `veer_engine::directory::plan_directories`):
/// the relative paths found under both directories, then those found only under `baseline`,
/// then only under `candidate`, each in byte order. An input error when no file has a
/// counterpart.
pub fn pair_directories(baseline: &str, candidate: &str) -> Result<DirectoryPairing, ApiError> {
    let plan = veer_engine::directory::plan_directories(Path::new(baseline), Path::new(candidate))?;
    Ok((
        plan.matched.into_iter().map(|(name, _, _)| name).collect(),
        plan.unmatched.baseline_only,
        plan.unmatched.candidate_only,
    ))
}

pub mod pooled;
pub mod run;

#[cfg(test)]
mod tests;
