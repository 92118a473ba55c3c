//! A registered crate named like a crates.io one, at a release nobody depends on.

pub struct Buffer;

impl Buffer {
    pub fn new() -> Buffer {
        Buffer
    }
}
