//! The CLI's errors are the engine's one error type ([`veer_engine::Error`]): a kind, the
//! message, the source chain and hints. Its kind decides the exit code in one place
//! ([`veer_engine::ErrorKind::exit_code`]: interrupted 130, every other error 2); the codes of
//! a run that ends without an error come only from its [`Exit`]: the verdict's, or the
//! agent's own status that `veer record -- CMD` passes through.

pub use veer_engine::error::{Error as CliError, ErrorKind, EXIT_ERROR};

/// How a command that ran to its end exits.
#[derive(Debug)]
pub enum Exit {
    /// By its verdict (`Verdict::exit_code`): 0 nothing tripped — a command without a gate
    /// ends with `Verdict::ungated()` —, 1 the gate tripped, 2 inputs no gate counted could not
    /// be read.
    Verdict(veer_contract::verdict::Verdict),
    /// `veer record -- CMD`: the agent's own exit status, passed through.
    Agent(u8),
    /// A lint found what it looks for (`veer policy validate --against`: a rule that can
    /// never fire): exit 1.
    Found,
}

impl Exit {
    /// A command that sets no gate and ran to its end.
    pub fn done() -> Exit {
        Exit::Verdict(veer_contract::verdict::Verdict::ungated())
    }

    /// The process exit code: the verdict's, or the agent's.
    pub fn code(&self) -> u8 {
        match self {
            Exit::Verdict(v) => v.exit_code(),
            Exit::Agent(code) => *code,
            Exit::Found => 1,
        }
    }
}

impl From<veer_contract::verdict::Verdict> for Exit {
    fn from(v: veer_contract::verdict::Verdict) -> Exit {
        Exit::Verdict(v)
    }
}
