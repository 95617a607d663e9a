//! The SQLite file: opening it safely, adding one comparison, reading comparisons back.
//!
//! Safety with parallel CI jobs writing to one file: the database runs in WAL mode with a busy
//! timeout, and every write is one `BEGIN IMMEDIATE` transaction (a writer waits for the lock
//! instead of failing, readers never block it). A file that is not a SQLite database, is
//! damaged, or belongs to another application is an error — the store never deletes or
//! recreates anything.

use crate::error::{HistoryError, HistoryErrorKind};
use crate::migrations::{self, State, CURRENT};
use crate::summary::{
    CaseSummary, ComparisonAxis, ComparisonAxisName, ComparisonSummary, GateSummary, RuleSummary,
};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;
use veer_base::Level;

/// How long a writer waits for another writer's lock before giving up: 30 seconds.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Where and when a comparison was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Provenance {
    /// When it was added, in milliseconds since the Unix epoch (UTC).
    pub recorded_at_ms: i64,
    /// The git commit compared, when known.
    pub commit: Option<String>,
    /// The branch, when known.
    pub branch: Option<String>,
    /// The CI run, when known (`GITHUB_RUN_ID`, `CI_PIPELINE_ID`, …).
    pub ci_run: Option<String>,
    /// The veer version that added it.
    pub veer_version: String,
}

/// One stored comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// Its row id (increasing in insertion order).
    pub id: i64,
    /// When and where.
    pub provenance: Provenance,
    /// What it found (axes, rules and cases narrowed by the [`Filter`] it was read with).
    pub summary: ComparisonSummary,
}

/// Which comparisons to read.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only those recorded at or after this instant (ms since the epoch).
    pub since_ms: Option<i64>,
    /// Only those of this branch.
    pub branch: Option<String>,
    /// Only those with a verdict for this case (and only that case's verdict).
    pub case: Option<String>,
    /// Only this axis.
    pub axis: Option<String>,
    /// At most this many, the most recent.
    pub last: Option<usize>,
    /// Leave the per-case verdicts out (faster when only axes are wanted).
    pub without_cases: bool,
    /// Leave the per-rule counts out.
    pub without_rules: bool,
}

/// An open history database.
pub struct History {
    conn: Connection,
    path: String,
}

