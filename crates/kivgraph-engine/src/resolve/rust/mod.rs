//! Rust: the resolver (`resolve`: `use` trees and paths within a crate and across
//! `Cargo.toml` dependencies, trait impls and `self`, rules R1–R6), and the provider
//! queries the package merges read (`queries`).

mod queries;
mod resolve;

pub(crate) use queries::attach_restored_queries;
pub(crate) use queries::rust_externs;
pub(crate) use queries::rust_files;
pub use queries::rust_providers;
pub use resolve::{
    CrateNames, Extern, RUST_STANDARD, RustFile, resolve_rust, rust_sites, version_accepts,
};
