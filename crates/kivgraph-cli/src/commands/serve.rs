//! `kivgraph serve`: the MCP server over stdio. stdout carries protocol framing only.

use std::process::ExitCode;

use anyhow::Context as _;
use kivgraph_mcp::{ServeOptions, serve_stdio};
use kivgraph_store::{Event, EventKind, EventLog, GenerationStore};

use kivgraph_config::LoadedConfig;

use crate::context::ConfigArg;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    config: ConfigArg,
}

impl ServeArgs {
    pub fn config(&self) -> &ConfigArg {
        &self.config
    }
}

/// A server's configuration, read once at its start: its logging and its options both come
/// from this one read.
pub struct ServerConfig {
    read: anyhow::Result<(LoadedConfig, bool)>,
}

impl ServerConfig {
    pub fn read(config: &ConfigArg) -> Self {
        ServerConfig {
            read: config.load_or_default(),
        }
    }

    /// The configuration, where it could be read.
    pub fn loaded(&self) -> Option<&LoadedConfig> {
        self.read.as_ref().ok().map(|(loaded, _)| loaded)
    }

    /// What the server answers from, and whether a configuration exists.
    pub fn options(self) -> anyhow::Result<(ServeOptions, bool)> {
        let (config, configured) = self.read?;
        Ok((options_of(&config)?, configured))
    }
}

/// `config` is the server's configuration as `main` read it for the server's logging.
pub fn run(args: ServeArgs, config: Option<ServerConfig>) -> anyhow::Result<ExitCode> {
    let (options, _) = config
        .unwrap_or_else(|| ServerConfig::read(&args.config))
        .options()?;
    // A record `stop` finds; a store nobody can write to still serves.
    let _record = GenerationStore::new(&options.store_root)
        .register_process("serve")
        .inspect_err(|err| tracing::warn!("this serve is not recorded for kivgraph stop: {err}"))
        .ok();
    record_start(&options, "serve", "serving MCP over stdio");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime
        .block_on(serve_stdio(options))
        .map_err(|e| anyhow::anyhow!(e))?;
    Ok(ExitCode::SUCCESS)
}

/// Records a server's start in the event log (a log that cannot be written costs the record).
pub fn record_start(options: &ServeOptions, role: &str, detail: &str) {
    EventLog::new(&options.event_log).record(&Event::now(
        role,
        EventKind::Server {
            detail: detail.to_string(),
        },
    ));
}

/// The store of a configuration, which need not exist yet.
pub fn store_of(config: &ConfigArg) -> anyhow::Result<GenerationStore> {
    let (options, _) = serve_options(config).context("cannot resolve the state directory")?;
    Ok(GenerationStore::new(options.store_root))
}

/// What a server answers from, and whether a configuration exists. A missing configuration is
/// not fatal: the server still completes the handshake and offers `index_project`, which
/// creates it.
pub fn serve_options(config: &ConfigArg) -> anyhow::Result<(ServeOptions, bool)> {
    ServerConfig::read(config).options()
}

fn options_of(config: &LoadedConfig) -> anyhow::Result<ServeOptions> {
    Ok(ServeOptions {
        store_root: config.generation_store(),
        config_path: config.paths.config_file.clone(),
        executable: std::env::current_exe().context("cannot locate the kivgraph executable")?,
        limits: kivgraph_query::PageLimits {
            default: config.config.mcp.default_limit as usize,
            maximum: config.config.mcp.maximum_limit as usize,
        },
        event_log: config.event_log_path.clone(),
    })
}
