//! Object keys as one thin, shared pointer.
//!
//! Object entries are most of a read trace's payload memory (a 100,000-turn trace holds about
//! three million), and the key is half of an entry. `Arc<str>` is a 16-byte fat pointer;
//! [`Key`] points at a shared `Box<str>` instead, 8 bytes, so an entry (key and [`super::Json`])
//! is 32 bytes. The reader hands out one key allocation per distinct key, so the extra
//! indirection costs a few allocations per trace, not one per entry.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// An object key: a string, shared between the entries that repeat it. 8 bytes. Compares,
/// hashes and orders as its text.
#[derive(Clone)]
pub struct Key(Arc<Box<str>>);

impl Key {
    #[cfg(test)]
    /// Whether `a` and `b` share one allocation.
    pub(crate) fn ptr_eq(a: &Key, b: &Key) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl Deref for Key {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Key {
    fn borrow(&self) -> &str {
        self
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        **self == **other
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key(Arc::new(s.into()))
    }
}

impl From<String> for Key {
    fn from(s: String) -> Key {
        Key(Arc::new(s.into_boxed_str()))
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_one_pointer_and_reads_as_its_text() {
        assert_eq!(std::mem::size_of::<Key>(), 8);
        assert_eq!(std::mem::size_of::<(Key, super::super::Json)>(), 32);
        let k = Key::from("role");
        assert_eq!(&*k, "role");
        assert_eq!(k, Key::from(String::from("role")));
        assert!(!Key::ptr_eq(&k, &Key::from("role")));
        assert!(Key::ptr_eq(&k, &k.clone()));
        let set: std::collections::HashSet<Key> = [k].into_iter().collect();
        assert!(set.contains("role"));
    }
}
