//! `veer policy validate`'s text: the file is valid (its rule count) and, with traces named,
//! whether every rule can fire on them, each rule that cannot with its hint.

use veer_contract::policy_validation::PolicyValidation;

/// The report of one validated policy, ending in a newline.
pub fn render(v: &PolicyValidation) -> String {
    let n = v.rules;
    let rules = format!("{n} rule{}", if n == 1 { "" } else { "s" });
    let Some(against) = &v.against else {
        return format!("{}: valid ({rules})\n", v.file);
    };
    let read = format!(
        "{} trace{}",
        against.traces,
        if against.traces == 1 { "" } else { "s" }
    );
    if against.dead.is_empty() {
        return format!(
            "{}: valid ({rules}), every rule can fire on the {read}\n",
            v.file
        );
    }
    let mut text = format!(
        "{}: valid ({rules}), but {} can never fire on the {read}:\n",
        v.file,
        against.dead.len()
    );
    for d in &against.dead {
        text.push_str(&format!(
            "  rule `{}` {}\n    hint: {}\n",
            d.rule_id, d.message, d.hint
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use veer_contract::policy_validation::{AgainstTraces, DeadRuleRow};

    #[test]
    fn names_the_rule_count_and_each_rule_that_cannot_fire() {
        let mut v = PolicyValidation {
            file: "p.yaml".into(),
            rules: 1,
            against: None,
        };
        assert_eq!(render(&v), "p.yaml: valid (1 rule)\n");
        v.rules = 2;
        v.against = Some(AgainstTraces {
            traces: 1,
            dead: Vec::new(),
            unreadable: Vec::new(),
        });
        assert_eq!(
            render(&v),
            "p.yaml: valid (2 rules), every rule can fire on the 1 trace\n"
        );
        v.against = Some(AgainstTraces {
            traces: 3,
            dead: vec![DeadRuleRow {
                rule_id: "r".into(),
                message: "names `x`".into(),
                hint: "did you mean `y`?".into(),
            }],
            unreadable: Vec::new(),
        });
        assert_eq!(
            render(&v),
            "p.yaml: valid (2 rules), but 1 can never fire on the 3 traces:\n  rule `r` names `x`\n    hint: did you mean `y`?\n"
        );
    }
}
