//! Running our go/types worker (`crates/kivgraph-analyzers/go-worker`) on the Go modules of one repository.

use std::path::{Path, PathBuf};
use std::process::Command;

use kivgraph_config::{GoBuildContext, GoSection};
use serde::{Deserialize, Serialize};

use crate::runner::{AnalyzerError, Configured, Toolchain, scratch_directory};
use crate::scip_index::{ColumnEncoding, Occurrence, ScipDocument, ScipIndex};

/// What the worker may fetch: part of a Go unit's identity. Which files it compiles is the
/// pass's [`GoBuildContext`], which the syntax layer shares.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GoSettings {
    pub allow_network: bool,
}

impl GoSettings {
    /// The configuration's `go` section as the worker runs under it.
    pub fn of(section: &GoSection) -> Self {
        GoSettings {
            allow_network: section.allow_network,
        }
    }
}

/// The worker with the settings it runs under.
pub type GoAnalyzer = Configured<GoSettings>;

/// One Go module of a repository: what one load reads.
pub struct GoUnit<'a> {
    pub repository_root: &'a Path,
    /// The module's directory (its `go.mod`'s), repository-relative.
    pub module: &'a str,
    /// The module's path.
    pub module_path: &'a str,
    /// Directories of the other registered modules the unit's imports reach: with them,
    /// the load runs in a synthetic `go.work`, so an import of a registered module resolves
    /// to its checkout without a `replace`.
    pub workspace: &'a [PathBuf],
}

/// What the worker prints for one module.
#[derive(Deserialize)]
struct WorkerOutput {
    documents: Vec<WorkerDocument>,
    load_errors: Vec<String>,
    not_loaded: Vec<WorkerScope>,
    not_buildable: Vec<WorkerScope>,
}

#[derive(Deserialize)]
struct WorkerDocument {
    path: String,
    occurrences: Vec<WorkerOccurrence>,
}

#[derive(Deserialize)]
struct WorkerOccurrence {
    line: u32,
    column: u32,
    end_column: u32,
    symbol: String,
    definition: bool,
}

#[derive(Deserialize)]
struct WorkerScope {
    package: String,
    detail: String,
}

impl Toolchain {
    /// Checks the unit's module with go/types. Hermetic: `GOPROXY=off` unless
    /// `go.allow_network`, `GOTOOLCHAIN=local`, no `go.work` of the user's (a synthetic one
    /// in scratch space when the unit reaches other registered modules), and the build cache
    /// in scratch space. A package importing a required module the go command could not load
    /// is listed in `unloaded` (`module/...` when the module could not be listed at all); a
    /// package the build tags exclude is listed in `unbuildable`.
    pub fn index_go(
        &self,
        unit: &GoUnit,
        settings: &GoSettings,
        build: &GoBuildContext,
        scratch: &Path,
    ) -> Result<ScipIndex, AnalyzerError> {
        let work = scratch_directory(scratch, "go-unit-")?;
        let go_work = self.synthetic_workspace(unit, work.path())?;
        let mut output =
            self.check_module(unit, go_work.as_deref(), settings, build, work.path())?;
        // A registered module the workspace uses may itself be unloadable (a requirement
        // nobody downloaded): it must not take this module down with it. Loaded alone, only
        // what it imports from the other registered modules goes unresolved.
        if go_work.is_some() && !output.load_errors.is_empty() {
            let alone = self.check_module(unit, None, settings, build, work.path())?;
            if alone.load_errors.is_empty() {
                tracing::warn!(
                    module = unit.module_path,
                    errors = output.load_errors.join("; "),
                    "the synthetic go.work did not load; the module was loaded without it"
                );
                output = alone;
            }
        }
        let mut index = ScipIndex {
            tool: self.analyzer.as_str().to_string(),
            tool_version: self.version.clone(),
            ..ScipIndex::default()
        };
        if !output.load_errors.is_empty() {
            index.unloaded.push((
                format!("{}/...", unit.module_path),
                output.load_errors.join("; "),
            ));
            return Ok(index);
        }
        index.unloaded = output
            .not_loaded
            .into_iter()
            .map(|scope| (scope.package, scope.detail))
            .collect();
        index.unbuildable = output
            .not_buildable
            .into_iter()
            .map(|scope| (scope.package, scope.detail))
            .collect();
        // The go command reports clean absolute directories.
        let root = std::fs::canonicalize(unit.repository_root)
            .unwrap_or_else(|_| unit.repository_root.to_path_buf());
        for document in output.documents {
            let Ok(relative) = Path::new(&document.path).strip_prefix(&root) else {
                continue;
            };
            index.documents.push(ScipDocument {
                relative_path: relative.to_string_lossy().into_owned(),
                occurrences: document
                    .occurrences
                    .into_iter()
                    .map(|o| Occurrence {
                        start_line: o.line,
                        start_column: o.column,
                        end_line: o.line,
                        end_column: o.end_column,
                        symbol: o.symbol,
                        definition: o.definition,
                        encoding: ColumnEncoding::Utf8,
                    })
                    .collect(),
                implementations: Vec::new(),
                type_definitions: Vec::new(),
            });
        }
        index
            .documents
            .sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
        Ok(index)
    }

