//! Model pricing for the cost axis: parsing a pricing file, resolving a model name (exact,
//! then with a dated snapshot suffix stripped) and the cost of one response (spec `diff.md`
//! §5.6). Rates are USD per token.

use crate::turn::CostInputs;
use serde_json::Value;
use std::collections::BTreeMap;

/// Per-token rates of one model, in USD per token. Optional rates default to 0.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ModelPrice {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cached input reads (0 → the input rate).
    pub cached_input: f64,
    /// 5-minute cache writes (0 → the input rate).
    pub cached_write_5m: f64,
    /// 1-hour cache writes (0 → the input rate).
    pub cached_write_1h: f64,
    /// Thinking tokens (0 → the output rate).
    pub reasoning: f64,
    /// Multiplier applied to batch requests when > 0 (e.g. 0.5).
    pub batch_discount: f64,
}

/// A pricing table: model name → rates. Empty means "no pricing".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pricing {
    models: BTreeMap<String, ModelPrice>,
}

/// A pricing file that could not be used; names the entry and field (and, for a syntax
/// error, the line and column).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct PricingError {
    /// JSON path of the offending value, e.g. `gpt-5.output`; `(file)` for the whole file.
    pub field: String,
    /// 1-based line of a syntax error.
    pub line: Option<usize>,
    /// 1-based column of a syntax error.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

const FIELDS: [&str; 7] = [
    "input",
    "output",
    "cached_input",
    "cached_write_5m",
    "cached_write_1h",
    "reasoning",
    "batch_discount",
];

fn rate(model: &str, field: &str, v: &Value) -> Result<f64, PricingError> {
    match v.as_f64() {
        Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(PricingError {
            field: format!("{model}.{field}"),
            line: None,
            column: None,
            message: format!("must be a non-negative number (USD per token), found {v}"),
        }),
    }
}

impl Pricing {
    /// No pricing: every model is unpriced.
    pub fn none() -> Pricing {
        Pricing::default()
    }

    /// Whether the table has no model.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// Adds or replaces one model's rates.
    pub fn insert(&mut self, model: impl Into<String>, price: ModelPrice) {
        self.models.insert(model.into(), price);
    }

    /// Parses a pricing file: a JSON object; keys starting with `_` are ignored; a value is
    /// either `[input, output]` or an object with the seven rate fields (missing → 0).
    /// Unknown fields inside an entry, non-numeric or negative rates are errors.
    pub fn from_json(text: &str) -> Result<Pricing, PricingError> {
        let v: Value = veer_trace::strict_json::parse_strict(text).map_err(|e| {
            let full = e.to_string();
            let message = match full.rfind(" at line ") {
                Some(i) => full[..i].to_string(),
                None => full,
            };
            PricingError {
                field: "(file)".into(),
                line: Some(e.line()),
                column: Some(e.column().max(1)),
                message: format!("not valid JSON: {message}"),
            }
        })?;
        let Value::Object(entries) = v else {
            return Err(PricingError {
                field: "(file)".into(),
                line: None,
                column: None,
                message: "must be a JSON object mapping model names to prices".into(),
            });
        };
        let mut out = Pricing::default();
        for (model, entry) in &entries {
            if model.starts_with('_') {
                continue;
            }
            let price = match entry {
                Value::Array(a) if a.len() == 2 => ModelPrice {
                    input: rate(model, "[0]", &a[0])?,
                    output: rate(model, "[1]", &a[1])?,
                    ..ModelPrice::default()
                },
                Value::Object(o) => {
                    if let Some(k) = o.keys().find(|k| !FIELDS.contains(&k.as_str())) {
                        return Err(PricingError {
                            field: format!("{model}.{k}"),
                            line: None,
                            column: None,
                            message: format!(
                                "unknown price field; expected one of {}",
                                FIELDS.join(", ")
                            ),
                        });
                    }
                    let get = |f: &str| o.get(f).map_or(Ok(0.0), |v| rate(model, f, v));
                    ModelPrice {
                        input: get("input")?,
                        output: get("output")?,
                        cached_input: get("cached_input")?,
                        cached_write_5m: get("cached_write_5m")?,
                        cached_write_1h: get("cached_write_1h")?,
                        reasoning: get("reasoning")?,
                        batch_discount: get("batch_discount")?,
                    }
                }
                other => {
                    return Err(PricingError {
                        field: model.clone(),
                        line: None,
                        column: None,
                        message: format!(
                            "must be [input, output] or an object of rates, found {other}"
                        ),
                    })
                }
            };
            out.models.insert(model.clone(), price);
        }
        Ok(out)
    }

