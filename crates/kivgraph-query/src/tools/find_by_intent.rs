//! `find_by_intent`: which symbols a plain-language question likely names. A term index over
//! names, qualified names, kinds and paths — no prose, no embeddings — ranked by how rare each
//! matched term is. Every row is a candidate and says so in `match`.

use std::collections::{HashMap, HashSet};

use kivgraph_facts::EdgeKind;
use kivgraph_snapshot::{NodeRef, TERM_IN_NAME, terms};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::args::{PageArgs, ResponseFormat, View, trimmed};
use crate::cursor::QueryIdentity;
use crate::envelope::{Coverage, Page, hoist, to_map, to_value};
use crate::error::QueryError;
use crate::published::Published;

/// Candidates stop accumulating here: a broader question cannot be ranked well.
pub const CANDIDATE_BOUND: usize = 4000;
const MAX_INTENT: usize = 400;
const MAX_KEYWORDS: usize = 16;
const MAX_LIMIT: i64 = 50;
const DEFAULT_LIMIT: usize = 10;
const SORTING: &str = "intent-rank-v2";
/// A callee's term counts a quarter of the candidate's own name carrying it.
const CALLEE_CREDIT: f64 = 0.5;
/// The callees read per candidate: enough for a function's own work, bounded for the
/// dispatchers that call hundreds.
const MAX_CALLEES: usize = 64;

/// Test code, by the conventions of the five languages' ecosystems.
fn is_test_path(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    path.split('/').any(|segment| {
        matches!(
            segment,
            "test" | "tests" | "testdata" | "testing" | "__tests__" | "spec"
        )
    }) || file.starts_with("test_")
        || file.ends_with("_test.go")
        || file.ends_with("_test.py")
        || file.contains(".test.")
        || file.contains(".spec.")
}

/// Words of a question's grammar: they separate nothing, and are reported unmatched.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "do", "does", "for", "from", "how", "in",
    "into", "is", "it", "its", "of", "on", "or", "our", "that", "the", "their", "then", "this",
    "to", "we", "what", "when", "where", "which", "who", "why", "with",
];

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[schemars(transform = intent_page)]
pub struct FindByIntentArgs {
    /// The question, in plain language.
    #[schemars(required, length(max = 400))]
    pub intent: Option<String>,
    /// Words you would guess the code uses.
    #[schemars(length(max = 16))]
    pub keywords: Option<Vec<String>>,
    pub kind: Option<String>,
    pub repo: Option<String>,
    pub path_prefix: Option<String>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[schemars(extend("enum" = ["compact", "full", "files"], "default" = "compact"))]
    pub view: Option<String>,
}

/// Candidates come ten to a page, at most fifty.
fn intent_page(schema: &mut schemars::Schema) {
    crate::schema::limit(schema, DEFAULT_LIMIT as i64, MAX_LIMIT);
}

