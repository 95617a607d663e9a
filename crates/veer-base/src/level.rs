//! One severity scale for everything veer ranks: how much a diff axis moved, the gate's
//! worst signal and its `--fail-on` threshold (`none < minor < moderate < severe`), with its
//! wire names and JSON Schema. Policy rule severities (info … critical) map onto it.

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

    /// The lowercase wire label (`none`, `minor`, `moderate`, `severe`).
    pub fn label(self) -> &'static str {
        self.name()
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
            serde::de::Error::unknown_variant(&s, &["none", "minor", "moderate", "severe"])
        })
    }
}

impl schemars::JsonSchema for Level {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Level".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A severity level, lowest to highest: how much a diff axis moved, or the gate's worst signal.",
            "type": "string",
            "enum": ["none", "minor", "moderate", "severe"]
        })
    }
}

/// The schema of a `--fail-on` threshold as written in a report: `never` for [`Level::None`].
pub fn threshold_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "description": "The --fail-on threshold (never: the gate is off).",
        "type": "string",
        "enum": ["never", "minor", "moderate", "severe"]
    })
}

/// Writes a `--fail-on` threshold: `never` for [`Level::None`], else the level's name.
pub fn serialize_threshold<S: Serializer>(l: &Level, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(l.threshold_name())
}

/// Reads a threshold as written by [`serialize_threshold`] (`never`, `minor`, `moderate`,
/// `severe`; `none` is accepted as `never`, as `--fail-on` accepts it).
pub fn deserialize_threshold<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Level, D::Error> {
    let s = std::borrow::Cow::<'de, str>::deserialize(d)?;
    Level::parse_fail_on(&s).ok_or_else(|| {
        serde::de::Error::invalid_value(
            serde::de::Unexpected::Str(&s),
            &"one of never, minor, moderate, severe",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_parse_and_round_trip() {
        assert!(Level::None < Level::Minor && Level::Moderate < Level::Severe);
        assert_eq!(Level::parse_fail_on("none"), Some(Level::None));
        assert_eq!(Level::parse_fail_on("never"), Some(Level::None));
        assert_eq!(Level::parse("never"), None);
        assert_eq!(Level::Severe.rank(), 3);
        assert_eq!(Level::None.threshold_name(), "never");
        for l in [Level::None, Level::Minor, Level::Moderate, Level::Severe] {
            let j = serde_json::to_string(&l).unwrap();
            assert_eq!(j, format!("\"{}\"", l.label()));
            assert_eq!(serde_json::from_str::<Level>(&j).unwrap(), l);
        }
        assert!(serde_json::from_str::<Level>("\"never\"").is_err());
    }
}
