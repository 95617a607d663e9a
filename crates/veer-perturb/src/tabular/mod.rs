//! Tabular operators (spec `experiment.md` §13.2).
//!
//! Agents are often handed spreadsheets exported by some upstream system, and those exports are
//! rarely clean: columns arrive in another order, headers are abbreviated, numbers carry
//! approximation marks, rows are duplicated, junk columns appear, units change. The operators
//! here reproduce those faults on a `.csv` / `.tsv` file or a JSON array of objects, so a run on
//! the perturbed copy can be compared with a run on the clean one.
//!
//! # Reading and writing
//!
//! *Delimited text.* The delimiter is a tab when the first five lines (of the raw content, split
//! at `\n`) hold more tabs than commas, else a comma. Physical lines starting with `===` once
//! stripped (sheet markers of converted workbooks) are dropped before the rows are read — also
//! inside a quoted field, as a line filter in front of Python's `csv` reader would. Rows are
//! read like Python's `csv` reader (excel dialect): double-quote quoting, `""` inside quotes is
//! a quote, quoted fields may hold the delimiter and line breaks, text after a closing quote is
//! kept literally. A row ends at `\n`, or at a `\r` outside quotes followed only by `\r`s and the line's `\n`.
//! Where Python's reader raises `csv.Error` — more text after such a `\r` on its line, a field
//! over 131,072 characters — traxr catches it and reads no rows, so every operator but
//! `null_content` is skipped as a table without a data row. A quoted field still open at the end
//! of the content is an error naming the line the quote opened on (Python's non-strict reader
//! would keep it). Rows whose cells are all empty or whitespace are dropped; the first remaining
//! row is the header. Rows may be ragged and keep their own length. Output is written like
//! Python's `csv` writer with `\n` line endings and the detected delimiter: a field is quoted
//! when it holds the delimiter, `"`, `\r` or `\n` (quotes doubled), and a row made of a single
//! empty field is written as `""`.
//!
//! *JSON.* The content must be an array of objects; the header is the union of their keys in
//! first-seen order. An array without a key (`[]`, `[{}]`) is skipped as traxr skips it
//! (`JSON is not tabular (not an array of objects)`). Each value becomes a cell: strings as
//! they are, other values as their compact JSON text (`12`, `2.5`, `true`, `null`, `[1,2]`),
//! missing keys as empty cells. Rows are not filtered for blanks (each object is a record).
//! The result is written back as an array of objects keyed by the (possibly perturbed) header,
//! pretty-printed with two-space indentation and a final newline, keys in header order:
//! - a cell whose text is unchanged is written as its original value (type kept);
//! - a cell that was a number and whose new text is a JSON number literal denoting exactly the
//!   same decimal value as the number serde_json writes for it is written as a number (`16.40`
//!   becomes `16.4`; `~3.0`, `3.0*` and out-of-range values stay strings);
//! - a cell that was a missing key and is still empty is left out of its object;
//! - every other cell is written as a string (new cells, such as noise columns, included).
//!
//! When two header cells end up with the same key, the later one gets the first free suffix
//! `_2`, `_3`, … so no value is lost. Numbers are read without their source spelling (`1.50`
//! is read as `1.5`).
//!
//! # Where the spec is silent
//!
//! - `column_swap` leaves a row that lacks either drawn column as it is.
//! - The 3-character abbreviation of `label_corrupt` is taken from the header cell as written.
//! - `irrelevant_columns` puts the noise values right after the header's width in every row,
//!   padding short rows with empty cells, so they sit under their names.
//!
//! # traxr's decisions
//!
//! The only skip is a table without a data row. `column_swap` on one column and `unit_change`
//! without a numeric column draw nothing and write the table back as it was read (traxr's
//! "No swap" / "No numeric columns found", still applied). `unit_change` counts a cell as
//! non-empty when it is not the empty string (a cell of spaces counts and is not a number).
//! Numbers are read by Python's `float()` (`veer_base::pytext::py_float`), Unicode
//! decimal digits included. `tests/fixtures/perturb/traxr/parity.json` holds traxr's outputs on
//! these edges.
//!
//! # Draws
//!
//! Each operator makes the draws its spec names, on the [`PerturbRng`] it is given, in the order
//! given there; the output is a pure function of (content, operator, seed).

