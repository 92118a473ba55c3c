//! Where configuration and state live.

use std::path::{Path, PathBuf};

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// `$XDG_CONFIG_HOME/kivgraph/config.yaml`, else `~/.config/kivgraph/config.yaml`.
pub fn default_config_path() -> PathBuf {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".config"));
    base.join("kivgraph").join("config.yaml")
}

fn default_state_dir() -> PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".local").join("state"));
    base.join("kivgraph")
}

/// Where `cargo xtask setup` installs the npm analyzers (`scip-typescript`,
/// `scip-python`): `$KIVGRAPH_ANALYZERS_DIR`, else `analyzers` under the user's state
/// directory. Shared by every configuration of the user, and never inside a repository.
pub fn analyzers_dir() -> PathBuf {
    std::env::var_os("KIVGRAPH_ANALYZERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| default_state_dir().join("analyzers"))
}

/// Expands a leading `~` to the home directory.
pub fn expand_tilde(path: &str) -> PathBuf {
    if path == "~" {
        home()
    } else if let Some(rest) = path.strip_prefix("~/") {
        home().join(rest)
    } else {
        PathBuf::from(path)
    }
}

/// The directories a configuration owns, resolved from where the configuration file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatePaths {
    pub config_file: PathBuf,
    pub config_dir: PathBuf,
    /// Root of everything the program writes: generations, caches, logs.
    pub state_dir: PathBuf,
}

impl StatePaths {
    /// The default location keeps state under XDG state; any other location is self-contained.
    pub fn for_config(config_file: &Path) -> Self {
        let config_file = absolute(config_file);
        let config_dir = config_file
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/"));
        let state_dir = if config_file == default_config_path() {
            default_state_dir()
        } else {
            config_dir.join("state")
        };
        StatePaths {
            config_file,
            config_dir,
            state_dir,
        }
    }
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|cwd| cwd.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    }
}
