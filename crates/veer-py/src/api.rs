//! What each Python function computes, as plain Rust: inputs (a path or bytes) in, the JSON
//! text the CLI prints out. The same library calls and the same JSON printer as `veer diff`,
//! `veer check`, `veer experiment pair` and `veer convert`, so a Python result parses to the
//! same object as the CLI's `--format json` output. No Python types here: the bindings
//! (`python.rs`) only convert arguments and results and release the GIL around these calls.

use crate::error::{ApiError, ErrorKind};
use std::path::Path;
use std::sync::Arc;
use veer_diff::aggregate::PairSummary;
use veer_diff::{Axis, DiffOptions, PairBy, Pricing};
use veer_policy::{Level, Policy};
use veer_report::policy::CheckReport;
use veer_trace::agentlog::writer::{records_for_agentlog, write_record};
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
}

impl Default for DiffParams {
    fn default() -> DiffParams {
        DiffParams {
            policy: None,
            pricing: None,
            seed: 42,
            top_k: 5,
            fail_on: "never".to_string(),
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
    Ok(Policy::load(Path::new(path))?)
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
            Some(p) => veer_diff::inputs::load_pricing(Path::new(p)).map_err(|e| ApiError {
                kind: ErrorKind::Pricing,
                ..ApiError::from(e)
            })?,
            None => Pricing::none(),
        };
        Ok(DiffOptions {
            seed: self.seed,
            top_k: self.top_k,
            pair_by: PairBy::Auto,
            pricing,
            policy: match &self.policy {
                Some(p) => Some(Arc::new(load_policy(p)?)),
                None => None,
            },
            max_align_cells: veer_diff::DEFAULT_MAX_ALIGN_CELLS,
            fingerprint: veer_diff::FingerprintOptions::default(),
            lanes: false,
        })
    }
}

/// The diff of two traces: the JSON `veer diff B C --format json` prints, and, when asked, the
/// pair's [`PairSummary`] as JSON (what a corpus job merges).
pub fn diff(
    baseline: &Input,
    candidate: &Input,
    params: &DiffParams,
    with_summary: bool,
) -> Result<(String, Option<String>), ApiError> {
    let options = params.options()?;
    let level = fail_on(&params.fail_on)?;
    let b = baseline.load_trace()?;
    let c = candidate.load_trace()?;
    veer_diff::inputs::check_pair(&b, &c)?;
    // The engine decides the verdict, as for `veer diff`: the report's `gate` block is it.
    let (report, _) =
        veer_engine::diff::diff(&b, &c, (baseline.name(), candidate.name()), &options, level);
    let summary = with_summary.then(|| summary_json(&PairSummary::of_pair(&report)));
    Ok((veer_report::json::to_json(&report), summary))
}

/// The report of `veer check TRACE --policy POLICY --format json` (gate at `fail_on`).
pub fn check(trace: &Input, policy: &str, fail_on_level: &str) -> Result<String, ApiError> {
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
    let named: Vec<veer_report::policy::NamedTrace<'_>> = traces
        .iter()
        .map(|(n, t)| (n.clone(), name.clone(), t))
        .collect();
    let (report, _warnings) =
        CheckReport::build(policy.to_string(), &policy_loaded, &named, false, level);
    Ok(veer_report::policy::json::check(&report))
}

/// The report of `veer experiment pair CLEAN PERTURBED [--rerun R]… --format json`.
pub fn experiment_pair(
    clean: &Input,
    perturbed: &Input,
    reruns: &[Input],
) -> Result<String, ApiError> {
    let clean = clean.load_trace()?;
    let perturbed = perturbed.load_trace()?;
    let reruns = reruns
        .iter()
        .map(Input::load_trace)
        .collect::<Result<Vec<Trace>, ApiError>>()?;
    let options = veer_experiment::PairOptions {
        task_id: None,
        expected_answer: None,
        detail: false,
    };
    let report = veer_experiment::pair_report(&clean, &perturbed, &reruns, &options);
    Ok(veer_report::json::to_json(&report))
}

