//! The side-by-side view of a diff (the HTML report's lanes): one row per aligned turn with
//! both sides' cells, folded runs of matches, and the word-level diff of each detail. Built by
//! the diff measure, drawn by the printers; not part of the JSON report.

/// A piece of a word diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordChange {
    /// In both texts.
    Same,
    /// Only in the baseline text.
    Removed,
    /// Only in the candidate text.
    Added,
}

/// A run of words (with their whitespace) that share one [`WordChange`].
#[derive(Debug, Clone, PartialEq)]
pub struct WordSpan {
    /// What happened to the words.
    pub change: WordChange,
    /// The words, whitespace included.
    pub text: String,
}

/// Runs of more than this many unchanged matched turns become one collapsed row.
pub const COLLAPSE_AFTER: usize = 3;

/// At most this many rows get a drill-down besides the turns the report names (first
/// divergence, top-k, drill-down pairs, policy regressions and fixes).
pub const DETAIL_ROWS: usize = 200;

/// At most this many rows are drawn one by one besides the rows the report names; the rest
/// become "not drawn" rows (an unrelated 10,000-turn pair has no unchanged run to collapse).
pub const DRAWN_ROWS: usize = 1_000;

/// Longest text (in characters) kept for a response or request in a drill-down.
pub const TEXT_CHARS: usize = 4_000;

/// Longest text preview (in characters) shown in a lane cell.
pub const PREVIEW_CHARS: usize = 120;

/// How one row relates the two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneStatus {
    /// Paired turns with a pair cost of 0 (nothing the alignment sees differs).
    Matched,
    /// Paired turns that differ; `above_noise` on the row says whether it is a divergence.
    Changed,
    /// A candidate turn with no baseline counterpart.
    Inserted,
    /// A baseline turn with no candidate counterpart.
    Dropped,
}

impl LaneStatus {
    /// The wire label (`matched`, `changed`, `inserted`, `dropped`).
    pub fn label(self) -> &'static str {
        match self {
            LaneStatus::Matched => "matched",
            LaneStatus::Changed => "changed",
            LaneStatus::Inserted => "inserted",
            LaneStatus::Dropped => "dropped",
        }
    }
}

/// One side of a row: which turn, its source line and a short look at it.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneCell {
    /// 0-based turn index among the trace's responses.
    pub turn: usize,
    /// 1-based source line of the response record, when known.
    pub line: Option<u64>,
    /// `name(keys)` per tool call, in content order.
    pub tools: Vec<String>,
    /// Start of the response text (at most [`PREVIEW_CHARS`] characters).
    pub preview: String,
}

/// One tool call shown in a drill-down.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallView {
    /// Tool name (`_` when missing).
    pub name: String,
    /// The input as compact JSON (at most [`TEXT_CHARS`] characters).
    pub input: String,
}

/// One side of a drill-down.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSide {
    /// The last message of the request that prompted the turn (cut at [`TEXT_CHARS`]).
    pub request: Option<String>,
    /// The response text (cut at [`TEXT_CHARS`]).
    pub text: String,
    /// The tool calls, in content order.
    pub tool_calls: Vec<ToolCallView>,
    /// The stop reason (`""` when missing).
    pub stop_reason: String,
}

/// The drill-down of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnDetail {
    /// The baseline side (absent for an inserted turn).
    pub baseline: Option<TurnSide>,
    /// The candidate side (absent for a dropped turn).
    pub candidate: Option<TurnSide>,
    /// Word-level diff from the baseline text to the candidate text.
    pub words: Vec<WordSpan>,
}

/// One row of the side-by-side view.
#[derive(Debug, Clone, PartialEq)]
pub enum LaneRow {
    /// One alignment step.
    Step {
        /// How the two sides relate.
        status: LaneStatus,
        /// The alignment pair cost (0 for gaps), in [0, 1).
        cost: f64,
        /// Whether the pair cost is above the noise floor (always true for gaps).
        above_noise: bool,
        /// The baseline turn (absent when inserted).
        baseline: Option<LaneCell>,
        /// The candidate turn (absent when dropped).
        candidate: Option<LaneCell>,
        /// The drill-down, for rows that have one.
        detail: Option<Box<TurnDetail>>,
    },
    /// Rows past [`DRAWN_ROWS`] that are not drawn one by one.
    NotDrawn {
        /// First baseline turn among them, if any.
        baseline_from: Option<usize>,
        /// First candidate turn among them, if any.
        candidate_from: Option<usize>,
        /// Number of alignment steps they stand for.
        steps: usize,
    },
    /// A run of unchanged matched turns shown as one row.
    Collapsed {
        /// First baseline turn of the run.
        baseline_from: usize,
        /// First candidate turn of the run.
        candidate_from: usize,
        /// Number of matched turns in the run (> [`COLLAPSE_AFTER`]).
        count: usize,
    },
}

/// The whole side-by-side view.
#[derive(Debug, Clone, PartialEq)]
pub struct Lanes {
    /// True when the rows follow the Gotoh alignment; false when the alignment was over the
    /// work budget and the turns are paired by index instead.
    pub aligned: bool,
    /// The rows in path order.
    pub rows: Vec<LaneRow>,
    /// Rows with a drill-down.
    pub detailed: usize,
    /// Rows that differ but got no drill-down (past [`DETAIL_ROWS`]).
    pub undetailed: usize,
    /// Alignment steps not drawn one by one (past [`DRAWN_ROWS`]).
    pub not_drawn: usize,
}
