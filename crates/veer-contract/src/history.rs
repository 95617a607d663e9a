//! The documents of `veer history show|drift|flaky|report`: the trend series of stored
//! comparisons, the drift detector's verdict on each series, the flaky cases, and the whole
//! documents the printers render. veer-history fills the series and the detections; the binary
//! gathers them into a document; the printers in veer-report only lay them out. Field order is
//! the JSON's.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One axis over time.
#[derive(JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxisTrend {
    /// The axis.
    pub axis: String,
    /// Its level in each comparison that has it, oldest first.
    pub levels: Vec<String>,
    /// Its delta in each comparison that has it (`None` where the report had none).
    pub deltas: Vec<Option<f64>>,
}

/// One case over time.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseTrend {
    /// The case.
    pub case: String,
    /// Its verdict in each comparison that has it, oldest first.
    pub verdicts: Vec<String>,
    /// How often the verdict changed from one comparison to the next.
    pub flips: usize,
}

/// A series' state under the drift detector.
#[derive(JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftStatus {
    /// Monitored and never signalled.
    InControl,
    /// The statistic is above its limit at the latest comparison.
    Drift,
    /// It signalled earlier but is back under its limit.
    PastDrift,
    /// Too few comparisons, or a warm-up with no spread: no limits can be set.
    Inconclusive,
}

/// Which way a series moved.
#[derive(JsonSchema, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftDirection {
    /// Deltas (or the bad-verdict rate) went up.
    Up,
    /// Deltas went down.
    Down,
}

/// The detector's verdict on one series (positions are 0-based indexes into the series).
#[derive(JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Detection {
    /// The state at the latest comparison.
    pub status: DriftStatus,
    /// The direction of the drift (of the latest exceedance, else of the first signal).
    pub direction: Option<DriftDirection>,
    /// Values in the series.
    pub n: usize,
    /// The in-control level: the warm-up median (axes) or smoothed bad rate p₀ (cases).
    pub center: Option<f64>,
    /// The robust in-control σ (axes only).
    pub sigma: Option<f64>,
    /// The position of the first signal after the warm-up.
    pub first_signal: Option<usize>,
    /// The statistic at the latest comparison (the larger side for axes).
    pub statistic: f64,
    /// The decision limit it is compared with.
    pub limit: f64,
    /// Why the series is inconclusive.
    pub reason: Option<String>,
}

/// Where a signal happened: the comparison that first crossed the limit.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalAt {
    /// Its history id.
    pub id: i64,
    /// When it was recorded (ms since the epoch).
    pub recorded_at_ms: i64,
    /// Its commit, when known.
    pub commit: Option<String>,
}

/// One series' drift, with the comparison where it first signalled.
#[derive(JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesDrift {
    /// The axis or case.
    pub name: String,
    /// The detector's verdict.
    #[serde(flatten)]
    pub detection: Detection,
    /// The comparison of the first signal.
    pub signal_at: Option<SignalAt>,
}

/// Drift over a history's axes and cases.
#[derive(JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriftReport {
    /// Per axis, in first-seen order.
    pub axes: Vec<SeriesDrift>,
    /// Per case, sorted by name.
    pub cases: Vec<SeriesDrift>,
}

impl DriftReport {
    /// Whether any series is drifting at its latest comparison.
    pub fn drifting(&self) -> bool {
        self.axes
            .iter()
            .chain(&self.cases)
            .any(|s| s.detection.status == DriftStatus::Drift)
    }
}

/// One flaky case: its verdict flipped between comparisons of one commit on one branch.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlakyCase {
    /// The case.
    pub case: String,
    /// Commits (on one branch) compared more than once with this case.
    pub repeated_commits: usize,
    /// Of those, the commits on which its verdict flipped (bad in some, not in others).
    pub flipped_commits: usize,
    /// Its verdicts on the repeated commits: how many were bad.
    pub bad: usize,
    /// Its verdicts on the repeated commits: how many were not bad.
    pub good: usize,
    /// The most recent commit on which it flipped.
    pub last_flip_commit: String,
    /// When that commit's latest comparison was recorded (ms since the epoch).
    pub last_flip_at_ms: i64,
}

/// One series' drift as `veer history show` prints it (its `drift` column and JSON field): the
/// detector's status over the comparisons shown, its direction, and the comparison where it
/// first signalled.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftMark {
    /// The detector's state (inconclusive for a series it had no value of).
    pub status: DriftStatus,
    /// The direction, while drifting or after a drift that ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<DriftDirection>,
    /// The comparison of the first signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<SignalAt>,
}

impl DriftMark {
    /// The mark of `series` (None: a series the detector had no value of, inconclusive).
    pub fn of(series: Option<&SeriesDrift>) -> DriftMark {
        match series {
            Some(s) => DriftMark {
                status: s.detection.status,
                direction: match s.detection.status {
                    DriftStatus::Drift | DriftStatus::PastDrift => s.detection.direction,
                    _ => None,
                },
                since: s.signal_at.clone(),
            },
            None => DriftMark {
                status: DriftStatus::Inconclusive,
                direction: None,
                since: None,
            },
        }
    }

    /// Whether the detector could not judge the series.
    pub fn inconclusive(&self) -> bool {
        self.status == DriftStatus::Inconclusive
    }
}

