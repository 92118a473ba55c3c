//! The stable error codes of the tool surface. Callers branch on the code; the message is
//! for people and may change.

/// Every failure the tool surface returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidArgument,
    SymbolNotFound,
    AmbiguousSymbol,
    RepositoryNotFound,
    CursorInvalid,
    CursorSnapshotExpired,
    TraversalLimitReached,
    SnapshotUnavailable,
    IndexNotReady,
    PermissionRequired,
    PermissionDenied,
    IndexingFailed,
}

impl ErrorCode {
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::SymbolNotFound => "SYMBOL_NOT_FOUND",
            ErrorCode::AmbiguousSymbol => "AMBIGUOUS_SYMBOL",
            ErrorCode::RepositoryNotFound => "REPOSITORY_NOT_FOUND",
            ErrorCode::CursorInvalid => "CURSOR_INVALID",
            ErrorCode::CursorSnapshotExpired => "CURSOR_SNAPSHOT_EXPIRED",
            ErrorCode::TraversalLimitReached => "TRAVERSAL_LIMIT_REACHED",
            ErrorCode::SnapshotUnavailable => "SNAPSHOT_UNAVAILABLE",
            ErrorCode::IndexNotReady => "INDEX_NOT_READY",
            ErrorCode::PermissionRequired => "PERMISSION_REQUIRED",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::IndexingFailed => "INDEXING_FAILED",
        }
    }
}

/// A refused query: `CODE: message` on the wire.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct QueryError {
    pub code: ErrorCode,
    pub message: String,
}

impl QueryError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        QueryError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        QueryError::new(ErrorCode::InvalidArgument, message)
    }

    /// The generation `CURRENT` names could not be mapped: a different fix from never
    /// having indexed.
    pub fn snapshot_unreadable(reason: &str) -> Self {
        QueryError::new(
            ErrorCode::IndexNotReady,
            format!(
                "the published generation could not be read ({reason}): \
                 \"kivgraph snapshot\" rebuilds its snapshot from its canonical database, \
                 \"kivgraph rollback\" returns to the backup generation"
            ),
        )
    }

    pub fn index_not_ready() -> Self {
        QueryError::new(
            ErrorCode::IndexNotReady,
            "no graph is published yet: index a project with index_project, or run \"kivgraph index --full\"",
        )
    }

    pub fn repository_not_found(name: &str) -> Self {
        QueryError::new(
            ErrorCode::RepositoryNotFound,
            format!("repository {name:?} is not in the published graph"),
        )
    }
}
