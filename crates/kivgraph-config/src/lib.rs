//! Configuration and the repository registry.
//!
//! Owns: `config.yaml` and `repositories.yaml` — their schema, defaults, `~` expansion,
//! validation with clear messages, and where state lives (a configuration outside the default
//! location is self-contained: its state and cache hang from its own directory).
//!
//! Must not know about: indexing, facts, storage formats or serving.

mod duration;
mod go_build;
mod language;
mod paths;
mod registry;
mod schema;

pub use duration::parse_duration;
pub use go_build::{GoBuildContext, KNOWN_GOARCH, KNOWN_GOOS};
pub use language::{LanguageToken, parse_language_list};
pub use paths::{StatePaths, analyzers_dir, default_config_path, expand_tilde};
pub use registry::{InvalidName, Registry, RepositoryEntry, validate_repository_name};
pub use schema::{
    Config, FactCacheMode, GoSection, LoadedConfig, RustSection, ScipIndexerEntry, ScipSection,
};

use std::path::PathBuf;

/// Everything that can be wrong with a configuration or a registry.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: {key}: {message}")]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
    #[error("configuration {path} does not exist: run \"kivgraph init\" first")]
    Missing { path: PathBuf },
    #[error("{0}")]
    Argument(String),
}
