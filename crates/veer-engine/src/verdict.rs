//! The one verdict (issue 27, item 3): whether the gate trips and exactly what tripped it.
//!
//! Every front end and printer reads a [`Verdict`] instead of deciding for itself: the exit
//! code, JUnit failures, SARIF and GitHub levels, the HTML banner, the Markdown headline, the
//! Python result and the Spark job. The decision is `worst >= fail_on` over the signals of a
//! report (axis severities, a powered fingerprint rejection, policy regressions or violations,
//! inputs that could not be read); the signals at or above the threshold are what tripped.

use serde::Serialize;
use veer_diff::{DiffReport, FingerprintBlock, PairError};
use veer_policy::{Gate, Level, Violation};

/// The gate's decision and what tripped it: plain data, the same for every front end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The threshold (`never` when the gate is off).
    #[serde(serialize_with = "threshold")]
    pub fail_on: Level,
    /// The worst signal seen (whatever the threshold).
    pub worst: Level,
    /// Whether the gate trips (exit 1).
    pub tripped: bool,
    /// Inputs that could not be read or compared (each trips a set gate; without one they end
    /// the run with exit 2).
    pub unreadable: usize,
    /// What tripped the gate, in report order (empty when it did not trip).
    pub trips: Vec<Trip>,
    /// Signals at or above the threshold of quarantined cases (`.veer/quarantine.yaml`): measured
    /// and shown, but not tripping the gate. Empty without a quarantine.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub quarantined: Vec<Trip>,
}

/// One signal that tripped the gate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trip {
    /// The trace pair (directory mode: its relative path) or trace (`veer check` of several)
    /// it came from; None for a single pair and for directory-wide signals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// Its level.
    pub level: Level,
    /// What kind of signal it is.
    #[serde(flatten)]
    pub cause: Cause,
    /// One line saying why.
    pub reason: String,
}

/// The kinds of signal that can trip the gate. New kinds (e.g. a repeated-trial case's test)
/// are new variants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cause {
    /// A behaviour axis (its wire name, e.g. `cost`).
    Axis {
        /// The axis' wire name.
        axis: String,
    },
    /// A policy regression (`veer diff --policy`) or violation (`veer check`).
    Policy {
        /// The rule id.
        rule_id: String,
        /// The response pair the violation is at, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        pair_index: Option<usize>,
        /// The policy session it is in, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        session: Option<usize>,
    },
    /// A powered rejection of the behaviour-fingerprint test (of one pair, or directory mode's
    /// pooled test).
    Fingerprint {
        /// Whether it is the directory's pooled test.
        pooled: bool,
    },
    /// An input that could not be read or compared.
    Unreadable {
        /// The file at fault, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        file: Option<String>,
    },
}

fn threshold<S: serde::Serializer>(l: &Level, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(l.threshold_name())
}

impl Verdict {
    /// The verdict of these signals at `fail_on`: the worst of them, and those at or above
    /// the threshold as the trips (none when the gate is off). Unreadable inputs always trip
    /// a set gate.
    pub fn decide(fail_on: Level, signals: Vec<Trip>) -> Verdict {
        let unreadable = signals
            .iter()
            .filter(|t| matches!(t.cause, Cause::Unreadable { .. }))
            .count();
        let worst = signals
            .iter()
            .filter(|t| !matches!(t.cause, Cause::Unreadable { .. }))
            .map(|t| t.level)
            .max()
            .unwrap_or(Level::None);
        let trips: Vec<Trip> = if fail_on == Level::None {
            Vec::new()
        } else {
            signals
                .into_iter()
                .filter(|t| matches!(t.cause, Cause::Unreadable { .. }) || t.level >= fail_on)
                .collect()
        };
        Verdict {
            fail_on,
            worst,
            tripped: !trips.is_empty(),
            unreadable,
            trips,
            quarantined: Vec::new(),
        }
    }

    /// The gate block of the JSON reports (`fail_on`, `worst`, `tripped`, `errors`).
    pub fn gate(&self) -> Gate {
        Gate::decide_with_errors(self.fail_on, self.worst, self.unreadable)
    }

    /// The exit code: 0 ok, 1 the gate tripped, 2 inputs could not be read and no gate counts
    /// them.
    pub fn exit_code(&self) -> u8 {
        if self.tripped {
            1
        } else if self.unreadable > 0 {
            2
        } else {
            0
        }
    }

