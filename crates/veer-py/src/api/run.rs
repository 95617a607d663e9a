//! `veer.diff` on paths: the same request the CLI's `veer diff` builds, run by the engine
//! (`veer_engine::run`), so Python compares everything the CLI compares — two traces, two
//! directories paired by path, cases with repeated trials, two Inspect AI logs, a stored
//! baseline against a directory — and gets the JSON `--format json` prints, with the verdict.

use crate::error::ApiError;
use serde::Deserialize;
use std::path::PathBuf;
use veer_base::Level;
use veer_contract::divergence::PairBy;
use veer_contract::report::Report;
use veer_engine::run::{
    parse_margin, Baseline, Hooks, Piece, QuarantineFile, Request, Settings, TrialsSettings,
};
use veer_report::printer::OutputFormat;

/// The keyword arguments of `veer.diff`, as the package sends them (JSON): each is the CLI flag
/// of the same name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunParams {
    /// `--policy FILE`.
    pub policy: Option<String>,
    /// `--pricing FILE`.
    pub pricing: Option<String>,
    /// `--seed N`.
    pub seed: u64,
    /// `--top-k N` (≥ 1).
    pub top_k: usize,
    /// `--fail-on`: never/none, minor, moderate, severe, or inconclusive.
    pub fail_on: String,
    /// `--fail-on-schema`: never, breaking, compatible, cosmetic.
    pub fail_on_schema: String,
    /// Redact secrets (the default); false is `--no-redact`.
    pub redact: bool,
    /// `--pair-by`: auto, index, alignment.
    pub pair_by: String,
    /// `--max-align-cells N` (≥ 1).
    pub max_align_cells: u64,
    /// `--trials auto|off`.
    pub trials: String,
    /// `--case-pattern REGEX`.
    pub case_pattern: Option<String>,
    /// `--alpha P`, in (0, 1).
    pub alpha: f64,
    /// `--margin AXIS=VALUE`, as `{axis: "20%" | number}`.
    pub margins: Vec<(String, serde_json::Value)>,
    /// `--outcome FIELD|FILE.jsonl`.
    pub outcome: Option<String>,
    /// `--outcome-threshold X`.
    pub outcome_threshold: Option<f64>,
    /// `--allow-missing`.
    pub allow_missing: bool,
    /// `--quarantine FILE` (which must exist); without it `.veer/quarantine.yaml` when it
    /// exists.
    pub quarantine: Option<String>,
    /// `--baseline NAME[@VERSION]`: a stored baseline is the baseline side (the first
    /// argument is then the candidate directory).
    pub stored_baseline: Option<String>,
    /// Where stored baselines live (`.veer/baselines`).
    pub baselines: String,
}

impl Default for RunParams {
    /// The engine's defaults, as the CLI's flags have them.
    fn default() -> RunParams {
        let engine = Settings::default();
        RunParams {
            policy: None,
            pricing: None,
            seed: engine.seed,
            top_k: engine.top_k,
            fail_on: "never".into(),
            fail_on_schema: "never".into(),
            redact: true,
            pair_by: "auto".into(),
            max_align_cells: engine.max_align_cells,
            trials: "auto".into(),
            case_pattern: None,
            alpha: engine.trials.alpha,
            margins: Vec::new(),
            outcome: None,
            outcome_threshold: None,
            allow_missing: false,
            quarantine: None,
            stored_baseline: None,
            baselines: ".veer/baselines".into(),
        }
    }
}

fn bad(field: &str, message: impl std::fmt::Display, hint: &str) -> ApiError {
    crate::error::input(format!("{field}: {message}"), hint)
}

impl RunParams {
    /// Reads the package's JSON.
    pub fn from_json(text: &str) -> Result<RunParams, ApiError> {
        serde_json::from_str(text).map_err(|e| {
            bad(
                "options",
                e,
                "pass the keyword arguments veer.diff documents",
            )
        })
    }

