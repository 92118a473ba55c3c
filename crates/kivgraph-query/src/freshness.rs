//! The envelope's `freshness`: which files of the answer changed on disk after its generation
//! read them, and what a caller's wait for the watcher (`fresh_within_ms`) came to. Absent
//! when there is nothing to say: every file as read, and no wait asked.

use serde::Serialize;

use crate::staleness::StaleFile;

/// How a caller's wait for the watcher ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitOutcome {
    /// The watcher had taken in every change it saw and published what the graph reads.
    Settled,
    /// The watcher was still busy when the bound ran out.
    Pending,
    /// No watcher runs for this state directory: nothing publishes a save by itself.
    NoWatcher,
}

/// A caller's wait, as the server carried it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    pub asked_ms: u64,
    pub waited_ms: u64,
    pub outcome: WaitOutcome,
}

#[derive(Serialize)]
pub(crate) struct Freshness<'a> {
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    stale: Vec<StaleFile<'a>>,
    /// Repositories of the answer whose saved files this generation holds with the syntax
    /// layer: their analyzers' layer follows in a later generation.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    exact_layer_follows: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    waited_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    watcher: Option<WaitOutcome>,
    detail: String,
}

impl<'a> Freshness<'a> {
    pub(crate) fn of(
        stale: Vec<StaleFile<'a>>,
        exact_layer_follows: Vec<&'a str>,
        wait: Option<&Wait>,
    ) -> Option<Self> {
        if stale.is_empty() && exact_layer_follows.is_empty() && wait.is_none() {
            return None;
        }
        let mut detail = Vec::new();
        if let Some(wait) = wait {
            detail.push(match wait.outcome {
                WaitOutcome::Settled => format!(
                    "the watcher had published every change it saw ({} ms waited)",
                    wait.waited_ms
                ),
                WaitOutcome::Pending => format!(
                    "the watcher was still taking in changes after {} ms: this answer may predate the latest saves; ask again",
                    wait.asked_ms
                ),
                WaitOutcome::NoWatcher => "no watcher runs for this state directory, so nothing publishes a save by itself: start kivgraph daemon or kivgraph watch, or run kivgraph index --full".to_string(),
            });
        }
        if !stale.is_empty() {
            detail.push(format!(
                "{} file(s) of this answer changed on disk after the generation read them: rows from them may name lines or declarations that moved{}",
                stale.len(),
                if wait.is_some() {
                    ""
                } else {
                    "; ask again with fresh_within_ms to wait for the watcher"
                }
            ));
        }
        if !exact_layer_follows.is_empty() {
            detail.push(format!(
                "{} changed and this generation holds their saved files with the syntax layer (CANDIDATE where an analyzer would say EXACT); the analyzers' layer follows in a later generation without another save: ask again for it",
                exact_layer_follows.join(", ")
            ));
        }
        Some(Freshness {
            stale,
            exact_layer_follows,
            waited_ms: wait.map(|w| w.waited_ms),
            watcher: wait.map(|w| w.outcome),
            detail: detail.join("; "),
        })
    }
}

#[cfg(test)]
mod tests {
    use kivgraph_store::AnalyzerState;

    use crate::args::PageLimits;
    use crate::testing::{facts, published, rendered};
    use crate::{FindSymbolArgs, TraceDependenciesArgs, find_symbol, trace_dependencies};

    /// A watcher published `core`'s save with the syntax layer: an answer reaching `core`
    /// says its analyzers' layer follows; one about `app` alone says nothing.
    #[test]
    fn an_answer_reaching_a_repository_owed_its_analyzers_layer_says_it_follows() {
        let mut published = published(&facts());
        for repository in &mut published.manifest.repositories {
            repository.analyzers = vec![AnalyzerState {
                language: "go".into(),
                deferred: repository.name == "core",
                ..AnalyzerState::default()
            }];
        }
        let trace: TraceDependenciesArgs = serde_json::from_value(
            serde_json::json!({"qualified_name": "main", "repository": "app"}),
        )
        .unwrap();
        let reaching_core = rendered(
            &published,
            trace_dependencies(&published, &trace, &PageLimits::default(), None),
        );
        assert_eq!(
            reaching_core["freshness"]["exact_layer_follows"],
            serde_json::json!(["core"]),
            "{reaching_core}"
        );
        assert!(
            reaching_core["freshness"]["detail"]
                .as_str()
                .unwrap()
                .starts_with("core changed and this generation holds"),
            "{reaching_core}"
        );
        let main: FindSymbolArgs =
            serde_json::from_value(serde_json::json!({"name": "main"})).unwrap();
        let reaching_app = rendered(
            &published,
            find_symbol(&published, &main, &PageLimits::default()),
        );
        assert!(reaching_app.get("freshness").is_none(), "{reaching_app}");
    }
}
