//! Records where this binary came from for `kivgraph version --json`: the commit it was built
//! from (when built in a git checkout), the cargo profile and the compiler.

use std::process::Command;

fn output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|text| !text.is_empty())
}

fn main() {
    // A commit moves HEAD or the branch it names: either reruns this script.
    let git_dir = output("git", &["rev-parse", "--absolute-git-dir"]);
    if let Some(git_dir) = &git_dir {
        println!("cargo:rerun-if-changed={git_dir}/HEAD");
        if let Some(reference) = output("git", &["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={git_dir}/{reference}");
        }
    }
    let commit = git_dir
        .and_then(|_| output("git", &["rev-parse", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=KIVGRAPH_COMMIT={commit}");
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=KIVGRAPH_PROFILE={profile}");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let compiler = output(&rustc, &["--version"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=KIVGRAPH_RUSTC={compiler}");
}
