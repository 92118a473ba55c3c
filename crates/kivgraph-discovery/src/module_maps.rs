//! What a repository's manifests say about module specifiers: a `package.json`'s entry
//! points (`exports`, `types`, `main`) and a `tsconfig.json`'s path mapping (`baseUrl`,
//! `paths`, through `extends`). Read here, matched by the resolver.

use std::collections::BTreeMap;
use std::path::Path;

use kivgraph_facts::Fingerprint;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::build_output::BuildLayout;
use crate::jsonc::plain_json;
use crate::repo_paths::{join_inside, nearest, parent_dir};

/// The module maps of one repository, by the repository-relative directory of their manifest.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct ModuleMaps {
    pub packages: BTreeMap<String, PackageEntries>,
    pub tsconfigs: BTreeMap<String, PathMapping>,
    pub crates: BTreeMap<String, CrateManifest>,
    /// By directory, each `go.mod`.
    #[serde(default)]
    pub go_modules: BTreeMap<String, GoModuleManifest>,
    /// What the repository's builds emit from where (`outDir`, `declarationDir`, trees
    /// mirroring `src/`), in a fixed order.
    #[serde(default)]
    pub builds: Vec<BuildLayout>,
    /// Build output whose own source map names the one source it was emitted from (what a
    /// build without a configuration shipped, as effect's `dist/dts/*.d.ts.map` record).
    #[serde(default)]
    pub mapped: BTreeMap<String, String>,
}

/// A `go.mod`: the module path, its `go` directive, the modules it requires and replaces,
/// and a fingerprint of it and its `go.sum` (what the type checker's loader read).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct GoModuleManifest {
    pub path: String,
    pub go_version: Option<String>,
    pub requires: Vec<String>,
    pub digest: Option<Fingerprint>,
    #[serde(default)]
    pub replaces: Vec<GoReplace>,
}

/// A `replace` directive: the module path it replaces (at every version, or at the one
/// named) and what the go command uses instead.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GoReplace {
    pub path: String,
    pub with: GoReplacement,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GoReplacement {
    /// A directory, as written (relative to the `go.mod`'s, or absolute).
    Directory(String),
    /// Another module at a version, from the module cache.
    Module { path: String, version: String },
}

impl GoModuleManifest {
    /// Reads `go.mod`'s module path, `go` directive and required module paths (both the
    /// one-line and the block form). A module path the go command refuses (a test fixture's
    /// `αfake1α`) makes no module: go builds nothing from that directory on its own.
    pub fn of(text: &str) -> Option<Self> {
        let mut manifest = GoModuleManifest::default();
        let mut block = "";
        for line in text.lines() {
            let line = line.split("//").next().unwrap_or("").trim();
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["module", path, ..] => manifest.path = path.trim_matches('"').to_string(),
                ["go", version, ..] => manifest.go_version = Some(version.to_string()),
                [directive @ ("require" | "replace"), "("] => block = directive,
                [")"] => block = "",
                ["require", path, ..] => manifest.requires.push(path.to_string()),
                ["replace", rest @ ..] => manifest.replaces.extend(GoReplace::of(rest)),
                [path, _version, ..] if block == "require" => {
                    manifest.requires.push(path.to_string())
                }
                rest if block == "replace" => manifest.replaces.extend(GoReplace::of(rest)),
                _ => {}
            }
        }
        is_module_path(&manifest.path).then_some(manifest)
    }
}

/// The characters and shape golang.org/x/mod's `CheckPath` allows a module path: ASCII
/// letters, digits and `-._~/`, slash-separated non-empty elements, none starting or
/// ending with a dot.
fn is_module_path(path: &str) -> bool {
    !path.is_empty()
        && path.split('/').all(|element| {
            !element.is_empty()
                && !element.starts_with('.')
                && !element.ends_with('.')
                && element
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
        })
}

impl GoReplace {
    /// `old [version] => new [version]`: a replacement without a version is a directory.
    fn of(words: &[&str]) -> Option<GoReplace> {
        let arrow = words.iter().position(|w| *w == "=>")?;
        let path = words.first().filter(|_| arrow > 0)?.trim_matches('"');
        let with = match &words[arrow + 1..] {
            [directory] => GoReplacement::Directory(directory.trim_matches('"').to_string()),
            [module, version] => GoReplacement::Module {
                path: module.trim_matches('"').to_string(),
                version: version.to_string(),
            },
            _ => return None,
        };
        Some(GoReplace {
            path: path.to_string(),
            with,
        })
    }
}

