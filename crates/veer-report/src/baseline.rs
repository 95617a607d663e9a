//! The printers of `veer baseline create|update|approve|verify|list|show`: one line (or, for
//! `show`, a short block) for a terminal, or JSON — the manifest as stored for create, approve
//! and show. The documents are veer-contract's manifest and list rows with what each command
//! adds; the engine stores and verifies, the binary fills these, and nothing here computes.

use crate::history::StandingFormat;
use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use std::fmt::Write as _;
use veer_contract::baseline::{BaselineManifest, BaselineSummary};

/// Cases listed by `show` before "… and N more".
const SHOWN_CASES: usize = 20;

/// The total size of a version's files (sums of the manifest's per-file sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StoredBytes {
    /// Bytes as read from the runs directory.
    pub read: u64,
    /// Bytes as stored (after compression).
    pub stored: u64,
}

/// A baseline version just stored (`create`, `update`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineCreated {
    /// Its manifest.
    pub manifest: BaselineManifest,
    /// The version's directory.
    pub version_dir: String,
    /// The total size of its files.
    pub bytes: StoredBytes,
}

/// A baseline version just approved: its new manifest revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineApproved {
    /// The new manifest revision.
    pub manifest: BaselineManifest,
}

/// A baseline version whose every file matched its manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineVerified {
    /// The manifest verified against.
    pub manifest: BaselineManifest,
}

/// The baselines under a root (`list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineList {
    /// The root directory as given.
    pub root: String,
    /// One row per baseline, by name.
    pub baselines: Vec<BaselineSummary>,
}

/// One baseline version as `show` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineShown {
    /// Its manifest (the latest revision).
    pub manifest: BaselineManifest,
    /// The baseline's directory.
    pub dir: String,
    /// Every version of the baseline, ascending.
    pub versions: Vec<u32>,
    /// The total size of its files.
    pub bytes: StoredBytes,
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The manifest as stored: pretty JSON and a final newline.
fn manifest_json(m: &BaselineManifest) -> String {
    String::from_utf8_lossy(&m.to_bytes()).into_owned()
}

fn pretty(value: &serde_json::Value) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(value).unwrap_or_default()
    )
}

impl OutputFormat<BaselineCreated> for StandingFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<BaselineCreated>> {
        match self {
            StandingFormat::Json => Box::new(|c: &BaselineCreated| manifest_json(&c.manifest)),
            StandingFormat::Terminal => Box::new(|c: &BaselineCreated| {
                let m = &c.manifest;
                format!(
                    "stored baseline {} version {} in {}: {} file{} in {} case{} ({} bytes read, {} stored)\n",
                    m.name,
                    m.version,
                    c.version_dir,
                    m.files.len(),
                    plural(m.files.len()),
                    m.layout.cases.len(),
                    plural(m.layout.cases.len()),
                    c.bytes.read,
                    c.bytes.stored
                )
            }),
        }
    }
}

impl OutputFormat<BaselineApproved> for StandingFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<BaselineApproved>> {
        match self {
            StandingFormat::Json => Box::new(|a: &BaselineApproved| manifest_json(&a.manifest)),
            StandingFormat::Terminal => Box::new(|a: &BaselineApproved| {
                let m = &a.manifest;
                format!(
                    "approved baseline {} version {} (manifest revision {}, {} approval{})\n",
                    m.name,
                    m.version,
                    m.revision,
                    m.approvals.len(),
                    plural(m.approvals.len())
                )
            }),
        }
    }
}

impl OutputFormat<BaselineVerified> for StandingFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<BaselineVerified>> {
        match self {
            StandingFormat::Json => Box::new(|v: &BaselineVerified| {
                let m = &v.manifest;
                pretty(&serde_json::json!({
                    "schema_version": 1,
                    "baseline": m.name,
                    "version": m.version,
                    "revision": m.revision,
                    "files": m.files.len(),
                    "verified": true,
                }))
            }),
            StandingFormat::Terminal => Box::new(|v: &BaselineVerified| {
                let m = &v.manifest;
                format!(
                    "baseline {} version {}: all {} file{} match the manifest (revision {})\n",
                    m.name,
                    m.version,
                    m.files.len(),
                    plural(m.files.len()),
                    m.revision
                )
            }),
        }
    }
}

