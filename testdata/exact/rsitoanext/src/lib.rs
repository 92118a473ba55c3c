//! A registered crate named like a crates.io one, at a release its consumers' requirement
//! (`itoa = "1"`) accepts: the source a developer working on both would patch in.

pub struct Buffer;

impl Buffer {
    pub fn new() -> Buffer {
        Buffer
    }

    pub fn format(&mut self, n: u32) -> &str {
        let _ = n;
        ""
    }
}
