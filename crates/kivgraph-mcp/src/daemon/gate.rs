//! What a request must pass before rmcp's Streamable HTTP service sees it: the bearer token
//! (401), room for a new MCP session (503), a bounded body read in bounded time (413, 408),
//! and a body that is a JSON-RPC 2.0 message — anything else is answered with the error that
//! JSON-RPC prescribes, `"id": null` when the id cannot be read. `Host` and `Origin` (403)
//! are rmcp's, configured by the daemon.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{
    AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER, WWW_AUTHENTICATE,
};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde::Deserialize;
use serde_json::{Value, json};

pub type Answer = Response<BoxBody<Bytes, Infallible>>;

/// The header naming an MCP session (a request without one opens a session).
const SESSION_HEADER: &str = "mcp-session-id";

/// The bounds a request is held to.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// The largest request body, in bytes.
    pub body_bytes: usize,
    /// How long a client may take to send its body.
    pub body_time: Duration,
    /// How many MCP sessions may be open at once.
    pub sessions: usize,
}

pub struct Gate {
    token: String,
    sessions: Arc<LocalSessionManager>,
    bounds: Bounds,
}

impl Gate {
    pub fn new(token: String, sessions: Arc<LocalSessionManager>, bounds: Bounds) -> Self {
        Gate {
            token,
            sessions,
            bounds,
        }
    }

    /// The MCP request with its body read, or the refusal to answer with.
    pub async fn admit(&self, request: Request<Incoming>) -> Result<Request<Full<Bytes>>, Refusal> {
        self.check_token(&request)?;
        let opens_session =
            request.method() == Method::POST && !request.headers().contains_key(SESSION_HEADER);
        if opens_session && self.sessions.sessions.read().await.len() >= self.bounds.sessions {
            return Err(plain(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!(
                    "Service Unavailable: {} MCP sessions are open, the most this daemon holds; close one or retry",
                    self.bounds.sessions
                ),
            )
            .with_header(RETRY_AFTER, "5"));
        }
        let (parts, bytes) = self.read_body(request).await?;
        if parts.method == Method::POST {
            json_rpc(&bytes)?;
        }
        Ok(Request::from_parts(parts, Full::new(bytes)))
    }

    /// The body of a request to one of the daemon's own routes (no MCP session, no JSON-RPC),
    /// held to the same token and bounds.
    pub async fn admit_body(&self, request: Request<Incoming>) -> Result<Bytes, Refusal> {
        self.check_token(&request)?;
        Ok(self.read_body(request).await?.1)
    }

    fn check_token(&self, request: &Request<Incoming>) -> Result<(), Refusal> {
        if self.authorized(request.headers().get(AUTHORIZATION)) {
            return Ok(());
        }
        Err(plain(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: send Authorization: Bearer <token>, the token of daemon.json in the state directory",
        )
        .with_header(WWW_AUTHENTICATE, "Bearer"))
    }

    /// The body, read within the size and time bounds.
    async fn read_body(
        &self,
        request: Request<Incoming>,
    ) -> Result<(hyper::http::request::Parts, Bytes), Refusal> {
        let (parts, body) = request.into_parts();
        let limited = Limited::new(body, self.bounds.body_bytes);
        let bytes = match tokio::time::timeout(self.bounds.body_time, limited.collect()).await {
            Err(_) => {
                return Err(plain(
                    StatusCode::REQUEST_TIMEOUT,
                    &format!(
                        "Request Timeout: the body was not sent within {} s",
                        self.bounds.body_time.as_secs()
                    ),
                ));
            }
            Ok(Err(err)) if err.is::<http_body_util::LengthLimitError>() => {
                return Err(plain(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!(
                        "Payload Too Large: the body exceeds {} bytes",
                        self.bounds.body_bytes
                    ),
                ));
            }
            Ok(Err(err)) => {
                return Err(plain(
                    StatusCode::BAD_REQUEST,
                    &format!("Bad Request: the body could not be read: {err}"),
                ));
            }
            Ok(Ok(collected)) => collected.to_bytes(),
        };
        Ok((parts, bytes))
    }