impl OutputFormat<BaselineList> for StandingFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<BaselineList>> {
        match self {
            StandingFormat::Json => Box::new(|l: &BaselineList| {
                pretty(&serde_json::json!({ "schema_version": 1, "baselines": l.baselines }))
            }),
            StandingFormat::Terminal => Box::new(list_terminal),
        }
    }
}

/// `list` as a table (or a hint when there are no baselines).
pub fn list_terminal(l: &BaselineList) -> String {
    if l.baselines.is_empty() {
        return format!(
            "no baselines in {} (create one: veer baseline create RUNS_DIR --name main)\n",
            l.root
        );
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<24} {:>8} {:>6} {:>6} {:>9}  created",
        "name", "version", "files", "cases", "approvals"
    );
    for b in &l.baselines {
        match &b.problem {
            Some(p) => {
                let _ = writeln!(t, "{:<24} unreadable: {p}", b.name);
            }
            None => {
                let _ = writeln!(
                    t,
                    "{:<24} {:>8} {:>6} {:>6} {:>9}  {}",
                    b.name,
                    b.versions.last().copied().unwrap_or(0),
                    b.files,
                    b.cases,
                    b.approvals,
                    b.created_at
                );
            }
        }
    }
    t
}

impl OutputFormat<BaselineShown> for StandingFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<BaselineShown>> {
        match self {
            StandingFormat::Json => Box::new(|s: &BaselineShown| manifest_json(&s.manifest)),
            StandingFormat::Terminal => Box::new(show_terminal),
        }
    }
}

