//! What the end-to-end tests share: the binary under test and the fixture repositories.

pub mod client;
pub mod http;
pub mod mcp_http;

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_kivgraph")
}

/// The package directory of the checkout the tests run in: cargo says so at run time (a
/// test binary built in another clone sharing the target directory names that clone at
/// compile time).
pub fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

#[allow(dead_code)]
pub fn fixtures() -> PathBuf {
    manifest_dir()
        .join("../../testdata/repos")
        .canonicalize()
        .unwrap()
}

/// Where the test command installs the exact analyzers (`cargo xtask test`): what every
/// spawned `kivgraph` is told, whatever `HOME` a test gives it.
#[allow(dead_code)]
pub fn analyzers_dir() -> PathBuf {
    std::env::var_os("KIVGRAPH_ANALYZERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
                .join(".cache/kivgraph/analyzers")
        })
}

/// Where the test command installs the real MCP clients (`cargo xtask test`).
#[allow(dead_code)]
pub fn clients_dir() -> Option<PathBuf> {
    std::env::var_os("KIVGRAPH_CLIENTS_DIR").map(PathBuf::from)
}

/// A Go module `example.com/live` at `root` declaring `Existing` in `main.go`.
#[allow(dead_code)]
pub fn go_repository(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    std::fs::write(root.join("go.mod"), "module example.com/live\n\ngo 1.22\n").unwrap();
    std::fs::write(
        root.join("main.go"),
        "package live\n\nfunc Existing() int { return 1 }\n",
    )
    .unwrap();
}

/// Saves `text` at `path` as editors do: a temporary file renamed over it.
#[allow(dead_code)]
pub fn save(path: &Path, text: &str) {
    let temporary = path.with_extension("tmp~");
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, path).unwrap();
}

/// Appends `yaml` (top-level sections the file does not hold yet) to the configuration file
/// `config`.
#[allow(dead_code)]
pub fn append_config(config: &Path, yaml: &str) {
    let mut text = std::fs::read_to_string(config).unwrap();
    text.push('\n');
    text.push_str(yaml);
    std::fs::write(config, text).unwrap();
}

/// Copies a fixture repository so a test can edit it.
#[allow(dead_code)]
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// `kivgraph ARGS` on the workspace's configuration, ready to run.
#[allow(dead_code)]
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(binary());
    command
        .args(args)
        .arg("--config")
        .arg(dir.join("config.yaml"));
    command
}

/// Runs `kivgraph ARGS` on the workspace's configuration.
#[allow(dead_code)]
pub fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    command(dir, args).output().unwrap()
}

/// Runs `kivgraph ARGS` on the workspace's configuration, which must succeed: its stdout.
#[allow(dead_code)]
pub fn succeed(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `kivgraph ARGS` on the workspace's configuration, which must fail: its stderr.
#[allow(dead_code)]
pub fn fail(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert!(
        !out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr).unwrap()
}
