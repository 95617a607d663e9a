//! The plan and bookkeeping of `veer eval`, the one-command eval loop: the cases (from a
//! file or a directory, names checked), one slot per case and trial with its place in the
//! output directory, the agent command's placeholders, which slots a rerun reuses, and the
//! summary. Pure, like the rest of this crate: the CLI lists directories, reads files and
//! runs the agents.

pub mod cases;
pub mod plan;
