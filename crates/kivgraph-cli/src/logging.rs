//! Logs go to stderr: a sentence for a person at a terminal, a JSON record for a pipeline.
//! `serve` always logs JSON, because a client reads its stderr.

use std::io::IsTerminal;

pub fn init(force_json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("KIVGRAPH_LOG").unwrap_or_else(|_| {
        if force_json {
            "info".into()
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
