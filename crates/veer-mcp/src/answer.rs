//! A tool's answer as an MCP result. A run that ended is a success whose structured content is
//! the report document, with the summary as text — a tripped gate included, since the report
//! carries its verdict. What `veer` ends with exit 2 (bad input, an unreadable file, an input
//! the report shows but no gate counted) is an error result (`isError`) whose text is the
//! `error:` and `hint:` lines the CLI prints; the server itself carries on.

use crate::tools::ToolAnswer;
use rmcp::model::{CallToolResult, ContentBlock};
use veer_engine::Error;

/// The lines `veer` prints on stderr for `e`: `error: <message>`, one `error:` line per
/// further problem, then `hint: <hint>`; secrets redacted.
pub fn error_text(e: &Error) -> String {
    let mut out = format!("error: {}\n", e.message);
    for m in &e.more {
        out.push_str(&format!("error: {m}\n"));
    }
    if let Some(h) = &e.hint {
        out.push_str(&format!("hint: {h}\n"));
    }
    veer_secrets::display::redact(&out).into_owned()
}

/// The MCP result of a tool's run.
pub fn result(run: Result<ToolAnswer, Error>) -> CallToolResult {
    let answer = match run {
        Ok(a) => a,
        Err(e) => return CallToolResult::error(vec![ContentBlock::text(error_text(&e))]),
    };
    let text = veer_secrets::display::redact(&answer.text).into_owned();
    let mut result = match &answer.failure {
        None => CallToolResult::success(vec![ContentBlock::text(text)]),
        Some(e) => CallToolResult::error(vec![
            ContentBlock::text(error_text(e)),
            ContentBlock::text(text),
        ]),
    };
    result.structured_content = answer.document;
    result
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_an_error_result_with_the_clis_lines() {
        let e = Error::input("run.agentlog: cannot read: No such file").hint("check the path");
        let r = result(Err(e));
        assert_eq!(r.is_error, Some(true));
        assert!(r.structured_content.is_none());
        let text = &r.content[0].as_text().unwrap().text;
        assert_eq!(
            text,
            "error: run.agentlog: cannot read: No such file\nhint: check the path\n"
        );
    }

    #[test]
    fn an_answer_is_a_success_carrying_its_document_and_summary() {
        let doc = serde_json::json!({"schema_version": "1", "gate": {"tripped": true}});
        let r = result(Ok(ToolAnswer {
            document: Some(doc.clone()),
            text: "fail: …\n".into(),
            failure: None,
        }));
        assert_eq!(r.is_error, Some(false));
        assert_eq!(r.structured_content, Some(doc));
        assert_eq!(r.content[0].as_text().unwrap().text, "fail: …\n");
    }

    #[test]
    fn a_failure_the_report_shows_is_an_error_that_keeps_the_report() {
        let doc = serde_json::json!({"errors": [1]});
        let r = result(Ok(ToolAnswer {
            document: Some(doc.clone()),
            text: "summary\n".into(),
            failure: Some(Error::input("1 trace(s) could not be read").hint("see the rows")),
        }));
        assert_eq!(r.is_error, Some(true));
        assert_eq!(r.structured_content, Some(doc));
        assert!(r.content[0]
            .as_text()
            .unwrap()
            .text
            .starts_with("error: 1 trace"));
    }

    #[test]
    fn secrets_are_redacted_in_errors() {
        let key = format!("sk-ant-api03-{}", "a".repeat(93));
        let text = error_text(&Error::input(format!("bad key {key}")));
        assert!(!text.contains(&key), "{text}");
    }
}