/// An axis trend in `veer history show`, with its drift mark.
#[derive(JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShowAxis {
    /// The series.
    #[serde(flatten)]
    pub trend: AxisTrend,
    /// The drift detector's mark over the comparisons shown.
    pub drift: DriftMark,
    /// The most severe of its levels (`none` for no levels); the terminal's `worst` column,
    /// not part of the JSON.
    #[serde(skip)]
    pub worst: String,
}

/// A case trend in `veer history show`, with its drift mark.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShowCase {
    /// The series.
    #[serde(flatten)]
    pub trend: CaseTrend,
    /// The drift detector's mark over the comparisons shown.
    pub drift: DriftMark,
    /// Each verdict as a level word (`none` … `severe`), oldest first: what the terminal's
    /// sparkline draws, not part of the JSON.
    #[serde(skip)]
    pub levels: Vec<String>,
}

/// A policy rule's regressions over the comparisons shown.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleTrend {
    /// The rule.
    pub rule: String,
    /// Its regressions in each comparison, oldest first (0 where it had none).
    pub regressions: Vec<u64>,
    /// How many comparisons had at least one.
    pub comparisons_with_regressions: usize,
}

/// What `veer history show` prints (`--format json` as is).
#[derive(JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryShow {
    /// Layout version of this document (1).
    pub schema_version: u32,
    /// Comparisons shown.
    pub comparisons: usize,
    /// When the oldest was recorded (`YYYY-MM-DDTHH:MM:SS.sssZ`).
    pub first: Option<String>,
    /// When the newest was recorded.
    pub last: Option<String>,
    /// Comparisons whose gate tripped.
    pub gate_tripped: usize,
    /// Each comparison's worst signal, oldest first.
    pub gate_worst: Vec<String>,
    /// Per axis, in first-seen order.
    pub axes: Vec<ShowAxis>,
    /// Per rule, by name (empty when an axis or case is asked for).
    pub rules: Vec<RuleTrend>,
    /// Per case, by name.
    pub cases: Vec<ShowCase>,
}

/// The drift detector's settings, as printed.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftMethod {
    /// Comparisons of each series its limits come from.
    pub warmup: usize,
    /// The axes' detector in words.
    pub axis: String,
    /// The cases' detector in words.
    pub case: String,
}

/// What `veer history drift` prints (`--format json` as is).
#[derive(JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryDrift {
    /// Layout version of this document (1).
    pub schema_version: u32,
    /// The branch whose comparisons were read.
    pub branch: String,
    /// Comparisons read.
    pub comparisons: usize,
    /// The detector's settings.
    pub method: DriftMethod,
    /// Whether any series is drifting at its latest comparison.
    pub drifting: bool,
    /// Per axis, in first-seen order.
    pub axes: Vec<SeriesDrift>,
    /// Per case, sorted by name.
    pub cases: Vec<SeriesDrift>,
}

/// One flaky case as printed, with whether the quarantine file already holds it.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlakyRow {
    /// The case.
    #[serde(flatten)]
    pub case: FlakyCase,
    /// Whether the quarantine file holds it.
    pub quarantined: bool,
}

/// A proposed quarantine entry.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedQuarantine {
    /// The case.
    pub case: String,
    /// Why, in words.
    pub reason: String,
    /// The day it expires, `YYYY-MM-DD`.
    pub expires: String,
}

/// What `veer history flaky` prints (`--format json` as is).
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryFlaky {
    /// Layout version of this document (1).
    pub schema_version: u32,
    /// Comparisons read.
    pub comparisons: usize,
    /// The flaky cases, most flips first.
    pub flaky: Vec<FlakyRow>,
    /// The entries proposed for the quarantine file (empty unless asked for).
    pub proposed: Vec<ProposedQuarantine>,
}

/// What `veer history report` draws: the trends of `veer history show` with each series'
/// drift.
#[derive(JsonSchema, Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryReport {
    /// The page's title.
    pub title: String,
    /// The line under it: how many comparisons, from when to when, how often the gate tripped.
    pub span: String,
    /// Per axis, in first-seen order.
    pub axes: Vec<AxisTrend>,
    /// Per case, by name, with each verdict as a level word.
    pub cases: Vec<ReportCase>,
    /// The drift detector over the same comparisons.
    pub drift: DriftReport,
}

/// A case of `veer history report`: its trend and each verdict as a level word.
#[derive(JsonSchema, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportCase {
    /// The series.
    pub trend: CaseTrend,
    /// Each verdict as a level word (`none` … `severe`), oldest first.
    pub levels: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drift_mark_keeps_the_direction_only_of_a_drift() {
        let s = SeriesDrift {
            name: "cost".into(),
            detection: Detection {
                status: DriftStatus::InControl,
                direction: Some(DriftDirection::Up),
                n: 3,
                center: None,
                sigma: None,
                first_signal: None,
                statistic: 0.0,
                limit: 4.0,
                reason: None,
            },
            signal_at: None,
        };
        assert_eq!(DriftMark::of(Some(&s)).direction, None);
        assert!(DriftMark::of(None).inconclusive());
        let json = serde_json::to_string(&DriftMark::of(Some(&s))).unwrap_or_default();
        assert_eq!(json, r#"{"status":"in_control"}"#);
    }
}
