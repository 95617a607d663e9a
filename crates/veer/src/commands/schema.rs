//! `veer schema`: the JSON Schema of every `--format json` document, generated from the Rust
//! types that write it (schemars), so a field added to a report is in its schema after one
//! regeneration. The committed copies in `docs/json-schema/` are checked against these by a
//! test; regenerate them with `cargo run -p veer-cli -- schema --all-to docs/json-schema`.

use crate::cli::SchemaArgs;
use crate::error::{CliError, Exit};
use crate::output::{emit_data, write_file};
use schemars::generate::{Contract, SchemaSettings};
use schemars::JsonSchema;
use serde_json::Value;

/// One published document: its name (`veer schema NAME`), what writes it, and its schema.
pub struct Document {
    /// The name, also the file stem under `docs/json-schema/`.
    pub name: &'static str,
    /// The command whose `--format json` output it describes.
    pub written_by: &'static str,
    /// The `schema_version` it is written with (a `const` in the schema).
    pub version: &'static str,
    /// Builds the schema.
    schema: fn() -> Value,
}

/// The `schema_version` of `veer experiment pair` and `analyze` documents (veer-experiment
/// writes the literal).
const EXPERIMENT_SCHEMA_VERSION: &str = "1";

/// Every document veer writes as JSON, in `veer schema --list` order.
pub const DOCUMENTS: &[Document] = &[
    Document {
        name: "diff",
        version: veer_contract::diff::DIFF_SCHEMA_VERSION,
        written_by: "veer diff BASELINE CANDIDATE (two trace files)",
        schema: generate::<veer_contract::diff::DiffReport>,
    },
    Document {
        name: "diff-directory",
        version: veer_contract::diff::DIFF_SCHEMA_VERSION,
        written_by: "veer diff BASELINE_DIR CANDIDATE_DIR (two directories)",
        schema: generate::<veer_contract::diff::DirectoryDiffDocument>,
    },
    Document {
        name: "check",
        version: veer_contract::check::CHECK_SCHEMA_VERSION,
        written_by: "veer check",
        schema: generate::<veer_contract::check::CheckDocument>,
    },
    Document {
        name: "gate",
        version: veer_contract::gate::GATE_SCHEMA_VERSION,
        written_by: "veer gate",
        schema: generate::<veer_contract::gate::GateReport>,
    },
    Document {
        name: "inspect",
        version: veer_contract::inspect::INSPECT_SCHEMA_VERSION,
        written_by: "veer inspect",
        schema: generate::<veer_contract::inspect::InspectDocument>,
    },
    Document {
        name: "scan",
        version: veer_report::SCHEMA_VERSION,
        written_by: "veer scan",
        schema: generate::<veer_contract::scan::ScanReport>,
    },
    Document {
        name: "replay",
        version: veer_report::SCHEMA_VERSION,
        written_by: "veer replay (the summary)",
        schema: generate::<veer_contract::replay::ReplayReport>,
    },
    Document {
        name: "perturb",
        version: veer_contract::perturb::PERTURB_SCHEMA_VERSION,
        written_by: "veer experiment perturb (the summary on stdout)",
        schema: generate::<veer_contract::perturb::Summary>,
    },
    Document {
        name: "experiment-pair",
        version: EXPERIMENT_SCHEMA_VERSION,
        written_by: "veer experiment pair",
        schema: generate::<veer_contract::experiment::PairReport>,
    },
    Document {
        name: "experiment-analyze",
        version: EXPERIMENT_SCHEMA_VERSION,
        written_by: "veer experiment analyze (and veer experiment run's printed analysis)",
        schema: generate::<veer_contract::experiment::ExperimentReport>,
    },
    Document {
        name: "experiment-results",
        version: EXPERIMENT_SCHEMA_VERSION,
        written_by: "veer experiment run (DIR/results.json, traxr's results layout)",
        schema: generate::<veer_contract::experiment::ExperimentReport>,
    },
    Document {
        name: "bisect",
        version: veer_contract::bisect::BISECT_SCHEMA_VERSION,
        written_by: "veer bisect (DIR/bisect.json and --format json)",
        schema: generate::<veer_contract::bisect::BisectReport>,
    },
    Document {
        name: "mine",
        version: veer_contract::mine::MINE_SCHEMA_VERSION,
        written_by: "veer mine (SUITE/suite.json and --format json)",
        schema: generate::<veer_contract::mine::MineReport>,
    },
    Document {
        name: "policy-suggest",
        version: veer_contract::suggestion::SUGGEST_SCHEMA_VERSION,
        written_by: "veer policy suggest --format json",
        schema: generate::<veer_contract::suggestion::SuggestReport>,
    },
    Document {
        name: "eval",
        version: veer_contract::eval::EVAL_SCHEMA_VERSION,
        written_by: "veer eval --format json (the summary of the runs)",
        schema: generate::<veer_contract::eval::EvalReport>,
    },
    Document {
        name: "config",
        version: veer_contract::config::CONFIG_SCHEMA_VERSION,
        written_by: "veer config show --format json",
        schema: generate::<veer_contract::config::ConfigDocument>,
    },
];

