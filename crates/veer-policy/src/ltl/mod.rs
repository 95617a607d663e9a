//! LTLf — linear temporal logic over finite traces (spec `policy.md` §8): a lexer, a
//! recursive-descent parser with Shadow's precedence, atom validation, and a linear-time
//! evaluator (a backwards pass per operator over the states).

pub mod eval;
pub mod lexer;
pub mod parser;

pub use eval::{evaluate, State};
pub use parser::{parse, Atom, Formula, ParseError};