    /// Whether `cause` (of `trace`, None for a single pair) is one of the trips.
    pub fn tripped_by(&self, trace: Option<&str>, cause: &Cause) -> bool {
        self.trips
            .iter()
            .any(|t| t.trace.as_deref() == trace && &t.cause == cause)
    }

    /// The trips of one trace (directory mode's pair, by relative path).
    pub fn trips_of<'a>(&'a self, trace: &'a str) -> impl Iterator<Item = &'a Trip> + 'a {
        self.trips
            .iter()
            .filter(move |t| t.trace.as_deref() == Some(trace))
    }

    /// One line naming what tripped the gate (at most `max` trips, then a count), e.g.
    /// `cost (severe), policy rule no-refunds (severe) in run1.agentlog`; None when it did not
    /// trip.
    pub fn tripped_by_line(&self, max: usize) -> Option<String> {
        if !self.tripped {
            return None;
        }
        let mut parts: Vec<String> = self.trips.iter().take(max).map(Trip::label).collect();
        if self.trips.len() > max {
            parts.push(format!("and {} more", self.trips.len() - max));
        }
        Some(parts.join("; "))
    }
}

impl Verdict {
    /// One line naming the quarantined signals that would have tripped the gate (at most
    /// `max`, then a count), e.g. `axis cost (severe) in refund/t2.agentlog`; None when none.
    pub fn quarantined_line(&self, max: usize) -> Option<String> {
        if self.quarantined.is_empty() {
            return None;
        }
        let mut parts: Vec<String> = self.quarantined.iter().take(max).map(Trip::label).collect();
        if self.quarantined.len() > max {
            parts.push(format!("and {} more", self.quarantined.len() - max));
        }
        Some(parts.join("; "))
    }
}

impl Trip {
    /// A short label: the signal, its level and (in directory mode) the trace.
    pub fn label(&self) -> String {
        let what = match &self.cause {
            Cause::Axis { axis } => format!("axis {axis} ({})", self.level.name()),
            Cause::Policy { rule_id, .. } => {
                format!("policy rule {rule_id} ({})", self.level.name())
            }
            Cause::Fingerprint { pooled: true } => {
                format!("pooled fingerprint test ({})", self.level.name())
            }
            Cause::Fingerprint { pooled: false } => {
                format!("fingerprint test ({})", self.level.name())
            }
            Cause::Unreadable { .. } => "unreadable input".to_string(),
        };
        match &self.trace {
            Some(t) => format!("{what} in {t}"),
            None => what,
        }
    }
}

/// The behaviour-axis signals of a pair report: each axis at its severity. The one place the
/// axis-level input to the gate is chosen.
pub fn axis_signals(report: &DiffReport) -> Vec<Trip> {
    // Only worse-direction changes gate: an improvement never trips (docs/diff.md, Direction).
    report
        .axes
        .iter()
        .filter(|a| a.direction == veer_diff::Direction::Regression)
        .map(|a| Trip {
            trace: None,
            level: a.severity,
            cause: Cause::Axis {
                axis: a.axis.wire().to_string(),
            },
            reason: format!("{} changed: {}", a.axis.label(), a.severity.label()),
        })
        .collect()
}

/// The signal of a fingerprint test (pooled or not), None when it is not a powered rejection.
pub fn fingerprint_signal(block: Option<&FingerprintBlock>, pooled: bool) -> Option<Trip> {
    let level = block.map_or(Level::None, FingerprintBlock::gate_level);
    (level != Level::None).then(|| Trip {
        trace: None,
        level,
        cause: Cause::Fingerprint { pooled },
        reason: if pooled {
            "the pooled behaviour-fingerprint test is a powered rejection".to_string()
        } else {
            "the behaviour-fingerprint test is a powered rejection".to_string()
        },
    })
}

/// The signal of a policy violation (a regression in a diff).
pub fn policy_signal(v: &Violation, regression: bool) -> Trip {
    Trip {
        trace: None,
        level: Level::from(v.severity),
        cause: Cause::Policy {
            rule_id: v.rule_id.clone(),
            pair_index: v.pair_index,
            session: v.session,
        },
        reason: format!(
            "policy rule {} {}: {}",
            v.rule_id,
            if regression { "regressed" } else { "violated" },
            v.detail
        ),
    }
}

