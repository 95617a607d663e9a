//! The `trials` block of a directory diff with repeated trials: plain serde
//! data, field order fixed; printers format it and never compute a number.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
pub mod case_list;
pub mod plan;
pub mod stats;

pub use case_list::{CaseList, CaseSource};
pub use stats::{ModalDivergence, PassHatK, PermutationMethod, SuiteOutcome};

/// The trials block.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialsBlock {
    /// How cases and trials were found.
    pub layout: LayoutBlock,
    /// Significance level α of every decision, in (0, 1).
    pub alpha: f64,
    /// Seed of every Monte Carlo permutation (per case and measure, derived from it and the
    /// key).
    pub seed: u64,
    /// The practical margins applied.
    pub margins: Vec<MarginRow>,
    /// One entry per case, in case-key byte order.
    // Held in memory, or for a large suite in the engine's temporary file read back case by
    // case ([`CaseList`]); serialised as the array either way.
    #[schemars(with = "Vec<CaseBlock>")]
    pub cases: CaseList,
    /// The suite's behaviour test (the primary endpoint): the excess divergence summed over
    /// the measured cases that are not quarantined, by a stratified permutation test; absent
    /// when no case was measured on both sides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behaviour: Option<SuiteBehaviour>,
    /// Suite-level test per axis.
    pub axes: Vec<SuiteAxis>,
    /// Suite-level test per policy rule that some trial violated.
    pub rules: Vec<SuiteRule>,
    /// pass^k per side over the cases with trials on both sides (null without an outcome:
    /// neither every trial's metadata `outcome` nor a policy).
    pub pass_hat_k: Option<PassHatKBlock>,
    /// Minimum detectable effects at 80% power and what more trials or cases would do.
    pub plan: Vec<PlanRow>,
    /// Verdict counts over the cases.
    pub verdicts: VerdictCounts,
    /// What tripped the gate (empty when nothing did or no gate is set).
    pub tripped: Vec<Tripped>,
    /// `--allow-missing` (or `allow_missing` in veer.toml): cases on one side only and cases
    /// that could not be measured are listed but do not trip the gate; absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_missing: bool,
    /// Warnings about the comparison, e.g. an expired quarantine entry (not honoured); absent
    /// when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// How cases and trials were found.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutBlock {
    /// The rules that gave case keys (`pattern`, `metadata`, `subdirectory`, `siblings`,
    /// `trailing-number`, `path`).
    pub sources: Vec<KeySource>,
    /// Cases on either side.
    pub cases: usize,
    /// Baseline trial files.
    pub baseline_trials: usize,
    /// Candidate trial files.
    pub candidate_trials: usize,
}

/// One practical margin: a change counts only beyond max(relative × baseline mean, absolute).
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarginRow {
    /// The axis (or `behaviour`).
    pub measure: String,
    /// Share of the baseline mean, ≥ 0.
    pub relative: f64,
    /// In the measure's units, ≥ 0.
    pub absolute: f64,
}

/// One case's result.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseBlock {
    /// The case key.
    pub case: String,
    /// Baseline trials (k_B).
    pub baseline_trials: usize,
    /// Candidate trials (k_C).
    pub candidate_trials: usize,
    /// The case's verdict.
    pub verdict: CaseVerdict,
    /// True when the case is quarantined (`.veer/quarantine.yaml`, entry not expired): measured
    /// and shown with its verdict, but never tripping the gate; absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quarantined: bool,
    /// The measures behind a `regressed`, `improved` or `inconclusive` verdict.
    pub measures: Vec<String>,
    /// For `inconclusive`: the balanced trials per side that would make the case testable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trials_needed: Option<u32>,
    /// Why the verdict is what it is, in one line, when that is not plain from the tests: why
    /// a case is `inconclusive` (the k that would decide it, or a change below what this k can
    /// detect), or that `changed` is descriptive; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// False when neither side has two trials: the run-to-run noise could not be estimated.
    pub noise_estimated: bool,
    /// Per axis: each side's spread and the change.
    pub axes: Vec<CaseAxis>,
    /// The behaviour itself: within vs across spread and the excess divergence test.
    pub behaviour: Option<CaseBehaviour>,
    /// Per rule some trial of the case violated: violations per side and the exact test.
    pub rules: Vec<CaseRule>,
    /// The modal first divergence over cross-side pairs, with its share among within pairs.
    pub first_divergence: Option<FirstDivergenceBlock>,
    /// Passing trials per side by the suite's outcome (the same source as `pass_hat_k`);
    /// absent when the case has no outcome (no outcome on every trial and no policy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<CasePasses>,
    /// For `failed`: the trial that could not be measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<CaseError>,
    /// What the agent did differently, in words, from the modal trial of each side (e.g.
    /// "dropped `lookup_order` before `issue_refund` (3/3 candidate trials, 0/3 baseline)");
    /// empty when its calls did not change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
    /// The modal (most typical) trial of each side and where the candidate's first differs
    /// from the baseline's; absent when a side has no trial.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modal: Option<ModalTrials>,
    /// The turn-by-turn side-by-side view of the two modal trials, built only when a report
    /// that shows it (HTML) is asked for. Not part of the JSON report.
    #[serde(skip)]
    #[schemars(skip)]
    pub lanes: Option<crate::lanes::Lanes>,
    /// How the tools offered to the model changed between the case's baseline trials and its
    /// candidate trials (each side the union over its trials), classified and gated by
    /// `--fail-on-schema`; absent when nothing changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_schema: Option<crate::tool_schema::ToolSchemaDiff>,
}

