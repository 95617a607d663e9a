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
//! Numbers are read by Python's `float()` (`veer_diff::fingerprint::pytext::py_float`), Unicode
//! decimal digits included. `tests/fixtures/perturb/traxr/parity.json` holds traxr's outputs on
//! these edges.
//!
//! # Draws
//!
//! Each operator makes the draws its spec names, on the [`PerturbRng`] it is given, in the order
//! given there; the output is a pure function of (content, operator, seed).

use serde_json::{Map, Number, Value};
use veer_diff::fingerprint::pytext::py_float;
use veer_trace::agentlog::reader::json_type;
use veer_trace::pyjson::py_float_repr;

use crate::pystr::py_strip;
use crate::{Operator, Outcome, PerturbError, PerturbRng};

/// Why an operator is skipped when the content has no data row.
pub(crate) const INSUFFICIENT_DATA: &str = "Insufficient data (need header + at least 1 row)";

/// Why an operator is skipped on a JSON array that is empty or whose objects have no key.
pub(crate) const JSON_NOT_TABULAR: &str = "JSON is not tabular (not an array of objects)";

/// Python's `csv.field_size_limit()` default: a longer field makes the reader raise.
const FIELD_SIZE_LIMIT: usize = 131_072;

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
/// Returns [`Outcome::Skipped`] when the content has no data row (traxr's only tabular skip:
/// an operator with nothing to work on still applies and may give the table back unchanged),
/// and [`PerturbError::BadInput`] when the content cannot be read as its kind (or
/// `operator` is not a tabular one). `null_content` returns the empty string without reading
/// the content.
pub fn apply(
    content: &str,
    json: bool,
    operator: Operator,
    rng: &mut PerturbRng,
) -> Result<Outcome, PerturbError> {
    if operator == Operator::NullContent {
        return Ok(Outcome::Applied(String::new()));
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
            None => return Ok(Outcome::Skipped(JSON_NOT_TABULAR.into())),
        }
    } else {
        let delimiter = detect_delimiter(content);
        match read_delimited(content, delimiter) {
            Ok(table) => (table, Format::Delimited(delimiter)),
            // traxr catches the reader's error and has no rows, so no data row.
            Err(ReadError::PythonCsv) => return Ok(Outcome::Skipped(INSUFFICIENT_DATA.into())),
            Err(ReadError::Bad(e)) => return Err(e),
        }
    };
    if table.rows.is_empty() {
        return Ok(Outcome::Skipped(INSUFFICIENT_DATA.into()));
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
        Format::Delimited(delimiter) => Ok(Outcome::Applied(write_table(&table, delimiter))),
        Format::Json => write_json(&table).map(Outcome::Applied),
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
// Delimited text

/// `\t` when the first five lines hold more tabs than commas, else `,`.
fn detect_delimiter(content: &str) -> char {
    let (mut tabs, mut commas) = (0usize, 0usize);
    for c in content.split('\n').take(5).flat_map(str::chars) {
        match c {
            '\t' => tabs += 1,
            ',' => commas += 1,
            _ => {}
        }
    }
    if tabs > commas {
        '\t'
    } else {
        ','
    }
}

/// Why delimited content could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ReadError {
    /// Content Python's `csv` reader raises on (`csv.Error`): a `\r` outside quotes followed
    /// by more text on its line, or a field over [`FIELD_SIZE_LIMIT`] characters. traxr catches
    /// it and reads no rows.
    PythonCsv,
    /// Content veer refuses (an unterminated quote).
    Bad(PerturbError),
}

/// Reads delimited content into a table: marker lines dropped, blank rows dropped, first row
/// the header.
fn read_delimited(content: &str, delimiter: char) -> Result<Table, ReadError> {
    let mut rows = parse_delimited(content, delimiter)?
        .into_iter()
        .filter(|row| !row.iter().all(|cell| py_strip(cell).is_empty()));
    let header = rows.next().unwrap_or_default();
    let rows = rows
        .map(|row| row.into_iter().map(Cell::text).collect())
        .collect();
    Ok(Table { header, rows })
}

/// Where the reader is inside a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of a row.
    StartRecord,
    /// At the start of a field (after a delimiter).
    StartField,
    /// Inside an unquoted field.
    InField,
    /// Inside a quoted field.
    InQuoted,
    /// Just after a quote inside a quoted field: a closing quote or the first of `""`.
    QuoteInQuoted,
    /// Just after a `\r` that ended a row: a `\n` here belongs to it.
    AfterCr,
}

