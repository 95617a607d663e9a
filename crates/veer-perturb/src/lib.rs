//! Perturbation operators for veer experiments (spec `experiment.md` §13, veer: §13.6).
//!
//! An operator rewrites one input file the way a noisy upstream would (swapped columns, OCR
//! noise, redactions, …) so an agent can be run on the clean and the perturbed copy and the two
//! traces compared with `veer experiment`. Tabular operators read `.csv` / `.tsv` / JSON arrays
//! of objects (`tabular`); text operators read `.txt` / `.md` (`text`). Each application
//! starts a fresh `PerturbRng` from the spec seed, so the output is a pure function of
//! (content, operator, seed). Nothing here touches the file system.

#[doc(hidden)]
pub mod fuzzing;
pub(crate) mod rng;
pub(crate) mod tabular;
pub(crate) mod text;

pub(crate) use rng::PerturbRng;
use sha2::{Digest, Sha256};

/// The default base seed of an experiment (traxr's `seed=42`).
pub const DEFAULT_BASE_SEED: u64 = 42;

/// One perturbation operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// Swap two columns (header included).
    ColumnSwap,
    /// Replace header names by alternatives or abbreviations.
    LabelCorrupt,
    /// Mark numeric cells as approximate (`~1.5`, `1.5*`).
    DataTypeCorrupt,
    /// Insert marked copies of some rows.
    RowDuplicate,
    /// Append one or two noise columns.
    IrrelevantColumns,
    /// Scale one numeric column by a unit factor.
    UnitChange,
    /// Replace characters by OCR look-alikes.
    OcrNoise,
    /// Wrap some numbers in approximation marks.
    NumberCorruption,
    /// Redact some dates, long numbers and names.
    TextRedaction,
    /// Shuffle every paragraph but the first.
    ParagraphShuffle,
    /// Replace some characters by encoding debris.
    EncodingError,
    /// Remove one or two middle paragraphs.
    SectionRemoval,
    /// Replace the content by the empty string.
    NullContent,
}

impl Operator {
    /// Tabular operators in matrix order (spec §13.1).
    pub const TABULAR: [Operator; 7] = [
        Operator::ColumnSwap,
        Operator::LabelCorrupt,
        Operator::DataTypeCorrupt,
        Operator::RowDuplicate,
        Operator::IrrelevantColumns,
        Operator::UnitChange,
        Operator::NullContent,
    ];

    /// Text operators in matrix order (spec §13.1).
    pub const TEXT: [Operator; 7] = [
        Operator::OcrNoise,
        Operator::NumberCorruption,
        Operator::TextRedaction,
        Operator::ParagraphShuffle,
        Operator::EncodingError,
        Operator::SectionRemoval,
        Operator::NullContent,
    ];

    /// The operator's name as experiments and the CLI spell it (`column_swap`, …).
    pub fn name(self) -> &'static str {
        match self {
            Operator::ColumnSwap => "column_swap",
            Operator::LabelCorrupt => "label_corrupt",
            Operator::DataTypeCorrupt => "data_type_corrupt",
            Operator::RowDuplicate => "row_duplicate",
            Operator::IrrelevantColumns => "irrelevant_columns",
            Operator::UnitChange => "unit_change",
            Operator::OcrNoise => "ocr_noise",
            Operator::NumberCorruption => "number_corruption",
            Operator::TextRedaction => "text_redaction",
            Operator::ParagraphShuffle => "paragraph_shuffle",
            Operator::EncodingError => "encoding_error",
            Operator::SectionRemoval => "section_removal",
            Operator::NullContent => "null_content",
        }
    }

    /// The operator named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Operator> {
        Operator::TABULAR
            .iter()
            .chain(Operator::TEXT.iter())
            .copied()
            .find(|op| op.name() == name)
    }

    /// Every operator name, tabular then text, each once.
    pub fn all_names() -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for op in Operator::TABULAR.iter().chain(Operator::TEXT.iter()) {
            if !names.contains(&op.name()) {
                names.push(op.name());
            }
        }
        names
    }
}

/// What kind of input a file is, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `.csv` / `.tsv`: delimited rows (the delimiter is detected from the content).
    Delimited,
    /// `.json`: an array of objects.
    JsonRows,
    /// `.txt` / `.md`.
    Text,
}

impl FileKind {
    /// The kind for a file name (case-insensitive extension), or `None` when veer has no
    /// operators for it.
    pub fn from_file_name(name: &str) -> Option<FileKind> {
        let lower = name.to_ascii_lowercase();
        let ext = lower.rsplit_once('.').map(|(_, e)| e)?;
        match ext {
            "csv" | "tsv" => Some(FileKind::Delimited),
            "json" => Some(FileKind::JsonRows),
            "txt" | "md" => Some(FileKind::Text),
            _ => None,
        }
    }

