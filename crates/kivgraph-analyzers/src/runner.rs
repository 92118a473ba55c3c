//! Finding an analyzer and running it on one unit, hermetically.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::scip_index::{ScipIndex, decode};

#[derive(Debug, thiserror::Error)]
pub enum AnalyzerError {
    /// The analyzer is not installed: an absence to report, never a failed pass.
    #[error("{analyzer} is not available: {detail}")]
    Missing { analyzer: String, detail: String },
    /// The analyzer ran and failed on this unit.
    #[error("{analyzer} failed on {unit}: {detail}")]
    Failed {
        analyzer: String,
        unit: String,
        detail: String,
        /// The file it was indexing when it crashed, when it says so.
        crashed_on: Option<String>,
    },
    #[error("analyzer output: {0}")]
    Output(String),
    #[error("analyzer scratch space: {0}")]
    Scratch(#[from] std::io::Error),
}

/// How many files a Python unit may leave out, one per crash of the analyzer, before the
/// unit is declared failed.
const MAX_CRASH_EXCLUSIONS: usize = 8;

/// The analyzers this release drives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Analyzer {
    /// The TypeScript checker, through `@sourcegraph/scip-typescript`.
    Typescript,
    /// pyright, through `@sourcegraph/scip-python`.
    Python,
    /// rust-analyzer's `scip` command.
    Rust,
    /// Our go/types worker (`crates/kivgraph-analyzers/go-worker`).
    Go,
}

impl Analyzer {
    pub fn as_str(self) -> &'static str {
        match self {
            Analyzer::Typescript => "scip-typescript",
            Analyzer::Python => "scip-python",
            Analyzer::Rust => "rust-analyzer",
            Analyzer::Go => "kivgraph-go-worker",
        }
    }

    /// Where the setup script installs this analyzer under the analyzers directory.
    fn installed_under(self, installed: &Path) -> PathBuf {
        match self {
            Analyzer::Typescript | Analyzer::Python => installed
                .join("node_modules")
                .join(".bin")
                .join(self.as_str()),
            Analyzer::Rust | Analyzer::Go => installed.join("bin").join(self.as_str()),
        }
    }
}

/// An analyzer found on this machine: the program that answered, its exact version (part
/// of every unit's identity, so a new version never reuses an old memo) and where it came
/// from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Toolchain {
    pub analyzer: Analyzer,
    pub program: PathBuf,
    pub version: String,
    pub source: String,
}

/// An analyzer with the settings a configuration gives it: together, what its units'
/// answers were produced by, so both are part of their identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Configured<S> {
    pub toolchain: Toolchain,
    pub settings: S,
}

impl Toolchain {
    /// `name version`: what a unit's answers were produced by.
    pub fn identity(&self) -> String {
        format!("{} {}", self.analyzer.as_str(), self.version)
    }

    /// The configured command when one is given, else the copy the setup script installed
    /// under `installed` (`node_modules/.bin`, or `bin` for rust-analyzer, a link to the
    /// pinned toolchain's), else the one beside this executable, else the `PATH`.
    pub fn locate(
        analyzer: Analyzer,
        configured: Option<&str>,
        installed: &Path,
    ) -> Result<Toolchain, AnalyzerError> {
        let name = analyzer.as_str();
        let local = analyzer.installed_under(installed);
        let beside = std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.join(name)))
            .filter(|path| path.is_file());
        let (program, source) = match (configured, beside) {
            (Some(command), _) => (PathBuf::from(command), "configured".to_string()),
            (None, _) if local.exists() => {
                (local, format!("installed under {}", installed.display()))
            }
            (None, Some(beside)) => (beside, "beside the kivgraph executable".to_string()),
            (None, None) => (PathBuf::from(name), "PATH".to_string()),
        };
        let said = reported_version(name, &program, "; run cargo xtask setup")?;
        // rust-analyzer names itself: `rust-analyzer 1.95.0 (5980761 2026-04-14)`.
        let version = said.trim_start_matches(name).trim().to_string();
        Ok(Toolchain {
            analyzer,
            program,
            version,
            source,
        })
    }
}

