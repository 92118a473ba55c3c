//! Where a TypeScript/JavaScript use the checker bound to a registered package's artifact
//! lands: the declaration in the registered source, placed by the artifact's declaration
//! map or by the provider's build configuration, or a declared failure saying why.

use kivgraph_discovery::{is_declaration, join_inside};
use kivgraph_facts::{Confidence, FileFact, Provenance, Reason, StableKey, UnresolvedReference};

use super::definitions::AnalyzerDefinitions;
use super::unit::UnitReference;
use crate::artifacts::{ArtifactFile, NpmManifest, NpmSymbol, file_descriptors, npm_manifests};
use crate::database::Db;
use crate::module_lookup::ModuleLookup;
use crate::npm_versions::{requirement, version_conflict};
use crate::resolve::typescript::{Found, follow};

/// Where a use of a registered package's artifact lands.
pub enum Placement {
    /// No registered repository declares the package: bound outside the graph.
    Outside,
    /// The declarations of the registered source, and how sure the step to them is.
    Source {
        targets: Vec<StableKey>,
        confidence: Confidence,
        provenance: Provenance,
    },
    /// Declared, never guessed.
    Unresolved(UnresolvedReference),
}

/// How the artifact was tied to a source.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tie {
    /// The artifact's declaration map (or the artifact is the source itself).
    Map,
    /// The provider's build configuration.
    Project,
}

/// Places a unit's uses of registered packages' artifacts for one package's layering.
pub struct ArtifactPlacer<'db> {
    db: &'db dyn Db,
    modules: ModuleLookup<'db>,
    definitions: &'db AnalyzerDefinitions,
    /// The consumer's repository and its `package.json` directory.
    consumer: (String, String),
}

impl<'db> ArtifactPlacer<'db> {
    pub fn new(
        db: &'db dyn Db,
        definitions: &'db AnalyzerDefinitions,
        consumer: (String, String),
    ) -> Self {
        ArtifactPlacer {
            db,
            modules: ModuleLookup::new(db),
            definitions,
            consumer,
        }
    }

    fn manifest(&self, repository: &str, directory: &str) -> Option<NpmManifest> {
        let input = crate::inputs::Workspace::get(self.db)
            .repositories(self.db)
            .iter()
            .find(|r| r.name(self.db) == repository)
            .copied()?;
        npm_manifests(self.db, input).get(directory).cloned()
    }

