use shapes_core::Square;

/// A square's area in the default build.
pub fn square_area(side: f64) -> f64 {
    shapes_core::Shape::area(&Square::new(side))
}

/// Only with `extras`: an item the default build leaves out.
#[cfg(feature = "extras")]
pub fn circle_area(radius: f64) -> f64 {
    shapes_core::Shape::area(&shapes_core::Circle::new(radius))
}

/// Only without `extras`.
#[cfg(all(feature = "metric", not(feature = "extras")))]
pub fn unit_side() -> f64 {
    Square::new(1.0).side
}

/// A cfg only a build script could set: the pass cannot tell, so the syntax layer's
/// reading stays.
#[cfg(shapes_build_probe)]
pub fn probed() -> Square {
    Square::new(3.0)
}
