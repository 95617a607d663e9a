//! Printers of `veer bisect` (docs/bisect.md): the answer sentence every format leads with,
//! then the factors' effects. They format [`BisectReport`] and never compute a number or decide
//! what is implicated.

pub mod html;
pub mod markdown;
pub mod terminal;

use veer_contract::bisect::{BisectReport, Effect};

/// The report as JSON (bisect.json), strings redacted.
pub fn json(report: &BisectReport) -> String {
    crate::json::to_json(report)
}

/// A number with up to three decimals, trailing zeros trimmed (`0.82`, `-1.5`, `3`).
pub(crate) fn num(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// `[lo, hi]`, or `—` without an interval.
pub fn interval(ci: Option<[f64; 2]>) -> String {
    match ci {
        Some([lo, hi]) => format!("[{}, {}]", num(lo), num(hi)),
        None => "—".into(),
    }
}

/// Whether the report is a plan (nothing measured yet).
pub(crate) fn is_plan(report: &BisectReport) -> bool {
    report.measures.is_empty()
}

/// The one-line summary of the design: `3 factors, full_factorial: 8 points × 3 trials = 24
/// runs`.
pub fn design_line(report: &BisectReport) -> String {
    let d = &report.design;
    format!(
        "{} factor(s), {}{}: {} points × {} trials = {} runs",
        report.factors.len(),
        d.kind,
        d.resolution
            .map(|r| format!(" (resolution {})", roman(r)))
            .unwrap_or_default(),
        d.point_count,
        report.trials,
        d.run_count
    )
}

fn roman(r: u8) -> &'static str {
    match r {
        3 => "III",
        4 => "IV",
        5 => "V",
        _ => "?",
    }
}

fn effect<'a>(effects: &'a [Effect], measure: &str) -> Option<&'a Effect> {
    effects.iter().find(|e| e.measure == measure)
}

fn names(list: &[String]) -> String {
    match list {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {}", rest.join(", "), last),
    }
}

/// The answer, in plain text with factor names in backticks: which factors explain the
/// headline measure's change (with their shares and intervals), what they do to the policy's
/// rules, and which explain none.
pub fn answer(report: &BisectReport) -> String {
    if is_plan(report) {
        return format!("Plan: {}.", design_line(report));
    }
    let Some(headline) = report.headline.as_deref() else {
        return "The trajectory and the event sequence did not change from the baseline to the candidate configuration: there is nothing to attribute.".into();
    };
    let what = if headline == "trajectory" {
        "trajectory change"
    } else {
        "change in the event sequence (d_norm)"
    };
    let mut implicated = Vec::new();
    let mut cleared = Vec::new();
    let mut inconclusive = false;
    for f in &report.factors {
        let Some(e) = effect(&f.effects, headline) else {
            continue;
        };
        if e.ci.is_none() {
            inconclusive = true;
        }
        if e.implicated {
            let mut s = format!("the `{}` change explains ", f.name);
            match e.share {
                Some(share) => s.push_str(&format!(
                    "{} {} of the {what}",
                    num(share),
                    interval(e.share_ci)
                )),
                None => s.push_str(&format!("part of the {what}")),
            }
            let rules: Vec<String> = f
                .effects
                .iter()
                .filter(|p| p.measure.starts_with("policy:") && p.implicated)
                .map(|p| {
                    format!(
                        "{} the violation rate of `{}` by {} {}",
                        if p.estimate > 0.0 { "raises" } else { "lowers" },
                        p.measure.trim_start_matches("policy:"),
                        num(p.estimate.abs()),
                        interval(p.ci)
                    )
                })
                .collect();
            if !rules.is_empty() {
                s.push_str(&format!(" and {}", names(&rules)));
            }
            implicated.push((e.share.unwrap_or(0.0), s));
        } else {
            cleared.push(format!("`{}`", f.name));
        }
    }
    if inconclusive {
        return format!(
            "Inconclusive: with one trial per point there are no intervals, so no change can be told from the agent's noise ({} = {} from A to B); run with --trials 3 or more.",
            headline,
            report
                .measures
                .iter()
                .find(|m| m.measure == headline)
                .map_or("?".into(), |m| num(m.change))
        );
    }
    implicated.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out = String::new();
    if implicated.is_empty() {
        out.push_str(&format!(
            "No single change is implicated in the {what}: every factor's interval contains 0"
        ));
    } else {
        let parts: Vec<String> = implicated.into_iter().map(|(_, s)| s).collect();
        let mut first = parts.join("; ");
        if let Some(c) = first.get(..1) {
            first = c.to_uppercase() + first.get(1..).unwrap_or("");
        }
        out.push_str(&first);
    }
    if !cleared.is_empty() {
        out.push_str(&format!(
            "; the {} change{} explain{} none",
            names(&cleared),
            if cleared.len() > 1 { "s" } else { "" },
            if cleared.len() > 1 { "" } else { "s" }
        ));
    }
    out.push('.');
    let pairs: Vec<String> = report
        .interactions
        .iter()
        .filter(|i| effect(&i.effects, headline).is_some_and(|e| e.implicated))
        .map(|i| format!("`{}`", i.factors.join("` × `")))
        .collect();
    if !pairs.is_empty() {
        out.push_str(&format!(
            " Interaction{} implicated: {} (the effect of one depends on the other).",
            if pairs.len() > 1 { "s" } else { "" },
            names(&pairs)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(0.8234), "0.823");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(interval(Some([0.5, 1.25])), "[0.5, 1.25]");
        assert_eq!(interval(None), "—");
        assert_eq!(names(&["a".into(), "b".into(), "c".into()]), "a, b and c");
    }
}

/// Formats of `veer bisect`'s report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum BisectFormat {
    /// The answer, then a table of factors and effects (colour on a terminal).
    #[cfg_attr(feature = "cli", value(alias = "text"))]
    Terminal,
    /// bisect.json itself (`veer schema bisect`).
    Json,
    /// The answer and tables in Markdown.
    Markdown,
    /// One self-contained HTML page.
    Html,
}

impl crate::printer::OutputFormat<BisectReport> for BisectFormat {
    fn printer(self, style: crate::style::Style) -> Box<dyn crate::printer::Printer<BisectReport>> {
        match self {
            BisectFormat::Terminal => Box::new(move |r: &BisectReport| terminal::render(r, style)),
            BisectFormat::Json => Box::new(json),
            BisectFormat::Markdown => Box::new(markdown::render),
            BisectFormat::Html => Box::new(html::render),
        }
    }
}
