//! `veer plan`'s printers: the cases and trials a suite needs to detect a change, as a few
//! lines for a terminal or as JSON. The numbers come from the engine's plan
//! (`veer_contract::trials::plan::TrialsPlan`); printers only format them.

use crate::printer::{OutputFormat, Printer};
use crate::style::Style;
use veer_contract::trials::plan::{TrialsAnswer, TrialsPlan};

/// Formats `veer plan` offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum PlanFormat {
    /// A few lines of text.
    Terminal,
    /// JSON: {axis, unit, cases, cases_with_noise, trials_per_case, within_variance,
    /// unreadable, plan: {target, alpha, power, cases_needed, trials, …}}.
    Json,
}

impl OutputFormat<TrialsPlan> for PlanFormat {
    fn printer(self, _style: Style) -> Box<dyn Printer<TrialsPlan>> {
        match self {
            PlanFormat::Terminal => Box::new(terminal),
            PlanFormat::Json => Box::new(|p: &TrialsPlan| crate::json::to_json(p)),
        }
    }
}

/// The plan in a few lines.
pub fn terminal(plan: &TrialsPlan) -> String {
    let p = &plan.plan;
    let cases = p
        .cases_needed
        .map_or("more than 10,000,000".to_string(), |n| n.to_string());
    let trials = match p.trials {
        TrialsAnswer::AlreadyMet => "the current trials already reach it".to_string(),
        TrialsAnswer::Trials { per_side } => {
            format!("{per_side} trials a side reach it with these cases")
        }
        TrialsAnswer::AddCases => {
            "more trials cannot reach it with these cases: add cases".to_string()
        }
    };
    format!(
        "{} cases ({} with two or more trials), {:.1} trials per case; trial-to-trial sd {:.2} {}\n\
         to detect {} {} on {} (two-sided α {}, power {}):\n  now: MDE {:.2} {} (floor with unlimited trials {:.2})\n  cases needed at {:.1} trials a side: {cases}\n  {trials}\n\
         (assumes the change is the same in every case: ω² = 0, so these are lower bounds)\n",
        plan.cases,
        plan.cases_with_noise,
        plan.trials_per_case,
        plan.within_variance.sqrt(),
        plan.unit,
        p.target,
        plan.unit,
        plan.axis,
        p.alpha,
        p.power,
        p.current_mde,
        plan.unit,
        p.floor,
        plan.trials_per_case,
    )
}
