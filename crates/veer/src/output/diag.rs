//! Everything veer says on stderr besides progress bars — warnings, errors, hints, a command's
//! status lines — goes through here, so every message that quotes input (a field's value, a
//! file name, an upstream's reply) is redacted like the reports before it is printed, unless
//! the user asked for `--no-redact`.

use std::fmt::Display;
use std::io::Write;

/// Prints `prefix: message` (or `message` alone when `prefix` is empty) on stderr, redacted.
pub fn say(prefix: &str, message: impl Display) {
    let text = message.to_string();
    let text = veer_secrets::display::redact(&text);
    let mut err = anstream::stderr();
    let _ = if prefix.is_empty() {
        writeln!(err, "{text}")
    } else {
        writeln!(err, "{prefix}: {text}")
    };
}

/// Prints `warning: message` on stderr, redacted.
pub fn warn(message: impl Display) {
    say("warning", message);
}

/// Prints a command's error — `error:` lines, then its `hint:` — on stderr, redacted.
pub fn error(e: &crate::error::CliError) {
    say("error", &e.message);
    for m in &e.more {
        say("error", m);
    }
    if let Some(h) = &e.hint {
        say("hint", h);
    }
}
