//! Rust: the declarations a file makes (`declarations`) and the reference sites it
//! spells (`sites`).

mod cfg;
mod declarations;
mod sites;

pub(crate) use cfg::regions;
pub use cfg::{CfgPredicate, CfgRegion};
pub(crate) use declarations::extract;