/// The modal trial of each side of a case: the trial with the least summed behaviour distance
/// to the other trials of its side (ties to the first in the layout's order).
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModalTrials {
    /// The baseline's modal trial file, relative to the baseline directory.
    pub baseline_file: String,
    /// The candidate's modal trial file, relative to the candidate directory.
    pub candidate_file: String,
    /// The 1-based line (record) of `candidate_file` where its tool calls first differ from
    /// the baseline's modal trial (the response at `turn`); absent when their calls agree, or
    /// the format has no lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_line: Option<u64>,
    /// The 0-based candidate turn where the two modal trials' tool calls first differ; absent
    /// when their calls agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
}

/// One case's pass counts and rates.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CasePasses {
    /// Where pass/fail came from: `outcome`, `field`, `file` or `policy-clean` (as in
    /// `pass_hat_k`).
    pub outcome: Cow<'static, str>,
    /// Passing baseline trials, 0..=k_B.
    pub baseline: u32,
    /// Passing candidate trials, 0..=k_C.
    pub candidate: u32,
    /// baseline / k_B, in [0, 1].
    pub baseline_rate: f64,
    /// candidate / k_C, in [0, 1].
    pub candidate_rate: f64,
}

/// The trial that made a case `failed`.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseError {
    /// The file, relative to its directory.
    pub file: String,
    /// What went wrong.
    pub error: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// One axis in one case.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseAxis {
    /// The axis.
    pub axis: Cow<'static, str>,
    /// Its unit.
    pub unit: Cow<'static, str>,
    /// Mean of the baseline trials.
    pub baseline_mean: f64,
    /// Mean of the candidate trials.
    pub candidate_mean: f64,
    /// Standard deviation among the baseline's own trials (null at k = 1).
    pub baseline_sd: Option<f64>,
    /// Standard deviation among the candidate's own trials (null at k = 1).
    pub candidate_sd: Option<f64>,
    /// candidate mean − baseline mean.
    pub effect: f64,
    /// The practical margin in the axis's units.
    pub margin: f64,
    /// Raw p of the within-case permutation test in the axis's worse direction, in (0, 1]:
    /// candidate higher for latency and output tokens, two-sided (a change either way) for
    /// tool calls and turns (docs/trials.md "Direction").
    pub p_worse: f64,
    /// Adjusted p (Benjamini–Hochberg over the testable case tests, doubled for the split with
    /// the suite tests; docs/trials.md); null when this k cannot reach α.
    pub p_adjusted: Option<f64>,
}

