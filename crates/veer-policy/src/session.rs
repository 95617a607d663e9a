//! Units of evaluation (spec `policy.md` §4.2): `scope: trace` is one unit holding every pair
//! and every call; `scope: session` is one unit per policy session, holding its pairs and the
//! calls attached to them. The gate G of a rule is the set of pairs its `when:` selects.

use crate::context::TraceView;
use crate::model::Scope;
use veer_trace::views::ToolCall;

/// One unit: the pairs (absolute indices, in order) and calls a rule looks at together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The policy session (session scope), else `None`.
    pub session: Option<usize>,
    /// Absolute pair indices, in order.
    pub pairs: Vec<usize>,
    /// Indices into [`TraceView::calls`], in call order.
    pub calls: Vec<usize>,
}

/// The units of `view` for a scope. Session units come in session order; sessions without a
/// pair do not exist as units; calls with no pair belong to no session.
pub fn units(view: &TraceView<'_>, scope: Scope) -> Vec<Unit> {
    match scope {
        Scope::Trace => vec![Unit {
            session: None,
            pairs: (0..view.pairs.len()).collect(),
            calls: (0..view.calls.len()).collect(),
        }],
        Scope::Session => {
            let mut out: Vec<Unit> = Vec::new();
            let mut by_session: std::collections::BTreeMap<usize, usize> = Default::default();
            for p in &view.pairs {
                let slot = *by_session.entry(p.session).or_insert_with(|| {
                    out.push(Unit {
                        session: Some(p.session),
                        pairs: Vec::new(),
                        calls: Vec::new(),
                    });
                    out.len() - 1
                });
                out[slot].pairs.push(p.index);
            }
            for (ci, c) in view.calls.iter().enumerate() {
                if let Some(p) = c.pair_index.and_then(|p| view.pairs.get(p)) {
                    if let Some(&slot) = by_session.get(&p.session) {
                        out[slot].calls.push(ci);
                    }
                }
            }
            out.sort_by_key(|u| u.session);
            out
        }
    }
}

/// Which pairs a rule's `when:` selects.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WhenSelection<'a> {
    /// Whether the rule has a non-empty `when:`.
    pub active: bool,
    /// Per absolute pair index: selected or not.
    pub mask: &'a [bool],
}

impl WhenSelection<'_> {
    /// Whether pair `p` is in G.
    pub fn pair(&self, p: usize) -> bool {
        self.mask.get(p).copied().unwrap_or(false)
    }

    /// Whether a call counts as gated: its pair is in G; a call with no pair only when the rule
    /// has no `when:`.
    pub fn call(&self, c: &ToolCall) -> bool {
        match c.pair_index {
            Some(p) => self.pair(p),
            None => !self.active,
        }
    }
}

/// Everything a rule's checker sees: the trace view, the unit and the gate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scene<'a, 'v> {
    /// The trace.
    pub view: &'a TraceView<'v>,
    /// The unit being checked.
    pub unit: &'a Unit,
    /// The rule's gate.
    pub gate: WhenSelection<'a>,
    /// Where checkers note input problems that do not stop the check.
    pub warnings: &'a std::cell::RefCell<Vec<String>>,
}

impl<'a, 'v> Scene<'a, 'v> {
    /// The unit's pairs that are in G, in order.
    pub(crate) fn gated_pairs(&self) -> impl Iterator<Item = usize> + '_ {
        self.unit
            .pairs
            .iter()
            .copied()
            .filter(|&p| self.gate.pair(p))
    }

    /// The unit's calls as `(position in the unit's call list, call)`.
    pub fn calls(&self) -> impl Iterator<Item = (usize, &'a ToolCall)> + '_ {
        self.unit
            .calls
            .iter()
            .enumerate()
            .map(|(pos, &ci)| (pos, &self.view.calls[ci]))
    }

    /// Notes a warning (duplicates are dropped by the caller).
    pub fn warn(&self, message: String) {
        self.warnings.borrow_mut().push(message);
    }

    /// `trace` or `session`, for details that name the unit.
    pub(crate) fn unit_word(&self) -> &'static str {
        if self.unit.session.is_some() {
            "session"
        } else {
            "trace"
        }
    }
}