/// A `Cargo.toml`'s version and the crates it may name, with what it inherits from its
/// workspace (`version.workspace = true`, `serde.workspace = true`) already filled in by
/// [`ModuleMaps::inherit_from_workspaces`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CrateManifest {
    pub version: Option<String>,
    /// `version.workspace = true`: the version is the workspace's.
    #[serde(default)]
    pub inherits_version: bool,
    /// A workspace root's `[workspace.package] version` and `[workspace.dependencies]`
    /// (paths relative to the root), what its members inherit.
    #[serde(default)]
    pub workspace_version: Option<String>,
    #[serde(default)]
    pub workspace_dependencies: BTreeMap<String, CrateDependency>,
    /// The manifest has a `[workspace]` table: a Cargo workspace root.
    #[serde(default)]
    pub workspace: bool,
    /// The manifest's text and its directory's `Cargo.lock`, fingerprinted: what an analyzer
    /// that loads the workspace read besides the sources.
    #[serde(default)]
    pub digest: Option<Fingerprint>,
    /// By the name the code spells (`serde_json`, or a `package =` rename's key): the
    /// package it names and the version requirement.
    pub dependencies: BTreeMap<String, CrateDependency>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct CrateDependency {
    pub package: String,
    pub requirement: Option<String>,
    /// A path dependency's directory, relative to the manifest's.
    #[serde(default)]
    pub path: Option<String>,
    /// `{ workspace = true }`: the rest comes from the workspace's `[workspace.dependencies]`.
    #[serde(default)]
    pub inherited: bool,
}

impl CrateManifest {
    /// Every dependency table: normal, dev, build, and each target's.
    pub fn of(manifest: &toml::Table) -> Self {
        let version_value = manifest.get("package").and_then(|p| p.get("version"));
        let version = version_value.and_then(|v| v.as_str()).map(str::to_string);
        let inherits_version = version_value.is_some_and(inherits);
        let workspace = manifest.get("workspace").and_then(|w| w.as_table());
        let workspace_version = workspace
            .and_then(|w| w.get("package"))
            .and_then(|p| p.get("version"))
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let workspace_dependencies = workspace
            .and_then(|w| w.get("dependencies"))
            .and_then(|d| d.as_table())
            .map(|table| dependencies_of(std::iter::once(table)))
            .unwrap_or_default();
        // The manifest's own tables, then each target's (`[target.'cfg(unix)'.dependencies]`).
        let holders = std::iter::once(manifest).chain(
            manifest
                .get("target")
                .and_then(|t| t.as_table())
                .into_iter()
                .flat_map(|targets| targets.values().filter_map(|t| t.as_table())),
        );
        let tables: Vec<&toml::Table> = holders
            .flat_map(|holder| {
                ["dependencies", "dev-dependencies", "build-dependencies"]
                    .into_iter()
                    .filter_map(move |kind| holder.get(kind)?.as_table())
            })
            .collect();
        CrateManifest {
            version,
            inherits_version,
            workspace_version,
            workspace_dependencies,
            workspace: workspace.is_some(),
            dependencies: dependencies_of(tables.into_iter()),
            digest: None,
        }
    }
}

/// `{ workspace = true }`.
fn inherits(value: &toml::Value) -> bool {
    value
        .get("workspace")
        .and_then(|w| w.as_bool())
        .unwrap_or(false)
}

/// The crates dependency tables name, by the name the code spells; the first table that
/// names a crate wins.
fn dependencies_of<'a>(
    tables: impl Iterator<Item = &'a toml::Table>,
) -> BTreeMap<String, CrateDependency> {
    let mut dependencies = BTreeMap::new();
    for table in tables {
        for (key, value) in table {
            let field = |detail: &toml::Table, name: &str| {
                detail
                    .get(name)
                    .and_then(|v| v.as_str())
                    .map(str::to_string)
            };
            let dependency = match value {
                toml::Value::String(requirement) => CrateDependency {
                    package: key.clone(),
                    requirement: Some(requirement.clone()),
                    ..CrateDependency::default()
                },
                toml::Value::Table(detail) => CrateDependency {
                    package: field(detail, "package").unwrap_or_else(|| key.clone()),
                    requirement: field(detail, "version"),
                    path: field(detail, "path"),
                    inherited: inherits(value),
                },
                _ => CrateDependency {
                    package: key.clone(),
                    ..CrateDependency::default()
                },
            };
            dependencies
                .entry(key.replace('-', "_"))
                .or_insert(dependency);
        }
    }
    dependencies
}

