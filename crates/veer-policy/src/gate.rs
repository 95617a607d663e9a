//! The merge gate (spec `policy.md` §12): levels `none < minor < moderate < severe`, policy
//! severities mapped onto them (info → minor, warning → moderate, error and critical → severe),
//! and the decision `worst >= fail_on`.

use crate::compare::PolicyDiff;
use crate::model::Severity;
use crate::violation::Violation;
use serde::{Deserialize, Serialize, Serializer};

/// A severity level of the gate. As a `--fail-on` threshold, `None` means "never trip".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Level {
    /// Nothing (as a threshold: `never`).
    #[default]
    None,
    /// Rank 1.
    Minor,
    /// Rank 2.
    Moderate,
    /// Rank 3.
    Severe,
}

impl Level {
    /// Parses a `--fail-on` value: `never` or `none`, `minor`, `moderate`, `severe`.
    pub fn parse_fail_on(s: &str) -> Option<Level> {
        Some(match s {
            "never" | "none" => Level::None,
            "minor" => Level::Minor,
            "moderate" => Level::Moderate,
            "severe" => Level::Severe,
            _ => return None,
        })
    }

    /// Parses an axis severity name (`none`, `minor`, `moderate`, `severe`).
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "never" => None,
            other => Level::parse_fail_on(other),
        }
    }

    /// The numeric rank (0–3).
    pub fn rank(self) -> u8 {
        self as u8
    }

    /// The lowercase name (`none`, `minor`, `moderate`, `severe`).
    pub fn name(self) -> &'static str {
        match self {
            Level::None => "none",
            Level::Minor => "minor",
            Level::Moderate => "moderate",
            Level::Severe => "severe",
        }
    }

    /// The name as a threshold: `never` for [`Level::None`].
    pub fn threshold_name(self) -> &'static str {
        match self {
            Level::None => "never",
            other => other.name(),
        }
    }
}

impl Serialize for Level {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Level {
    /// Reads a level name (`none`, `minor`, `moderate`, `severe`), as [`Level::parse`].
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
        let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
        Level::parse(&s).ok_or_else(|| {
            serde::de::Error::invalid_value(
                serde::de::Unexpected::Str(&s),
                &"one of none, minor, moderate, severe",
            )
        })
    }
}

impl schemars::JsonSchema for Level {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Level".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A gate level, lowest to highest.",
            "type": "string",
            "enum": ["none", "minor", "moderate", "severe"]
        })
    }
}

/// The schema of a `--fail-on` threshold as written in a report: `never` for [`Level::None`].
fn threshold_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The --fail-on threshold (never: the gate is off).",
        "type": "string",
        "enum": ["never", "minor", "moderate", "severe"]
    })
}

impl From<Severity> for Level {
    fn from(s: Severity) -> Level {
        match s {
            Severity::Info => Level::Minor,
            Severity::Warning => Level::Moderate,
            Severity::Error | Severity::Critical => Level::Severe,
        }
    }
}

fn serialize_threshold<S: Serializer>(l: &Level, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(l.threshold_name())
}

/// Reads a threshold as written by [`serialize_threshold`] (`never`, `minor`, `moderate`,
/// `severe`; `none` is accepted as `never`, as `--fail-on` accepts it).
fn deserialize_threshold<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
    let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
    Level::parse_fail_on(&s).ok_or_else(|| {
        serde::de::Error::invalid_value(
            serde::de::Unexpected::Str(&s),
            &"one of never, minor, moderate, severe",
        )
    })
}

/// The gate's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Gate {
    /// The threshold (`never` when disabled).
    #[serde(
        serialize_with = "serialize_threshold",
        deserialize_with = "deserialize_threshold"
    )]
    #[schemars(schema_with = "threshold_schema")]
    pub fail_on: Level,
    /// The worst signal seen.
    pub worst: Level,
    /// Whether the gate trips (`worst >= fail_on`, or any `errors`; never with `fail_on`
    /// never).
    pub tripped: bool,
    /// Inputs of a directory run that could not be read or compared (the report's error rows);
    /// each is a failure of the gate. Omitted from JSON when 0, so runs without errors print
    /// as before.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub errors: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Gate {
    /// The decision for a worst signal.
    pub fn decide(fail_on: Level, worst: Level) -> Gate {
        Gate::decide_with_errors(fail_on, worst, 0)
    }

    /// The decision for a worst signal and `errors` inputs that could not be measured: any
    /// error trips a gate that is set (`fail_on` other than never).
    pub fn decide_with_errors(fail_on: Level, worst: Level, errors: usize) -> Gate {
        Gate {
            fail_on,
            worst,
            tripped: fail_on != Level::None && (worst >= fail_on || errors > 0),
            errors,
        }
    }

    /// Whether the run ends in exit 2: inputs could not be measured and no gate is set to
    /// count them (with a gate set they trip it, exit 1).
    pub fn errors_without_gate(&self) -> bool {
        self.errors > 0 && self.fail_on == Level::None
    }
}

/// The worst level among violations (each ranked by its severity).
pub fn worst_of(violations: &[Violation]) -> Level {
    violations
        .iter()
        .map(|v| Level::from(v.severity))
        .max()
        .unwrap_or(Level::None)
}

/// The gate of a diff: the worst of the axis severities and every policy regression.
pub fn gate(fail_on: Level, worst_axis: Level, diff: &PolicyDiff) -> Gate {
    Gate::decide(fail_on, worst_axis.max(worst_of(&diff.regressions)))
}

/// The gate of `veer check`: the violations themselves are the signal.
pub fn gate_violations(fail_on: Level, violations: &[Violation]) -> Gate {
    Gate::decide(fail_on, worst_of(violations))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert!(Level::None < Level::Minor && Level::Moderate < Level::Severe);
        assert_eq!(Level::parse_fail_on("none"), Some(Level::None));
        assert_eq!(Level::parse_fail_on("never"), Some(Level::None));
        assert_eq!(Level::from(Severity::Critical), Level::Severe);
        assert_eq!(Level::from(Severity::Info), Level::Minor);
        assert!(!Gate::decide(Level::None, Level::Severe).tripped);
        assert!(Gate::decide(Level::Minor, Level::Minor).tripped);
        assert!(!Gate::decide(Level::Severe, Level::Moderate).tripped);
        let j = serde_json::to_string(&Gate::decide(Level::None, Level::Minor)).unwrap();
        assert_eq!(j, r#"{"fail_on":"never","worst":"minor","tripped":false}"#);
    }

    #[test]
    fn errors_trip_a_set_gate_and_only_a_set_gate() {
        let g = Gate::decide_with_errors(Level::Severe, Level::None, 1);
        assert!(g.tripped && !g.errors_without_gate());
        let g = Gate::decide_with_errors(Level::None, Level::Severe, 2);
        assert!(!g.tripped && g.errors_without_gate());
        assert!(!Gate::decide_with_errors(Level::Minor, Level::None, 0).tripped);
        let j =
            serde_json::to_string(&Gate::decide_with_errors(Level::Minor, Level::None, 1)).unwrap();
        assert_eq!(
            j,
            r#"{"fail_on":"minor","worst":"none","tripped":true,"errors":1}"#
        );
    }
}
