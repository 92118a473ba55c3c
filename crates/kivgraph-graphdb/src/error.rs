//! What can go wrong with a canonical database.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum GraphDbError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} already exists: a database is written once, into a new generation", .0.display())]
    Exists(PathBuf),
    #[error("no database at {}", .0.display())]
    Missing(PathBuf),
    #[error("cannot open the database {}: {message}", path.display())]
    Open { path: PathBuf, message: String },
    #[error("the facts do not fit the canonical schema: {0}")]
    Schema(String),
    #[error("LadybugDB refused `{statement}`: {message}")]
    Statement { statement: String, message: String },
    #[error("LadybugDB: {0}")]
    Engine(String),
    #[error("the database does not hold what was written: {0}")]
    Mismatch(String),
    #[error("the previous database cannot be updated in place: {0}")]
    NotIncremental(String),
    #[error("cannot stage {}: {source}", path.display())]
    Staging {
        path: PathBuf,
        source: parquet::errors::ParquetError,
    },
}

impl GraphDbError {
    pub(crate) fn io(action: &'static str, path: &Path, source: std::io::Error) -> Self {
        GraphDbError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }

    /// A statement the engine refused, named by its first 200 characters.
    pub(crate) fn statement(statement: &str, error: impl std::fmt::Display) -> Self {
        GraphDbError::Statement {
            statement: statement.chars().take(200).collect(),
            message: error.to_string(),
        }
    }

    pub(crate) fn staging(path: &Path, source: parquet::errors::ParquetError) -> Self {
        GraphDbError::Staging {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn open(path: &Path, error: lbug::Error) -> Self {
        GraphDbError::Open {
            path: path.to_path_buf(),
            message: error.to_string(),
        }
    }
}
