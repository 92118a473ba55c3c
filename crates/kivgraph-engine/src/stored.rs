//! Memo values the fact cache keeps as their own encoding.
//!
//! salsa persists a database through `erased_serde`, one dynamic call per field, per element,
//! per byte: restoring 180 MB of file facts that way took 3.3 s, where `postcard` decodes the
//! whole published fact set (350 MB) in 0.6 s. A `Stored` value is its `postcard` encoding
//! kept in the value file (`values.rs`), and crosses salsa's serialization as the encoding's
//! digest; it is decoded only when a query reads it. A new process that re-executes one
//! file's queries therefore decodes that file's memos and the few that read them, and the
//! save that follows appends only the values it computed.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::values::{Appender, Digest, Mapped, Values};

/// A memo value, decoded on first use when it was restored from the fact cache.
pub struct Stored<T>(Arc<Slot<T>>);

struct Slot<T> {
    decoded: OnceLock<Arc<T>>,
    /// The encoding the cache held; `None` for a value computed in this process.
    encoding: Option<Encoding>,
    /// The BLAKE3 of the encoding, once known.
    digest: OnceLock<Digest>,
}

enum Encoding {
    /// Read from the cache's value file, still mapped.
    Mapped(Mapped),
    /// Carried in the serialized bytes themselves (a value written outside a cache).
    Inline(Box<[u8]>),
}

impl Encoding {
    fn bytes(&self) -> &[u8] {
        match self {
            Encoding::Mapped(mapped) => mapped.bytes(),
            Encoding::Inline(bytes) => bytes,
        }
    }
}

impl<T> Stored<T> {
    pub fn new(value: T) -> Self {
        Stored(Arc::new(Slot {
            decoded: OnceLock::from(Arc::new(value)),
            encoding: None,
            digest: OnceLock::new(),
        }))
    }

    fn restored(encoding: Encoding, digest: Option<Digest>) -> Self {
        Stored(Arc::new(Slot {
            decoded: OnceLock::new(),
            encoding: Some(encoding),
            digest: digest.map(OnceLock::from).unwrap_or_default(),
        }))
    }
}

impl<T> Stored<T> {
    /// The BLAKE3 of the value's encoding, when known without encoding it: a value the cache
    /// restored, or one it has saved.
    pub fn digest(&self) -> Option<Digest> {
        if let Some(digest) = self.0.digest.get() {
            return Some(*digest);
        }
        let encoding = self.0.encoding.as_ref()?;
        Some(
            *self
                .0
                .digest
                .get_or_init(|| *blake3::hash(encoding.bytes()).as_bytes()),
        )
    }
}

impl<T: Serialize> Stored<T> {
    /// The digest, encoding a value computed in this process when nothing knows it yet (no
    /// save since it was computed): the bytes a save would write, so a value has one digest
    /// whether or not the cache was written in between.
    pub fn digest_or_encode(&self) -> Option<Digest> {
        if let Some(digest) = self.digest() {
            return Some(digest);
        }
        let value = self.0.decoded.get()?;
        let bytes = unshared(|| postcard::to_stdvec(&**value)).ok()?;
        Some(
            *self
                .0
                .digest
                .get_or_init(|| *blake3::hash(&bytes).as_bytes()),
        )
    }
}

impl<T: DeserializeOwned> Stored<T> {
    /// The value, shared.
    pub fn arc(&self) -> Arc<T> {
        Arc::clone(self.decoded())
    }

    fn decoded(&self) -> &Arc<T> {
        self.0.decoded.get_or_init(|| {
            let encoding = self
                .0
                .encoding
                .as_ref()
                .expect("a stored value is either decoded or encoded");
            // Every record of the value file was checked against its digest when the file
            // was opened, and its bytes are what `serialize` wrote: a failure here is a
            // bug, not a damaged file.
            Arc::new(
                unshared(|| postcard::from_bytes(encoding.bytes()))
                    .expect("a stored value decodes"),
            )
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
        if let (Some(mine), Some(theirs)) = (self.0.digest.get(), other.0.digest.get()) {
            return mine == theirs;
        }
        match (&self.0.encoding, &other.0.encoding) {
            (Some(mine), Some(theirs)) => mine.bytes() == theirs.bytes(),
            _ => **self == **other,
        }
    }
}

impl<T: Eq + DeserializeOwned> Eq for Stored<T> {}

impl<T: fmt::Debug> fmt::Debug for Stored<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0.decoded.get(), &self.0.encoding) {
            (Some(value), _) => value.fmt(f),
            (None, Some(encoding)) => {
                write!(f, "Stored(<{} bytes, not decoded>)", encoding.bytes().len())
            }
            (None, None) => f.write_str("Stored(<empty>)"),
        }
    }
}

