//! Build output: the files a repository's own build produces from sources the repository
//! holds — a `tsconfig*.json`'s `outDir` or `declarationDir`, files emitted beside their
//! TypeScript source, files whose source map names a source of the repository, minified
//! bundles, and `dist/`-like trees mirroring `src/`. They are not sources: they declare
//! nothing of the repository and are no place to look for a use, so discovery leaves them
//! out and says which and why. Where a build says what it emits from where (its layout), an
//! importer that reached an artifact can be taken back to the source.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::jsonc::plain_json;
use crate::repo_paths::{join_inside, parent_dir};

/// Why a file is build output rather than source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum BuildOutputReason {
    /// Under a `tsconfig*.json`'s `outDir` or `declarationDir`, or emitted beside its
    /// TypeScript source.
    CompilerOutput,
    /// Its source map names a source file the repository holds.
    SourceMapped,
    /// A minified bundle (`*.min.js`).
    Minified,
    /// Under a `dist/`-like directory beside `src/` whose files mirror the sources there.
    MirrorsSources,
}

impl BuildOutputReason {
    pub fn as_str(self) -> &'static str {
        match self {
            BuildOutputReason::CompilerOutput => "COMPILER_OUTPUT",
            BuildOutputReason::SourceMapped => "SOURCE_MAPPED",
            BuildOutputReason::Minified => "MINIFIED",
            BuildOutputReason::MirrorsSources => "MIRRORS_SOURCES",
        }
    }
}

/// Where one build puts what it emits from where: files under `output` are emitted from the
/// files at the same relative path under `sources` (repository-relative directories).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BuildLayout {
    pub output: String,
    pub sources: String,
    /// The `tsconfig*.json` that declares it; `None` for a layout only inferred from a tree
    /// mirroring the sources, which no build configuration asserts.
    pub config: Option<String>,
}

/// A directory (or a file) left out as build output, with why and how many files.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BuildOutput {
    pub path: String,
    pub reason: BuildOutputReason,
    pub detail: String,
    pub files: usize,
}

/// What the classification found in one repository.
#[derive(Debug, Default)]
pub(crate) struct Classified {
    /// Every build-output file.
    pub files: BTreeSet<String>,
    /// The same files, by directory and reason.
    pub entries: Vec<BuildOutput>,
    pub layouts: Vec<BuildLayout>,
    /// Each build-output file whose source map names exactly one source this repository
    /// holds, with that source.
    pub mapped: BTreeMap<String, String>,
}

/// Directory names a build writes into.
const OUTPUT_NAMES: [&str; 11] = [
    "dist", "build", "lib", "out", "esm", "cjs", "umd", "es", "module", "types", "typings",
];

/// What each emitted extension may have been emitted from, most likely first.
const EMITTED_FROM: [(&str, &[&str]); 8] = [
    (".d.ts", &[".ts", ".tsx", ".js", ".jsx"]),
    (".d.mts", &[".mts", ".mjs"]),
    (".d.cts", &[".cts", ".cjs"]),
    (".js", &[".ts", ".tsx", ".js", ".jsx"]),
    (".mjs", &[".mts", ".ts", ".mjs", ".js"]),
    (".cjs", &[".cts", ".ts", ".cjs", ".js"]),
    (".jsx", &[".tsx", ".jsx"]),
    (".ts", &[]),
];

/// The stem of an emitted file and the source extensions it may come from; `None` for a
/// file no build emits (a `.ts` that is not a declaration file).
fn emitted(path: &str) -> Option<(&str, &'static [&'static str])> {
    EMITTED_FROM
        .iter()
        .find_map(|(extension, sources)| Some((path.strip_suffix(extension)?, *sources)))
        .filter(|(_, sources)| !sources.is_empty())
}

/// A file a build reads: TypeScript or JavaScript that is not a declaration file.
fn is_source(path: &str) -> bool {
    !is_declaration(path)
}

pub fn is_declaration(path: &str) -> bool {
    [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|suffix| path.ends_with(suffix))
}