impl History {
    /// Opens the history at `path`, migrating it to the current schema. With `create`, a
    /// missing file is created (its directory must exist); without, it is an error of kind
    /// [`HistoryErrorKind::Missing`]. Damaged files, other SQLite databases and newer
    /// schemas are errors; nothing is deleted or recreated.
    pub fn open(path: &Path, create: bool) -> Result<History, HistoryError> {
        let name = path.display().to_string();
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(HistoryError::new(
                    HistoryErrorKind::Io,
                    format!("{name}: is a directory, not a history database"),
                    "name the database file, e.g. .veer/history.sqlite",
                ))
            }
            Err(_) if !create => {
                return Err(HistoryError::new(
                    HistoryErrorKind::Missing,
                    format!("{name}: no history database here"),
                    "add a comparison first: `veer history add report.json` (or `veer diff … --history`)",
                ))
            }
            _ => {}
        }
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let sql = |e: rusqlite::Error| HistoryError::sqlite(&name, &e);
        let mut conn = Connection::open_with_flags(path, flags).map_err(sql)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sql)?;
        let version = match migrations::state(&conn).map_err(sql)? {
            State::Foreign => {
                return Err(HistoryError::new(
                    HistoryErrorKind::NotHistory,
                    format!("{name}: a SQLite database, but not a veer history"),
                    "name another file with --history-db / the PATH argument; veer leaves this one alone",
                ))
            }
            State::Veer(v) if v > CURRENT => {
                return Err(HistoryError::new(
                    HistoryErrorKind::Newer,
                    format!(
                        "{name}: history schema version {v} was written by a newer veer (this one knows up to {CURRENT})"
                    ),
                    "upgrade veer; an older veer never downgrades a history",
                ))
            }
            State::Veer(v) => v,
            State::Empty => 0,
        };
        // WAL lets readers run beside the one writer; NORMAL sync is durable in WAL mode at
        // each checkpoint and keeps `add` fast.
        conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .map_err(sql)?;
        conn.execute_batch("PRAGMA synchronous = NORMAL;")
            .map_err(sql)?;
        if version < CURRENT {
            migrations::migrate_to(&mut conn, CURRENT).map_err(sql)?;
        }
        Ok(History { conn, path: name })
    }

    /// The schema version of the open database.
    pub fn schema_version(&self) -> Result<i64, HistoryError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| HistoryError::sqlite(&self.path, &e))
    }

    /// Adds one comparison in a single immediate transaction; its row id.
    pub fn add(&mut self, p: &Provenance, s: &ComparisonSummary) -> Result<i64, HistoryError> {
        let path = self.path.clone();
        let sql = |e: rusqlite::Error| HistoryError::sqlite(&path, &e);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        tx.execute(
            "INSERT INTO comparisons (recorded_at_ms, commit_sha, branch, ci_run, veer_version,
                report_kind, pairs, gate_fail_on, gate_worst, gate_tripped, gate_errors)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                p.recorded_at_ms,
                p.commit,
                p.branch,
                p.ci_run,
                p.veer_version,
                s.report_kind,
                i64::try_from(s.pairs).unwrap_or(i64::MAX),
                s.gate.fail_on,
                s.gate.worst,
                s.gate.tripped,
                i64::try_from(s.gate.errors).unwrap_or(i64::MAX),
            ],
        )
        .map_err(sql)?;
        let id = tx.last_insert_rowid();
        {
            let mut axis = tx
                .prepare_cached(
                    "INSERT INTO axes (comparison_id, axis, level, delta) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sql)?;
            for a in &s.axes {
                axis.execute(params![id, a.axis.name(), a.level.name(), a.delta])
                    .map_err(sql)?;
            }
            let mut rule = tx
                .prepare_cached(
                    "INSERT INTO rules (comparison_id, rule_id, regressions, fixes,
                        baseline_violations, candidate_violations) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(sql)?;
            let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
            for r in &s.rules {
                rule.execute(params![
                    id,
                    r.rule,
                    n(r.regressions),
                    n(r.fixes),
                    n(r.baseline_violations),
                    n(r.candidate_violations)
                ])
                .map_err(sql)?;
            }
            let mut case = tx
                .prepare_cached(
                    "INSERT INTO cases (comparison_id, case_name, verdict, source) VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(sql)?;
            for c in &s.cases {
                case.execute(params![id, c.case, c.verdict, c.source])
                    .map_err(sql)?;
            }
        }
        tx.commit().map_err(sql)?;
        Ok(id)
    }

    /// Number of comparisons stored.
    pub fn count(&self) -> Result<u64, HistoryError> {
        self.conn
            .query_row("SELECT count(*) FROM comparisons", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|e| HistoryError::sqlite(&self.path, &e))
    }

    /// The comparisons `filter` selects, oldest first (by time, then insertion order).
    pub fn entries(&self, filter: &Filter) -> Result<Vec<Entry>, HistoryError> {
        let sql = |e: rusqlite::Error| HistoryError::sqlite(&self.path, &e);
        let last = filter
            .last
            .map_or(i64::MAX, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, recorded_at_ms, commit_sha, branch, ci_run, veer_version, report_kind,
                    pairs, gate_fail_on, gate_worst, gate_tripped, gate_errors
                 FROM comparisons
                 WHERE (?1 IS NULL OR recorded_at_ms >= ?1)
                   AND (?2 IS NULL OR branch = ?2)
                   AND (?3 IS NULL OR id IN (SELECT comparison_id FROM cases WHERE case_name = ?3))
                 ORDER BY recorded_at_ms DESC, id DESC
                 LIMIT ?4",
            )
            .map_err(sql)?;
        let rows = stmt
            .query_map(
                params![filter.since_ms, filter.branch, filter.case, last],
                |r| {
                    Ok(Entry {
                        id: r.get(0)?,
                        provenance: Provenance {
                            recorded_at_ms: r.get(1)?,
                            commit: r.get(2)?,
                            branch: r.get(3)?,
                            ci_run: r.get(4)?,
                            veer_version: r.get(5)?,
                        },
                        summary: ComparisonSummary {
                            report_kind: r.get(6)?,
                            pairs: u64::try_from(r.get::<_, i64>(7)?).unwrap_or(0),
                            axes: Vec::new(),
                            rules: Vec::new(),
                            cases: Vec::new(),
                            gate: GateSummary {
                                fail_on: r.get(8)?,
                                worst: r.get(9)?,
                                tripped: r.get(10)?,
                                errors: u64::try_from(r.get::<_, i64>(11)?).unwrap_or(0),
                            },
                        },
                    })
                },
            )
            .map_err(sql)?;
        let mut entries = rows.collect::<Result<Vec<_>, _>>().map_err(sql)?;
        entries.reverse();
        let Some(first) = entries.iter().map(|e| e.id).min() else {
            return Ok(entries);
        };
        let at: HashMap<i64, usize> = entries.iter().enumerate().map(|(i, e)| (e.id, i)).collect();
        let mut axes = self
            .conn
            .prepare(
                "SELECT comparison_id, axis, level, delta FROM axes
                 WHERE comparison_id >= ?1 AND (?2 IS NULL OR axis = ?2) ORDER BY rowid",
            )
            .map_err(sql)?;
        let mut rows = axes.query(params![first, filter.axis]).map_err(sql)?;
        while let Some(r) = rows.next().map_err(sql)? {
            if let Some(&i) = at.get(&r.get::<_, i64>(0).map_err(sql)?) {
                let name: String = r.get(1).map_err(sql)?;
                let level: String = r.get(2).map_err(sql)?;
                let axis = if entries[i].summary.report_kind == "trials" {
                    Some(ComparisonAxisName::Trials(name.clone()))
                } else {
                    ComparisonAxisName::diff(&name)
                };
                let (Some(axis), Some(level)) = (axis, Level::parse(&level)) else {
                    return Err(HistoryError::new(
                        HistoryErrorKind::Corrupt,
                        format!(
                            "{}: comparison {}: axis `{name}` at level `{level}` is not one veer writes",
                            self.path, entries[i].id
                        ),
                        "move it aside and restore it from a backup; veer never recreates it",
                    ));
                };
                entries[i].summary.axes.push(ComparisonAxis {
                    axis,
                    level,
                    delta: r.get(3).map_err(sql)?,
                });
            }
        }
        if !filter.without_rules {
            self.read_rules(first, &at, &mut entries)?;
        }
        if !filter.without_cases {
            self.read_cases(first, filter, &at, &mut entries)?;
        }
        Ok(entries)
    }

    /// Adds the rule rows of comparisons `first..` to `entries` (indexed by `at`).
    fn read_rules(
        &self,
        first: i64,
        at: &HashMap<i64, usize>,
        entries: &mut [Entry],
    ) -> Result<(), HistoryError> {
        let sql = |e: rusqlite::Error| HistoryError::sqlite(&self.path, &e);
        let mut rules = self
            .conn
            .prepare(
                "SELECT comparison_id, rule_id, regressions, fixes, baseline_violations,
                    candidate_violations FROM rules WHERE comparison_id >= ?1 ORDER BY rowid",
            )
            .map_err(sql)?;
        let mut rows = rules.query(params![first]).map_err(sql)?;
        let n = |v: i64| u64::try_from(v).unwrap_or(0);
        while let Some(r) = rows.next().map_err(sql)? {
            if let Some(&i) = at.get(&r.get::<_, i64>(0).map_err(sql)?) {
                entries[i].summary.rules.push(RuleSummary {
                    rule: r.get(1).map_err(sql)?,
                    regressions: n(r.get(2).map_err(sql)?),
                    fixes: n(r.get(3).map_err(sql)?),
                    baseline_violations: n(r.get(4).map_err(sql)?),
                    candidate_violations: n(r.get(5).map_err(sql)?),
                });
            }
        }
        Ok(())
    }

    /// Adds the case rows of comparisons `first..` (only `filter.case`'s when set).
    fn read_cases(
        &self,
        first: i64,
        filter: &Filter,
        at: &HashMap<i64, usize>,
        entries: &mut [Entry],
    ) -> Result<(), HistoryError> {
        let sql = |e: rusqlite::Error| HistoryError::sqlite(&self.path, &e);
        let mut cases = self
            .conn
            .prepare(
                "SELECT comparison_id, case_name, verdict, source FROM cases
                 WHERE comparison_id >= ?1 AND (?2 IS NULL OR case_name = ?2) ORDER BY rowid",
            )
            .map_err(sql)?;
        let mut rows = cases.query(params![first, filter.case]).map_err(sql)?;
        while let Some(r) = rows.next().map_err(sql)? {
            if let Some(&i) = at.get(&r.get::<_, i64>(0).map_err(sql)?) {
                entries[i].summary.cases.push(CaseSummary {
                    case: r.get(1).map_err(sql)?,
                    verdict: r.get(2).map_err(sql)?,
                    source: r.get(3).map_err(sql)?,
                });
            }
        }
        Ok(())
    }

    /// Runs SQLite's `quick_check`; an error naming the first problem when the file is damaged.
    pub fn check(&self) -> Result<(), HistoryError> {
        let result: Option<String> = self
            .conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .optional()
            .map_err(|e| HistoryError::sqlite(&self.path, &e))?;
        match result.as_deref() {
            Some("ok") | None => Ok(()),
            Some(problem) => Err(HistoryError::new(
                HistoryErrorKind::Corrupt,
                format!("{}: the history database is damaged: {problem}", self.path),
                "move it aside and restore it from a backup; veer never recreates it",
            )),
        }
    }
}

#[cfg(test)]
mod tests;