mod delimited;
#[cfg(test)]
mod io_tests;
mod json;
#[cfg(test)]
mod tests;

use serde_json::Value;
use veer_base::pyjson::py_float_repr;
use veer_base::pytext::py_float;

use delimited::{detect_delimiter, read_delimited, write_table, ReadError};
use json::{read_json, write_json};

use crate::{Operator, PerturbError, PerturbOutcome, PerturbRng};
use veer_base::pytext::py_strip;

/// Why an operator is skipped when the content has no data row.
pub(crate) const INSUFFICIENT_DATA: &str = "Insufficient data (need header + at least 1 row)";

/// Why an operator is skipped on a JSON array that is empty or whose objects have no key.
pub(crate) const JSON_NOT_TABULAR: &str = "JSON is not tabular (not an array of objects)";

/// Header corruptions, traxr's `TabularPerturbator.LABEL_CORRUPTIONS`: the first key found in
/// a lowercased, stripped header picks the alternatives one is drawn from. Order matters
/// (`total_amount` is an `amount`).
const LABEL_CORRUPTIONS: [(&str, &[&str]); 15] = [
    ("name", &["nm", "title", "label"]),
    ("date", &["dt", "time", "when"]),
    ("amount", &["amt", "value", "sum"]),
    ("price", &["cost", "rate", "fee"]),
    ("total", &["tot", "sum", "aggregate"]),
    ("quantity", &["qty", "count", "num"]),
    ("description", &["desc", "details", "info"]),
    ("category", &["cat", "type", "class"]),
    ("status", &["state", "condition"]),
    ("email", &["mail", "e-mail", "address"]),
    ("phone", &["tel", "number", "contact"]),
    ("address", &["addr", "location", "place"]),
    ("id", &["identifier", "key", "code"]),
    ("revenue", &["rev", "income", "sales"]),
    ("cost", &["expense", "spend", "outlay"]),
];

/// The noise columns `irrelevant_columns` draws from.
const NOISE_COLUMNS: [&str; 4] = ["_noise_id", "_flag", "_legacy", "_temp"];

/// The values of the `_flag` noise column.
const FLAG_VALUES: [&str; 4] = ["X", "", "Y", "N"];

/// The factors of `unit_change` and what each stands for.
const UNIT_FACTORS: [(f64, &str); 6] = [
    (3.28084, "meters to feet"),
    (0.621371, "km to miles"),
    (2.20462, "kg to lb"),
    (0.264172, "litres to gallons"),
    (0.393701, "cm to inches"),
    (1.8, "Celsius delta scaling"),
];

/// Applies a tabular `operator` to `content` (`json`: an array of objects, else delimited text).
///
/// Returns [`PerturbOutcome::Skipped`] when the content has no data row (traxr's only tabular skip:
/// an operator with nothing to work on still applies and may give the table back unchanged),
/// and [`PerturbError::BadInput`] when the content cannot be read as its kind (or
/// `operator` is not a tabular one). `null_content` returns the empty string without reading
/// the content.
pub fn apply(
    content: &str,
    json: bool,
    operator: Operator,
    rng: &mut PerturbRng,
) -> Result<PerturbOutcome, PerturbError> {
    if operator == Operator::NullContent {
        return Ok(PerturbOutcome::Applied(String::new()));
    }
    if !Operator::TABULAR.contains(&operator) {
        return Err(PerturbError::BadInput(format!(
            "`{}` is not a tabular operator",
            operator.name()
        )));
    }
    let (mut table, format) = if json {
        match read_json(content)? {
            Some(table) => (table, Format::Json),
            None => return Ok(PerturbOutcome::Skipped(JSON_NOT_TABULAR.into())),
        }
    } else {
        let delimiter = detect_delimiter(content);
        match read_delimited(content, delimiter) {
            Ok(table) => (table, Format::Delimited(delimiter)),
            // traxr catches the reader's error and has no rows, so no data row.
            Err(ReadError::PythonCsv) => {
                return Ok(PerturbOutcome::Skipped(INSUFFICIENT_DATA.into()))
            }
            Err(ReadError::Bad(e)) => return Err(e),
        }
    };
    if table.rows.is_empty() {
        return Ok(PerturbOutcome::Skipped(INSUFFICIENT_DATA.into()));
    }
    match operator {
        Operator::ColumnSwap => column_swap(&mut table, rng),
        Operator::LabelCorrupt => label_corrupt(&mut table, rng),
        Operator::DataTypeCorrupt => data_type_corrupt(&mut table, rng),
        Operator::RowDuplicate => row_duplicate(&mut table, rng),
        Operator::IrrelevantColumns => irrelevant_columns(&mut table, rng),
        Operator::UnitChange => unit_change(&mut table, rng),
        other => {
            return Err(PerturbError::BadInput(format!(
                "`{}` is not a tabular operator",
                other.name()
            )))
        }
    }
    match format {
        Format::Delimited(delimiter) => Ok(PerturbOutcome::Applied(write_table(&table, delimiter))),
        Format::Json => write_json(&table).map(PerturbOutcome::Applied),
    }
}

