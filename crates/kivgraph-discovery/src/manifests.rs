//! Package assignment from manifests.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use kivgraph_facts::{Fingerprint, Language};

use crate::module_maps::{
    CrateManifest, GoModuleManifest, ModuleMaps, PackageEntries, PathMapping,
};
use crate::repo_paths::{nearest, parent_dir};

/// Which package a file belongs to and its module inside it.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct FileUnit {
    /// The package identity: Go `<module> <import path>`, npm name, Cargo package (with its
    /// target when it is not the library), dotted Python package.
    pub package: String,
    /// Repository-relative directory of the package ("" for the root).
    pub package_path: String,
    /// Go: "" · TS/JS: the file's path · Rust: the module path (`a::b`) · Python: the dotted module.
    pub module: String,
}

impl FileUnit {
    /// No manifest claims the file: a Go file under no `go.mod` (`_ _/dir`), a Rust file
    /// under no `Cargo.toml` (`_/dir`), a TypeScript/JavaScript file under no
    /// `package.json` (`.`). Such a file is indexed, but nothing outside can import it.
    pub fn unclaimed(&self) -> bool {
        self.package == "." || self.package.starts_with("_ ") || self.package.starts_with("_/")
    }
}

/// Assigns files to packages from the manifests found in one repository.
#[derive(Debug, Default)]
pub struct PackageAssigner {
    /// Directory → module path of its `go.mod`.
    go_modules: BTreeMap<String, String>,
    /// Directory → npm name (or the directory itself when the manifest has no name).
    npm_packages: BTreeMap<String, String>,
    /// Directory → Cargo package name.
    cargo_packages: BTreeMap<String, String>,
    /// Directories holding an `__init__.py`.
    python_packages: BTreeSet<String>,
    /// Entry points and path mappings, for the resolver.
    module_maps: ModuleMaps,
}

fn join(dir: &str, rest: &str) -> String {
    match (dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => dir.to_string(),
        _ => format!("{dir}/{rest}"),
    }
}

/// `dir` relative to `ancestor` ("" when equal).
fn relative<'a>(dir: &'a str, ancestor: &str) -> &'a str {
    if ancestor.is_empty() {
        dir
    } else {
        dir.strip_prefix(ancestor)
            .map(|r| r.trim_start_matches('/'))
            .unwrap_or(dir)
    }
}

/// What records which copies a package manager installed, per directory.
const INSTALL_RECORDS: [&str; 9] = [
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "node_modules/.package-lock.json",
    "node_modules/.modules.yaml",
    "node_modules/.yarn-state.yml",
    "node_modules/.yarn-integrity",
];

/// A fingerprint of the install records at `dir` and above it inside the repository;
/// `None` when there is none.
fn install_records(root: &Path, dir: &str) -> Option<Fingerprint> {
    let mut bytes = Vec::new();
    let mut current = dir;
    loop {
        for record in INSTALL_RECORDS {
            let path = join(current, record);
            if let Ok(content) = std::fs::read(root.join(&path)) {
                bytes.extend_from_slice(path.as_bytes());
                bytes.push(0);
                bytes.extend_from_slice(Fingerprint::of(&content).0.as_slice());
            }
        }
        if current.is_empty() {
            break;
        }
        current = parent_dir(current);
    }
    (!bytes.is_empty()).then(|| Fingerprint::of(&bytes))
}

