//! Reading a JSON array of objects into a table and writing it back (see the parent module's
//! "Reading and writing"): cells keep their JSON origin so that unchanged values keep their
//! type and numbers stay numbers when their value is kept exactly.

use serde_json::{Map, Number, Value};
use veer_trace::agentlog::reader::json_type;

use super::{Cell, Origin, Table};
use crate::PerturbError;

/// Reads a JSON array of objects into a table (header: union of keys in first-seen order);
/// `None` when there is no key at all (an empty array, or empty objects), which traxr skips.
pub(super) fn read_json(content: &str) -> Result<Option<Table>, PerturbError> {
    let value: Value = serde_json::from_str(content)
        .map_err(|e| PerturbError::BadInput(format!("invalid JSON: {e}")))?;
    let Value::Array(items) = value else {
        return Err(PerturbError::BadInput(format!(
            "JSON input must be an array of objects, found {}",
            json_type(&value)
        )));
    };
    let mut objects = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        match item {
            Value::Object(map) => objects.push(map),
            other => {
                return Err(PerturbError::BadInput(format!(
                    "JSON input must be an array of objects, but the element at index {index} \
                     is {}",
                    json_type(&other)
                )))
            }
        }
    }
    let mut header: Vec<String> = Vec::new();
    for map in &objects {
        for key in map.keys() {
            if !header.contains(key) {
                header.push(key.clone());
            }
        }
    }
    if header.is_empty() {
        // An empty array, or objects without a key: traxr's "not tabular" skip.
        return Ok(None);
    }
    let rows = objects
        .into_iter()
        .map(|mut map| {
            header
                .iter()
                .map(|key| match map.remove(key) {
                    None => Cell::missing(),
                    Some(Value::String(s)) => Cell::text(s),
                    Some(other) => Cell {
                        text: other.to_string(),
                        origin: Origin::Json(other),
                    },
                })
                .collect()
        })
        .collect();
    Ok(Some(Table { header, rows }))
}

/// The header as object keys: a repeated key gets the first free `_2`, `_3`, … suffix.
pub(super) fn unique_keys(header: &[String]) -> Vec<String> {
    let mut keys: Vec<String> = Vec::with_capacity(header.len());
    for name in header {
        let mut key = name.clone();
        let mut n = 2;
        while keys.contains(&key) {
            key = format!("{name}_{n}");
            n += 1;
        }
        keys.push(key);
    }
    keys
}

/// The value a cell is written back as (see the module docs); `None` leaves the key out.
fn cell_value(cell: &Cell) -> Option<Value> {
    match &cell.origin {
        Origin::Missing if cell.text.is_empty() => None,
        Origin::Json(original) => {
            let original_text = original.to_string();
            if cell.text == original_text {
                Some(original.clone())
            } else if original.is_number() {
                Some(
                    lossless_number(&cell.text)
                        .map_or_else(|| Value::String(cell.text.clone()), Value::Number),
                )
            } else {
                Some(Value::String(cell.text.clone()))
            }
        }
        _ => Some(Value::String(cell.text.clone())),
    }
}

pub(super) fn write_json(table: &Table) -> Result<String, PerturbError> {
    let keys = unique_keys(&table.header);
    let objects: Vec<Value> = table
        .rows
        .iter()
        .map(|row| {
            let mut map = Map::new();
            for (key, cell) in keys.iter().zip(row) {
                if let Some(value) = cell_value(cell) {
                    map.insert(key.clone(), value);
                }
            }
            Value::Object(map)
        })
        .collect();
    let mut out = serde_json::to_string_pretty(&Value::Array(objects))
        .map_err(|e| PerturbError::BadInput(format!("cannot write JSON: {e}")))?;
    out.push('\n');
    Ok(out)
}

/// `text` as a JSON number, when it is a JSON number literal and the number serde_json writes
/// for it denotes exactly the same decimal value.
pub(super) fn lossless_number(text: &str) -> Option<Number> {
    if text.is_empty() || text.trim() != text {
        return None;
    }
    let Ok(Value::Number(number)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    let same = decimal_value(text)? == decimal_value(&number.to_string())?;
    same.then_some(number)
}

/// The exact decimal value of a number literal as (negative, significant digits, exponent of
/// the point): `-12.50` is `(true, "125", 2)`, meaning −0.125 × 10². Zero is `(false, "", 0)`.
fn decimal_value(text: &str) -> Option<(bool, String, i64)> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !int_part
        .chars()
        .chain(frac_part.chars())
        .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let digits = format!("{int_part}{frac_part}");
    let leading = digits.len() - digits.trim_start_matches('0').len();
    let significant = digits.trim_matches('0');
    if significant.is_empty() {
        return Some((false, String::new(), 0));
    }
    let point = i64::try_from(int_part.len())
        .ok()?
        .checked_sub(i64::try_from(leading).ok()?)?
        .checked_add(exponent)?;
    Some((negative, significant.to_string(), point))
}
