//! A registered release of `itoa` its consumers' requirement accepts, with a dependency no
//! registry here holds.

pub struct Buffer;

impl Buffer {
    pub fn new() -> Buffer {
        Buffer
    }
}