fn under(path: &str, directory: &str) -> bool {
    directory.is_empty()
        || path
            .strip_prefix(directory)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn join(directory: &str, rest: &str) -> String {
    if directory.is_empty() {
        rest.to_string()
    } else {
        format!("{directory}/{rest}")
    }
}

impl BuildLayout {
    /// The sources `artifact` (repository-relative) may have been emitted from, most likely
    /// first, when it lies under this layout's output.
    pub fn sources_of(&self, artifact: &str) -> Vec<String> {
        if self.output == self.sources
            || !under(artifact, &self.output)
            || under(artifact, &self.sources)
        {
            return Vec::new();
        }
        let relative = if self.output.is_empty() {
            artifact
        } else {
            &artifact[self.output.len() + 1..]
        };
        let Some((stem, extensions)) = emitted(relative) else {
            return Vec::new();
        };
        extensions
            .iter()
            .map(|extension| join(&self.sources, &format!("{stem}{extension}")))
            .collect()
    }
}

/// A build configuration's settings that say where it emits: each directory resolved
/// against the configuration file that declares it, `extends` followed (a relative one).
#[derive(Default)]
struct EmitOptions {
    out_dir: Option<String>,
    declaration_dir: Option<String>,
    root_dir: Option<String>,
    /// `include` patterns, resolved; `None` when no configuration in the chain has one.
    include: Option<Vec<String>>,
}

fn read_emit_options(root: &Path, path: &str) -> EmitOptions {
    let mut options = EmitOptions::default();
    let mut next = Some(path.to_string());
    for _ in 0..8 {
        let Some(config) = next.take() else {
            break;
        };
        let Some(json) = std::fs::read_to_string(root.join(&config))
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&plain_json(&text)).ok())
        else {
            break;
        };
        let directory = parent_dir(&config).to_string();
        let resolve = |value: Option<&Value>| {
            value
                .and_then(Value::as_str)
                .and_then(|relative| join_inside(&directory, relative))
        };
        let compiler = json.get("compilerOptions");
        let option = |name: &str| resolve(compiler.and_then(|c| c.get(name)));
        options.out_dir = options.out_dir.or_else(|| option("outDir"));
        options.declaration_dir = options.declaration_dir.or_else(|| option("declarationDir"));
        options.root_dir = options.root_dir.or_else(|| option("rootDir"));
        if options.include.is_none()
            && let Some(patterns) = json.get("include").and_then(Value::as_array)
        {
            options.include = Some(patterns.iter().filter_map(|p| resolve(Some(p))).collect());
        }
        next = json
            .get("extends")
            .and_then(Value::as_str)
            .filter(|e| e.starts_with('.'))
            .and_then(|e| join_inside(&directory, e))
            .map(|e| {
                if e.ends_with(".json") {
                    e
                } else {
                    format!("{e}.json")
                }
            });
    }
    options
}

/// The static directory an `include` pattern starts with: `src` for `src/**/*`.
fn static_prefix(pattern: &str) -> &str {
    let cut = pattern.find(['*', '?', '{']).unwrap_or(pattern.len());
    let prefix = &pattern[..cut];
    if cut == pattern.len() && pattern.rsplit('/').next().is_some_and(|n| n.contains('.')) {
        // A file, not a directory.
        return parent_dir(pattern);
    }
    prefix.trim_end_matches('/')
}

/// The longest directory every path lies under.
fn common_directory<'a>(paths: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut common: Option<Vec<&str>> = None;
    for path in paths {
        let segments: Vec<&str> = parent_dir(path)
            .split('/')
            .filter(|s| !s.is_empty())
            .collect();
        common = Some(match common {
            None => segments,
            Some(previous) => previous
                .iter()
                .zip(&segments)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect(),
        });
    }
    common.map(|segments| segments.join("/"))
}

