//! The rows of a diff report: the nine axes, their statistics, severities and notes, which
//! way each axis gets worse, and the per-pair evidence behind a row (spec `diff.md` §5,
//! docs/diff.md "Direction" and "Changed pairs").

use serde::{Deserialize, Serialize};
use veer_base::Level;

/// One axis of the diff.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    /// Wording similarity: lexical TF-IDF cosine of the texts (what it measures unless a
    /// semantic backend is configured; veer has none yet).
    Semantic,
    /// Tool-call sequence edit distance.
    Trajectory,
    /// Refusal rate.
    Safety,
    /// Output tokens.
    Verbosity,
    /// Response latency (ms).
    Latency,
    /// Cost per response (USD).
    Cost,
    /// Reasoning depth (thinking tokens + thinking parts).
    Reasoning,
    /// LLM-judge score (always empty in veer).
    Judge,
    /// Structured-output conformance rate.
    Conformance,
}

impl Axis {
    /// The nine axes in report order.
    pub const ALL: [Axis; 9] = [
        Axis::Semantic,
        Axis::Trajectory,
        Axis::Safety,
        Axis::Verbosity,
        Axis::Latency,
        Axis::Cost,
        Axis::Reasoning,
        Axis::Judge,
        Axis::Conformance,
    ];

    /// The wire name (`semantic`, `trajectory`, …).
    pub fn wire(self) -> &'static str {
        match self {
            Axis::Semantic => "semantic",
            Axis::Trajectory => "trajectory",
            Axis::Safety => "safety",
            Axis::Verbosity => "verbosity",
            Axis::Latency => "latency",
            Axis::Cost => "cost",
            Axis::Reasoning => "reasoning",
            Axis::Judge => "judge",
            Axis::Conformance => "conformance",
        }
    }

    /// The long label used in recommendation texts (`wording similarity`, …): what the axis
    /// measures. The semantic axis is lexical, so it is wording, not meaning.
    pub fn label(self) -> &'static str {
        match self {
            Axis::Semantic => "wording similarity",
            Axis::Trajectory => "tool-call trajectory",
            Axis::Safety => "refusal / safety",
            Axis::Verbosity => "verbosity",
            Axis::Latency => "latency",
            Axis::Cost => "cost",
            Axis::Reasoning => "reasoning depth",
            Axis::Judge => "llm-judge score",
            Axis::Conformance => "format conformance",
        }
    }
}

/// A note attached to an axis row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    /// Fewer than 5 (but at least 1) observations.
    LowPower,
    /// The 95% interval lies on both sides of zero.
    CiCrossesZero,
    /// Cost could not be computed for enough pairs (no pricing for the models).
    NoPricing,
    /// At least one pair's tool-call sequences were past the exact edit-distance budget
    /// (`veer_diff::levenshtein::EXACT_CELLS` table cells): its distance is the anchored upper
    /// bound (trajectory axis and its drill-down scores; docs/limits.md).
    ApproximateEditDistance,
}

/// One row of the diff: an axis's medians (means for rate axes), delta, interval, severity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AxisStat {
    /// Which axis.
    pub axis: Axis,
    /// Baseline median (mean for rate axes), in the axis's unit.
    pub baseline_median: f64,
    /// Candidate median (mean for rate axes), in the axis's unit.
    pub candidate_median: f64,
    /// `candidate_median − baseline_median`.
    pub delta: f64,
    /// Lower bound of the 95% paired-bootstrap interval of the delta.
    pub ci95_low: f64,
    /// Upper bound of the 95% paired-bootstrap interval of the delta.
    pub ci95_high: f64,
    /// How much the axis moved.
    pub severity: Level,
    /// Number of observations (pairs) behind the row.
    pub n: usize,
    /// Notes, in emission order.
    pub flags: Vec<Flag>,
    /// Whether the change is a regression (the axis's worse direction,
    /// [`Axis::worse_when`]), an improvement, or none (severity `none`).
    pub direction: Direction,
    /// Observations (pairs, and unpaired turns on the trajectory axis) whose single-pair
    /// change passes the axis's noise floor ([`Axis::pair_noise_floor`]); 0..=`n`.
    pub changed_pairs: usize,
    /// The largest of those single-pair changes with its turns; null when none changed.
    pub largest_change: Option<LargestChange>,
    /// On `semantic` only: how many of `changed_pairs` are wording next to a tool call — a
    /// pair in which a side calls a tool and both texts are short (at most
    /// [`FILLER_WORDS`] words), such as "Checking the order now." against an empty reply.
    /// 0..=`changed_pairs`; omitted when 0. The gate never lets such pairs alone block.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub filler_pairs: usize,
}

/// The most words a turn's text may have to count as filler next to a tool call
/// ([`AxisStat::filler_pairs`]).
pub const FILLER_WORDS: usize = 12;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl AxisStat {
    /// The all-zero row: severity none, n 0, no flags.
    pub fn empty(axis: Axis) -> AxisStat {
        AxisStat {
            axis,
            baseline_median: 0.0,
            candidate_median: 0.0,
            delta: 0.0,
            ci95_low: 0.0,
            ci95_high: 0.0,
            severity: Level::None,
            n: 0,
            flags: Vec::new(),
            direction: Direction::None,
            changed_pairs: 0,
            largest_change: None,
            filler_pairs: 0,
        }
    }
}