/// Asks `program` (the analyzer `analyzer`) for `--version`: the first line it printed, or
/// why it counts as absent, with `remedy` appended to the reason.
pub(crate) fn reported_version(
    analyzer: &str,
    program: &Path,
    remedy: &str,
) -> Result<String, AnalyzerError> {
    let missing = |detail: String| AnalyzerError::Missing {
        analyzer: analyzer.to_string(),
        detail: format!("{detail}{remedy}"),
    };
    let output = Command::new(program)
        .arg("--version")
        .output()
        .map_err(|e| missing(format!("{} could not be started ({e})", program.display())))?;
    match first_line(&String::from_utf8_lossy(&output.stdout)) {
        Some(line) if output.status.success() => Ok(line.to_string()),
        _ => Err(missing(format!(
            "{} --version answered nothing{}",
            program.display(),
            first_line(&String::from_utf8_lossy(&output.stderr))
                .map(|l| format!(" ({l})"))
                .unwrap_or_default()
        ))),
    }
}

fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty())
}

/// One TypeScript/JavaScript analysis unit: a package's files, checked as one program whose
/// project file lives in scratch space.
pub struct TypescriptUnit<'a> {
    /// Where relative paths start: the repository's checkout.
    pub repository_root: &'a Path,
    /// The unit's files, repository-relative.
    pub files: &'a [String],
    /// The package's own `tsconfig.json`, extended when there is one.
    pub base_tsconfig: Option<PathBuf>,
    /// Package names the checker cannot find on disk (registered repositories) mapped to
    /// the directories that provide them.
    pub paths: &'a [(String, PathBuf)],
}

impl TypescriptUnit<'_> {
    /// The unit's directory, repository-relative: where its files' `package.json` is.
    fn directory(&self) -> &str {
        self.files
            .iter()
            .map(|f| f.rsplit_once('/').map_or("", |(d, _)| d))
            .min_by_key(|d| d.len())
            .unwrap_or("")
    }
}

/// The conditions a package's own `exports` map uses to point at TypeScript sources, other
/// than the ones every resolver knows.
fn source_conditions(directory: &Path) -> Vec<String> {
    const KNOWN: [&str; 9] = [
        "types",
        "typings",
        "import",
        "require",
        "default",
        "node",
        "browser",
        "module",
        "development",
    ];
    let Ok(text) = std::fs::read_to_string(directory.join("package.json")) else {
        return Vec::new();
    };
    let Ok(manifest) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut conditions = std::collections::BTreeSet::new();
    let mut pending: Vec<&serde_json::Value> = manifest.get("exports").into_iter().collect();
    while let Some(value) = pending.pop() {
        let Some(object) = value.as_object() else {
            continue;
        };
        for (key, target) in object {
            let source = target.as_str().is_some_and(|t| {
                [".ts", ".tsx", ".mts", ".cts"]
                    .iter()
                    .any(|e| t.ends_with(e))
                    && !t.contains(".d.")
            });
            if source && !key.starts_with('.') && !KNOWN.contains(&key.as_str()) {
                conditions.insert(key.clone());
            }
            pending.push(target);
        }
    }
    conditions.into_iter().collect()
}

/// One Python analysis unit: a repository's Python sources, checked by pyright in a project
/// that holds every registered repository with Python. The project is a directory of links
/// in scratch space, one per repository, so that an import reaches another registered
/// repository the way an installed distribution would; documents come back relative to the
/// target's link (`path`, or `../<other link>/path` for a file it read elsewhere).
pub struct PythonUnit<'a> {
    /// Link name (the repository's name) → its checkout.
    pub repositories: &'a [(String, PathBuf)],
    /// The directories imports start from, relative to the project: `<link>` or
    /// `<link>/<dir>`.
    pub import_roots: &'a [String],
    /// The link whose files are analysed.
    pub target: &'a str,
}

/// The package's own `tsconfig.json`, at its directory or above it inside the repository.
pub fn nearest_tsconfig(root: &Path, package_directory: &str) -> Option<PathBuf> {
    let mut directory = package_directory;
    loop {
        let candidate = root.join(directory).join("tsconfig.json");
        if candidate.is_file() {
            return Some(candidate);
        }
        if directory.is_empty() {
            return None;
        }
        directory = directory.rsplit_once('/').map_or("", |(parent, _)| parent);
    }
}

/// A fresh directory under `scratch` for one run, removed when dropped.
pub(crate) fn scratch_directory(
    scratch: &Path,
    prefix: &str,
) -> std::io::Result<tempfile::TempDir> {
    std::fs::create_dir_all(scratch)?;
    tempfile::Builder::new().prefix(prefix).tempdir_in(scratch)
}

