use crate::shapes::circle::Circle;
use crate::Shape;

impl Shape for Circle {
    fn area(&self) -> f64 {
        3.0 * self.radius * self.radius
    }
}

/// Opens the shape store: a homonym of `util::open`.
pub fn open() -> Vec<Circle> {
    vec![Circle::new(1.0)]
}