/// A `package.json`'s entry points, paths relative to its directory (`./dist/index.js`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PackageEntries {
    /// `exports` as (subpath pattern, targets in the order a TypeScript importer prefers
    /// their conditions); `None` when the manifest has no `exports`, which then leaves every
    /// subpath open.
    pub exports: Option<PatternTargets>,
    /// `types`, `typings`, `module`, `main`, in that order: what `.` means without `exports`.
    pub main: Vec<String>,
    /// The manifest's `version`.
    #[serde(default)]
    pub version: Option<String>,
    /// The packages it requires, with the range it requires them at (`dependencies`, then
    /// `devDependencies`, `optionalDependencies` and `peerDependencies`; the first naming a
    /// package wins).
    #[serde(default)]
    pub dependencies: BTreeMap<String, String>,
    /// A fingerprint of what says which copies are installed for this directory: the
    /// lockfiles and the package managers' `node_modules` records at it and above it inside
    /// the repository. What the checker reads from `node_modules` changes with it.
    #[serde(default)]
    pub installed: Option<Fingerprint>,
}

/// Patterns with their targets, in manifest order: an `exports` map or a `paths` mapping.
pub type PatternTargets = Vec<(String, Vec<String>)>;

/// A `tsconfig.json`'s path mapping, `extends` applied, directories repository-relative.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PathMapping {
    /// `baseUrl`: where a bare specifier may resolve before packages are looked up.
    pub base_url: Option<String>,
    /// `paths`: (pattern, targets), targets already joined to the directory they are
    /// relative to.
    pub paths: PatternTargets,
}

/// The conditions a TypeScript importer reads, in the order it prefers them; any other
/// condition is read after these, in the manifest's order.
const CONDITIONS: [&str; 7] = [
    "types", "typings", "import", "module", "default", "require", "node",
];

/// The string leaves of an `exports` value, in condition order; `null` excludes.
fn targets(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::String(target) => into.push(target.clone()),
        Value::Array(items) => items.iter().for_each(|item| targets(item, into)),
        Value::Object(conditions) => {
            for condition in CONDITIONS {
                if let Some(value) = conditions.get(condition) {
                    targets(value, into);
                }
            }
            for (condition, value) in conditions {
                if !CONDITIONS.contains(&condition.as_str()) {
                    targets(value, into);
                }
            }
        }
        _ => {}
    }
}

impl ModuleMaps {
    /// Fills in what each crate inherits from its Cargo workspace: the version of
    /// `version.workspace = true`, and the requirement, package and path (rebased onto the
    /// crate's directory) of each `{ workspace = true }` dependency.
    pub fn inherit_from_workspaces(&mut self) {
        let directories: Vec<String> = self.crates.keys().cloned().collect();
        for directory in directories {
            let Some(root) = self.cargo_workspace_root(&directory).map(str::to_string) else {
                continue;
            };
            let Some(workspace) = self.crates.get(&root).cloned() else {
                continue;
            };
            let Some(manifest) = self.crates.get_mut(&directory) else {
                continue;
            };
            if manifest.inherits_version {
                manifest.version = workspace.workspace_version.clone();
            }
            for (name, dependency) in manifest.dependencies.iter_mut() {
                let Some(shared) = workspace
                    .workspace_dependencies
                    .get(name)
                    .filter(|_| dependency.inherited)
                else {
                    continue;
                };
                dependency.package = shared.package.clone();
                dependency.requirement = shared.requirement.clone();
                dependency.path = shared
                    .path
                    .as_deref()
                    .map(|path| rebased(&root, path, &directory));
            }
        }
    }

    /// The directory of the Cargo workspace a crate at `directory` belongs to: the nearest
    /// manifest at or above it with a `[workspace]` table, else the crate's own manifest.
    pub fn cargo_workspace_root(&self, directory: &str) -> Option<&str> {
        let (own, _) = nearest(&self.crates, directory)?;
        let mut current = own;
        loop {
            let Some((at, manifest)) = nearest(&self.crates, current) else {
                return Some(own);
            };
            if manifest.workspace {
                return Some(at);
            }
            if at.is_empty() {
                return Some(own);
            }
            current = parent_dir(at);
        }
    }

