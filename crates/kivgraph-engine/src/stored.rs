//! Memo values the fact cache keeps as their own encoding.
//!
//! salsa persists a database through `erased_serde`, one dynamic call per field, per element,
//! per byte: restoring 180 MB of file facts that way took 3.3 s, where `postcard` decodes the
//! whole published fact set (350 MB) in 0.6 s. A `Stored` value crosses that boundary as one
//! byte string (its `postcard` encoding), and is decoded only when a query reads it. A fresh
//! process that re-executes one file's queries therefore decodes that file's memos and the
//! few that read them, not the corpus.

use std::any::Any;
use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A memo value, decoded on first use when it was restored from the fact cache.
pub struct Stored<T>(Arc<Slot<T>>);

struct Slot<T> {
    decoded: OnceLock<Arc<T>>,
    /// The encoding the cache held; `None` for a value computed in this process.
    encoded: Option<Box<[u8]>>,
}

impl<T> Stored<T> {
    pub fn new(value: T) -> Self {
        Stored::from_arc(Arc::new(value))
    }

    pub fn from_arc(value: Arc<T>) -> Self {
        Stored(Arc::new(Slot {
            decoded: OnceLock::from(value),
            encoded: None,
        }))
    }
}

impl<T: DeserializeOwned> Stored<T> {
    /// The value, shared.
    pub fn arc(&self) -> Arc<T> {
        Arc::clone(self.decoded())
    }

    fn decoded(&self) -> &Arc<T> {
        self.0.decoded.get_or_init(|| {
            let bytes = self
                .0
                .encoded
                .as_deref()
                .expect("a stored value is either decoded or encoded");
            // The cache file's digest was checked when it was loaded, and these bytes are
            // what `serialize` wrote: a failure here is a bug, not a damaged file.
            Arc::new(unshared(|| postcard::from_bytes(bytes)).expect("a stored value decodes"))
        })
    }
}

impl<T: DeserializeOwned> Deref for Stored<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.decoded()
    }
}

impl<T: Default> Default for Stored<T> {
    fn default() -> Self {
        Stored::new(T::default())
    }
}

impl<T> Clone for Stored<T> {
    fn clone(&self) -> Self {
        Stored(Arc::clone(&self.0))
    }
}

impl<T: PartialEq + DeserializeOwned> PartialEq for Stored<T> {
    fn eq(&self, other: &Self) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        match (&self.0.encoded, &other.0.encoded) {
            (Some(mine), Some(theirs)) => mine == theirs,
            _ => **self == **other,
        }
    }
}

impl<T: Eq + DeserializeOwned> Eq for Stored<T> {}

impl<T: fmt::Debug> fmt::Debug for Stored<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0.decoded.get(), &self.0.encoded) {
            (Some(value), _) => value.fmt(f),
            (None, Some(bytes)) => write!(f, "Stored(<{} bytes, not decoded>)", bytes.len()),
            (None, None) => f.write_str("Stored(<empty>)"),
        }
    }
}

thread_local! {
    /// While the fact cache is written or read, the values already met: a value two memos
    /// share (a package's syntax facts, which its analyzed facts are when no analyzer ran)
    /// crosses once, and is shared again when read.
    static SHARING: RefCell<Option<Sharing>> = const { RefCell::new(None) };
}

enum Sharing {
    Writing(HashMap<usize, u32>),
    Reading(Vec<Arc<dyn Any + Send + Sync>>),
}

/// Runs `write` (a serialization of the database) sharing the values it meets.
pub(crate) fn writing_shared<R>(write: impl FnOnce() -> R) -> R {
    within(Sharing::Writing(HashMap::new()), write)
}

/// Runs `read` (a deserialization of what [`writing_shared`] wrote).
pub(crate) fn reading_shared<R>(read: impl FnOnce() -> R) -> R {
    within(Sharing::Reading(Vec::new()), read)
}

fn within<R>(sharing: Sharing, run: impl FnOnce() -> R) -> R {
    SHARING.with(|cell| *cell.borrow_mut() = Some(sharing));
    let result = run();
    SHARING.with(|cell| *cell.borrow_mut() = None);
    result
}

/// Runs `code` (encoding or decoding one value on its own) outside any sharing: a value
/// nested in another's encoding is written whole, since that encoding is read later, alone.
fn unshared<R>(code: impl FnOnce() -> R) -> R {
    let suspended = SHARING.with(|cell| cell.borrow_mut().take());
    let result = code();
    SHARING.with(|cell| *cell.borrow_mut() = suspended);
    result
}

/// Bytes serialized as one byte string.
struct Encoding<'a>(&'a [u8]);

impl Serialize for Encoding<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// A stored value crosses as a pair: `0` and its encoding the first time, then the ordinal
/// (from 1) of that first time and no bytes.
impl<T: Serialize> Serialize for Stored<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let address = Arc::as_ptr(&self.0) as *const () as usize;
        let met = SHARING.with(|cell| match cell.borrow_mut().as_mut() {
            Some(Sharing::Writing(met)) => {
                let next = met.len() as u32;
                match met.entry(address) {
                    Entry::Occupied(first) => Some(*first.get()),
                    Entry::Vacant(first) => {
                        first.insert(next);
                        None
                    }
                }
            }
            _ => None,
        });
        let mut pair = serializer.serialize_tuple(2)?;
        match met {
            Some(ordinal) => {
                pair.serialize_element(&(ordinal + 1))?;
                pair.serialize_element(&Encoding(&[]))?;
            }
            None => {
                pair.serialize_element(&0u32)?;
                match (&self.0.encoded, self.0.decoded.get()) {
                    (Some(bytes), _) => pair.serialize_element(&Encoding(bytes))?,
                    (None, Some(value)) => {
                        let bytes = unshared(|| postcard::to_stdvec(&**value))
                            .map_err(serde::ser::Error::custom)?;
                        pair.serialize_element(&Encoding(&bytes))?;
                    }
                    (None, None) => return Err(serde::ser::Error::custom("an empty stored value")),
                }
            }
        }
        pair.end()
    }
}

