//! Stable keys: BLAKE3-256 over a namespaced, length-prefixed canonical identity, written as
//! RFC 4648 base32 without padding. A key never depends on a source position.

use serde::{Deserialize, Serialize};

const NAMESPACE: &str = "luque-stable-key";
const VERSION: &str = "1";
const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// The canonical identity of a declaration. Every field but `module` must be non-empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StableKeyIdentity<'a> {
    pub language: &'a str,
    pub repository: &'a str,
    pub package: &'a str,
    pub module: &'a str,
    pub qualified_name: &'a str,
    pub kind: &'a str,
    /// `none` when the declaration needs no discriminator.
    pub discriminator: &'a str,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StableKeyError {
    #[error("stable key field {0} must not be empty")]
    EmptyField(&'static str),
    #[error("a stable key is 52 base32 characters (A-Z, 2-7)")]
    Malformed,
}

impl StableKeyIdentity<'_> {
    /// The exact byte string that is hashed.
    pub fn canonical(&self) -> Result<String, StableKeyError> {
        let mut out = Vec::new();
        self.write_canonical(&mut |bytes| out.extend_from_slice(bytes))?;
        Ok(String::from_utf8(out).expect("every part of the identity is UTF-8"))
    }

    /// Its BLAKE3 digest, the canonical bytes fed straight to the hasher (a pass derives a
    /// key for every edge's evidence: no string is built for it).
    pub fn key(&self) -> Result<StableKey, StableKeyError> {
        let mut hasher = blake3::Hasher::new();
        self.write_canonical(&mut |bytes| {
            hasher.update(bytes);
        })?;
        Ok(StableKey(*hasher.finalize().as_bytes()))
    }

    /// Writes the canonical identity to `out`, part by part: the namespace and version,
    /// then each field as `\0name=length:value`.
    fn write_canonical(&self, out: &mut dyn FnMut(&[u8])) -> Result<(), StableKeyError> {
        let required = [
            ("language", self.language),
            ("repository", self.repository),
            ("package", self.package),
            ("qualified_name", self.qualified_name),
            ("kind", self.kind),
            ("discriminator", self.discriminator),
        ];
        if let Some((name, _)) = required.iter().find(|(_, value)| value.is_empty()) {
            return Err(StableKeyError::EmptyField(name));
        }
        out(NAMESPACE.as_bytes());
        out(b"\0version=");
        out(VERSION.as_bytes());
        let mut field = |name: &str, value: &str| {
            out(b"\0");
            out(name.as_bytes());
            out(b"=");
            out(itoa::Buffer::new().format(value.len()).as_bytes());
            out(b":");
            out(value.as_bytes());
        };
        field("language", self.language);
        field("repository", self.repository);
        field("package", self.package);
        if !self.module.is_empty() {
            field("module", self.module);
        }
        field("qualified_name", self.qualified_name);
        field("kind", self.kind);
        field("discriminator", self.discriminator);
        Ok(())
    }
}

/// A file's key: what its repository-relative path identifies.
pub fn file_key(repository: &str, path: &str) -> StableKey {
    path_key(repository, path, "file", "none")
}

/// An observation's key: the file and the byte range it was seen at. Derived from the
/// evidence's own place, so whoever holds the place (the canonical database) holds the key.
pub fn evidence_key(repository: &str, path: &str, span: crate::LineSpan) -> StableKey {
    let range = format!("{}-{}", span.start_byte, span.end_byte);
    path_key(repository, path, "evidence", &range)
}

/// Keys of what a repository-relative path identifies, outside any language or package.
fn path_key(repository: &str, path: &str, kind: &str, discriminator: &str) -> StableKey {
    StableKeyIdentity {
        language: "*",
        repository,
        package: "*",
        module: "",
        qualified_name: path,
        kind,
        discriminator,
    }
    .key()
    .expect("a repository and a path are never empty")
}

/// A 256-bit stable key. Ordered by its bytes, displayed as 52 base32 characters.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StableKey(pub [u8; 32]);

/// A key is a BLAKE3 digest, uniformly distributed: its first eight bytes are already a
/// good hash, so maps keyed by it need not hash again (see [`KeyMap`]).
impl std::hash::Hash for StableKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let mut prefix = [0u8; 8];
        prefix.copy_from_slice(&self.0[..8]);
        state.write_u64(u64::from_le_bytes(prefix));
    }
}

/// Passes a `StableKey`'s prefix through as the hash.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only reached by types other than `StableKey`; fold them in, FNV-style.
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }
}

/// A hash map keyed by stable keys, without re-hashing them.
pub type KeyMap<V> =
    std::collections::HashMap<StableKey, V, std::hash::BuildHasherDefault<KeyHasher>>;

