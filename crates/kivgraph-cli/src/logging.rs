//! Logs go to stderr: a sentence for a person at a terminal, a JSON record for a pipeline.

use std::io::IsTerminal;

pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("KIVGRAPH_LOG")
        .unwrap_or_else(|_| "warn".into());
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    if std::io::stderr().is_terminal() {
        builder.without_time().with_target(false).init();
    } else {
        builder.json().flatten_event(true).init();
    }
}
