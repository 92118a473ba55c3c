//! A fact cache that lies with a matching digest, for the tests of `fact_cache: verify`
//! (the engine's and the CLI's).

use std::path::Path;

/// Makes every occurrence of `needle` in the fact cache file at `cache` lie (its last bytes
/// replaced by `lie`), re-digesting the body, as a wrong memo written by a faulty analyzer
/// would read. Without the new digest the whole file would be refused as damaged.
pub fn make_cache_lie(cache: &Path, needle: &[u8], lie: &[u8]) {
    let mut bytes = std::fs::read(cache).unwrap();
    let positions: Vec<usize> = bytes
        .windows(needle.len())
        .enumerate()
        .filter(|(_, window)| *window == needle)
        .map(|(position, _)| position)
        .collect();
    assert!(
        !positions.is_empty(),
        "{:?} in the cache",
        String::from_utf8_lossy(needle)
    );
    for position in positions {
        let end = position + needle.len();
        bytes[end - lie.len()..end].copy_from_slice(lie);
    }
    // The identity line, the digest line, then the body.
    let header = bytes.iter().position(|b| *b == b'\n').unwrap() + 1;
    let body = header + bytes[header..].iter().position(|b| *b == b'\n').unwrap() + 1;
    let digest = blake3::hash(&bytes[body..]).to_hex();
    bytes[header..header + 64].copy_from_slice(digest.as_bytes());
    std::fs::write(cache, &bytes).unwrap();
}
