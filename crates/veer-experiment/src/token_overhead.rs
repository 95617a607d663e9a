//! Token usage of a run and the token overhead of a pair (spec `experiment.md` §8, §12.3).
//!
//! Totals come from captured usage only: `llm_call.usage.{prompt_tokens, completion_tokens}`
//! (traxr) or `chat_response.usage.{input_tokens, output_tokens}` (`.agentlog`).
//! `usage.total_tokens` is ignored. The overhead is null whenever either side has no tokens —
//! never a made-up 1.0.

use crate::events::MetricEvent;
use veer_trace::json::Object;
use veer_trace::Json;

/// traxr's `CostProxy`: token and step counters of one run.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct CostProxy {
    /// prompt + completion tokens; ≥ 0.
    pub total_tokens: f64,
    /// Prompt (input) tokens; ≥ 0.
    pub prompt_tokens: f64,
    /// Completion (output) tokens; ≥ 0.
    pub completion_tokens: f64,
    /// Retrieval calls (not captured in traces; always 0 here).
    pub retrieval_calls: u64,
    /// Number of LLM calls (`llm_call` events / responses).
    pub total_steps: u64,
}

impl CostProxy {
    /// Adds `prompt` and `completion` tokens (and their sum to the total).
    pub(crate) fn add_tokens(&mut self, prompt: f64, completion: f64) {
        self.prompt_tokens += prompt;
        self.completion_tokens += completion;
        self.total_tokens += prompt + completion;
    }
}

fn count(usage: &Object, key: &str) -> f64 {
    usage.get(key).and_then(Json::as_f64).unwrap_or(0.0)
}

/// The cost of a run from its events: one step per `llm_call`; tokens from each truthy
/// `usage` object (`usage: null` contributes 0).
pub(crate) fn cost_from_events(events: &[MetricEvent<'_>]) -> CostProxy {
    let mut cost = CostProxy::default();
    for e in events.iter().filter(|e| e.event_type() == "llm_call") {
        cost.total_steps += 1;
        if let Some(Json::Object(u)) = e.field("usage").as_deref() {
            if !u.is_empty() {
                cost.add_tokens(count(u, "prompt_tokens"), count(u, "completion_tokens"));
            }
        }
    }
    cost
}

/// perturbed / baseline total tokens (unrounded, ≥ 0; 1.0 = same usage), only when both
/// totals are positive; `None` ("unavailable") otherwise.
pub fn token_overhead(baseline_tokens: f64, perturbed_tokens: f64) -> Option<f64> {
    (baseline_tokens > 0.0 && perturbed_tokens > 0.0).then(|| perturbed_tokens / baseline_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_tokens_accumulates() {
        let mut c = CostProxy::default();
        c.add_tokens(100.0, 50.0);
        c.add_tokens(10.0, 5.0);
        assert_eq!(
            (c.prompt_tokens, c.completion_tokens, c.total_tokens),
            (110.0, 55.0, 165.0)
        );
    }

    #[test]
    fn overhead_is_null_without_tokens() {
        assert_eq!(token_overhead(0.0, 10.0), None);
        assert_eq!(token_overhead(10.0, 0.0), None);
        assert_eq!(token_overhead(30.0, 30.0), Some(1.0));
        assert_eq!(token_overhead(10.0, 30.0), Some(3.0));
    }
}
