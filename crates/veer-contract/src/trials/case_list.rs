//! The cases of a trials report, in case-key order: held in memory, or — for a large suite —
//! read back case by case from wherever the engine keeps them (a temporary file), so a report
//! of 10,000 cases is never held whole. The contract only defines the list and the
//! [`CaseSource`] hook; the engine supplies the file-backed source. Serialises as a JSON array
//! of [`CaseBlock`], exactly as a `Vec<CaseBlock>` would.

use super::CaseBlock;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::sync::{Arc, Mutex};

/// Cases kept outside memory and read back on every pass.
pub trait CaseSource: std::fmt::Debug + Send + Sync {
    /// The number of cases.
    fn len(&self) -> usize;

    /// Whether there is no case.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cases in order; an item is `Err(message)` when one cannot be read back.
    fn cases(&self) -> Box<dyn Iterator<Item = Result<CaseBlock, String>> + '_>;

    /// Where the cases are kept (a temporary file), when that is a path.
    fn path(&self) -> Option<&std::path::Path>;
}

/// The cases of a trials report (see the module comment).
#[derive(Debug, Clone, Default)]
pub struct CaseList {
    inner: Inner,
}

#[derive(Debug, Clone)]
enum Inner {
    Memory(Vec<CaseBlock>),
    Source(Arc<dyn CaseSource>, Arc<Mutex<Option<String>>>),
}

impl Default for Inner {
    fn default() -> Inner {
        Inner::Memory(Vec::new())
    }
}

impl From<Vec<CaseBlock>> for CaseList {
    fn from(cases: Vec<CaseBlock>) -> CaseList {
        CaseList {
            inner: Inner::Memory(cases),
        }
    }
}

impl CaseList {
    /// A list read back from `source` on every pass.
    pub fn from_source(source: Arc<dyn CaseSource>) -> CaseList {
        CaseList {
            inner: Inner::Source(source, Arc::new(Mutex::new(None))),
        }
    }

    /// The number of cases.
    pub fn len(&self) -> usize {
        match &self.inner {
            Inner::Memory(v) => v.len(),
            Inner::Source(s, _) => s.len(),
        }
    }

    /// Whether there is no case.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the cases are kept outside memory.
    pub fn spilled(&self) -> bool {
        matches!(self.inner, Inner::Source(..))
    }

    /// Where a spilled list is kept; None in memory.
    pub fn spill_path(&self) -> Option<&std::path::Path> {
        match &self.inner {
            Inner::Memory(_) => None,
            Inner::Source(s, _) => s.path(),
        }
    }

    /// The cases in order. Reading a spilled list back can fail: the pass then ends early and
    /// [`CaseList::read_error`] says why.
    pub fn iter(&self) -> CaseIter<'_> {
        match &self.inner {
            Inner::Memory(v) => CaseIter(IterInner::Memory(v.iter())),
            Inner::Source(s, error) => CaseIter(IterInner::Source(s.cases(), error)),
        }
    }

    /// The first error met reading a spilled list back, if any: a report printed while it
    /// happened is incomplete and must not be trusted.
    pub fn read_error(&self) -> Option<String> {
        match &self.inner {
            Inner::Memory(_) => None,
            Inner::Source(_, error) => error.lock().ok().and_then(|e| e.clone()),
        }
    }
}

/// The cases of a [`CaseList`], borrowed from memory or read back from its source.
pub struct CaseIter<'a>(IterInner<'a>);

enum IterInner<'a> {
    Memory(std::slice::Iter<'a, CaseBlock>),
    Source(
        Box<dyn Iterator<Item = Result<CaseBlock, String>> + 'a>,
        &'a Mutex<Option<String>>,
    ),
}

impl<'a> Iterator for CaseIter<'a> {
    type Item = Cow<'a, CaseBlock>;

    fn next(&mut self) -> Option<Cow<'a, CaseBlock>> {
        match &mut self.0 {
            IterInner::Memory(it) => it.next().map(Cow::Borrowed),
            IterInner::Source(it, error) => match it.next()? {
                Ok(case) => Some(Cow::Owned(case)),
                Err(e) => {
                    if let Ok(mut slot) = error.lock() {
                        slot.get_or_insert(e);
                    }
                    None
                }
            },
        }
    }
}

impl Serialize for CaseList {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error as _, SerializeSeq};
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for case in self.iter() {
            seq.serialize_element(&*case)?;
        }
        if let Some(e) = self.read_error() {
            return Err(S::Error::custom(e));
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for CaseList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<CaseList, D::Error> {
        Vec::<CaseBlock>::deserialize(deserializer).map(CaseList::from)
    }
}

impl PartialEq for CaseList {
    fn eq(&self, other: &CaseList) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}