impl StableKey {
    pub fn parse(text: &str) -> Result<Self, StableKeyError> {
        let bytes = decode_base32(text).ok_or(StableKeyError::Malformed)?;
        let array: [u8; 32] = bytes.try_into().map_err(|_| StableKeyError::Malformed)?;
        let key = StableKey(array);
        // Reject non-canonical spellings (trailing bits set) so one key has one text.
        if key.to_string() != text {
            return Err(StableKeyError::Malformed);
        }
        Ok(key)
    }
}

impl StableKey {
    /// The key's text (52 base32 characters) without allocating: what bulk writers of
    /// millions of keys spell.
    pub fn base32(&self) -> [u8; 52] {
        let mut out = [0u8; 52];
        let mut at = 0;
        base32_each(&self.0, |c| {
            out[at] = c;
            at += 1;
        });
        out
    }
}

impl std::fmt::Display for StableKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = self.base32();
        f.write_str(std::str::from_utf8(&text).expect("the base32 alphabet is ASCII"))
    }
}

impl std::fmt::Debug for StableKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StableKey({self})")
    }
}

/// RFC 4648 base32, upper case, no padding.
pub fn encode_base32(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    base32_each(bytes, |c| out.push(char::from(c)));
    out
}

/// Hands each base32 character of `bytes` to `put`, in order (the last padded with zeros).
fn base32_each(bytes: &[u8], mut put: impl FnMut(u8)) {
    let mut buffer: u32 = 0;
    let mut bits = 0u32;
    for &byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            put(ALPHABET[((buffer >> bits) & 31) as usize]);
        }
    }
    if bits > 0 {
        put(ALPHABET[((buffer << (5 - bits)) & 31) as usize]);
    }
}

/// Decodes unpadded RFC 4648 base32; `None` for any character outside the alphabet.
pub fn decode_base32(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let mut buffer: u32 = 0;
    let mut bits = 0u32;
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'2'..=b'7' => c - b'2' + 26,
            _ => return None,
        };
        buffer = (buffer << 5) | u32::from(value);
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verified_test_vector() {
        let identity = StableKeyIdentity {
            language: "typescript",
            repository: "github.com/acme",
            package: "@acme/core",
            module: "",
            qualified_name: "Parser.parseConfig",
            kind: "method",
            discriminator: "(input: Config): AST",
        };
        let key = identity.key().unwrap();
        assert_eq!(
            key.to_string(),
            "CWOZHP3LOBOMOJUWVQFJZ7QC2D7Y7H32QXMG4UWC7D2VCT5QJTCA"
        );
        assert_eq!(key.to_string().len(), 52);
        assert_eq!(StableKey::parse(&key.to_string()).unwrap(), key);
    }

    #[test]
    fn a_key_is_the_digest_of_its_canonical_text() {
        let identity = StableKeyIdentity {
            language: "python",
            repository: "r",
            package: "p",
            module: "m.n",
            qualified_name: "f",
            kind: "function",
            discriminator: "none",
        };
        assert_eq!(
            identity.canonical().unwrap(),
            "luque-stable-key\0version=1\0language=6:python\0repository=1:r\0package=1:p\0module=3:m.n\0qualified_name=1:f\0kind=8:function\0discriminator=4:none"
        );
        // Lengths of one digit and of several, fed to the hasher part by part.
        for length in [1, 9, 10, 99, 100, 12_345] {
            let name = "x".repeat(length);
            let identity = StableKeyIdentity {
                qualified_name: &name,
                ..identity.clone()
            };
            assert_eq!(
                identity.key().unwrap().0,
                *blake3::hash(identity.canonical().unwrap().as_bytes()).as_bytes()
            );
        }
    }

    #[test]
    fn a_key_s_text_is_its_bytes_in_base32() {
        for seed in 0u8..=255 {
            let key = StableKey(std::array::from_fn(|i| {
                seed.wrapping_mul(31).wrapping_add(i as u8 * 7)
            }));
            assert_eq!(key.base32().as_slice(), encode_base32(&key.0).as_bytes());
        }
    }

    #[test]
    fn malformed_keys_are_refused() {
        assert!(StableKey::parse("").is_err());
        assert!(StableKey::parse("cwozhp3lobomojuwvqfjz7qc2d7y7h32qxmg4uwc7d2vct5qjtca").is_err());
        assert!(StableKey::parse("CWOZHP3LOBOMOJUWVQFJZ7QC2D7Y7H32QXMG4UWC7D2VCT5QJTCB").is_err());
    }

    #[test]
    fn empty_fields_are_refused() {
        let identity = StableKeyIdentity {
            language: "go",
            repository: "",
            package: "p",
            module: "",
            qualified_name: "F",
            kind: "func",
            discriminator: "none",
        };
        assert_eq!(
            identity.key(),
            Err(StableKeyError::EmptyField("repository"))
        );
    }
}
