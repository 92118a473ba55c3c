use shapes_core::{Shape, Square};

/// Opens nothing: a homonym of `shapes_core::store::open`.
pub fn open() -> Vec<Square> {
    Vec::new()
}

/// Reports one square through the trait.
pub fn report(side: f64) -> String {
    let square = Square::new(side);
    square.label()
}

/// A sole implementation reached through `dyn`.
pub fn measure(shape: &dyn Shape) -> f64 {
    shape.area()
}

/// The core crate's items under another path, as serde re-exports serde_core's modules.
pub mod reexported {
    pub use shapes_core::*;
}

/// Implemented through the re-exporting module, a path the syntax layer does not follow.
pub struct Ruler;

impl reexported::Shape for Ruler {
    fn area(&self) -> f64 {
        0.0
    }
}
