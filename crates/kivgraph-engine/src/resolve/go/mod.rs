//! Go: the resolver (`resolve`: calls, type names, values, embedding and promoted methods,
//! rules G1–G15), implicit interface satisfaction (`implements`), and the provider queries
//! the package merges read (`queries`).

mod implements;
mod queries;
mod resolve;

pub use implements::GoMethodSets;
pub(crate) use queries::attach_restored_queries;
pub(crate) use queries::go_provider;
pub(crate) use queries::{go_claimants, go_files, go_replaces};
pub use queries::{go_package_implementations, go_package_names, go_providers};
pub use resolve::{
    Call, GoFile, GoImport, GoName, GoPackageNames, GoProvider, GoSites, go_sites,
    is_go_standard_path, resolve_go,
};
pub(crate) use resolve::{FileImports, GO_UNIVERSE, file_imports};