    /// The directory of the `go.mod` nearest `directory`, at or above it.
    pub fn go_module_root(&self, directory: &str) -> Option<&str> {
        nearest(&self.go_modules, directory).map(|(at, _)| at)
    }

    /// The `Cargo.toml` nearest `directory`, at or above it: its directory and what it says.
    pub fn crate_at(&self, directory: &str) -> Option<(&str, &CrateManifest)> {
        nearest(&self.crates, directory)
    }

    /// The `Cargo.toml` nearest `directory` (repository-relative), at or above it.
    pub fn crate_manifest(&self, directory: &str) -> Option<&CrateManifest> {
        nearest(&self.crates, directory).map(|(_, manifest)| manifest)
    }

    /// The sources a build of this repository emitted `artifact` (repository-relative) from,
    /// most likely first: the one its own source map names, then by the layouts its build
    /// configurations declare (`declared`) or by every layout.
    pub fn emitted_from(&self, artifact: &str, declared: bool) -> Vec<String> {
        self.mapped
            .get(artifact)
            .cloned()
            .into_iter()
            .chain(
                self.builds
                    .iter()
                    .filter(|layout| !declared || layout.config.is_some())
                    .flat_map(|layout| layout.sources_of(artifact)),
            )
            .collect()
    }

    /// The `tsconfig.json` mapping nearest `directory`, at or above it.
    pub fn path_mapping(&self, directory: &str) -> Option<&PathMapping> {
        nearest(&self.tsconfigs, directory).map(|(_, mapping)| mapping)
    }
}

impl PackageEntries {
    pub fn of(manifest: &Value) -> Self {
        let exports = manifest.get("exports").map(|exports| {
            let subpaths = match exports {
                Value::Object(map) if map.keys().any(|k| k.starts_with('.')) => map
                    .iter()
                    .map(|(subpath, value)| (subpath.clone(), value))
                    .collect(),
                // A string, an array or a conditions object is the package's `.`.
                other => vec![(".".to_string(), other)],
            };
            subpaths
                .into_iter()
                .map(|(subpath, value)| {
                    let mut found = Vec::new();
                    targets(value, &mut found);
                    (subpath, found)
                })
                .collect()
        });
        let main = ["types", "typings", "module", "main"]
            .iter()
            .filter_map(|field| manifest.get(field)?.as_str())
            .map(str::to_string)
            .collect();
        let mut dependencies = BTreeMap::new();
        for table in [
            "dependencies",
            "devDependencies",
            "optionalDependencies",
            "peerDependencies",
        ] {
            for (name, range) in manifest
                .get(table)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if let Some(range) = range.as_str() {
                    dependencies
                        .entry(name.clone())
                        .or_insert_with(|| range.to_string());
                }
            }
        }
        PackageEntries {
            exports,
            main,
            version: manifest
                .get("version")
                .and_then(Value::as_str)
                .map(str::to_string),
            dependencies,
            installed: None,
        }
    }
}

/// One config file's own settings: `baseUrl` and `paths` with the directory each is
/// relative to, and what it extends.
struct ConfigFile {
    base_url: Option<String>,
    paths: Option<(String, PatternTargets)>,
    extends: Option<String>,
}

fn read_config(root: &Path, path: &str) -> Option<ConfigFile> {
    let text = std::fs::read_to_string(root.join(path)).ok()?;
    let json: Value = serde_json::from_str(&plain_json(&text)).ok()?;
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let options = json.get("compilerOptions");
    let base_url = options
        .and_then(|o| o.get("baseUrl")?.as_str())
        .and_then(|base| join_inside(dir, base));
    let paths = options
        .and_then(|o| o.get("paths")?.as_object())
        .map(|map| {
            let entries = map
                .iter()
                .map(|(pattern, targets)| {
                    let targets = targets
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|t| t.as_str().map(str::to_string))
                        .collect();
                    (pattern.clone(), targets)
                })
                .collect();
            (dir.to_string(), entries)
        });
    // A relative `extends` is a file of the repository; a package's is not read.
    let extends = json
        .get("extends")
        .and_then(Value::as_str)
        .filter(|e| e.starts_with('.'))
        .and_then(|e| join_inside(dir, e))
        .map(|e| {
            if e.ends_with(".json") {
                e
            } else {
                format!("{e}.json")
            }
        });
    Some(ConfigFile {
        base_url,
        paths,
        extends,
    })
}

