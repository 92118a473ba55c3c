//! Repository-relative paths, `/`-separated: a directory's parent, the nearest entry of a
//! map at or above a directory, and a join that never leaves the repository.

use std::collections::BTreeMap;

pub(crate) fn parent_dir(path: &str) -> &str {
    path.rfind('/').map(|i| &path[..i]).unwrap_or("")
}

/// The nearest entry of `map` at `dir` or above it.
pub(crate) fn nearest<'a, V>(map: &'a BTreeMap<String, V>, dir: &str) -> Option<(&'a str, &'a V)> {
    let mut current = dir;
    loop {
        if let Some((key, value)) = map.get_key_value(current) {
            return Some((key, value));
        }
        if current.is_empty() {
            return None;
        }
        current = parent_dir(current);
    }
}

/// `dir` joined with a relative path, `..` and `.` folded; `None` when it leaves the
/// repository.
pub fn join_inside(dir: &str, relative: &str) -> Option<String> {
    let mut segments: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            part => segments.push(part),
        }
    }
    Some(segments.join("/"))
}
