//! `config.yaml`: schema, defaults and validation.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::paths::{StatePaths, expand_tilde};
use crate::{ConfigError, LanguageToken, parse_duration};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum FactCacheMode {
    Off,
    #[default]
    On,
    Verify,
}

impl FactCacheMode {
    pub fn as_str(self) -> &'static str {
        match self {
            FactCacheMode::Off => "off",
            FactCacheMode::On => "on",
            FactCacheMode::Verify => "verify",
        }
    }
}

macro_rules! section {
    ($(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty = $default:expr),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct $name { $($(#[$fmeta])* pub $field: $ty,)* }
        impl Default for $name {
            fn default() -> Self { $name { $($field: $default,)* } }
        }
    };
}

section!(WorkspaceSection { repositories_file: Option<String> = None });
section!(StorageSection {
    database_path: Option<String> = None,
    backups_path: Option<String> = None,
    /// Retired: accepted and ignored, named by `doctor` as `config.retired`.
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshots_path: Option<serde_yaml::Value> = None,
    #[serde(skip_serializing_if = "Option::is_none")]
    retain_snapshots: Option<serde_yaml::Value> = None,
});
section!(WebSection {
    address: String = "0.0.0.0:7777".into()
});
section!(McpSection {
    transport: String = "stdio".into(),
    default_limit: i64 = 50,
    maximum_limit: i64 = 500,
    maximum_depth: i64 = 5,
    maximum_visited_nodes: i64 = 25_000,
});
section!(IndexingSection {
    generated_files: String = "include".into(),
    unresolved_references: String = "retain".into(),
    syntax_acceleration: bool = true,
    full_rebuild_on_schema_change: bool = true,
    fact_cache: FactCacheMode = FactCacheMode::On,
    fact_cache_path: Option<String> = None,
});
section!(WatcherSection {
    enabled: bool = true,
    debounce_ms: i64 = 150,
    maximum_batch_ms: i64 = 500,
    reconciliation_interval: String = "10m".into(),
});
section!(TypescriptSection {
    worker_command: String = "kivgraph-ts-worker".into(),
    maximum_workers: i64 = 3,
    project_idle_timeout: String = "30m".into(),
    include_unclaimed_sources: bool = false,
});
section!(GoSection {
    synthetic_work_file: Option<String> = None,
    include_tests: bool = false,
    build_tags: Vec<String> = Vec::new(),
    allow_network: bool = false,
    maximum_loads: i64 = 0,
});
section!(RustSection {
    analyzer_command: String = "rust-analyzer".into(),
    maximum_workspaces: i64 = 0,
    features: Vec<String> = Vec::new(),
    all_features: bool = false,
    no_default_features: bool = false,
    cfgs: Vec<String> = Vec::new(),
    build_scripts: bool = true,
    proc_macros: bool = true,
    include_tests: bool = true,
    allow_network: bool = false,
    target_directory: Option<String> = None,
    sysroot: String = "discover".into(),
    index_sysroot: bool = false,
});
/// One SCIP indexer plugged in by configuration: any program that writes a SCIP index of
/// the directory it runs in. Its answers decide the references of `languages` in
/// `repositories` (every registered repository when empty), in place of the built-in
/// analyzer of those languages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScipIndexerEntry {
    pub name: String,
    /// The program and its arguments; `{output}` is where it must write the index, `{root}`
    /// the directory it runs in.
    pub command: Vec<String>,
    pub languages: Vec<LanguageToken>,
    #[serde(default)]
    pub repositories: Vec<String>,
}

impl ScipIndexerEntry {
    /// Whether this indexer decides `language` in repository `repository`.
    pub fn covers(&self, repository: &str, language: LanguageToken) -> bool {
        self.languages.contains(&language)
            && (self.repositories.is_empty() || self.repositories.iter().any(|r| r == repository))
    }
}

section!(ScipSection {
    indexers: Vec<ScipIndexerEntry> = Vec::new()
});
section!(TelemetrySection {
    metrics: bool = true,
    traces: bool = false
});
section!(LoggingSection {
    format: String = "json".into(),
    level: String = "info".into(),
    event_log_path: Option<String> = None,
});

section!(
    /// The whole `config.yaml`. Unknown keys are refused; retired keys load and are ignored.
    Config {
    version: i64 = 1,
    workspace: WorkspaceSection = WorkspaceSection::default(),
    storage: StorageSection = StorageSection::default(),
    web: WebSection = WebSection::default(),
    mcp: McpSection = McpSection::default(),
    indexing: IndexingSection = IndexingSection::default(),
    watcher: WatcherSection = WatcherSection::default(),
    typescript: TypescriptSection = TypescriptSection::default(),
    go: GoSection = GoSection::default(),
    rust: RustSection = RustSection::default(),
    scip: ScipSection = ScipSection::default(),
    telemetry: TelemetrySection = TelemetrySection::default(),
    logging: LoggingSection = LoggingSection::default(),
});

/// A validated configuration with every path resolved to an absolute one.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: Config,
    pub paths: StatePaths,
    pub repositories_file: PathBuf,
    pub database_path: PathBuf,
    pub backups_path: PathBuf,
    pub fact_cache_path: PathBuf,
    pub event_log_path: PathBuf,
    pub rust_target_directory: PathBuf,
    pub go_synthetic_work_file: PathBuf,
}

impl LoadedConfig {
    /// The generation store: beside the canonical database.
    pub fn generation_store(&self) -> PathBuf {
        self.database_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| self.paths.state_dir.clone())
    }

    /// Keys that are accepted only to be ignored.
    pub fn retired_keys(&self) -> Vec<&'static str> {
        let mut keys = Vec::new();
        if self.config.storage.snapshots_path.is_some() {
            keys.push("storage.snapshots_path");
        }
        if self.config.storage.retain_snapshots.is_some() {
            keys.push("storage.retain_snapshots");
        }
        keys
    }

    pub fn load(config_file: &Path) -> Result<Self, ConfigError> {
        let text = match std::fs::read_to_string(config_file) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(ConfigError::Missing {
                    path: config_file.to_path_buf(),
                });
            }
            Err(source) => {
                return Err(ConfigError::Read {
                    path: config_file.to_path_buf(),
                    source,
                });
            }
        };
        let config: Config = if text.trim().is_empty() {
            Config::default()
        } else {
            serde_yaml::from_str(&text).map_err(|err| ConfigError::Parse {
                path: config_file.to_path_buf(),
                message: err.to_string(),
            })?
        };
        Self::resolve(config, StatePaths::for_config(config_file))
    }

    /// Validates `config` and resolves its paths against `paths`.
    pub fn resolve(config: Config, paths: StatePaths) -> Result<Self, ConfigError> {
        let file = paths.config_file.clone();
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            path: file.clone(),
            key: key.into(),
            message,
        };
        let state = &paths.state_dir;
        let path_key =
            |key: &str, value: &Option<String>, default: PathBuf| -> Result<PathBuf, ConfigError> {
                match value {
                    None => Ok(default),
                    Some(text) if text.trim().is_empty() => {
                        Err(invalid(key, "must not be empty".into()))
                    }
                    Some(text) => {
                        let expanded = expand_tilde(text);
                        if expanded.is_absolute() {
                            Ok(expanded)
                        } else {
                            Err(invalid(
                                key,
                                format!("{text:?} must be absolute after ~ expansion"),
                            ))
                        }
                    }
                }
            };
        let c = &config;
        if c.version != 1 {
            return Err(invalid(
                "version",
                format!(
                    "unsupported configuration version {}; this build reads 1",
                    c.version
                ),
            ));
        }
        let repositories_file = path_key(
            "workspace.repositories_file",
            &c.workspace.repositories_file,
            paths.config_dir.join("repositories.yaml"),
        )?;
        let database_path = path_key(
            "storage.database_path",
            &c.storage.database_path,
            state.join("graph.lbdb"),
        )?;
        let backups_path = path_key(
            "storage.backups_path",
            &c.storage.backups_path,
            state.join("backups"),
        )?;
        let fact_cache_path = match (&c.indexing.fact_cache_path, c.indexing.fact_cache) {
            (Some(text), FactCacheMode::Off) if text.trim().is_empty() => state.join("factcache"),
            (value, _) => path_key("indexing.fact_cache_path", value, state.join("factcache"))?,
        };
        let event_log_path = path_key(
            "logging.event_log_path",
            &c.logging.event_log_path,
            state.join("events.jsonl"),
        )?;
        let rust_target_directory = path_key(
            "rust.target_directory",
            &c.rust.target_directory,
            state.join("rust-target"),
        )?;
        let go_synthetic_work_file = path_key(
            "go.synthetic_work_file",
            &c.go.synthetic_work_file,
            state.join("go.work"),
        )?;

        if c.web.address.parse::<std::net::SocketAddr>().is_err() {
            return Err(invalid(
                "web.address",
                format!("{:?} is not a valid host:port", c.web.address),
            ));
        }
        if c.mcp.transport != "stdio" {
            return Err(invalid(
                "mcp.transport",
                format!(
                    "{:?} is not accepted; the only transport is stdio",
                    c.mcp.transport
                ),
            ));
        }
        let positive = |key: &str, value: i64| {
            if value > 0 {
                Ok(())
            } else {
                Err(invalid(key, format!("must be positive, got {value}")))
            }
        };
        positive("mcp.default_limit", c.mcp.default_limit)?;
        positive("mcp.maximum_limit", c.mcp.maximum_limit)?;
        if c.mcp.maximum_limit < c.mcp.default_limit {
            return Err(invalid(
                "mcp.maximum_limit",
                format!(
                    "must be at least mcp.default_limit ({})",
                    c.mcp.default_limit
                ),
            ));
        }
        if !(1..=5).contains(&c.mcp.maximum_depth) {
            return Err(invalid(
                "mcp.maximum_depth",
                format!("must be between 1 and 5, got {}", c.mcp.maximum_depth),
            ));
        }
        positive("mcp.maximum_visited_nodes", c.mcp.maximum_visited_nodes)?;
        if c.indexing.generated_files != "include" {
            return Err(invalid(
                "indexing.generated_files",
                format!(
                    "accepts only \"include\", got {:?}",
                    c.indexing.generated_files
                ),
            ));
        }
        if c.indexing.unresolved_references != "retain" {
            return Err(invalid(
                "indexing.unresolved_references",
                format!(
                    "accepts only \"retain\", got {:?}",
                    c.indexing.unresolved_references
                ),
            ));
        }
        validate_scip_indexers(&c.scip.indexers, &invalid)?;
        positive("watcher.debounce_ms", c.watcher.debounce_ms)?;
        if c.watcher.maximum_batch_ms < c.watcher.debounce_ms {
            return Err(invalid(
                "watcher.maximum_batch_ms",
                format!(
                    "must be at least watcher.debounce_ms ({})",
                    c.watcher.debounce_ms
                ),
            ));
        }
        let duration = |key: &str, value: &str| match parse_duration(value) {
            Some(d) if !d.is_zero() => Ok(()),
            _ => Err(invalid(
                key,
                format!("{value:?} is not a positive duration such as \"10m\""),
            )),
        };
        duration(
            "watcher.reconciliation_interval",
            &c.watcher.reconciliation_interval,
        )?;
        duration(
            "typescript.project_idle_timeout",
            &c.typescript.project_idle_timeout,
        )?;
        if c.typescript.worker_command.trim().is_empty() {
            return Err(invalid(
                "typescript.worker_command",
                "must not be empty".into(),
            ));
        }
        positive("typescript.maximum_workers", c.typescript.maximum_workers)?;
        if let Some(tag) =
            c.go.build_tags
                .iter()
                .find(|t| t.is_empty() || t.contains(',') || t.chars().any(char::is_whitespace))
        {
            return Err(invalid(
                "go.build_tags",
                format!("tag {tag:?} must be non-empty with no comma or whitespace"),
            ));
        }
        if c.go.maximum_loads < 0 {
            return Err(invalid("go.maximum_loads", "must not be negative".into()));
        }
        if c.rust.analyzer_command.trim().is_empty() {
            return Err(invalid("rust.analyzer_command", "must not be empty".into()));
        }
        if c.rust.maximum_workspaces < 0 {
            return Err(invalid(
                "rust.maximum_workspaces",
                "must not be negative".into(),
            ));
        }
        if c.rust.all_features && !c.rust.features.is_empty() {
            return Err(invalid(
                "rust.features",
                "cannot be combined with rust.all_features".into(),
            ));
        }
        if !matches!(c.logging.format.as_str(), "json" | "text") {
            return Err(invalid(
                "logging.format",
                format!("{:?} must be json or text", c.logging.format),
            ));
        }
        if !matches!(
            c.logging.level.as_str(),
            "debug" | "info" | "warn" | "error"
        ) {
            return Err(invalid(
                "logging.level",
                format!("{:?} must be debug, info, warn or error", c.logging.level),
            ));
        }
        Ok(LoadedConfig {
            config,
            paths,
            repositories_file,
            database_path,
            backups_path,
            fact_cache_path,
            event_log_path,
            rust_target_directory,
            go_synthetic_work_file,
        })
    }
}

