//! A fact cache that lies with matching digests, for the tests of `fact_cache: verify`
//! (the engine's and the CLI's).

use std::path::Path;

/// Makes every occurrence of `needle` in the fact cache beside `cache` (the database file,
/// `engine.cache`, and its value file, `values.bin`) lie, its last bytes replaced by `lie`,
/// as a wrong memo written by a faulty analyzer would read: each changed value gets its new
/// digest, the database names it by that digest, and the database's body is digested
/// again. Without the new digests the whole cache would be refused as damaged.
pub fn make_cache_lie(cache: &Path, needle: &[u8], lie: &[u8]) {
    let values_path = cache.with_file_name("values.bin");
    let mut database = std::fs::read(cache).unwrap();
    let mut values = std::fs::read(&values_path).unwrap();
    let lied_in_database = replace_all(&mut database, needle, lie);
    let changed = replace_all(&mut values, needle, lie);
    assert!(
        !lied_in_database.is_empty() || !changed.is_empty(),
        "{:?} in the cache",
        String::from_utf8_lossy(needle)
    );
    // Records: after the eight-byte magic, (length: u64 LE, digest: 32 bytes, encoding).
    let mut at = 8;
    while at + 40 <= values.len() {
        let length = u64::from_le_bytes(values[at..at + 8].try_into().unwrap()) as usize;
        let (start, end) = (at + 40, at + 40 + length);
        if changed.iter().any(|p| (start..end).contains(p)) {
            let old: [u8; 32] = values[at + 8..at + 40].try_into().unwrap();
            let new = *blake3::hash(&values[start..end]).as_bytes();
            values[at + 8..at + 40].copy_from_slice(&new);
            replace_all(&mut database, &old, &new);
        }
        at = end;
    }
    // The identity line, the digest line, then the body.
    let header = database.iter().position(|b| *b == b'\n').unwrap() + 1;
    let body = header + database[header..].iter().position(|b| *b == b'\n').unwrap() + 1;
    let digest = blake3::hash(&database[body..]).to_hex();
    database[header..header + 64].copy_from_slice(digest.as_bytes());
    std::fs::write(cache, &database).unwrap();
    std::fs::write(&values_path, &values).unwrap();
}

/// Replaces the last bytes of every occurrence of `needle` with `lie`; returns the positions
/// changed.
fn replace_all(bytes: &mut [u8], needle: &[u8], lie: &[u8]) -> Vec<usize> {
    let starts: Vec<usize> = bytes
        .windows(needle.len())
        .enumerate()
        .filter(|(_, window)| *window == needle)
        .map(|(position, _)| position)
        .collect();
    let mut changed = Vec::new();
    for start in starts {
        let end = start + needle.len();
        bytes[end - lie.len()..end].copy_from_slice(lie);
        changed.extend(end - lie.len()..end);
    }
    changed
}
