use super::*;
use crate::summary::ComparisonSummary;

fn summary(level: &str, delta: f64) -> ComparisonSummary {
    ComparisonSummary {
        report_kind: "pair".into(),
        pairs: 1,
        axes: vec![
            ComparisonAxis {
                axis: ComparisonAxisName::Diff(veer_contract::axis::Axis::Semantic),
                level: Level::parse(level).unwrap_or(Level::None),
                delta: Some(delta),
            },
            ComparisonAxis {
                axis: ComparisonAxisName::Diff(veer_contract::axis::Axis::Cost),
                level: Level::None,
                delta: None,
            },
        ],
        rules: vec![RuleSummary {
            rule: "r1".into(),
            regressions: 1,
            fixes: 0,
            baseline_violations: 0,
            candidate_violations: 1,
        }],
        cases: vec![CaseSummary {
            case: "c1".into(),
            verdict: "pass".into(),
            source: "trials".into(),
        }],
        gate: GateSummary {
            fail_on: "never".into(),
            worst: level.into(),
            tripped: false,
            errors: 0,
        },
    }
}

fn provenance(ms: i64) -> Provenance {
    Provenance {
        recorded_at_ms: ms,
        commit: Some("abc".into()),
        branch: Some("main".into()),
        ci_run: None,
        veer_version: "0.1.0".into(),
    }
}

#[test]
fn entries_round_trip_and_filter() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let mut h = History::open(&path, true).unwrap();
    h.add(&provenance(1000), &summary("minor", 0.5)).unwrap();
    h.add(&provenance(2000), &summary("severe", 1.5)).unwrap();
    let all = h.entries(&Filter::default()).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].summary, summary("minor", 0.5));
    assert_eq!(all[1].provenance, provenance(2000));
    let since = h
        .entries(&Filter {
            since_ms: Some(1500),
            ..Filter::default()
        })
        .unwrap();
    assert_eq!(since.len(), 1);
    let axis = h
        .entries(&Filter {
            axis: Some("cost".into()),
            last: Some(1),
            ..Filter::default()
        })
        .unwrap();
    assert_eq!(axis.len(), 1);
    assert_eq!(axis[0].summary.axes.len(), 1);
    assert_eq!(axis[0].provenance.recorded_at_ms, 2000);
    let none = h
        .entries(&Filter {
            case: Some("nope".into()),
            ..Filter::default()
        })
        .unwrap();
    assert!(none.is_empty());
    assert_eq!(h.count().unwrap(), 2);
    h.check().unwrap();
}

#[test]
fn a_version_1_database_migrates_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v1.sqlite");
    {
        let mut conn = Connection::open(&path).unwrap();
        assert_eq!(migrations::migrate_to(&mut conn, 1).unwrap(), 1);
        conn.execute(
            "INSERT INTO comparisons (recorded_at_ms, commit_sha, branch, veer_version, report_kind,
                pairs, gate_fail_on, gate_worst, gate_tripped, gate_errors)
             VALUES (5, 'c0ffee', 'main', '0.0.9', 'pair', 1, 'never', 'minor', 0, 0)",
            [],
        )
        .unwrap();
        conn.execute("INSERT INTO axes VALUES (1, 'semantic', 'minor', 0.25)", [])
            .unwrap();
    }
    let mut h = History::open(&path, false).unwrap();
    assert_eq!(h.schema_version().unwrap(), CURRENT);
    let old = h.entries(&Filter::default()).unwrap();
    assert_eq!(old.len(), 1);
    assert_eq!(old[0].provenance.commit.as_deref(), Some("c0ffee"));
    assert_eq!(old[0].provenance.ci_run, None);
    assert_eq!(old[0].summary.axes[0].delta, Some(0.25));
    assert!(old[0].summary.cases.is_empty());
    h.add(&provenance(10), &summary("none", 0.0)).unwrap();
    assert_eq!(
        h.entries(&Filter::default()).unwrap()[1]
            .summary
            .cases
            .len(),
        1
    );
}

#[test]
fn damaged_foreign_newer_and_missing_files_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.sqlite");
    let junk = b"this is not a database, just some bytes that are long enough to look like a header..........".repeat(20);
    std::fs::write(&garbage, &junk).unwrap();
    let e = History::open(&garbage, true).err().unwrap();
    assert_eq!(e.kind, HistoryErrorKind::Corrupt, "{}", e.message);
    assert!(e.hint.contains("never recreates"));
    assert_eq!(std::fs::read(&garbage).unwrap(), junk);

    let foreign = dir.path().join("foreign.sqlite");
    Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t (x);")
        .unwrap();
    assert_eq!(
        History::open(&foreign, true).err().unwrap().kind,
        HistoryErrorKind::NotHistory
    );

    let newer = dir.path().join("newer.sqlite");
    {
        let mut conn = Connection::open(&newer).unwrap();
        migrations::migrate_to(&mut conn, CURRENT).unwrap();
        conn.execute_batch(&format!("PRAGMA user_version = {};", CURRENT + 1))
            .unwrap();
    }
    assert_eq!(
        History::open(&newer, true).err().unwrap().kind,
        HistoryErrorKind::Newer
    );

    let missing = dir.path().join("missing.sqlite");
    assert_eq!(
        History::open(&missing, false).err().unwrap().kind,
        HistoryErrorKind::Missing
    );
    assert!(!missing.exists());
}

#[test]
fn threads_writing_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.sqlite");
    let threads: Vec<_> = (0..6)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                for i in 0..20 {
                    let mut h = History::open(&path, true).unwrap();
                    h.add(&provenance(t * 100 + i), &summary("minor", 0.1))
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let h = History::open(&path, false).unwrap();
    assert_eq!(h.count().unwrap(), 120);
    assert_eq!(h.entries(&Filter::default()).unwrap().len(), 120);
}
