//! The quarantine file (`.veer/quarantine.yaml`): cases the gate measures and shows but does
//! not let trip it, each with a reason and an expiry date (docs/history.md, "Quarantine").
//!
//! ```yaml
//! quarantine:
//!   - case: refund/partial
//!     reason: verdict flipped on 3 of 4 re-runs of unchanged commits
//!     expires: 2026-12-11
//! ```
//!
//! Parsing is pure (text in, entries or an error naming line and field out). An entry is
//! honoured through its `expires` day (UTC) and is expired from the next day on: an expired
//! entry is not honoured and is reported as a warning. [`append`] adds entries to an existing
//! file's text without touching what is there, and checks its own result by parsing it again.

use crate::error::Error;
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::BTreeSet;
use veer_contract::verdict::Trip;

/// A calendar day (proleptic Gregorian, UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day {
    /// The year, 1970 to 9999.
    pub year: i32,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month, 1 to 28–31.
    pub day: u32,
}

impl Day {
    /// Parses `YYYY-MM-DD` (a real calendar day, years 1970 to 9999).
    pub fn parse(s: &str) -> Option<Day> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let year: i32 = s[0..4].parse().ok()?;
        let month: u32 = s[5..7].parse().ok()?;
        let day: u32 = s[8..10].parse().ok()?;
        if !(1970..=9999).contains(&year) || !(1..=12).contains(&month) || day == 0 {
            return None;
        }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = [
            31,
            if leap { 29 } else { 28 },
            31,
            30,
            31,
            30,
            31,
            31,
            30,
            31,
            30,
            31,
        ];
        (day <= days[month as usize - 1]).then_some(Day { year, month, day })
    }

    /// The day of an instant, in days since 1970-01-01 (UTC); civil-from-days (Hinnant 2013).
    pub fn from_unix_days(days: i64) -> Day {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Day { year, month, day }
    }

    /// Days since 1970-01-01 (days-from-civil, Hinnant 2013).
    pub(crate) fn unix_days(self) -> i64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y.rem_euclid(400);
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// This day plus `n` days.
    pub fn plus_days(self, n: i64) -> Day {
        Day::from_unix_days(self.unix_days() + n)
    }
}

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// One quarantined case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuarantineEntry {
    /// The case: a trials case name, or a directory pair's relative path.
    pub case: String,
    /// Why it is quarantined.
    pub reason: String,
    /// The last day (UTC) it is honoured.
    pub expires: Day,
    /// Its 1-based line in the file (0 for entries not read from a file).
    pub line: u64,
}

/// A parsed quarantine file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quarantine {
    /// The entries, in file order.
    pub entries: Vec<QuarantineEntry>,
}

/// The quarantine as of one day: the cases honoured and the expired entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActiveQuarantine {
    /// Cases whose entry has not expired: measured and shown, never tripping the gate.
    pub cases: BTreeSet<String>,
    /// Entries past their expiry: not honoured, reported as warnings.
    pub expired: Vec<QuarantineEntry>,
    /// The entries honoured (those of [`ActiveQuarantine::cases`]), in file order.
    pub honoured: Vec<QuarantineEntry>,
    /// The file the entries came from, as shown to the user (empty when not from a file):
    /// names it in warnings and in the report's quarantine block.
    pub source: String,
}

impl ActiveQuarantine {
    /// Whether `case` (a trials case or a pair's relative path) is quarantined.
    pub fn holds(&self, case: &str) -> bool {
        self.cases.contains(case)
    }

    /// One warning line per expired entry.
    pub fn warnings(&self, source: &str) -> Vec<String> {
        self.expired
            .iter()
            .map(|e| expired_warning(source, e))
            .collect()
    }

    /// The same quarantine, its entries read from `source` (as shown to the user).
    pub fn from_source(mut self, source: &str) -> Self {
        self.source = source.to_string();
        self
    }

    /// The mark of a directory pair (by relative path) when it is quarantined.
    pub fn mark(&self, case: &str) -> Option<veer_contract::quarantine::QuarantineMark> {
        self.honoured.iter().find(|e| e.case == case).map(|e| {
            veer_contract::quarantine::QuarantineMark {
                reason: e.reason.clone(),
                expires: e.expires.to_string(),
            }
        })
    }

