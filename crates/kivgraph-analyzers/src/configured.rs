//! SCIP indexers plugged in by configuration (`scip.indexers`): any program that writes a
//! SCIP index of the directory it runs in (scip-go, scip-java, scip-clang…).
//!
//! Such a program is not ours, so it is run where it can do no harm: in a scratch mirror of
//! the repository whose files are hard links (copies across file systems), so whatever it
//! creates — build output, caches, its index — lands in scratch space, never inside the
//! repository. Its documents are paths relative to the mirror's root, which are the
//! repository's own paths.

use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::mirror::mirror_tree;
use crate::runner::{AnalyzerError, reported_version, run_indexer, scratch_directory};
use crate::scip_index::ScipIndex;

/// Replaced, in every argument of the command, by where the index must be written.
pub const OUTPUT_PLACEHOLDER: &str = "{output}";
/// Replaced by the directory the command runs in: the mirror of the repository.
pub const ROOT_PLACEHOLDER: &str = "{root}";

/// A configured SCIP indexer found on this machine, with the version it reported: both are
/// part of every unit's identity, so a new version or another command never reuses a memo.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScipIndexer {
    /// The configuration's name for it: what reports and `doctor` call it.
    pub name: String,
    /// The program and its arguments, placeholders unexpanded.
    pub command: Vec<String>,
    /// The first line the program printed for `--version`.
    pub version: String,
}

impl ScipIndexer {
    /// Asks the command's program for its version: a program that cannot be started or
    /// says nothing is absent, which the pass reports and survives.
    pub fn locate(name: &str, command: &[String]) -> Result<ScipIndexer, AnalyzerError> {
        let program = command.first().ok_or_else(|| AnalyzerError::Missing {
            analyzer: name.to_string(),
            detail: "its command is empty".into(),
        })?;
        let version = reported_version(name, Path::new(program), "")?;
        Ok(ScipIndexer {
            name: name.to_string(),
            command: command.to_vec(),
            version,
        })
    }

    /// `name version`: what a unit's answers were produced by.
    pub fn identity(&self) -> String {
        format!("{} {}", self.name, self.version)
    }

    /// Runs the indexer over a mirror of the repository at `root`.
    pub fn index_repository(
        &self,
        root: &Path,
        scratch: &Path,
    ) -> Result<ScipIndex, AnalyzerError> {
        let work = scratch_directory(scratch, "scip-unit-")?;
        let mirror = work.path().join("project");
        mirror_tree(root, &mirror, &[".git"])?;
        let output_file = work.path().join("index.scip");
        let expand = |argument: &String| {
            argument
                .replace(OUTPUT_PLACEHOLDER, &output_file.display().to_string())
                .replace(ROOT_PLACEHOLDER, &mirror.display().to_string())
        };
        let mut command = Command::new(expand(&self.command[0]));
        command
            .args(self.command[1..].iter().map(expand))
            .current_dir(&mirror);
        run_indexer(
            &self.name,
            command,
            &root.display().to_string(),
            &output_file,
        )
        .map(|(index, _)| index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes an executable script. A child process writes it: a file this process held
    /// open for writing could be inherited by a child another test thread forks at that
    /// moment, and executing it would then fail with "Text file busy".
    fn script(dir: &Path, name: &str, body: &str) -> String {
        let program = dir.join(name);
        let mut writer = std::process::Command::new("sh")
            .args(["-c", "cat > \"$0\" && chmod 755 \"$0\""])
            .arg(&program)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        let mut stdin = writer.stdin.take().unwrap();
        stdin
            .write_all(format!("#!/bin/sh\n{body}").as_bytes())
            .unwrap();
        drop(stdin);
        assert!(writer.wait().unwrap().success());
        program.display().to_string()
    }

    #[test]
    fn an_indexer_runs_in_a_mirror_and_writes_nothing_in_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        let repository = dir.path().join("checkout");
        std::fs::create_dir_all(repository.join("src")).unwrap();
        std::fs::create_dir_all(repository.join(".git")).unwrap();
        std::fs::write(repository.join("src/a.go"), "package a\n").unwrap();
        // Sees the sources without the history, writes build output beside them, and an
        // empty index.
        let program = script(
            dir.path(),
            "fake-scip",
            r#"[ "$1" = "--version" ] && { echo "fake-scip 1.2.3"; exit 0; }
[ -f src/a.go ] && [ ! -e .git ] || exit 7
mkdir -p build && echo junk > build/out
: > "$1"
"#,
        );
        let indexer = ScipIndexer::locate("fake", &[program, "{output}".into()]).unwrap();
        assert_eq!(indexer.identity(), "fake fake-scip 1.2.3");
        let scratch = dir.path().join("scratch");
        let index = indexer.index_repository(&repository, &scratch).unwrap();
        assert!(index.documents.is_empty());
        assert!(!repository.join("build").exists());
        let mut entries: Vec<String> = std::fs::read_dir(&repository)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .collect();
        entries.sort();
        assert_eq!(entries, vec![".git", "src"]);
    }

    #[test]
    fn an_indexer_that_cannot_run_is_absent_and_one_that_fails_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let absent = ScipIndexer::locate("gone", &["/nonexistent/scip-gone".into()]);
        assert!(
            matches!(&absent, Err(AnalyzerError::Missing { analyzer, .. }) if analyzer == "gone"),
            "{absent:?}"
        );
        let program = script(
            dir.path(),
            "failing-scip",
            r#"[ "$1" = "--version" ] && { echo "v9"; exit 0; }
echo "cannot load the build" >&2
exit 3
"#,
        );
        let indexer = ScipIndexer::locate("failing", &[program, "{output}".into()]).unwrap();
        let repository = dir.path().join("checkout");
        std::fs::create_dir_all(&repository).unwrap();
        let error = indexer
            .index_repository(&repository, &dir.path().join("scratch"))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("failing failed on") && error.contains("cannot load the build"),
            "{error}"
        );
    }
}
