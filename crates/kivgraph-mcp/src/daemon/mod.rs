//! `kivgraph daemon`'s transport: one process serving MCP to many clients over Streamable
//! HTTP (rmcp's service), on a TCP address and on a unix socket at once, every client sharing
//! one mapping of the published generation. Loopback only unless the caller allows another
//! address; the socket is created with mode `0600`; every request passes the [`gate`]. The
//! socket also serves the search gate's one question (`search_gate`).

mod gate;
mod search_gate;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::follow::Follower;
use crate::host::Host;
use crate::server::{KivgraphServer, ServeOptions};
use gate::Bounds;
use gate::Gate;
pub use search_gate::SEARCH_GATE_PATH;

/// The path of the MCP endpoint under the daemon's address.
pub const ENDPOINT_PATH: &str = "/mcp";

/// The bounds the daemon holds every client to.
const BOUNDS: Bounds = Bounds {
    body_bytes: 1 << 20,
    body_time: Duration::from_secs(30),
    sessions: 64,
};

/// Open connections, streams included; a client past them is closed at once.
const MAXIMUM_CONNECTIONS: usize = 256;

/// How long a client may take to send a request's headers.
const HEADER_TIME: Duration = Duration::from_secs(10);

/// An MCP session nobody used for this long is closed.
const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);

#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(
        "{0} is not a loopback address: the answers carry repository paths, file paths and symbol names; pass --allow-remote to bind it anyway"
    )]
    RemoteRefused(SocketAddr),
    #[error("cannot bind {address}: {source}")]
    Bind {
        address: String,
        source: std::io::Error,
    },
}

/// Where the daemon listens and the token its clients present.
pub struct DaemonSettings {
    pub address: SocketAddr,
    pub allow_remote: bool,
    pub socket: PathBuf,
    pub token: String,
}

/// A daemon bound to its address and socket, not yet accepting: the caller publishes where
/// it is (`daemon.json`) before [`BoundDaemon::run`] answers anyone.
pub struct BoundDaemon {
    tcp: TcpListener,
    unix: UnixListener,
    address: SocketAddr,
    socket: PathBuf,
    service: StreamableHttpService<KivgraphServer, LocalSessionManager>,
    gate: Arc<Gate>,
    follower: Arc<Follower>,
}

impl BoundDaemon {
    pub async fn bind(
        options: ServeOptions,
        settings: DaemonSettings,
    ) -> Result<Self, DaemonError> {
        if !settings.allow_remote && !settings.address.ip().is_loopback() {
            return Err(DaemonError::RemoteRefused(settings.address));
        }
        let tcp = TcpListener::bind(settings.address)
            .await
            .map_err(|source| DaemonError::Bind {
                address: settings.address.to_string(),
                source,
            })?;
        let address = tcp.local_addr().map_err(|source| DaemonError::Bind {
            address: settings.address.to_string(),
            source,
        })?;
        let unix = bind_private_socket(&settings.socket).map_err(|source| DaemonError::Bind {
            address: settings.socket.display().to_string(),
            source,
        })?;
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(SESSION_IDLE);
        let sessions = Arc::new(sessions);
        let server = KivgraphServer::new(options).hosted(Host::Daemon {
            sessions: sessions.clone(),
        });
        let follower = server.follower();
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            sessions.clone(),
            http_config(address, settings.allow_remote),
        );
        Ok(BoundDaemon {
            tcp,
            unix,
            address,
            socket: settings.socket,
            service,
            gate: Arc::new(Gate::new(settings.token, sessions, BOUNDS)),
            follower,
        })
    }

    /// The Streamable HTTP endpoint, e.g. `http://127.0.0.1:7788/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{ENDPOINT_PATH}", self.address)
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// Accepts on both doors until `shutdown` is cancelled, then removes the socket.
    pub async fn run(self, shutdown: CancellationToken) {
        let permits = Arc::new(Semaphore::new(MAXIMUM_CONNECTIONS));
        let handler = Arc::new(Handler {
            service: self.service,
            gate: self.gate,
            follower: self.follower,
        });
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                accepted = self.tcp.accept() => {
                    if let Ok((stream, _)) = accepted {
                        handler.clone().spawn(stream, Door::Tcp, &permits);
                    }
                }
                accepted = self.unix.accept() => {
                    if let Ok((stream, _)) = accepted {
                        handler.clone().spawn(stream, Door::Socket, &permits);
                    }
                }
            }
        }
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// rmcp's own checks, set for this daemon: `Host` must name the bound address (or loopback,
/// for socket clients), and a browser's `Origin` must be this daemon's.
fn http_config(address: SocketAddr, allow_remote: bool) -> StreamableHttpServerConfig {
    let port = address.port();
    let mut hosts = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    let bound = address.ip();
    if !bound.is_loopback() && !bound.is_unspecified() {
        hosts.push(format!("{}:{port}", host_literal(address)));
    }
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins([
            format!("http://127.0.0.1:{port}"),
            format!("http://localhost:{port}"),
            format!("http://{}:{port}", host_literal(address)),
        ])
        .enforce_origin_validation()
        .with_max_request_body_bytes(BOUNDS.body_bytes);
    // Bound to every interface, the daemon cannot know the names it is reached by; the token
    // still guards every request.
    if allow_remote && bound.is_unspecified() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(hosts)
    }
}