/// The behaviour of one case: spreads and the excess divergence.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseBehaviour {
    /// Mean behaviour distance among the baseline's trials (null at k_B = 1), in [0, 1]: per
    /// pair of trials, the edits between their tool calls — name, argument keys and argument
    /// values (the trajectory tokens) — along the turn alignment of the first-divergence
    /// detector, over the aligned length (docs/trials.md "Behaviour distance").
    pub d_bb: Option<f64>,
    /// Among the candidate's trials (null at k_C = 1), in [0, 1].
    pub d_cc: Option<f64>,
    /// Across sides, in [0, 1].
    pub d_bc: f64,
    /// E = D_BC − (D_BB + D_CC)/2.
    pub excess: f64,
    /// Mean trajectory (tool-sequence) distance within the baseline, in [0, 1].
    pub trajectory_within_baseline: Option<f64>,
    /// Mean trajectory distance across sides, in [0, 1].
    pub trajectory_across: f64,
    /// Raw permutation p of E, in (0, 1].
    pub p_value: f64,
    /// Adjusted p as for the axes (null when untestable).
    pub p_adjusted: Option<f64>,
    /// Exact or seeded Monte Carlo.
    pub method: PermutationMethod,
}

/// One rule in one case.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseRule {
    /// The rule id.
    pub rule: String,
    /// Its severity (`info`, `warning`, `error`, `critical`).
    pub severity: Cow<'static, str>,
    /// Baseline trials that violated it.
    pub baseline_violations: u32,
    /// Candidate trials that violated it.
    pub candidate_violations: u32,
    /// Fisher's exact one-sided p, candidate higher, in [0, 1].
    pub p_worse: f64,
    /// Adjusted p (null when untestable).
    pub p_adjusted: Option<f64>,
    /// An error/critical rule no baseline trial and every candidate trial violated.
    pub deterministic_break: bool,
}

/// The modal first divergence of a case.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FirstDivergenceBlock {
    /// The turn (structural step) most cross pairs first diverge at; null when none does.
    pub turn: Option<u32>,
    /// Cross pairs diverging there / all cross pairs.
    pub cross: String,
    /// Within pairs diverging there / all within pairs.
    pub within: String,
    /// The statistics crate's counts.
    pub counts: ModalDivergence,
}

/// The suite's behaviour test: did behaviour change on these cases?
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteBehaviour {
    /// Cases tested (measured on both sides, not quarantined).
    pub cases: u32,
    /// Of them, cases whose trials are not all identical (the others cannot move the sum).
    pub informative_cases: u32,
    /// Σ over cases of the excess divergence E, behaviour-distance units.
    pub excess_sum: f64,
    /// Raw p of the stratified permutation test (relabelling within each case), in (0, 1].
    pub p_value: f64,
    /// The p compared with α: doubled for the split between the behaviour family and the
    /// axes and rules, capped at 1.
    pub p_adjusted: f64,
    /// Exact (the product of the cases' relabellings) or seeded Monte Carlo.
    pub method: PermutationMethod,
    /// Whether `p_adjusted` < α: cases may then be named (`regressed`, or `changed` by the
    /// descriptive rule) and the gate trips when some case's excess lies beyond the margin.
    pub significant: bool,
}

/// A suite-level axis test.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteAxis {
    /// The axis.
    pub axis: Cow<'static, str>,
    /// Its unit.
    pub unit: Cow<'static, str>,
    /// Cases measured on both sides.
    pub cases: u32,
    /// Mean over cases of (candidate mean − baseline mean).
    pub effect: f64,
    /// 95% interval of the effect clustered by case (t, n − 1); null below two cases.
    pub interval: Option<[f64; 2]>,
    /// The margin at suite level.
    pub margin: f64,
    /// Raw p, within-case permutation of trial labels (suite scope), in the axis's worse
    /// direction: candidate higher for latency and output tokens, two-sided for tool calls and
    /// turns.
    pub p_worse: f64,
    /// Sign-flip p on the case differences (population scope), in the same direction.
    pub p_population: f64,
    /// Holm across axes and rules, doubled for the split with the case tests, in [0, 1].
    pub p_adjusted: f64,
    /// `regressed`, `improved` or `no_supported_change` (never `improved` for tool calls and
    /// turns: a change in what the agent does has no better side).
    pub outcome: SuiteOutcome,
    /// Minimum detectable effect at 80% power and two-sided α (null when not estimable).
    pub mde: Option<f64>,
}

/// A suite-level rule test.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteRule {
    /// The rule id.
    pub rule: String,
    /// Its severity.
    pub severity: Cow<'static, str>,
    /// Violating baseline trials / baseline trials, over cases with both sides.
    pub baseline: String,
    /// Likewise for the candidate.
    pub candidate: String,
    /// Candidate rate − baseline rate (mean per-case share difference).
    pub effect: f64,
    /// Exact stratified (conditional) one-sided p, candidate higher.
    pub p_worse: f64,
    /// Holm-adjusted as for the axes.
    pub p_adjusted: f64,
    /// The outcome.
    pub outcome: SuiteOutcome,
    /// Cases broken deterministically.
    pub deterministic_breaks: Vec<String>,
}

