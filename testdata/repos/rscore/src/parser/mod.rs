/// A parser over a string.
pub struct Parser {
    input: String,
}

impl Parser {
    pub fn parse(&self) -> Option<crate::Config> {
        None
    }
}

/// A homonym of the Go and TypeScript `Server`s.
pub struct Server;