    /// The rates for `model`: exact name, else the name with a `-YYYY-MM-DD` or `-YYYYMMDD`
    /// snapshot suffix removed.
    pub fn lookup(&self, model: &str) -> Option<&ModelPrice> {
        if let Some(p) = self.models.get(model) {
            return Some(p);
        }
        strip_snapshot(model).and_then(|base| self.models.get(base))
    }

    /// Cost of one response in USD: `None` when the model or the input/output token counts
    /// are missing; 0.0 when the model is not priced.
    pub(crate) fn cost_of(&self, t: &CostInputs) -> Option<f64> {
        let model = t.model?;
        let input_tokens = t.input_tokens?;
        let output_tokens = t.output_tokens?;
        let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
        let Some(p) = self.lookup(model) else {
            return Some(0.0);
        };
        let cached_rate = if p.cached_input > 0.0 {
            p.cached_input
        } else {
            p.input
        };
        let reasoning_rate = if p.reasoning > 0.0 {
            p.reasoning
        } else {
            p.output
        };
        let w5 = if p.cached_write_5m > 0.0 {
            p.cached_write_5m
        } else {
            p.input
        };
        let w1 = if p.cached_write_1h > 0.0 {
            p.cached_write_1h
        } else {
            p.input
        };
        let mut cost = finite(input_tokens) * p.input
            + finite(t.cached_input_tokens) * cached_rate
            + finite(t.cached_write_5m_tokens) * w5
            + finite(t.cached_write_1h_tokens) * w1
            + finite(output_tokens) * p.output
            + finite(t.thinking_tokens) * reasoning_rate;
        if t.batch && p.batch_discount > 0.0 {
            cost *= p.batch_discount;
        }
        Some(cost)
    }

    /// Whether `model` resolves in the table (exactly or snapshot-stripped).
    pub fn prices(&self, model: Option<&str>) -> bool {
        model.is_some_and(|m| self.lookup(m).is_some())
    }
}

/// `model` without a dated snapshot suffix, when it has one.
pub(crate) fn strip_snapshot(model: &str) -> Option<&str> {
    let b = model.as_bytes();
    let n = b.len();
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    if n > 11 && b[n - 11] == b'-' {
        let s = &b[n - 10..];
        if digits(&s[0..4]) && s[4] == b'-' && digits(&s[5..7]) && s[7] == b'-' && digits(&s[8..10])
        {
            return Some(&model[..n - 11]);
        }
    }
    if n > 9 && b[n - 9] == b'-' && digits(&b[n - 8..]) {
        return Some(&model[..n - 9]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_suffixes() {
        assert_eq!(strip_snapshot("gpt-5-2025-08-07"), Some("gpt-5"));
        assert_eq!(
            strip_snapshot("claude-opus-4-7-20250219"),
            Some("claude-opus-4-7")
        );
        assert_eq!(strip_snapshot("o1"), None);
    }

    #[test]
    fn parse_forms_and_errors() {
        let p = Pricing::from_json(r#"{"_note":"x","a":[1e-6,2e-6],"b":{"input":1e-6}}"#).unwrap();
        assert_eq!(p.lookup("a").unwrap().output, 2e-6);
        assert_eq!(p.lookup("b-20250101").unwrap().input, 1e-6);
        let e = Pricing::from_json(r#"{"a":{"input":"cheap"}}"#).unwrap_err();
        assert_eq!(e.field, "a.input");
        let e = Pricing::from_json(r#"{"a":[1]}"#).unwrap_err();
        assert_eq!(e.field, "a");
        assert!(Pricing::from_json("[]").is_err());
        assert!(Pricing::from_json("{").is_err());
    }
}
