//! Terminal styling that a printer applies only when colour is on.

use owo_colors::OwoColorize;

/// Colour on or off for one rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Emit ANSI colour codes.
    pub colour: bool,
}

impl Style {
    /// Bold heading.
    pub fn heading(&self, s: &str) -> String {
        if self.colour {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    }
    /// Dimmed detail.
    pub fn dim(&self, s: &str) -> String {
        if self.colour {
            s.dimmed().to_string()
        } else {
            s.to_string()
        }
    }
    /// Something good.
    pub fn good(&self, s: &str) -> String {
        if self.colour {
            s.green().to_string()
        } else {
            s.to_string()
        }
    }
    /// Something worth a look.
    pub fn warn(&self, s: &str) -> String {
        if self.colour {
            s.yellow().to_string()
        } else {
            s.to_string()
        }
    }
    /// Something bad.
    pub fn bad(&self, s: &str) -> String {
        if self.colour {
            s.red().bold().to_string()
        } else {
            s.to_string()
        }
    }
}
