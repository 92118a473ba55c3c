//! Walking one registered repository.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use kivgraph_config::{GoBuildContext, LanguageToken, RepositoryEntry};
use kivgraph_facts::Language;

use crate::build_output::{BuildOutput, classify};
use crate::go_files::{GoFileRule, GoFilesLeftOut, go_file_left_out, read_header};
use crate::manifests::{FileUnit, PackageAssigner};
use crate::module_maps::ModuleMaps;

/// Directories no pass enters, whatever `.gitignore` says.
const SKIPPED_DIRECTORIES: &[&str] = &[".git", "node_modules", "target", "vendor"];

#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    #[error("repository {name:?}: {path} is not a readable directory: {reason}")]
    Root {
        name: String,
        path: PathBuf,
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DiscoveredFile {
    /// Repository-relative, `/`-separated.
    pub path: String,
    pub language: Language,
    pub unit: FileUnit,
}

/// Serializable: a fact set carries it to the machine that merges it (`rebuild --facts`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DiscoveredRepository {
    pub name: String,
    pub root: PathBuf,
    pub languages: Vec<Language>,
    /// Sorted by path.
    pub files: Vec<DiscoveredFile>,
    /// Entries discovery declined, with why (a symlink, an unreadable directory).
    pub skipped: Vec<(String, String)>,
    /// What the repository's own build produced, left out of `files`, by directory and
    /// reason.
    pub build_output: Vec<BuildOutput>,
    /// The `.go` files the configured Go build does not compile, left out of `files`, by
    /// rule.
    pub go_left_out: Vec<GoFilesLeftOut>,
    /// Entry points and path mappings the manifests declare.
    pub module_maps: ModuleMaps,
}

/// The rule that leaves the `.go` file at `path` (repository-relative) out of the build:
/// go/build reads a path from its module's root, so a module inside a `testdata/`
/// directory is a module like any other.
fn go_rule(
    module_maps: &ModuleMaps,
    go: &GoBuildContext,
    path: &str,
    content: impl FnOnce() -> Option<Vec<u8>>,
) -> Option<GoFileRule> {
    let directory = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let in_module = match module_maps.go_module_root(directory) {
        Some(module) if !module.is_empty() => &path[module.len() + 1..],
        _ => path,
    };
    go_file_left_out(go, in_module, content)
}

impl DiscoveredRepository {
    /// Whether discovery, run again, would still read the file at `path` (one it read) now
    /// that it holds `content`: a saved file's text cannot move it between packages, but a
    /// Go file's build constraint can leave it out of the build.
    pub fn still_reads(&self, go: &GoBuildContext, path: &str, content: &[u8]) -> bool {
        !path.ends_with(".go")
            || go_rule(&self.module_maps, go, path, || Some(content.to_vec())).is_none()
    }
}

/// The source languages a registry entry enables. `typescript` covers JavaScript too, since a
/// TypeScript program may include it; `dart` has no extractor in this build.
pub fn enabled_languages(tokens: &[LanguageToken]) -> Vec<Language> {
    let mut languages = Vec::new();
    for token in tokens {
        let add: &[Language] = match token {
            LanguageToken::Go => &[Language::Go],
            LanguageToken::Typescript => &[Language::TypeScript, Language::JavaScript],
            LanguageToken::Javascript => &[Language::JavaScript],
            LanguageToken::Rust => &[Language::Rust],
            LanguageToken::Python => &[Language::Python],
            LanguageToken::Dart => &[],
        };
        for language in add {
            if !languages.contains(language) {
                languages.push(*language);
            }
        }
    }
    languages.sort();
    languages
}

