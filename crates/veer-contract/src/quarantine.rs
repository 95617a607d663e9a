//! The quarantine marks of a directory diff's JSON (`veer diff BASE_DIR CAND_DIR --quarantine
//! FILE`, docs/history.md "Quarantine"): a pair's mark, and the report's `quarantine` block
//! naming the pairs whose signals the quarantine excused and the entries that expired. Plain
//! serde data: the engine fills it, printers read it. Both are omitted from the JSON when no
//! quarantine file with entries applies, so reports without one are unchanged.

use serde::{Deserialize, Serialize};

/// The mark of a directory pair whose relative path is quarantined (an entry honoured today).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuarantineMark {
    /// Why it is quarantined (the entry's `reason`).
    pub reason: String,
    /// The last day (UTC, `YYYY-MM-DD`) the entry is honoured.
    pub expires: String,
}

/// The quarantine that applied to a directory diff: which tripping pairs it excused and which
/// of its entries expired (and so were not honoured).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct QuarantineSummary {
    /// The quarantine file, as given (or the default `.veer/quarantine.yaml`).
    pub file: String,
    /// Entries honoured today (cases that are measured and shown but never trip the gate).
    pub honoured: usize,
    /// Quarantined pairs with signals at or above the gate's threshold: they would have
    /// tripped the gate without the quarantine. In path order.
    pub excused: Vec<ExcusedPair>,
    /// Entries past their expiry day: not honoured (their cases gate again), each a warning.
    /// In file order; omitted when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expired: Vec<ExpiredEntry>,
}

/// A quarantined pair whose signals would have tripped the gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExcusedPair {
    /// The pair's relative path.
    pub pair: String,
    /// The signals excused, as labels (e.g. `axis cost (severe)`), in report order.
    pub signals: Vec<String>,
}

/// A quarantine entry past its expiry day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExpiredEntry {
    /// The case (a pair's relative path or a trials case).
    pub case: String,
    /// The entry's reason.
    pub reason: String,
    /// The day it expired after (`YYYY-MM-DD`).
    pub expires: String,
    /// Its 1-based line in the quarantine file.
    pub line: u64,
    /// The warning, one line naming file, line, case and day (the same text as on stderr).
    pub warning: String,
}
