//! LTLf evaluation over finite traces (spec `policy.md` §8.4): each operator is one backwards
//! pass over positions `0..=n`, so a formula costs O(|formula| · n).

use super::parser::{Atom, Formula};

/// One state: what the atoms can see of a pair.
#[derive(Debug, Clone, Copy)]
pub struct State<'a> {
    /// Names of the calls attached to the pair.
    pub tool_calls: &'a [String],
    /// The stop reason, `""` when absent.
    pub stop_reason: &'a str,
    /// The response text.
    pub text: &'a str,
}

fn atom_holds(a: &Atom, s: &State<'_>) -> bool {
    match a {
        Atom::ToolCall(n) => s.tool_calls.iter().any(|t| t == n),
        Atom::StopReason(v) => s.stop_reason == v,
        Atom::TextContains(sub) => s.text.contains(sub.as_str()),
        Atom::Extra { value, .. } => value.is_empty(),
    }
}

/// The truth of `f` at every position `0..=n` (n = number of states; position n is the end).
pub fn evaluate(f: &Formula, states: &[State<'_>]) -> Vec<bool> {
    let n = states.len();
    match f {
        Formula::True => vec![true; n + 1],
        Formula::False => vec![false; n + 1],
        Formula::Atom(a) => {
            let mut out: Vec<bool> = states.iter().map(|s| atom_holds(a, s)).collect();
            out.push(false);
            out
        }
        Formula::Not(a) => evaluate(a, states).into_iter().map(|x| !x).collect(),
        Formula::And(a, b) => zip(evaluate(a, states), &evaluate(b, states), |x, y| x && y),
        Formula::Or(a, b) => zip(evaluate(a, states), &evaluate(b, states), |x, y| x || y),
        Formula::Implies(a, b) => zip(evaluate(a, states), &evaluate(b, states), |x, y| !x || y),
        Formula::Next(a) => {
            let inner = evaluate(a, states);
            (0..=n).map(|i| i + 1 < n && inner[i + 1]).collect()
        }
        Formula::Globally(a) => {
            let mut out = evaluate(a, states);
            out[n] = true;
            for i in (0..n).rev() {
                out[i] = out[i] && out[i + 1];
            }
            out
        }
        Formula::Finally(a) => {
            let mut out = evaluate(a, states);
            out[n] = false;
            for i in (0..n).rev() {
                out[i] = out[i] || out[i + 1];
            }
            out
        }
        Formula::Until(a, b) | Formula::WeakUntil(a, b) => {
            let phi = evaluate(a, states);
            let mut out = evaluate(b, states);
            out[n] = matches!(f, Formula::WeakUntil(..));
            for i in (0..n).rev() {
                out[i] = out[i] || (phi[i] && out[i + 1]);
            }
            out
        }
    }
}

fn zip(mut a: Vec<bool>, b: &[bool], op: impl Fn(bool, bool) -> bool) -> Vec<bool> {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = op(*x, y);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn run(formula: &str, tools: &[&[&str]], stops: &[&str]) -> bool {
        let names: Vec<Vec<String>> = tools
            .iter()
            .map(|t| t.iter().map(|s| s.to_string()).collect())
            .collect();
        let n = tools.len().max(stops.len());
        let states: Vec<State> = (0..n)
            .map(|i| State {
                tool_calls: names.get(i).map_or(&[], |v| v.as_slice()),
                stop_reason: stops.get(i).copied().unwrap_or(""),
                text: "",
            })
            .collect();
        evaluate(&parse(formula).unwrap(), &states)[0]
    }

    #[test]
    fn pinned_semantics() {
        assert!(run("G false", &[], &[]));
        assert!(!run("F true", &[], &[]));
        assert!(!run("X tool_call:p", &[&["p"]], &[]));
        let w = "(!tool_call:payment) W tool_call:auth";
        assert!(run(w, &[&["auth"], &["payment"]], &[]));
        assert!(!run(w, &[&["payment"]], &[]));
        let once = "F tool_call:log & G(tool_call:log -> X G !tool_call:log)";
        assert!(run(once, &[&[], &["log"], &[]], &[]));
        assert!(!run(once, &[&[], &[], &[]], &[]));
        assert!(!run(once, &[&["log"], &["log"]], &[]));
        let stop = "F(!X(true) & (stop_reason:end_turn))";
        assert!(!run(stop, &[], &["end_turn", "tool_use", "max_tokens"]));
        assert!(run(stop, &[], &["max_tokens", "tool_use", "end_turn"]));
        assert!(!run(stop, &[], &[]));
        assert!(run("tool_call:a U tool_call:b", &[&["a"], &["b"]], &[]));
        assert!(!run("tool_call:a U tool_call:b", &[&["a"], &["a"]], &[]));
        assert!(run("tool_call:a W tool_call:b", &[&["a"], &["a"]], &[]));
    }
}
