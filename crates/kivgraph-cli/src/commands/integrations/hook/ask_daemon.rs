//! The search gate's question asked of a running daemon, over its unix socket: one request
//! to the generation the daemon already maps, instead of mapping and validating a whole
//! generation in the hook's own short-lived process.

use std::time::Duration;

use anyhow::{Context, bail};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST};
use hyper_util::rt::TokioIo;
use kivgraph_mcp::SEARCH_GATE_PATH;
use kivgraph_query::{SearchQuestion, SharedName};
use kivgraph_store::DaemonRecord;
use serde::Deserialize;

/// A daemon slower than this is not waited for: the hook answers from the snapshot instead.
const ANSWER_TIME: Duration = Duration::from_secs(2);

#[derive(Deserialize)]
struct Answer {
    shared: Option<SharedName>,
}

/// The daemon's answer to `question`.
pub fn ask(daemon: &DaemonRecord, question: &SearchQuestion) -> anyhow::Result<Option<SharedName>> {
    let body = serde_json::to_vec(question)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        tokio::time::timeout(ANSWER_TIME, request(daemon, body))
            .await
            .with_context(|| {
                format!(
                    "the daemon did not answer within {} s",
                    ANSWER_TIME.as_secs()
                )
            })?
    })
}

async fn request(daemon: &DaemonRecord, body: Vec<u8>) -> anyhow::Result<Option<SharedName>> {
    let stream = tokio::net::UnixStream::connect(&daemon.socket)
        .await
        .with_context(|| format!("cannot reach {}", daemon.socket.display()))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(connection);
    let request = Request::post(SEARCH_GATE_PATH)
        .header(HOST, "localhost")
        .header(AUTHORIZATION, format!("Bearer {}", daemon.token))
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)))?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    let bytes = response.into_body().collect().await?.to_bytes();
    if !status.is_success() {
        bail!(
            "the daemon answered {status}: {}",
            String::from_utf8_lossy(&bytes)
        );
    }
    Ok(serde_json::from_slice::<Answer>(&bytes)?.shared)
}
