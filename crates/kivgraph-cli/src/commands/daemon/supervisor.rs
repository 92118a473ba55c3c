//! Who owns the daemon: a systemd user unit on Linux, one per state directory (so two
//! configurations hold two supervised daemons), restarted on failure. launchd is documented,
//! not driven; a platform without a supported supervisor — or a session where `systemctl
//! --user` reaches no manager — is told so, and nothing is written.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use kivgraph_store::GenerationStore;
use serde::Serialize;

use crate::commands::serve::store_of;
use crate::commands::stop::terminate;
use crate::context::ConfigArg;

/// How long `install` waits for the supervised daemon to publish its endpoint.
const START_TIME: Duration = Duration::from_secs(15);

#[derive(clap::Args, Debug)]
pub struct StatusArgs {
    #[command(flatten)]
    config: ConfigArg,
    #[arg(long)]
    json: bool,
}

/// The unit of one state directory.
struct Unit {
    name: String,
    path: PathBuf,
}

impl Unit {
    fn of(store: &GenerationStore) -> anyhow::Result<Self> {
        let digest = blake3::hash(store.root().as_os_str().as_encoded_bytes()).to_hex();
        let name = format!("kivgraph-daemon-{}.service", &digest[..12]);
        let directory = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
            .context("neither XDG_CONFIG_HOME nor HOME is set")?
            .join("systemd/user");
        Ok(Unit {
            path: directory.join(&name),
            name,
        })
    }
}

/// The unit's text: the daemon of this configuration, restarted when it fails.
fn unit_text(
    executable: &Path,
    config: &Path,
    store: &GenerationStore,
    address: SocketAddr,
    allow_remote: bool,
) -> String {
    let mut command = format!(
        "{} daemon --config {} --addr {}",
        quoted(executable),
        quoted(config),
        address
    );
    if allow_remote {
        command.push_str(" --allow-remote");
    }
    format!(
        "[Unit]\n\
         Description=Kivgraph daemon for {state}\n\
         \n\
         [Service]\n\
         ExecStart={command}\n\
         Restart=on-failure\n\
         RestartSec=2\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        state = store.root().display()
    )
}

