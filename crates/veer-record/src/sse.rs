//! Server-sent events, read incrementally: the proxy passes a stream's bytes to the agent as
//! they arrive and feeds a copy here to reassemble the response for the record. Only the
//! event framing of the WHATWG `text/event-stream` format is handled (fields `event` and
//! `data`; comments and other fields ignored); HTTP itself is hyper's job.

/// One complete event: its `event:` name (empty when absent) and its `data:` lines joined
/// with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, `""` when the event had none.
    pub name: String,
    /// The `data:` fields joined with `\n`.
    pub data: String,
}

/// Splits a byte stream into events. Bytes are buffered only up to the end of the current
/// line, so memory is bounded by the longest line (the caller caps the total).
#[derive(Debug, Default)]
pub(crate) struct EventReader {
    line: Vec<u8>,
    name: String,
    data: Vec<String>,
    has_data: bool,
    last_was_cr: bool,
}

impl EventReader {
    /// A reader at the start of a stream.
    pub fn new() -> EventReader {
        EventReader::default()
    }

    /// Feeds `bytes`, appending every event they complete to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        for &b in bytes {
            if b == b'\n' && self.last_was_cr {
                self.last_was_cr = false;
                continue;
            }
            self.last_was_cr = b == b'\r';
            if b == b'\n' || b == b'\r' {
                self.end_line(out);
            } else {
                self.line.push(b);
            }
        }
    }

    /// Whether bytes of an unfinished event are pending (a stream that ends here was cut).
    pub(crate) fn has_pending(&self) -> bool {
        !self.line.is_empty() || self.has_data
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    name: std::mem::take(&mut self.name),
                    data: std::mem::take(&mut self.data).join("\n"),
                });
            }
            self.name.clear();
            self.has_data = false;
            return;
        }
        let text = String::from_utf8_lossy(&line);
        if text.starts_with(':') {
            return;
        }
        let (field, value) = match text.find(':') {
            Some(i) => {
                let v = &text[i + 1..];
                (&text[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (&text[..], ""),
        };
        match field {
            "event" => self.name = value.to_string(),
            "data" => {
                self.data.push(value.to_string());
                self.has_data = true;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut r = EventReader::new();
        let mut out = Vec::new();
        for c in chunks {
            r.feed(c, &mut out);
        }
        out
    }

    #[test]
    fn events_split_across_chunks_and_line_endings() {
        let whole: &[u8] =
            b"event: a\ndata: {\"x\":1}\n\n: comment\r\ndata:two\r\ndata: lines\r\n\r\ndata: [DONE]\n\n";
        let expect = vec![
            SseEvent {
                name: "a".into(),
                data: "{\"x\":1}".into(),
            },
            SseEvent {
                name: String::new(),
                data: "two\nlines".into(),
            },
            SseEvent {
                name: String::new(),
                data: "[DONE]".into(),
            },
        ];
        assert_eq!(all(&[whole]), expect);
        // Every split point gives the same events.
        for i in 0..whole.len() {
            assert_eq!(all(&[&whole[..i], &whole[i..]]), expect, "split at {i}");
        }
        let bytewise: Vec<&[u8]> = whole.chunks(1).collect();
        assert_eq!(all(&bytewise), expect);
    }

    #[test]
    fn a_cut_event_is_pending() {
        let mut r = EventReader::new();
        let mut out = Vec::new();
        r.feed(b"data: {\"partial\"", &mut out);
        assert!(out.is_empty() && r.has_pending());
        r.feed(b"}\n\n", &mut out);
        assert_eq!(out.len(), 1);
        assert!(!r.has_pending());
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use proptest::prelude::*;

    /// The slow definition: split the whole text into lines, then blocks at blank lines.
    fn slow(text: &str) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let (mut name, mut data, mut has) = (String::new(), Vec::<String>::new(), false);
        let normalised = text.replace("\r\n", "\n").replace('\r', "\n");
        let mut lines: Vec<&str> = normalised.split('\n').collect();
        lines.pop(); // the text after the last line ending is not a line yet
        for line in lines {
            if line.is_empty() {
                if has {
                    out.push(SseEvent {
                        name: std::mem::take(&mut name),
                        data: data.join("\n"),
                    });
                }
                name.clear();
                data.clear();
                has = false;
            } else if let Some(v) = line.strip_prefix("data:") {
                data.push(v.strip_prefix(' ').unwrap_or(v).to_string());
                has = true;
            } else if let Some(v) = line.strip_prefix("event:") {
                name = v.strip_prefix(' ').unwrap_or(v).to_string();
            }
        }
        out
    }

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z{}\":, ]{0,12}".prop_map(|v| format!("data: {v}")),
            "[a-z{}\":,]{0,12}".prop_map(|v| format!("data:{v}")),
            "[a-z_.]{1,10}".prop_map(|v| format!("event: {v}")),
            "[a-z ]{0,8}".prop_map(|v| format!(": {v}")),
            Just(String::new()),
        ]
    }

    proptest! {
        /// Fed in any chunks with any line endings, the reader gives the slow definition's
        /// events.
        #[test]
        fn chunked_reading_matches_the_slow_definition(
            lines in proptest::collection::vec(line(), 0..30),
            endings in proptest::collection::vec(0u8..3, 30),
            cuts in proptest::collection::vec(0usize..400, 0..8),
        ) {
            let mut text = String::new();
            for (l, e) in lines.iter().zip(&endings) {
                text.push_str(l);
                text.push_str(["\n", "\r\n", "\r"][usize::from(*e)]);
            }
            // A lone "\r" followed by a line starting with "\n" would be one "\r\n": the
            // generator never makes lines starting with "\n", so the two definitions agree.
            let bytes = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut r = EventReader::new();
            let mut got = Vec::new();
            let mut at = 0;
            for c in cuts.into_iter().chain([bytes.len()]) {
                r.feed(&bytes[at..c], &mut got);
                at = c;
            }
            prop_assert_eq!(got, slow(&text));
        }
    }
}
