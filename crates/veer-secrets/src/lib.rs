//! Secrets in traces: finding them (`veer scan`) and keeping them out of reports.
//!
//! A [`Detector`] holds the built-in patterns (API keys of OpenAI, Anthropic, GitHub, AWS,
//! Google and Stripe; AWS secret access keys; Slack tokens; `Authorization` credentials; JWTs;
//! PEM private keys; e-mail addresses; phone numbers; Luhn-valid card numbers) plus any extra
//! ones a user supplies. It reports where a secret is and what kind it is, never the
//! secret itself, and it replaces secrets with `[REDACTED:<kind>]` in text and in the strings
//! of a JSON document.

mod detector;
pub mod display;
mod luhn;
mod patterns;

pub use detector::{Detector, PatternFileError, SecretFinding};
pub use patterns::{ExtraPattern, BUILTIN_KINDS};
