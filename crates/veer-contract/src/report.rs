//! Every document a comparison or a re-gating can answer with, as one type: the front ends
//! get one of these from the engine (with the verdict beside it) and hand it to a printer, so
//! no front end needs to know which kind of comparison produced it.

use crate::diff::{DiffReport, DirectorySummary};
use crate::gate::GateReport;
use crate::trials::TrialsReport;

/// The document one request produced.
#[derive(Debug, Clone)]
pub enum Report {
    /// Two traces compared (`veer diff A B`).
    Pair(Box<DiffReport>),
    /// Two directories paired by relative path. The pairs were handed out one window at a
    /// time while they were diffed (a directory's report is never held whole); this is what
    /// follows them: the counts, the unmatched files, the error rows and the pooled
    /// fingerprint test.
    Directory(Box<DirectorySummary>),
    /// Two sets of cases with repeated trials (directories, or Inspect AI logs of several
    /// sample-epochs).
    Trials(Box<TrialsReport>),
    /// A saved report re-gated (`veer gate`), with the kind of report it was.
    Gate(Box<GateReport>, Gated),
}

/// The kind of saved report a [`Report::Gate`] re-decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gated {
    /// A pair report.
    Pair,
    /// A path-paired directory report.
    Directory,
    /// A repeated-trials report (its gate line names what tripped).
    Trials,
    /// Shadow's pair layout.
    Shadow,
}
