//! The repeated-trials flags of `veer diff` (directory mode and Inspect AI logs) and their
//! parsers; the engine (`veer_engine::run`) detects the cases, measures and decides.

use clap::Args;
use veer_base::Level;
use veer_engine::run::MarginValue;

/// `--trials`: whether a directory's repeated trials are detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrialsMode {
    /// Cases with several trials are detected (trailing numbers, `NAME.N.EXT` siblings,
    /// `CASE/trial-N` subdirectories, the trace's own case/trial metadata); without any case of
    /// two or more trials the report is the path-paired one.
    Auto,
    /// Files are paired by relative path, as before trials existed.
    Off,
}

/// The repeated-trials flags of `veer diff` (directory mode).
#[derive(Debug, Clone, Args)]
pub struct TrialsArgs {
    /// Repeated trials in directory mode: `auto` groups each case's trials and compares cases
    /// (docs/trials.md), `off` pairs files by relative path.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = TrialsMode::Auto)]
    pub trials: TrialsMode,
    /// A regular expression matched against each file's relative path, with named groups
    /// `case` and, optionally, `trial`, e.g. '^(?P<case>[^/]+)/run-(?P<trial>[0-9]+)'. Implies
    /// the trials report; files it does not match are cases of their own.
    #[arg(long, value_name = "REGEX")]
    pub case_pattern: Option<String>,
    /// Significance level of the trials tests (adjusted p-values are compared with it), in
    /// (0, 1).
    #[arg(long, value_name = "P", default_value_t = 0.05, value_parser = parse_alpha)]
    pub alpha: f64,
    /// Practical margin of an axis, as AXIS=VALUE (repeatable): `N%` of the baseline mean or
    /// `N` in the axis's unit; a change counts only beyond both. Axes and defaults: latency
    /// 20% and 50 (ms), output_tokens 20% and 20, tool_calls 10% and 0.5, turns 10% and 0.5,
    /// behaviour 0.1 (excess event-level d_norm).
    #[arg(long, value_name = "AXIS=VALUE", value_parser = parse_margin)]
    pub margin: Vec<(String, MarginValue)>,
    /// The pass/fail outcome of each trial, for pass^k and the per-case pass rates: a field
    /// of the trace's metadata record (a dotted path, e.g. scores.accuracy), or a FILE.jsonl of
    /// lines {"side": "baseline"|"candidate", "case": "…", "trial": N, "outcome": …}. Default:
    /// the metadata `outcome` (else `score`, as Inspect AI logs carry), else policy-clean.
    #[arg(long, value_name = "FIELD|FILE.jsonl")]
    pub outcome: Option<String>,
    /// A numeric score passes when it is ≥ X (inclusive). Without it only 0 and 1 (and
    /// booleans, pass/fail, C/I) are outcomes; any other score is an error.
    #[arg(long, value_name = "X", value_parser = parse_threshold)]
    pub outcome_threshold: Option<f64>,
    /// Cases on one side only, and cases a trial of which could not be measured, do not trip
    /// the gate (they are still listed). Default: they trip it, so an eval job that crashed
    /// halfway does not pass.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true", default_value_t = false, action = clap::ArgAction::Set)]
    pub allow_missing: bool,
}

/// `--outcome-threshold`: a finite number.
fn parse_threshold(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("`{s}` is not a finite number, e.g. 0.5")),
    }
}

/// `--alpha`: a number in (0, 1).
fn parse_alpha(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("`{s}` is not a level in (0, 1), e.g. 0.05")),
    }
}

/// `--margin AXIS=VALUE`.
pub fn parse_margin(s: &str) -> Result<(String, MarginValue), String> {
    veer_engine::run::parse_margin(s)
}

/// `veer diff --fail-on`: a level, or `inconclusive` (trips on any regression and on
/// inconclusive cases of a trials report; without trials it acts as `minor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffFailOn {
    /// The threshold.
    pub level: Level,
    /// Whether inconclusive cases trip the gate.
    pub inconclusive: bool,
}

/// `--fail-on` for `veer diff`: never (none), minor, moderate, severe or inconclusive.
pub fn parse_diff_fail_on(s: &str) -> Result<DiffFailOn, String> {
    if s.trim().eq_ignore_ascii_case("inconclusive") {
        return Ok(DiffFailOn {
            level: Level::Minor,
            inconclusive: true,
        });
    }
    Level::parse_fail_on(s)
        .map(|level| DiffFailOn {
            level,
            inconclusive: false,
        })
        .ok_or_else(|| {
            format!("`{s}` is not a level; use never, minor, moderate or severe (or inconclusive, with repeated trials)")
        })
}
