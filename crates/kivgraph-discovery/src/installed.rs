//! Installed copies of npm packages, found the way Node's resolution finds them — the
//! nearest `node_modules/<name>` at or above the importer's directory, a symlink into a
//! package manager's store followed — and what an installed artifact's source map says it
//! was built from.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

/// One installed copy: its directory (symlinks resolved) and the version its `package.json`
/// declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledPackage {
    pub root: PathBuf,
    pub version: Option<String>,
}

/// The copy of `name` an import from `directory` (absolute) reaches, if one is installed.
pub fn installed_package(directory: &Path, name: &str) -> Option<InstalledPackage> {
    for ancestor in directory.ancestors() {
        let candidate = ancestor.join("node_modules").join(name);
        let manifest = candidate.join("package.json");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let root = std::fs::canonicalize(&candidate).unwrap_or(candidate);
        let version = serde_json::from_str::<Value>(&text)
            .ok()
            .and_then(|json| json.get("version")?.as_str().map(str::to_string));
        return Some(InstalledPackage { root, version });
    }
    None
}

/// `path` with `.` and `..` folded, without touching the file system.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The files the source map of `artifact` (absolute) names as its sources, absolute and
/// normalized: the map the artifact's `sourceMappingURL` comment names, else `<artifact>.map`.
/// `None` when the artifact has no readable map.
pub fn source_map_sources(artifact: &Path) -> Option<Vec<PathBuf>> {
    let directory = artifact.parent()?;
    let text = std::fs::read_to_string(artifact).ok()?;
    let named = text
        .lines()
        .rev()
        .take(4)
        .find_map(|line| line.trim().strip_prefix("//# sourceMappingURL="))
        .map(str::trim)
        .filter(|url| !url.starts_with("data:"))
        .map(|url| directory.join(url));
    let map = named.unwrap_or_else(|| {
        let mut name = artifact.as_os_str().to_os_string();
        name.push(".map");
        PathBuf::from(name)
    });
    let json: Value = serde_json::from_slice(&std::fs::read(&map).ok()?).ok()?;
    let map_directory = map.parent()?;
    let source_root = json.get("sourceRoot").and_then(Value::as_str).unwrap_or("");
    let base = map_directory.join(source_root);
    Some(
        json.get("sources")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .map(|source| normalized(&base.join(source)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_copy_is_found_through_its_link_and_its_map_names_its_sources() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let store = root.join("store/.pnpm/p@1.0.0/node_modules/p");
        std::fs::create_dir_all(store.join("dist")).unwrap();
        std::fs::write(
            store.join("package.json"),
            r#"{"name":"p","version":"1.0.0"}"#,
        )
        .unwrap();
        std::fs::write(
            store.join("dist/a.d.ts"),
            "export declare const a: 1;\n//# sourceMappingURL=a.d.ts.map",
        )
        .unwrap();
        std::fs::write(
            store.join("dist/a.d.ts.map"),
            r#"{"version":3,"sources":["../src/a.ts"],"mappings":""}"#,
        )
        .unwrap();
        std::fs::write(store.join("dist/b.d.ts"), "export {};").unwrap();
        let consumer = root.join("app/src/deep");
        std::fs::create_dir_all(&consumer).unwrap();
        std::fs::create_dir_all(root.join("app/node_modules")).unwrap();
        std::os::unix::fs::symlink(&store, root.join("app/node_modules/p")).unwrap();
        let found = installed_package(&consumer, "p").unwrap();
        assert_eq!(found.root, store);
        assert_eq!(found.version.as_deref(), Some("1.0.0"));
        assert_eq!(installed_package(&consumer, "q"), None);
        assert_eq!(
            source_map_sources(&store.join("dist/a.d.ts")),
            Some(vec![store.join("src/a.ts")])
        );
        assert_eq!(source_map_sources(&store.join("dist/b.d.ts")), None);
    }
}
