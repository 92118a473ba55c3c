use shapes_core::Square;

pub fn doubled_side() -> f64 {
    Square::new(2.0).side * 2.0
}
