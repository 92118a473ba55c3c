//! Python: the resolver (`resolve`: imports and re-exports, calls through modules and
//! `self`, providers, rules P1–P8), and the provider queries the package merges read
//! (`queries`).

mod queries;
mod resolve;

pub(crate) use queries::attach_restored_queries;
pub(crate) use queries::python_files;
pub use queries::{package_modules, python_module_index, python_top_levels};
pub use resolve::{PackageModules, PythonFile, python_provider, resolve_imports};
