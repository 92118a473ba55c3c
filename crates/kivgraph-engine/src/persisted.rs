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

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every source file of the crate, with its text.
    fn sources(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push((
                    path.display().to_string(),
                    std::fs::read_to_string(&path).unwrap(),
                ));
            }
        }
    }

    /// A persisted query this module does not attach panics in salsa when a fresh process
    /// verifies a restored memo that depends on it (`rust_patches` once did, on the second
    /// warm pass over a Rust repository): every one must be attached.
    #[test]
    fn every_persisted_query_is_attached() {
        let mut files = Vec::new();
        sources(
            // The checkout cargo runs the test in (a binary another clone built, sharing
            // the target directory, names that clone at compile time).
            &std::env::var_os("CARGO_MANIFEST_DIR")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf())
                .join("src"),
            &mut files,
        );
        let all: String = files.iter().map(|(_, text)| text.as_str()).collect();
        let mut persisted = Vec::new();
        for (file, text) in &files {
            let lines: Vec<&str> = text.lines().collect();
            for (at, line) in lines.iter().enumerate() {
                if !(line.trim_start().starts_with("#[salsa::tracked(") && line.contains("persist"))
                {
                    continue;
                }
                let name = lines[at + 1..]
                    .iter()
                    .find_map(|l| l.split("fn ").nth(1))
                    .and_then(|rest| rest.split(['(', '<']).next())
                    .unwrap_or_else(|| panic!("a function after {file}:{}", at + 1));
                persisted.push(name.to_string());
            }
        }
        assert!(persisted.len() > 20, "{persisted:?}");
        let unattached: Vec<&String> = persisted
            .iter()
            .filter(|name| !all.contains(&format!("{name}::set_lru_capacity(db, 0)")))
            .collect();
        assert!(unattached.is_empty(), "not attached: {unattached:?}");
    }
}
