//! Running the tools a user would run, failing with the command line that failed.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, bail};

use crate::locations::Locations;

/// A command about to run.
pub struct Step(Command);

impl Step {
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Step(Command::new(program))
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.0.args(args);
        self
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.0.arg(arg);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.0.env(key, value);
        self
    }

    pub fn current_dir(mut self, dir: &Path) -> Self {
        self.0.current_dir(dir);
        self
    }

    /// Runs it with the terminal's output; an error unless it exits with success.
    pub fn succeed(mut self) -> anyhow::Result<()> {
        // Progress goes to stderr: stdout is the answer's.
        self.0.stdout(std::io::stderr());
        let status = self
            .0
            .status()
            .with_context(|| format!("cannot run {:?}", self.0))?;
        if !status.success() {
            bail!("{:?} failed ({status})", self.0);
        }
        Ok(())
    }

    /// Runs it with stdout shown, for the answer a user asked for.
    pub fn show(self) -> anyhow::Result<()> {
        let command = format!("{:?}", self.0);
        if !self.report()? {
            bail!("{command} failed");
        }
        Ok(())
    }

    /// Runs it with stdout shown, and says whether it exited with success: for a report
    /// whose verdict is the user's to read.
    pub fn report(mut self) -> anyhow::Result<bool> {
        let status = self
            .0
            .status()
            .with_context(|| format!("cannot run {:?}", self.0))?;
        Ok(status.success())
    }

    /// Runs it and returns its stdout, trimmed; `None` when it cannot run or fails.
    pub fn output(mut self) -> Option<String> {
        let output = self.0.output().ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    }
}

/// Cargo in the checkout, building into the target directory outside it.
pub fn cargo(locations: &Locations) -> Step {
    Step::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(&locations.root)
        .env("CARGO_TARGET_DIR", &locations.target)
        .env("KIVGRAPH_ANALYZERS_DIR", &locations.analyzers)
        .env(
            "CARGO_TERM_COLOR",
            std::env::var_os("CARGO_TERM_COLOR").unwrap_or_else(|| "never".into()),
        )
}

/// Whether `program` is on the `PATH`.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}
