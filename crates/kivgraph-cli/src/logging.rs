//! Logs go to stderr. A one-shot command writes a sentence for a person at a terminal and a
//! JSON record for a pipeline, warnings and failures only. A server (`serve`, `daemon`) logs
//! as its configuration's `logging.format` and `logging.level` say (JSON at info by default),
//! because a client or a supervisor reads its stderr. `KIVGRAPH_LOG` overrides the level.

use std::io::IsTerminal;

use crate::commands::serve::ServerConfig;

/// How a server logs.
pub struct Server {
    json: bool,
    level: String,
}

impl Server {
    /// The configuration's `logging` section; the defaults where it cannot be read (the
    /// server reports that itself).
    pub fn of(config: &ServerConfig) -> Self {
        match config.loaded() {
            Some(loaded) => Server {
                json: loaded.config.logging.format != "text",
                level: loaded.config.logging.level.clone(),
            },
            None => Server {
                json: true,
                level: "info".into(),
            },
        }
    }
}

pub fn init(server: Option<Server>) {
    let default = match &server {
        // The engine's memoization logs every query it executes at info.
        Some(server) => format!("{},salsa=warn", server.level),
        None => "warn".into(),
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("KIVGRAPH_LOG")
        .unwrap_or_else(|_| default.into());
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    let json = match &server {
        Some(server) => server.json,
        None => !std::io::stderr().is_terminal(),
    };
    if json {
        builder.json().flatten_event(true).init();
    } else {
        builder.without_time().with_target(false).init();
    }
}
