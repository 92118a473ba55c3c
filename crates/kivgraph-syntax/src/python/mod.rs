//! Python: the declarations a file makes (`declarations`) and the reference sites it
//! spells (`sites`).

mod declarations;
mod sites;

pub(crate) use declarations::extract;
