//! History store speed (the bounds: `history add` < 50 ms, `history show` over 10,000
//! entries < 1 s): one `add` of a directory comparison (9 axes, 3 rules, 50 cases) to a
//! database that already holds 10,000, and reading all 10,000 back with their trends.
//! Run: `cargo bench -p veer-history --bench history`; figures in docs/performance.md.

#![allow(clippy::expect_used)] // a benchmark stops at the first failure

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use veer_base::Level;
use veer_history::trend::{axis_trends, case_trends};
use veer_history::{
    CaseSummary, ComparisonAxis, ComparisonAxisName, ComparisonSummary, Filter, GateSummary,
    History, Provenance, RuleSummary,
};

const AXES: [&str; 9] = [
    "semantic",
    "trajectory",
    "safety",
    "verbosity",
    "latency",
    "cost",
    "reasoning",
    "judge",
    "conformance",
];

fn summary(i: u64) -> ComparisonSummary {
    ComparisonSummary {
        report_kind: "directory".into(),
        pairs: 50,
        axes: AXES
            .iter()
            .map(|a| ComparisonAxis {
                axis: ComparisonAxisName::diff(a)
                    .unwrap_or(ComparisonAxisName::Trials(a.to_string())),
                level: [Level::None, Level::Minor][(i % 2) as usize],
                delta: Some(i as f64 * 0.01),
            })
            .collect(),
        rules: (0..3)
            .map(|r| RuleSummary {
                rule: format!("rule-{r}"),
                regressions: i % 3,
                fixes: 0,
                baseline_violations: 1,
                candidate_violations: 1 + i % 3,
            })
            .collect(),
        cases: (0..50)
            .map(|c| CaseSummary {
                case: format!("case-{c:02}"),
                verdict: ["pass", "regressed"][(i + c).is_multiple_of(7) as usize].into(),
                source: "trials".into(),
            })
            .collect(),
        gate: GateSummary {
            fail_on: "moderate".into(),
            worst: "minor".into(),
            tripped: false,
            errors: 0,
        },
    }
}

fn provenance(i: u64) -> Provenance {
    Provenance {
        recorded_at_ms: 1_767_225_600_000 + i as i64 * 60_000,
        commit: Some(format!("{i:040x}")),
        branch: Some("main".into()),
        ci_run: Some(i.to_string()),
        veer_version: "0.1.0".into(),
    }
}

fn filled(dir: &std::path::Path, n: u64) -> std::path::PathBuf {
    let path = dir.join("history.sqlite");
    let mut h = History::open(&path, true).expect("open");
    for i in 0..n {
        h.add(&provenance(i), &summary(i)).expect("add");
    }
    path
}

/// What `veer history show` reads: the last 10,000 entries of the database at `path`.
fn last_10000(path: &std::path::Path) -> Vec<veer_history::Entry> {
    let h = History::open(path, false).expect("open");
    let filter = Filter {
        last: Some(10_000),
        ..Filter::default()
    };
    h.entries(&filter).expect("entries")
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = filled(dir.path(), 10_000);
    let mut g = c.benchmark_group("history");
    g.sample_size(20);
    let mut i = 10_000;
    // What `veer history add` does after reading the report: open (WAL, migrations checked)
    // and one immediate transaction.
    g.bench_function("open_and_add_one_to_10000", |b| {
        b.iter(|| {
            i += 1;
            let mut h = History::open(&path, true).expect("open");
            black_box(h.add(&provenance(i), &summary(i)).expect("add"));
        })
    });
    // What `veer history show` does before printing: open, read every entry, build trends.
    g.bench_function("show_10000_entries", |b| {
        b.iter(|| {
            let entries = last_10000(&path);
            black_box((axis_trends(&entries), case_trends(&entries)));
        })
    });
    // The same with the drift column `history show` prints since the drift detector joined it:
    // the CUSUM over every axis and case series of the entries shown.
    g.bench_function("show_10000_entries_with_drift", |b| {
        b.iter(|| {
            let entries = last_10000(&path);
            let drift = veer_history::drift::drift(
                &entries,
                &veer_history::drift::DriftSettings::default(),
            );
            black_box((axis_trends(&entries), case_trends(&entries), drift));
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
