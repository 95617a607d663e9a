//! Agent configurations for `veer bisect`: read a JSON, YAML, TOML or `.env` file into one
//! tree, and write a tree back in the same format (docs/bisect.md, "Configurations").
//!
//! Every format becomes a `serde_json::Value` whose top level is an object (key order kept);
//! `.env` files are flat objects of strings. TOML dates and times become strings (and are
//! written back as strings).

use crate::error::{Error, ErrorKind};
use serde_json::{Map, Value};

/// The format of a configuration file, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    /// `.json`
    Json,
    /// `.yaml`, `.yml`
    Yaml,
    /// `.toml`
    Toml,
    /// `.env`, `*.env`, `.env.*`
    Env,
}

impl ConfigFormat {
    /// The format named by a file name's ending; `None` for any other name.
    pub fn from_file_name(name: &str) -> Option<ConfigFormat> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".json") {
            Some(ConfigFormat::Json)
        } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            Some(ConfigFormat::Yaml)
        } else if lower.ends_with(".toml") {
            Some(ConfigFormat::Toml)
        } else if lower.ends_with(".env") || lower.starts_with(".env") {
            Some(ConfigFormat::Env)
        } else {
            None
        }
    }

    /// The name (`json`, `yaml`, `toml`, `env`).
    pub fn name(self) -> &'static str {
        match self {
            ConfigFormat::Json => "json",
            ConfigFormat::Yaml => "yaml",
            ConfigFormat::Toml => "toml",
            ConfigFormat::Env => "env",
        }
    }

    /// The file ending the design points' configurations get (`.json`, `.yaml`, `.toml`,
    /// `.env`).
    pub fn extension(self) -> &'static str {
        match self {
            ConfigFormat::Json => ".json",
            ConfigFormat::Yaml => ".yaml",
            ConfigFormat::Toml => ".toml",
            ConfigFormat::Env => ".env",
        }
    }
}

fn bad(file: &str, line: Option<u64>, message: String, hint: &str) -> Error {
    let mut e = Error::new(ErrorKind::Input, message).hint(hint);
    e.file = Some(file.to_string());
    e.line = line;
    e
}

/// Parses `text` (the content of `file`, of `format`) into a tree whose top level is an
/// object. Errors name the file and, where the parser knows it, the line.
pub fn parse(file: &str, format: ConfigFormat, text: &str) -> Result<Value, Error> {
    let value = match format {
        ConfigFormat::Json => serde_json::from_str::<Value>(text).map_err(|e| {
            bad(
                file,
                Some(e.line() as u64),
                format!("{file}:{}: not valid JSON: {e}", e.line()),
                "a bisect configuration is a JSON object, e.g. {\"model\": \"gpt-4o\"}",
            )
        })?,
        ConfigFormat::Yaml => serde_saphyr::from_str::<Value>(text).map_err(|e| {
            bad(
                file,
                None,
                format!("{file}: not valid YAML: {e}"),
                "a bisect configuration is a YAML mapping, e.g. `model: gpt-4o`",
            )
        })?,
        ConfigFormat::Toml => {
            let table = toml::from_str::<toml::Table>(text).map_err(|e| {
                let line = e
                    .span()
                    .map(|s| text.get(..s.start).map_or(0, |t| t.matches('\n').count()) + 1);
                bad(
                    file,
                    line.map(|l| l as u64),
                    format!(
                        "{file}{}: not valid TOML: {}",
                        line.map(|l| format!(":{l}")).unwrap_or_default(),
                        e.message()
                    ),
                    "a bisect configuration is a TOML document, e.g. model = \"gpt-4o\"",
                )
            })?;
            Value::Object(toml_table_to_json(table))
        }
        ConfigFormat::Env => parse_env(file, text)?,
    };
    if !value.is_object() {
        return Err(bad(
            file,
            None,
            format!("{file}: the configuration is not a mapping of keys to values"),
            "the top level must be an object / mapping / table of settings",
        ));
    }
    Ok(value)
}

fn toml_to_json(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(f.to_string())),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.into_iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(toml_table_to_json(t)),
    }
}

fn toml_table_to_json(t: toml::Table) -> Map<String, Value> {
    t.into_iter().map(|(k, v)| (k, toml_to_json(v))).collect()
}

fn json_to_toml(v: &Value) -> Option<toml::Value> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => toml::Value::Boolean(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => toml::Value::String(s.clone()),
        Value::Array(a) => toml::Value::Array(a.iter().filter_map(json_to_toml).collect()),
        Value::Object(m) => toml::Value::Table(
            m.iter()
                .filter_map(|(k, v)| json_to_toml(v).map(|v| (k.clone(), v)))
                .collect(),
        ),
    })
}