// ---------------------------------------------------------------------------------------------
// The table

/// How the content was read, so it can be written back the same way.
#[derive(Debug, Clone, Copy)]
enum Format {
    Delimited(char),
    Json,
}

/// A header and its data rows (ragged rows allowed).
#[derive(Debug, Clone)]
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

/// One data cell: its text, which the operators rewrite, and where it came from, which the JSON
/// writer needs.
#[derive(Debug, Clone, PartialEq)]
struct Cell {
    text: String,
    origin: Origin,
}

#[derive(Debug, Clone, PartialEq)]
enum Origin {
    /// Delimited text, a JSON string, or a cell an operator made up.
    Text,
    /// A key the JSON object did not have (or padding of a short row).
    Missing,
    /// A JSON value other than a string; the cell text is its compact JSON.
    Json(Value),
}

impl Cell {
    fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            origin: Origin::Text,
        }
    }

    fn missing() -> Cell {
        Cell {
            text: String::new(),
            origin: Origin::Missing,
        }
    }
}

impl AsRef<str> for Cell {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

// ---------------------------------------------------------------------------------------------
// Python number semantics

/// Python's `repr(float)`: `nan`, `inf`, `-inf`, else shortest round-trip digits.
fn py_repr(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        py_float_repr(v)
    }
}

/// Python's `f"{v:.{precision}f}"` (correctly rounded, like Rust's fixed formatting).
fn py_fixed(v: f64, precision: usize) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else {
        format!("{v:.precision$}")
    }
}

