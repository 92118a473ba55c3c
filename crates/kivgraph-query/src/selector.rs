//! Naming one symbol: a `stable_key`, or `repository` + `path` + `qualified_name`, exactly one.

use kivgraph_facts::StableKey;
use kivgraph_snapshot::SymbolView;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::args::{relative_path, trimmed};
use crate::error::{ErrorCode, QueryError};
use crate::published::Published;

/// The selector fields as a tool receives them.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct SelectorArgs {
    /// The durable key of one symbol. Exclusive with qualified_name.
    pub stable_key: Option<String>,
    /// Narrows qualified_name to one repository.
    pub repository: Option<String>,
    /// Repository-relative file or directory; requires repository.
    pub path: Option<String>,
    /// As every row returns it, e.g. Type.Method or module::Type::method.
    pub qualified_name: Option<String>,
}

/// A validated selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Key(StableKey),
    Name {
        qualified_name: String,
        repository: Option<String>,
        path: Option<String>,
    },
}

impl SelectorArgs {
    pub fn parse(&self) -> Result<Selector, QueryError> {
        let stable_key = trimmed("stable_key", self.stable_key.as_deref())?;
        let qualified_name = trimmed("qualified_name", self.qualified_name.as_deref())?;
        let repository = trimmed("repository", self.repository.as_deref())?;
        trimmed("path", self.path.as_deref())?;
        match (stable_key, qualified_name) {
            (Some(_), Some(_)) => Err(QueryError::invalid(
                "pass either stable_key or qualified_name, not both",
            )),
            (Some(_), None) if repository.is_some() || self.path.is_some() => {
                Err(QueryError::invalid(
                    "repository and path narrow a qualified_name; a stable_key already names one symbol",
                ))
            }
            (Some(key), None) => StableKey::parse(key).map(Selector::Key).map_err(|_| {
                QueryError::invalid(format!(
                    "stable_key {key:?} is not a stable key (52 characters of A-Z and 2-7)"
                ))
            }),
            (None, None) => Err(QueryError::invalid(
                "one of stable_key or qualified_name is required",
            )),
            (None, Some(qualified_name)) => {
                if self.path.is_some() && repository.is_none() {
                    return Err(QueryError::invalid(
                        "path is repository-relative, so it requires repository",
                    ));
                }
                let path = relative_path("path", self.path.as_deref())?;
                Ok(Selector::Name {
                    qualified_name: qualified_name.to_string(),
                    repository: repository.map(str::to_string),
                    path: path.map(str::to_string),
                })
            }
        }
    }
}