    /// Where `reference` (bound by the checker to a symbol no declaration of the graph
    /// carries) lands, given the artifacts its unit read.
    pub fn place(
        &self,
        artifacts: &[ArtifactFile],
        reference: &UnitReference,
        file: &FileFact,
    ) -> Placement {
        let Some(symbol) = NpmSymbol::parse(&reference.symbol) else {
            return Placement::Outside;
        };
        let Some(top) = symbol.top_name().filter(|_| symbol.names_an_export()) else {
            return Placement::Outside;
        };
        let unresolved = |reason: Reason, detail: String| {
            Placement::Unresolved(UnresolvedReference {
                repository: file.repository.clone(),
                language: file.language,
                reason,
                file_path: Some(file.path.clone()),
                span: Some(reference.span),
                requested_symbol: Some(reference.text.clone()),
                requested_package: Some(symbol.package.to_string()),
                detail,
            })
        };
        let claimants = self.modules.claimants(symbol.package).unwrap_or_default();
        let (repository, directory) = match claimants.as_slice() {
            [] => return Placement::Outside,
            [one] => one.clone(),
            several => {
                return unresolved(
                    Reason::AmbiguousPackageProvider,
                    format!(
                        "{} registered packages are named {}; none is chosen",
                        several.len(),
                        symbol.package
                    ),
                );
            }
        };
        let provider = self.manifest(&repository, &directory).unwrap_or_default();
        let own = (repository.as_str(), directory.as_str())
            == (self.consumer.0.as_str(), self.consumer.1.as_str());
        if !own {
            let consumer = self
                .manifest(&self.consumer.0, &self.consumer.1)
                .unwrap_or_default();
            let required = requirement(&consumer, symbol.package, |name| {
                match self.modules.claimants(name)?.as_slice() {
                    [(repository, directory)] => self.manifest(repository, directory),
                    _ => None,
                }
            });
            if let Some(detail) = version_conflict(
                symbol.package,
                required.as_ref(),
                symbol.version,
                provider.version.as_deref(),
            ) {
                return unresolved(Reason::PackageVersionMismatch, detail);
            }
        }
        let artifact = artifacts.iter().find(|a| {
            a.package == symbol.package && a.version == symbol.version && a.path == symbol.path
        });
        let described = format!("{} {} {}", symbol.package, symbol.version, symbol.path);
        let held = |path: &str| {
            self.modules.package_of(&repository, path).is_some() && !is_declaration(path)
        };
        let in_repository = |path: &str| join_inside(&directory, path);
        let installed = artifact.is_some_and(|a| a.installed);
        let (sources, tie): (Vec<String>, Tie) = match artifact.and_then(|a| a.map_sources.as_ref())
        {
            // The checker read the registered source itself: what it bound there is no
            // declaration of the graph (a local, a member of a type literal).
            _ if !installed && in_repository(&symbol.path).is_some_and(|p| held(&p)) => {
                return Placement::Outside;
            }
            // An installed copy of a source file: the same module of the registered source.
            _ if in_repository(&symbol.path).is_some_and(|p| held(&p)) => {
                (in_repository(&symbol.path).into_iter().collect(), Tie::Map)
            }
            Some(named) if !named.is_empty() => {
                let sources: Vec<String> = named
                    .iter()
                    .filter_map(|s| in_repository(s))
                    .filter(|s| held(s))
                    .collect();
                if sources.is_empty() {
                    return unresolved(
                        Reason::ProviderSourceUnavailable,
                        format!(
                            "the declaration map of {described} places it in {}, which {repository} does not hold",
                            named[0]
                        ),
                    );
                }
                (sources, Tie::Map)
            }
            _ => {
                let emitted: Vec<String> = in_repository(&symbol.path)
                    .and_then(|artifact| {
                        Some(
                            self.modules
                                .maps(&repository)?
                                .emitted_from(&artifact, true),
                        )
                    })
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|s| held(s))
                    .collect();
                if emitted.is_empty() {
                    return unresolved(
                        Reason::DeclarationSourceNotMapped,
                        format!(
                            "{described} has no declaration map, and no build configuration of {repository} emits it from a source"
                        ),
                    );
                }
                (emitted, Tie::Project)
            }
        };
        let version = provider.version.as_deref().unwrap_or("HEAD");
        let defined = |source: &str| {
            let inside = source
                .strip_prefix(directory.as_str())
                .map_or(source, |s| s.trim_start_matches('/'));
            let symbol = format!(
                "scip-typescript npm {} {version} {}{}",
                symbol.package,
                file_descriptors(inside),
                symbol.rest
            );
            self.definitions.keys.get(&symbol).cloned()
        };
        // A bundle's map names several sources: the one declaring what the checker named.
        let (confidence, provenance) = match tie {
            Tie::Map if sources.len() == 1 => {
                (Confidence::ExactTypechecked, Provenance::TypescriptChecker)
            }
            Tie::Map => (
                Confidence::ExactDeclarationMapped,
                Provenance::TypescriptDeclarationMap,
            ),
            Tie::Project => (
                Confidence::ExactPackageMapped,
                Provenance::TypescriptProjectReference,
            ),
        };
        let placed: Vec<Vec<StableKey>> = sources.iter().filter_map(|s| defined(s)).collect();
        match placed.as_slice() {
            [targets] => {
                return Placement::Source {
                    targets: targets.clone(),
                    confidence,
                    provenance,
                };
            }
            [] if tie == Tie::Map && sources.len() > 1 => {
                return unresolved(
                    Reason::DeclarationSourceNotMapped,
                    format!(
                        "none of the {} sources the declaration map of {described} names declares `{}`",
                        sources.len(),
                        reference.text
                    ),
                );
            }
            [] => {}
            several => {
                return unresolved(
                    Reason::DeclarationSourceNotMapped,
                    format!(
                        "{} of the sources the declaration map of {described} names declare `{}`; none is chosen",
                        several.len(),
                        reference.text
                    ),
                );
            }
        }
        // Not declared in the module the artifact came from: its re-exports, followed to the
        // declaring module, as the provider's project resolves them.
        let Some(module) = self
            .modules
            .find(&repository, vec![(sources[0].clone(), false)], true)
        else {
            return Placement::Outside;
        };
        let lookup = |from: &str, importer: &str, specifier: &str| {
            self.modules.lookup(from, importer, specifier)
        };
        match follow(&module, &top, &lookup, 0) {
            Found::Declaration(_, true, declaring) => match defined(&declaring) {
                Some(targets) => Placement::Source {
                    targets,
                    confidence: Confidence::ExactPackageMapped,
                    provenance: Provenance::TypescriptProjectReference,
                },
                // A member the graph does not declare (a parameter property, a member of a
                // type literal): no declaration a use could be owed to.
                None if symbol.is_member() => Placement::Outside,
                None => unresolved(
                    Reason::DeclarationSourceNotMapped,
                    format!(
                        "`{top}` of {repository} ({declaring}) is not the declaration {described} names"
                    ),
                ),
            },
            Found::Missing => unresolved(
                Reason::ExportNotFound,
                format!(
                    "{} of {repository} exports no `{top}`, directly or through its re-exports; {described} declares it",
                    sources[0]
                ),
            ),
            Found::Declaration(..) | Found::Undecided => unresolved(
                Reason::DeclarationSourceNotMapped,
                format!(
                    "{} of {repository} re-exports `{top}` from where it could not be followed; {described} declares it",
                    sources[0]
                ),
            ),
        }
    }
}
