//! Progress on long multi-trace work: a bar on stderr, shown only when stderr is a terminal
//! and the work has already taken longer than a moment, so pipes, CI logs and quick runs stay
//! clean.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A progress bar on stderr that appears only when stderr is a terminal and the work has
/// taken longer than a moment.
pub struct Progress {
    bar: indicatif::ProgressBar,
    start: Instant,
    tty: bool,
    shown: AtomicBool,
}

impl Progress {
    const DELAY: Duration = Duration::from_millis(400);

    /// A bar for `len` items of work named `label` (hidden until shown).
    pub fn new(len: u64, label: &str) -> Progress {
        let bar = indicatif::ProgressBar::hidden();
        bar.set_length(len);
        if let Ok(style) = indicatif::ProgressStyle::with_template(&format!(
            "{{spinner}} {label} {{pos}}/{{len}} [{{bar:30}}] {{elapsed}}"
        )) {
            bar.set_style(style.progress_chars("=> "));
        }
        Progress {
            bar,
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            shown: AtomicBool::new(false),
        }
    }

    /// One item done (from any thread).
    pub fn tick(&self) {
        self.bar.inc(1);
        if self.tty
            && self.start.elapsed() > Self::DELAY
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }

    /// Clears the bar if it was shown.
    pub fn finish(&self) {
        if self.shown.load(Ordering::Relaxed) {
            self.bar.finish_and_clear();
        }
    }
}
