//! `index_project`: register projects and rebuild once, after explicit approval. The pass runs
//! as a child `kivgraph index --full --json`; its progress is forwarded and its failure leaves
//! the previous registry and generation in place.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use kivgraph_config::{
    LanguageToken, LoadedConfig, Registry, RepositoryEntry, expand_tilde, validate_repository_name,
};
use kivgraph_query::{ErrorCode, QueryError};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProjectArg {
    /// Repository identifier (no '.', '..' or path separators).
    name: String,
    /// Repository directory: absolute, ~-prefixed, or relative to the server's working
    /// directory.
    path: String,
    /// go, typescript, javascript, ts, js, rust, rs, python, py
    languages: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct IndexProjectArgs {
    /// Every project to register and index, in one call.
    projects: Option<Vec<ProjectArg>>,
    name: Option<String>,
    path: Option<String>,
    languages: Option<Vec<String>>,
    /// Set true only after the user approved this operation.
    confirmed: Option<bool>,
}

pub const DESCRIPTION: &str = "Registers projects and rebuilds the whole graph once, after explicit user approval (confirmed: true). Pass every project in one call: a rebuild costs the whole corpus. Never writes inside the projects.";

fn languages(entry: &str, raw: &[String]) -> Result<Vec<LanguageToken>, QueryError> {
    let mut seen: Vec<String> = Vec::new();
    let mut tokens = Vec::new();
    for value in raw {
        let value = value.trim().to_lowercase();
        if value.is_empty() {
            return Err(QueryError::invalid(format!(
                "project {entry:?}: languages must not contain an empty string"
            )));
        }
        if seen.contains(&value) {
            return Err(QueryError::invalid(format!(
                "project {entry:?}: language {value:?} is listed twice"
            )));
        }
        let token = match LanguageToken::parse(&value) {
            Some(token) if token != LanguageToken::Dart => token,
            _ => {
                return Err(QueryError::invalid(format!(
                    "project {entry:?}: unknown language {value:?}; accepted: go, typescript, javascript, ts, js, rust, rs, python, py"
                )));
            }
        };
        seen.push(value);
        if !tokens.contains(&token) {
            tokens.push(token);
        }
    }
    if tokens.is_empty() {
        return Err(QueryError::invalid(format!(
            "project {entry:?}: languages must name at least one language"
        )));
    }
    Ok(tokens)
}

/// The validated batch and whether the call carries `confirmed: true`. Nothing is written.
pub fn parse(arguments: Map<String, Value>) -> Result<(Vec<RepositoryEntry>, bool), QueryError> {
    let args: IndexProjectArgs = serde_json::from_value(Value::Object(arguments))
        .map_err(|e| QueryError::invalid(format!("arguments: {e}")))?;
    let single = args.name.is_some() || args.path.is_some() || args.languages.is_some();
    let raw = match (args.projects, single) {
        (Some(_), true) => {
            return Err(QueryError::invalid(
                "pass either projects or name, path and languages, not both",
            ));
        }
        (None, false) => {
            return Err(QueryError::invalid(
                "projects is required (or name, path and languages for a single project)",
            ));
        }
        (Some(projects), false) if projects.is_empty() => {
            return Err(QueryError::invalid("projects must not be empty"));
        }
        (Some(projects), false) => projects,
        (None, true) => match (args.name, args.path, args.languages) {
            (Some(name), Some(path), Some(languages)) => vec![ProjectArg {
                name,
                path,
                languages,
            }],
            _ => {
                return Err(QueryError::invalid(
                    "a single project needs name, path and languages",
                ));
            }
        },
    };
    let mut entries: Vec<RepositoryEntry> = Vec::new();
    for project in raw {
        validate_repository_name(&project.name).map_err(|e| QueryError::invalid(e.to_string()))?;
        if entries.iter().any(|e| e.name == project.name) {
            return Err(QueryError::invalid(format!(
                "project {:?} appears twice in this call",
                project.name
            )));
        }
        let expanded = expand_tilde(project.path.trim());
        let path = std::fs::canonicalize(&expanded)
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| {
                QueryError::invalid(format!(
                    "project {:?}: {} is not an existing directory",
                    project.name,
                    expanded.display()
                ))
            })?;
        let languages = languages(&project.name, &project.languages)?;
        entries.push(RepositoryEntry {
            name: project.name,
            path,
            languages,
            manifests: vec![],
            roots: vec![],
            exclusions: vec![],
        });
    }
    Ok((entries, args.confirmed == Some(true)))
}

