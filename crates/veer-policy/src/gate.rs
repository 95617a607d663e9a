//! The merge gate (spec `policy.md` §12): levels `none < minor < moderate < severe`, policy
//! severities mapped onto them (info → minor, warning → moderate, error and critical → severe),
//! and the decision `worst >= fail_on`. The gate itself is veer-contract's `policy::Gate`; these
//! tests hold it to the policy's severities.

#[cfg(test)]
mod tests {
    use veer_base::Level;
    use veer_contract::policy::Gate;
    use veer_contract::policy::Severity;

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