    /// The report's quarantine block given the run's verdict (whose
    /// [`veer_contract::verdict::Verdict::quarantined`] signals are the excused ones, grouped by pair in the
    /// order they came): None when the quarantine has no entry at all.
    pub fn summary(
        &self,
        verdict: &veer_contract::verdict::Verdict,
    ) -> Option<veer_contract::quarantine::QuarantineSummary> {
        if self.honoured.is_empty() && self.expired.is_empty() {
            return None;
        }
        let mut excused: Vec<veer_contract::quarantine::ExcusedPair> = Vec::new();
        for t in &verdict.quarantined {
            let pair = t.trace.clone().unwrap_or_default();
            let label = Trip {
                trace: None,
                ..t.clone()
            }
            .label();
            match excused.last_mut() {
                Some(last) if last.pair == pair => last.signals.push(label),
                _ => excused.push(veer_contract::quarantine::ExcusedPair {
                    pair,
                    signals: vec![label],
                }),
            }
        }
        Some(veer_contract::quarantine::QuarantineSummary {
            file: self.source.clone(),
            honoured: self.honoured.len(),
            excused,
            expired: self
                .expired
                .iter()
                .map(|e| veer_contract::quarantine::ExpiredEntry {
                    case: e.case.clone(),
                    reason: e.reason.clone(),
                    expires: e.expires.to_string(),
                    line: e.line,
                    warning: expired_warning(&self.source, e),
                })
                .collect(),
        })
    }
}