    /// `Bearer <token>`, compared in time independent of where it differs.
    fn authorized(&self, header: Option<&HeaderValue>) -> bool {
        let Some(presented) = header
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
        else {
            return false;
        };
        let (presented, expected) = (presented.trim().as_bytes(), self.token.as_bytes());
        presented.len() == expected.len()
            && presented
                .iter()
                .zip(expected)
                .fold(0u8, |diff, (a, b)| diff | (a ^ b))
                == 0
    }
}

/// `Ok` for a JSON-RPC 2.0 message a client may send; otherwise the JSON-RPC error: `-32700`
/// when the body is not JSON, `-32600` when it is JSON but no such message, with the
/// message's id when it has a readable one and `null` otherwise.
fn json_rpc(body: &[u8]) -> Result<(), Refusal> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|err| json_rpc_error(Value::Null, -32700, &format!("Parse error: {err}")))?;
    if ClientJsonRpcMessage::deserialize(&value).is_ok() {
        return Ok(());
    }
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    let detail = if value.is_array() {
        "Invalid Request: batches are not accepted; send one message per request"
    } else {
        "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
    };
    Err(json_rpc_error(id, -32600, detail))
}

fn json_rpc_error(id: Value, code: i64, message: &str) -> Refusal {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    Refusal {
        status: StatusCode::BAD_REQUEST,
        content_type: "application/json",
        body: body.to_string(),
        header: None,
    }
}

pub fn plain(status: StatusCode, text: &str) -> Refusal {
    Refusal {
        status,
        content_type: "text/plain; charset=utf-8",
        body: text.to_string(),
        header: None,
    }
}

/// A request turned away before it reaches the protocol.
#[derive(Debug)]
pub struct Refusal {
    status: StatusCode,
    content_type: &'static str,
    body: String,
    header: Option<(HeaderName, &'static str)>,
}

impl Refusal {
    fn with_header(self, name: HeaderName, value: &'static str) -> Self {
        Refusal {
            header: Some((name, value)),
            ..self
        }
    }

    pub fn into_answer(self) -> Answer {
        let mut answer = Response::builder()
            .status(self.status)
            .header(CONTENT_TYPE, self.content_type);
        if let Some((name, value)) = self.header {
            answer = answer.header(name, value);
        }
        answer
            .body(Full::new(Bytes::from(self.body)).boxed())
            .expect("a valid response")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(refusal: Refusal) -> Value {
        let bytes = refusal
            .into_answer()
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn malformed_messages_get_the_json_rpc_error_with_the_id_they_carry() {
        assert!(json_rpc(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
        let parse = json_rpc(b"{not json").unwrap_err();
        assert_eq!(parse.status, StatusCode::BAD_REQUEST);
        let parse = body(parse).await;
        assert_eq!(parse["id"], Value::Null);
        assert_eq!(parse["error"]["code"], -32700);
        let invalid =
            body(json_rpc(br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#).unwrap_err()).await;
        assert_eq!(
            (invalid["id"].clone(), invalid["error"]["code"].clone()),
            (json!(7), json!(-32600))
        );
        let batch =
            body(json_rpc(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#).unwrap_err()).await;
        assert_eq!(
            (batch["id"].clone(), batch["error"]["code"].clone()),
            (Value::Null, json!(-32600))
        );
    }

    #[test]
    fn only_the_exact_bearer_token_is_authorized() {
        let gate = Gate::new(
            "abc123".into(),
            Arc::new(LocalSessionManager::default()),
            Bounds {
                body_bytes: 1024,
                body_time: Duration::from_secs(1),
                sessions: 1,
            },
        );
        let header = |text: &'static str| HeaderValue::from_static(text);
        assert!(gate.authorized(Some(&header("Bearer abc123"))));
        for refused in [
            "Bearer abc124",
            "Bearer abc12",
            "Basic abc123",
            "abc123",
            "Bearer ",
        ] {
            assert!(!gate.authorized(Some(&header(refused))), "{refused}");
        }
        assert!(!gate.authorized(None));
    }
}