/// pass^k per side.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PassHatKBlock {
    /// Where pass/fail came from: `outcome` (every trial's metadata `outcome`, else `score`,
    /// e.g. Inspect AI scores), `field` (`--outcome FIELD`), `file` (`--outcome FILE.jsonl`) or
    /// `policy-clean` (a trial passes when it violates no rule).
    pub outcome: Cow<'static, str>,
    /// With `field`: the metadata field's dotted path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// With `file`: the outcome file, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// `--outcome-threshold`: a numeric score ≥ this passes (absent without the flag or with
    /// `policy-clean`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// The baseline's pass^k, k = 1..K.
    pub baseline: PassHatK,
    /// The candidate's.
    pub candidate: PassHatK,
}

/// The power of one axis at this design.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRow {
    /// The axis.
    pub axis: Cow<'static, str>,
    /// MDE at 80% power now.
    pub mde: f64,
    /// The MDE's floor with unlimited trials at this many cases.
    pub floor: f64,
    /// `more trials` when extra trials would shrink the MDE noticeably, else `more cases`.
    pub advice: Cow<'static, str>,
}

/// Cases per verdict.
#[derive(
    schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default,
)]
pub struct VerdictCounts {
    /// Regressed cases.
    pub regressed: usize,
    /// Improved cases.
    pub improved: usize,
    /// Cases changed by the descriptive rule (every cross pair differs, no within pair does).
    #[serde(default)]
    pub changed: usize,
    /// Unchanged cases.
    pub unchanged: usize,
    /// Inconclusive cases.
    pub inconclusive: usize,
    /// Flaky cases.
    pub flaky: usize,
    /// Cases on one side only.
    pub missing: usize,
    /// Cases with a trial that could not be measured.
    pub failed: usize,
}

impl VerdictCounts {
    /// Counts one case of `verdict`.
    pub fn count(&mut self, verdict: CaseVerdict) {
        let slot = match verdict {
            CaseVerdict::Regressed => &mut self.regressed,
            CaseVerdict::Improved => &mut self.improved,
            CaseVerdict::Changed => &mut self.changed,
            CaseVerdict::Unchanged => &mut self.unchanged,
            CaseVerdict::Inconclusive => &mut self.inconclusive,
            CaseVerdict::Flaky => &mut self.flaky,
            CaseVerdict::Missing => &mut self.missing,
            CaseVerdict::Failed => &mut self.failed,
        };
        *slot += 1;
    }
}

/// One thing that tripped the gate.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tripped {
    /// What kind of signal it is.
    pub kind: TripKind,
    /// The axis or rule (empty for `inconclusive`, `failed` and `missing`).
    pub measure: String,
    /// The cases involved (all cases for a suite-level axis).
    pub cases: Vec<String>,
    /// The effect (axis units, rate difference, or excess divergence); null for
    /// deterministic breaks, inconclusive and failed cases.
    pub effect: Option<f64>,
    /// The adjusted p; null for deterministic breaks, inconclusive and failed cases.
    pub p: Option<f64>,
    /// Its gate level (`minor`, `moderate`, `severe`).
    pub level: veer_base::Level,
}

/// The directory report of a diff with repeated trials.
#[derive(schemars::JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialsReport {
    /// The diff report schema version.
    pub schema_version: Cow<'static, str>,
    /// The baseline directory, as given.
    pub baseline: String,
    /// The candidate directory, as given.
    pub candidate: String,
    /// The trials block.
    pub trials: TrialsBlock,
    /// The merge gate.
    pub gate: crate::policy::Gate,
    /// The one verdict every front end and printer reads (exit code, gate lines): decided by
    /// the engine from the trials block; not part of the JSON (a saved report is re-decided
    /// from its trials block by the same code).
    #[serde(skip)]
    #[schemars(skip)]
    pub verdict: crate::verdict::Verdict,
}

