//! veer's behaviour policy engine (spec `policy.md`).
//!
//! A policy is a list of rules about what an agent may and must do. This crate loads a policy
//! strictly (every problem of the file named with line, column, rule id and a did-you-mean
//! hint), evaluates it on a trace, compares a baseline with a candidate, and decides the merge
//! gate. It never prints, never touches the network and never executes anything a policy says.
//!
//! The API the CLI and the diff use:
//!
//! ```no_run
//! use veer_base::Level;
//! use veer_contract::policy::gate;
//! use veer_policy::{compare, evaluate, Policy};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let policy = Policy::load("policy.yaml".as_ref())?; // Err(PolicyError) → exit 2
//! let options = veer_trace::ReadOptions::default();
//! let baseline = veer_trace::load_trace("base.agentlog".as_ref(), &options)?;
//! let candidate = veer_trace::load_trace("cand.agentlog".as_ref(), &options)?;
//! let violations = evaluate(&policy, &candidate); // Vec<Violation>
//! let diff = compare(&policy, &baseline, &candidate); // PolicyDiff {…, regressions, fixes}
//! let decision = gate(Level::Severe, Level::None, &diff); // Gate {fail_on, worst, tripped}
//! # let _ = (violations, decision);
//! # Ok(()) }
//! ```
//!
//! * [`Policy::load`] / [`Policy::load_str`] — YAML or JSON, Shadow's files load unchanged.
//! * [`evaluate`] — violations in rule order, each with rule id, kind, severity, session,
//!   absolute pair index and detail.
//! * [`compare`] — regressions and fixes as multisets keyed on `(rule_id, session, locus)`.
//! * `veer_contract::policy::gate` — `worst >= fail_on` over levels
//!   `none < minor < moderate < severe` (info → minor, warning → moderate, error and critical →
//!   severe).
//! * [`runtime::PolicyEnforcer`] — judging a trace while it is recorded (`evaluate` after each
//!   response, `probe` before a tool dispatch, `finish` at the end).
//! * [`live::decisions`] — the live-policy decisions a recording made with `--enforce` holds;
//!   [`live::prevented`] turns the blocked ones into `prevented` violations.
//! * [`suggest::suggest`] — `must_call_before` rules mined from recorded scenarios.
//! * [`from_regression::rules_from_regression`] — rules written from a regression, each checked
//!   to fire on a changed run and on no baseline run.
//!
//! Layout: [`load`] (validation), `node` (positioned YAML/JSON), [`path`] and [`when`]
//! (conditions), [`context`] (pairs and their context), `session` (units and the gate of a
//! rule), `rules` (one file per kind), [`ltl`] (lexer, parser, evaluator), [`schema`]
//! (JSON Schema), [`compare`], `gate`, [`runtime`], [`suggest`], [`coverage`] (rules that can never fire).

#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod compare;
pub mod context;
pub mod coverage;
pub(crate) mod error;
pub(crate) mod eval;
#[doc(hidden)]
pub mod from_regression;
pub mod fuzzing;
pub(crate) mod gate;
pub(crate) mod hint;
pub mod live;
pub mod load;
pub mod ltl;
pub mod model;
pub mod needle;
pub(crate) mod node;
pub mod path;
pub(crate) mod rules;
pub mod runtime;
pub mod schema;
pub(crate) mod session;
pub mod suggest;
pub(crate) mod violation;
pub mod when;

#[cfg(test)]
pub(crate) mod tests;

pub use compare::{compare, diff_violations};
pub use error::{PolicyError, Problem};
pub use eval::{evaluate, evaluate_with_warnings, Evaluation};
pub use model::{Policy, Rule, Scope};
