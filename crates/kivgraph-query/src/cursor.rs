//! Opaque page cursors: base64url (no padding) over a 23-byte binary body — format version,
//! snapshot id, row offset, a digest of the query identity, a digest of the sorting contract
//! and a checksum over all of it. About 31 characters.

use crate::error::{ErrorCode, QueryError};

const VERSION: u8 = 2;
const BODY_LEN: usize = 23;
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// What a cursor is bound to: the query that minted it and how its rows are sorted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryIdentity {
    digest: [u8; 8],
    sort: [u8; 2],
}

impl QueryIdentity {
    /// `tool` plus every argument that decides which rows match or in what order, as
    /// `(name, value)` pairs; `view`, `limit` and `response_format` are never among them.
    pub fn new(tool: &str, sorting: &str, arguments: &[(&str, &str)]) -> Self {
        let mut hasher = blake3::Hasher::new();
        hasher.update(tool.as_bytes());
        for (name, value) in arguments {
            // Length-prefixed, so ("ab","c") and ("a","bc") differ.
            for part in [name, value] {
                hasher.update(&(part.len() as u64).to_le_bytes());
                hasher.update(part.as_bytes());
            }
        }
        let mut digest = [0u8; 8];
        digest.copy_from_slice(&hasher.finalize().as_bytes()[..8]);
        let mut sort = [0u8; 2];
        sort.copy_from_slice(&blake3::hash(sorting.as_bytes()).as_bytes()[..2]);
        QueryIdentity { digest, sort }
    }

    /// The cursor for the page starting at `offset` of this query on `snapshot`.
    pub fn cursor(&self, snapshot: u64, offset: usize) -> String {
        let mut body = [0u8; BODY_LEN];
        body[0] = VERSION;
        body[1..5].copy_from_slice(&(snapshot as u32).to_le_bytes());
        body[5..9].copy_from_slice(&(offset as u32).to_le_bytes());
        body[9..17].copy_from_slice(&self.digest);
        body[17..19].copy_from_slice(&self.sort);
        let checksum = blake3::hash(&body[..19]);
        body[19..23].copy_from_slice(&checksum.as_bytes()[..4]);
        encode(&body)
    }

    /// The offset a cursor continues from, after checking it belongs to this query on
    /// `snapshot`.
    pub fn resume(&self, cursor: &str, snapshot: u64) -> Result<usize, QueryError> {
        let invalid = || {
            QueryError::new(
                ErrorCode::CursorInvalid,
                "the cursor is malformed or does not match this query and sorting; start again without it",
            )
        };
        let body = decode(cursor).ok_or_else(invalid)?;
        // A re-encoded token (other padding, other alphabet) is refused: one body, one text.
        if body.len() != BODY_LEN || encode(&body) != cursor {
            return Err(invalid());
        }
        if blake3::hash(&body[..19]).as_bytes()[..4] != body[19..23] || body[0] != VERSION {
            return Err(invalid());
        }
        if body[9..17] != self.digest || body[17..19] != self.sort {
            return Err(invalid());
        }
        let minted = u32::from_le_bytes([body[1], body[2], body[3], body[4]]);
        if u64::from(minted) != snapshot & 0xffff_ffff {
            return Err(QueryError::new(
                ErrorCode::CursorSnapshotExpired,
                format!(
                    "the cursor belongs to snapshot {minted}, and snapshot {snapshot} is published now; start the query again from the first page"
                ),
            ));
        }
        Ok(u32::from_le_bytes([body[5], body[6], body[7], body[8]]) as usize)
    }
}

fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let value = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((value >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|a| *a == c)? as u32;
        buffer = (buffer << 6) | value;
        bits += 6;
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

    fn identity() -> QueryIdentity {
        QueryIdentity::new(
            "find_symbol",
            "stable-key-v1",
            &[("name", "Parse"), ("mode", "exact")],
        )
    }

    #[test]
    fn round_trip_is_about_31_characters() {
        let cursor = identity().cursor(7, 50);
        assert_eq!(cursor.len(), 31);
        assert_eq!(identity().resume(&cursor, 7), Ok(50));
    }

    #[test]
    fn every_tampering_is_refused() {
        let cursor = identity().cursor(7, 50);
        let code = |result: Result<usize, QueryError>| result.unwrap_err().code;
        assert_eq!(
            code(identity().resume(&cursor, 8)),
            ErrorCode::CursorSnapshotExpired
        );
        let other = QueryIdentity::new(
            "find_symbol",
            "stable-key-v1",
            &[("name", "Parse"), ("mode", "prefix")],
        );
        assert_eq!(code(other.resume(&cursor, 7)), ErrorCode::CursorInvalid);
        let resorted = QueryIdentity::new(
            "find_symbol",
            "stable-key-v2",
            &[("name", "Parse"), ("mode", "exact")],
        );
        assert_eq!(code(resorted.resume(&cursor, 7)), ErrorCode::CursorInvalid);
        for position in 0..cursor.len() {
            let mut edited: Vec<u8> = cursor.bytes().collect();
            edited[position] = if edited[position] == b'A' { b'B' } else { b'A' };
            let edited = String::from_utf8(edited).unwrap();
            assert_eq!(
                code(identity().resume(&edited, 7)),
                ErrorCode::CursorInvalid,
                "{edited}"
            );
        }
        assert_eq!(
            code(identity().resume(&cursor[..30], 7)),
            ErrorCode::CursorInvalid
        );
        assert_eq!(
            code(identity().resume(&format!("{cursor}AA"), 7)),
            ErrorCode::CursorInvalid
        );
        assert_eq!(
            code(identity().resume(&format!("{cursor}="), 7)),
            ErrorCode::CursorInvalid
        );
        assert_eq!(code(identity().resume("", 7)), ErrorCode::CursorInvalid);
    }
}
