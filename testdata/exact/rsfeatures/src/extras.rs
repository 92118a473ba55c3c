use shapes_core::{total_area, Circle, Shape};

/// Only with `--features extras`.
pub fn circles(radii: &[f64]) -> f64 {
    let shapes: Vec<Box<dyn Shape>> = radii
        .iter()
        .map(|r| Box::new(Circle::new(*r)) as Box<dyn Shape>)
        .collect();
    total_area(&shapes)
}