/// The schema of `T` as written (serialisation contract), draft 2020-12, with every object of
/// fixed properties closed (`additionalProperties: false`): a key a report does not declare
/// fails validation, so the schema cannot silently lag behind the type.
fn generate<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.contract = Contract::Serialize;
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    close_objects(&mut schema);
    // `$schema` and `title` first, as a reader expects them.
    let Value::Object(mut map) = schema else {
        return schema;
    };
    let mut out = serde_json::Map::new();
    for key in ["$schema", "title"] {
        if let Some(v) = map.shift_remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.extend(map);
    Value::Object(out)
}

/// Adds `additionalProperties: false` to every object type (`"type": "object"`) that lists
/// `properties` and says nothing about other keys (conditions such as `if`/`then` are left
/// open: they constrain some keys of an object described elsewhere).
fn close_objects(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("type") == Some(&Value::String("object".into()))
                && map.contains_key("properties")
                && !map.contains_key("additionalProperties")
            {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            for v in map.values_mut() {
                close_objects(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// The document named `name`.
pub fn find(name: &str) -> Option<&'static Document> {
    DOCUMENTS.iter().find(|d| d.name == name)
}

/// The schema of `doc`, its `schema_version` pinned to the version the document is written
/// with.
pub fn schema(doc: &Document) -> Value {
    let mut schema = (doc.schema)();
    if let Some(Value::Object(version)) = schema.pointer_mut("/properties/schema_version") {
        version.insert("const".into(), Value::String(doc.version.into()));
    }
    schema
}

/// The schema of `doc` as pretty JSON with a trailing newline (the committed file's bytes).
pub fn render(doc: &Document) -> String {
    veer_report::json::to_json(&schema(doc))
}

/// Runs `veer schema`.
pub fn run(args: &SchemaArgs) -> Result<Exit, CliError> {
    if let Some(dir) = &args.all_to {
        for doc in DOCUMENTS {
            let path = dir.join(format!("{}.schema.json", doc.name));
            write_file(&path, render(doc).as_bytes())?;
        }
        return Ok(Exit::done());
    }
    if args.list {
        let mut out = String::new();
        for doc in DOCUMENTS {
            out.push_str(&format!("{:<20} {}\n", doc.name, doc.written_by));
        }
        emit_data(out.as_bytes(), None)?;
        return Ok(Exit::done());
    }
    let Some(name) = args.name.as_deref() else {
        return Err(
            CliError::input("veer schema needs a document name, --list or --all-to DIR")
                .hint("`veer schema --list` names every document"),
        );
    };
    let Some(doc) = find(name) else {
        let names: Vec<&str> = DOCUMENTS.iter().map(|d| d.name).collect();
        return Err(
            CliError::input(format!("no JSON document is named {name:?}"))
                .hint(format!("one of: {}", names.join(", "))),
        );
    };
    emit_data(render(doc).as_bytes(), args.out.output.as_deref())?;
    Ok(Exit::done())
}