/// The layouts `tsconfig*.json` files declare: each output directory (`outDir`,
/// `declarationDir`) with the sources it is emitted from (`rootDir`, else the common
/// directory of the sources the configuration includes, as the compiler computes it).
fn declared_layouts(root: &Path, modules: &[String], configs: &[String]) -> Vec<BuildLayout> {
    let mut layouts = BTreeSet::new();
    for config in configs {
        let options = read_emit_options(root, config);
        let outputs: Vec<String> = [&options.out_dir, &options.declaration_dir]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        if outputs.is_empty() {
            continue;
        }
        let included: Vec<&str> = match &options.include {
            Some(patterns) => patterns.iter().map(|p| static_prefix(p)).collect(),
            None => vec![parent_dir(config)],
        };
        let inputs = modules.iter().map(String::as_str).filter(|path| {
            is_source(path)
                && included.iter().any(|dir| under(path, dir))
                && !outputs.iter().any(|out| under(path, out))
        });
        let sources = match &options.root_dir {
            Some(root_dir) => Some(root_dir.clone()),
            None => common_directory(inputs.clone()),
        };
        let Some(sources) = sources else {
            continue;
        };
        // A build whose sources this repository does not hold produced code that is all
        // the repository has: it stays.
        if inputs.clone().next().is_none() {
            continue;
        }
        for output in outputs {
            // Emitted beside the sources: the rule for emitted files next to their source.
            if output == sources {
                continue;
            }
            layouts.insert(BuildLayout {
                output,
                sources: sources.clone(),
                config: Some(config.clone()),
            });
        }
    }
    layouts.into_iter().collect()
}

/// The sources a file's source map names, repository-relative (a source outside the
/// repository is left out).
fn mapped_sources(root: &Path, map: &str) -> Vec<String> {
    let Some(json) = std::fs::read(root.join(map))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
    else {
        return Vec::new();
    };
    let directory = parent_dir(map);
    let source_root = json.get("sourceRoot").and_then(Value::as_str).unwrap_or("");
    let base = join_inside(directory, source_root);
    json.get("sources")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter_map(|source| join_inside(base.as_deref()?, source))
        .collect()
}

