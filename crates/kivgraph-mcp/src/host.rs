//! Which process a server answers in: what `graph_status` may say of its clients.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// The process a server answers in.
#[derive(Clone, Default)]
pub enum Host {
    /// `kivgraph serve`: one client, over stdio.
    #[default]
    Stdio,
    /// `kivgraph daemon`: every client of these sessions.
    Daemon { sessions: Arc<LocalSessionManager> },
}

impl Host {
    /// The role the event log records for this process.
    pub fn role(&self) -> &'static str {
        match self {
            Host::Stdio => "serve",
            Host::Daemon { .. } => "daemon",
        }
    }
}