pub fn find_by_intent(
    published: &Published,
    args: &FindByIntentArgs,
) -> Result<(Page, View), QueryError> {
    let intent = args
        .intent
        .as_deref()
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .ok_or_else(|| QueryError::invalid("intent is required"))?;
    if intent.chars().count() > MAX_INTENT {
        return Err(QueryError::invalid(format!(
            "intent is longer than {MAX_INTENT} characters: ask the question, and pass the code's vocabulary as keywords"
        )));
    }
    let keywords = args.keywords.clone().unwrap_or_default();
    if keywords.len() > MAX_KEYWORDS {
        return Err(QueryError::invalid(format!(
            "keywords holds at most {MAX_KEYWORDS} entries, got {}",
            keywords.len()
        )));
    }
    if keywords.iter().any(|k| k.trim().is_empty()) {
        return Err(QueryError::invalid(
            "keywords must not contain an empty or whitespace-only entry",
        ));
    }
    let kind = trimmed("kind", args.kind.as_deref())?;
    let repo = trimmed("repo", args.repo.as_deref())?;
    let path_prefix = trimmed("path_prefix", args.path_prefix.as_deref())?;
    let view = View::parse(args.view.as_deref(), true)?;
    let format = ResponseFormat::parse(args.page.response_format.as_deref())?;
    let limit = match args.page.limit {
        None => DEFAULT_LIMIT,
        Some(n) if (1..=MAX_LIMIT).contains(&n) => n as usize,
        Some(n) => {
            return Err(QueryError::invalid(format!(
                "limit must be between 1 and {MAX_LIMIT}, got {n}"
            )));
        }
    };
    if let Some(repo) = repo
        && published.snapshot.repository_named(repo).is_none()
    {
        return Err(QueryError::repository_not_found(repo));
    }
    let keyword_text = keywords.join("\u{1f}");
    let identity = QueryIdentity::new(
        "find_by_intent",
        SORTING,
        &[
            ("intent", intent),
            ("keywords", &keyword_text),
            ("kind", kind.unwrap_or("")),
            ("repo", repo.unwrap_or("")),
            ("path_prefix", path_prefix.unwrap_or("")),
        ],
    );
    let offset = match &args.page.cursor {
        Some(cursor) => identity.resume(cursor, published.snapshot_id())?,
        None => 0,
    };

    let snapshot = &published.snapshot;
    let (mut question, grammar): (Vec<String>, Vec<String>) = terms(intent)
        .into_iter()
        .partition(|t| !STOPWORDS.contains(&t.as_str()));
    for keyword in &keywords {
        for term in terms(keyword) {
            if !question.contains(&term) {
                question.push(term);
            }
        }
    }
    let postings: Vec<(&String, Option<Vec<u32>>)> = question
        .iter()
        .map(|term| (term, snapshot.term_postings(term)))
        .collect();
    // Grammar words and words no name, kind or path spells: both matched nothing.
    let unmatched: Vec<&String> = grammar
        .iter()
        .chain(
            postings
                .iter()
                .filter(|(_, found)| found.is_none())
                .map(|(term, _)| *term),
        )
        .collect();
    let considered = |position: u32| {
        let Some(symbol) = snapshot.symbol(position as usize) else {
            return false;
        };
        let file = symbol.file();
        kind.is_none_or(|k| symbol.kind().as_str() == k)
            && repo.is_none_or(|r| file.repository().name() == r)
            && path_prefix.is_none_or(|p| file.path().starts_with(p))
    };
    // Rarest terms first; candidates stop accumulating at the bound, scores do not.
    let total_symbols = snapshot.symbol_count().max(1) as f64;
    let mut matched: Vec<(&String, Vec<u32>)> = postings
        .into_iter()
        .filter_map(|(term, found)| found.map(|p| (term, p)))
        .collect();
    matched.sort_by_key(|(_, postings)| postings.len());
    let mut scores: HashMap<u32, (f64, u32)> = HashMap::new();
    let mut any_term_matched = false;
    for (_, postings) in &matched {
        let rarity = (total_symbols / postings.len() as f64).ln() + 1.0;
        for posting in postings.iter().copied() {
            any_term_matched = true;
            // A term the symbol's own name carries says more than one its path carries.
            let weight = if posting & TERM_IN_NAME != 0 {
                2.0 * rarity
            } else {
                rarity
            };
            let position = posting & !TERM_IN_NAME;
            if !considered(position) {
                continue;
            }
            let room = scores.len() < CANDIDATE_BOUND;
            match scores.get_mut(&position) {
                Some(entry) => {
                    entry.0 += weight;
                    entry.1 += 1;
                }
                None if room => {
                    scores.insert(position, (weight, 1));
                }
                None => {}
            }
        }
    }
    // What a candidate calls counts too: a function whose callees' names carry the
    // question's terms (that its own name does not) does the thing through them.
    let mut named_by: HashMap<u32, Vec<(usize, f64)>> = HashMap::new();
    for (term, (_, postings)) in matched.iter().enumerate() {
        let rarity = (total_symbols / postings.len() as f64).ln() + 1.0;
        for posting in postings.iter().filter(|p| *p & TERM_IN_NAME != 0) {
            named_by
                .entry(posting & !TERM_IN_NAME)
                .or_default()
                .push((term, rarity));
        }
    }
    let mut through_calls: HashSet<u32> = HashSet::new();
    for (position, entry) in scores.iter_mut() {
        let own: HashSet<usize> = named_by
            .get(position)
            .map(|terms| terms.iter().map(|(t, _)| *t).collect())
            .unwrap_or_default();
        let mut credited: HashSet<usize> = HashSet::new();
        let mut credit = 0.0;
        let callees = snapshot
            .outgoing(*position as usize)
            .filter(|e| e.kind() == EdgeKind::CallsDirect)
            .take(MAX_CALLEES);
        for edge in callees {
            let NodeRef::Symbol(callee) = edge.target() else {
                continue;
            };
            for (term, rarity) in named_by.get(&(callee as u32)).into_iter().flatten() {
                if !own.contains(term) && credited.insert(*term) {
                    credit += CALLEE_CREDIT * rarity;
                }
            }
        }
        if credit > 0.0 {
            entry.0 += credit;
            through_calls.insert(*position);
        }
    }
    // Tests and generated bindings name everything; unless the question is about tests, code
    // that does the thing outranks code that exercises it.
    let asks_for_tests = question.iter().any(|t| t.starts_with("test"));
    let mut ranked: Vec<(u32, f64, u32, String)> = scores
        .into_iter()
        .map(|(p, (score, count))| {
            let symbol = snapshot.symbol(p as usize);
            let path = symbol.map(|s| s.file().path()).unwrap_or("");
            let discount = if !asks_for_tests && is_test_path(path) {
                0.5
            } else {
                1.0
            };
            (
                p,
                score * discount,
                count,
                symbol.map(|s| s.key().to_string()).unwrap_or_default(),
            )
        })
        .collect();
    // Ties break on the stable key, so every page of one question sees one sequence.
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.3.cmp(&b.3)));

    let guidance_truncated = |returned: usize, total: usize| {
        format!(
            "showing {returned} of {total}; narrow with keywords with the identifier words you would guess this code uses, or repo, kind or path_prefix, or pass the cursor for the next page"
        )
    };
    let empty_guidance = if !any_term_matched {
        Some("no word of this question appears in any name, qualified name, kind or path of the graph; the index holds no prose, so rephrase with the vocabulary the code would use, or pass keywords".to_string())
    } else if ranked.is_empty() {
        Some("the terms matched symbols, but every one of them was excluded by repo, kind or path_prefix; widen the narrowing".to_string())
    } else {
        None
    };
    let (total, rows, returned, next, page_files) = if view == View::Files {
        // Files ranked by the sum of their three best candidates (a file that answers the
        // question usually declares several of its terms); `limit` and `total` count files.
        let mut by_file: HashMap<usize, (usize, Vec<f64>, usize)> = HashMap::new();
        for (order, (position, score, ..)) in ranked.iter().enumerate() {
            let file = snapshot
                .symbol(*position as usize)
                .map(|s| s.file().index)
                .unwrap_or(0);
            let entry = by_file.entry(file).or_insert((order, Vec::new(), 0));
            entry.2 += 1;
            if entry.1.len() < 3 {
                entry.1.push(*score);
            }
        }
        // A file declaring thousands of symbols (generated bindings) matches every question a
        // little; its score is damped by how much it declares.
        let damping = |file: usize| {
            let declared = snapshot
                .file(file)
                .map(|f| f.symbols().count())
                .unwrap_or(1) as f64;
            1.0 + 0.5 * (1.0_f64 + declared / 200.0).ln()
        };
        let mut files: Vec<(usize, f64, usize, usize)> = by_file
            .into_iter()
            .map(|(file, (first, best, count))| {
                (file, best.iter().sum::<f64>() / damping(file), first, count)
            })
            .collect();
        files.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
        let files: Vec<(usize, usize)> = files
            .into_iter()
            .map(|(file, _, _, count)| (file, count))
            .collect();
        let page: Vec<FileRow> = files
            .iter()
            .skip(offset)
            .take(limit)
            .filter_map(|(file, count)| {
                snapshot.file(*file).map(|f| FileRow {
                    file: f.path(),
                    repo: f.repository().name(),
                    symbols: *count,
                })
            })
            .collect();
        let returned = page.len();
        let page_files = files
            .iter()
            .skip(offset)
            .take(limit)
            .map(|(f, _)| *f)
            .collect();
        (
            files.len(),
            to_map(&Files { files: page }),
            returned,
            offset + returned < files.len(),
            page_files,
        )
    } else {
        let page: Vec<&(u32, f64, u32, String)> = ranked.iter().skip(offset).take(limit).collect();
        let page_files = page
            .iter()
            .filter_map(|(position, ..)| Some(snapshot.symbol(*position as usize)?.file().index))
            .collect();
        let mut rows: Vec<Map<String, Value>> = page
            .iter()
            .filter_map(|(position, _, count, key)| {
                let symbol = snapshot.symbol(*position as usize)?;
                let span = symbol.span();
                Some(to_map(&SymbolRow {
                    qualified_name: symbol.qualified_name(),
                    kind: symbol.kind().as_str(),
                    repository: symbol.file().repository().name(),
                    file_path: symbol.file().path(),
                    start_line: span.start_line,
                    end_line: span.end_line,
                    terms: *count,
                    by: if through_calls.contains(position) {
                        "lexical+calls"
                    } else {
                        "lexical"
                    },
                    stable_key: (view == View::Full && format == ResponseFormat::Detailed)
                        .then_some(key.as_str()),
                }))
            })
            .collect();
        let returned = rows.len();
        // The compact view states once what every row agrees on.
        let mut results = if view == View::Compact {
            hoist(&mut rows, &["kind", "repository", "match"])
        } else {
            Map::new()
        };
        results.insert("symbols".into(), to_value(&rows));
        (
            ranked.len(),
            results,
            returned,
            offset + returned < ranked.len(),
            page_files,
        )
    };
    let next_cursor = next.then(|| identity.cursor(published.snapshot_id(), offset + returned));
    let guidance = empty_guidance.or_else(|| {
        next_cursor
            .as_ref()
            .map(|_| guidance_truncated(returned, total))
    });
    let page = Page {
        total,
        returned,
        next_cursor,
        coverage: Coverage::default(),
        guidance,
        completeness: None,
        results: to_value(&IntentResults {
            unmatched_terms: &unmatched,
            rows,
        }),
        files: page_files,
    };
    Ok((page, view))
}

