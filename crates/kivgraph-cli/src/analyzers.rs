//! Which exact analyzers this machine has, as `index` runs them and `doctor` reports them.

use kivgraph_analyzers::{Analyzer, AnalyzerError, Toolchain};
use kivgraph_config::{LoadedConfig, analyzers_dir};
use kivgraph_engine::AnalyzerOptions;
use kivgraph_facts::Language;

/// The analyzers a pass would run, each found or with why it is absent.
pub struct Located {
    pub typescript: Result<Toolchain, AnalyzerError>,
    pub python: Result<Toolchain, AnalyzerError>,
}

/// The default `typescript.worker_command` means "the analyzer the setup script installed".
const DEFAULT_WORKER: &str = "kivgraph-ts-worker";

pub fn locate(config: &LoadedConfig) -> Located {
    let worker = &config.config.typescript.worker_command;
    let configured = (worker != DEFAULT_WORKER).then_some(worker.as_str());
    Located {
        typescript: Toolchain::locate(Analyzer::Typescript, configured, &analyzers_dir()),
        python: Toolchain::locate(Analyzer::Python, None, &analyzers_dir()),
    }
}

impl Located {
    /// What a pass runs. A missing analyzer is an absence the pass reports per repository,
    /// never a failure.
    pub fn into_options(self, config: &LoadedConfig) -> AnalyzerOptions {
        let mut absent = Vec::new();
        let mut found = |language: Language, located: Result<Toolchain, AnalyzerError>| {
            located
                .map_err(|error| {
                    tracing::info!(%error, "analyzer absent; its language keeps syntax-layer facts");
                    absent.push((language, error.to_string()));
                })
                .ok()
        };
        let typescript = found(Language::TypeScript, self.typescript);
        let python = found(Language::Python, self.python);
        AnalyzerOptions {
            typescript,
            python,
            scratch: config.paths.state_dir.join("analyzer-scratch"),
            maximum_workers: usize::try_from(config.config.typescript.maximum_workers).unwrap_or(1),
            absent,
        }
    }
}
