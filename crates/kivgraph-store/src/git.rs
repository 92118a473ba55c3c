//! The commit and branch a checkout is on, read from `.git` directly (no git process).

use std::path::Path;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GitPosition {
    pub commit: Option<String>,
    pub branch: Option<String>,
    /// Why the position could not be read, when it could not.
    pub unavailable: Option<String>,
}

/// Reads `HEAD`, following one symbolic ref through loose refs and `packed-refs`.
pub fn read_git_position(root: &Path) -> GitPosition {
    let dot_git = root.join(".git");
    let git_dir = if dot_git.is_file() {
        // A worktree or submodule: `.git` holds `gitdir: PATH`.
        match std::fs::read_to_string(&dot_git) {
            Ok(text) => match text.trim().strip_prefix("gitdir:") {
                Some(dir) => root.join(dir.trim()),
                None => return unavailable(".git is a file without a gitdir line"),
            },
            Err(err) => return unavailable(&format!("cannot read .git: {err}")),
        }
    } else if dot_git.is_dir() {
        dot_git
    } else {
        return unavailable("not a git checkout");
    };
    let head = match std::fs::read_to_string(git_dir.join("HEAD")) {
        Ok(head) => head.trim().to_string(),
        Err(err) => return unavailable(&format!("cannot read HEAD: {err}")),
    };
    let Some(reference) = head.strip_prefix("ref:").map(str::trim) else {
        return GitPosition {
            commit: Some(head),
            branch: None,
            unavailable: None,
        };
    };
    let branch = reference
        .strip_prefix("refs/heads/")
        .unwrap_or(reference)
        .to_string();
    let common_dir = std::fs::read_to_string(git_dir.join("commondir"))
        .map(|dir| git_dir.join(dir.trim()))
        .unwrap_or_else(|_| git_dir.clone());
    let loose = [git_dir.join(reference), common_dir.join(reference)];
    let commit = loose
        .iter()
        .find_map(|path| std::fs::read_to_string(path).ok())
        .map(|c| c.trim().to_string())
        .or_else(|| {
            std::fs::read_to_string(common_dir.join("packed-refs"))
                .ok()
                .and_then(|packed| {
                    packed.lines().find_map(|line| {
                        let (hash, name) = line.split_once(' ')?;
                        (name == reference).then(|| hash.to_string())
                    })
                })
        });
    match commit {
        Some(commit) => GitPosition {
            commit: Some(commit),
            branch: Some(branch),
            unavailable: None,
        },
        None => GitPosition {
            commit: None,
            branch: Some(branch),
            unavailable: Some("branch has no commit yet".into()),
        },
    }
}

fn unavailable(reason: &str) -> GitPosition {
    GitPosition {
        commit: None,
        branch: None,
        unavailable: Some(reason.to_string()),
    }
}