impl Toolchain {
    /// Runs scip-typescript on the unit; nothing is written inside the repository.
    pub fn index_typescript(
        &self,
        unit: &TypescriptUnit,
        scratch: &Path,
    ) -> Result<ScipIndex, AnalyzerError> {
        let project = scratch_directory(scratch, "ts-unit-")?;
        let root = unit.repository_root;
        let files: Vec<String> = unit
            .files
            .iter()
            .map(|f| root.join(f).display().to_string())
            .collect();
        let mut options = serde_json::Map::new();
        let mut set = |key: &str, value: serde_json::Value| {
            options.insert(key.to_string(), value);
        };
        set("noEmit", true.into());
        set("allowJs", true.into());
        set("skipLibCheck", true.into());
        if unit.base_tsconfig.is_none() {
            set("target", "es2022".into());
            set("module", "esnext".into());
            set("moduleResolution", "bundler".into());
            set("jsx", "preserve".into());
            // A package that maps its own entry points to its sources under a condition of
            // its own (`"@zod/source": "./src/index.ts"`) is developed against them: its
            // self-references resolve to the sources, as its build resolves them.
            let conditions = source_conditions(&unit.repository_root.join(unit.directory()));
            if !conditions.is_empty() {
                set("customConditions", conditions.into());
            }
        }
        if !unit.paths.is_empty() {
            let mut paths = serde_json::Map::new();
            for (name, directory) in unit.paths {
                let directory = directory.display().to_string();
                paths.insert(name.clone(), serde_json::json!([directory]));
                paths.insert(
                    format!("{name}/*"),
                    serde_json::json!([format!("{directory}/*")]),
                );
            }
            set("paths", paths.into());
        }
        let mut config = serde_json::json!({
            "compilerOptions": options,
            "files": files,
        });
        if let Some(base) = &unit.base_tsconfig {
            config["extends"] = base.display().to_string().into();
        }
        std::fs::write(
            project.path().join("tsconfig.json"),
            serde_json::to_vec_pretty(&config).expect("a JSON value serializes"),
        )?;
        let output_file = project.path().join("index.scip");
        let mut command = Command::new(&self.program);
        command
            .arg("index")
            .arg("--cwd")
            .arg(root)
            .arg("--output")
            .arg(&output_file)
            .arg("--no-progress-bar")
            .arg(project.path());
        self.run(command, &root.display().to_string(), &output_file)
            .map(|(index, _)| index)
    }

    /// Runs scip-python on one repository's Python; nothing is written inside a repository.
    pub fn index_python(
        &self,
        unit: &PythonUnit,
        scratch: &Path,
    ) -> Result<ScipIndex, AnalyzerError> {
        let work = scratch_directory(scratch, "py-unit-")?;
        let project = work.path().join("project");
        std::fs::create_dir(&project)?;
        for (link, root) in unit.repositories {
            std::os::unix::fs::symlink(root, project.join(link))?;
        }

        // pyright asks the environment for installed distributions: an empty list keeps the
        // run hermetic. A fixed project name and version keep symbols stable across runs.
        let environment = work.path().join("environment.json");
        std::fs::write(&environment, b"[]")?;
        let output_file = work.path().join("index.scip");
        // pyright can crash on one file and abandon the whole run: that file is excluded
        // and the run repeated, a few times at most; the files left out are reported.
        let mut excluded: Vec<String> = Vec::new();
        loop {
            let config = serde_json::json!({
                "extraPaths": unit.import_roots,
                "exclude": excluded,
            });
            std::fs::write(
                project.join("pyrightconfig.json"),
                serde_json::to_vec_pretty(&config).expect("a JSON value serializes"),
            )?;
            match self.run(
                self.python_command(&project, &output_file, &environment, unit.target),
                unit.target,
                &output_file,
            ) {
                Ok((mut index, _)) => {
                    index.skipped = excluded
                        .iter()
                        .map(|path| {
                            path.strip_prefix(&format!("{}/", unit.target))
                                .map_or_else(|| format!("../{path}"), str::to_string)
                        })
                        .collect();
                    return Ok(index);
                }
                Err(AnalyzerError::Failed {
                    crashed_on: Some(file),
                    ..
                }) if excluded.len() < MAX_CRASH_EXCLUSIONS => {
                    let Some(relative) = Path::new(&file)
                        .strip_prefix(&project)
                        .ok()
                        .map(|p| p.to_string_lossy().to_string())
                        .filter(|p| !excluded.contains(p))
                    else {
                        return Err(AnalyzerError::Output(format!(
                            "scip-python crashed again on {file}"
                        )));
                    };
                    tracing::warn!(
                        file = relative,
                        "scip-python crashed on a file; excluding it and running again"
                    );
                    excluded.push(relative);
                }
                Err(error) => return Err(error),
            }
        }
    }

