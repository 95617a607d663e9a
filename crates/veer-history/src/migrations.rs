//! The database schema, as an ordered list of migrations. `PRAGMA user_version` holds the
//! number of migrations applied; opening a database applies the missing ones in one immediate
//! transaction (so two processes opening a new file at once cannot both migrate it). A database
//! with a higher version was written by a newer veer and is refused, never downgraded.
//!
//! Never edit a migration that has shipped: add the next one.

use rusqlite::{Connection, TransactionBehavior};

/// `PRAGMA application_id` of a veer history database: the bytes `veer`.
pub(crate) const APPLICATION_ID: i64 = 0x7665_6572;

/// The migrations, in order: migration `i` takes a database from version `i` to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: comparisons, their axes and their policy rules.
    "CREATE TABLE comparisons (
        id INTEGER PRIMARY KEY,
        recorded_at_ms INTEGER NOT NULL,
        commit_sha TEXT,
        branch TEXT,
        veer_version TEXT NOT NULL,
        report_kind TEXT NOT NULL,
        pairs INTEGER NOT NULL,
        gate_fail_on TEXT NOT NULL,
        gate_worst TEXT NOT NULL,
        gate_tripped INTEGER NOT NULL,
        gate_errors INTEGER NOT NULL
    );
    CREATE TABLE axes (
        comparison_id INTEGER NOT NULL REFERENCES comparisons(id),
        axis TEXT NOT NULL,
        level TEXT NOT NULL,
        delta REAL
    );
    CREATE TABLE rules (
        comparison_id INTEGER NOT NULL REFERENCES comparisons(id),
        rule_id TEXT NOT NULL,
        regressions INTEGER NOT NULL,
        fixes INTEGER NOT NULL,
        baseline_violations INTEGER NOT NULL,
        candidate_violations INTEGER NOT NULL
    );
    CREATE INDEX axes_by_comparison ON axes(comparison_id);
    CREATE INDEX rules_by_comparison ON rules(comparison_id);",
    // 2: per-case verdicts, the CI run, and an index for time filters.
    "ALTER TABLE comparisons ADD COLUMN ci_run TEXT;
    CREATE TABLE cases (
        comparison_id INTEGER NOT NULL REFERENCES comparisons(id),
        case_name TEXT NOT NULL,
        verdict TEXT NOT NULL,
        source TEXT NOT NULL
    );
    CREATE INDEX cases_by_comparison ON cases(comparison_id);
    CREATE INDEX cases_by_name ON cases(case_name);
    CREATE INDEX comparisons_by_time ON comparisons(recorded_at_ms, id);",
];

/// The schema version this veer writes.
pub(crate) const CURRENT: i64 = MIGRATIONS.len() as i64;

/// What a database's header says before any migration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// A new, empty database (version 0, no tables).
    Empty,
    /// A veer history at this version.
    Veer(i64),
    /// Some other SQLite database.
    Foreign,
}

/// Reads the version and application id.
pub(crate) fn state(conn: &Connection) -> rusqlite::Result<State> {
    // One statement, so one snapshot: read as three, another process's first migration could
    // commit between them (version 0 and no application id read before it, its tables after)
    // and a fresh history would look foreign.
    let (version, app, tables): (i64, i64, i64) = conn.query_row(
        "SELECT (SELECT user_version FROM pragma_user_version), \
                (SELECT application_id FROM pragma_application_id), \
                (SELECT count(*) FROM sqlite_schema WHERE type = 'table')",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    Ok(match (app, version, tables) {
        (0, 0, 0) => State::Empty,
        (APPLICATION_ID, v, _) => State::Veer(v),
        _ => State::Foreign,
    })
}

/// Applies migrations up to `target` (at most [`CURRENT`]) in one immediate transaction,
/// re-reading the version inside it. Returns the version reached.
pub(crate) fn migrate_to(conn: &mut Connection, target: i64) -> rusqlite::Result<i64> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version == 0 {
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID};"))?;
    }
    while version < target {
        let Some(sql) = usize::try_from(version)
            .ok()
            .and_then(|v| MIGRATIONS.get(v))
        else {
            break;
        };
        tx.execute_batch(sql)?;
        version += 1;
        tx.execute_batch(&format!("PRAGMA user_version = {version};"))?;
    }
    tx.commit()?;
    Ok(version)
}
