pub mod store;

use crate::store::{open, Handle as StoreHandle};
use store::disk::*;

/// Settings for a run.
pub struct Config {
    pub depth: usize,
}

impl Config {
    pub fn new() -> Self {
        Config { depth: 0 }
    }
}

mod util {
    pub fn helper() -> super::Config {
        super::Config::new()
    }
}

pub fn run(handle: StoreHandle) -> Config {
    open();
    store::close(handle);
    util::helper();
    flush();
    std::mem::drop(0);
    Config::new()
}

pub fn shadowed<F: Fn()>(open: F) {
    open();
    let helper = || 1;
    helper();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builds() -> Config {
        Config::new()
    }
}

/// Something that can describe itself.
pub trait Describe {
    fn describe(&self) -> String;
    fn name(&self) -> String {
        String::new()
    }
}

impl Describe for Config {
    fn describe(&self) -> String {
        self.name()
    }
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("config")
    }
}

impl Config {
    pub fn deeper(&self) -> usize {
        self.describe();
        self.depth_plus(1)
    }

    fn depth_plus(&self, extra: usize) -> usize {
        self.depth + extra
    }
}
