//! `fresh_within_ms`: a caller that just saved files asks a tool to wait, bounded, until the
//! watcher has published every change it was sent, so an edit-then-ask loop never reads the
//! world before its own edit. The watcher says in `watch.json` whether changes are queued
//! (`busy_since_unix_ms`); a save reaches it within milliseconds, so the first look waits
//! that long. The caller has finished saving when it asks, so the wait files a flush request
//! (`kivgraph_store::flush`): the watcher closes its batch without waiting out its debounce,
//! and answers the request once the pass holding every earlier save has published.

use std::time::{Duration, Instant};

use kivgraph_query::{QueryError, Wait, WaitOutcome};
use kivgraph_store::{FlushRequest, GenerationStore};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The argument, as every graph tool's schema declares it.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FreshnessArgs {
    /// Milliseconds to wait, at most, for the watcher (kivgraph daemon or kivgraph watch) to
    /// publish every change it has been sent — your own saves — before answering. The
    /// answer's freshness says how the wait ended.
    #[schemars(range(max = 30000))]
    pub fresh_within_ms: Option<u64>,
}

const ARGUMENT: &str = "fresh_within_ms";

/// The longest wait a caller may ask for.
pub const MAXIMUM_WAIT_MS: u64 = 30_000;

/// How long a save takes to reach the watcher: the watcher must have been seen quiet for this
/// long, without a break, before it is taken to have published every save. (A pass of its own
/// can end just before a save made during it reaches it: quiet at that instant proves
/// nothing.)
const DELIVERY: Duration = Duration::from_millis(25);

const POLL: Duration = Duration::from_millis(10);

/// Removes the argument from `arguments`, refusing a value that is not a whole number of
/// milliseconds within the bound.
pub fn take(arguments: &mut Map<String, Value>) -> Result<Option<Duration>, QueryError> {
    let Some(value) = arguments.remove(ARGUMENT) else {
        return Ok(None);
    };
    let refusal = || {
        QueryError::invalid(format!(
            "{ARGUMENT} must be a whole number of milliseconds from 0 to {MAXIMUM_WAIT_MS}, got {value}"
        ))
    };
    let parsed: FreshnessArgs = serde_json::from_value(Value::Object(Map::from_iter([(
        ARGUMENT.into(),
        value.clone(),
    )])))
    .map_err(|_| refusal())?;
    match parsed.fresh_within_ms {
        Some(ms) if ms <= MAXIMUM_WAIT_MS => Ok(Some(Duration::from_millis(ms))),
        _ => Err(refusal()),
    }
}

/// Waits up to `bound` for the watcher of `store` to have nothing queued.
pub async fn wait(store: &GenerationStore, bound: Duration) -> Wait {
    let started = Instant::now();
    let mut quiet_since: Option<Instant> = None;
    let mut request: Option<Option<FlushRequest>> = None;
    let outcome = loop {
        let Some(status) = store.watcher_status().filter(|s| s.running()) else {
            break WaitOutcome::NoWatcher;
        };
        // Without a request (it could not be filed), the watcher's quiet still settles it.
        let request = request.get_or_insert_with(|| store.request_flush().ok());
        if request.as_ref().is_some_and(FlushRequest::answered) {
            break WaitOutcome::Settled;
        }
        let elapsed = started.elapsed();
        if status.busy_since_unix_ms.is_some() {
            quiet_since = None;
        } else if quiet_since.get_or_insert_with(Instant::now).elapsed() >= DELIVERY.min(bound) {
            break WaitOutcome::Settled;
        }
        if elapsed >= bound {
            break WaitOutcome::Pending;
        }
        tokio::time::sleep(POLL.min(bound - elapsed)).await;
    };
    Wait {
        asked_ms: bound.as_millis() as u64,
        waited_ms: started.elapsed().as_millis() as u64,
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use kivgraph_store::{ProcessRecord, WatcherStatus};

    use super::*;

    fn status(busy: bool) -> WatcherStatus {
        WatcherStatus {
            process: ProcessRecord::this_process("watch"),
            repositories: Vec::new(),
            batches: Vec::new(),
            busy_since_unix_ms: busy.then_some(1),
        }
    }

    #[tokio::test]
    async fn a_wait_ends_when_the_watcher_has_nothing_queued_or_at_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let store = GenerationStore::new(dir.path());
        let bound = Duration::from_millis(200);
        assert_eq!(wait(&store, bound).await.outcome, WaitOutcome::NoWatcher);
        store.write_watcher_status(&status(true)).unwrap();
        let pending = wait(&store, bound).await;
        assert_eq!(pending.outcome, WaitOutcome::Pending);
        assert!(pending.waited_ms >= 200, "{pending:?}");
        // Settles as soon as the watcher says its queue is empty.
        let writer = {
            let store = store.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(60)).await;
                store.write_watcher_status(&status(false)).unwrap();
            })
        };
        let settled = wait(&store, Duration::from_secs(5)).await;
        writer.await.unwrap();
        assert_eq!(settled.outcome, WaitOutcome::Settled);
        assert!((60..1000).contains(&settled.waited_ms), "{settled:?}");
    }

    #[tokio::test]
    async fn a_busy_watcher_that_answers_the_flush_request_settles_the_wait_and_none_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let store = GenerationStore::new(dir.path());
        store.write_watcher_status(&status(true)).unwrap();
        // The watcher's part: the pass holding the caller's saves ends, the request goes.
        let watcher = {
            let flush = store.flush_directory();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    if let Some(Ok(request)) =
                        std::fs::read_dir(&flush).ok().and_then(|mut d| d.next())
                    {
                        std::fs::remove_file(request.path()).unwrap();
                        return;
                    }
                }
            })
        };
        let settled = wait(&store, Duration::from_secs(5)).await;
        watcher.await.unwrap();
        assert_eq!(settled.outcome, WaitOutcome::Settled);
        // Still busy with other saves: only the request's answer settled it.
        assert!(store.watcher_status().unwrap().busy_since_unix_ms.is_some());
        // A wait that ends otherwise withdraws its request.
        let pending = wait(&store, Duration::from_millis(50)).await;
        assert_eq!(pending.outcome, WaitOutcome::Pending);
        assert_eq!(
            std::fs::read_dir(store.flush_directory()).unwrap().count(),
            0
        );
    }

    #[test]
    fn the_argument_is_a_bounded_whole_number() {
        let mut arguments = Map::new();
        assert_eq!(take(&mut arguments).unwrap(), None);
        arguments.insert(ARGUMENT.into(), Value::from(500));
        assert_eq!(
            take(&mut arguments).unwrap(),
            Some(Duration::from_millis(500))
        );
        assert!(arguments.is_empty());
        for refused in [
            Value::from(30_001),
            Value::from(-1),
            Value::from("5"),
            Value::from(1.5),
        ] {
            arguments.insert(ARGUMENT.into(), refused);
            assert!(take(&mut arguments).is_err());
        }
    }
}