impl PackageAssigner {
    /// Reads every manifest among `paths` (repository-relative) under `root`.
    pub fn from_manifests<'a>(root: &Path, paths: impl IntoIterator<Item = &'a str>) -> Self {
        let mut assigner = PackageAssigner::default();
        for path in paths {
            let dir = parent_dir(path).to_string();
            let file_name = path.rsplit('/').next().unwrap_or(path);
            let read = || std::fs::read_to_string(root.join(path)).ok();
            match file_name {
                "go.mod" => {
                    let text = read();
                    if let Some(mut manifest) = text.as_deref().and_then(GoModuleManifest::of) {
                        assigner
                            .go_modules
                            .insert(dir.clone(), manifest.path.clone());
                        let sum = std::fs::read(root.join(&dir).join("go.sum")).unwrap_or_default();
                        let text = text.unwrap_or_default();
                        manifest.digest =
                            Some(Fingerprint::of(&[text.as_bytes(), b"\0", &sum].concat()));
                        assigner.module_maps.go_modules.insert(dir, manifest);
                    }
                }
                "package.json" => {
                    let json = read()
                        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok());
                    if let Some(json) = &json {
                        let mut entries = PackageEntries::of(json);
                        entries.installed = install_records(root, &dir);
                        assigner.module_maps.packages.insert(dir.clone(), entries);
                    }
                    let name = json
                        .and_then(|json| {
                            json.get("name")
                                .and_then(|n| n.as_str())
                                .map(str::to_string)
                        })
                        .filter(|name| !name.is_empty());
                    let fallback = if dir.is_empty() {
                        ".".to_string()
                    } else {
                        dir.clone()
                    };
                    assigner.npm_packages.insert(dir, name.unwrap_or(fallback));
                }
                "Cargo.toml" => {
                    let text = read();
                    let manifest = text.as_deref().and_then(|t| t.parse::<toml::Table>().ok());
                    if let (Some(manifest), Some(text)) = (&manifest, &text) {
                        let mut crate_manifest = CrateManifest::of(manifest);
                        let lock =
                            std::fs::read(root.join(&dir).join("Cargo.lock")).unwrap_or_default();
                        crate_manifest.digest =
                            Some(Fingerprint::of(&[text.as_bytes(), b"\0", &lock].concat()));
                        assigner
                            .module_maps
                            .crates
                            .insert(dir.clone(), crate_manifest);
                    }
                    let name = manifest.and_then(|table| {
                        table
                            .get("package")?
                            .get("name")?
                            .as_str()
                            .map(str::to_string)
                    });
                    if let Some(name) = name {
                        assigner.cargo_packages.insert(dir, name);
                    }
                }
                "__init__.py" => {
                    assigner.python_packages.insert(dir);
                }
                "tsconfig.json" => {
                    if let Some(mapping) = PathMapping::read(root, path) {
                        assigner.module_maps.tsconfigs.insert(dir, mapping);
                    }
                }
                _ => {}
            }
        }
        assigner.module_maps.inherit_from_workspaces();
        assigner.distinguish_crate_homonyms();
        assigner
    }

    /// Two `Cargo.toml` of one repository naming the same package (two versions side by
    /// side, as a vendored directory holds them) are two crates: each is named
    /// `name@version` (or `name@directory`), so neither absorbs the other's items.
    fn distinguish_crate_homonyms(&mut self) {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for name in self.cargo_packages.values() {
            *count.entry(name).or_default() += 1;
        }
        let shared: BTreeSet<String> = count
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(name, _)| name.to_string())
            .collect();
        if shared.is_empty() {
            return;
        }
        let mut versions: BTreeMap<String, usize> = BTreeMap::new();
        for (dir, name) in &self.cargo_packages {
            if shared.contains(name)
                && let Some(version) = self
                    .module_maps
                    .crates
                    .get(dir)
                    .and_then(|m| m.version.clone())
            {
                *versions.entry(format!("{name}@{version}")).or_default() += 1;
            }
        }
        for (dir, name) in self.cargo_packages.iter_mut() {
            if !shared.contains(name.as_str()) {
                continue;
            }
            let version = self
                .module_maps
                .crates
                .get(dir)
                .and_then(|m| m.version.clone());
            *name = match version.map(|v| format!("{name}@{v}")) {
                Some(versioned) if versions.get(&versioned) == Some(&1) => versioned,
                _ => format!("{name}@{dir}"),
            };
        }
    }

    pub fn is_manifest(file_name: &str) -> bool {
        matches!(
            file_name,
            "go.mod" | "package.json" | "Cargo.toml" | "__init__.py" | "tsconfig.json"
        )
    }

    /// What the manifests say about module specifiers.
    pub fn module_maps(&self) -> &ModuleMaps {
        &self.module_maps
    }

    /// The package of a source file. Files outside any manifest fall back to a package named
    /// after their directory, so nothing is dropped.
    pub fn assign(&self, path: &str, language: Language) -> FileUnit {
        let dir = parent_dir(path);
        match language {
            Language::Go => self.assign_go(dir),
            Language::TypeScript | Language::JavaScript => {
                let (package_path, package) = nearest(&self.npm_packages, dir)
                    .map_or(("", "."), |(dir, name)| (dir, name.as_str()));
                FileUnit {
                    package: package.to_string(),
                    package_path: package_path.to_string(),
                    module: path.to_string(),
                }
            }
            Language::Rust => self.assign_rust(path),
            Language::Python => self.assign_python(path),
        }
    }

    fn assign_go(&self, dir: &str) -> FileUnit {
        let (import_path, module) = match nearest(&self.go_modules, dir) {
            Some((module_dir, module)) => (
                join(module, relative(dir, module_dir)).replace("//", "/"),
                module.to_string(),
            ),
            None => (format!("_/{dir}"), "_".to_string()),
        };
        let import_path = match import_path.strip_suffix('/') {
            Some(trimmed) => trimmed.to_string(),
            None => import_path,
        };
        FileUnit {
            package: format!("{module} {import_path}"),
            package_path: dir.to_string(),
            module: String::new(),
        }
    }

    fn assign_rust(&self, path: &str) -> FileUnit {
        let dir = parent_dir(path);
        let Some((crate_dir, name)) = nearest(&self.cargo_packages, dir) else {
            // A Rust file outside every Cargo package: its directory is its package.
            let stem = path.trim_end_matches(".rs").replace('/', "::");
            return FileUnit {
                package: format!("_/{dir}"),
                package_path: dir.to_string(),
                module: stem,
            };
        };
        let inside = relative(path, crate_dir);
        let (target, target_root, rest) = rust_target(inside);
        let module = rust_module_path(rest);
        let package = match target {
            None => name.to_string(),
            Some((kind, target_name)) => format!("{name}#{kind}:{target_name}"),
        };
        FileUnit {
            package,
            package_path: join(crate_dir, target_root),
            module,
        }
    }

    fn assign_python(&self, path: &str) -> FileUnit {
        let dir = parent_dir(path);
        // Inside an `__init__.py` chain the module is named from the directory above the
        // topmost package; a file outside any package is named from the repository root.
        let root = if self.python_packages.contains(dir) {
            let mut current = dir;
            while !current.is_empty() && self.python_packages.contains(current) {
                current = parent_dir(current);
            }
            current
        } else {
            ""
        };
        let inside = relative(path, root)
            .trim_end_matches(".pyi")
            .trim_end_matches(".py");
        let inside = inside.strip_suffix("/__init__").unwrap_or(inside);
        let mut module = inside.replace('/', ".");
        if module.is_empty() || module == "__init__" {
            // `__init__.py` at the repository root: the repository directory is the package.
            module = "__init__".to_string();
        }
        let package = if path.ends_with("__init__.py") || path.ends_with("__init__.pyi") {
            module.clone()
        } else {
            match module.rfind('.') {
                Some(i) => module[..i].to_string(),
                None => module.clone(),
            }
        };
        FileUnit {
            package,
            package_path: dir.to_string(),
            module,
        }
    }
}