    /// The engine's request: `first` is the baseline path (the candidate directory with a
    /// stored baseline), `second` the candidate (empty with a stored baseline).
    pub fn request(&self, first: &str, second: &str) -> Result<Request, ApiError> {
        if self.top_k == 0 {
            return Err(bad(
                "top_k",
                "must be at least 1",
                "top_k is the number of ranked divergences in the report",
            ));
        }
        if self.max_align_cells == 0 {
            return Err(bad(
                "max_align_cells",
                "must be at least 1",
                "the work budget of one alignment, in DP cells",
            ));
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(bad(
                "alpha",
                format!("{} is not in (0, 1)", self.alpha),
                "e.g. alpha=0.05",
            ));
        }
        let (level, inconclusive) = match self.fail_on.trim().to_ascii_lowercase().as_str() {
            "inconclusive" => (Level::Minor, true),
            other => (
                Level::parse_fail_on(other).ok_or_else(|| {
                    bad(
                        "fail_on",
                        format!("unknown level {:?}", self.fail_on),
                        "use one of never, none, minor, moderate, severe, inconclusive",
                    )
                })?,
                false,
            ),
        };
        use veer_contract::tool_schema::SchemaClass;
        let fail_on_schema = match self.fail_on_schema.trim() {
            "never" => None,
            "breaking" => Some(SchemaClass::Breaking),
            "compatible" => Some(SchemaClass::Compatible),
            "cosmetic" => Some(SchemaClass::Cosmetic),
            other => {
                return Err(bad(
                    "fail_on_schema",
                    format!("unknown class {other:?}"),
                    "use one of never, breaking, compatible, cosmetic",
                ))
            }
        };
        let pair_by = match self.pair_by.as_str() {
            "auto" => PairBy::Auto,
            "index" => PairBy::Index,
            "alignment" => PairBy::Alignment,
            other => {
                return Err(bad(
                    "pair_by",
                    format!("unknown value {other:?}"),
                    "use auto, index or alignment",
                ))
            }
        };
        let detect = match self.trials.as_str() {
            "auto" => true,
            "off" => false,
            other => {
                return Err(bad(
                    "trials",
                    format!("unknown value {other:?}"),
                    "use auto or off",
                ))
            }
        };
        let mut margins = Vec::with_capacity(self.margins.len());
        for (axis, value) in &self.margins {
            let value = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Number(n) => n.to_string(),
                other => {
                    return Err(bad(
                        "margins",
                        format!("{axis}: {other} is not a number or \"N%\""),
                        "e.g. margins={\"latency\": \"20%\", \"behaviour\": 0.1}",
                    ))
                }
            };
            margins.push(parse_margin(&format!("{axis}={value}")).map_err(|e| {
                bad(
                    "margins",
                    e,
                    "e.g. margins={\"latency\": \"20%\", \"behaviour\": 0.1}",
                )
            })?);
        }
        let (baseline, candidate) = match &self.stored_baseline {
            Some(spec) => {
                if !second.is_empty() {
                    return Err(bad(
                        "stored_baseline",
                        format!("{spec} names the baseline, but two paths were given"),
                        "pass only the candidate directory",
                    ));
                }
                (
                    Baseline::Stored {
                        root: PathBuf::from(&self.baselines),
                        spec: spec.clone(),
                    },
                    PathBuf::from(first),
                )
            }
            None => (Baseline::Path(PathBuf::from(first)), PathBuf::from(second)),
        };
        Ok(Request {
            baseline,
            candidate,
            settings: Settings {
                seed: self.seed,
                top_k: self.top_k,
                pair_by,
                pricing: self.pricing.as_ref().map(PathBuf::from),
                policy: self.policy.as_ref().map(PathBuf::from),
                max_align_cells: self.max_align_cells,
                fail_on: level,
                fail_on_inconclusive: inconclusive,
                fail_on_schema,
                trials: TrialsSettings {
                    detect,
                    case_pattern: self.case_pattern.clone(),
                    alpha: self.alpha,
                    margins,
                    outcome: self.outcome.clone(),
                    outcome_threshold: self.outcome_threshold,
                    allow_missing: self.allow_missing,
                },
                quarantine: QuarantineFile {
                    explicit: self.quarantine.as_ref().map(PathBuf::from),
                    default: Some(PathBuf::from(".veer/quarantine.yaml")),
                },
                ..Settings::default()
            },
        })
    }
}

/// Runs the request and answers with the report's JSON (as `veer diff --format json` prints
/// it, secrets redacted unless `redact` is false), the verdict's JSON, and the warnings the
/// CLI would print on stderr.
pub fn run(
    first: &str,
    second: &str,
    params: &RunParams,
) -> Result<(String, String, Vec<String>), ApiError> {
    let request = params.request(first, second)?;
    // The policy and the pricing table are read first here, so their errors keep the
    // structure the package's exceptions carry (line, rule, hint; a pricing problem as
    // `veer.PricingError`).
    if let Some(p) = &params.pricing {
        veer_engine::diff::load_pricing(std::path::Path::new(p)).map_err(|e| ApiError {
            kind: crate::error::ErrorKind::Pricing,
            ..e
        })?;
    }
    if let Some(p) = &params.policy {
        veer_engine::policy::load(std::path::Path::new(p))?;
    }
    let warnings = std::sync::Mutex::new(Vec::new());
    let mut printer = veer_report::diff::output::DiffFormat::Json
        .directory_printer(veer_report::style::Style { colour: false });
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
                progress: &Quiet,
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
        Report::Gate(report, _) => veer_report::policy::gate::GateFormat::Json
            .print(report, veer_report::style::Style { colour: false }),
    };
    if let Some(failure) = outcome.failure {
        return Err(failure);
    }
    let json = match super::redactor(params.redact) {
        None => json,
        Some(detector) => {
            let mut value: serde_json::Value = serde_json::from_str(&json).map_err(|e| {
                crate::error::input(
                    format!("cannot read back the report: {e}"),
                    "report this as a bug",
                )
            })?;
            detector.redact_json(&mut value);
            serde_json::to_string(&value).unwrap_or_default()
        }
    };
    let mut warnings = warnings.into_inner().unwrap_or_default();
    if let Some(d) = super::redactor(params.redact) {
        for w in &mut warnings {
            *w = d.redact(w).into_owned();
        }
    }
    Ok((
        json,
        super::verdict_json(&outcome.verdict, 10, params.redact),
        warnings,
    ))
}

/// Progress told to no one (Python shows none).
struct Quiet;

impl veer_engine::directory::Progress for Quiet {
    fn begin(&self, _total: u64, _label: &'static str) {}
    fn tick(&self) {}
    fn finish(&self) {}
}
