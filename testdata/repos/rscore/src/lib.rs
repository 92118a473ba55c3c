//! The core crate.

pub mod parser;

/// Settings for a run. Cloned freely.
#[derive(Debug, Clone)]
pub struct Config {
    /// The name.
    pub name: String,
    depth: usize,
}

impl Config {
    /// Builds a default config.
    pub fn new() -> Self {
        Config { name: String::new(), depth: 0 }
    }

    pub fn depth(&self) -> usize {
        self.depth
    }
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)
    }
}

/// What can go wrong.
pub enum Error {
    /// Not found.
    Missing(String),
    Invalid { line: u32 },
}

/// Things that can be run.
pub trait Runner {
    type Output;
    fn run(&self) -> Self::Output;
}

pub const VERSION: &str = "1";
pub static COUNTER: u32 = 0;
pub type Result<T> = std::result::Result<T, Error>;

pub union Bits {
    pub int: u32,
    pub float: f32,
}

#[macro_export]
macro_rules! ensure {
    ($cond:expr) => {};
}

pub(crate) fn internal() {}