/// A drawn index `randint(0, len − 1)` as a position.
fn draw_index(rng: &mut PerturbRng, len: usize) -> usize {
    let hi = i64::try_from(len.saturating_sub(1)).unwrap_or(i64::MAX);
    usize::try_from(rng.randint(0, hi)).unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// The operators

/// Swaps two drawn columns in the header and every row. `c2` is redrawn up to 10 times while it
/// equals `c1`; if it still does, nothing changes. A row lacking either column is left as is.
/// A table of one column is left as it is, without a draw (traxr still counts it as applied).
fn column_swap(table: &mut Table, rng: &mut PerturbRng) {
    let k = table.header.len();
    if k < 2 {
        return;
    }
    let c1 = draw_index(rng, k);
    let mut c2 = draw_index(rng, k);
    for _ in 0..10 {
        if c2 != c1 {
            break;
        }
        c2 = draw_index(rng, k);
    }
    let last = c1.max(c2);
    table.header.swap(c1, c2);
    for row in &mut table.rows {
        if last < row.len() {
            row.swap(c1, c2);
        }
    }
}

/// Replaces each header cell by an alternative of the first [`LABEL_CORRUPTIONS`] key it
/// contains, or (no key, longer than 3 characters) by its first 3 characters uppercased.
fn label_corrupt(table: &mut Table, rng: &mut PerturbRng) {
    for name in &mut table.header {
        let lowered = py_strip(name).to_lowercase();
        if let Some((_, alternatives)) = LABEL_CORRUPTIONS
            .iter()
            .find(|(key, _)| lowered.contains(key))
        {
            *name = (*rng.choice(alternatives)).to_string();
        } else if name.chars().count() > 3 {
            *name = name.chars().take(3).collect::<String>().to_uppercase();
        }
    }
}

/// Marks every numeric data cell as approximate: `~{repr}` or `{value:.1f}*`, one draw each.
fn data_type_corrupt(table: &mut Table, rng: &mut PerturbRng) {
    for cell in table.rows.iter_mut().flatten() {
        if let Some(v) = py_float(&cell.text) {
            cell.text = if rng.random() < 0.5 {
                format!("~{}", py_repr(v))
            } else {
                format!("{}*", py_fixed(v, 1))
            };
        }
    }
}

/// After each data row, with probability 0.3, inserts a copy whose last cell (if non-empty)
/// gets a `*`.
fn row_duplicate(table: &mut Table, rng: &mut PerturbRng) {
    let original = std::mem::take(&mut table.rows);
    let mut rows = Vec::with_capacity(original.len() + original.len() / 2);
    for row in original {
        let duplicate = rng.random() < 0.3;
        let copy = duplicate.then(|| {
            let mut copy = row.clone();
            if let Some(last) = copy.last_mut().filter(|cell| !cell.text.is_empty()) {
                last.text.push('*');
            }
            copy
        });
        rows.push(row);
        rows.extend(copy);
    }
    table.rows = rows;
}

/// Appends one or two noise columns. Their values go right after the header's width in every
/// row (short rows padded with empty cells first), so they line up under their names.
fn irrelevant_columns(table: &mut Table, rng: &mut PerturbRng) {
    let k = if rng.randint(1, 2) == 2 { 2 } else { 1 };
    let chosen = rng.sample(NOISE_COLUMNS.len(), k);
    let width = table.header.len();
    table
        .header
        .extend(chosen.iter().map(|&c| NOISE_COLUMNS[c].to_string()));
    for row in &mut table.rows {
        let values: Vec<Cell> = chosen
            .iter()
            .map(|&c| Cell::text(noise_value(NOISE_COLUMNS[c], rng)))
            .collect();
        if row.len() < width {
            row.resize(width, Cell::missing());
        }
        row.splice(width..width, values);
    }
}

/// One value of a noise column (draws only for `_noise_id` and `_flag`).
fn noise_value(column: &str, rng: &mut PerturbRng) -> String {
    match column {
        "_noise_id" => rng.randint(1000, 9999).to_string(),
        "_flag" => (*rng.choice(&FLAG_VALUES)).to_string(),
        "_temp" => "???".to_string(),
        _ => String::new(),
    }
}

/// Whether more than half of a column's non-empty data cells parse as floats. As in traxr, a
/// cell of whitespace only is non-empty (and not a number).
fn is_numeric_column(rows: &[Vec<Cell>], column: usize) -> bool {
    let (mut filled, mut numeric) = (0usize, 0usize);
    for cell in rows.iter().filter_map(|row| row.get(column)) {
        if !cell.text.is_empty() {
            filled += 1;
            if py_float(&cell.text).is_some() {
                numeric += 1;
            }
        }
    }
    filled > 0 && numeric * 2 > filled
}

/// Scales every numeric cell of one drawn numeric column by a drawn unit factor, written with
/// two decimals. Without a numeric column the table is left as it is, without a draw (traxr
/// still counts it as applied).
fn unit_change(table: &mut Table, rng: &mut PerturbRng) {
    let numeric: Vec<usize> = (0..table.header.len())
        .filter(|&column| is_numeric_column(&table.rows, column))
        .collect();
    if numeric.is_empty() {
        return;
    }
    let column = *rng.choice(&numeric);
    let (factor, _) = *rng.choice(&UNIT_FACTORS);
    for cell in table.rows.iter_mut().filter_map(|row| row.get_mut(column)) {
        if let Some(v) = py_float(&cell.text) {
            cell.text = py_fixed(v * factor, 2);
        }
    }
}