/// Classifies the TypeScript/JavaScript files `modules` (repository-relative, sorted) of one
/// repository, given the source maps (`*.map`) and build configurations (`tsconfig*.json`)
/// found beside them.
pub(crate) fn classify(
    root: &Path,
    modules: &[String],
    maps: &BTreeSet<String>,
    configs: &[String],
) -> Classified {
    let known: BTreeSet<&str> = modules.iter().map(String::as_str).collect();
    let mut found: BTreeMap<&str, (BuildOutputReason, String, String)> = BTreeMap::new();
    let mut mapped = BTreeMap::new();
    let layouts = declared_layouts(root, modules, configs);
    // The most specific sources first: a base configuration including everything names
    // the same output as the build that includes `src`.
    let mut specific: Vec<&BuildLayout> = layouts.iter().collect();
    specific.sort_by_key(|l| std::cmp::Reverse(l.sources.len()));
    let has_source = |layout: &BuildLayout, path: &str| {
        layout
            .sources_of(path)
            .iter()
            .any(|s| known.contains(s.as_str()))
    };
    for layout in specific {
        let config = layout.config.as_deref().unwrap_or_default();
        // An output holding its sources (`outDir: "."`, `rootDir: "src"`) holds other files
        // too: only what has a source there is emitted.
        let holds_sources = under(&layout.sources, &layout.output);
        for path in modules.iter().filter(|p| {
            under(p, &layout.output)
                && !under(p, &layout.sources)
                && (!holds_sources || has_source(layout, p))
        }) {
            found.entry(path).or_insert_with(|| {
                (
                    BuildOutputReason::CompilerOutput,
                    layout.output.clone(),
                    format!("emitted by {config} from {}", display(&layout.sources)),
                )
            });
        }
    }
    for path in modules {
        if found.contains_key(path.as_str()) {
            continue;
        }
        let file_name = path.rsplit('/').next().unwrap_or(path);
        if [".min.js", ".min.mjs", ".min.cjs"]
            .iter()
            .any(|suffix| file_name.ends_with(suffix))
        {
            let detail = "a minified bundle".to_string();
            found.insert(
                path,
                (BuildOutputReason::Minified, parent_dir(path).into(), detail),
            );
            continue;
        }
        // Emitted beside its TypeScript source: `x.js` or `x.d.ts` next to `x.ts`.
        if let Some((stem, extensions)) = emitted(path)
            && let Some(source) = extensions
                .iter()
                .filter(|e| [".ts", ".tsx", ".mts", ".cts"].contains(e))
                .map(|e| format!("{stem}{e}"))
                .find(|s| known.contains(s.as_str()))
        {
            let detail = format!("emitted beside its source {source}");
            found.insert(
                path,
                (
                    BuildOutputReason::CompilerOutput,
                    parent_dir(path).into(),
                    detail,
                ),
            );
            continue;
        }
        let map = format!("{path}.map");
        let named: Vec<String> = if maps.contains(&map) {
            mapped_sources(root, &map)
                .into_iter()
                .filter(|s| s != path && known.contains(s.as_str()) && is_source(s))
                .collect()
        } else {
            Vec::new()
        };
        if let [only] = named.as_slice() {
            mapped.insert(path.clone(), only.clone());
        }
        if let Some(source) = named.first() {
            let detail = format!("its source map names sources this repository holds ({source})");
            found.insert(
                path,
                (
                    BuildOutputReason::SourceMapped,
                    parent_dir(path).into(),
                    detail,
                ),
            );
        }
    }
    let mirrored = mirror_layouts(modules, &known, &found);
    for (layout, detail) in &mirrored {
        let holds_sources = under(&layout.sources, &layout.output);
        for path in modules.iter().filter(|p| {
            under(p, &layout.output)
                && !under(p, &layout.sources)
                && (!holds_sources || has_source(layout, p))
        }) {
            found.entry(path).or_insert_with(|| {
                (
                    BuildOutputReason::MirrorsSources,
                    layout.output.clone(),
                    detail.clone(),
                )
            });
        }
    }
    let mut grouped: BTreeMap<(String, BuildOutputReason), (String, usize)> = BTreeMap::new();
    for (reason, directory, detail) in found.values() {
        let entry = grouped
            .entry((directory.clone(), *reason))
            .or_insert_with(|| (detail.clone(), 0));
        entry.1 += 1;
    }
    Classified {
        files: found.keys().map(|p| p.to_string()).collect(),
        entries: grouped
            .into_iter()
            .map(|((path, reason), (detail, files))| BuildOutput {
                path,
                reason,
                // One file's detail stands for the group's only when it is the group.
                detail: if files == 1 || reason != BuildOutputReason::SourceMapped {
                    detail
                } else {
                    "their source maps name sources this repository holds".to_string()
                },
                files,
            })
            .collect(),
        layouts: layouts
            .into_iter()
            .chain(mirrored.into_iter().map(|(layout, _)| layout))
            .collect(),
        mapped,
    }
}

fn display(directory: &str) -> String {
    if directory.is_empty() {
        "the repository root".to_string()
    } else {
        format!("{directory}/")
    }
}

