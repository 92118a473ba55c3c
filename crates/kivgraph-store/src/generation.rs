//! Generation identifiers: six-digit, zero-padded, strictly increasing.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct GenerationId(pub u64);

impl GenerationId {
    pub fn parse(text: &str) -> Option<Self> {
        (text.len() >= 6 && text.bytes().all(|b| b.is_ascii_digit()))
            .then(|| text.parse().ok().map(GenerationId))
            .flatten()
    }

    pub fn next(self) -> Self {
        GenerationId(self.0 + 1)
    }
}

impl std::fmt::Display for GenerationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:06}", self.0)
    }
}

impl From<GenerationId> for String {
    fn from(id: GenerationId) -> String {
        id.to_string()
    }
}

/// Text that names no generation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a generation id (six or more digits)")]
pub struct InvalidGenerationId(String);

impl TryFrom<String> for GenerationId {
    type Error = InvalidGenerationId;
    fn try_from(text: String) -> Result<Self, InvalidGenerationId> {
        GenerationId::parse(&text).ok_or(InvalidGenerationId(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_six_digits() {
        assert_eq!(GenerationId(1).to_string(), "000001");
        assert_eq!(GenerationId::parse("000123"), Some(GenerationId(123)));
        assert_eq!(GenerationId::parse("12"), None);
        assert_eq!(GenerationId::parse("00001a"), None);
        assert_eq!(GenerationId::parse("../000001"), None);
    }
}
