//! From artifact to source (TypeScript/JavaScript). The checker binds a consumer's use to
//! the file it read: a registered package's build output, installed in the consumer's
//! `node_modules` (npm, yarn, a pnpm store outside the consumer's repository) or reached in
//! the registered directory itself. Such a use lands on the declaration in the registered
//! source — placed by the artifact's declaration map (`EXACT_TYPECHECKED` /
//! `TYPESCRIPT_CHECKER`), or by the provider's build configuration, which says what it
//! emits from where, with the provider's barrels followed to the declaring module
//! (`EXACT_PACKAGE_MAPPED` / `TYPESCRIPT_PROJECT_REFERENCE`) — or it is declared
//! `UNRESOLVED` with why: another version than the consumer requires, a name the source no
//! longer exports, no map and no build tying the artifact to a source, a source the
//! provider does not hold, a package two repositories claim. A use is bound outside the
//! graph only when no registered repository declares its package.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use kivgraph_analyzers::ScipIndex;
use kivgraph_discovery::{installed_package, source_map_sources};
use kivgraph_facts::Fingerprint;
use serde::{Deserialize, Serialize};

use crate::database::Db;
use crate::inputs::RepositoryInput;
use crate::stored::Stored;

/// A global symbol as scip-typescript writes it — `scip-typescript npm <package> <version>
/// <descriptors>` — its descriptors split after the module file they start with.
#[derive(Debug, PartialEq, Eq)]
pub struct NpmSymbol<'a> {
    pub package: &'a str,
    pub version: &'a str,
    /// The module file, relative to the package's directory (`dist/value.d.ts`).
    pub path: String,
    /// The declaration's descriptors after the file (`Box#open().`).
    pub rest: &'a str,
}

const MODULE_EXTENSIONS: [&str; 8] = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

/// One descriptor name at the start of `text` (backticked, with ``` `` ``` escaping one
/// backtick, or a simple identifier), and what follows it.
fn descriptor_name(text: &str) -> Option<(String, &str)> {
    if let Some(quoted) = text.strip_prefix('`') {
        let mut name = String::new();
        let mut rest = quoted;
        loop {
            let end = rest.find('`')?;
            name.push_str(&rest[..end]);
            rest = &rest[end + 1..];
            match rest.strip_prefix('`') {
                Some(after) => {
                    name.push('`');
                    rest = after;
                }
                None => return Some((name, rest)),
            }
        }
    }
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || "_$+-".contains(c)))
        .unwrap_or(text.len());
    Some((text[..end].to_string(), &text[end..]))
}

impl<'a> NpmSymbol<'a> {
    pub fn parse(symbol: &'a str) -> Option<NpmSymbol<'a>> {
        let rest = symbol.strip_prefix("scip-typescript npm ")?;
        let (package, rest) = rest.split_once(' ')?;
        let (version, mut descriptors) = rest.split_once(' ')?;
        let mut segments = Vec::new();
        loop {
            let (name, after) = descriptor_name(descriptors)?;
            descriptors = after.strip_prefix('/')?;
            let is_file = MODULE_EXTENSIONS.iter().any(|e| name.ends_with(e));
            segments.push(name);
            if is_file {
                return Some(NpmSymbol {
                    package,
                    version,
                    path: segments.join("/"),
                    rest: descriptors,
                });
            }
        }
    }

    /// The first declaration the descriptors name (`Box` of `Box#open().`).
    pub(crate) fn top_name(&self) -> Option<String> {
        descriptor_name(self.rest)
            .map(|(name, _)| name)
            .filter(|n| !n.is_empty())
    }

    /// Whether the descriptors name a declaration an importer can name: not a parameter
    /// (`f().(x)`) or a type parameter (`T#[U]`), which no module exports.
    pub(crate) fn names_an_export(&self) -> bool {
        // A method's disambiguator, `(+1).`, is not a parameter: it is followed by a dot.
        let mut rest = self.rest;
        while let Some(open) = rest.find(['(', '[']) {
            if rest[open..].starts_with('[') {
                return false;
            }
            let Some(close) = rest[open..].find(')') else {
                return false;
            };
            let after = &rest[open + close + 1..];
            if !after.starts_with('.') {
                return false;
            }
            rest = after;
        }
        true
    }

    /// Whether the descriptors name a member of a declaration (`Box#open().`), not the
    /// declaration itself (`compute().`, `Box#`).
    pub(crate) fn is_member(&self) -> bool {
        descriptor_name(self.rest)
            .map(|(_, after)| after)
            .and_then(|after| {
                // The first descriptor's suffix: `#`, `.`, `/`, or a method's `(…).`.
                let after = match after.strip_prefix('(') {
                    Some(method) => &method[method.find(").")? + 2..],
                    None => after.get(1..)?,
                };
                Some(!after.is_empty())
            })
            .unwrap_or(false)
    }
}

/// A package's module file as scip-typescript's descriptors spell it.
pub(crate) fn file_descriptors(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            if segment
                .chars()
                .all(|c| c.is_alphanumeric() || "_$+-".contains(c))
            {
                format!("{segment}/")
            } else {
                format!("`{}`/", segment.replace('`', "``"))
            }
        })
        .collect()
}

/// A registered package's module file a unit's checker read and bound uses to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ArtifactFile {
    pub package: String,
    /// The version the checker saw (the `package.json` of the copy it read).
    pub version: String,
    /// Relative to the package's directory.
    pub path: String,
    /// Read from a copy installed for the unit, not from the registered directory.
    pub installed: bool,
    /// The sources its declaration map names, relative to the package's directory; `None`
    /// when it has no map, or the copy the checker read was not found.
    pub map_sources: Option<Vec<String>>,
}

