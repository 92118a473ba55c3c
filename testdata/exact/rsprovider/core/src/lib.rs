//! Shapes and what can be measured of them.

pub mod shapes;
pub mod store;

pub use shapes::circle::Circle;
pub use shapes::square::Square;

/// Something with an area.
pub trait Shape {
    /// The area, in square units.
    fn area(&self) -> f64;

    /// A name for reports.
    fn label(&self) -> String {
        format!("shape of area {}", self.area())
    }
}

/// The total area of a set of shapes.
pub fn total_area(shapes: &[Box<dyn Shape>]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}