/// Merges `entries` into `registry`: the same directory is reindexed (its exclusions kept),
/// a name held by another directory is a conflict.
fn register(registry: &mut Registry, entries: Vec<RepositoryEntry>) -> Result<bool, QueryError> {
    let mut changed = false;
    for mut entry in entries {
        match registry.get(&entry.name) {
            Some(existing) if existing.path != entry.path => {
                return Err(QueryError::invalid(format!(
                    "project {:?} is already registered at {:?}: choose another name or remove that entry",
                    entry.name,
                    existing.path.display().to_string()
                )));
            }
            Some(existing) if existing.languages == entry.languages => {}
            Some(existing) => {
                entry.exclusions = existing.exclusions.clone();
                entry.manifests = existing.manifests.clone();
                entry.roots = existing.roots.clone();
                registry.upsert(entry);
                changed = true;
            }
            None => {
                registry.upsert(entry);
                changed = true;
            }
        }
    }
    Ok(changed)
}

fn failed(message: impl Into<String>) -> QueryError {
    QueryError::new(ErrorCode::IndexingFailed, message)
}

pub fn permission_required() -> QueryError {
    QueryError::new(
        ErrorCode::PermissionRequired,
        "user approval is required; confirm the operation before setting confirmed=true",
    )
}

/// What the user is asked to approve: every project by name and path.
pub fn approval_prompt(entries: &[RepositoryEntry]) -> String {
    let list: Vec<String> = entries
        .iter()
        .map(|e| format!("{} ({})", e.name, e.path.display()))
        .collect();
    match list.as_slice() {
        [one] => format!("Register and index the project {one}, rebuilding the whole code graph?"),
        many => format!(
            "Register and index {} projects, rebuilding the whole code graph: {}?",
            many.len(),
            many.join(", ")
        ),
    }
}

/// Registers the approved batch and rebuilds once; `progress` receives each event the child
/// reports.
pub async fn register_and_index(
    entries: Vec<RepositoryEntry>,
    config_path: &Path,
    executable: &Path,
    progress: impl Fn(String),
) -> Result<String, QueryError> {
    if !config_path.exists() {
        // A client with no graph builds its first one: the configuration is created as
        // `kivgraph init` would, self-contained beside itself.
        let directory = config_path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(directory).map_err(|e| failed(e.to_string()))?;
        let text = format!(
            "version: 1\nworkspace:\n  repositories_file: {}\n",
            directory.join("repositories.yaml").display()
        );
        std::fs::write(config_path, text).map_err(|e| failed(e.to_string()))?;
    }
    let config = LoadedConfig::load(config_path).map_err(|e| failed(e.to_string()))?;
    let registry_path: PathBuf = config.repositories_file.clone();
    let previous = std::fs::read(&registry_path).ok();
    let mut registry = Registry::load(&registry_path).map_err(|e| failed(e.to_string()))?;
    let names: Vec<String> = entries.iter().map(|e| e.name.clone()).collect();
    if register(&mut registry, entries)? {
        write_registry(&registry_path, registry.to_yaml().as_bytes())
            .map_err(|e| failed(e.to_string()))?;
    }
    match index(config_path, executable, &progress).await {
        Ok(mut result) => {
            if let Value::Object(map) = &mut result {
                map.insert("registered".into(), json!(names));
            }
            Ok(result.to_string())
        }
        Err(err) => {
            // The batch is undone: the prior registry comes back, the previous generation
            // stays published.
            let restored = match &previous {
                Some(bytes) => write_registry(&registry_path, bytes),
                None => std::fs::remove_file(&registry_path).or_else(|e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        Ok(())
                    } else {
                        Err(e)
                    }
                }),
            };
            if let Err(restore) = restored {
                tracing::error!(
                    "could not restore the registry {}: {restore}",
                    registry_path.display()
                );
            }
            Err(err)
        }
    }
}

fn write_registry(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, path)
}

async fn index(
    config_path: &Path,
    executable: &Path,
    progress: &impl Fn(String),
) -> Result<Value, QueryError> {
    let mut child = tokio::process::Command::new(executable)
        .args(["index", "--full", "--json", "--config"])
        .arg(config_path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| failed(format!("cannot start {}: {e}", executable.display())))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    let mut result: Option<Value> = None;
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(event) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        match event["event"].as_str() {
            Some("progress") => {
                let p = &event["progress"];
                let repository = p["repository"]
                    .as_str()
                    .map(|r| format!(" {r}"))
                    .unwrap_or_default();
                progress(format!(
                    "{}{repository} {}/{}",
                    p["phase"].as_str().unwrap_or("?"),
                    p["completed"],
                    p["total"]
                ));
            }
            Some("result") => result = Some(event["result"].clone()),
            _ => {} // an event kind this server does not know is ignored
        }
    }
    let output = child
        .wait_with_output()
        .await
        .map_err(|e| failed(e.to_string()))?;
    match result {
        Some(result) if result["passed"] == true => Ok(result),
        Some(result) => Err(failed(
            result["error"]
                .as_str()
                .unwrap_or("the pass failed")
                .to_string(),
        )),
        None => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let reason = stderr
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("the indexer exited without a result");
            Err(failed(reason.trim_start_matches("kivgraph: ").to_string()))
        }
    }
}
