//! Which version of a registered npm package a consumer may be bound to. The range that
//! decides is the consumer's own; for a package it only reaches through another (installed
//! as a dependency of a dependency), the range of the nearest registered package on that
//! chain — the workspace a developer who links the registered repositories has — else
//! compatibility with the copy the checker read.

use std::collections::{BTreeSet, VecDeque};

use crate::artifacts::NpmManifest;

/// A range a package is required at, and through which registered package when the
/// consumer does not name it itself (`@tanstack/react-query 5.104.4`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Requirement {
    pub range: String,
    pub via: Option<String>,
}

/// The range `consumer` requires `package` at: its own, else the one of the nearest
/// registered package it reaches through dependencies whose registered versions are inside
/// the ranges required of them. `registered` gives the one registered manifest of a name.
pub(crate) fn requirement(
    consumer: &NpmManifest,
    package: &str,
    registered: impl Fn(&str) -> Option<NpmManifest>,
) -> Option<Requirement> {
    if let Some(range) = consumer.dependencies.get(package) {
        return Some(Requirement {
            range: range.clone(),
            via: None,
        });
    }
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut queue: VecDeque<(String, String)> = consumer
        .dependencies
        .iter()
        .map(|(name, range)| (name.clone(), range.clone()))
        .collect();
    while let Some((name, range)) = queue.pop_front() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(manifest) = registered(&name) else {
            continue;
        };
        let Some(version) = manifest.version.as_deref() else {
            continue;
        };
        if !satisfies(&range, version).unwrap_or(false) {
            continue;
        }
        if let Some(range) = manifest.dependencies.get(package) {
            return Some(Requirement {
                range: range.clone(),
                via: Some(format!("{name} {version}")),
            });
        }
        queue.extend(
            manifest
                .dependencies
                .iter()
                .map(|(name, range)| (name.clone(), range.clone())),
        );
    }
    None
}

/// Whether `version` is inside `range`; `None` when npm reads neither.
fn satisfies(range: &str, version: &str) -> Option<bool> {
    let range = nodejs_semver::Range::parse(range).ok()?;
    Some(range.satisfies(&nodejs_semver::Version::parse(version).ok()?))
}

/// Whether `registered` is a version a consumer of `package` may use: inside the range
/// `required` says, else (no range npm could read: a workspace link, a tag, a path)
/// compatible with the copy `seen` installed for it. The detail of the conflict when it is
/// not.
pub(crate) fn version_conflict(
    package: &str,
    required: Option<&Requirement>,
    seen: &str,
    registered: Option<&str>,
) -> Option<String> {
    let registered = registered?;
    if let Some(required) = required
        && let Some(inside) = satisfies(&required.range, registered)
    {
        let who = match &required.via {
            None => "the consumer requires".to_string(),
            Some(via) => format!("the consumer reaches {package} through {via}, which requires"),
        };
        return (!inside).then(|| {
            format!(
                "{who} {package} {}; the registered source is {package} {registered}",
                required.range
            )
        });
    }
    (!satisfies(&format!("^{seen}"), registered)?).then(|| {
        format!(
            "the checker read {package} {seen}; the registered source is {package} {registered}"
        )
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn manifest(version: &str, dependencies: &[(&str, &str)]) -> NpmManifest {
        NpmManifest {
            version: Some(version.to_string()),
            dependencies: dependencies
                .iter()
                .map(|(n, r)| (n.to_string(), r.to_string()))
                .collect(),
            installed: None,
        }
    }

    fn own(range: &str) -> Requirement {
        Requirement {
            range: range.to_string(),
            via: None,
        }
    }

    #[test]
    fn a_registered_version_outside_the_required_range_conflicts() {
        let conflict = |range: Option<&str>, seen, registered| {
            version_conflict("p", range.map(own).as_ref(), seen, registered)
        };
        assert!(conflict(Some("^1.0.0"), "1.0.0", Some("2.0.0")).is_some());
        assert!(conflict(Some("1.0.0"), "1.0.0", Some("1.0.0")).is_none());
        assert!(conflict(Some(">=1 <3"), "1.0.0", Some("2.5.0")).is_none());
        // A workspace link says nothing npm reads: the copy the checker read decides.
        assert!(conflict(Some("workspace:*"), "2.0.0", Some("2.1.0")).is_none());
        assert!(conflict(None, "1.0.0", Some("2.0.0")).is_some());
        assert!(conflict(None, "1.0.0", None).is_none());
    }

    /// trpc's React binding requires `@tanstack/react-query ^5.80.3` and never names
    /// `@tanstack/query-core`, which npm installed at 5.108.4 for it; the registered
    /// react-query 5.104.4 pins the registered query-core 5.104.4: linked, they agree.
    #[test]
    fn a_package_reached_through_a_registered_one_takes_its_range() {
        let registered = BTreeMap::from([
            (
                "@tanstack/react-query",
                manifest("5.104.4", &[("@tanstack/query-core", "5.104.4")]),
            ),
            ("@tanstack/query-core", manifest("5.104.4", &[])),
        ]);
        let lookup = |name: &str| registered.get(name).cloned();
        let consumer = manifest("11.0.0", &[("@tanstack/react-query", "^5.80.3")]);
        let required = requirement(&consumer, "@tanstack/query-core", lookup).unwrap();
        assert_eq!(
            required,
            Requirement {
                range: "5.104.4".into(),
                via: Some("@tanstack/react-query 5.104.4".into())
            }
        );
        assert_eq!(
            version_conflict(
                "@tanstack/query-core",
                Some(&required),
                "5.108.4",
                Some("5.104.4")
            ),
            None
        );
        // Without the chain, the copy read decides: 5.104.4 is older than 5.108.4.
        assert_eq!(
            version_conflict("@tanstack/query-core", None, "5.108.4", Some("5.104.4")).as_deref(),
            Some(
                "the checker read @tanstack/query-core 5.108.4; the registered source is @tanstack/query-core 5.104.4"
            )
        );
        // A registered link outside the consumer's range is no chain.
        let old = manifest("11.0.0", &[("@tanstack/react-query", "^4.0.0")]);
        assert_eq!(requirement(&old, "@tanstack/query-core", lookup), None);
        let stale = Requirement {
            range: "5.90.0".into(),
            via: Some("@tanstack/react-query 5.90.0".into()),
        };
        assert_eq!(
            version_conflict(
                "@tanstack/query-core",
                Some(&stale),
                "5.108.4",
                Some("5.104.4")
            )
            .as_deref(),
            Some(
                "the consumer reaches @tanstack/query-core through @tanstack/react-query 5.90.0, which requires @tanstack/query-core 5.90.0; the registered source is @tanstack/query-core 5.104.4"
            )
        );
    }
}