/// `show` as a block: provenance, policy, files, approvals, the first cases.
pub fn show_terminal(shown: &BaselineShown) -> String {
    let m = &shown.manifest;
    let mut t = String::new();
    let latest = shown.versions.last().copied().unwrap_or(m.version);
    let _ = writeln!(
        t,
        "baseline {} ({}): version {} of {latest}, manifest revision {}",
        m.name, shown.dir, m.version, m.revision
    );
    let _ = writeln!(t, "created    {} by veer {}", m.created_at, m.veer_version);
    let s = &m.source;
    let _ = writeln!(
        t,
        "source     {}  commit {}  ci run {}",
        s.runs_dir,
        s.commit.as_deref().unwrap_or("unknown"),
        match (&s.ci_run, &s.ci_provider) {
            (Some(r), Some(p)) => format!("{r} ({p})"),
            (Some(r), None) => r.clone(),
            _ => "none".into(),
        }
    );
    match &m.policy {
        Some(p) => {
            let _ = writeln!(t, "policy     {} sha256 {}", p.path, p.sha256);
        }
        None => {
            let _ = writeln!(t, "policy     none");
        }
    }
    let _ = writeln!(
        t,
        "files      {} ({} bytes read, {} stored), {} case{}",
        m.files.len(),
        shown.bytes.read,
        shown.bytes.stored,
        m.layout.cases.len(),
        plural(m.layout.cases.len())
    );
    if m.approvals.is_empty() {
        let _ = writeln!(
            t,
            "approvals  none (approve with: veer baseline approve {} --reason TEXT)",
            m.name
        );
    } else {
        let _ = writeln!(t, "approvals");
        for ap in &m.approvals {
            let _ = writeln!(t, "  {} at {}: {}", ap.by, ap.at, ap.reason);
        }
    }
    let _ = writeln!(t, "cases");
    for c in m.layout.cases.iter().take(SHOWN_CASES) {
        let _ = writeln!(
            t,
            "  {:<40} {} trial{}",
            c.case,
            c.trials.len(),
            plural(c.trials.len())
        );
    }
    if m.layout.cases.len() > SHOWN_CASES {
        let _ = writeln!(
            t,
            "  … and {} more (--format json lists every file)",
            m.layout.cases.len() - SHOWN_CASES
        );
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::baseline::{
        BaselineApproval, BaselineCase, BaselineFile, BaselineLayout, BaselineSource,
    };

    fn manifest(cases: usize) -> BaselineManifest {
        BaselineManifest {
            schema_version: 1,
            kind: "veer-baseline".into(),
            name: "main".into(),
            version: 1,
            revision: 2,
            previous_revision_sha256: None,
            created_at: "2026-11-01T00:00:00.000Z".into(),
            veer_version: "0.1.0".into(),
            source: BaselineSource {
                runs_dir: "runs/main".into(),
                commit: None,
                ci_run: Some("42".into()),
                ci_provider: None,
            },
            policy: None,
            previous_version: None,
            layout: BaselineLayout {
                cases: (0..cases)
                    .map(|i| BaselineCase {
                        case: format!("case{i}"),
                        trials: vec![format!("case{i}/t1.agentlog")],
                    })
                    .collect(),
            },
            files: vec![BaselineFile {
                path: "case0/t1.agentlog".into(),
                sha256: "ab".into(),
                bytes: 10,
                compression: "gzip".into(),
                source_sha256: "cd".into(),
                source_bytes: 30,
            }],
            approvals: vec![BaselineApproval {
                by: "ana".into(),
                at: "2026-11-02T00:00:00.000Z".into(),
                reason: "checked".into(),
            }],
        }
    }

    const PLAIN: Style = Style { colour: false };

    #[test]
    fn show_lists_the_first_cases_and_counts_the_rest() {
        let shown = BaselineShown {
            manifest: manifest(22),
            dir: ".veer/baselines/main".into(),
            versions: vec![1, 2],
            bytes: StoredBytes {
                read: 30,
                stored: 10,
            },
        };
        let t = StandingFormat::Terminal.print(&shown, PLAIN);
        assert!(
            t.starts_with(
                "baseline main (.veer/baselines/main): version 1 of 2, manifest revision 2\n"
            ),
            "{t}"
        );
        assert!(
            t.contains("source     runs/main  commit unknown  ci run 42\n"),
            "{t}"
        );
        assert!(
            t.contains("files      1 (30 bytes read, 10 stored), 22 cases\n"),
            "{t}"
        );
        assert!(
            t.contains("  ana at 2026-11-02T00:00:00.000Z: checked\n"),
            "{t}"
        );
        assert!(
            t.ends_with("  … and 2 more (--format json lists every file)\n"),
            "{t}"
        );
        let j = StandingFormat::Json.print(&shown, PLAIN);
        assert_eq!(j.as_bytes(), shown.manifest.to_bytes().as_slice());
    }

    #[test]
    fn the_one_line_printers() {
        let created = BaselineCreated {
            manifest: manifest(1),
            version_dir: "b/v1".into(),
            bytes: StoredBytes {
                read: 30,
                stored: 10,
            },
        };
        assert_eq!(
            StandingFormat::Terminal.print(&created, PLAIN),
            "stored baseline main version 1 in b/v1: 1 file in 1 case (30 bytes read, 10 stored)\n"
        );
        let approved = BaselineApproved {
            manifest: manifest(1),
        };
        assert_eq!(
            StandingFormat::Terminal.print(&approved, PLAIN),
            "approved baseline main version 1 (manifest revision 2, 1 approval)\n"
        );
        let verified = BaselineVerified {
            manifest: manifest(1),
        };
        assert_eq!(
            StandingFormat::Terminal.print(&verified, PLAIN),
            "baseline main version 1: all 1 file match the manifest (revision 2)\n"
        );
        let j = StandingFormat::Json.print(&verified, PLAIN);
        assert!(j.contains("\"verified\": true"), "{j}");
    }

    #[test]
    fn an_empty_list_says_how_to_create_one() {
        let l = BaselineList {
            root: ".veer/baselines".into(),
            baselines: Vec::new(),
        };
        assert!(StandingFormat::Terminal
            .print(&l, PLAIN)
            .starts_with("no baselines in .veer/baselines"));
        let j = StandingFormat::Json.print(&l, PLAIN);
        assert!(j.contains("\"baselines\": []"), "{j}");
    }
}
