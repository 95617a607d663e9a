//! The one way a document becomes text: every document kind has one output-format type (an
//! enum of the formats that kind prints in, defined beside its printers), and that type picks
//! the [`Printer`] once, from the format and the [`Style`]. A front end holds a format value
//! from its flags, asks it for the printer, and hands the printer the document; it never
//! matches on the format itself. Adding a format to a kind is one variant and one arm in that
//! kind's `printer`.
//!
//! Documents that arrive a piece at a time (a directory diff's pairs) have their own streaming
//! trait beside them ([`crate::diff::stream::DirectoryPrinter`]); a streaming printer also
//! prints the whole document, so both paths give the same bytes.

use crate::style::Style;

/// Turns one document of kind `D` into the text of one output format. Printers never compute a
/// number and never decide a verdict: `D` carries both.
pub trait Printer<D: ?Sized> {
    /// The whole document as text (UTF-8, ending with a newline when the format does).
    fn print(&self, doc: &D) -> String;
}

/// An output-format type of document kind `D`: each value names one format, and
/// [`OutputFormat::printer`] is the one place that maps it to its printer.
pub trait OutputFormat<D: ?Sized>: Copy {
    /// The printer of this format, with `style` (colour) for the formats that use it.
    fn printer(self, style: Style) -> Box<dyn Printer<D>>;

    /// Prints `doc` in this format: the printer chosen, then run once.
    fn print(self, doc: &D, style: Style) -> String {
        self.printer(style).print(doc)
    }
}

/// Any function from a document to text is a printer (the formats whose printer is one
/// function need no type of their own).
impl<D: ?Sized, F: Fn(&D) -> String> Printer<D> for F {
    fn print(&self, doc: &D) -> String {
        self(doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    enum Shout {
        Loud,
        Quiet,
    }

    impl OutputFormat<str> for Shout {
        fn printer(self, style: Style) -> Box<dyn Printer<str>> {
            match (self, style.colour) {
                (Shout::Loud, _) => Box::new(|s: &str| s.to_uppercase()),
                (Shout::Quiet, _) => Box::new(|s: &str| s.to_lowercase()),
            }
        }
    }

    #[test]
    fn a_format_picks_its_printer_once() {
        let style = Style { colour: false };
        assert_eq!(Shout::Loud.print("Ab", style), "AB");
        assert_eq!(Shout::Quiet.print("Ab", style), "ab");
    }
}
