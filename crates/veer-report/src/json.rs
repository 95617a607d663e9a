//! The JSON printer: pretty-printed, keys in struct order, a trailing newline. Floats print in
//! shortest round-trip form, so the same report always gives the same bytes.

use serde::Serialize;

/// Serialises `report` as pretty JSON followed by `\n`.
pub fn to_json<T: Serialize>(report: &T) -> String {
    match serde_json::to_string_pretty(report) {
        Ok(mut s) => {
            s.push('\n');
            s
        }
        // Report structs hold only strings, numbers, bools and maps with string keys.
        Err(e) => format!("{{\"error\": \"cannot serialise report: {e}\"}}\n"),
    }
}