/// `.env`: `KEY=VALUE` lines (an `export ` prefix allowed), `#` comments and blank lines;
/// values may be in single quotes (taken literally) or double quotes (`\n`, `\"`, `\\`
/// escapes); unquoted values end at ` #`.
fn parse_env(file: &str, text: &str) -> Result<Value, Error> {
    let mut map = Map::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
        let Some((key, value)) = line.split_once('=') else {
            return Err(bad(
                file,
                Some(line_no),
                format!("{file}:{line_no}: expected KEY=VALUE, got `{line}`"),
                "each non-comment line of a .env file is KEY=VALUE",
            ));
        };
        let key = key.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
        {
            return Err(bad(
                file,
                Some(line_no),
                format!("{file}:{line_no}: `{key}` is not a variable name"),
                "names are letters, digits, `_`, `.` and `-`",
            ));
        }
        let value = value.trim();
        let parsed = if let Some(inner) = value.strip_prefix('\'') {
            inner.strip_suffix('\'').map(str::to_string)
        } else if let Some(inner) = value.strip_prefix('"') {
            inner.strip_suffix('"').map(unescape_double)
        } else {
            Some(
                value
                    .split_once(" #")
                    .map_or(value, |(v, _)| v)
                    .trim_end()
                    .to_string(),
            )
        };
        let Some(parsed) = parsed else {
            return Err(bad(
                file,
                Some(line_no),
                format!("{file}:{line_no}: the value of {key} has no closing quote"),
                "quoted values open and close on the same line (use \\n in double quotes for a newline)",
            ));
        };
        if map.contains_key(key) {
            return Err(bad(
                file,
                Some(line_no),
                format!("{file}:{line_no}: {key} is set twice"),
                "keep one line per variable",
            ));
        }
        map.insert(key.to_string(), Value::String(parsed));
    }
    Ok(Value::Object(map))
}

fn unescape_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn env_value(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `value` written in `format` (ends with a newline). TOML drops nulls (TOML has none);
/// `.env` writes every value double-quoted, nested values as JSON text.
pub fn write(format: ConfigFormat, value: &Value) -> Result<String, Error> {
    let fail = |e: String| {
        Error::new(
            ErrorKind::Internal,
            format!("cannot write a {} configuration: {e}", format.name()),
        )
        .hint("this is unexpected; please report it with the two configurations")
    };
    let mut text = match format {
        ConfigFormat::Json => {
            serde_json::to_string_pretty(value).map_err(|e| fail(e.to_string()))?
        }
        ConfigFormat::Yaml => serde_saphyr::to_string(value).map_err(|e| fail(e.to_string()))?,
        ConfigFormat::Toml => {
            let t = json_to_toml(value).unwrap_or(toml::Value::Table(toml::Table::new()));
            toml::to_string(&t).map_err(|e| fail(e.to_string()))?
        }
        ConfigFormat::Env => {
            let mut out = String::new();
            if let Value::Object(m) = value {
                for (k, v) in m {
                    out.push_str(k);
                    out.push('=');
                    out.push_str(&env_value(v));
                    out.push('\n');
                }
            }
            out
        }
    };
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formats_from_names() {
        assert_eq!(
            ConfigFormat::from_file_name("a.JSON"),
            Some(ConfigFormat::Json)
        );
        assert_eq!(
            ConfigFormat::from_file_name("a.yml"),
            Some(ConfigFormat::Yaml)
        );
        assert_eq!(
            ConfigFormat::from_file_name("a.toml"),
            Some(ConfigFormat::Toml)
        );
        assert_eq!(
            ConfigFormat::from_file_name(".env"),
            Some(ConfigFormat::Env)
        );
        assert_eq!(
            ConfigFormat::from_file_name("prod.env"),
            Some(ConfigFormat::Env)
        );
        assert_eq!(ConfigFormat::from_file_name("a.txt"), None);
    }

    #[test]
    fn every_format_round_trips() {
        let v = json!({"model": "m1", "temperature": 0.5, "tools": ["a", "b"],
                       "agent": {"prompt": "Be brief.\nAlways look up.", "max_turns": 4}});
        for f in [ConfigFormat::Json, ConfigFormat::Yaml, ConfigFormat::Toml] {
            let text = write(f, &v).unwrap();
            assert_eq!(parse("x", f, &text).unwrap(), v, "{f:?}: {text}");
        }
        let env = json!({"MODEL": "m1", "PROMPT": "say \"hi\"\nthen\\go"});
        let text = write(ConfigFormat::Env, &env).unwrap();
        assert_eq!(parse("x", ConfigFormat::Env, &text).unwrap(), env);
    }

    #[test]
    fn env_syntax() {
        let v = parse(
            ".env",
            ConfigFormat::Env,
            "# c\nexport A=1 # note\nB='x # y'\nC=\"a\\nb\"\n\n",
        )
        .unwrap();
        assert_eq!(v, json!({"A": "1", "B": "x # y", "C": "a\nb"}));
        let e = parse(".env", ConfigFormat::Env, "A=1\nnonsense\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains(".env:2"), "{}", e.message);
        let e = parse(".env", ConfigFormat::Env, "A=1\nA=2\n").unwrap_err();
        assert!(e.message.contains("set twice"));
        assert!(parse(".env", ConfigFormat::Env, "A=\"open\n").is_err());
    }

    #[test]
    fn bad_inputs_name_file_and_line() {
        let e = parse("a.json", ConfigFormat::Json, "{\n\"a\": }").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.starts_with("a.json:2"));
        let e = parse("a.toml", ConfigFormat::Toml, "a = 1\nb = \n").unwrap_err();
        assert_eq!(e.line, Some(2), "{}", e.message);
        assert!(parse("a.yaml", ConfigFormat::Yaml, "a: [1, 2\n").is_err());
        let e = parse("a.json", ConfigFormat::Json, "[1, 2]").unwrap_err();
        assert!(e.message.contains("not a mapping"));
        assert!(e.hint.is_some());
    }

    #[test]
    fn toml_dates_become_strings() {
        let v = parse("a.toml", ConfigFormat::Toml, "when = 2024-01-02\n").unwrap();
        assert_eq!(v, json!({"when": "2024-01-02"}));
    }
}
