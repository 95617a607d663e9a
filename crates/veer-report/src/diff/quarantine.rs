//! The words every directory printer uses for the quarantine (docs/history.md, "Quarantine"):
//! a quarantined pair's tag, the line saying which file applied and what it excused, and the
//! expired entries' warnings. Formatting only: the engine marked the pairs and decided the gate.

use veer_contract::quarantine::{QuarantineMark, QuarantineSummary};

/// The tag of a quarantined pair, e.g. `quarantined until 2026-12-11: flips on re-runs`.
pub fn tag(mark: &QuarantineMark) -> String {
    format!(
        "quarantined until {}: {}",
        mark.expires,
        mark.reason.replace('\n', " ")
    )
}

/// One line naming the quarantine file, how many entries it honours and how many tripping
/// pairs it excused, e.g. `quarantine .veer/quarantine.yaml: 2 entries honoured, 1 tripping
/// pair excused (measured and shown, not gating)`.
pub(crate) fn summary_line(q: &QuarantineSummary) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "quarantine {}: {} honoured, {} excused (measured and shown, not gating)",
        q.file,
        plural(q.honoured, "entry", "entries"),
        plural(q.excused.len(), "tripping pair", "tripping pairs")
    )
}

/// The warnings of the expired entries, in file order (empty without a quarantine).
pub(crate) fn expired_warnings(q: Option<&QuarantineSummary>) -> impl Iterator<Item = &str> {
    q.into_iter()
        .flat_map(|q| q.expired.iter().map(|e| e.warning.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        let mark = QuarantineMark {
            reason: "flips\non re-runs".into(),
            expires: "2026-12-11".into(),
        };
        assert_eq!(tag(&mark), "quarantined until 2026-12-11: flips on re-runs");
        let mut q = QuarantineSummary {
            file: "q.yaml".into(),
            honoured: 1,
            excused: Vec::new(),
            expired: Vec::new(),
        };
        assert_eq!(
            summary_line(&q),
            "quarantine q.yaml: 1 entry honoured, 0 tripping pairs excused (measured and shown, not gating)"
        );
        assert_eq!(expired_warnings(Some(&q)).count(), 0);
        q.expired.push(veer_contract::quarantine::ExpiredEntry {
            case: "a".into(),
            reason: "r".into(),
            expires: "2001-01-01".into(),
            line: 2,
            warning: "q.yaml:2: expired".into(),
        });
        assert_eq!(
            expired_warnings(Some(&q)).collect::<Vec<_>>(),
            ["q.yaml:2: expired"]
        );
        assert_eq!(expired_warnings(None).count(), 0);
    }
}
