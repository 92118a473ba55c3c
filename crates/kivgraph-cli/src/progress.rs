//! A pass's progress at a terminal: an `indicatif` bar per phase (and repository) with its
//! count, rate and time left, each closed when the next phase opens. Pipes get lines or JSON
//! events instead (the command decides).

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use kivgraph_engine::Progress;

/// The bar of the phase being drawn.
#[derive(Default)]
struct Bars {
    current: Mutex<Option<(String, ProgressBar)>>,
}

impl Bars {
    /// Draws `event`: the bar of its phase moved, or a new bar for a new phase.
    fn show(&self, command: &str, event: &Progress) {
        let label = match &event.repository {
            Some(repository) => format!("{command}: {} {repository}", event.phase),
            None => format!("{command}: {}", event.phase),
        };
        let mut current = self.current.lock().expect("progress lock");
        if current.as_ref().is_none_or(|(shown, _)| *shown != label) {
            if let Some((_, bar)) = current.take() {
                bar.finish();
            }
            let bar = ProgressBar::with_draw_target(
                Some(event.total as u64),
                ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:32} {bar:30} {pos:>7}/{len:7} {rate:>9} ETA {eta}",
                )
                .expect("the template is valid")
                .with_key(
                    "rate",
                    |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{:.0}/s", state.per_sec());
                    },
                ),
            );
            bar.set_prefix(label.clone());
            *current = Some((label, bar));
        }
        if let Some((_, bar)) = current.as_ref() {
            bar.set_length(event.total as u64);
            bar.set_position(event.completed as u64);
        }
    }

    /// Closes the last bar.
    fn finish(&self) {
        if let Some((_, bar)) = self.current.lock().expect("progress lock").take() {
            bar.finish();
        }
    }
}

/// How a one-shot command that reports a JSON result ends: with `--json` the result (or the
/// error) as a `result` event and the exit code, else `print`ed (or the error returned).
pub fn conclude(
    outcome: anyhow::Result<serde_json::Value>,
    json: bool,
    print: impl FnOnce(&serde_json::Value),
) -> anyhow::Result<std::process::ExitCode> {
    use std::process::ExitCode;
    match outcome {
        Ok(report) if json => {
            emit(serde_json::json!({"event": "result", "result": report}));
            Ok(ExitCode::SUCCESS)
        }
        Ok(report) => {
            print(&report);
            Ok(ExitCode::SUCCESS)
        }
        Err(err) if json => {
            emit(
                serde_json::json!({"event": "result", "result": {"passed": false, "error": format!("{err:#}")}}),
            );
            Ok(ExitCode::FAILURE)
        }
        Err(err) => Err(err),
    }
}

/// Writes one JSON line to stdout (a `--json` command's events).
pub fn emit(line: serde_json::Value) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();
}

/// Where a one-shot command's progress goes: JSON `progress` events on stdout with
/// `--json`, bars at a terminal, else a line on stderr per change of phase.
pub struct PassProgress {
    json: bool,
    terminal: bool,
    /// The command the lines name (`index`, `rebuild`).
    command: &'static str,
    bars: Bars,
    last_line: Mutex<String>,
}

impl PassProgress {
    pub fn new(command: &'static str, json: bool) -> Self {
        use std::io::IsTerminal;
        PassProgress {
            json,
            terminal: !json && std::io::stderr().is_terminal(),
            command,
            bars: Bars::default(),
            last_line: Mutex::default(),
        }
    }

    pub fn report(&self, event: Progress) {
        if self.json {
            emit(serde_json::json!({"event": "progress", "progress": {
                "phase": event.phase, "repository": event.repository, "completed": event.completed, "total": event.total,
            }}));
            return;
        }
        if self.terminal {
            self.bars.show(self.command, &event);
            return;
        }
        let command = self.command;
        let line = match &event.repository {
            Some(repository) => format!(
                "{command}: {} {repository} {}/{}",
                event.phase, event.completed, event.total
            ),
            None => format!("{command}: {}", event.phase),
        };
        let mut last = self.last_line.lock().expect("progress lock");
        if *last != line {
            eprintln!("{line}");
            *last = line;
        }
    }

    pub fn finish(&self) {
        self.bars.finish();
    }
}
