//! What a front end asks of the engine: which two things to compare and with which settings.
//! The CLI fills a [`Request`] from its flags and `veer.toml`, the Python package from its
//! keyword arguments; the engine decides from the inputs themselves what kind of comparison it
//! is (two traces, two directories paired by path, cases with repeated trials, two Inspect AI
//! logs, or a stored baseline against a directory).

use crate::options::{FingerprintOptions, DEFAULT_MAX_ALIGN_CELLS};
use crate::trials::measure::AXES;
use crate::trials::outcome::{OutcomeFile, OutcomeRule, OutcomeSource};
use crate::trials::{Margin, TrialsOptions, DEFAULT_BEHAVIOUR_MARGIN, DEFAULT_MARGINS};
use crate::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use veer_base::Level;
use veer_contract::divergence::PairBy;
use veer_trace::ReadOptions;

/// One comparison to run.
#[derive(Debug, Clone)]
pub struct Request {
    /// The baseline side.
    pub baseline: Baseline,
    /// The candidate: a trace file, an Inspect AI log, or a directory of traces.
    pub candidate: PathBuf,
    /// How to compare and gate.
    pub settings: Settings,
}

/// Where the baseline comes from.
#[derive(Debug, Clone)]
pub enum Baseline {
    /// A trace file, an Inspect AI log, or a directory of traces.
    Path(PathBuf),
    /// A stored baseline (`NAME` or `NAME@VERSION`) under `root`, verified before it is used;
    /// the candidate must be a directory.
    Stored {
        /// The baselines' folder (the CLI's `.veer/baselines`).
        root: PathBuf,
        /// `NAME` or `NAME@VERSION`.
        spec: String,
    },
}

/// Every setting of a comparison, resolved (flags, settings file and defaults already merged).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Seed of every bootstrap and permutation draw.
    pub seed: u64,
    /// Ranked divergences kept per pair, ≥ 1.
    pub top_k: usize,
    /// How a pair's turns are matched.
    pub pair_by: PairBy,
    /// A pricing table (JSON) for the cost axis; none: cost is not priced.
    pub pricing: Option<PathBuf>,
    /// A policy file (YAML or JSON) whose rules are compared.
    pub policy: Option<PathBuf>,
    /// Work budget of one alignment, in DP cells.
    pub max_align_cells: u64,
    /// The fingerprint test's options.
    pub fingerprint: FingerprintOptions,
    /// Build the side-by-side view (the HTML report's lanes).
    pub lanes: bool,
    /// How traces are read (limits).
    pub read: ReadOptions,
    /// The gate's threshold (`Level::None`: no gate).
    pub fail_on: Level,
    /// Inconclusive cases of a trials report trip the gate too.
    pub fail_on_inconclusive: bool,
    /// The tool-schema gate's threshold (`--fail-on-schema`; None: the schema never gates).
    pub fail_on_schema: Option<veer_contract::tool_schema::SchemaClass>,
    /// The repeated-trials settings.
    pub trials: TrialsSettings,
    /// The quarantine file.
    pub quarantine: QuarantineFile,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 42,
            top_k: 5,
            pair_by: PairBy::Auto,
            pricing: None,
            policy: None,
            max_align_cells: DEFAULT_MAX_ALIGN_CELLS,
            fingerprint: FingerprintOptions::default(),
            lanes: false,
            read: ReadOptions::default(),
            fail_on: Level::None,
            fail_on_inconclusive: false,
            fail_on_schema: None,
            trials: TrialsSettings::default(),
            quarantine: QuarantineFile::default(),
        }
    }
}

/// Where the quarantine file is.
#[derive(Debug, Clone, Default)]
pub struct QuarantineFile {
    /// A file named by the user: it must exist.
    pub explicit: Option<PathBuf>,
    /// The file read when it exists and none was named (the CLI's `.veer/quarantine.yaml`);
    /// none: no quarantine.
    pub default: Option<PathBuf>,
}

/// The repeated-trials settings.
#[derive(Debug, Clone)]
pub struct TrialsSettings {
    /// Detect cases with several trials in directories and Inspect logs (`--trials auto`);
    /// false pairs files by relative path.
    pub detect: bool,
    /// A regular expression with named groups `case` and optionally `trial`.
    pub case_pattern: Option<String>,
    /// Significance level, in (0, 1).
    pub alpha: f64,
    /// Margins per axis, in the order given (a later one wins).
    pub margins: Vec<(String, MarginValue)>,
    /// A metadata field (dotted path) or a `FILE.jsonl` of outcomes.
    pub outcome: Option<String>,
    /// A numeric score passes when ≥ this.
    pub outcome_threshold: Option<f64>,
    /// Missing and unmeasurable cases do not trip the gate.
    pub allow_missing: bool,
}