/// Whether `file` is `path` or lies below it.
pub fn under_path(file: &str, path: &str) -> bool {
    file == path
        || file
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn location(symbol: &SymbolView) -> String {
    let span = symbol.span();
    format!(
        "{} {}:{}-{}",
        symbol.file().repository().name(),
        symbol.file().path(),
        span.start_line,
        span.end_line
    )
}

impl Selector {
    /// The one symbol this selector names in `published`.
    pub fn resolve<'a>(&self, published: &'a Published) -> Result<SymbolView<'a>, QueryError> {
        let snapshot = &published.snapshot;
        let (qualified_name, repository, path) = match self {
            Selector::Key(key) => {
                return snapshot.symbol_by_key(key).ok_or_else(|| {
                    QueryError::new(
                        ErrorCode::SymbolNotFound,
                        format!("stable key \"{key}\" was not found"),
                    )
                });
            }
            Selector::Name {
                qualified_name,
                repository,
                path,
            } => (qualified_name, repository.as_deref(), path.as_deref()),
        };
        if let Some(repository) = repository
            && snapshot.repository_named(repository).is_none()
        {
            return Err(QueryError::repository_not_found(repository));
        }
        let mut candidates: Vec<SymbolView> = snapshot
            .symbols_qualified(qualified_name)
            .into_iter()
            .filter(|s| repository.is_none_or(|r| s.file().repository().name() == r))
            .filter(|s| path.is_none_or(|p| under_path(s.file().path(), p)))
            .collect();
        candidates.sort_by(|a, b| {
            (
                a.file().repository().name(),
                a.file().path(),
                a.span().start_line,
            )
                .cmp(&(
                    b.file().repository().name(),
                    b.file().path(),
                    b.span().start_line,
                ))
        });
        match candidates.as_slice() {
            [] => {
                let message = match (repository, path) {
                    (None, _) => format!("qualified name {qualified_name:?} was not found"),
                    (Some(repository), None) => format!(
                        "qualified name {qualified_name:?} was not found under {repository}; call it without repository and path to search the whole graph"
                    ),
                    (Some(repository), Some(path)) => format!(
                        "qualified name {qualified_name:?} was not found under {repository}:{path}; call it without repository and path to search the whole graph"
                    ),
                };
                Err(QueryError::new(ErrorCode::SymbolNotFound, message))
            }
            [one] => Ok(*one),
            many => {
                let first = &many[0];
                let same_file = many.iter().all(|s| s.file().index == first.file().index);
                let message = if same_file || (repository.is_some() && path.is_some()) {
                    let keys: Vec<String> = many.iter().map(|s| s.key().to_string()).collect();
                    format!(
                        "qualified name {qualified_name:?} names {} symbols in {} {}, so only a stable_key separates them: {}",
                        many.len(),
                        first.file().repository().name(),
                        path.unwrap_or(first.file().path()),
                        keys.join(", ")
                    )
                } else {
                    let locations: Vec<String> = many.iter().map(location).collect();
                    format!(
                        "qualified name {qualified_name:?} names {} symbols; narrow with repository and path: {}",
                        many.len(),
                        locations.join(", ")
                    )
                };
                Err(QueryError::new(ErrorCode::AmbiguousSymbol, message))
            }
        }
    }
}

/// The one declaration named `name` (unqualified), narrowed by `repository` and `path`: a
/// reference question costs one call instead of a lookup first. Several are refused with
/// their `repository:path:line` triples; derived providers (`rust:`) count only when
/// `repository` names one.
pub fn resolve_name<'a>(
    published: &'a Published,
    name: &str,
    repository: Option<&str>,
    path: Option<&str>,
) -> Result<SymbolView<'a>, QueryError> {
    let snapshot = &published.snapshot;
    if let Some(repository) = repository
        && snapshot.repository_named(repository).is_none()
    {
        return Err(QueryError::repository_not_found(repository));
    }
    let mut candidates: Vec<SymbolView> = snapshot
        .symbols_named(name)
        .into_iter()
        .filter(|s| {
            let owner = s.file().repository().name();
            match repository {
                Some(r) => owner == r,
                None => !kivgraph_facts::is_derived(owner),
            }
        })
        .filter(|s| path.is_none_or(|p| under_path(s.file().path(), p)))
        .collect();
    candidates.sort_by_key(|s| {
        (
            s.file().repository().name(),
            s.file().path(),
            s.span().start_line,
        )
    });
    match candidates.as_slice() {
        [] => Err(QueryError::new(
            ErrorCode::SymbolNotFound,
            format!(
                "no declaration named {name:?}{}; a name the graph knows only as an import or a re-export is not a declaration: name the repository and path that declares it",
                match (repository, path) {
                    (Some(r), Some(p)) => format!(" under {r}:{p}"),
                    (Some(r), None) => format!(" in {r}"),
                    _ => String::new(),
                }
            ),
        )),
        [one] => Ok(*one),
        many => {
            let triples: Vec<String> = many
                .iter()
                .map(|s| {
                    format!(
                        "{}:{}:{}",
                        s.file().repository().name(),
                        s.file().path(),
                        s.span().start_line
                    )
                })
                .collect();
            Err(QueryError::new(
                ErrorCode::AmbiguousSymbol,
                format!(
                    "name {name:?} declares {} symbols; repeat with the repository and path of the one you mean: {}",
                    many.len(),
                    triples.join(", ")
                ),
            ))
        }
    }
}