/// Lists the source files of one repository and assigns each to its package; of its `.go`
/// files, those the Go build context compiles.
pub fn discover_repository(
    entry: &RepositoryEntry,
    go: &GoBuildContext,
) -> Result<DiscoveredRepository, DiscoveryError> {
    let root = entry.path.clone();
    match std::fs::metadata(&root) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(root_error(entry, "not a directory".into())),
        Err(err) => return Err(root_error(entry, err.to_string())),
    }
    let languages = enabled_languages(&entry.languages);
    let exclusions: Vec<String> = entry
        .exclusions
        .iter()
        .map(|e| e.trim_matches('/').to_string())
        .collect();

    let mut walker = ignore::WalkBuilder::new(&root);
    walker
        .follow_links(false)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(false)
        .git_global(false)
        .require_git(false)
        .ignore(false)
        .parents(false)
        .sort_by_file_name(|a, b| a.cmp(b));
    let filter_root = root.clone();
    walker.filter_entry(move |dir_entry| {
        let is_dir = dir_entry.file_type().is_some_and(|t| t.is_dir());
        if !is_dir {
            return true;
        }
        let name = dir_entry.file_name().to_string_lossy();
        if dir_entry.depth() > 0 && SKIPPED_DIRECTORIES.contains(&name.as_ref()) {
            return false;
        }
        let relative = relative_path(&filter_root, dir_entry.path());
        !exclusions
            .iter()
            .any(|excluded| relative == *excluded || relative.starts_with(&format!("{excluded}/")))
    });

    let mut sources = Vec::new();
    let mut manifests = Vec::new();
    let mut skipped = Vec::new();
    let mut source_maps = std::collections::BTreeSet::new();
    let mut build_configs = Vec::new();
    let mut go_left_out: BTreeMap<GoFileRule, (usize, String)> = BTreeMap::new();
    for result in walker.build() {
        let dir_entry = match result {
            Ok(dir_entry) => dir_entry,
            Err(err) => {
                skipped.push((String::new(), err.to_string()));
                continue;
            }
        };
        let Some(file_type) = dir_entry.file_type() else {
            continue;
        };
        let relative = relative_path(&root, dir_entry.path());
        if file_type.is_symlink() {
            // Never followed: a link may leave the repository, and one inside it is a duplicate.
            skipped.push((relative, "symbolic link not followed".into()));
            continue;
        }
        if !file_type.is_file() {
            continue;
        }
        let file_name = relative.rsplit('/').next().unwrap_or(&relative);
        if PackageAssigner::is_manifest(file_name) {
            manifests.push(relative.clone());
        }
        if file_name.ends_with(".map") {
            source_maps.insert(relative.clone());
        }
        if file_name.starts_with("tsconfig") && file_name.ends_with(".json") {
            build_configs.push(relative.clone());
        }
        if let Some(language) = Language::from_path(&relative)
            && languages.contains(&language)
        {
            sources.push((relative, language));
        }
    }
    let assigner = PackageAssigner::from_manifests(&root, manifests.iter().map(String::as_str));
    // Of the `.go` files, those the build compiles: go/build reads a path from its module's
    // root, so a module inside a `testdata/` directory is a module like any other.
    sources.retain(|(path, language)| {
        if *language != Language::Go {
            return true;
        }
        let Some(rule) = go_rule(assigner.module_maps(), go, path, || {
            read_header(&root.join(path))
        }) else {
            return true;
        };
        let (files, example) = go_left_out.entry(rule).or_insert((0, path.clone()));
        *files += 1;
        if path < example {
            *example = path.clone();
        }
        false
    });
    let mut module_maps = assigner.module_maps().clone();
    let mut modules: Vec<String> = sources
        .iter()
        .filter(|(_, language)| matches!(language, Language::TypeScript | Language::JavaScript))
        .map(|(path, _)| path.clone())
        .collect();
    modules.sort();
    let build = classify(&root, &modules, &source_maps, &build_configs);
    module_maps.builds = build.layouts;
    module_maps.mapped = build.mapped;
    let mut files: Vec<DiscoveredFile> = sources
        .into_iter()
        .filter(|(path, _)| !build.files.contains(path))
        .map(|(path, language)| {
            let unit = assigner.assign(&path, language);
            DiscoveredFile {
                path,
                language,
                unit,
            }
        })
        .collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.sort();
    Ok(DiscoveredRepository {
        name: entry.name.clone(),
        root,
        languages,
        files,
        skipped,
        build_output: build.entries,
        go_left_out: go_left_out
            .into_iter()
            .map(|(rule, (files, example))| GoFilesLeftOut {
                rule,
                files,
                example,
            })
            .collect(),
        module_maps,
    })
}

fn root_error(entry: &RepositoryEntry, reason: String) -> DiscoveryError {
    DiscoveryError::Root {
        name: entry.name.clone(),
        path: entry.path.clone(),
        reason,
    }
}

fn relative_path(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `files` under `root` and discovers it as a Go repository with `exclusions`.
    fn discover_go(
        root: &Path,
        files: &[(&str, &str)],
        exclusions: &[&str],
    ) -> DiscoveredRepository {
        for (path, text) in files {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        let entry = RepositoryEntry {
            name: "r".into(),
            path: root.to_path_buf(),
            languages: vec![LanguageToken::Go],
            manifests: vec![],
            roots: vec![],
            exclusions: exclusions.iter().map(|e| e.to_string()).collect(),
        };
        discover_repository(&entry, &GoBuildContext::default()).unwrap()
    }

    #[test]
    fn walk_honours_gitignore_exclusions_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(outside.path().join("secret.go"), "package secret").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.go"), root.join("link.go")).unwrap();
        let repo = discover_go(
            root,
            &[
                ("a.go", "package a"),
                ("gen/ignored.go", "package gen"),
                ("skip/me.go", "package skip"),
                ("node_modules/x/index.js", ""),
                ("vendor/v.go", "package v"),
                ("web/app.ts", ""),
                (".gitignore", "gen/\n"),
            ],
            &["skip"],
        );
        let paths: Vec<_> = repo.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["a.go"]);
        let skipped: Vec<_> = repo.skipped.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(skipped, vec!["escape", "link.go"]);
    }

    #[test]
    fn go_files_are_selected_from_their_module_root() {
        let dir = tempfile::tempdir().unwrap();
        let repo = discover_go(
            dir.path(),
            &[
                ("go.mod", "module example.com/top\n"),
                ("a.go", "package top\n"),
                ("a_test.go", "package top\n"),
                ("pkg/testdata/fixture.go", "package fixture\n"),
                ("pkg/_old/old.go", "package old\n"),
                // A module of its own inside a `testdata/` directory is built like any other.
                ("testdata/inner/go.mod", "module example.com/inner\n"),
                ("testdata/inner/b.go", "package inner\n"),
                (
                    "testdata/inner/gen.go",
                    "//go:build ignore\n\npackage main\n",
                ),
            ],
            &[],
        );
        let paths: Vec<_> = repo.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["a.go", "testdata/inner/b.go"]);
        let left_out: Vec<(&str, usize, &str)> = repo
            .go_left_out
            .iter()
            .map(|l| (l.rule.as_str(), l.files, l.example.as_str()))
            .collect();
        assert_eq!(
            left_out,
            vec![
                ("GO_IGNORED_PATH", 2, "pkg/_old/old.go"),
                ("GO_TEST_FILE", 1, "a_test.go"),
                ("GO_BUILD_CONSTRAINT", 1, "testdata/inner/gen.go"),
            ]
        );
    }
}
