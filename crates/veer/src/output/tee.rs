//! One directory diff, several documents: the pairs stream once through the printer the user
//! reads, and every other printer wanted (another `--output FORMAT=PATH`, the JSON that
//! `--history` keeps) is handed the same pieces and collects its whole document, to be
//! written when the run ends. The diff runs once whatever the number of outputs.

use std::sync::{Arc, Mutex};
use veer_contract::diff::{DirectoryPair, DirectorySummary};
use veer_contract::verdict::Verdict;
use veer_report::diff::stream::DirectoryPrinter;

/// Where a second printer's document collects.
pub type Collected = Arc<Mutex<String>>;

/// A directory printer that feeds `inner` (its text is returned, as the stream writes it) and
/// every extra printer (its text lands in the extra's buffer).
pub struct Tee {
    inner: Box<dyn DirectoryPrinter>,
    extras: Vec<(Box<dyn DirectoryPrinter>, Collected)>,
}

impl Tee {
    /// Wraps the printer the user reads.
    pub fn new(inner: Box<dyn DirectoryPrinter>) -> Tee {
        Tee {
            inner,
            extras: Vec::new(),
        }
    }

    /// Also prints with `printer`, collecting its document in the buffer returned.
    pub fn also(&mut self, printer: Box<dyn DirectoryPrinter>) -> Collected {
        let buffer = Collected::default();
        self.extras.push((printer, buffer.clone()));
        buffer
    }
}

fn keep(buffer: &Collected, text: &str) {
    if let Ok(mut b) = buffer.lock() {
        b.push_str(text);
    }
}

impl DirectoryPrinter for Tee {
    fn begin(&mut self) -> String {
        for (p, buffer) in &mut self.extras {
            keep(buffer, &p.begin());
        }
        self.inner.begin()
    }

    fn pair(&mut self, pair: &DirectoryPair, verdict: &Verdict) -> String {
        for (p, buffer) in &mut self.extras {
            keep(buffer, &p.pair(pair, verdict));
        }
        self.inner.pair(pair, verdict)
    }

    fn finish(self: Box<Self>, summary: &DirectorySummary, verdict: &Verdict) -> String {
        let Tee { inner, extras } = *self;
        for (p, buffer) in extras {
            keep(&buffer, &p.finish(summary, verdict));
        }
        inner.finish(summary, verdict)
    }
}