/// The signal of an input that could not be read or compared.
pub fn unreadable_signal(trace: Option<&str>, file: Option<&str>, error: &str) -> Trip {
    Trip {
        trace: trace.map(str::to_string),
        level: Level::Severe,
        cause: Cause::Unreadable {
            file: file.map(str::to_string),
        },
        reason: error.lines().next().unwrap_or_default().to_string(),
    }
}

/// Every signal of one pair report: its axes, its fingerprint test, its policy regressions.
pub fn pair_signals(report: &DiffReport) -> Vec<Trip> {
    let mut out = axis_signals(report);
    out.extend(fingerprint_signal(report.fingerprint.as_ref(), false));
    if let Some(p) = &report.policy {
        out.extend(p.regressions.iter().map(|v| policy_signal(v, true)));
    }
    out
}

/// The verdict of one trace pair at `fail_on`.
pub fn pair_verdict(report: &DiffReport, fail_on: Level) -> Verdict {
    Verdict::decide(fail_on, pair_signals(report))
}

/// The verdict of a directory diff, folded pair by pair in path order (so a streamed run
/// holds only the signals that trip, never the reports).
#[derive(Debug, Clone)]
pub struct DirectoryVerdict {
    fail_on: Level,
    worst: Level,
    signals: Vec<Trip>,
    quarantine: std::collections::BTreeSet<String>,
    quarantined: Vec<Trip>,
}

impl DirectoryVerdict {
    /// An empty fold at `fail_on`.
    pub fn new(fail_on: Level) -> DirectoryVerdict {
        DirectoryVerdict {
            fail_on,
            worst: Level::None,
            signals: Vec::new(),
            quarantine: std::collections::BTreeSet::new(),
            quarantined: Vec::new(),
        }
    }

    /// The same fold with quarantined cases (pairs by relative path, from
    /// [`crate::quarantine::ActiveQuarantine::cases`]): their pairs are measured and their
    /// signals kept in [`Verdict::quarantined`], but they never trip the gate. A pair that
    /// cannot be read still trips it: quarantine excuses flaky behaviour, not broken inputs.
    pub fn with_quarantine(mut self, cases: std::collections::BTreeSet<String>) -> Self {
        self.quarantine = cases;
        self
    }

    /// Adds one measured pair (by relative path) and returns its own verdict.
    pub fn pair(&mut self, name: &str, report: &DiffReport) -> Verdict {
        let mut signals = pair_signals(report);
        for s in &mut signals {
            s.trace = Some(name.to_string());
        }
        let mut verdict = Verdict::decide(self.fail_on, signals);
        if self.quarantine.contains(name) {
            // The gate's worst leaves quarantined pairs out, so the JSON gate block
            // (`worst >= fail_on`) agrees with the exit code; the pair keeps its own worst.
            verdict.quarantined = std::mem::take(&mut verdict.trips);
            verdict.tripped = false;
            self.quarantined.extend(verdict.quarantined.iter().cloned());
        } else {
            self.worst = self.worst.max(verdict.worst);
            self.signals.extend(verdict.trips.iter().cloned());
        }
        verdict
    }

    /// The verdict once every pair is in: the pairs' signals, the pooled fingerprint test and
    /// the pairs that could not be read or compared.
    pub fn finish(mut self, pooled: Option<&FingerprintBlock>, errors: &[PairError]) -> Verdict {
        self.signals.extend(fingerprint_signal(pooled, true));
        self.signals.extend(errors.iter().map(|e| {
            unreadable_signal(
                Some(&e.baseline),
                Some(e.file.as_deref().unwrap_or(&e.candidate)),
                &e.error,
            )
        }));
        let mut verdict = Verdict::decide(self.fail_on, self.signals);
        verdict.worst = verdict.worst.max(self.worst);
        verdict.quarantined = self.quarantined;
        verdict
    }
}

/// The verdict of `veer check`: every violation of every trace (named by path when there are
/// several) and every trace that could not be read.
pub fn check_verdict<'a>(
    fail_on: Level,
    traces: impl IntoIterator<Item = (Option<&'a str>, &'a [Violation])>,
    unreadable: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Verdict {
    let mut signals = Vec::new();
    for (trace, violations) in traces {
        signals.extend(violations.iter().map(|v| Trip {
            trace: trace.map(str::to_string),
            ..policy_signal(v, false)
        }));
    }
    signals.extend(
        unreadable
            .into_iter()
            .map(|(file, error)| unreadable_signal(Some(file), Some(file), error)),
    );
    Verdict::decide(fail_on, signals)
}

#[cfg(test)]
mod tests;
