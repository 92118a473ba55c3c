//! `kivgraph daemon [--addr HOST:PORT] [--allow-remote]`: one process serving MCP to every
//! client over Streamable HTTP and a unix socket, and keeping the graph live with the
//! watcher in the same process. It publishes `daemon.json` (url, socket, pid, token; mode
//! `0600`) before it accepts anyone and removes it when it exits. `daemon install|remove|
//! status` give it an owner (`supervisor`).

mod supervisor;

pub use supervisor::{Owner, install as give_owner, supervisor as supervisor_reachable};

/// Where the daemon listens unless told otherwise.
pub const DEFAULT_ADDRESS: &str = "127.0.0.1:7788";

use std::net::{SocketAddr, ToSocketAddrs};
use std::process::ExitCode;

use anyhow::bail;
use kivgraph_mcp::{BoundDaemon, DaemonSettings};
use kivgraph_store::{DaemonRecord, GenerationStore, ProcessRecord};
use tokio_util::sync::CancellationToken;

use crate::commands::serve::ServerConfig;
use crate::context::ConfigArg;
use crate::watch::{Output, keep_live};

/// The socket, under the store's root beside `daemon.json`.
pub const SOCKET_FILE: &str = "daemon.sock";

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct DaemonArgs {
    #[command(subcommand)]
    action: Option<DaemonAction>,
    #[command(flatten)]
    run: DaemonRunArgs,
}

impl DaemonArgs {
    /// The configuration of a running daemon; `None` for `install`, `remove`, `status`.
    pub fn serving(&self) -> Option<&ConfigArg> {
        self.action.is_none().then_some(&self.run.config)
    }
}

#[derive(clap::Subcommand, Debug)]
enum DaemonAction {
    /// Give the daemon an owner, so the platform starts it and restarts it.
    Install(DaemonRunArgs),
    /// Stop the daemon and take its supervisor entry out.
    Remove(ConfigArg),
    /// Report whether the daemon has an owner, and where its unit lives.
    Status(supervisor::StatusArgs),
}

#[derive(clap::Args, Debug, Clone)]
pub struct DaemonRunArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// The HTTP address to bind.
    #[arg(long, value_name = "HOST:PORT", default_value = DEFAULT_ADDRESS, value_parser = address)]
    addr: SocketAddr,
    /// Bind a non-loopback address (the answers carry paths and symbol names).
    #[arg(long)]
    allow_remote: bool,
}

pub fn address(text: &str) -> Result<SocketAddr, String> {
    text.to_socket_addrs()
        .map_err(|err| format!("{text:?} is not a HOST:PORT address: {err}"))?
        .next()
        .ok_or_else(|| format!("{text:?} names no address"))
}

/// `config`: a running daemon's configuration, as `main` read it for the daemon's logging.
pub fn run(args: DaemonArgs, config: Option<ServerConfig>) -> anyhow::Result<ExitCode> {
    match args.action {
        None => {
            let config = config.unwrap_or_else(|| ServerConfig::read(&args.run.config));
            serve(args.run, config)
        }
        Some(DaemonAction::Install(run)) => {
            supervisor::install(&run.config, run.addr, run.allow_remote)
        }
        Some(DaemonAction::Remove(config)) => supervisor::remove(&config),
        Some(DaemonAction::Status(status)) => supervisor::status(&status),
    }
}

fn serve(args: DaemonRunArgs, config: ServerConfig) -> anyhow::Result<ExitCode> {
    let (options, configured) = config.options()?;
    let store = GenerationStore::new(&options.store_root);
    if let Some(record) = store.running_daemon() {
        bail!(
            "a daemon (pid {}) already serves this state directory at {}; stop it first (kivgraph stop)",
            record.process.pid,
            record.url
        );
    }
    let token = token()?;
    let socket = options.store_root.join(SOCKET_FILE);
    crate::commands::serve::record_start(
        &options,
        "daemon",
        "serving MCP over HTTP and a unix socket",
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let settings = DaemonSettings {
            address: args.addr,
            allow_remote: args.allow_remote,
            socket: socket.clone(),
            token: token.clone(),
        };
        let bound = BoundDaemon::bind(options, settings).await?;
        let record = DaemonRecord {
            url: bound.url(),
            socket,
            token,
            process: ProcessRecord::this_process("daemon"),
        };
        // Before the first accept: a client that can connect can find the token.
        store.write_daemon_record(&record)?;
        let _process = store.register_process("daemon")?;
        if args.allow_remote && !args.addr.ip().is_loopback() {
            tracing::warn!(address = %args.addr, "the daemon answers beyond this machine: every client still needs the token");
        }
        tracing::info!(url = %record.url, socket = %record.socket.display(), pid = record.process.pid, "daemon serving MCP");
        if configured {
            start_watcher(args.config.clone());
        } else {
            tracing::info!("no configuration yet: nothing to watch until kivgraph init or index_project writes one and the daemon restarts");
        }
        let shutdown = CancellationToken::new();
        tokio::spawn(stop_on_signal(shutdown.clone()));
        bound.run(shutdown).await;
        store.remove_daemon_record(record.process.pid);
        tracing::info!("daemon stopped");
        Ok(ExitCode::SUCCESS)
    })
}

/// The watcher, on a thread of its own: a pass is blocking work, and the server's threads
/// keep answering from the generation it replaces.
fn start_watcher(config: ConfigArg) {
    std::thread::spawn(move || {
        let loaded = match config.load() {
            Ok(loaded) => loaded,
            Err(err) => {
                tracing::error!("the watcher cannot start: {err:#}");
                return;
            }
        };
        if !loaded.config.config.watcher.enabled {
            tracing::info!("watcher.enabled is false: the daemon serves without watching");
            return;
        }
        if let Err(err) = keep_live(&config, loaded, Output::Log) {
            tracing::error!(
                "the watcher stopped: {err:#}; answers describe the last generation it published"
            );
        }
    });
}

/// Cancels `shutdown` on SIGTERM (what `stop` and a supervisor send) or SIGINT.
async fn stop_on_signal(shutdown: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut terminate), Ok(mut interrupt)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::warn!("signals cannot be caught: stopping the daemon leaves daemon.json behind");
        return;
    };
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
    shutdown.cancel();
}

/// 256 random bits, hex.
fn token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|err| anyhow::anyhow!("no randomness for the token: {err}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