/// A path as systemd's command-line syntax reads it: double-quoted, `\` and `"` escaped.
fn quoted(path: &Path) -> String {
    let text = path.display().to_string();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `systemctl --user ARGS`, or why the user's service manager cannot be reached.
fn systemctl(args: &[&str]) -> Result<String, String> {
    let output = Command::new("systemctl")
        .arg("--user")
        .args(args)
        .output()
        .map_err(|err| format!("systemctl cannot be run: {err}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        let stdout = String::from_utf8_lossy(&output.stdout).trim().to_string();
        Err(if stderr.is_empty() { stdout } else { stderr })
    }
}

/// `Ok` when a supported supervisor can be driven here.
pub fn supervisor() -> Result<(), String> {
    if !cfg!(target_os = "linux") {
        return Err(format!(
            "no supported supervisor on {}: only systemd user units are installed (a launchd agent is described in docs/daemon.md)",
            std::env::consts::OS
        ));
    }
    systemctl(&["show-environment"])
        .map(|_| ())
        .map_err(|reason| {
            format!("systemd's user manager is not reachable (systemctl --user: {reason})")
        })
}

pub fn install(
    config: &ConfigArg,
    address: SocketAddr,
    allow_remote: bool,
) -> anyhow::Result<ExitCode> {
    let store = store_of(config)?;
    if let Err(reason) = supervisor() {
        bail!(
            "{reason}; nothing was installed. Start `kivgraph daemon` by hand (nothing restarts it), or run this from a session with a systemd user manager"
        );
    }
    let unit = Unit::of(&store)?;
    let executable = std::env::current_exe().context("cannot locate the kivgraph executable")?;
    let text = unit_text(&executable, &config.path(), &store, address, allow_remote);
    crate::context::write_file(&unit.path, &text)?;
    for step in [
        vec!["daemon-reload"],
        vec!["enable", unit.name.as_str()],
        vec!["restart", unit.name.as_str()],
    ] {
        systemctl(&step).map_err(|reason| {
            anyhow::anyhow!("systemctl --user {} failed: {reason}", step.join(" "))
        })?;
    }
    let deadline = Instant::now() + START_TIME;
    while store.running_daemon().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
    }
    let Some(record) = store.running_daemon() else {
        bail!(
            "{} is installed and enabled, but no daemon published its endpoint within {} s: see journalctl --user -u {}",
            unit.path.display(),
            START_TIME.as_secs(),
            unit.name
        );
    };
    println!(
        "installed {} ({}): the daemon (pid {}) serves MCP at {}, restarted if it fails",
        unit.name,
        unit.path.display(),
        record.process.pid,
        record.url
    );
    Ok(ExitCode::SUCCESS)
}

pub fn remove(config: &ConfigArg) -> anyhow::Result<ExitCode> {
    let store = store_of(config)?;
    let unit = Unit::of(&store)?;
    let installed = unit.path.is_file();
    if installed {
        // A manager out of reach cannot stop the unit; the file still goes, and the daemon is
        // stopped below like a hand-started one.
        if let Err(reason) = systemctl(&["disable", "--now", &unit.name]) {
            eprintln!(
                "kivgraph: systemctl --user disable --now {}: {reason}",
                unit.name
            );
        }
        std::fs::remove_file(&unit.path)
            .with_context(|| format!("cannot remove {}", unit.path.display()))?;
        let _ = systemctl(&["daemon-reload"]);
        println!("removed {} ({})", unit.name, unit.path.display());
    }
    let daemons: Vec<_> = store
        .processes()
        .into_iter()
        .filter(|p| p.kind == "daemon")
        .collect();
    for process in &daemons {
        println!("stopping the daemon (pid {})", process.pid);
    }
    terminate(&store, &daemons);
    if !installed && daemons.is_empty() {
        println!(
            "no daemon unit is installed for {} and no daemon runs",
            store.root().display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Who owns the daemon of a state directory: its unit, and what the supervisor says of it.
#[derive(Serialize)]
pub struct Owner {
    pub unit: String,
    pub unit_path: PathBuf,
    pub installed: bool,
    /// `systemctl --user is-active`, `no unit`, or why the supervisor could not be asked.
    pub supervisor: String,
}

impl Owner {
    pub fn of(store: &GenerationStore) -> anyhow::Result<Self> {
        let unit = Unit::of(store)?;
        let installed = unit.path.is_file();
        let supervisor = match supervisor() {
            Err(reason) => reason,
            Ok(()) if !installed => "no unit".to_string(),
            Ok(()) => match systemctl(&["is-active", &unit.name]) {
                Ok(state) | Err(state) => state,
            },
        };
        Ok(Owner {
            unit: unit.name,
            unit_path: unit.path,
            installed,
            supervisor,
        })
    }

    /// One line: the unit and its state, or that there is none.
    pub fn describe(&self) -> String {
        if self.installed {
            format!(
                "systemd user unit {} at {} ({})",
                self.unit,
                self.unit_path.display(),
                self.supervisor
            )
        } else {
            format!(
                "none — no unit at {} (kivgraph daemon install gives it one; supervisor: {})",
                self.unit_path.display(),
                self.supervisor
            )
        }
    }
}

#[derive(Serialize)]
struct Status {
    #[serde(flatten)]
    owner: Owner,
    daemon: DaemonState,
}

#[derive(Serialize)]
struct DaemonState {
    running: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    socket: Option<PathBuf>,
}

pub fn status(args: &StatusArgs) -> anyhow::Result<ExitCode> {
    let store = store_of(&args.config)?;
    let record = store.running_daemon();
    let status = Status {
        owner: Owner::of(&store)?,
        daemon: DaemonState {
            running: record.is_some(),
            pid: record.as_ref().map(|r| r.process.pid),
            url: record.as_ref().map(|r| r.url.clone()),
            socket: record.as_ref().map(|r| r.socket.clone()),
        },
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&status)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("owner: {}", status.owner.describe());
    match &record {
        Some(record) => println!(
            "daemon: running (pid {}) at {} and {}",
            record.process.pid,
            record.url,
            record.socket.display()
        ),
        None => println!("daemon: not running"),
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unit_runs_this_configuration_s_daemon_and_restarts_it() {
        let store = GenerationStore::new("/home/a b/state");
        let text = unit_text(
            Path::new("/usr/bin/kivgraph"),
            Path::new("/home/a b/config.yaml"),
            &store,
            "127.0.0.1:7790".parse().unwrap(),
            false,
        );
        assert_eq!(
            text,
            "[Unit]\nDescription=Kivgraph daemon for /home/a b/state\n\n[Service]\nExecStart=\"/usr/bin/kivgraph\" daemon --config \"/home/a b/config.yaml\" --addr 127.0.0.1:7790\nRestart=on-failure\nRestartSec=2\n\n[Install]\nWantedBy=default.target\n"
        );
        let other = Unit::of(&GenerationStore::new("/home/other/state")).unwrap();
        assert_ne!(Unit::of(&store).unwrap().name, other.name);
    }
}
