//! Discovery: which files of a registered repository are analysed, and which package each
//! belongs to.
//!
//! Owns: walking a checkout (honouring `.gitignore`, the registry's `exclusions`, and the
//! directories no pass enters), never following a symlink, and reading the manifests that
//! assign a file to its package — `go.mod`, `package.json`, `Cargo.toml`, Python's
//! `__init__.py` chains — and what they say about module specifiers (`exports`, `main`,
//! `tsconfig.json` paths).
//!
//! Must not know about: parsing source, facts beyond the vocabulary, salsa, or storage.

mod manifests;
mod module_maps;
mod walk;

pub use manifests::FileUnit;
pub use manifests::PackageAssigner;
pub use module_maps::{
    CrateDependency, CrateManifest, GoModuleManifest, GoReplace, GoReplacement, ModuleMaps,
    PackageEntries, PathMapping, join_inside,
};
pub use walk::{
    DiscoveredFile, DiscoveredRepository, DiscoveryError, discover_repository, enabled_languages,
};
