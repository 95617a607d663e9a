//! veer-trace's public surface kept to what other crates use
//! (docs/architecture.md, "Public surfaces"): the modules reachable from its `lib.rs` through
//! `pub mod` are exactly the listed ones — a format's internals (`formats/otel/wire.rs`, the
//! span assembly, the per-format readers) and the readers' helpers stay `pub(crate)` — and the
//! public items declared in them stay under a ceiling.
//!
//! Read from the source text (no rustdoc): a module is public when it is declared `pub mod NAME;`
//! (not `pub(crate)`, not under `#[cfg(test)]`) in a public module; a public item is a line
//! declaring `pub fn|struct|enum|trait|type|const|static|mod` (methods included, fields not) or
//! one name of a `pub use`, in a public module, before its `#[cfg(test)] mod tests`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The public modules of veer-trace, by path from the crate root (`""` is the root).
const PUBLIC_MODULES: [&str; 20] = [
    "",
    "agentlog",
    "agentlog::lines",
    "agentlog::reader",
    "agentlog::writer",
    "canonical",
    "features",
    "formats",
    "formats::inspect",
    "formats::otel",
    "fuzzing",
    "json",
    "limits",
    "load",
    "model",
    "options",
    "strict_json",
    "timefmt",
    "traxr",
    "views",
];

/// Most public items veer-trace may declare: 200 after the cut, 424 before it. Raise it only
/// for an item another crate calls.
const MAX_PUBLIC_ITEMS: usize = 250;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../veer-trace/src")
}

/// The lines of a module's file before its inline `#[cfg(test)] mod … {`.
fn live_lines(file: &Path) -> Vec<String> {
    let text = fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let end = lines
        .windows(2)
        .position(|w| {
            w[0].trim() == "#[cfg(test)]"
                && w[1].trim_start().starts_with("mod ")
                && w[1].trim_end().ends_with('{')
        })
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// The public modules below `file` (module path `path`), with their files.
fn walk(file: &Path, path: &str, out: &mut Vec<(String, PathBuf)>) {
    out.push((path.to_string(), file.to_path_buf()));
    let name = file.file_name().and_then(|n| n.to_str()).unwrap();
    let dir = match name {
        "lib.rs" | "mod.rs" => file.parent().unwrap().to_path_buf(),
        other => file.parent().unwrap().join(other.trim_end_matches(".rs")),
    };
    let lines = live_lines(file);
    for (i, line) in lines.iter().enumerate() {
        let Some(child) = line
            .strip_prefix("pub mod ")
            .and_then(|rest| rest.strip_suffix(';'))
        else {
            continue;
        };
        if i > 0 && lines[i - 1].trim() == "#[cfg(test)]" {
            continue;
        }
        let flat = dir.join(format!("{child}.rs"));
        let nested = dir.join(child).join("mod.rs");
        let child_file = if flat.exists() { flat } else { nested };
        assert!(child_file.exists(), "module {child} of {}", file.display());
        let child_path = if path.is_empty() {
            child.to_string()
        } else {
            format!("{path}::{child}")
        };
        walk(&child_file, &child_path, out);
    }
}

/// Public items declared in one module's live lines.
fn public_items(file: &Path) -> usize {
    const KINDS: [&str; 8] = [
        "fn ", "struct ", "enum ", "trait ", "type ", "const ", "static ", "mod ",
    ];
    let lines = live_lines(file);
    let mut n = 0;
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if let Some(rest) = t.strip_prefix("pub use ") {
            // One item a name: gather the statement up to its `;`.
            let mut stmt = rest.to_string();
            while !stmt.contains(';') && i + 1 < lines.len() {
                i += 1;
                stmt.push_str(lines[i].trim());
            }
            n += stmt.split(',').filter(|s| !s.trim().is_empty()).count();
        } else if let Some(rest) = t.strip_prefix("pub ") {
            let rest = rest
                .trim_start_matches("unsafe ")
                .trim_start_matches("async ");
            if KINDS.iter().any(|k| rest.starts_with(k)) {
                n += 1;
            }
        }
        i += 1;
    }
    n
}

#[test]
fn veer_trace_exposes_only_the_listed_modules() {
    let mut modules = Vec::new();
    walk(&src().join("lib.rs"), "", &mut modules);
    let found: BTreeSet<&str> = modules.iter().map(|(p, _)| p.as_str()).collect();
    let want: BTreeSet<&str> = PUBLIC_MODULES.into_iter().collect();
    let extra: Vec<_> = found.difference(&want).collect();
    let missing: Vec<_> = want.difference(&found).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "veer-trace's public modules changed: new {extra:?}, gone {missing:?}. A module no other \
         crate names is `pub(crate)`; list a new public one here only when another crate uses it"
    );
}

#[test]
fn veer_trace_public_items_stay_under_the_ceiling() {
    let mut modules = Vec::new();
    walk(&src().join("lib.rs"), "", &mut modules);
    let total: usize = modules.iter().map(|(_, f)| public_items(f)).sum();
    assert!(
        total <= MAX_PUBLIC_ITEMS,
        "veer-trace declares {total} public items (at most {MAX_PUBLIC_ITEMS}): make what no \
         other crate names `pub(crate)`"
    );
    // The walk and the count see the crate at all.
    assert!(total > 50, "{total}");
}

#[test]
fn the_count_reads_items_and_re_exports() {
    let dir = std::env::temp_dir().join(format!("veer-surface-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("m.rs");
    fs::write(
        &file,
        "pub fn a() {}\npub(crate) fn b() {}\npub struct C;\n    pub fn method(&self) {}\n\
         pub use x::{D, E,\n    F};\nfn private() {}\n#[cfg(test)]\nmod tests {\n    pub fn t() {}\n}\n",
    )
    .unwrap();
    assert_eq!(public_items(&file), 6);
    fs::remove_dir_all(&dir).unwrap();
}