impl PathMapping {
    /// The mapping of the `tsconfig.json` at `path`, following relative `extends` (a child's
    /// `baseUrl` and `paths` replace its parent's). `None` when it maps nothing.
    pub fn read(root: &Path, path: &str) -> Option<Self> {
        let mut base_url = None;
        let mut paths = None;
        let mut next = Some(path.to_string());
        for _ in 0..8 {
            let Some(config) = next.take().and_then(|p| read_config(root, &p)) else {
                break;
            };
            base_url = base_url.or(config.base_url);
            paths = paths.or(config.paths);
            next = config.extends;
        }
        if base_url.is_none() && paths.is_none() {
            return None;
        }
        // Targets are relative to `baseUrl` when there is one, else to the config that
        // declares `paths`.
        let paths = paths.map_or_else(Vec::new, |(declared_in, entries)| {
            let against = base_url.clone().unwrap_or(declared_in);
            entries
                .into_iter()
                .map(|(pattern, targets)| {
                    let targets = targets
                        .iter()
                        .filter_map(|t| join_inside(&against, t))
                        .collect();
                    (pattern, targets)
                })
                .collect()
        });
        Some(PathMapping { base_url, paths })
    }
}

/// `path`, relative to the directory `from` (both repository-relative), made relative to
/// the directory `to`; a path that leaves the repository keeps its `..`s.
fn rebased(from: &str, path: &str, to: &str) -> String {
    match join_inside(from, path) {
        Some(target) => relative(to, &target),
        None => format!("{}/{path}", relative(to, from)),
    }
}

