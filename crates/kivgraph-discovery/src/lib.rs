//! Discovery: which files of a registered repository are analysed, and which package each
//! belongs to.
//!
//! Owns: walking a checkout (honouring `.gitignore`, the registry's `exclusions`, and the
//! directories no pass enters), never following a symlink, and reading the manifests that
//! assign a file to its package — `go.mod`, `package.json`, `Cargo.toml`, Python's
//! `__init__.py` chains — and what they say about module specifiers (`exports`, `main`,
//! `tsconfig.json` paths); and which files are the repository's own build output rather than
//! its sources (`outDir`, emitted declarations, source-mapped bundles, trees mirroring
//! `src/`), with the layouts that take an artifact back to its source; which `.go` files the
//! configured Go build compiles (tests, file names, build constraints); and where an npm
//! package is installed for an importer (`node_modules`, a package manager's store).
//!
//! Must not know about: parsing source, facts beyond the vocabulary, salsa, or storage.

mod build_output;
mod go_files;
mod installed;
mod jsonc;
mod manifests;
mod module_maps;
mod repo_paths;
mod walk;

pub use build_output::{BuildLayout, BuildOutput, BuildOutputReason, is_declaration};
pub use go_files::{GoFileRule, GoFilesLeftOut, go_file_left_out};
pub use installed::{InstalledPackage, installed_package, source_map_sources};
pub use manifests::FileUnit;
pub use manifests::PackageAssigner;
pub use module_maps::{
    CrateDependency, CrateManifest, GoModuleManifest, GoReplace, GoReplacement, ModuleMaps,
    PackageEntries, PathMapping,
};
pub use repo_paths::join_inside;
pub use walk::{
    DiscoveredFile, DiscoveredRepository, DiscoveryError, discover_repository, enabled_languages,
};