thread_local! {
    /// The value file a serialization of the database writes to or reads from.
    static CACHE: RefCell<Option<Cache>> = const { RefCell::new(None) };
}

enum Cache {
    Writing(Appender),
    Reading {
        values: Values,
        /// The values already restored, by digest and type: two memos that named one value
        /// share it again (a package's syntax facts are its analyzed facts when no analyzer
        /// ran). The type is part of the name because two empty values of different types
        /// can encode alike.
        met: HashMap<(Digest, TypeId), Arc<dyn Any + Send + Sync>>,
    },
}

/// Runs `write` (a serialization of the database) with every stored value it meets put in
/// `values`, which it returns.
pub(crate) fn writing<R>(values: Appender, write: impl FnOnce() -> R) -> (R, Appender) {
    CACHE.with(|cell| *cell.borrow_mut() = Some(Cache::Writing(values)));
    let result = write();
    match CACHE.with(|cell| cell.borrow_mut().take()) {
        Some(Cache::Writing(values)) => (result, values),
        _ => unreachable!("the writing cache is restored after every nested encoding"),
    }
}

/// Runs `read` (a deserialization of what [`writing`] wrote) with its values in `values`.
pub(crate) fn reading<R>(values: Values, read: impl FnOnce() -> R) -> R {
    CACHE.with(|cell| {
        *cell.borrow_mut() = Some(Cache::Reading {
            values,
            met: HashMap::new(),
        })
    });
    let result = read();
    CACHE.with(|cell| *cell.borrow_mut() = None);
    result
}

/// Runs `code` (encoding or decoding one value on its own) outside the cache: a value nested
/// in another's encoding is written whole, since that encoding is read later, alone.
fn unshared<R>(code: impl FnOnce() -> R) -> R {
    let suspended = CACHE.with(|cell| cell.borrow_mut().take());
    let result = code();
    CACHE.with(|cell| *cell.borrow_mut() = suspended);
    result
}

/// Bytes serialized as one byte string.
struct Encoded<'a>(&'a [u8]);

impl Serialize for Encoded<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

const INLINE: u8 = 0;
const IN_VALUE_FILE: u8 = 1;

