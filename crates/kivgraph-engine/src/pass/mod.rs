//! The pass driver: discover, read, sync the inputs, analyse in parallel, merge in order.
//!
//! One file a job: what a pass is asked (`options`), the engine that lives across passes
//! (`engine`), reading the repositories and syncing the inputs (`sync`), running the
//! analyzers' units (`schedule`), what a pass says of each repository (`report`), the
//! `verify` mode's comparison (`verify`), the record of a published pass (`record`), one
//! full pass (`run`), fact sets recorded and merged (`recorded`) and what a watcher keeps between passes (`warm`).

mod engine;
mod options;
mod record;
mod recorded;
mod report;
mod run;
mod schedule;
mod sync;
mod verify;
mod warm;

pub use engine::{Engine, EngineError};
pub use options::{AnalyzerOptions, LoadsAtOnce, PassOptions, Progress};
pub use recorded::{
    RecordError, RecordedAnalyzers, RecordedRepository, record_identity, run_pass_from_records,
};
pub use report::{AnalyzerRun, RepositoryReport};
pub use run::{PassGraph, PassOutcome, run_pass};
pub use sync::{LoadedRepository, load_repository};
pub use warm::{Reread, WarmEngine};