/// The records of every input in veer's model, as `veer convert` writes them: `.agentlog`
/// bytes, one JSON record per line.
pub fn convert(inputs: &[Input]) -> Result<Vec<u8>, ApiError> {
    let mut traces = Vec::new();
    for i in inputs {
        traces.extend(i.load()?.into_traces());
    }
    let mut bytes = Vec::new();
    let mut line = Vec::new();
    for r in &records_for_agentlog(&traces) {
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
            for (name, values) in m {
                if axis_by_name(name).is_none() || values.len() > 2 {
                    return Err(crate::error::input(
                        format!("medians: {name:?}: not an axis name with one or two middle values"),
                        "key the middle values by axis name (semantic, trajectory, …), each a list of 0–2 numbers",
                    ));
                }
            }
            s.finish_with_medians(unmatched, |axis, _| {
                let mut values = m
                    .iter()
                    .find(|(n, _)| axis_by_name(n) == Some(axis))
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default();
                veer_diff::stats::median_in_place(&mut values)
            })
        }
    };
    Ok(veer_report::json::to_json(&aggregate))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

    fn fixture(rel: &str) -> String {
        format!("{ROOT}/tests/fixtures/{rel}")
    }

    fn json(text: &str) -> Value {
        serde_json::from_str(text).unwrap_or(Value::Null)
    }

    fn demo() -> (Input, Input) {
        (
            Input::Path(fixture("shadow/demo/baseline.agentlog")),
            Input::Path(fixture("shadow/demo/candidate.agentlog")),
        )
    }

    #[test]
    fn bytes_diff_like_the_file_and_name_the_report_sides() {
        let (b, c) = demo();
        let bytes = |i: &Input, name: &str| Input::Bytes {
            name: name.to_string(),
            bytes: std::fs::read(i.name()).unwrap_or_default(),
        };
        let params = DiffParams::default();
        let from_files = diff(&b, &c, &params, false).map(|r| json(&r.0));
        let from_bytes =
            diff(&bytes(&b, "<b>"), &bytes(&c, "<c>"), &params, false).map(|r| json(&r.0));
        let (Ok(mut files), Ok(mut bytes)) = (from_files, from_bytes) else {
            panic!("the demo pair diffs");
        };
        assert_eq!(bytes["baseline"]["path"], "<b>");
        for r in [&mut files, &mut bytes] {
            r["baseline"]["path"] = Value::Null;
            r["candidate"]["path"] = Value::Null;
        }
        assert_eq!(files, bytes);
    }

    #[test]
    fn a_bad_line_is_a_trace_error_with_its_line_and_field() {
        let (b, _) = demo();
        let bad = Input::Bytes {
            name: "bad".to_string(),
            bytes: b"{\"version\":\"0.1\"\n".to_vec(),
        };
        let e = diff(&b, &bad, &DiffParams::default(), false).err();
        let e = e.map(|e| (e.kind, e.file, e.line, e.field.is_some()));
        assert_eq!(
            e,
            Some((ErrorKind::Trace, Some("bad".to_string()), Some(1), true))
        );
    }

    #[test]
    fn bad_arguments_are_input_errors() {
        let (b, c) = demo();
        for params in [
            DiffParams {
                top_k: 0,
                ..DiffParams::default()
            },
            DiffParams {
                fail_on: "often".to_string(),
                ..DiffParams::default()
            },
        ] {
            let e = diff(&b, &c, &params, false).err().map(|e| e.kind);
            assert_eq!(e, Some(ErrorKind::Input));
        }
        let e = diff(
            &b,
            &c,
            &DiffParams {
                pricing: Some(format!("{ROOT}/no/such/pricing.json")),
                ..DiffParams::default()
            },
            false,
        );
        assert_eq!(e.err().map(|e| e.kind), Some(ErrorKind::Pricing));
    }

    /// Summaries merged without deltas and finished with the middle deltas give the same
    /// block as the summaries with their deltas.
    #[test]
    fn middles_finish_like_the_deltas() {
        let pairs = ["demo", "customer-support", "er-triage", "devops-agent"];
        let mut full = empty_summary();
        let mut slim = empty_summary();
        for p in pairs {
            let b = Input::Path(fixture(&format!("shadow/{p}/baseline.agentlog")));
            let c = Input::Path(fixture(&format!("shadow/{p}/candidate.agentlog")));
            let s = diff(&b, &c, &DiffParams::default(), true)
                .ok()
                .and_then(|r| r.1)
                .unwrap_or_default();
            full = merge_summaries(&full, &s, true).unwrap_or_default();
            slim = merge_summaries(&slim, &s, false).unwrap_or_default();
        }
        let parsed = json(&full);
        let mut middles = Vec::new();
        for a in parsed["axes"].as_array().cloned().unwrap_or_default() {
            let mut d: Vec<f64> = a["deltas"]
                .as_array()
                .map(|v| v.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default();
            d.sort_by(f64::total_cmp);
            let n = d.len();
            let mid = match n {
                0 => vec![],
                _ if n % 2 == 1 => vec![d[n / 2]],
                _ => vec![d[n / 2 - 1], d[n / 2]],
            };
            middles.push((a["axis"].as_str().unwrap_or("").to_string(), mid));
        }
        let expected = finish_summary(&full, 3, None).ok();
        assert!(expected.is_some());
        assert_eq!(finish_summary(&slim, 3, Some(&middles)).ok(), expected);
        assert_eq!(json(&slim)["axes"][0]["deltas"], Value::Array(vec![]));
    }

    #[test]
    fn read_gives_one_record_per_line() {
        let (b, _) = demo();
        let bytes = convert(std::slice::from_ref(&b)).unwrap_or_default();
        let text = String::from_utf8(bytes).unwrap_or_default();
        assert!(text.lines().count() > 3);
        assert!(text.lines().all(|l| json(l)["kind"].is_string()));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        const AXES: [&str; 9] = [
            "semantic",
            "trajectory",
            "safety",
            "verbosity",
            "latency",
            "cost",
            "reasoning",
            "judge",
            "conformance",
        ];

        fn delta() -> impl Strategy<Value = f64> {
            prop_oneof![
                Just(0.0),
                Just(-0.0),
                Just(1.0),
                -1.0e6..1.0e6f64,
                (-3i32..3).prop_map(f64::from),
            ]
        }

        proptest! {
            /// The medians from the middle deltas (the Spark job's path) equal the medians
            /// from all the deltas (the CLI's), whatever the deltas and their order.
            #[test]
            fn middles_give_the_medians_of_all_deltas(
                deltas in proptest::collection::vec(proptest::collection::vec(delta(), 0..12), 9),
            ) {
                let axes: Vec<Value> = AXES.iter().zip(&deltas).map(|(a, d)| serde_json::json!({
                    "axis": a, "none": d.len(), "minor": 0, "moderate": 0, "severe": 0,
                    "worst_severity": "none", "deltas": d,
                })).collect();
                let total: usize = deltas.iter().map(Vec::len).sum();
                let full = serde_json::json!({
                    "trace_pairs": total, "pair_count": total, "traces_with_divergence": 0,
                    "axes": axes,
                }).to_string();
                let slim = merge_summaries(&empty_summary(), &full, false);
                prop_assert!(slim.is_ok());
                let middles: Vec<(String, Vec<f64>)> = AXES.iter().zip(&deltas).map(|(a, d)| {
                    let mut d = d.clone();
                    d.sort_by(f64::total_cmp);
                    let n = d.len();
                    let mid = match n {
                        0 => vec![],
                        _ if n % 2 == 1 => vec![d[n / 2]],
                        _ => vec![d[n / 2 - 1], d[n / 2]],
                    };
                    (a.to_string(), mid)
                }).collect();
                let expected = finish_summary(&full, 0, None);
                prop_assert!(expected.is_ok());
                prop_assert_eq!(
                    finish_summary(&slim.unwrap_or_default(), 0, Some(&middles)).ok(),
                    expected.ok()
                );
            }
        }
    }

    #[test]
    fn directories_pair_like_the_cli_and_none_in_common_is_an_input_error() {
        let root = tempfile_dir("pair");
        let (b, c) = (root.join("b"), root.join("c"));
        for (dir, names) in [
            (&b, ["x.agentlog", "only_b.agentlog"]),
            (&c, ["x.agentlog", "only_c.agentlog"]),
        ] {
            std::fs::create_dir_all(dir.join("sub")).unwrap_or_default();
            for n in names {
                std::fs::write(dir.join("sub").join(n), b"").unwrap_or_default();
            }
        }
        let (bs, cs) = (b.display().to_string(), c.display().to_string());
        let (matched, only_b, only_c) = pair_directories(&bs, &cs).unwrap_or_default();
        assert_eq!(matched, ["sub/x.agentlog"]);
        assert_eq!(only_b, ["sub/only_b.agentlog"]);
        assert_eq!(only_c, ["sub/only_c.agentlog"]);
        let e = pair_directories(
            &b.join("sub").display().to_string(),
            &root.display().to_string(),
        )
        .err()
        .map(|e| (e.kind, e.message));
        assert!(
            matches!(&e, Some((ErrorKind::Input, m)) if m.contains("has a counterpart")),
            "{e:?}"
        );
        std::fs::remove_dir_all(&root).unwrap_or_default();
    }

    /// A fresh empty directory under the system's temporary directory.
    fn tempfile_dir(tag: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("veer-py-{tag}-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).unwrap_or_default();
        std::fs::create_dir_all(&dir).unwrap_or_default();
        dir
    }
}
