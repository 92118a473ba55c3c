//! `POST /search-gate`: the search gate's question (`kivgraph hook`) asked of the generation
//! the daemon already maps, so a hook answers in a round trip instead of mapping and
//! validating a whole generation of its own. The body is a [`SearchQuestion`]; the answer
//! `{"shared": SharedName | null}`. Same token and bounds as the MCP endpoint.

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::header::CONTENT_TYPE;
use hyper::{Response, StatusCode};
use kivgraph_query::{SearchQuestion, shared_name};
use serde_json::json;

use super::gate::{Answer, plain};
use crate::follow::Follower;

/// The route under the daemon's address.
pub const SEARCH_GATE_PATH: &str = "/search-gate";

pub async fn answer(follower: Arc<Follower>, body: Bytes) -> Answer {
    let question: SearchQuestion = match serde_json::from_slice(&body) {
        Ok(question) => question,
        Err(err) => {
            return plain(
                StatusCode::BAD_REQUEST,
                &format!("Bad Request: expected {{\"name\": …, \"searched\": …}}: {err}"),
            )
            .into_answer();
        }
    };
    // Mapping a newer generation is blocking work, as for every tool.
    let shared = tokio::task::spawn_blocking(move || {
        let published = follower.current().ok()?;
        shared_name(&published, &question.name, &question.searched)
    })
    .await
    .ok()
    .flatten();
    Response::builder()
        .status(StatusCode::OK)
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(json!({ "shared": shared }).to_string())).boxed())
        .expect("a valid response")
}
