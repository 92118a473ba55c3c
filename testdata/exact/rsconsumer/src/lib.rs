use shapes_core::store::open;
use shapes_core::{total_area, Circle, Shape, Square};
use missing_crate::Gauge;

/// Sums a store's circles and one square.
pub fn summary() -> f64 {
    let circles = open();
    let mut shapes: Vec<Box<dyn Shape>> = Vec::new();
    for circle in circles {
        shapes.push(Box::new(circle));
    }
    shapes.push(Box::new(Square::new(2.0)));
    total_area(&shapes)
}

/// The area of a circle, through the trait method.
pub fn circle_area(radius: f64) -> f64 {
    Circle::new(radius).area()
}

pub fn gauge() -> Gauge {
    Gauge::default()
}

/// A shape declared inside a function: its impl names the trait from the function's body.
pub fn unit_area() -> f64 {
    struct Unit;
    impl Shape for Unit {
        fn area(&self) -> f64 {
            1.0
        }
    }
    Unit.area()
}
