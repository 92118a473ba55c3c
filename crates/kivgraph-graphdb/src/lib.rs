//! The canonical graph in LadybugDB.
//!
//! Owns: the canonical schema (`schema.rs`: node tables, a relationship table per edge kind,
//! generated DDL and the description agents read), writing a generation's database from its
//! facts by bulk `COPY` (`write.rs`, `bulk.rs`), and reading one read-only: bounded Cypher
//! for agents and the counts publication proves (`read.rs`).
//!
//! Must not know about: salsa, the snapshot's binary format, generations and pointers, or
//! the MCP surface. It turns a fact set into a database and answers queries over one; where
//! the database lives and when it is written is the store's and the pass's business.

mod amend;
mod bulk;
mod census;
mod diff;
mod error;
mod facts;
mod lookup;
mod read;
mod replace;
mod rows;
mod schema;
mod session;
mod stage;
mod update;
mod write;

pub use error::GraphDbError;
pub use kivgraph_facts::GraphCounts;
pub use read::{
    GraphReader, QueryAnswer, QueryLimits, QueryRefusal, verify_database, verify_tables,
};
pub use schema::{SCHEMA_VERSION, describe};
pub use session::open_for_writing;
pub use stage::Pages;
pub use update::{copy_database, update_database};
pub use write::write_database;

/// The LadybugDB release this build links.
pub const ENGINE_VERSION: &str = lbug::VERSION;

/// The database's file name inside a generation.
pub const DATABASE_FILE: &str = "graph.lbdb";

#[cfg(test)]
mod tests;
