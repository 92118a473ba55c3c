use shapes_core::Square;

/// A square's area in the default build.
pub fn square_area(side: f64) -> f64 {
    shapes_core::Shape::area(&Square::new(side))
}
