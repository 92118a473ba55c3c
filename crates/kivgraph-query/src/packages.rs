//! How answers name a package: its name and the module it belongs to.

/// Splits a package identity into its package name and the module it belongs to: Go's
/// `<module path> <import path>` carries both; elsewhere the package is its own module.
pub(crate) fn package_and_module(
    language: kivgraph_facts::Language,
    identity: &str,
) -> (String, Option<String>) {
    match (language, identity.split_once(' ')) {
        (kivgraph_facts::Language::Go, Some((module, package))) => {
            (package.to_string(), Some(module.to_string()))
        }
        _ => (identity.to_string(), None),
    }
}