/// `scip.indexers`: named uniquely, each able to say where its index goes, over languages
/// this build extracts declarations of (an indexer's answers are joined with them), and no
/// language of a repository claimed twice.
fn validate_scip_indexers(
    indexers: &[ScipIndexerEntry],
    invalid: &dyn Fn(&str, String) -> ConfigError,
) -> Result<(), ConfigError> {
    for (i, indexer) in indexers.iter().enumerate() {
        let key = |field: &str| format!("scip.indexers[{i}].{field}");
        crate::registry::validate_indexer_name(&indexer.name)
            .map_err(|e| invalid(&key("name"), e.to_string()))?;
        if indexers[..i].iter().any(|other| other.name == indexer.name) {
            return Err(invalid(
                &key("name"),
                format!("{:?} names two indexers", indexer.name),
            ));
        }
        if !indexer
            .command
            .iter()
            .any(|argument| argument.contains("{output}"))
        {
            return Err(invalid(
                &key("command"),
                "must name where the index is written with an {output} argument".into(),
            ));
        }
        if indexer.languages.is_empty() {
            return Err(invalid(&key("languages"), "must name a language".into()));
        }
        if indexer.languages.contains(&LanguageToken::Dart) {
            return Err(invalid(
                &key("languages"),
                "dart: this build extracts no Dart declarations to join an index with".into(),
            ));
        }
        for name in &indexer.repositories {
            crate::registry::validate_repository_name(name)
                .map_err(|e| invalid(&key("repositories"), e.to_string()))?;
        }
        for other in &indexers[..i] {
            let shared_language = indexer
                .languages
                .iter()
                .find(|l| other.languages.contains(l));
            let shared_repository = indexer.repositories.is_empty()
                || other.repositories.is_empty()
                || indexer
                    .repositories
                    .iter()
                    .any(|r| other.repositories.contains(r));
            if let (Some(language), true) = (shared_language, shared_repository) {
                return Err(invalid(
                    &key("languages"),
                    format!(
                        "{} is already decided by {:?} in the same repositories",
                        language.as_str(),
                        other.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(yaml: &str) -> Result<LoadedConfig, ConfigError> {
        let config: Config = serde_yaml::from_str(yaml).map_err(|e| ConfigError::Parse {
            path: "x".into(),
            message: e.to_string(),
        })?;
        LoadedConfig::resolve(
            config,
            StatePaths::for_config(Path::new("/tmp/kg-test/config.yaml")),
        )
    }

    #[test]
    fn self_contained_defaults() {
        let loaded = load("version: 1").unwrap();
        assert_eq!(
            loaded.repositories_file,
            PathBuf::from("/tmp/kg-test/repositories.yaml")
        );
        assert_eq!(
            loaded.database_path,
            PathBuf::from("/tmp/kg-test/state/graph.lbdb")
        );
        assert_eq!(
            loaded.generation_store(),
            PathBuf::from("/tmp/kg-test/state")
        );
        assert_eq!(
            loaded.fact_cache_path,
            PathBuf::from("/tmp/kg-test/state/factcache")
        );
    }

    #[test]
    fn validation_messages() {
        let err = load("mcp:\n  default_limit: 0").unwrap_err().to_string();
        assert!(err.contains("mcp.default_limit: must be positive"), "{err}");
        let err = load("mcp:\n  maximum_depth: 6").unwrap_err().to_string();
        assert!(err.contains("between 1 and 5"), "{err}");
        let err = load("bogus: 1").unwrap_err().to_string();
        assert!(err.contains("unknown field `bogus`"), "{err}");
        let err = load("indexing:\n  fact_cache: sometimes")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown variant `sometimes`"), "{err}");
        let err = load("storage:\n  database_path: relative/db")
            .unwrap_err()
            .to_string();
        assert!(err.contains("must be absolute"), "{err}");
    }

    #[test]
    fn scip_indexers_are_checked() {
        let indexer = |name: &str, command: &str, languages: &str, repositories: &str| {
            format!(
                "  - name: {name}\n    command: {command}\n    languages: {languages}\n    repositories: {repositories}\n"
            )
        };
        let go = indexer(
            "scip-go",
            "[scip-go, --output, \"{output}\"]",
            "[go]",
            "[api]",
        );
        let loaded = load(&format!("scip:\n  indexers:\n{go}")).unwrap();
        let entry = &loaded.config.scip.indexers[0];
        assert!(entry.covers("api", LanguageToken::Go));
        assert!(!entry.covers("web", LanguageToken::Go));
        assert!(!entry.covers("api", LanguageToken::Python));
        for (indexers, message) in [
            (
                indexer("scip-go", "[scip-go]", "[go]", "[]"),
                "scip.indexers[0].command: must name where the index is written",
            ),
            (
                indexer("a/b", "[x, \"{output}\"]", "[go]", "[]"),
                "scip.indexers[0].name: indexer name \"a/b\" must be an identifier",
            ),
            (
                indexer("x", "[x, \"{output}\"]", "[dart]", "[]"),
                "scip.indexers[0].languages: dart",
            ),
            (
                indexer("x", "[x, \"{output}\"]", "[]", "[]"),
                "scip.indexers[0].languages: must name a language",
            ),
            (
                format!(
                    "{go}{}",
                    indexer("other", "[o, \"{output}\"]", "[python, go]", "[]")
                ),
                "scip.indexers[1].languages: go is already decided by \"scip-go\"",
            ),
            (
                format!(
                    "{go}{}",
                    indexer("scip-go", "[o, \"{output}\"]", "[python]", "[]")
                ),
                "scip.indexers[1].name: \"scip-go\" names two indexers",
            ),
        ] {
            let err = load(&format!("scip:\n  indexers:\n{indexers}"))
                .unwrap_err()
                .to_string();
            assert!(err.contains(message), "{err}");
        }
        // Two indexers of one language over different repositories are both accepted.
        let elsewhere = indexer("scip-go-web", "[g, \"{output}\"]", "[go]", "[web]");
        assert!(load(&format!("scip:\n  indexers:\n{go}{elsewhere}")).is_ok());
    }

    #[test]
    fn retired_keys_load_and_are_named() {
        let loaded = load("storage:\n  snapshots_path: /x\n  retain_snapshots: 3").unwrap();
        assert_eq!(
            loaded.retired_keys(),
            vec!["storage.snapshots_path", "storage.retain_snapshots"]
        );
    }
}
