pub mod circle;
pub mod square;
