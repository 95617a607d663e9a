//! LTLf — linear temporal logic over finite traces (spec `policy.md` §8): a lexer, a
//! recursive-descent parser with Shadow's precedence, atom validation, and a linear-time
//! evaluator (a backwards pass per operator over the states).

pub(crate) mod eval;
pub(crate) mod lexer;
pub(crate) mod parser;

pub use eval::{evaluate, State};
pub(crate) use parser::parse;
pub use parser::{Atom, Formula};
