//! The one registry of the fact cache: which queries it keeps, and how a process attaches
//! them before verifying memos restored from disk. Every memo up to the package merges is
//! persisted, each value as its own encoding (`Stored`), so that a fresh process verifies the
//! memos of unchanged packages without decoding them; the repository and workspace merges
//! above them share the packages by `Arc`. A one-file edit costs one parse, the package
//! merges that read the file's names, and the merges above.

use crate::database::Db;

/// The queries the fact cache does not keep: the merges above the packages, which only
/// gather the packages' memos. Every other query is persisted.
pub(crate) const UNPERSISTED_QUERIES: [&str; 2] = ["repository_facts", "workspace_facts"];

/// Gives every persisted query of this module its view of the database.
///
/// salsa hands a tracked function that view when the function is first called; a memo
/// restored from the fact cache can be verified through a dependency this process has not
/// called yet, which salsa cannot do without it. Setting an LRU capacity reaches the
/// function's ingredient without calling it, which is why every persisted query is
/// declared `lru = 0` (no eviction: the capacity exists only to be set here).
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    crate::files::attach_restored_queries(db);
    crate::packages::attach_restored_queries(db);
    crate::resolve::go::attach_restored_queries(db);
    crate::resolve::typescript::attach_restored_queries(db);
    crate::resolve::rust::attach_restored_queries(db);
    crate::resolve::python::attach_restored_queries(db);
    crate::analysis::attach_restored_queries(db);
}