fn host_literal(address: SocketAddr) -> String {
    match address {
        SocketAddr::V4(v4) => v4.ip().to_string(),
        SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
    }
}

/// Binds the unix socket with mode `0600` from its creation: the process mask is narrowed
/// around the bind, so no instant exists at which another user could connect. A socket file
/// left by a daemon that died is replaced.
fn bind_private_socket(path: &Path) -> std::io::Result<UnixListener> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::remove_file(path) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(err),
        _ => {}
    }
    // SAFETY: umask only swaps the process's file-creation mask; it cannot fail.
    let previous = unsafe { libc::umask(0o177) };
    let bound = UnixListener::bind(path);
    // SAFETY: as above, restoring the mask the process had.
    unsafe { libc::umask(previous) };
    bound
}

/// Where a connection came in. The search gate's route is the socket's alone: only a
/// process of this user reaches it, and no browser can (no DNS rebinding to consider).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Door {
    Tcp,
    Socket,
}

struct Handler {
    service: StreamableHttpService<KivgraphServer, LocalSessionManager>,
    gate: Arc<Gate>,
    follower: Arc<Follower>,
}

impl Handler {
    /// Serves one connection on its own task while a connection permit is free.
    fn spawn<S>(self: Arc<Self>, stream: S, door: Door, permits: &Arc<Semaphore>)
    where
        S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            tracing::warn!(
                "a connection was closed: {MAXIMUM_CONNECTIONS} are open, the most this daemon holds"
            );
            return;
        };
        tokio::spawn(self.serve(stream, door, permit));
    }

    async fn serve<S>(self: Arc<Self>, stream: S, door: Door, _permit: OwnedSemaphorePermit)
    where
        S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        let handler = self.clone();
        let service = service_fn(move |request: hyper::Request<Incoming>| {
            let handler = handler.clone();
            async move {
                if door == Door::Socket && request.uri().path() == SEARCH_GATE_PATH {
                    return Ok::<_, std::convert::Infallible>(
                        match handler.gate.admit_body(request).await {
                            Ok(body) => search_gate::answer(handler.follower.clone(), body).await,
                            Err(refusal) => refusal.into_answer(),
                        },
                    );
                }
                Ok(match handler.gate.admit(request).await {
                    Ok(admitted) => handler.service.handle(admitted).await,
                    Err(refusal) => refusal.into_answer(),
                })
            }
        });
        let served = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(HEADER_TIME)
            .serve_connection(TokioIo::new(stream), service)
            .await;
        if let Err(err) = served {
            tracing::debug!("a connection ended: {err}");
        }
    }
}
