//! `repositories.yaml`: the registered repositories.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{ConfigError, LanguageToken};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepositoryEntry {
    /// An identifier compared exactly, case included; it travels inside stable keys.
    pub name: String,
    /// Absolute path of the checkout.
    pub path: PathBuf,
    pub languages: Vec<LanguageToken>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub manifests: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<String>,
    /// Repository-relative directories discovery never walks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclusions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    pub version: i64,
    #[serde(default)]
    pub repositories: Vec<RepositoryEntry>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry {
            version: 1,
            repositories: Vec::new(),
        }
    }
}

/// Why a name cannot name a repository (or a configured indexer: the same rule).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidName {
    #[error("{what} must not be empty")]
    Empty { what: &'static str },
    #[error("{what} {name:?} is in the reserved {namespace:?} namespace")]
    Reserved {
        what: &'static str,
        name: String,
        namespace: &'static str,
    },
    #[error("{what} {name:?} is a path component, not an identifier")]
    PathComponent { what: &'static str, name: String },
    #[error("{what} {name:?} is longer than 128 bytes")]
    TooLong { what: &'static str, name: String },
    #[error(
        "{what} {name:?} must be an identifier: letters, digits, '_', '-' and '.', starting with a letter, digit or '_' (no path separators)"
    )]
    NotIdentifier { what: &'static str, name: String },
}

/// A repository name is an identifier: never a path component, never in the `rust:` namespace.
pub fn validate_repository_name(name: &str) -> Result<(), InvalidName> {
    validate_name("repository name", name)
}

/// A configured indexer's name follows the repositories' rule.
pub fn validate_indexer_name(name: &str) -> Result<(), InvalidName> {
    validate_name("indexer name", name)
}

fn validate_name(what: &'static str, name: &str) -> Result<(), InvalidName> {
    let owned = || name.to_string();
    if name.is_empty() {
        return Err(InvalidName::Empty { what });
    }
    if kivgraph_facts::is_derived(name) {
        return Err(InvalidName::Reserved {
            what,
            name: owned(),
            namespace: kivgraph_facts::DERIVED_NAMESPACE,
        });
    }
    if name == "." || name == ".." {
        return Err(InvalidName::PathComponent {
            what,
            name: owned(),
        });
    }
    if name.len() > 128 {
        return Err(InvalidName::TooLong {
            what,
            name: owned(),
        });
    }
    let valid_start = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let valid_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !valid_start || !valid_chars {
        return Err(InvalidName::NotIdentifier {
            what,
            name: owned(),
        });
    }
    Ok(())
}

impl Registry {
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Registry::default());
            }
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let registry: Registry = serde_yaml::from_str(&text).map_err(|err| ConfigError::Parse {
            path: path.to_path_buf(),
            message: err.to_string(),
        })?;
        registry
            .validate()
            .map_err(|(key, message)| ConfigError::Invalid {
                path: path.to_path_buf(),
                key,
                message,
            })?;
        Ok(registry)
    }

    pub fn validate(&self) -> Result<(), (String, String)> {
        if self.version != 1 {
            return Err((
                "version".into(),
                format!("unsupported registry version {}", self.version),
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for (index, entry) in self.repositories.iter().enumerate() {
            let key = |field: &str| format!("repositories[{index}].{field}");
            validate_repository_name(&entry.name).map_err(|e| (key("name"), e.to_string()))?;
            if !seen.insert(entry.name.as_str()) {
                return Err((
                    key("name"),
                    format!("repository {:?} is registered twice", entry.name),
                ));
            }
            if !entry.path.is_absolute() {
                return Err((
                    key("path"),
                    format!("{} must be absolute", entry.path.display()),
                ));
            }
            if entry.languages.is_empty() {
                return Err((key("languages"), "at least one language is required".into()));
            }
            for exclusion in &entry.exclusions {
                if exclusion.is_empty()
                    || Path::new(exclusion).is_absolute()
                    || exclusion.split('/').any(|c| c == "..")
                {
                    return Err((
                        key("exclusions"),
                        format!("{exclusion:?} must be a repository-relative directory"),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Adds or replaces a repository by name, keeping registration order.
    pub fn upsert(&mut self, entry: RepositoryEntry) {
        match self.repositories.iter_mut().find(|r| r.name == entry.name) {
            Some(existing) => *existing = entry,
            None => self.repositories.push(entry),
        }
    }

    pub fn get(&self, name: &str) -> Option<&RepositoryEntry> {
        self.repositories.iter().find(|r| r.name == name)
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).expect("registry serializes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_identifiers() {
        assert!(validate_repository_name("kivgraph").is_ok());
        assert!(validate_repository_name("Acme-core_2.x").is_ok());
        for bad in ["", ".", "..", "a/b", "a\\b", "rust:1.95", "-x", "a b"] {
            assert!(validate_repository_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unknown_language_in_registry_is_refused() {
        let err = serde_yaml::from_str::<Registry>(
            "version: 1\nrepositories:\n- name: a\n  path: /a\n  languages: [cobol]\n",
        );
        assert!(err.is_err());
    }
}
