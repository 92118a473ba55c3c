//! TypeScript and JavaScript: the resolver (`resolve`: imports through barrels and package
//! maps, calls, type names, values, heritage and receivers, rules T1–T11 and H1), and the
//! provider queries the package merges read (`queries`).

mod queries;
mod resolve;

pub(crate) use queries::attach_restored_queries;
pub(crate) use queries::module_files;
pub use queries::{module_index, npm_providers, package_exports};
pub use resolve::{
    CallBindings, Found, Module, ModuleFile, ModuleSite, NpmProvider, PackageExports, call_edges,
    candidate_paths, class_members, follow, is_relative, mapped_paths, module_sites, npm_provider,
    package_entry_paths, resolve_calls, resolve_modules,
};