/// A Python-`csv`-style reader fed one character at a time.
struct CsvReader {
    delimiter: char,
    state: State,
    field: String,
    row: Vec<String>,
    rows: Vec<Vec<String>>,
    /// The current physical line (1-based) and the one the open quote started on.
    line: usize,
    quote_line: usize,
    /// Characters in `field` (Python's field-size limit counts them).
    field_len: usize,
    /// Set once Python's reader would have raised `csv.Error`.
    python_error: bool,
}

impl CsvReader {
    fn new(delimiter: char) -> CsvReader {
        CsvReader {
            delimiter,
            state: State::StartRecord,
            field: String::new(),
            row: Vec::new(),
            rows: Vec::new(),
            line: 1,
            quote_line: 1,
            field_len: 0,
            python_error: false,
        }
    }

    /// Adds `c` to the field; past Python's field-size limit the reader has failed.
    fn push(&mut self, c: char) {
        self.field_len += 1;
        if self.field_len > FIELD_SIZE_LIMIT {
            self.python_error = true;
        }
        self.field.push(c);
    }

    fn feed(&mut self, c: char) {
        match self.state {
            // Python's reader ignores further `\r`s and the `\n` ending the line, and raises on
            // anything else ("new-line character seen in unquoted field").
            State::AfterCr => match c {
                '\n' => self.state = State::StartRecord,
                '\r' => {}
                _ => self.python_error = true,
            },
            State::StartRecord => self.start_record(c),
            State::StartField => self.start_field(c),
            State::InField => match c {
                '\n' | '\r' => self.end_row(c),
                d if d == self.delimiter => self.end_field(),
                _ => self.push(c),
            },
            State::InQuoted => {
                if c == '"' {
                    self.state = State::QuoteInQuoted;
                } else {
                    self.push(c);
                }
            }
            State::QuoteInQuoted => match c {
                '"' => {
                    self.push('"');
                    self.state = State::InQuoted;
                }
                '\n' | '\r' => self.end_row(c),
                d if d == self.delimiter => self.end_field(),
                _ => {
                    self.push(c);
                    self.state = State::InField;
                }
            },
        }
    }

    fn start_record(&mut self, c: char) {
        match c {
            // An empty line is an empty row, as Python's reader gives `[]`.
            '\n' => self.rows.push(Vec::new()),
            '\r' => {
                self.rows.push(Vec::new());
                self.state = State::AfterCr;
            }
            _ => self.start_field(c),
        }
    }

    fn start_field(&mut self, c: char) {
        match c {
            '\n' | '\r' => self.end_row(c),
            '"' => {
                self.quote_line = self.line;
                self.state = State::InQuoted;
            }
            d if d == self.delimiter => self.end_field(),
            _ => {
                self.push(c);
                self.state = State::InField;
            }
        }
    }

    fn end_field(&mut self) {
        self.field_len = 0;
        self.row.push(std::mem::take(&mut self.field));
        self.state = State::StartField;
    }

    fn end_row(&mut self, terminator: char) {
        self.field_len = 0;
        self.row.push(std::mem::take(&mut self.field));
        self.rows.push(std::mem::take(&mut self.row));
        self.state = if terminator == '\r' {
            State::AfterCr
        } else {
            State::StartRecord
        };
    }

    fn finish(mut self) -> Result<Vec<Vec<String>>, ReadError> {
        if self.python_error {
            return Err(ReadError::PythonCsv);
        }
        match self.state {
            State::StartRecord | State::AfterCr => {}
            State::StartField | State::InField | State::QuoteInQuoted => self.end_row('\n'),
            State::InQuoted => {
                return Err(ReadError::Bad(PerturbError::BadInput(format!(
                    "unterminated quoted field: the quote opening field {} on line {} is never \
                     closed",
                    self.row.len() + 1,
                    self.quote_line
                ))))
            }
        }
        Ok(self.rows)
    }
}

/// Every row of delimited `content` as Python's `csv` reader gives them (an empty line is an
/// empty row), after dropping physical lines that start with `===` once stripped (traxr's
/// `line.strip().startswith("===")`).
fn parse_delimited(content: &str, delimiter: char) -> Result<Vec<Vec<String>>, ReadError> {
    let mut reader = CsvReader::new(delimiter);
    for (index, line) in content.split_inclusive('\n').enumerate() {
        if py_strip(line).starts_with("===") {
            continue;
        }
        reader.line = index + 1;
        for c in line.chars() {
            reader.feed(c);
            if reader.python_error {
                return Err(ReadError::PythonCsv);
            }
        }
    }
    reader.finish()
}

