//! The CLI's errors are the engine's one error type ([`veer_engine::Error`]): a kind, the
//! message, the source chain and hints. Its kind decides the exit code in one place
//! ([`veer_engine::ErrorKind::exit_code`]: interrupted 130, every other error 2); the codes of
//! a run that ends without an error are here.

pub use veer_engine::error::{Error as CliError, ErrorKind, EXIT_ERROR};

/// Exit code when the command ran and no gate tripped.
pub const EXIT_OK: u8 = 0;
/// Exit code when a gate tripped (or `scan` found a secret).
#[allow(dead_code)] // used by gated commands
pub const EXIT_GATE: u8 = 1;
