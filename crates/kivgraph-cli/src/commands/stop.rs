//! `kivgraph stop [--dry-run]`: stops every serve, daemon and watch of this state directory,
//! found by the records they write under `run/` — never by process name, so another user's
//! processes and an index in flight (it writes no record) are left alone.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use kivgraph_store::{GenerationStore, ProcessRecord};

use crate::commands::serve::store_of;
use crate::context::ConfigArg;

/// How long a process has to exit after SIGTERM before it is killed.
const GRACE: Duration = Duration::from_secs(5);

#[derive(clap::Args, Debug)]
pub struct StopArgs {
    #[command(flatten)]
    config: ConfigArg,
    /// List what would be stopped, and stop nothing.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(args: StopArgs) -> anyhow::Result<ExitCode> {
    let store = store_of(&args.config)?;
    let me = std::process::id();
    let running: Vec<ProcessRecord> = store
        .processes()
        .into_iter()
        .filter(|p| p.pid != me)
        .collect();
    if running.is_empty() {
        println!(
            "nothing to stop: no serve, daemon or watch of {} runs",
            store.root().display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    for process in &running {
        println!(
            "{} {} (pid {}, since {}): {}",
            if args.dry_run {
                "would stop"
            } else {
                "stopping"
            },
            process.kind,
            process.pid,
            process.started_at,
            process.command.join(" ")
        );
    }
    if !args.dry_run {
        for killed in terminate(&store, &running) {
            println!(
                "{} (pid {}) did not exit within {} s of SIGTERM and was killed",
                killed.kind,
                killed.pid,
                GRACE.as_secs()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Sends SIGTERM to each process, waits up to [`GRACE`] for them to exit, kills the rest, and
/// removes what a killed daemon could not: its `daemon.json`. Returns the killed.
pub fn terminate<'a>(
    store: &GenerationStore,
    processes: &'a [ProcessRecord],
) -> Vec<&'a ProcessRecord> {
    for process in processes {
        signal(process, libc::SIGTERM);
    }
    let deadline = Instant::now() + GRACE;
    while processes.iter().any(ProcessRecord::alive) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let killed: Vec<&ProcessRecord> = processes.iter().filter(|p| p.alive()).collect();
    for process in &killed {
        signal(process, libc::SIGKILL);
    }
    for process in processes.iter().filter(|p| p.kind == "daemon") {
        store.remove_daemon_record(process.pid);
    }
    // The records of the stopped are forgotten on the way.
    let _ = store.processes();
    killed
}

fn signal(process: &ProcessRecord, signal: libc::c_int) {
    // Checked just before: a record whose process is gone (or whose pid another process
    // took) is never signalled.
    if process.alive() {
        // SAFETY: kill(2) with a pid and a signal number has no memory effects.
        unsafe { libc::kill(process.pid as libc::pid_t, signal) };
    }
}