    /// The operators that apply to this kind, in matrix order.
    pub fn operators(self) -> &'static [Operator] {
        match self {
            FileKind::Delimited | FileKind::JsonRows => &Operator::TABULAR,
            FileKind::Text => &Operator::TEXT,
        }
    }
}

/// What applying an operator gave.
///
/// The apply/skip decision is traxr's: an operator is skipped only when traxr records
/// `applied=False` (text under 10 characters, a table without a data row). An operator with
/// nothing to work on (one column to swap, no numeric column, fewer than 3 paragraphs) is
/// applied and may give the content back unchanged; callers report that with
/// [`PerturbOutcome::unchanged_note`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PerturbOutcome {
    /// The perturbed content.
    Applied(String),
    /// The operator does not apply to this content (traxr's skip); the reason says why.
    Skipped(String),
}

/// The note for an applied operator whose copy is byte for byte the input (traxr's
/// `content_changed` false, "No observable change").
pub const UNCHANGED_NOTE: &str = "No observable change: the perturbed copy equals the input";

impl PerturbOutcome {
    /// [`UNCHANGED_NOTE`] when the operator applied and its copy equals `input`, else `None`.
    pub fn unchanged_note(&self, input: &str) -> Option<&'static str> {
        match self {
            PerturbOutcome::Applied(text) if text == input => Some(UNCHANGED_NOTE),
            _ => None,
        }
    }
}

/// Why an operator could not be applied at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PerturbError {
    /// The operator does not exist for this kind of file.
    #[error("operator `{operator}` does not apply to {kind} files")]
    WrongModality {
        /// The operator's name.
        operator: &'static str,
        /// `tabular` or `text`.
        kind: &'static str,
    },
    /// The content cannot be read as the file kind says (e.g. JSON that is not an array of
    /// objects).
    #[error("{0}")]
    BadInput(String),
}

/// The per-spec seed: the first 4 bytes (big-endian) of SHA-256 of `"{base}:{basename}:{op}"`
/// (spec §11.1). In `0..2^32`.
pub fn derive_seed(base: u64, basename: &str, operator: &str) -> u32 {
    let digest = Sha256::digest(format!("{base}:{basename}:{operator}").as_bytes());
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// Applies `operator` to `content` (a file of `kind`) with a fresh stream seeded by `seed`.
pub fn perturb(
    content: &str,
    kind: FileKind,
    operator: Operator,
    seed: u32,
) -> Result<PerturbOutcome, PerturbError> {
    if !kind.operators().contains(&operator) {
        return Err(PerturbError::WrongModality {
            operator: operator.name(),
            kind: match kind {
                FileKind::Text => "text",
                _ => "tabular",
            },
        });
    }
    let mut rng = PerturbRng::new(seed);
    match kind {
        FileKind::Delimited => tabular::apply(content, false, operator, &mut rng),
        FileKind::JsonRows => tabular::apply(content, true, operator, &mut rng),
        FileKind::Text => Ok(text::apply(content, operator, &mut rng)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_is_the_first_four_bytes_of_the_sha256() {
        // int.from_bytes(hashlib.sha256(s.encode()).digest()[:4], "big") in Python.
        assert_eq!(derive_seed(42, "sales.csv", "column_swap"), 537_076_198);
        assert_eq!(derive_seed(7, "notes.md", "ocr_noise"), 2_711_788_910);
        assert_ne!(
            derive_seed(42, "sales.csv", "column_swap"),
            derive_seed(43, "sales.csv", "column_swap")
        );
    }

    #[test]
    fn names_round_trip_and_modalities_are_checked() {
        for name in Operator::all_names() {
            assert_eq!(Operator::from_name(name).map(Operator::name), Some(name));
        }
        assert_eq!(Operator::all_names().len(), 13);
        assert_eq!(Operator::from_name("page_shuffle"), None);
        assert_eq!(
            FileKind::from_file_name("a/B.CSV"),
            Some(FileKind::Delimited)
        );
        assert_eq!(FileKind::from_file_name("notes.md"), Some(FileKind::Text));
        assert_eq!(FileKind::from_file_name("doc.pdf"), None);
        assert!(matches!(
            perturb("a,b\n1,2\n", FileKind::Delimited, Operator::OcrNoise, 1),
            Err(PerturbError::WrongModality { .. })
        ));
    }
}
