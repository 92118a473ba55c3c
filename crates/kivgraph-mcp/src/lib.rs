//! The MCP server: `kivgraph serve` over stdio, and `kivgraph daemon`'s Streamable HTTP over
//! a TCP address and a unix socket.
//!
//! Owns: the protocol surface — which tools are registered (only `index_project` until a
//! generation is published), their descriptions and input schemas, the `instructions`,
//! following `CURRENT` to newer generations without a restart, and `index_project`, which
//! runs `kivgraph index --full --json` as a child process so the peak of a pass never lives in
//! the serving process.
//!
//! Must not know about: the engine or how facts are produced. Answers come from
//! `kivgraph-query` over the mapped snapshot, and `query_graph`'s from the generation's
//! canonical database opened read-only (`cypher.rs`); the only write is the repository registry, for
//! `index_project`.

mod cypher;
mod daemon;
mod follow;
mod freshness;
mod host;
mod index_project;
mod schema;
mod server;
mod tools;

pub use daemon::{BoundDaemon, DaemonError, DaemonSettings, ENDPOINT_PATH, SEARCH_GATE_PATH};
pub use host::Host;
pub use server::{KivgraphServer, ServeOptions, serve_stdio};
