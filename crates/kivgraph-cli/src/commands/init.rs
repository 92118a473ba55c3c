//! `kivgraph init`: write the configuration and register repositories.

use std::process::ExitCode;

use anyhow::{Context as _, bail};
use kivgraph_config::{
    LanguageToken, LoadedConfig, Registry, RepositoryEntry, StatePaths, parse_language_list,
    validate_repository_name,
};

use crate::context::{ConfigArg, write_file};

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// Register a repository (repeatable).
    #[arg(long = "repository", value_name = "NAME=PATH")]
    repositories: Vec<String>,
    /// Languages of the repositories given here: go, typescript, javascript, ts, js, rust, rs, python, py, dart.
    #[arg(long, value_name = "LIST")]
    languages: Option<String>,
}

const DEFAULT_LANGUAGES: &[LanguageToken] = &[
    LanguageToken::Go,
    LanguageToken::Typescript,
    LanguageToken::Rust,
    LanguageToken::Python,
];

pub fn run(args: InitArgs) -> anyhow::Result<ExitCode> {
    let config_path = args.config.path();
    let languages = match &args.languages {
        Some(list) => parse_language_list(list).map_err(anyhow::Error::msg)?,
        None => DEFAULT_LANGUAGES.to_vec(),
    };
    let mut entries = Vec::new();
    for spec in &args.repositories {
        let Some((name, path)) = spec.split_once('=') else {
            bail!("--repository {spec:?} must be NAME=PATH");
        };
        validate_repository_name(name)?;
        let path = std::fs::canonicalize(path)
            .with_context(|| format!("repository {name:?}: {path} is not an existing directory"))?;
        if !path.is_dir() {
            bail!("repository {name:?}: {} is not a directory", path.display());
        }
        entries.push(RepositoryEntry {
            name: name.to_string(),
            path,
            languages: languages.clone(),
            manifests: vec![],
            roots: vec![],
            exclusions: vec![],
        });
    }

    let wrote_config = !config_path.exists();
    if wrote_config {
        let paths = StatePaths::for_config(&config_path);
        let text = format!(
            "# Kivgraph configuration: every key and its default is documented in docs/configuration.md.\nversion: 1\nworkspace:\n  repositories_file: {}\n",
            paths.config_dir.join("repositories.yaml").display()
        );
        write_file(&paths.config_file, &text)?;
    }
    let config = LoadedConfig::load(&config_path)?;
    let mut registry = Registry::load(&config.repositories_file)?;
    for entry in &entries {
        registry.upsert(entry.clone());
    }
    registry.validate().map_err(|(key, message)| {
        anyhow::anyhow!("{}: {key}: {message}", config.repositories_file.display())
    })?;
    if wrote_config || !entries.is_empty() || !config.repositories_file.exists() {
        write_file(&config.repositories_file, &registry.to_yaml())?;
    }
    let verb = if wrote_config { "wrote" } else { "kept" };
    println!("init: {verb} {}", config.paths.config_file.display());
    println!(
        "init: registry {} ({} repositories)",
        config.repositories_file.display(),
        registry.repositories.len()
    );
    for entry in &entries {
        let languages: Vec<&str> = entry.languages.iter().map(|l| l.as_str()).collect();
        println!(
            "init: registered {} → {} ({})",
            entry.name,
            entry.path.display(),
            languages.join(", ")
        );
    }
    println!(
        "init: state under {}; next: kivgraph index --full{}",
        config.paths.state_dir.display(),
        config_flag(&args.config)
    );
    Ok(ExitCode::SUCCESS)
}

/// ` --config PATH` when the configuration is not at the default location.
pub fn config_flag(config: &ConfigArg) -> String {
    match &config.config {
        Some(path) => format!(" --config {}", path.display()),
        None => String::new(),
    }
}