    /// A `go.work` using the module and the registered modules the unit reaches, or `None`
    /// when it reaches none.
    fn synthetic_workspace(
        &self,
        unit: &GoUnit,
        work: &Path,
    ) -> Result<Option<PathBuf>, AnalyzerError> {
        if unit.workspace.is_empty() {
            return Ok(None);
        }
        // The worker answers `3 go1.27.4`: the workspace's language version is its Go's.
        let go = self
            .version
            .rsplit(' ')
            .next()
            .unwrap_or("")
            .trim_start_matches("go");
        let mut text = format!("go {go}\n\nuse (\n");
        // The go command compares the clean absolute directories of the modules it finds
        // with those the workspace lists.
        let own = unit.repository_root.join(unit.module);
        let listed: std::collections::BTreeSet<PathBuf> = std::iter::once(&own)
            .chain(unit.workspace)
            .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()))
            .collect();
        for directory in listed {
            text.push_str(&format!("\t{}\n", directory.display()));
        }
        text.push_str(")\n");
        let file = work.join("go.work");
        std::fs::write(&file, text)?;
        Ok(Some(file))
    }

    fn check_module(
        &self,
        unit: &GoUnit,
        go_work: Option<&Path>,
        settings: &GoSettings,
        build: &GoBuildContext,
        work: &Path,
    ) -> Result<WorkerOutput, AnalyzerError> {
        let directory = unit.repository_root.join(unit.module);
        let mut command = Command::new(&self.program);
        command
            .arg("-dir")
            .arg(&directory)
            .arg("-tags")
            .arg(build.build_tags.join(","))
            .current_dir(work)
            .env("GOTOOLCHAIN", "local")
            // The files discovery selected under the same context.
            .env("GOOS", &build.goos)
            .env("GOARCH", &build.goarch)
            .env("CGO_ENABLED", if build.cgo { "1" } else { "0" })
            .env(
                "GOWORK",
                go_work.map_or_else(|| "off".into(), |f| f.as_os_str().to_owned()),
            )
            // The user's GOFLAGS could say `-mod=mod`, which rewrites go.mod: none here.
            .env("GOFLAGS", "")
            .env("GOCACHE", go_cache(work));
        if build.include_tests {
            command.arg("-tests");
        }
        if !settings.allow_network {
            command.env("GOPROXY", "off");
        }
        let failed = |detail: String| AnalyzerError::Failed {
            analyzer: self.analyzer.as_str().to_string(),
            unit: directory.display().to_string(),
            detail,
            crashed_on: None,
        };
        let output = command
            .output()
            .map_err(|e| failed(format!("could not start {}: {e}", self.program.display())))?;
        if !output.status.success() {
            return Err(failed(format!(
                "exit {}: {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            )));
        }
        serde_json::from_slice(&output.stdout)
            .map_err(|e| AnalyzerError::Output(format!("the Go worker's answer: {e}")))
    }
}

/// The go command's build cache: beside the scratch space, so that it outlives one run
/// (export data of the standard library is compiled once) and stays out of repositories.
fn go_cache(work: &Path) -> PathBuf {
    work.parent().unwrap_or(work).join("go-build-cache")
}
