//! The few lines every diff printer shows for the behaviour-fingerprint test: the verdict with
//! its p-value, T², power and sample sizes, and the dimensions that moved most.

use veer_contract::fingerprint::FingerprintBlock;
use veer_contract::fingerprint::{Decision, Method};

/// How many moving dimensions the printers name.
pub(crate) const SHOWN_DIMENSIONS: usize = 3;

/// A p-value: four decimals, or scientific notation below 0.001.
pub fn p_value(p: f64) -> String {
    if p > 0.0 && p < 1e-3 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// The decision and what it means, e.g. `reject — behaviour differs`.
pub fn verdict(b: &FingerprintBlock) -> String {
    let meaning = match b.decision {
        Decision::Reject => "behaviour differs",
        Decision::FailToReject => "no joint difference",
        Decision::Underpowered => "cannot conclude",
    };
    format!("{} — {meaning}", b.decision.label())
}

/// One line: verdict, p-value and where it came from, T², power, sample sizes.
pub fn summary(b: &FingerprintBlock) -> String {
    let method = match b.method {
        Method::FDistribution => "F test",
        Method::ExactPermutation => "exact permutation",
        Method::MonteCarloPermutation => "Monte Carlo permutation",
    };
    let power = b
        .power
        .map_or_else(|| "n/a".to_string(), |p| format!("{p:.2}"));
    format!(
        "{}: p {} ({method}), T² {:.1}, power {power}, {} vs {} responses",
        verdict(b),
        p_value(b.p_value),
        b.t2,
        b.n1,
        b.n2
    )
}

/// The label of the [`movers`] list: "moved most" for a rejection, else "largest
/// contributions".
pub(crate) fn movers_label(b: &FingerprintBlock) -> &'static str {
    if b.decision == Decision::Reject {
        "moved most"
    } else {
        "largest contributions"
    }
}

/// The dimensions that contribute most to T² (positive contributions only), each as
/// `name baseline → candidate`.
pub(crate) fn movers(b: &FingerprintBlock) -> Vec<String> {
    b.top_dimensions()
        .into_iter()
        .filter(|d| d.contribution > 0.0)
        .take(SHOWN_DIMENSIONS)
        .map(|d| {
            format!(
                "{} {:.3} → {:.3}",
                d.name, d.baseline_mean, d.candidate_mean
            )
        })
        .collect()
}