/// The warning of an expired entry of the file `source`.
fn expired_warning(source: &str, e: &QuarantineEntry) -> String {
    format!(
        "{source}:{}: quarantine of `{}` expired on {}; it gates again (renew or remove the entry)",
        e.line, e.case, e.expires
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    quarantine: Option<Vec<Spanned<RawEntry>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    case: Option<Spanned<String>>,
    reason: Option<Spanned<String>>,
    expires: Option<Spanned<String>>,
}

const HINT: &str = "each entry is `- case: NAME`, `reason: TEXT`, `expires: YYYY-MM-DD` under a top-level `quarantine:` list (docs/history.md)";

fn bad(source: &str, line: u64, field: &str, msg: impl Into<String>) -> Error {
    let mut e = Error::input(format!("{source}:{line}: ({field}) {}", msg.into())).hint(HINT);
    e.file = Some(source.to_string());
    e.line = Some(line);
    e.field = Some(field.to_string());
    e
}

impl Quarantine {
    /// Parses a quarantine file's `text`; `source` names it in errors. An empty file is an
    /// empty quarantine. Errors name the line and field and carry a hint.
    pub fn parse(source: &str, text: &str) -> Result<Quarantine, Error> {
        if text.trim().is_empty() {
            return Ok(Quarantine::default());
        }
        let options = serde_saphyr::options! {
            strict_booleans: true,
            duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
            with_snippet: false,
        };
        let file: File = serde_saphyr::from_str_with_options(text, options).map_err(|e| {
            let line = e.location().map_or(0, |l| l.line());
            let msg = e.without_snippet().to_string();
            let msg = msg.lines().next().unwrap_or_default().to_string();
            bad(source, line, "yaml", msg)
        })?;
        let mut entries = Vec::new();
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for (i, raw) in file.quarantine.unwrap_or_default().into_iter().enumerate() {
            let line = raw.referenced.line();
            let field = |name: &str| format!("quarantine[{i}].{name}");
            let r = raw.value;
            let case = r
                .case
                .ok_or_else(|| bad(source, line, &field("case"), "missing"))?;
            if case.value.trim().is_empty() {
                return Err(bad(source, case.referenced.line(), &field("case"), "empty"));
            }
            if !seen.insert(case.value.clone()) {
                return Err(bad(
                    source,
                    case.referenced.line(),
                    &field("case"),
                    format!("`{}` is listed twice", case.value),
                ));
            }
            let reason = r
                .reason
                .ok_or_else(|| bad(source, line, &field("reason"), "missing: say why"))?;
            if reason.value.trim().is_empty() {
                return Err(bad(
                    source,
                    reason.referenced.line(),
                    &field("reason"),
                    "empty: say why",
                ));
            }
            let expires = r.expires.ok_or_else(|| {
                bad(
                    source,
                    line,
                    &field("expires"),
                    "missing: every quarantine ends",
                )
            })?;
            let day = Day::parse(expires.value.trim()).ok_or_else(|| {
                bad(
                    source,
                    expires.referenced.line(),
                    &field("expires"),
                    format!("`{}` is not a date YYYY-MM-DD", expires.value),
                )
            })?;
            entries.push(QuarantineEntry {
                case: case.value,
                reason: reason.value,
                expires: day,
                line: case.referenced.line(),
            });
        }
        Ok(Quarantine { entries })
    }

    /// The entries honoured on `today` (expires ≥ today) and those expired.
    pub fn active(&self, today: Day) -> ActiveQuarantine {
        let mut a = ActiveQuarantine::default();
        for e in &self.entries {
            if e.expires >= today {
                a.cases.insert(e.case.clone());
                a.honoured.push(e.clone());
            } else {
                a.expired.push(e.clone());
            }
        }
        a
    }
}

/// A YAML double-quoted scalar of `s`.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The text of a quarantine file with `new` entries added to `existing` (the file's text, or
/// None when there is no file): existing text is kept byte for byte and entries for cases it
/// already lists are skipped. Returns the new text and the entries added. The result is parsed
/// again and must list every old entry unchanged plus the added ones; when the existing file's
/// shape does not allow appending (e.g. its list is not last, or is written in flow style) it
/// is an error asking to add the entries by hand.
pub fn append(
    source: &str,
    existing: Option<&str>,
    new: &[QuarantineEntry],
) -> Result<(String, Vec<QuarantineEntry>), Error> {
    let old = match existing {
        Some(text) => Quarantine::parse(source, text)?,
        None => Quarantine::default(),
    };
    let have: BTreeSet<&str> = old.entries.iter().map(|e| e.case.as_str()).collect();
    let mut added: Vec<QuarantineEntry> = Vec::new();
    for e in new {
        if !have.contains(e.case.as_str()) && !added.iter().any(|a| a.case == e.case) {
            added.push(e.clone());
        }
    }
    let mut text = match existing {
        Some(t) if !t.trim().is_empty() => {
            let mut t = t.to_string();
            if !t.ends_with('\n') {
                t.push('\n');
            }
            if old.entries.is_empty() && !t.lines().any(|l| l.starts_with("quarantine:")) {
                t.push_str("quarantine:\n");
            }
            t
        }
        _ => "# Cases the gate measures and shows but does not let trip it (docs/history.md).\n\
              # An entry is honoured through its `expires` day (UTC); expired entries gate again.\n\
              quarantine:\n"
            .to_string(),
    };
    if text.contains("quarantine: []") || text.contains("quarantine: null") {
        return Err(Error::input(format!(
            "{source}: the quarantine list is written inline; veer appends only to a block list"
        ))
        .hint("write `quarantine:` on its own line with `- case: …` entries below it, or add the entries by hand"));
    }
    for e in &added {
        text.push_str(&format!(
            "  - case: {}\n    reason: {}\n    expires: {}\n",
            quoted(&e.case),
            quoted(&e.reason),
            e.expires
        ));
    }
    let check = Quarantine::parse(source, &text).ok();
    let strip = |q: &Quarantine| -> Vec<(String, String, Day)> {
        q.entries
            .iter()
            .map(|e| (e.case.clone(), e.reason.clone(), e.expires))
            .collect()
    };
    let mut want = strip(&old);
    want.extend(
        added
            .iter()
            .map(|e| (e.case.clone(), e.reason.clone(), e.expires)),
    );
    if check.as_ref().map(strip) != Some(want) {
        return Err(Error::input(format!(
            "{source}: cannot append to this file without changing what it says"
        ))
        .hint("make `quarantine:` the last top-level key, as a block list (`- case: …`), or add the entries by hand"));
    }
    Ok((text, added))
}

#[cfg(test)]
mod tests;

/// Today (UTC) as a calendar day, from the system clock (expiry is about the real date, so
/// `SOURCE_DATE_EPOCH` is not consulted).
pub fn today() -> Day {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    Day::from_unix_days(ms.div_euclid(86_400_000))
}

/// The text of the quarantine file at `path`: None when it does not exist; a directory, a file
/// past the settings-file limit or one that is not UTF-8 is an error naming it.
pub fn read_text(path: &std::path::Path) -> Result<Option<String>, Error> {
    use veer_base::capped::{read_capped, MAX_CONFIG_FILE_BYTES};
    let shown = path.display().to_string();
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Ok(m) if m.is_dir() => {
            return Err(
                Error::input(format!("{shown}: is a directory, not a quarantine file"))
                    .hint("name the YAML file, e.g. .veer/quarantine.yaml"),
            )
        }
        _ => {}
    }
    let bytes = read_capped(path, MAX_CONFIG_FILE_BYTES).map_err(|e| {
        match e.too_large_message("quarantine file", None) {
            Some((m, h)) => Error::input(format!("{shown}: {m}")).hint(h),
            None => Error::input(format!("{shown}: cannot read")).hint("check the path"),
        }
    })?;
    String::from_utf8(bytes).map(Some).map_err(|_| {
        Error::input(format!("{shown}: not UTF-8 text"))
            .hint("the quarantine file is YAML text (docs/history.md)")
    })
}

/// The quarantine of a comparison as of `today`: `explicit` (which must exist), else
/// `default` when it exists, else none. Returns the entries honoured and the file's name as
/// shown (the expired entries are in [`ActiveQuarantine::warnings`]). A malformed file is an
/// error naming line and field.
pub fn load(
    explicit: Option<&std::path::Path>,
    default: Option<&std::path::Path>,
    today: Day,
) -> Result<(ActiveQuarantine, String), Error> {
    let Some(path) = explicit.or(default) else {
        return Ok((ActiveQuarantine::default(), String::new()));
    };
    let shown = path.display().to_string();
    let Some(text) = read_text(path)? else {
        if explicit.is_some() {
            return Err(Error::input(format!("{shown}: no quarantine file here"))
                .hint("create it with `veer history flaky --write`, or leave --quarantine out"));
        }
        return Ok((ActiveQuarantine::default(), shown));
    };
    let active = Quarantine::parse(&shown, &text)?
        .active(today)
        .from_source(&shown);
    Ok((active, shown))
}
