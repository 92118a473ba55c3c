//! Files of the registered checkouts, read as they are now: which repository a path is in,
//! and reading a file without leaving its repository or following a symbolic link.

use std::path::{Component, Path, PathBuf};

use kivgraph_facts::{Fingerprint, Language};

use crate::error::QueryError;

/// A file's bytes, or why they cannot be served.
pub(crate) type Read = Result<(Vec<u8>, bool), String>;

/// Reads `relative` under `root`, refusing anything that leaves the repository or crosses a
/// symbolic link. The flag says whether the bytes still hash to the indexed fingerprint.
pub(crate) fn read_inside(root: &Path, relative: &str, indexed: Fingerprint) -> Read {
    let mut path = PathBuf::from(root);
    for component in Path::new(relative).components() {
        match component {
            Component::Normal(part) => path.push(part),
            _ => return Err("the path leaves its repository".into()),
        }
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err("the path crosses a symbolic link".into());
            }
            Ok(_) => {}
            Err(err) => return Err(format!("the file cannot be read: {err}")),
        }
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("the file cannot be read: {e}"))?;
    let fresh = Fingerprint::of(&bytes) == indexed;
    Ok((bytes, fresh))
}

/// The repositories a file may belong to: registered name and checkout root.
#[derive(Debug, Clone, Default)]
pub struct Roots(pub Vec<(String, PathBuf)>);

/// A file inside a registered repository, read and parsed.
pub(crate) struct OpenFile {
    pub(crate) repository: String,
    pub(crate) path: String,
    pub(crate) language: Language,
    pub(crate) text: String,
    pub(crate) fingerprint: Fingerprint,
}

/// Resolves `file` (absolute, or relative to a registered repository) and reads it, with the
/// same boundary and symlink rules as `get_source`.
pub(crate) fn open(
    roots: &Roots,
    file: &str,
    repository: Option<&str>,
) -> Result<OpenFile, QueryError> {
    let file = file.trim();
    if file.is_empty() {
        return Err(QueryError::invalid("file is required"));
    }
    let requested = Path::new(file);
    let candidates: Vec<(&String, &PathBuf, String)> = roots
        .0
        .iter()
        .filter(|(name, _)| repository.is_none_or(|r| r == name))
        .filter_map(|(name, root)| {
            let relative = if requested.is_absolute() {
                requested.strip_prefix(root).ok()?.to_path_buf()
            } else {
                requested.to_path_buf()
            };
            if relative
                .components()
                .any(|c| !matches!(c, Component::Normal(_)))
            {
                return None;
            }
            let relative = relative.to_string_lossy().to_string();
            (requested.is_absolute() || root.join(&relative).exists())
                .then_some((name, root, relative))
        })
        .collect();
    if let Some(name) = repository
        && !roots.0.iter().any(|(n, _)| n == name)
    {
        return Err(QueryError::repository_not_found(name));
    }
    let (name, root, relative) = match candidates.as_slice() {
        [] => {
            return Err(QueryError::invalid(format!(
                "file {file:?} is outside every registered repository; it is not read"
            )));
        }
        [one] => one.clone(),
        many => {
            let names: Vec<&str> = many.iter().map(|(n, _, _)| n.as_str()).collect();
            return Err(QueryError::invalid(format!(
                "file {file:?} exists in several repositories ({}); pass repository",
                names.join(", ")
            )));
        }
    };
    let language = Language::from_path(&relative).ok_or_else(|| {
        QueryError::invalid(format!(
            "{relative:?} is not a Go, TypeScript, JavaScript, Rust or Python file"
        ))
    })?;
    let (bytes, _) = read_inside(root, &relative, Fingerprint::default())
        .map_err(|reason| QueryError::invalid(format!("{relative}: {reason}")))?;
    let fingerprint = Fingerprint::of(&bytes);
    let text = String::from_utf8(bytes)
        .map_err(|_| QueryError::invalid(format!("{relative} is not UTF-8")))?;
    Ok(OpenFile {
        repository: name.clone(),
        path: relative,
        language,
        text,
        fingerprint,
    })
}
