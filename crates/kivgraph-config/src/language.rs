//! The ten language tokens `--languages` and the registry accept.

use serde::{Deserialize, Serialize};

/// A registered language, after aliases are folded (`ts` → `typescript`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LanguageToken {
    Go,
    Typescript,
    Javascript,
    Rust,
    Python,
    Dart,
}

impl LanguageToken {
    pub const ACCEPTED: &'static str =
        "go, typescript, javascript, ts, js, rust, rs, python, py, dart";

    pub fn parse(token: &str) -> Option<Self> {
        Some(match token {
            "go" => LanguageToken::Go,
            "typescript" | "ts" => LanguageToken::Typescript,
            "javascript" | "js" => LanguageToken::Javascript,
            "rust" | "rs" => LanguageToken::Rust,
            "python" | "py" => LanguageToken::Python,
            "dart" => LanguageToken::Dart,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LanguageToken::Go => "go",
            LanguageToken::Typescript => "typescript",
            LanguageToken::Javascript => "javascript",
            LanguageToken::Rust => "rust",
            LanguageToken::Python => "python",
            LanguageToken::Dart => "dart",
        }
    }
}

/// Parses a comma-separated list, folding aliases and dropping repeats, in first-seen order.
pub fn parse_language_list(list: &str) -> Result<Vec<LanguageToken>, String> {
    let mut languages = Vec::new();
    for token in list.split(',').map(str::trim) {
        if token.is_empty() {
            return Err(format!("--languages has an empty entry in {list:?}"));
        }
        let language = LanguageToken::parse(token).ok_or_else(|| {
            format!(
                "unknown language {token:?}; accepted: {}",
                LanguageToken::ACCEPTED
            )
        })?;
        if !languages.contains(&language) {
            languages.push(language);
        }
    }
    Ok(languages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_aliases() {
        assert_eq!(
            parse_language_list("ts,typescript,py,rs,go").unwrap(),
            vec![
                LanguageToken::Typescript,
                LanguageToken::Python,
                LanguageToken::Rust,
                LanguageToken::Go
            ]
        );
        assert!(
            parse_language_list("cobol")
                .unwrap_err()
                .contains("unknown language \"cobol\"")
        );
        assert!(parse_language_list("go,,rust").is_err());
    }
}