impl Default for TrialsSettings {
    fn default() -> TrialsSettings {
        TrialsSettings {
            detect: true,
            case_pattern: None,
            alpha: 0.05,
            margins: Vec::new(),
            outcome: None,
            outcome_threshold: None,
            allow_missing: false,
        }
    }
}

/// One margin value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MarginValue {
    /// A share of the baseline mean (0.2 for `20%`).
    Relative(f64),
    /// In the axis's unit.
    Absolute(f64),
}

/// The names margins can be given for: the trials axes, then `behaviour`.
pub fn margin_axes() -> Vec<&'static str> {
    AXES.iter().map(|a| a.name).chain(["behaviour"]).collect()
}

/// One margin as `AXIS=VALUE`: `N%` of the baseline mean or `N` in the axis's unit (`ms` and
/// `tokens` suffixes allowed); the behaviour margin is absolute only. The error says what is
/// wrong and lists the axes.
pub fn parse_margin(s: &str) -> Result<(String, MarginValue), String> {
    let names = margin_axes();
    let (axis, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not AXIS=VALUE (axes: {})", names.join(", ")))?;
    let axis = axis.trim();
    if !names.contains(&axis) {
        return Err(format!(
            "unknown axis `{axis}` (axes: {})",
            names.join(", ")
        ));
    }
    let value = value.trim();
    let number = |t: &str| match t.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{value}` is not a non-negative number, e.g. 20% or 50"
        )),
    };
    let parsed = match value.strip_suffix('%') {
        Some(p) => MarginValue::Relative(number(p)? / 100.0),
        None => MarginValue::Absolute(number(
            value
                .strip_suffix("ms")
                .or_else(|| value.strip_suffix("tokens"))
                .unwrap_or(value),
        )?),
    };
    if axis == "behaviour" && matches!(parsed, MarginValue::Relative(_)) {
        return Err("the behaviour margin is an excess d_norm, e.g. behaviour=0.1".to_string());
    }
    Ok((axis.to_string(), parsed))
}

impl TrialsSettings {
    /// The outcome rule: a value ending in `.jsonl` is a file (read and checked now), anything
    /// else a metadata field.
    pub(crate) fn outcome_rule(&self) -> Result<OutcomeRule, Error> {
        let threshold = self.outcome_threshold;
        let source = match self.outcome.as_deref().map(str::trim) {
            None => OutcomeSource::Metadata,
            Some("") => {
                return Err(Error::input("--outcome is empty").hint(
                    "name a metadata field (e.g. --outcome scores.accuracy) or a FILE.jsonl",
                ))
            }
            Some(f) if f.to_ascii_lowercase().ends_with(".jsonl") => {
                OutcomeSource::File(Arc::new(OutcomeFile::load(Path::new(f), threshold)?))
            }
            Some(field) => OutcomeSource::Field(field.to_string()),
        };
        Ok(OutcomeRule { source, threshold })
    }

    /// The statistics' options these settings select, with the quarantined cases and the
    /// report's warnings.
    pub(crate) fn options(
        &self,
        seed: u64,
        quarantine: &crate::quarantine::ActiveQuarantine,
        quarantine_name: &str,
    ) -> Result<TrialsOptions, Error> {
        let mut margins: [Margin; 4] = DEFAULT_MARGINS;
        let mut behaviour = DEFAULT_BEHAVIOUR_MARGIN;
        for (axis, value) in &self.margins {
            if axis == "behaviour" {
                if let MarginValue::Absolute(v) = value {
                    behaviour = *v;
                }
                continue;
            }
            if let Some(i) = AXES.iter().position(|a| a.name == axis) {
                match value {
                    MarginValue::Relative(r) => margins[i].relative = *r,
                    MarginValue::Absolute(a) => margins[i].absolute = *a,
                }
            }
        }
        Ok(TrialsOptions {
            alpha: self.alpha,
            seed,
            margins,
            behaviour_margin: behaviour,
            outcome: self.outcome_rule()?,
            quarantine: quarantine.cases.clone(),
            allow_missing: self.allow_missing,
            warnings: quarantine.warnings(quarantine_name),
            ..TrialsOptions::default()
        })
    }
}