/// A case's verdict (docs/trials.md, "Verdicts"). Serialised as its snake_case name.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CaseVerdict {
    /// A supported change in the worse direction beyond its margin, or a deterministic break.
    Regressed,
    /// A supported change in the better direction beyond its margin, none worse.
    Improved,
    /// Descriptive: every cross-side pair of trials differs and no pair within a side does, at
    /// a trial count where no per-case test can reach α; it counts for the gate when the
    /// suite's behaviour test is significant.
    Changed,
    /// No change beyond the margins, at trial counts that could have detected one.
    Unchanged,
    /// Not decided at these trial counts (the case's `reason` says what would decide it).
    Inconclusive,
    /// No supported change, and the baseline's own trials disagree.
    Flaky,
    /// On one side only.
    Missing,
    /// A trial could not be read or measured.
    Failed,
}

impl CaseVerdict {
    /// Its name in the report (`regressed`, `changed`, …).
    pub fn name(self) -> &'static str {
        match self {
            CaseVerdict::Regressed => "regressed",
            CaseVerdict::Improved => "improved",
            CaseVerdict::Changed => "changed",
            CaseVerdict::Unchanged => "unchanged",
            CaseVerdict::Inconclusive => "inconclusive",
            CaseVerdict::Flaky => "flaky",
            CaseVerdict::Missing => "missing",
            CaseVerdict::Failed => "failed",
        }
    }
}

impl std::fmt::Display for CaseVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// What kind of signal tripped a trials gate. Serialised as its snake_case name.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TripKind {
    /// A per-trial axis (suite level, or a case).
    Axis,
    /// A policy rule.
    Rule,
    /// The behaviour (the suite's test, or its cases).
    Behaviour,
    /// Inconclusive cases (`--fail-on inconclusive`).
    Inconclusive,
    /// Cases a trial of which could not be measured.
    Failed,
    /// Cases on one side only (unless `--allow-missing`).
    Missing,
    /// Cases whose offered tools changed at or above `--fail-on-schema` (the measure is the
    /// worst class).
    ToolSchema,
}

impl TripKind {
    /// Its name in the report.
    pub fn name(self) -> &'static str {
        match self {
            TripKind::Axis => "axis",
            TripKind::Rule => "rule",
            TripKind::Behaviour => "behaviour",
            TripKind::Inconclusive => "inconclusive",
            TripKind::Failed => "failed",
            TripKind::Missing => "missing",
            TripKind::ToolSchema => "tool_schema",
        }
    }
}

impl std::fmt::Display for TripKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// How a file's case key was found.
#[derive(
    schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum KeySource {
    /// `--case-pattern`.
    Pattern,
    /// The metadata record's `case` (and `trial`).
    Metadata,
    /// A subdirectory per case holding `trial-N`/`run-N`/`N` files.
    Subdirectory,
    /// Siblings `NAME.N.EXT`.
    Siblings,
    /// A trailing number after `-` or `_`.
    TrailingNumber,
    /// No trial marker: the file is a case of its own, keyed by its path.
    Path,
}

/// One line naming what tripped: `rule no-refund-without-lookup in refund, cancel (+3 more):
/// effect +1.00, p 0.004`.
pub fn describe(t: &Tripped) -> String {
    let mut cases = t
        .cases
        .iter()
        .take(3)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if t.cases.len() > 3 {
        cases.push_str(&format!(" (+{} more)", t.cases.len() - 3));
    }
    let head = match t.kind {
        TripKind::Failed => format!("cases that could not be measured: {cases}"),
        TripKind::Missing => format!("cases on one side only: {cases}"),
        TripKind::ToolSchema => format!("offered tools changed ({}) in {cases}", t.measure),
        TripKind::Inconclusive => format!("inconclusive cases: {cases}"),
        TripKind::Behaviour if cases.is_empty() => "behaviour (suite test)".to_string(),
        TripKind::Behaviour => format!("behaviour in {cases}"),
        kind if cases.is_empty() => format!("{kind} {}", t.measure),
        kind => format!("{kind} {} in {cases}", t.measure),
    };
    let mut tail = Vec::new();
    if let Some(e) = t.effect {
        tail.push(format!("effect {e:+.3}"));
    }
    match (t.p, t.kind) {
        (Some(p), _) => tail.push(format!("adjusted p {p:.4}")),
        (None, TripKind::Rule) => tail.push("deterministic break".to_string()),
        _ => {}
    }
    if tail.is_empty() {
        head
    } else {
        format!("{head}: {}", tail.join(", "))
    }
}
