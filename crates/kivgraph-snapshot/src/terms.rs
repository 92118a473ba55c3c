//! The words a name, a qualified name, a kind or a path is made of, as the term index
//! (sections `TermNames`, `TermPostings`) stores them and `find_by_intent` asks for them:
//! split on separators, case changes and letter/digit boundaries, lowercased, lightly
//! stemmed.

/// A posting carries the symbol position, with this bit set when the term is in the symbol's
/// own name rather than only its container, kind or path.
pub const TERM_IN_NAME: u32 = 1 << 31;

/// A light stemmer, so `retries`, `retrying` and `retry` meet, and so do `cache` and
/// `caching` (a final `e` is dropped after the suffixes).
fn stem(word: &str) -> String {
    let stemmed = strip_suffix(word);
    match stemmed.strip_suffix('e') {
        Some(base) if base.len() >= 3 => base.to_string(),
        _ => stemmed,
    }
}

fn strip_suffix(word: &str) -> String {
    let w = word;
    let strip = |suffix: &str, min: usize| w.len() > min && w.ends_with(suffix);
    let sibilant_plural = strip("es", 4)
        && ["ches", "shes", "sses", "xes"]
            .iter()
            .any(|s| w.ends_with(s));
    let cut = if strip("ies", 4) {
        return format!("{}y", &w[..w.len() - 3]);
    } else if strip("ing", 5) {
        3
    } else if strip("ed", 4) || sibilant_plural {
        2
    } else if strip("s", 3) && !w.ends_with("ss") {
        1
    } else {
        0
    };
    w[..w.len() - cut].to_string()
}

/// Splits identifiers and text into lowercase terms: on separators, on case changes
/// (`parseHTTPRequest` → parse, http, request) and between letters and digits.
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for chunk in chunks(text) {
        for word in chunk_terms(chunk) {
            if !out.contains(&word) {
                out.push(word);
            }
        }
    }
    out
}

/// The runs of letters and digits `text` is made of, each split by [`chunk_terms`].
pub fn chunks(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|chunk| !chunk.is_empty())
}

/// The terms of one run of letters and digits, in order (a term may repeat).
pub fn chunk_terms(chunk: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let chars: Vec<char> = chunk.chars().collect();
    let mut start = 0;
    for i in 1..=chars.len() {
        let boundary = i == chars.len() || {
            let (previous, current) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|c| c.is_lowercase());
            (previous.is_lowercase() && current.is_uppercase())
                || (previous.is_uppercase() && current.is_uppercase() && next_lower)
                || (previous.is_alphabetic() != current.is_alphabetic())
        };
        if boundary {
            let word: String = chars[start..i].iter().collect::<String>().to_lowercase();
            if word.len() >= 2 && word.chars().any(char::is_alphabetic) {
                out.push(stem(&word));
            }
            start = i;
        }
    }
    out
}
