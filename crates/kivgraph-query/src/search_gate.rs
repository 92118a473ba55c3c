//! The search gate's one question: does the repository a text search runs in declare the
//! searched name more than once? Then the search cannot tell the uses of one declaration
//! from another's, and the graph can. The answer is typed; how a client is told (a hook's
//! verdict, a plugin's error) is decided at the edge that asks.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::Published;

/// At most this many declarations are quoted.
const QUOTED: usize = 6;

/// A search, as a client's gate asks it of a daemon.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchQuestion {
    /// The identifier searched for.
    pub name: String,
    /// The directory (or file) searched, absolute.
    pub searched: std::path::PathBuf,
}

/// A name two or more declarations of one repository share.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedName {
    pub name: String,
    pub repository: String,
    /// How many declarations share it (more than `rows` holds when many do).
    pub declarations: usize,
    /// The first declarations, in the snapshot's order.
    pub rows: Vec<Declaration>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declaration {
    /// Repository-relative.
    pub path: String,
    pub line: u32,
    pub kind: String,
    pub qualified_name: String,
}

/// `Some` when the registered repository holding `searched` (the deepest one, when
/// checkouts nest) declares `name` twice or more; `None` for every other search.
pub fn shared_name(published: &Published, name: &str, searched: &Path) -> Option<SharedName> {
    let repository = published
        .manifest
        .repositories
        .iter()
        .filter(|r| searched.starts_with(&r.path))
        .max_by_key(|r| r.path.len())?;
    let declarations: Vec<_> = published
        .snapshot
        .symbols_named(name)
        .into_iter()
        .filter(|s| s.file().repository().name() == repository.name)
        .collect();
    (declarations.len() >= 2).then(|| SharedName {
        name: name.to_string(),
        repository: repository.name.clone(),
        declarations: declarations.len(),
        rows: declarations
            .iter()
            .take(QUOTED)
            .map(|s| Declaration {
                path: s.file().path().to_string(),
                line: s.span().start_line,
                kind: s.kind().as_str().to_string(),
                qualified_name: s.qualified_name().to_string(),
            })
            .collect(),
    })
}
