//! The basics below every veer measure, so no measure needs another for them: the special
//! functions of the statistics (`ln Γ`, the regularized incomplete beta, the central and
//! non-central F), each with a documented bound on its work whatever values it is given
//! (docs/limits.md, "Numeric routines: work bounds"); the seeded random-number generators
//! ([`rng`]); Python's string, number, value and `json.dumps` rules with the Unicode tables they read
//! ([`pytext`], [`pystr`], [`pyjson`], [`unicode_tables`]); the severity [`Level`]; and the trace-format identity
//! ([`format::Format`]) that reports name; capped reads of the files that are not traces
//! ([`capped`]) and the fallible sections an allocator honours ([`fallible`]).

pub mod capped;
pub mod edit_script;
pub mod fallible;
pub mod fdist;
pub mod format;
pub mod hex;
pub mod level;
pub mod pyjson;
pub mod pystr;
pub mod pytext;
pub mod rng;
pub mod unicode_tables;

pub use level::Level;