/// The repository-relative directory `target` as a path relative to the directory `from`.
fn relative(from: &str, target: &str) -> String {
    let base: Vec<&str> = from.split('/').filter(|p| !p.is_empty()).collect();
    let target: Vec<&str> = target.split('/').filter(|p| !p.is_empty()).collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; base.len() - common];
    parts.extend(&target[common..]);
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_go_mod_says_its_path_version_and_requirements() {
        let manifest = GoModuleManifest::of(
            "module example.com/a // the module\n\ngo 1.21\n\nrequire example.com/b v1.0.0\nrequire (\n\texample.com/c v0.1.0 // indirect\n\texample.com/d v2.0.0\n)\nreplace example.com/b => ../b\n",
        )
        .unwrap();
        assert_eq!(manifest.path, "example.com/a");
        assert_eq!(manifest.go_version.as_deref(), Some("1.21"));
        assert_eq!(
            manifest.requires,
            ["example.com/b", "example.com/c", "example.com/d"]
        );
        assert_eq!(
            manifest.replaces,
            [GoReplace {
                path: "example.com/b".into(),
                with: GoReplacement::Directory("../b".into())
            }]
        );
        assert!(GoModuleManifest::of("go 1.21\n").is_none());
        // What the go command refuses to load as a module is none.
        for refused in ["αfake1α", "./a", "a/b.", "a/.b", "a@b"] {
            assert!(
                GoModuleManifest::of(&format!("module \"{refused}\"\n")).is_none(),
                "{refused}"
            );
        }
        let block = GoModuleManifest::of(
            "module a\nreplace (\n\texample.com/c v0.1.0 => example.com/fork v0.2.0\n\t\"example.com/d\" => /src/d\n)\n",
        )
        .unwrap();
        assert_eq!(
            block.replaces,
            [
                GoReplace {
                    path: "example.com/c".into(),
                    with: GoReplacement::Module {
                        path: "example.com/fork".into(),
                        version: "v0.2.0".into()
                    }
                },
                GoReplace {
                    path: "example.com/d".into(),
                    with: GoReplacement::Directory("/src/d".into())
                }
            ]
        );
    }

    #[test]
    fn a_member_inherits_its_version_and_dependencies_from_the_workspace() {
        let parse = |text: &str| CrateManifest::of(&text.parse::<toml::Table>().unwrap());
        let mut maps = ModuleMaps::default();
        maps.crates.insert(
            "".into(),
            parse(
                r#"[workspace]
members = ["crates/*"]
[workspace.package]
version = "0.3.1"
[workspace.dependencies]
core-model = { path = "crates/core-model", version = "0.3" }
serde = "1"
renamed = { package = "real-name", version = "2" }"#,
            ),
        );
        maps.crates.insert(
            "crates/app".into(),
            parse(
                r#"[package]
name = "app"
version.workspace = true
[dependencies]
core-model.workspace = true
serde = { workspace = true, features = ["derive"] }
renamed.workspace = true
local = { path = "../local" }"#,
            ),
        );
        maps.inherit_from_workspaces();
        let app = &maps.crates["crates/app"];
        assert_eq!(app.version.as_deref(), Some("0.3.1"));
        let dependency = |name: &str| {
            let d = &app.dependencies[name];
            (
                d.package.as_str(),
                d.requirement.as_deref(),
                d.path.as_deref(),
            )
        };
        assert_eq!(
            dependency("core_model"),
            ("core-model", Some("0.3"), Some("../core-model"))
        );
        assert_eq!(dependency("serde"), ("serde", Some("1"), None));
        assert_eq!(dependency("renamed"), ("real-name", Some("2"), None));
        assert_eq!(dependency("local"), ("local", None, Some("../local")));
        assert_eq!(rebased("", "crates/a", "crates/b/nested"), "../../a");
        assert_eq!(rebased("ws", "../shared/x", "ws/m"), "../../shared/x");
        assert_eq!(rebased("", "crates/a", "crates/a"), ".");
        assert_eq!(
            rebased("ws", "../../elsewhere", "ws/m"),
            "../../../elsewhere"
        );
    }

    #[test]
    fn a_crate_is_loaded_with_the_workspace_that_holds_it() {
        let manifest = |workspace: bool| CrateManifest {
            workspace,
            ..CrateManifest::default()
        };
        let mut maps = ModuleMaps::default();
        maps.crates.insert("ws".into(), manifest(true));
        maps.crates.insert("ws/core".into(), manifest(false));
        maps.crates.insert("alone".into(), manifest(false));
        maps.crates.insert("alone/nested".into(), manifest(false));
        assert_eq!(maps.cargo_workspace_root("ws/core/src"), Some("ws"));
        assert_eq!(maps.cargo_workspace_root("ws"), Some("ws"));
        assert_eq!(
            maps.cargo_workspace_root("alone/nested"),
            Some("alone/nested")
        );
        assert_eq!(maps.cargo_workspace_root("elsewhere"), None);
        maps.crates.insert("".into(), manifest(true));
        assert_eq!(maps.cargo_workspace_root("alone/nested"), Some(""));
    }

    #[test]
    fn exports_keep_every_target_in_condition_order() {
        let manifest: Value = serde_json::from_str(
            r#"{"main": "./lib/index.js", "types": "./lib/index.d.ts",
                "exports": {".": {"import": "./es6/index.js", "types": "./lib/index.d.ts"},
                            "./es6/*": "./es6/*.js", "./private/*": null}}"#,
        )
        .unwrap();
        let entries = PackageEntries::of(&manifest);
        assert_eq!(
            entries.exports,
            Some(vec![
                (
                    ".".into(),
                    vec!["./lib/index.d.ts".into(), "./es6/index.js".into()]
                ),
                ("./es6/*".into(), vec!["./es6/*.js".into()]),
                ("./private/*".into(), vec![]),
            ])
        );
        assert_eq!(entries.main, ["./lib/index.d.ts", "./lib/index.js"]);
        let sugar = PackageEntries::of(&serde_json::from_str(r#"{"exports": "./x.js"}"#).unwrap());
        assert_eq!(
            sugar.exports,
            Some(vec![(".".into(), vec!["./x.js".into()])])
        );
    }

    #[test]
    fn tsconfig_comments_trailing_commas_and_extends() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("app")).unwrap();
        std::fs::write(
            dir.path().join("tsconfig.base.json"),
            "{ // shared\n \"compilerOptions\": { \"baseUrl\": \".\", /* map */ \"paths\": { \"@lib/*\": [\"lib/*\",], }, }, }",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("app/tsconfig.json"),
            r#"{"extends": "../tsconfig.base", "compilerOptions": {"strict": true}}"#,
        )
        .unwrap();
        assert_eq!(
            PathMapping::read(dir.path(), "app/tsconfig.json"),
            Some(PathMapping {
                base_url: Some(String::new()),
                paths: vec![("@lib/*".into(), vec!["lib/*".into()])],
            })
        );
        assert_eq!(join_inside("", "../x"), None);
        assert_eq!(
            plain_json(r#"{"a": "//not a comment",}"#),
            r#"{"a": "//not a comment"}"#
        );
    }
}
