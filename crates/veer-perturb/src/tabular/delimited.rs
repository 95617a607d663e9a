//! Reading and writing delimited text as traxr does through Python's `csv` module (see the
//! parent module's "Reading and writing"): the delimiter guess, a reader that follows Python's
//! state machine (and fails where it raises), and the writer's minimal quoting.

use super::{Cell, Table};
use crate::PerturbError;
use veer_base::pytext::py_strip;

/// Python's `csv.field_size_limit()` default: a longer field makes the reader raise.
pub(super) const FIELD_SIZE_LIMIT: usize = 131_072;

/// `\t` when the first five lines hold more tabs than commas, else `,`.
pub(super) fn detect_delimiter(content: &str) -> char {
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
pub(super) enum ReadError {
    /// Content Python's `csv` reader raises on (`csv.Error`): a `\r` outside quotes followed
    /// by more text on its line, or a field over [`FIELD_SIZE_LIMIT`] characters. traxr catches
    /// it and reads no rows.
    PythonCsv,
    /// Content veer refuses (an unterminated quote).
    Bad(PerturbError),
}

/// Reads delimited content into a table: marker lines dropped, blank rows dropped, first row
/// the header.
pub(super) fn read_delimited(content: &str, delimiter: char) -> Result<Table, ReadError> {
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
pub(super) fn parse_delimited(
    content: &str,
    delimiter: char,
) -> Result<Vec<Vec<String>>, ReadError> {
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
pub(super) fn push_row<S: AsRef<str>>(out: &mut String, row: &[S], delimiter: char) {
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
pub(super) fn write_table(table: &Table, delimiter: char) -> String {
    let mut out = String::new();
    push_row(&mut out, &table.header, delimiter);
    for row in &table.rows {
        push_row(&mut out, row, delimiter);
    }
    out
}