impl<'de, T: Send + Sync + 'static> Deserialize<'de> for Stored<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ByteSeed;
        impl<'de> serde::de::DeserializeSeed<'de> for ByteSeed {
            type Value = Box<[u8]>;
            fn deserialize<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Self::Value, D::Error> {
                deserializer.deserialize_byte_buf(self)
            }
        }
        impl serde::de::Visitor<'_> for ByteSeed {
            type Value = Box<[u8]>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("the encoding of a stored value")
            }
            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
                Ok(bytes.into())
            }
            fn visit_byte_buf<E: serde::de::Error>(self, bytes: Vec<u8>) -> Result<Self::Value, E> {
                Ok(bytes.into_boxed_slice())
            }
        }
        struct Pair<T>(std::marker::PhantomData<T>);
        impl<'de, T: Send + Sync + 'static> serde::de::Visitor<'de> for Pair<T> {
            type Value = Stored<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a stored value")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut pair: A,
            ) -> Result<Stored<T>, A::Error> {
                use serde::de::Error;
                let ordinal: u32 = pair
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let encoded = pair
                    .next_element_seed(ByteSeed)?
                    .ok_or_else(|| A::Error::invalid_length(1, &self))?;
                SHARING.with(|cell| {
                    let mut sharing = cell.borrow_mut();
                    let met = match sharing.as_mut() {
                        Some(Sharing::Reading(met)) => Some(met),
                        _ => None,
                    };
                    match (ordinal, met) {
                        (0, met) => {
                            let slot = Arc::new(Slot {
                                decoded: OnceLock::new(),
                                encoded: Some(encoded),
                            });
                            if let Some(met) = met {
                                met.push(slot.clone());
                            }
                            Ok(Stored(slot))
                        }
                        (ordinal, Some(met)) => met
                            .get(ordinal as usize - 1)
                            .cloned()
                            .and_then(|first| first.downcast::<Slot<T>>().ok())
                            .map(Stored)
                            .ok_or_else(|| {
                                A::Error::custom("a shared stored value that was not met")
                            }),
                        (_, None) => {
                            Err(A::Error::custom("a shared stored value outside the cache"))
                        }
                    }
                })
            }
        }
        deserializer.deserialize_tuple(2, Pair(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_value_crosses_the_cache_as_its_encoding_and_decodes_on_use() {
        let strings = || vec!["a".to_string(), "bc".to_string()];
        let value = Stored::new(strings());
        let bytes = postcard::to_stdvec(&value).unwrap();
        // `0`, then one byte string: its length and the inner encoding.
        let inner = postcard::to_stdvec(&strings()).unwrap();
        assert_eq!(&bytes[..2], &[0, inner.len() as u8]);
        assert_eq!(&bytes[2..], &inner[..]);
        let restored: Stored<Vec<String>> = postcard::from_bytes(&bytes).unwrap();
        assert!(format!("{restored:?}").contains("not decoded"));
        assert_eq!(restored, value);
        assert_eq!(restored.len(), 2);
        assert_eq!(format!("{restored:?}"), r#"["a", "bc"]"#);
        // Two restored values compare by encoding, without decoding.
        let again: Stored<Vec<String>> = postcard::from_bytes(&bytes).unwrap();
        let other: Stored<Vec<String>> = postcard::from_bytes(
            &postcard::to_stdvec(&Stored::new(vec!["a".to_string()])).unwrap(),
        )
        .unwrap();
        assert_eq!(again, restored);
        assert_ne!(again, other);
        assert!(format!("{again:?}").contains("not decoded"));
    }

    #[test]
    fn a_value_two_memos_share_crosses_once_and_is_shared_again() {
        let shared = Stored::new(vec!["x".repeat(100)]);
        let alone = Stored::new(vec!["y".to_string()]);
        let memos = vec![shared.clone(), alone, shared];
        let bytes = writing_shared(|| postcard::to_stdvec(&memos).unwrap());
        assert!(bytes.len() < 150, "{} bytes", bytes.len());
        let restored: Vec<Stored<Vec<String>>> =
            reading_shared(|| postcard::from_bytes(&bytes).unwrap());
        assert!(Arc::ptr_eq(&restored[0].0, &restored[2].0));
        assert_eq!(restored, memos);
        // A back-reference read outside a cache, or to a value never met, is refused.
        assert!(postcard::from_bytes::<Vec<Stored<Vec<String>>>>(&bytes).is_err());
        let dangling = postcard::to_stdvec(&(5u32, Encoding(&[]))).unwrap();
        assert!(reading_shared(|| postcard::from_bytes::<Stored<Vec<String>>>(&dangling)).is_err());
    }

    #[test]
    fn a_value_nested_in_another_is_written_whole() {
        let inner = Stored::new(vec!["z".to_string()]);
        let outer = Stored::new(vec![inner.clone()]);
        // The outer value is encoded after the inner one is met: its encoding, decoded
        // later on its own, must not point back into the cache's stream.
        let memos = (inner, outer);
        let bytes = writing_shared(|| postcard::to_stdvec(&memos).unwrap());
        type Strings = Stored<Vec<String>>;
        let (inner, outer): (Strings, Stored<Vec<Strings>>) =
            reading_shared(|| postcard::from_bytes(&bytes).unwrap());
        assert_eq!(*outer[0], *inner);
    }
}