/// `dist/`-like directories beside a `src/` whose files mostly have a source there at the
/// same relative path (one level of `dist/esm/` nesting allowed), or that hold files whose
/// maps name sources there, each with why. Files already classified are not counted.
fn mirror_layouts(
    modules: &[String],
    known: &BTreeSet<&str>,
    found: &BTreeMap<&str, (BuildOutputReason, String, String)>,
) -> Vec<(BuildLayout, String)> {
    // Every directory some module file lies under.
    let mut holding: BTreeSet<&str> = BTreeSet::new();
    for path in modules {
        let mut directory = parent_dir(path);
        while holding.insert(directory) && !directory.is_empty() {
            directory = parent_dir(directory);
        }
    }
    let mut candidates: BTreeSet<(String, String)> = BTreeSet::new();
    for directory in &holding {
        let name = directory.rsplit('/').next().unwrap_or(directory);
        let parent = parent_dir(directory);
        let sources = join(parent, "src");
        if OUTPUT_NAMES.contains(&name)
            && !directory.is_empty()
            && holding.contains(sources.as_str())
        {
            candidates.insert((directory.to_string(), sources));
        }
        // A directory holding `src/` and, beside it, files named after its sources (what a
        // build with `outDir: "."` leaves): those files, one by one.
        let inner = join(directory, "src");
        if holding.contains(inner.as_str()) {
            candidates.insert((directory.to_string(), inner));
        }
    }
    let mut layouts = Vec::new();
    for (output, sources) in candidates {
        // Inside a tree already found to be output, whole.
        if layouts.iter().any(|(l, _): &(BuildLayout, String)| {
            !under(&l.sources, &l.output) && under(&output, &l.output)
        }) {
            continue;
        }
        let holds_sources = under(&sources, &output);
        let files: Vec<&String> = modules
            .iter()
            .filter(|p| under(p, &output) && !found.contains_key(p.as_str()))
            .filter(|p| !holds_sources || parent_dir(p) == output)
            .collect();
        let has_source = |relative: &str| {
            emitted(relative).is_some_and(|(stem, extensions)| {
                extensions
                    .iter()
                    .any(|e| known.contains(join(&sources, &format!("{stem}{e}")).as_str()))
            })
        };
        let matched = files
            .iter()
            .filter(|path| {
                let relative = if output.is_empty() {
                    path.as_str()
                } else {
                    &path[output.len() + 1..]
                };
                has_source(relative)
                    || relative
                        .split_once('/')
                        .is_some_and(|(_, nested)| has_source(nested))
            })
            .count();
        // A tree the build wrote maps into is the build's directory: its bundler's entries
        // and hashed chunks are output too, though few of them mirror a source.
        let written = !holds_sources
            && found.iter().any(|(path, (reason, _, _))| {
                *reason == BuildOutputReason::SourceMapped && under(path, &output)
            });
        let detail = if written {
            format!(
                "written by the build whose source maps there name {}",
                display(&sources)
            )
        } else if matched > 0 && (holds_sources || matched * 2 >= files.len()) {
            format!(
                "mirrors {}: {matched} of its {} files have a source there",
                display(&sources),
                files.len()
            )
        } else {
            continue;
        };
        if !files.is_empty() {
            let layout = BuildLayout {
                output,
                sources,
                config: None,
            };
            layouts.push((layout, detail));
        }
    }
    layouts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
    }

    #[test]
    fn compiler_output_maps_and_mirrors_are_build_output_and_sources_stay() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                (
                    "tsconfig.build.json",
                    r#"{ "extends": "./tsconfig.base.json", "include": ["src"] }"#,
                ),
                (
                    "tsconfig.base.json",
                    r#"{ "compilerOptions": { "outDir": "dist", /* emitted */ "declaration": true, }, }"#,
                ),
                (
                    "web/lib/a.js.map",
                    r#"{"version":3,"sources":["../src/a.ts"],"mappings":""}"#,
                ),
            ],
        );
        let modules: Vec<String> = [
            "dist/index.d.ts",
            "dist/index.js",
            "src/index.ts",
            "src/value.ts",
            "src/value.js",
            "src/types.d.ts",
            "vendor/jquery.min.js",
            "web/lib/a.js",
            "web/src/a.ts",
            "web/src/b.ts",
            "web/build/esm/b.js",
            "web/build/esm/c.js",
            "tools/lib/only.js",
            "pkg/sha2.d.ts",
            "pkg/sha2.js",
            "pkg/vitest.config.ts",
            "pkg/src/sha2.ts",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let maps = BTreeSet::from(["web/lib/a.js.map".to_string()]);
        let configs = vec![
            "tsconfig.base.json".to_string(),
            "tsconfig.build.json".to_string(),
        ];
        let classified = classify(dir.path(), &modules, &maps, &configs);
        let output: Vec<&str> = classified.files.iter().map(String::as_str).collect();
        assert_eq!(
            output,
            [
                "dist/index.d.ts",
                "dist/index.js",
                "pkg/sha2.d.ts",
                "pkg/sha2.js",
                "src/value.js",
                "vendor/jquery.min.js",
                "web/build/esm/b.js",
                "web/build/esm/c.js",
                "web/lib/a.js",
            ]
        );
        let entries: Vec<(&str, &str, usize)> = classified
            .entries
            .iter()
            .map(|e| (e.path.as_str(), e.reason.as_str(), e.files))
            .collect();
        assert_eq!(
            entries,
            [
                ("dist", "COMPILER_OUTPUT", 2),
                ("pkg", "MIRRORS_SOURCES", 2),
                ("src", "COMPILER_OUTPUT", 1),
                ("vendor", "MINIFIED", 1),
                ("web/build", "MIRRORS_SOURCES", 2),
                ("web/lib", "SOURCE_MAPPED", 1),
            ]
        );
        assert_eq!(
            classified.entries[0].detail,
            "emitted by tsconfig.build.json from src/"
        );
        // What a map ties to its one source, no configuration needed: where a lookup of
        // the emitted module lands.
        assert_eq!(
            classified.mapped,
            BTreeMap::from([("web/lib/a.js".to_string(), "web/src/a.ts".to_string())])
        );
        // The base configuration includes everything: its sources are the common
        // directory of what it includes outside its output (the root).
        assert_eq!(classified.layouts[0].sources, "");
        let layout = &classified.layouts[1];
        assert_eq!(
            (layout.output.as_str(), layout.sources.as_str()),
            ("dist", "src")
        );
        assert_eq!(
            layout.sources_of("dist/value.d.ts"),
            [
                "src/value.ts",
                "src/value.tsx",
                "src/value.js",
                "src/value.jsx"
            ]
        );
        assert!(layout.sources_of("src/value.ts").is_empty());
        assert_eq!(
            classified.layouts.last().unwrap(),
            &BuildLayout {
                output: "web/build".into(),
                sources: "web/src".into(),
                config: None
            }
        );
    }

    /// A bundler's `dist/` (tsdown, as `@trpc/server` ships it): hashed chunks, a few with
    /// maps, entries that only re-export them, declarations per module format. The maps say
    /// the build wrote the directory; every file in it is output.
    #[test]
    fn a_tree_the_build_wrote_maps_into_is_output_whole() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[(
                "dist/observable-yEyhfXUI.mjs.map",
                r#"{"version":3,"sources":["../src/observable/observable.ts"],"mappings":""}"#,
            )],
        );
        let modules: Vec<String> = [
            "dist/index.d.cts",
            "dist/observable-CkXWrCsV.mjs",
            "dist/observable-yEyhfXUI.mjs",
            "dist/observable/index.mjs",
            "scripts/release.js",
            "src/index.ts",
            "src/observable/index.ts",
            "src/observable/observable.ts",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let maps = BTreeSet::from(["dist/observable-yEyhfXUI.mjs.map".to_string()]);
        let classified = classify(dir.path(), &modules, &maps, &[]);
        let output: Vec<&str> = classified.files.iter().map(String::as_str).collect();
        assert_eq!(
            output,
            [
                "dist/index.d.cts",
                "dist/observable-CkXWrCsV.mjs",
                "dist/observable-yEyhfXUI.mjs",
                "dist/observable/index.mjs",
            ]
        );
        let entries: Vec<(&str, &str, usize, &str)> = classified
            .entries
            .iter()
            .map(|e| {
                (
                    e.path.as_str(),
                    e.reason.as_str(),
                    e.files,
                    e.detail.as_str(),
                )
            })
            .collect();
        assert_eq!(
            entries,
            [
                (
                    "dist",
                    "SOURCE_MAPPED",
                    1,
                    "its source map names sources this repository holds (src/observable/observable.ts)"
                ),
                (
                    "dist",
                    "MIRRORS_SOURCES",
                    3,
                    "written by the build whose source maps there name src/"
                ),
            ]
        );
    }

    #[test]
    fn a_build_whose_sources_are_absent_leaves_its_output_as_the_code() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[(
                "tsconfig.json",
                r#"{"compilerOptions": {"outDir": "dist", "rootDir": "src"}}"#,
            )],
        );
        let modules = vec!["dist/index.d.ts".to_string(), "dist/index.js".to_string()];
        let configs = vec!["tsconfig.json".to_string()];
        let classified = classify(dir.path(), &modules, &BTreeSet::new(), &configs);
        assert!(classified.files.is_empty());
        assert!(classified.layouts.is_empty());
    }
}
