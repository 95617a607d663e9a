//! One module per subcommand: read inputs, call measures, pick a printer.

pub mod demo;
pub mod diff;
pub mod inspect;
pub mod scan;
pub mod synth;
