//! The one verdict: whether the gate trips and exactly what tripped it.
//!
//! Every front end and printer reads a [`Verdict`] instead of deciding for itself: the exit
//! code, JUnit failures, SARIF and GitHub levels, the HTML banner, the Markdown headline, the
//! Python result and the Spark job. `veer-engine` gathers a report's signals and decides it
//! ([`Verdict::decide`]: `worst >= fail_on`; the signals at or above the threshold are what
//! tripped).

use crate::policy::Gate;
use serde::Serialize;
use veer_base::Level;

/// The gate's decision and what tripped it: plain data, the same for every front end.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The threshold (`never` when the gate is off).
    #[serde(serialize_with = "veer_base::level::serialize_threshold")]
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
    /// A signal of a repeated-trials report (its `tripped` entry): a suite axis or rule, the
    /// behaviour, or cases that are inconclusive, failed or missing.
    Trials {
        /// What kind of signal.
        what: crate::trials::TripKind,
        /// The axis or rule (empty for the kinds that are about cases).
        #[serde(skip_serializing_if = "String::is_empty")]
        measure: String,
        /// The cases involved.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        cases: Vec<String>,
    },
    /// A history series (an axis or a case) drifting at its latest comparison
    /// (`veer history drift`).
    Drift {
        /// The axis or case.
        series: String,
    },
    /// A secret found in a file (`veer scan`): its kind, never its value.
    Secret {
        /// The file it is in.
        file: String,
        /// The kind of secret (the pattern's name).
        secret: String,
    },
    /// Tool-schema changes at or above `--fail-on-schema` (docs/tool-schema.md).
    ToolSchema {
        /// The highest class of the changes.
        class: crate::tool_schema::SchemaClass,
    },
    /// An input that could not be read or compared.
    Unreadable {
        /// The file at fault, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        file: Option<String>,
    },
}

impl Default for Verdict {
    /// No gate and no signal: what a report read back from JSON carries until the engine
    /// re-decides it.
    fn default() -> Verdict {
        Verdict::decide(Level::None, Vec::new())
    }
}

impl Verdict {
    /// The verdict of a command that sets no gate and ran to its end (exit 0).
    pub fn ungated() -> Verdict {
        Verdict::default()
    }

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
        let mut gate = Gate::decide_with_errors(self.fail_on, self.worst, self.unreadable);
        // The tool-schema gate has its own threshold (`--fail-on-schema`): it trips the gate
        // whatever `fail_on` says.
        gate.tripped |= self
            .trips
            .iter()
            .any(|t| matches!(t.cause, Cause::ToolSchema { .. }));
        gate
    }

    /// Adds a signal that trips the gate on its own threshold (the tool-schema gate): it joins
    /// the trips whatever `fail_on` is.
    pub fn trip_also(&mut self, trip: Trip) {
        self.trips.push(trip);
        self.tripped = true;
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
            Cause::Trials { .. } => self.reason.clone(),
            Cause::Drift { series } => format!("drift of {series}"),
            Cause::Secret { secret, .. } => format!("secret ({secret})"),
            Cause::ToolSchema { class } => format!("tool schema ({})", class.label()),
            Cause::Unreadable { .. } => "unreadable input".to_string(),
        };
        match &self.trace {
            Some(t) => format!("{what} in {t}"),
            None => what,
        }
    }
}