/// Appends one row written like Python's `csv` writer: minimal quoting, `\n` line ending.
fn push_row<S: AsRef<str>>(out: &mut String, row: &[S], delimiter: char) {
    if let [only] = row {
        if only.as_ref().is_empty() {
            // A lone empty field is quoted so the row does not read back as a blank line.
            out.push_str("\"\"\n");
            return;
        }
    }
    for (i, field) in row.iter().enumerate() {
        if i > 0 {
            out.push(delimiter);
        }
        let field = field.as_ref();
        if field.contains([delimiter, '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(field);
        }
    }
    out.push('\n');
}

/// The header and data rows as delimited text.
fn write_table(table: &Table, delimiter: char) -> String {
    let mut out = String::new();
    push_row(&mut out, &table.header, delimiter);
    for row in &table.rows {
        push_row(&mut out, row, delimiter);
    }
    out
}

// ---------------------------------------------------------------------------------------------
// JSON

/// Reads a JSON array of objects into a table (header: union of keys in first-seen order);
/// `None` when there is no key at all (an empty array, or empty objects), which traxr skips.
fn read_json(content: &str) -> Result<Option<Table>, PerturbError> {
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
fn unique_keys(header: &[String]) -> Vec<String> {
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

fn write_json(table: &Table) -> Result<String, PerturbError> {
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
fn lossless_number(text: &str) -> Option<Number> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rows(raw: &[&[&str]]) -> Vec<Vec<String>> {
        raw.iter()
            .map(|row| row.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    fn applied(content: &str, json: bool, op: Operator, seed: u32) -> String {
        match apply(content, json, op, &mut PerturbRng::new(seed)).unwrap() {
            Outcome::Applied(s) => s,
            Outcome::Skipped(reason) => panic!("skipped: {reason}"),
        }
    }

    /// The table as strings (header first) after reading delimited output back.
    fn grid(content: &str) -> Vec<Vec<String>> {
        let delimiter = detect_delimiter(content);
        let table = read_delimited(content, delimiter).unwrap();
        std::iter::once(table.header)
            .chain(
                table
                    .rows
                    .into_iter()
                    .map(|r| r.into_iter().map(|c| c.text).collect()),
            )
            .collect()
    }

    /// Rows written like Python's `csv` writer.
    fn write_delimited<R: AsRef<[S]>, S: AsRef<str>>(rows: &[R], delimiter: char) -> String {
        let mut out = String::new();
        for row in rows {
            push_row(&mut out, row.as_ref(), delimiter);
        }
        out
    }

    const SALES: &str = "name,region,amount,note\n\
                         alice,north,12.5,ok\n\
                         bob,south,7,\"late, paid\"\n\
                         carol,east,n/a,x\n\
                         dave,west,1e3,y\n";

    #[test]
    fn reader_handles_quotes_delimiters_newlines_and_crlf() {
        let parsed = parse_delimited(
            "a,\"b,c\",\"say \"\"hi\"\"\"\r\n\"multi\nline\",x\"y,\"q\"z\n",
            ',',
        )
        .unwrap();
        assert_eq!(
            parsed,
            rows(&[&["a", "b,c", "say \"hi\""], &["multi\nline", "x\"y", "qz"]])
        );
        // Empty lines are empty rows; trailing delimiter gives a trailing empty field; no
        // newline at the end is fine; a \r ends a row when only \r or \n follow on its line.
        assert_eq!(
            parse_delimited("a,\n\nb\r\r\nc\r", ',').unwrap(),
            rows(&[&["a", ""], &[], &["b"], &["c"]])
        );
        // Where Python's reader raises: text after a \r on its line (outside quotes), a field
        // over the size limit. Inside quotes a \r is text.
        for content in ["a\rb\n", "a,b\n\"x\"\ry\n", "\r1\n"] {
            assert_eq!(
                parse_delimited(content, ','),
                Err(ReadError::PythonCsv),
                "{content:?}"
            );
        }
        assert_eq!(
            parse_delimited("\"a\rb\"\n", ',').unwrap(),
            rows(&[&["a\rb"]])
        );
        let at_limit = format!("a\n{}\n", "x".repeat(FIELD_SIZE_LIMIT));
        assert_eq!(parse_delimited(&at_limit, ',').unwrap().len(), 2);
        let over = format!("a\n\"{}\"\n", "x".repeat(FIELD_SIZE_LIMIT + 1));
        assert_eq!(parse_delimited(&over, ','), Err(ReadError::PythonCsv));
        // traxr skips such content: its reader's error leaves no rows.
        assert_eq!(
            apply(
                "a,b\n1\r2,3\n",
                false,
                Operator::RowDuplicate,
                &mut PerturbRng::new(1)
            )
            .unwrap(),
            Outcome::Skipped(INSUFFICIENT_DATA.into())
        );
        assert_eq!(parse_delimited("", ',').unwrap(), Vec::<Vec<String>>::new());
        assert_eq!(parse_delimited("\"\"\n", ',').unwrap(), rows(&[&[""]]));
    }

    #[test]
    fn reader_drops_marker_lines_and_blank_rows_and_keeps_ragged_rows() {
        let content = "=== Sheet1 ===\na,b,c\n\n , ,\n1,2\n  === Sheet2 ===\r\n3,4,5,6\n";
        let table = read_delimited(content, ',').unwrap();
        assert_eq!(table.header, vec!["a", "b", "c"]);
        let data: Vec<Vec<&str>> = table
            .rows
            .iter()
            .map(|r| r.iter().map(|c| c.text.as_str()).collect())
            .collect();
        assert_eq!(data, vec![vec!["1", "2"], vec!["3", "4", "5", "6"]]);
    }

    #[test]
    fn unterminated_quote_is_bad_input_naming_the_line() {
        let err = apply(
            "a,b\n1,\"open\n2,3\n",
            false,
            Operator::ColumnSwap,
            &mut PerturbRng::new(1),
        )
        .unwrap_err();
        let PerturbError::BadInput(message) = err else {
            panic!("wrong error")
        };
        assert!(message.contains("line 2"), "{message}");
        assert!(message.contains("unterminated"), "{message}");
    }

    #[test]
    fn delimiter_detection() {
        assert_eq!(detect_delimiter("a\tb\tc\n1\t2\t3\n"), '\t');
        assert_eq!(detect_delimiter("a,b\tc\n"), ',');
        assert_eq!(detect_delimiter("a\tb\n1,5\t2\n"), '\t');
        assert_eq!(detect_delimiter(""), ',');
        // Only the first five lines count.
        assert_eq!(detect_delimiter("a\tb\n\n\n\n\n1,2,3,4,5,6\n"), '\t');
        let out = applied("x\ty\n1\t\"a,b\"\n", false, Operator::RowDuplicate, 3);
        assert!(out.starts_with("x\ty\n1\ta,b\n"), "{out:?}");
    }

    #[test]
    fn writer_quotes_minimally() {
        let written = write_delimited(
            &rows(&[
                &["a", "b,c", "q\"", "n\nl", "r\rx", " sp"],
                &[""],
                &[],
                &["", ""],
            ]),
            ',',
        );
        assert_eq!(
            written,
            "a,\"b,c\",\"q\"\"\",\"n\nl\",\"r\rx\", sp\n\"\"\n\n,\n"
        );
        assert_eq!(
            write_delimited(&rows(&[&["a,b", "c\td"]]), '\t'),
            "a,b\t\"c\td\"\n"
        );
    }

    #[test]
    fn py_float_accepts_what_python_accepts() {
        let accepted: &[(&str, f64)] = &[
            ("1", 1.0),
            (" 2.5 ", 2.5),
            ("\u{a0}\t-3\n", -3.0),
            ("+.5", 0.5),
            ("1.", 1.0),
            ("1e3", 1000.0),
            ("1.e5", 100_000.0),
            ("-1.5E-2", -0.015),
            ("1_000", 1000.0),
            ("1_000.000_1", 1000.0001),
            ("1e1_0", 1e10),
            ("007", 7.0),
            ("inf", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("+iNf", f64::INFINITY),
            ("1e400", f64::INFINITY),
            ("\u{1f}4\u{1c}", 4.0),
            // Any Unicode decimal digit (Arabic-Indic, Devanagari, full-width), as in CPython.
            ("\u{663}", 3.0),
            ("-\u{661}\u{662}.\u{665}", -12.5),
            ("\u{967}\u{966}", 10.0),
            ("\u{ff11}_\u{ff10}\u{ff10}", 100.0),
        ];
        for (s, v) in accepted {
            assert_eq!(py_float(s), Some(*v), "{s:?}");
        }
        assert!(py_float("nan").unwrap().is_nan());
        assert!(py_float(" -NaN ").unwrap().is_nan());
        let rejected = [
            "",
            " ",
            ".",
            "+",
            "-",
            "e5",
            ".e5",
            "1e",
            "1e+",
            "1__0",
            "_1",
            "1_",
            "1_.5",
            "1._5",
            "1e_5",
            "0x10",
            "1.5.5",
            "1 2",
            "in f",
            "infinit",
            "nan(1)",
            "inf_",
            "1,5",
            "--1",
            "1e5.5",
            "\u{b2}",
            "\u{ff4e}an",
            "1\u{a0}2",
        ];
        for s in rejected {
            assert_eq!(py_float(s), None, "{s:?}");
        }
    }

    #[test]
    fn repr_and_fixed_formats_match_python() {
        let reprs: &[(f64, &str)] = &[
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123_456_789_012_345.0, "123456789012345.0"),
            (1000.0, "1000.0"),
            (-2.5, "-2.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.5e-7, "1.5e-07"),
            (f64::NAN, "nan"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (-0.0, "-0.0"),
        ];
        for (v, s) in reprs {
            assert_eq!(py_repr(*v), *s);
        }
        let fixed: &[(f64, usize, &str)] = &[
            (2.675, 2, "2.67"),
            (0.125, 2, "0.12"),
            (0.375, 2, "0.38"),
            (0.25, 1, "0.2"),
            (1.005, 2, "1.00"),
            (-0.001, 2, "-0.00"),
            (1e16, 1, "10000000000000000.0"),
            (f64::NAN, 1, "nan"),
            (f64::NEG_INFINITY, 2, "-inf"),
        ];
        for (v, p, s) in fixed {
            assert_eq!(py_fixed(*v, *p), *s);
        }
    }

    #[test]
    fn too_little_data_is_skipped() {
        for content in ["", "a,b\n", "\n\n", "=== S ===\na,b\n , \n"] {
            for op in Operator::TABULAR {
                if op == Operator::NullContent {
                    continue;
                }
                assert_eq!(
                    apply(content, false, op, &mut PerturbRng::new(1)).unwrap(),
                    Outcome::Skipped(INSUFFICIENT_DATA.into())
                );
            }
        }
        for content in ["[]", "[{}]", "[{}, {}]"] {
            assert_eq!(
                apply(content, true, Operator::ColumnSwap, &mut PerturbRng::new(1)).unwrap(),
                Outcome::Skipped(JSON_NOT_TABULAR.into())
            );
        }
        // One object with a key makes a table; an empty object is a row of missing cells.
        assert!(matches!(
            apply(
                "[{}, {\"a\": 1}]",
                true,
                Operator::RowDuplicate,
                &mut PerturbRng::new(1)
            ),
            Ok(Outcome::Applied(_))
        ));
    }

    #[test]
    fn null_content_empties_anything_and_other_operators_are_refused() {
        for content in ["", "a,b\n1,2\n", "\"unterminated", "{not json"] {
            for json in [false, true] {
                assert_eq!(
                    apply(
                        content,
                        json,
                        Operator::NullContent,
                        &mut PerturbRng::new(5)
                    )
                    .unwrap(),
                    Outcome::Applied(String::new())
                );
            }
        }
        assert!(matches!(
            apply(
                "a,b\n1,2\n",
                false,
                Operator::OcrNoise,
                &mut PerturbRng::new(5)
            ),
            Err(PerturbError::BadInput(_))
        ));
    }

    #[test]
    fn column_swap_swaps_two_columns_consistently() {
        let before = grid(SALES);
        let mut swapped_somewhere = false;
        for seed in 0..40 {
            let after = grid(&applied(SALES, false, Operator::ColumnSwap, seed));
            assert_eq!(after.len(), before.len());
            let moved: Vec<usize> = (0..4).filter(|&c| before[0][c] != after[0][c]).collect();
            match moved.as_slice() {
                [] => assert_eq!(after, before),
                &[a, b] => {
                    swapped_somewhere = true;
                    for (x, y) in before.iter().zip(&after) {
                        let mut expected = x.clone();
                        expected.swap(a, b);
                        assert_eq!(*y, expected);
                    }
                }
                other => panic!("moved {other:?}"),
            }
        }
        assert!(swapped_somewhere);
        // One column: applied, the table written back as it was (traxr's "No swap").
        assert_eq!(
            apply(
                "only\n1\n",
                false,
                Operator::ColumnSwap,
                &mut PerturbRng::new(1)
            )
            .unwrap(),
            Outcome::Applied("only\n1\n".into())
        );
    }

    #[test]
    fn column_swap_leaves_rows_lacking_a_column() {
        for seed in 0..20 {
            let after = grid(&applied(
                "a,b,c\n1\n1,2,3\n",
                false,
                Operator::ColumnSwap,
                seed,
            ));
            assert_eq!(after[1], vec!["1"]);
        }
    }

    #[test]
    fn label_corrupt_uses_alternatives_or_abbreviations() {
        let content = "Total Amount,zz,region,Phone\n1,2,3,4\n";
        let amount_alternatives = LABEL_CORRUPTIONS[2].1;
        let phone_alternatives = LABEL_CORRUPTIONS[10].1;
        for seed in 0..20 {
            let after = grid(&applied(content, false, Operator::LabelCorrupt, seed));
            assert!(
                amount_alternatives.contains(&after[0][0].as_str()),
                "{after:?}"
            );
            assert_eq!(after[0][1], "zz");
            assert_eq!(after[0][2], "REG");
            assert!(phone_alternatives.contains(&after[0][3].as_str()));
            assert_eq!(after[1], vec!["1", "2", "3", "4"]);
        }
        // The RNG is drawn only on a dictionary hit: no hits, same output for every seed.
        let plain = "alpha,beta,xy\n1,2,3\n";
        assert_eq!(
            applied(plain, false, Operator::LabelCorrupt, 1),
            "ALP,BET,xy\n1,2,3\n"
        );
    }

    #[test]
    fn data_type_corrupt_marks_numeric_cells_only() {
        let before = grid(SALES);
        let (mut tilde, mut star) = (false, false);
        for seed in 0..20 {
            let after = grid(&applied(SALES, false, Operator::DataTypeCorrupt, seed));
            assert_eq!(after[0], before[0]);
            for (x, y) in before.iter().zip(&after).skip(1) {
                for (a, b) in x.iter().zip(y) {
                    match py_float(a) {
                        Some(v) => {
                            let as_tilde = format!("~{}", py_repr(v));
                            let as_star = format!("{}*", py_fixed(v, 1));
                            assert!(*b == as_tilde || *b == as_star, "{a} -> {b}");
                            tilde |= *b == as_tilde;
                            star |= *b == as_star;
                        }
                        None => assert_eq!(a, b),
                    }
                }
            }
        }
        assert!(tilde && star);
        let out = applied("v\n1e3\n", false, Operator::DataTypeCorrupt, 0);
        assert!(out == "v\n~1000.0\n" || out == "v\n1000.0*\n", "{out}");
    }

    #[test]
    fn row_duplicate_inserts_marked_copies() {
        let content = "a,b\n1,x\n2,\n3,z\n4,w\n5,v\n";
        let before = grid(content);
        let mut duplicated = false;
        for seed in 0..20 {
            let after = grid(&applied(content, false, Operator::RowDuplicate, seed));
            assert_eq!(after[0], before[0]);
            let mut originals = before.iter().skip(1).peekable();
            let mut last_original: Option<&Vec<String>> = None;
            for row in after.iter().skip(1) {
                if originals.peek() == Some(&row) {
                    last_original = originals.next();
                    continue;
                }
                duplicated = true;
                let original = last_original.unwrap();
                let mut expected = original.clone();
                if let Some(last) = expected.last_mut().filter(|c| !c.is_empty()) {
                    last.push('*');
                }
                assert_eq!(*row, expected);
                last_original = None; // at most one copy per row
            }
            assert!(originals.next().is_none());
        }
        assert!(duplicated);
    }

    #[test]
    fn irrelevant_columns_appends_noise_from_its_domains() {
        let content = "a,b\n1,2\n3\n4,5,6\n";
        let mut counts = [false; 3];
        for seed in 0..30 {
            let after = grid(&applied(content, false, Operator::IrrelevantColumns, seed));
            let added = &after[0][2..];
            assert!((1..=2).contains(&added.len()));
            counts[added.len()] = true;
            assert!(added.iter().all(|n| NOISE_COLUMNS.contains(&n.as_str())));
            assert_ne!(added.first(), added.get(1));
            assert_eq!(after[1][..2], ["1", "2"]);
            assert_eq!(after[2][..2], ["3", ""]);
            assert_eq!(after[3][..2], ["4", "5"]);
            assert_eq!(after[3].last().map(String::as_str), Some("6"));
            for row in &after[1..] {
                for (i, name) in added.iter().enumerate() {
                    let value = row[2 + i].as_str();
                    match name.as_str() {
                        "_noise_id" => {
                            let n: u32 = value.parse().unwrap();
                            assert!((1000..=9999).contains(&n));
                        }
                        "_flag" => assert!(FLAG_VALUES.contains(&value)),
                        "_legacy" => assert_eq!(value, ""),
                        _ => assert_eq!(value, "???"),
                    }
                }
            }
        }
        assert!(counts[1] && counts[2]);
    }

    #[test]
    fn unit_change_rescales_one_numeric_column() {
        let content = "id,height,label,weight\nA,1.5,x,70\nB,,y,n/a\nC,2,z,80.25\nD,nan,w,90\n";
        let before = grid(content);
        let mut columns_hit = [false; 4];
        for seed in 0..30 {
            let after = grid(&applied(content, false, Operator::UnitChange, seed));
            assert_eq!(after[0], before[0]);
            let changed: Vec<usize> = (0..4)
                .filter(|&c| before.iter().zip(&after).any(|(x, y)| x[c] != y[c]))
                .collect();
            assert_eq!(changed.len(), 1, "{after:?}");
            let column = changed[0];
            assert!(column == 1 || column == 3);
            columns_hit[column] = true;
            let factors: Vec<f64> = UNIT_FACTORS
                .iter()
                .map(|(f, _)| *f)
                .filter(|f| {
                    before
                        .iter()
                        .zip(&after)
                        .skip(1)
                        .all(|(x, y)| match py_float(&x[column]) {
                            Some(v) => y[column] == py_fixed(v * f, 2),
                            None => y[column] == x[column],
                        })
                })
                .collect();
            assert!(!factors.is_empty(), "{after:?}");
        }
        assert!(columns_hit[1] && columns_hit[3]);
        // No numeric column: applied, the table written back as it was.
        assert_eq!(
            applied("a,b\nx,y\n1,\n", false, Operator::UnitChange, 1),
            "a,b\nx,y\n1,\n"
        );
        // A cell of spaces is non-empty and not a number: one number of three cells is not
        // more than half, so `b` is not numeric and nothing changes.
        assert_eq!(
            applied("a,b\nx,1\ny, \nz,  \n", false, Operator::UnitChange, 1),
            "a,b\nx,1\ny, \nz,  \n"
        );
        // Unicode decimal digits are numbers, as Python's float() reads them.
        let out = applied("a\n\u{663}\n", false, Operator::UnitChange, 1);
        assert!(
            UNIT_FACTORS
                .iter()
                .any(|(f, _)| out == format!("a\n{}\n", py_fixed(3.0 * f, 2))),
            "{out}"
        );
    }

    const JSON_ROWS: &str = r#"[
        {"id": 1, "name": "alpha", "price": 2.5, "ok": true, "note": null, "tags": [1, 2]},
        {"id": 2, "name": "beta", "price": 10, "extra": "x"},
        {"id": 3, "name": "gamma", "price": 1e16}
    ]"#;

    #[test]
    fn json_round_trips_when_nothing_structural_changes() {
        let input: Value = serde_json::from_str(JSON_ROWS).unwrap();
        let mut unchanged = 0;
        for seed in 0..30 {
            let out = applied(JSON_ROWS, true, Operator::RowDuplicate, seed);
            assert!(out.ends_with("]\n"));
            let output: Value = serde_json::from_str(&out).unwrap();
            let items = output.as_array().unwrap();
            if items.len() == 3 {
                unchanged += 1;
                assert_eq!(output, input);
            }
            // Every object keeps its own keys in header order; numbers stay numbers.
            assert!(items
                .iter()
                .all(|o| o["id"].is_number() || o["id"].is_string()));
        }
        assert!(unchanged > 0);
    }

    #[test]
    fn json_numbers_stay_numbers_when_the_value_is_kept_exactly() {
        let content = r#"[{"a": 1, "b": "s"}, {"a": 2.5, "b": "t"}]"#;
        let out = applied(content, true, Operator::UnitChange, 3);
        let output: Value = serde_json::from_str(&out).unwrap();
        for item in output.as_array().unwrap() {
            assert!(item["a"].is_number(), "{out}");
            assert!(item["b"].is_string());
        }
        let out = applied(content, true, Operator::DataTypeCorrupt, 3);
        let output: Value = serde_json::from_str(&out).unwrap();
        assert!(output[0]["a"].is_string(), "{out}");
        assert_eq!(
            lossless_number("16.40").map(|n| n.to_string()),
            Some("16.4".into())
        );
        assert_eq!(
            lossless_number("-0.00").map(|n| n.as_f64()),
            Some(Some(0.0))
        );
        assert!(lossless_number("1e400").is_none());
        assert!(lossless_number("0.30000000000000000001").is_none());
        assert!(lossless_number("~1.0").is_none());
        assert!(lossless_number(" 1").is_none());
        assert!(lossless_number("01").is_none());
        assert!(lossless_number("123456789012345678901234567890").is_none());
    }

    #[test]
    fn json_header_changes_become_keys_and_duplicates_get_suffixes() {
        assert_eq!(
            unique_keys(&["a".into(), "a".into(), "a_2".into(), "b".into()]),
            vec!["a", "a_2", "a_2_2", "b"]
        );
        let content = r#"[{"first_name": "x", "last_name": "y", "region": "z"}]"#;
        for seed in 0..10 {
            let out = applied(content, true, Operator::LabelCorrupt, seed);
            let output: Value = serde_json::from_str(&out).unwrap();
            let object = output[0].as_object().unwrap();
            assert_eq!(object.len(), 3, "{out}");
            assert_eq!(object["REG"], "z");
            assert_eq!(object.values().filter(|v| *v == "x").count(), 1);
        }
    }

    #[test]
    fn json_that_is_not_an_array_of_objects_is_bad_input() {
        let cases = [
            ("{\"a\": 1}", "found an object"),
            ("[{\"a\": 1}, 2]", "index 1 is a number"),
            ("[{\"a\": 1}", "invalid JSON"),
        ];
        for (content, needle) in cases {
            match apply(content, true, Operator::ColumnSwap, &mut PerturbRng::new(1)) {
                Err(PerturbError::BadInput(message)) => {
                    assert!(message.contains(needle), "{message}")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    fn table_strategy() -> impl Strategy<Value = Vec<Vec<String>>> {
        let cell = prop::collection::vec(
            prop::sample::select(vec![
                "a", "b", " ", ",", "\t", "\"", "\n", "\r", "\r\n", "1", "2.5", "-3", "1e3", "nan",
                "_",
            ]),
            0..4,
        )
        .prop_map(|parts| parts.concat());
        prop::collection::vec(prop::collection::vec(cell, 0..5), 0..6)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Whatever the cells hold, reading what was written gives the rows back.
        #[test]
        fn write_then_parse_is_identity(table in table_strategy(), tab in any::<bool>()) {
            let delimiter = if tab { '\t' } else { ',' };
            let written = write_delimited(&table, delimiter);
            prop_assert_eq!(parse_delimited(&written, delimiter).unwrap(), table);
        }

        /// No operator panics on any delimited or JSON content, and each is deterministic for
        /// its seed.
        #[test]
        fn operators_never_panic_and_are_deterministic(
            table in table_strategy(),
            raw in "[a-z0-9,\"\n\r\t .=_\\[\\]{}:-]{0,60}",
            seed in any::<u32>(),
        ) {
            let csv = write_delimited(&table, ',');
            let json = Value::Array(
                table
                    .iter()
                    .map(|row| {
                        let mut map = Map::new();
                        for (i, cell) in row.iter().enumerate() {
                            let value = lossless_number(cell)
                                .map_or_else(|| Value::String(cell.clone()), Value::Number);
                            map.insert(format!("k{}", i % 3), value);
                        }
                        Value::Object(map)
                    })
                    .collect(),
            )
            .to_string();
            let inputs = [(csv.as_str(), false), (raw.as_str(), false), (raw.as_str(), true), (json.as_str(), true)];
            for (content, is_json) in inputs {
                for op in Operator::TABULAR.iter().chain([Operator::OcrNoise].iter()) {
                    let first = apply(content, is_json, *op, &mut PerturbRng::new(seed));
                    let second = apply(content, is_json, *op, &mut PerturbRng::new(seed));
                    prop_assert_eq!(first, second);
                }
            }
        }
    }
}