    fn python_command(
        &self,
        project: &Path,
        output_file: &Path,
        environment: &Path,
        target: &str,
    ) -> Command {
        let mut command = Command::new(&self.program);
        command
            .arg("index")
            .arg("--cwd")
            .arg(project)
            .arg("--output")
            .arg(output_file)
            .arg("--quiet")
            .arg("--project-name")
            .arg("kivgraph")
            .arg("--project-version")
            .arg("0")
            .arg("--environment")
            .arg(environment)
            .arg("--target-only")
            .arg(target);
        command
    }

    /// Runs one analyzer command and decodes the index it wrote, with what it said on
    /// stderr.
    pub(crate) fn run(
        &self,
        command: Command,
        unit: &str,
        output_file: &Path,
    ) -> Result<(ScipIndex, String), AnalyzerError> {
        run_indexer(self.analyzer.as_str(), command, unit, output_file)
    }
}

/// Runs `command`, the indexer `analyzer` on `unit`, and decodes the index it wrote at
/// `output_file`, with what it said on stderr.
pub(crate) fn run_indexer(
    analyzer: &str,
    mut command: Command,
    unit: &str,
    output_file: &Path,
) -> Result<(ScipIndex, String), AnalyzerError> {
    let failed = |detail: String| AnalyzerError::Failed {
        analyzer: analyzer.to_string(),
        unit: unit.to_string(),
        detail,
        crashed_on: None,
    };
    tracing::debug!(analyzer, unit, "running analyzer");
    let program = command.get_program().to_string_lossy().into_owned();
    let output = command
        .output()
        .map_err(|e| failed(format!("could not start {program}: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let said = if stderr.trim().is_empty() {
            stdout
        } else {
            stderr
        };
        let tail: Vec<&str> = said.lines().rev().take(5).collect();
        // scip-python names the file it was visiting: `currentFilepath: '/…/x.py'`.
        let crashed_on = said
            .split_once("currentFilepath: '")
            .and_then(|(_, rest)| rest.split_once('\''))
            .map(|(path, _)| path.to_string());
        return Err(AnalyzerError::Failed {
            analyzer: analyzer.to_string(),
            unit: unit.to_string(),
            detail: format!(
                "exit {}: {}",
                output.status,
                tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
            ),
            crashed_on,
        });
    }
    let bytes = std::fs::read(output_file)
        .map_err(|e| failed(format!("wrote no index at {}: {e}", output_file.display())))?;
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    Ok((decode(&bytes)?, said))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for scip-python that crashes on `pkg/bad.py` until the project excludes
    /// it, then writes an empty index.
    const CRASHING_INDEXER: &str = r#"#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in
    --cwd) cwd="$2"; shift ;;
    --output) output="$2"; shift ;;
  esac
  shift
done
if grep -q 'pkg/bad.py' "$cwd/pyrightconfig.json"; then
  : > "$output"
  exit 0
fi
echo "Experienced Fatal Error While Indexing:" >&2
echo "Please create an issue: {" >&2
echo "  currentFilepath: '$cwd/repo/pkg/bad.py'," >&2
echo "  error: TypeError: Cannot read properties of undefined" >&2
echo "}" >&2
exit 1
"#;

    #[test]
    fn a_package_developed_against_its_sources_resolves_to_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"exports": {".": {"@acme/source": "./src/index.ts", "types": "./index.d.ts", "import": "./index.js"}, "./v3": {"@acme/source": "./src/v3/index.ts", "default": "./v3/index.js"}, "./d": {"custom": "./d.d.ts"}}}"#,
        )
        .unwrap();
        assert_eq!(
            source_conditions(dir.path()),
            vec!["@acme/source".to_string()]
        );
        assert!(source_conditions(&dir.path().join("absent")).is_empty());
    }

    #[test]
    fn a_file_the_analyzer_crashes_on_is_left_out_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("fake-scip-python");
        std::fs::write(&program, CRASHING_INDEXER).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let repository = dir.path().join("checkout");
        std::fs::create_dir_all(repository.join("pkg")).unwrap();
        let toolchain = Toolchain {
            analyzer: Analyzer::Python,
            program,
            version: "test".into(),
            source: "test".into(),
        };
        let unit = PythonUnit {
            repositories: &[("repo".to_string(), repository)],
            import_roots: &["repo".to_string()],
            target: "repo",
        };
        let index = toolchain
            .index_python(&unit, &dir.path().join("scratch"))
            .unwrap();
        assert_eq!(index.skipped, vec!["pkg/bad.py".to_string()]);
        assert!(index.documents.is_empty());
    }
}