/// A stored value crosses as a pair: `IN_VALUE_FILE` and its digest while the fact cache is
/// written, else `INLINE` and its encoding.
impl<T: Serialize> Serialize for Stored<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeTuple};
        let fresh = || match (&self.0.encoding, self.0.decoded.get()) {
            (Some(encoding), _) => Ok(std::borrow::Cow::Borrowed(encoding.bytes())),
            (None, Some(value)) => unshared(|| postcard::to_stdvec(&**value))
                .map(std::borrow::Cow::Owned)
                .map_err(S::Error::custom),
            (None, None) => Err(S::Error::custom("an empty stored value")),
        };
        let mut pair = serializer.serialize_tuple(2)?;
        // The cache is borrowed only around its own calls: encoding a value suspends it.
        let writing = CACHE.with(|cell| matches!(*cell.borrow(), Some(Cache::Writing(_))));
        let filed = if writing {
            let held = self.0.digest.get().copied().filter(|digest| {
                CACHE.with(|cell| match cell.borrow().as_ref() {
                    Some(Cache::Writing(values)) => values.holds(digest),
                    _ => false,
                })
            });
            // Held already: named live, nothing encoded or written.
            let (digest, bytes) = match held {
                Some(digest) => (digest, None),
                None => {
                    let bytes = fresh()?;
                    let digest = *self
                        .0
                        .digest
                        .get_or_init(|| *blake3::hash(&bytes).as_bytes());
                    (digest, Some(bytes))
                }
            };
            CACHE
                .with(|cell| match cell.borrow_mut().as_mut() {
                    Some(Cache::Writing(values)) => {
                        values.put(digest, bytes.as_deref().unwrap_or(&[]))
                    }
                    _ => unreachable!("still writing"),
                })
                .map_err(S::Error::custom)?;
            Some(digest)
        } else {
            None
        };
        match filed {
            Some(digest) => {
                pair.serialize_element(&IN_VALUE_FILE)?;
                pair.serialize_element(&Encoded(&digest))?;
            }
            None => {
                pair.serialize_element(&INLINE)?;
                pair.serialize_element(&Encoded(&fresh()?))?;
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
                let tag: u8 = pair
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let bytes = pair
                    .next_element_seed(ByteSeed)?
                    .ok_or_else(|| A::Error::invalid_length(1, &self))?;
                if tag == INLINE {
                    return Ok(Stored::restored(Encoding::Inline(bytes), None));
                }
                let digest: Digest = (*bytes)
                    .try_into()
                    .map_err(|_| A::Error::custom("a digest of another length"))?;
                CACHE.with(|cell| match cell.borrow_mut().as_mut() {
                    Some(Cache::Reading { values, met }) => {
                        let name = (digest, TypeId::of::<T>());
                        if let Some(first) = met.get(&name) {
                            let first = Arc::clone(first).downcast::<Slot<T>>();
                            return Ok(Stored(first.expect("named with its type")));
                        }
                        let mapped = values
                            .get(&digest)
                            .ok_or_else(|| A::Error::custom("a value the value file lacks"))?;
                        let stored = Stored::restored(Encoding::Mapped(mapped), Some(digest));
                        met.insert(name, stored.0.clone());
                        Ok(stored)
                    }
                    _ => Err(A::Error::custom("a value named outside the fact cache")),
                })
            }
        }
        deserializer.deserialize_tuple(2, Pair(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Strings = Stored<Vec<String>>;

    fn strings(texts: &[&str]) -> Strings {
        Stored::new(texts.iter().map(|t| t.to_string()).collect())
    }

    #[test]
    fn outside_a_cache_a_stored_value_carries_its_encoding_and_decodes_on_use() {
        let value = strings(&["a", "bc"]);
        let bytes = postcard::to_stdvec(&value).unwrap();
        let inner = postcard::to_stdvec(&*value).unwrap();
        assert_eq!(&bytes[..2], &[INLINE, inner.len() as u8]);
        assert_eq!(&bytes[2..], &inner[..]);
        let restored: Strings = postcard::from_bytes(&bytes).unwrap();
        assert!(format!("{restored:?}").contains("not decoded"));
        assert_eq!(restored, value);
        assert_eq!(restored.len(), 2);
        assert_eq!(format!("{restored:?}"), r#"["a", "bc"]"#);
        // Two restored values compare by encoding, without decoding.
        let again: Strings = postcard::from_bytes(&bytes).unwrap();
        let other: Strings =
            postcard::from_bytes(&postcard::to_stdvec(&strings(&["a"])).unwrap()).unwrap();
        assert_eq!(again, restored);
        assert_ne!(again, other);
        assert!(format!("{again:?}").contains("not decoded"));
    }

    #[test]
    fn in_a_cache_values_are_named_by_digest_written_once_and_shared_again() {
        let dir = tempfile::tempdir().unwrap();
        let shared = strings(&[&"x".repeat(100)]);
        let nested = Stored::new(vec![shared.clone()]);
        let memos = (vec![shared.clone(), strings(&["y"]), shared], nested);
        let (bytes, values) = writing(Appender::open(dir.path()).unwrap(), || {
            postcard::to_stdvec(&memos).unwrap()
        });
        values.finish().unwrap();
        // Digests only: the hundred bytes are in the value file, once.
        assert!(bytes.len() < 4 * 34 + 8, "{} bytes", bytes.len());
        type Memos = (Vec<Strings>, Stored<Vec<Strings>>);
        let open = || Values::open(dir.path()).unwrap().unwrap();
        let restored: Memos = reading(open(), || postcard::from_bytes(&bytes).unwrap());
        assert!(Arc::ptr_eq(&restored.0[0].0, &restored.0[2].0));
        assert_eq!(restored, memos);
        // The nested value was written whole inside its container's encoding.
        assert_eq!(*restored.1[0], *memos.0[0]);
        // Names read outside the cache, or missing from the value file, are refused.
        assert!(postcard::from_bytes::<Memos>(&bytes).is_err());
        let dangling = postcard::to_stdvec(&(IN_VALUE_FILE, Encoded(&[9; 32]))).unwrap();
        assert!(reading(open(), || postcard::from_bytes::<Strings>(&dangling)).is_err());

        // A second save of the restored values appends nothing.
        let size = std::fs::metadata(dir.path().join(crate::values::FILE_NAME))
            .unwrap()
            .len();
        let (again, values) = writing(Appender::open(dir.path()).unwrap(), || {
            postcard::to_stdvec(&restored).unwrap()
        });
        assert_eq!(values.finish().unwrap(), size);
        assert_eq!(again, bytes);

        // Two empty values of different types encode alike: each is restored as its own.
        let empties = (
            Stored::new(Vec::<String>::new()),
            Stored::new(Vec::<u32>::new()),
        );
        let (bytes_of_empties, values) = writing(Appender::open(dir.path()).unwrap(), || {
            postcard::to_stdvec(&empties).unwrap()
        });
        values.finish().unwrap();
        type Empties = (Stored<Vec<String>>, Stored<Vec<u32>>);
        let restored_empties: Empties =
            reading(open(), || postcard::from_bytes(&bytes_of_empties).unwrap());
        assert!(restored_empties.0.is_empty() && restored_empties.1.is_empty());
    }
}