/// The answer: the terms no name carries first, then the rows.
#[derive(Serialize)]
struct IntentResults<'a> {
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    unmatched_terms: &'a [&'a String],
    #[serde(flatten)]
    rows: Map<String, Value>,
}

/// A candidate declaration.
#[derive(Serialize)]
struct SymbolRow<'a> {
    qualified_name: &'a str,
    kind: &'static str,
    repository: &'a str,
    file_path: &'a str,
    start_line: u32,
    end_line: u32,
    /// How many of the question's terms it carries.
    terms: u32,
    /// Whether it matched by its own words or through its callees' too.
    #[serde(rename = "match")]
    by: &'static str,
    /// Full view, detailed only.
    #[serde(skip_serializing_if = "Option::is_none")]
    stable_key: Option<&'a str>,
}

/// The files view: candidate files, ranked.
#[derive(Serialize)]
struct Files<'a> {
    files: Vec<FileRow<'a>>,
}

#[derive(Serialize)]
struct FileRow<'a> {
    file: &'a str,
    repo: &'a str,
    /// How many candidates it declares.
    symbols: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_stemmed_terms() {
        assert_eq!(terms("parseHTTPRequest"), vec!["pars", "http", "request"]);
        assert_eq!(
            terms("retry_failed_requests"),
            vec!["retry", "fail", "request"]
        );
        assert_eq!(
            terms("src/cache/ttl_store.rs"),
            vec!["src", "cach", "ttl", "stor", "rs"]
        );
        assert_eq!(
            terms("retries caching Base64"),
            vec!["retry", "cach", "bas"]
        );
        assert_eq!(terms("storing stores"), vec!["stor"]);
    }

    #[test]
    fn test_code_is_recognised_by_each_ecosystem_convention() {
        for path in [
            "pkg/server_test.go",
            "tests/test_client.py",
            "src/__tests__/cache.ts",
            "lib/router.spec.ts",
            "crate/tests/smoke.rs",
            "web/button.test.tsx",
        ] {
            assert!(is_test_path(path), "{path}");
        }
        for path in [
            "pkg/server.go",
            "src/contest.py",
            "lib/testament.ts",
            "src/spectrum.rs",
        ] {
            assert!(!is_test_path(path), "{path}");
        }
    }
}
