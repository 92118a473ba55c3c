//! The Rust build a unit was analysed as — the features cargo turned on for each crate,
//! whether `cfg(test)` is set, the extra `--cfg` values, the host target — so that a `cfg`
//! the source spells is decided as rustc (and rust-analyzer) decide it, or left undecided
//! where only something the pass cannot see (a build script's `cargo:rustc-cfg`) could
//! tell.

use kivgraph_syntax::CfgPredicate;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct RustBuild {
    /// `(crate directory relative to the repository, features)` per crate cargo resolved.
    pub member_features: Vec<(String, Vec<String>)>,
    /// `cfg(test)` is set for the repository's crates.
    pub test: bool,
    /// `name` or `key=value` (`key="value"`) values the analysis sets.
    pub cfgs: Vec<String>,
}

impl RustBuild {
    /// Whether `predicate` holds for code of the file at `path`: `None` where it turns on
    /// what the pass does not know (a build script's cfg, a crate cargo did not resolve).
    pub fn holds(&self, path: &str, predicate: &CfgPredicate) -> Option<bool> {
        let features = self
            .member_features
            .iter()
            .filter(|(directory, _)| {
                directory.is_empty()
                    || path
                        .strip_prefix(directory.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .max_by_key(|(directory, _)| directory.len())
            .map(|(_, features)| features);
        let set = |key: &str, value: Option<&str>| {
            self.cfgs
                .iter()
                .any(|cfg| match (cfg.split_once('='), value) {
                    (None, None) => cfg == key,
                    (Some((k, v)), Some(value)) => {
                        k.trim() == key && v.trim().trim_matches('"') == value
                    }
                    _ => false,
                })
        };
        let endian = if cfg!(target_endian = "little") {
            "little"
        } else {
            "big"
        };
        let known = |key: &str, value: Option<&str>| -> Option<bool> {
            if set(key, value) {
                return Some(true);
            }
            match (key, value) {
                ("feature", Some(name)) => features.map(|on| on.iter().any(|f| f == name)),
                ("test", None) => Some(self.test),
                ("unix", None) => Some(cfg!(unix)),
                ("windows", None) => Some(cfg!(windows)),
                ("target_os", Some(os)) => Some(os == std::env::consts::OS),
                ("target_family", Some(family)) => Some(family == std::env::consts::FAMILY),
                ("target_arch", Some(arch)) => Some(arch == std::env::consts::ARCH),
                ("target_pointer_width", Some(width)) => Some(width == usize::BITS.to_string()),
                ("target_endian", Some(order)) => Some(order == endian),
                _ => None,
            }
        };
        predicate.holds(&known)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn predicate(key: &str, value: Option<&str>) -> CfgPredicate {
        match value {
            Some(value) => CfgPredicate::KeyValue(key.into(), value.into()),
            None => CfgPredicate::Name(key.into()),
        }
    }

    #[test]
    fn features_are_the_crate_s_own_and_the_rest_is_the_target_or_unknown() {
        let build = RustBuild {
            member_features: vec![
                (String::new(), vec!["default".into(), "std".into()]),
                ("macros".into(), vec!["full".into()]),
            ],
            test: false,
            cfgs: vec!["miri".into(), "tier=\"two\"".into()],
        };
        let holds =
            |path: &str, key: &str, value: Option<&str>| build.holds(path, &predicate(key, value));
        assert_eq!(holds("src/lib.rs", "feature", Some("std")), Some(true));
        assert_eq!(holds("src/lib.rs", "feature", Some("full")), Some(false));
        // The innermost crate directory decides; a sibling sharing a prefix does not.
        assert_eq!(
            holds("macros/src/lib.rs", "feature", Some("full")),
            Some(true)
        );
        assert_eq!(
            holds("macros-extra/src/lib.rs", "feature", Some("full")),
            Some(false)
        );
        assert_eq!(holds("src/lib.rs", "test", None), Some(false));
        assert_eq!(holds("src/lib.rs", "miri", None), Some(true));
        assert_eq!(holds("src/lib.rs", "tier", Some("two")), Some(true));
        assert_eq!(holds("src/lib.rs", "tier", Some("one")), None);
        assert_eq!(
            holds("src/lib.rs", "target_os", Some(std::env::consts::OS)),
            Some(true)
        );
        assert_eq!(holds("src/lib.rs", "target_os", Some("plan9")), Some(false));
        assert_eq!(holds("src/lib.rs", "set_by_a_build_script", None), None);
        let unresolved = RustBuild::default();
        assert_eq!(
            unresolved.holds("src/lib.rs", &predicate("feature", Some("std"))),
            None
        );
    }
}
