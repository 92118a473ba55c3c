//! Logs go to stderr: a sentence for a person at a terminal, a JSON record for a pipeline.
//! `serve` and `daemon` always log JSON at info, because a client or a supervisor reads their
//! stderr.

use std::io::IsTerminal;

pub fn init(force_json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("KIVGRAPH_LOG").unwrap_or_else(|_| {
        if force_json {
            // The engine's memoization logs every query it executes at info.
            "info,salsa=warn".into()
        } else {
            "warn".into()
        }
    });
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    if std::io::stderr().is_terminal() && !force_json {
        builder.without_time().with_target(false).init();
    } else {
        builder.json().flatten_event(true).init();
    }
}