/// `path` relative to the directory `base` (both absolute, normalized), `..` where it
/// leaves it.
fn relative_to(base: &Path, path: &Path) -> String {
    let base: Vec<Component> = base.components().collect();
    let target: Vec<Component> = path.components().collect();
    let common = base.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); base.len() - common];
    parts.extend(
        target[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().to_string()),
    );
    parts.join("/")
}

/// The module files of registered packages (`claimed`, by name) that a unit's checker bound
/// uses to, each with its declaration map's sources: read from the copy the checker read —
/// the registered directory a `paths` entry pointed it at (`mapped`), else the copy installed
/// for the unit's directory when it is the version the checker saw.
pub(crate) fn artifacts_read(
    index: &ScipIndex,
    claimed: &BTreeMap<String, Vec<(String, String)>>,
    unit_directory: &Path,
    mapped: &[(String, PathBuf)],
) -> Vec<ArtifactFile> {
    let mut seen: BTreeSet<(&str, &str, String)> = BTreeSet::new();
    let mut artifacts = Vec::new();
    for occurrence in index
        .documents
        .iter()
        .flat_map(|d| &d.occurrences)
        .filter(|o| !o.definition && !o.is_local())
    {
        let Some(symbol) = NpmSymbol::parse(&occurrence.symbol) else {
            continue;
        };
        if !claimed.contains_key(symbol.package)
            || !seen.insert((symbol.package, symbol.version, symbol.path.clone()))
        {
            continue;
        }
        let copy = match mapped.iter().find(|(name, _)| name == symbol.package) {
            Some((_, directory)) => Some((directory.clone(), false)),
            None => installed_package(unit_directory, symbol.package)
                .filter(|found| found.version.as_deref().unwrap_or("HEAD") == symbol.version)
                .map(|found| (found.root, true)),
        };
        let map_sources = copy.as_ref().and_then(|(root, _)| {
            let sources = source_map_sources(&root.join(&symbol.path))?;
            Some(sources.iter().map(|s| relative_to(root, s)).collect())
        });
        artifacts.push(ArtifactFile {
            package: symbol.package.to_string(),
            version: symbol.version.to_string(),
            path: symbol.path.clone(),
            installed: copy.is_some_and(|(_, installed)| installed),
            map_sources,
        });
    }
    artifacts.sort();
    artifacts
}

/// What a repository's `package.json` files say about versions: each directory's own
/// version, the ranges it requires others at, and a fingerprint of its install records.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NpmManifest {
    pub version: Option<String>,
    pub dependencies: BTreeMap<String, String>,
    pub installed: Option<Fingerprint>,
}

/// A repository's npm manifests by directory: all a TypeScript unit and the placement of
/// its uses read of them, so an edit elsewhere in a manifest re-runs neither.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn npm_manifests(
    db: &dyn Db,
    repository: RepositoryInput,
) -> Stored<BTreeMap<String, NpmManifest>> {
    Stored::new(
        repository
            .module_maps(db)
            .packages
            .iter()
            .map(|(directory, entries)| {
                let manifest = NpmManifest {
                    version: entries.version.clone(),
                    dependencies: entries.dependencies.clone(),
                    installed: entries.installed,
                };
                (directory.clone(), manifest)
            })
            .collect(),
    )
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(crate) fn attach_restored_queries(db: &mut dyn Db) {
    npm_manifests::set_lru_capacity(db, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_symbols_split_at_their_module_file() {
        let symbol = NpmSymbol::parse(
            "scip-typescript npm @demo/values 2.0.0 dist/`value.d.ts`/Box#open().",
        )
        .unwrap();
        assert_eq!(
            symbol,
            NpmSymbol {
                package: "@demo/values",
                version: "2.0.0",
                path: "dist/value.d.ts".into(),
                rest: "Box#open().",
            }
        );
        assert_eq!(symbol.top_name().as_deref(), Some("Box"));
        assert!(symbol.is_member() && symbol.names_an_export());
        let function = NpmSymbol::parse("scip-typescript npm p 1.0.0 `a.ts`/compute().").unwrap();
        assert!(!function.is_member() && function.names_an_export());
        let parameter =
            NpmSymbol::parse("scip-typescript npm p 1.0.0 `a.ts`/compute().(x)").unwrap();
        assert!(!parameter.names_an_export());
        let overload =
            NpmSymbol::parse("scip-typescript npm p 1.0.0 `a.ts`/Box#open(+1).").unwrap();
        assert!(overload.names_an_export() && overload.is_member());
        assert!(
            !NpmSymbol::parse("scip-typescript npm p 1.0.0 `a.ts`/Box#")
                .unwrap()
                .is_member()
        );
        assert!(
            !NpmSymbol::parse("scip-typescript npm p 1.0.0 `a.ts`/f(+1).")
                .unwrap()
                .is_member()
        );
        assert_eq!(
            file_descriptors("src/a-b/`odd`.ts"),
            "src/a-b/```odd``.ts`/"
        );
        let odd = NpmSymbol::parse("scip-typescript npm p 1.0.0 src/a-b/```odd``.ts`/x.").unwrap();
        assert_eq!(odd.path, "src/a-b/`odd`.ts");
        assert_eq!(
            NpmSymbol::parse("scip-typescript npm p 1.0.0 src/`a.ts`/"),
            Some(NpmSymbol {
                package: "p",
                version: "1.0.0",
                path: "src/a.ts".into(),
                rest: ""
            })
        );
        assert_eq!(NpmSymbol::parse("rust-analyzer cargo p 1.0.0 a/b()."), None);
    }
}
