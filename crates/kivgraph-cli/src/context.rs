//! The configuration every command resolves first.

use std::path::PathBuf;

use anyhow::Context as _;
use kivgraph_config::{
    Config, ConfigError, LoadedConfig, Registry, StatePaths, default_config_path,
};
use kivgraph_store::GenerationStore;

// `--config PATH`, shared by every command. (A plain comment: clap would take a doc comment
// of a flattened group as the description of every command it joins.)
#[derive(clap::Args, Debug, Clone)]
pub struct ConfigArg {
    /// Configuration file (default ~/.config/kivgraph/config.yaml).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
}

impl ConfigArg {
    pub fn path(&self) -> PathBuf {
        self.config.clone().unwrap_or_else(default_config_path)
    }

    /// The configuration, or the defaults where no file exists yet (with whether one did); a
    /// file that cannot be read is an error.
    pub fn load_or_default(&self) -> anyhow::Result<(LoadedConfig, bool)> {
        let path = self.path();
        match LoadedConfig::load(&path) {
            Ok(config) => Ok((config, true)),
            Err(ConfigError::Missing { .. }) => Ok((
                LoadedConfig::resolve(Config::default(), StatePaths::for_config(&path))?,
                false,
            )),
            Err(err) => Err(err.into()),
        }
    }

    pub fn load(&self) -> anyhow::Result<Loaded> {
        let config = LoadedConfig::load(&self.path())?;
        let registry = Registry::load(&config.repositories_file)?;
        Ok(Loaded { config, registry })
    }
}

pub struct Loaded {
    pub config: LoadedConfig,
    pub registry: Registry,
}

impl Loaded {
    /// The generation store, publishing the canonical database with every generation.
    pub fn store(&self, root: Option<&PathBuf>) -> GenerationStore {
        store_of(&self.config, root)
    }
}

/// The generation store at `root` (default: the configured one), publishing the canonical
/// database with every generation.
pub fn store_of(config: &LoadedConfig, root: Option<&PathBuf>) -> GenerationStore {
    crate::canonical_graph::with_canonical_graph(GenerationStore::new(
        root.cloned().unwrap_or_else(|| config.generation_store()),
    ))
}

/// Writes `text` to `path` atomically, creating its directory.
pub fn write_file(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let temporary = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&temporary, text)
        .with_context(|| format!("cannot write {}", temporary.display()))?;
    std::fs::rename(&temporary, path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