/// Splits a path inside a Cargo package into its target (none for the library and `main.rs`),
/// the target's root directory and the path below it.
fn rust_target(inside: &str) -> (Option<(&'static str, String)>, &'static str, &str) {
    for (prefix, kind) in [
        ("src/bin/", "bin"),
        ("tests/", "test"),
        ("examples/", "example"),
        ("benches/", "bench"),
    ] {
        if let Some(rest) = inside.strip_prefix(prefix) {
            let (target, below) = match rest.split_once('/') {
                Some((dir, below)) => (dir.to_string(), below),
                None => (rest.trim_end_matches(".rs").to_string(), "main.rs"),
            };
            let root: &'static str = match kind {
                "bin" => "src/bin",
                "test" => "tests",
                "example" => "examples",
                _ => "benches",
            };
            return (Some((kind, target)), root, below);
        }
    }
    match inside.strip_prefix("src/") {
        Some(rest) => (None, "src", rest),
        None => (None, "", inside),
    }
}

/// `a/b.rs` → `a::b`; `a/mod.rs` → `a`; `lib.rs`, `main.rs` → "".
fn rust_module_path(below_root: &str) -> String {
    let without_ext = below_root.trim_end_matches(".rs");
    let mut parts: Vec<&str> = without_ext.split('/').collect();
    if matches!(parts.last(), Some(&"mod"))
        || (parts.len() == 1 && matches!(parts[0], "lib" | "main"))
    {
        parts.pop();
    }
    parts.join("::")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assigner(files: &[(&str, &str)]) -> (tempfile::TempDir, PackageAssigner) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        let assigner = PackageAssigner::from_manifests(dir.path(), files.iter().map(|(p, _)| *p));
        (dir, assigner)
    }

    #[test]
    fn go_packages_hang_from_the_module_path() {
        let (_d, a) = assigner(&[("go.mod", "module example.com/acme\n\ngo 1.22\n")]);
        assert_eq!(
            a.assign("internal/x/x.go", Language::Go).package,
            "example.com/acme example.com/acme/internal/x"
        );
        assert_eq!(
            a.assign("main.go", Language::Go).package,
            "example.com/acme example.com/acme"
        );
    }

    #[test]
    fn rust_targets_and_modules() {
        let (_d, a) = assigner(&[("core/Cargo.toml", "[package]\nname = \"acme-core\"\n")]);
        let unit = a.assign("core/src/parser/mod.rs", Language::Rust);
        assert_eq!(
            (unit.package.as_str(), unit.module.as_str()),
            ("acme-core", "parser")
        );
        assert_eq!(a.assign("core/src/lib.rs", Language::Rust).module, "");
        assert_eq!(a.assign("core/src/a/b.rs", Language::Rust).module, "a::b");
        assert_eq!(
            a.assign("core/src/bin/tool.rs", Language::Rust).package,
            "acme-core#bin:tool"
        );
        assert_eq!(
            a.assign("core/tests/it.rs", Language::Rust).package,
            "acme-core#test:it"
        );
    }

    #[test]
    fn two_versions_of_one_crate_are_two_packages() {
        let manifest =
            |version: &str| format!("[package]\nname = \"syn\"\nversion = \"{version}\"\n");
        let (_d, a) = assigner(&[
            ("syn-2.0.1/Cargo.toml", &manifest("2.0.1")),
            ("syn-3.0.0/Cargo.toml", &manifest("3.0.0")),
            (
                "quote/Cargo.toml",
                "[package]\nname = \"quote\"\n[dependencies]\nsyn = { version = \"2\", package = \"syn\" }\nproc-macro2 = \"1\"\n",
            ),
        ]);
        assert_eq!(
            a.assign("syn-2.0.1/src/lib.rs", Language::Rust).package,
            "syn@2.0.1"
        );
        assert_eq!(
            a.assign("syn-3.0.0/src/lib.rs", Language::Rust).package,
            "syn@3.0.0"
        );
        assert_eq!(
            a.assign("quote/src/lib.rs", Language::Rust).package,
            "quote"
        );
        let quote = &a.module_maps().crates["quote"];
        assert_eq!(
            quote.dependencies.keys().collect::<Vec<_>>(),
            ["proc_macro2", "syn"]
        );
        assert_eq!(quote.dependencies["syn"].requirement.as_deref(), Some("2"));
    }

    #[test]
    fn python_modules_follow_init_chains() {
        let (_d, a) = assigner(&[
            ("src/acme/__init__.py", ""),
            ("src/acme/sub/__init__.py", ""),
        ]);
        let unit = a.assign("src/acme/sub/mod.py", Language::Python);
        assert_eq!(
            (unit.package.as_str(), unit.module.as_str()),
            ("acme.sub", "acme.sub.mod")
        );
        let init = a.assign("src/acme/__init__.py", Language::Python);
        assert_eq!(
            (init.package.as_str(), init.module.as_str()),
            ("acme", "acme")
        );
        let script = a.assign("tools/gen.py", Language::Python);
        assert_eq!(
            (script.package.as_str(), script.module.as_str()),
            ("tools", "tools.gen")
        );
    }

    #[test]
    fn npm_names_come_from_the_nearest_manifest() {
        let (_d, a) = assigner(&[
            ("package.json", "{\"name\":\"root\"}"),
            ("packages/ui/package.json", "{\"name\":\"@acme/ui\"}"),
        ]);
        assert_eq!(
            a.assign("packages/ui/src/x.ts", Language::TypeScript)
                .package,
            "@acme/ui"
        );
        assert_eq!(a.assign("src/y.ts", Language::TypeScript).package, "root");
    }
}