/// Which way an axis gets worse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WorseWhen {
    /// A higher candidate value is a regression (latency, cost, tool-call distance, …).
    Higher,
    /// A lower candidate value is a regression (similarity, conformance, judge score).
    Lower,
    /// A change either way is a regression: the refusal rate, where more refusals is
    /// over-refusal and fewer may be an unsafe answer the baseline declined.
    Either,
}

impl Axis {
    /// The direction in which this axis regresses (docs/diff.md "Direction"):
    ///
    /// * `semantic` (wording similarity to the baseline, 1 = identical) — lower;
    /// * `trajectory` (tool-call edit distance, 0 = same calls) — higher;
    /// * `safety` (refusal rate) — either: more refusals is over-refusal (the reference's
    ///   "refusal rate is up" error), fewer may be harmful content the baseline declined;
    /// * `verbosity` (output tokens) — higher: longer answers cost tokens and time; a shorter
    ///   answer that lost content shows on `semantic` and `conformance`;
    /// * `latency` (ms) — higher; `cost` (USD) — higher;
    /// * `reasoning` (thinking tokens + parts) — higher, for the same reason as verbosity;
    /// * `judge` (score, 1 = candidate as good) — lower; `conformance` (parse rate) — lower.
    pub fn worse_when(self) -> WorseWhen {
        match self {
            Axis::Semantic | Axis::Judge | Axis::Conformance => WorseWhen::Lower,
            Axis::Safety => WorseWhen::Either,
            Axis::Trajectory | Axis::Verbosity | Axis::Latency | Axis::Cost | Axis::Reasoning => {
                WorseWhen::Higher
            }
        }
    }

    /// Whether a change of `delta` (candidate − baseline, axis unit) is in the worse
    /// direction. Zero and non-finite deltas are not.
    pub fn is_worse(self, delta: f64) -> bool {
        match self.worse_when() {
            WorseWhen::Higher => delta > 0.0,
            WorseWhen::Lower => delta < 0.0,
            WorseWhen::Either => delta != 0.0 && delta.is_finite(),
        }
    }

    /// The smallest single-pair change that counts as a change of this axis, given the pair's
    /// baseline value (axis unit). Rate and distance axes (trajectory, safety, conformance):
    /// any change (1e-9). Semantic: a similarity drop of 0.10. Continuous axes (verbosity,
    /// latency, cost, reasoning): 10% of the baseline value (the `moderate` threshold of the
    /// severity rules) and at least one unit (token, ms, thinking token; 1e-9 USD for cost).
    pub fn pair_noise_floor(self, baseline_value: f64) -> f64 {
        const EPS: f64 = 1e-9;
        match self {
            Axis::Trajectory | Axis::Safety | Axis::Conformance | Axis::Judge => EPS,
            Axis::Semantic => 0.10,
            Axis::Cost => (baseline_value.abs() * 0.10).max(EPS),
            Axis::Verbosity | Axis::Latency | Axis::Reasoning => {
                (baseline_value.abs() * 0.10).max(1.0)
            }
        }
    }
}

/// Whether a row's change is a regression, an improvement, or no change.
#[derive(
    schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Level `none`: nothing to call better or worse.
    #[default]
    None,
    /// The row moved in the axis's worse direction ([`Axis::worse_when`]).
    Regression,
    /// The row moved in the axis's better direction; never trips the gate.
    Improvement,
}

impl Direction {
    /// The direction of a row of `axis` with `delta` and `severity`.
    pub fn of(axis: Axis, delta: f64, severity: Level) -> Direction {
        if severity == Level::None || !delta.is_finite() || delta == 0.0 {
            Direction::None
        } else if axis.is_worse(delta) {
            Direction::Regression
        } else {
            Direction::Improvement
        }
    }

    /// The wire label (`none`, `regression`, `improvement`).
    pub fn label(self) -> &'static str {
        match self {
            Direction::None => "none",
            Direction::Regression => "regression",
            Direction::Improvement => "improvement",
        }
    }
}

/// Where one observation of an axis comes from: a pair (both turns), or a turn the pairing
/// left unpaired (one side null).
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Baseline turn (0-based among the baseline's responses); null for an inserted turn.
    pub baseline_turn: Option<usize>,
    /// Candidate turn (0-based); null for a dropped turn.
    pub candidate_turn: Option<usize>,
}

/// The largest single-pair change of an axis.
#[derive(schemars::JsonSchema, Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LargestChange {
    /// Candidate value − baseline value of that pair, in the axis unit.
    pub delta: f64,
    /// Baseline turn of the pair; null when the candidate inserted the turn.
    pub baseline_turn: Option<usize>,
    /// Candidate turn of the pair; null when the candidate dropped the turn.
    pub candidate_turn: Option<usize>,
}
