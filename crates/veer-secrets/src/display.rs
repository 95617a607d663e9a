//! The process's one redaction setting for everything veer shows or writes — reports, previews,
//! warnings, errors — so a secret is redacted once, before any text is cut or printed, whichever
//! crate renders it. On by default; a front end turns it off only when the user asks
//! (`--no-redact`).

use crate::Detector;
use std::borrow::Cow;
use std::sync::OnceLock;

static REDACTOR: OnceLock<Option<Detector>> = OnceLock::new();

/// Turns redaction of shown and written text on (the default) or off. Only the first call
/// counts; call it before anything is shown.
pub fn set_redaction(on: bool) {
    let _ = REDACTOR.set(on.then(Detector::builtin));
}

/// The built-in detector, or `None` when redaction was turned off.
pub fn redactor() -> Option<&'static Detector> {
    REDACTOR.get_or_init(|| Some(Detector::builtin())).as_ref()
}

/// `text` with its secrets replaced by `[REDACTED:<kind>]` (unchanged when redaction is off).
/// Whatever shortens text for display must call this first: a cut secret no longer matches
/// its pattern, so its first characters would survive.
pub fn redact(text: &str) -> Cow<'_, str> {
    match redactor() {
        Some(d) => d.redact(text),
        None => Cow::Borrowed(text),
    }
}
