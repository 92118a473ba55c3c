//! The Go build context of a pass: which files a Go load compiles.
//!
//! One value decides it for both layers — discovery leaves out the files it excludes, and the
//! go/types worker runs `go list` under the same `GOOS`, `GOARCH` and `CGO_ENABLED` — so the
//! syntax graph and the exact graph hold the same files.

use serde::{Deserialize, Serialize};

use crate::GoSection;

/// Operating systems go/build knows (its `syslist.go`): a file name ending in one of them
/// is built only there.
pub const KNOWN_GOOS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
    "zos",
];

/// Architectures go/build knows (its `syslist.go`).
pub const KNOWN_GOARCH: &[&str] = &[
    "386",
    "amd64",
    "amd64p32",
    "arm",
    "armbe",
    "arm64",
    "arm64be",
    "loong64",
    "mips",
    "mipsle",
    "mips64",
    "mips64le",
    "mips64p32",
    "mips64p32le",
    "ppc",
    "ppc64",
    "ppc64le",
    "riscv",
    "riscv64",
    "s390",
    "s390x",
    "sparc",
    "sparc64",
    "wasm",
];

/// The systems the `unix` constraint stands for.
const UNIX_GOOS: &[&str] = &[
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "linux",
    "netbsd",
    "openbsd",
    "solaris",
];

/// What every Go load of a pass satisfies.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GoBuildContext {
    pub goos: String,
    pub goarch: String,
    /// Whether cgo is enabled, decided as the go command decides it.
    pub cgo: bool,
    /// `go.build_tags`.
    pub build_tags: Vec<String>,
    /// `go.include_tests`.
    pub include_tests: bool,
}

impl Default for GoBuildContext {
    /// The configuration's defaults on this host.
    fn default() -> Self {
        GoBuildContext::of(&GoSection::default())
    }
}

impl GoBuildContext {
    /// The configuration's `go` section on this host: `GOOS`, `GOARCH` and `CGO_ENABLED`
    /// from the environment where it sets them, otherwise what the go command would pick
    /// (the host's system and architecture; cgo where a C compiler is on `PATH`).
    pub fn of(section: &GoSection) -> Self {
        let variable = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let goos = variable("GOOS").unwrap_or_else(|| host_goos().to_string());
        let goarch = variable("GOARCH").unwrap_or_else(|| host_goarch().to_string());
        let cross = goos != host_goos() || goarch != host_goarch();
        let cgo = match variable("CGO_ENABLED").as_deref() {
            Some(value) => value == "1",
            None => !cross && c_compiler_on_path(),
        };
        GoBuildContext {
            goos,
            goarch,
            cgo,
            build_tags: section.build_tags.clone(),
            include_tests: section.include_tests,
        }
    }

    /// Whether a build constraint's tag holds, as go/build's `matchTag` decides it: the
    /// configured tags, the system and architecture (with the systems that imply another),
    /// `unix`, the `gc` compiler, `cgo`, the default `GOAMD64` level, and every `go1.N`
    /// release tag (the toolchain is assumed to be newer than any file asks for).
    pub fn satisfies(&self, tag: &str) -> bool {
        if self.build_tags.iter().any(|t| t == tag) || tag == self.goos || tag == self.goarch {
            return true;
        }
        match tag {
            "gc" => true,
            "cgo" => self.cgo,
            "unix" => UNIX_GOOS.contains(&self.goos.as_str()),
            "linux" => self.goos == "android",
            "solaris" => self.goos == "illumos",
            "darwin" => self.goos == "ios",
            "amd64.v1" => self.goarch == "amd64",
            _ => tag.strip_prefix("go1.").is_some_and(|minor| {
                !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit())
            }),
        }
    }
}

fn host_goos() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    }
}

fn host_goarch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "386",
        "aarch64" => "arm64",
        "loongarch64" => "loong64",
        "powerpc64" if cfg!(target_endian = "little") => "ppc64le",
        "powerpc64" => "ppc64",
        other => other,
    }
}

/// The go command enables cgo for a native build when `CC`, or its default `gcc` (`clang`
/// on some systems), is found.
fn c_compiler_on_path() -> bool {
    let compilers: Vec<String> = match std::env::var("CC") {
        Ok(cc) if !cc.trim().is_empty() => {
            vec![cc.split_whitespace().next().unwrap_or_default().to_string()]
        }
        _ => vec!["gcc".into(), "clang".into()],
    };
    compilers.iter().any(|compiler| {
        let path = std::path::Path::new(compiler);
        if path.components().count() > 1 {
            return path.is_file();
        }
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(path).is_file()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linux(tags: &[&str]) -> GoBuildContext {
        GoBuildContext {
            goos: "linux".into(),
            goarch: "amd64".into(),
            cgo: false,
            build_tags: tags.iter().map(|t| t.to_string()).collect(),
            include_tests: false,
        }
    }

    #[test]
    fn tags_hold_as_go_build_matches_them() {
        let context = linux(&["ladybug"]);
        for tag in [
            "linux", "amd64", "unix", "gc", "ladybug", "go1.21", "amd64.v1",
        ] {
            assert!(context.satisfies(tag), "{tag}");
        }
        for tag in [
            "windows", "arm64", "cgo", "ignore", "go1.", "gccgo", "darwin",
        ] {
            assert!(!context.satisfies(tag), "{tag}");
        }
        let android = GoBuildContext {
            goos: "android".into(),
            ..context
        };
        assert!(android.satisfies("linux") && android.satisfies("unix"));
    }
}
