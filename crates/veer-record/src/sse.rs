//! Server-sent events, read incrementally: the proxy passes a stream's bytes to the agent as
//! they arrive and feeds a copy here to reassemble the response for the record. Only the
//! event framing of the WHATWG `text/event-stream` format is handled (fields `event` and
//! `data`; comments and other fields ignored); HTTP itself is hyper's job.

/// One complete event: its `event:` name (empty when absent) and its `data:` lines joined
/// with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event:` field, `""` when the event had none.
    pub name: String,
    /// The `data:` fields joined with `\n`.
    pub data: String,
}

/// Splits a byte stream into events. Bytes are buffered only up to the end of the current
/// line, so memory is bounded by the longest line (the caller caps the total).
#[derive(Debug, Default)]
pub struct EventReader {
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
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<Event>) {
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
    pub fn has_pending(&self) -> bool {
        !self.line.is_empty() || self.has_data
    }

    fn end_line(&mut self, out: &mut Vec<Event>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            if self.has_data {
                out.push(Event {
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

    fn all(chunks: &[&[u8]]) -> Vec<Event> {
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
            Event {
                name: "a".into(),
                data: "{\"x\":1}".into(),
            },
            Event {
                name: String::new(),
                data: "two\nlines".into(),
            },
            Event {
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
