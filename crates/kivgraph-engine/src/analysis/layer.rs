//! The layering: a package's syntax facts with its analyzers' exact answers laid over
//! them, site by site, and the census reduced to what the graph still owes.

use std::collections::{BTreeMap, BTreeSet};

use kivgraph_facts::{
    Confidence, Edge, EdgeKind, Evidence, FactSet, Language, LineSpan, Provenance, Reason,
    StableKey, SymbolFact, SymbolKind, UnresolvedReference,
};
use serde::{Deserialize, Serialize};

use super::artifact_placement::{ArtifactPlacer, Placement};
use super::definitions::{AnalyzerDefinitions, analyzer_definitions};
use super::groups::load_groups;
use super::mismatch::{CratePaths, moniker_version_mismatch, unmatched_crate_use};
use super::scip_join::innermost;
use super::settings::configured_covers;
use super::typescript::module_place;
use super::unit::{UnitAnalysis, is_module_language};
use super::units::units_of;
use crate::database::Db;
use crate::files::file_facts;
use crate::inputs::{PackageInput, Workspace, repository_of};
use crate::keys::evidence_key;
use crate::packages::{package_facts, package_symbols};
use crate::placement::site_files;
use crate::resolve::go::go_files;
use crate::resolve::typescript::ModuleSite;
use crate::rust_build::RustBuild;
use crate::stored::Stored;

/// A package's facts with its analyzers' answers layered over the syntax layer's.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn analyzed_package_facts(db: &dyn Db, package: PackageInput) -> Stored<FactSet> {
    let syntax = package_facts(db, package);
    let units = units_of(db, package);
    if units.is_empty() {
        return syntax;
    }
    let definitions = analyzer_definitions(db, Workspace::get(db));
    let declared = package_symbols(db, package);
    let files = layer_files(db, package, &declared);
    let mut layer = Layer::default();
    let mut crate_paths = CratePaths::default();
    let covered: BTreeSet<Language> = match repository_of(db, package) {
        Some(repository) => Language::ALL
            .iter()
            .copied()
            .filter(|l| configured_covers(db, repository, *l))
            .collect(),
        None => BTreeSet::new(),
    };
    let by_key: BTreeMap<StableKey, &SymbolFact> =
        declared.symbols.iter().map(|s| (s.key, s)).collect();
    let syntax_implements = syntax_implements(&syntax);
    // Built on the first use of a registered package's artifact: it reads every
    // repository's manifests.
    let placer_cell = std::cell::OnceCell::new();
    let placer = || {
        placer_cell.get_or_init(|| {
            let directory = module_place(db, package)
                .map(|(_, d, _)| d)
                .unwrap_or_default();
            let repository = declared
                .packages
                .first()
                .map(|p| p.repository.clone())
                .unwrap_or_default();
            ArtifactPlacer::new(db, &definitions, (repository, directory))
        })
    };
    for unit in &units {
        layer.not_built.extend(
            syntax
                .files
                .iter()
                .map(|f| (f.repository.clone(), f.path.clone()))
                .filter(|file| unit.not_built.binary_search(file).is_ok()),
        );
        if let Some(build) = &unit.rust_build {
            layer.leave_out_inactive_code(db, package, build);
        }
        for file in &files {
            let (repository, path) = (&file.file.repository, &file.file.path);
            let symbols =
                &declared.symbols[file.first_symbol..file.first_symbol + file.symbol_count];
            let holders: Vec<&SymbolFact> = symbols.iter().collect();
            let references = unit.references_in(repository, path);
            // A file of a language a configured indexer decides is that indexer's alone
            // (the TypeScript checker also reads the JavaScript beside it).
            if references.is_empty() || (!unit.configured && covered.contains(&file.file.language))
            {
                continue;
            }
            // The file's sites by the names they spell (an import's alias too).
            let mut sites_named: BTreeMap<&str, Vec<&ModuleSite>> = BTreeMap::new();
            for site in file.sites.iter() {
                sites_named
                    .entry(site.name.as_str())
                    .or_default()
                    .push(site);
                if let Some(alias) = site.alias.as_deref().filter(|a| *a != site.name) {
                    sites_named.entry(alias).or_default().push(site);
                }
            }
            for reference in references {
                // Two files define the symbol: which one the analyzer meant is not known,
                // unless two registered packages claim its name (a declared failure).
                let ambiguous = definitions.ambiguous.contains(&reference.symbol);
                // A symbol that names no declaration of the graph (the standard library, an
                // installed dependency, a parameter) still decides the site: the analyzer
                // proved it is not a declaration the syntax layer could have bound.
                let mut targets = definitions
                    .keys
                    .get(&reference.symbol)
                    .filter(|_| !ambiguous)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                let mut exactness = (
                    Confidence::ExactTypechecked,
                    unit.provenance(file.file.language),
                );
                let placed;
                if targets.is_empty() {
                    // A registered package's artifact: its source, or a declared failure.
                    let placement = if !unit.configured && is_module_language(file.file.language) {
                        placer().place(&unit.artifacts, reference, file.file)
                    } else {
                        Placement::Outside
                    };
                    let claimed_twice = matches!(&placement, Placement::Unresolved(hole)
                        if hole.reason == Reason::AmbiguousPackageProvider);
                    if ambiguous && !claimed_twice {
                        continue;
                    }
                    match placement {
                        Placement::Source {
                            targets: found,
                            confidence,
                            provenance,
                        } => {
                            placed = found;
                            targets = &placed;
                            exactness = (confidence, provenance);
                        }
                        Placement::Unresolved(hole) => layer.holes.push(hole),
                        Placement::Outside => {
                            let mismatch = if unit.configured {
                                moniker_version_mismatch(
                                    &definitions,
                                    reference,
                                    file.file.language,
                                )
                            } else {
                                unmatched_crate_use(db, &definitions, &mut crate_paths, reference)
                            };
                            match mismatch {
                                // The crate's load defines nothing there: the analyzer
                                // decides nothing, and the syntax layer's facts stand.
                                Some(hole) if hole.reason == Reason::CrateSymbolNotMatched => {
                                    layer.holes.push(hole);
                                    continue;
                                }
                                Some(hole) => layer.holes.push(hole),
                                None => layer.owed_nothing(repository, path, &reference.text, 1),
                            }
                        }
                    }
                }
                // A JavaScript file bound, by the checker, to a declaration file: the syntax
                // layer's binding to the module it runs stands.
                if file.file.language == Language::JavaScript
                    && definitions.declared_only.contains(&reference.symbol)
                {
                    continue;
                }
                let at = reference.span.start_byte;
                // The smallest syntax site around the position that spells the name is the
                // class of use; a name no site records (a value read, a property) is a plain
                // reference.
                let site = sites_named
                    .get(reference.text.as_str())
                    .into_iter()
                    .flatten()
                    .filter(|s| {
                        s.span.start_byte <= at && reference.span.end_byte <= s.span.end_byte
                    })
                    .min_by_key(|s| s.span.end_byte - s.span.start_byte);
                let (kind, span, holder) = match site {
                    // The trait named by an `impl Trait for Type` header: the syntax layer's
                    // IMPLEMENTS from the implementing type stands where it reached the
                    // analyzer's trait (rule R5).
                    Some(site)
                        if site.kind == EdgeKind::Implements
                            && file.file.language == Language::Rust
                            && targets.iter().any(|target| {
                                syntax_implements.contains(&(
                                    repository.as_str(),
                                    path.as_str(),
                                    site.span,
                                    *target,
                                ))
                            }) =>
                    {
                        continue;
                    }
                    // Where it did not (a trait through another crate's re-export), the
                    // analyzer's: from the implementing type, or, when the impl sits in a
                    // function's body (its type no declaration), the function uses the trait.
                    Some(site)
                        if site.kind == EdgeKind::Implements
                            && file.file.language == Language::Rust =>
                    {
                        let implementer = site.implementer.as_deref().and_then(|name| {
                            holders.iter().find(|s| {
                                s.name == name && s.parent.is_none() && s.kind.is_container()
                            })
                        });
                        match implementer {
                            Some(ty)
                                if site
                                    .enclosing
                                    .is_none_or(|i| symbols[i as usize].kind.is_container()) =>
                            {
                                (EdgeKind::Implements, site.span, Some(ty.key))
                            }
                            _ => (
                                EdgeKind::References,
                                site.span,
                                site.enclosing.map(|i| symbols[i as usize].key),
                            ),
                        }
                    }
                    Some(site) => {
                        // A field passed as an argument is read, not called back.
                        let kind = match site.kind {
                            EdgeKind::PassesAsCallback
                            | EdgeKind::AssignsFunction
                            | EdgeKind::ReturnsFunction
                                if definitions.all_data(targets) =>
                            {
                                EdgeKind::References
                            }
                            kind => kind,
                        };
                        let holder = site.enclosing.map(|i| &symbols[i as usize]);
                        // An embedded field embeds into the struct that holds it.
                        let holder = match holder {
                            Some(field) if kind == EdgeKind::Embeds => {
                                field.parent.map_or(Some(field.key), Some)
                            }
                            holder => holder.map(|h| h.key),
                        };
                        (kind, site.span, holder)
                    }
                    None => {
                        let holder = innermost(&holders, at as usize, |_| true).map(|s| s.key);
                        (EdgeKind::References, reference.span, holder)
                    }
                };
                let source = holder.unwrap_or(file.file.key);
                let at = (repository, path, span);
                layer.add(kind, at, source, targets, exactness);
            }
            for outside in unit.outside_in(repository, path) {
                layer.owed_nothing(repository, path, &outside.name, outside.count);
            }
        }
        // A member the analyzer says implements another: `IMPLEMENTS` to an interface's
        // member, `OVERRIDES` to a class's, observed at the implementing declaration.
        for (member, targets) in related(&unit.implementations, &definitions, &by_key) {
            if member.parent.is_none() {
                continue;
            }
            for target in targets {
                let kind = match holder_kind(db, *target) {
                    Some(SymbolKind::Interface) => EdgeKind::Implements,
                    Some(SymbolKind::Class) => EdgeKind::Overrides,
                    _ => continue,
                };
                let at = (&member.repository, &member.file_path, member.span.start());
                let exactness = (
                    Confidence::ExactTypechecked,
                    unit.provenance(member.language),
                );
                layer.add(kind, at, member.key, &[*target], exactness);
            }
        }
        // A declaration the analyzer says has a type: `TYPE_USES` to it, observed at the
        // declaration — what a change to the type reaches where no annotation spells it.
        for (declaration, targets) in related(&unit.type_definitions, &definitions, &by_key) {
            let at = (
                &declaration.repository,
                &declaration.file_path,
                declaration.span.start(),
            );
            let exactness = (
                Confidence::ExactTypechecked,
                unit.provenance(declaration.language),
            );
            layer.add(EdgeKind::TypeUses, at, declaration.key, targets, exactness);
        }
    }
    let mut not_loaded = unreadable_scopes(&syntax, &units);
    not_loaded.extend(unbuildable_directories(db, package, &units));
    if layer.decided.is_empty()
        && layer.not_built.is_empty()
        && layer.inactive.is_empty()
        && layer.owed_nothing.is_empty()
        && layer.holes.is_empty()
        && not_loaded.is_empty()
    {
        return syntax;
    }
    let mut facts = layer.over(&syntax);
    facts.unresolved.extend(not_loaded);
    Stored::new(facts)
}

/// Where the syntax layer's IMPLEMENTS stand: `(repository, path, span, trait)` of each.
fn syntax_implements(syntax: &FactSet) -> BTreeSet<(&str, &str, LineSpan, StableKey)> {
    let at: BTreeMap<StableKey, &Evidence> = syntax.evidence.iter().map(|e| (e.key, e)).collect();
    syntax
        .edges
        .iter()
        .filter(|e| e.kind == EdgeKind::Implements && e.provenance == Provenance::TreeSitterSyntax)
        .filter_map(|e| {
            let evidence = at.get(&e.evidence?)?;
            Some((
                evidence.repository.as_str(),
                evidence.file_path.as_str(),
                evidence.span,
                e.target,
            ))
        })
        .collect()
}

/// For each `(symbol, related)` relationship of analyzer symbols, this package's declaration
/// of the first (of `by_key`) with the graph's declarations of the second; a pair either side
/// of which names no declaration gives nothing.
fn related<'a>(
    relationships: &'a [(String, String)],
    definitions: &'a AnalyzerDefinitions,
    by_key: &'a BTreeMap<StableKey, &'a SymbolFact>,
) -> impl Iterator<Item = (&'a SymbolFact, &'a [StableKey])> + 'a {
    relationships.iter().flat_map(move |(symbol, related)| {
        let sources = definitions
            .keys
            .get(symbol)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let targets = definitions
            .keys
            .get(related)
            .map(Vec::as_slice)
            .unwrap_or_default();
        sources
            .iter()
            .filter(move |_| !targets.is_empty())
            .filter_map(move |source| Some((*by_key.get(source)?, targets)))
    })
}

/// What the package's units could not read at all, as invisible scopes of the package: a
/// Go module the go command could not list (`MODULE_NOT_LOADED`: nothing of it was checked)
/// and a Go package the build tags exclude (`PACKAGE_NOT_BUILDABLE`). A partial load — a
/// Cargo workspace analysed without its dependencies, a Go package checked without a
/// required module nobody downloaded — is reported with its unit and hides nothing: every
/// site the analyzer could not decide keeps the syntax layer's answer, census included, and
/// the language is not marked analysed everywhere, so answers keep the syntax layer's floors.
fn unreadable_scopes(syntax: &FactSet, units: &[&UnitAnalysis]) -> Vec<UnresolvedReference> {
    let Some(package) = syntax.packages.first() else {
        return Vec::new();
    };
    let scope = |reason: Reason, detail: &str| UnresolvedReference {
        repository: package.repository.clone(),
        language: package.language,
        reason,
        file_path: None,
        span: None,
        requested_symbol: None,
        requested_package: Some(package.name.clone()),
        detail: detail.to_string(),
    };
    // A Go package is named `<module> <import path>`.
    let import_path = package.name.rsplit(' ').next().unwrap_or(&package.name);
    let in_module = |module: &str| {
        import_path == module
            || import_path
                .strip_prefix(module)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    let mut scopes: Vec<UnresolvedReference> = Vec::new();
    for unit in units {
        scopes.extend(
            unit.unloaded
                .iter()
                .filter(|(pattern, _)| pattern.strip_suffix("/...").is_some_and(in_module))
                .map(|(_, detail)| scope(Reason::ModuleNotLoaded, detail)),
        );
        scopes.extend(
            unit.unbuildable
                .iter()
                .filter(|(unbuildable, _)| unbuildable == import_path)
                .map(|(_, detail)| scope(Reason::PackageNotBuildable, detail)),
        );
    }
    scopes
}

/// Go packages of the module `package` owns that the build context excludes whole: no
/// discovered package holds their directory (discovery left out every file of it), so the
/// owner declares them, as `PACKAGE_NOT_BUILDABLE` scopes named `<module> <import path>`.
fn unbuildable_directories(
    db: &dyn Db,
    package: PackageInput,
    units: &[&UnitAnalysis],
) -> Vec<UnresolvedReference> {
    let Some(repository) = repository_of(db, package) else {
        return Vec::new();
    };
    let groups = load_groups(db, repository);
    let Some((module, members)) = groups.owned_by(package, Language::Go) else {
        return Vec::new();
    };
    let Some(module_path) = repository
        .module_maps(db)
        .go_modules
        .get(module)
        .map(|m| m.path.clone())
    else {
        return Vec::new();
    };
    let held: BTreeSet<&str> = members
        .iter()
        .flat_map(|member| member.files(db))
        .map(|file| file.path(db).rsplit_once('/').map_or("", |(dir, _)| dir))
        .collect();
    let mut scopes = Vec::new();
    for (import_path, detail) in units.iter().flat_map(|unit| &unit.unbuildable) {
        let Some(relative) = import_path
            .strip_prefix(module_path.as_str())
            .map(|rest| rest.trim_start_matches('/'))
        else {
            continue;
        };
        let directory = [module, relative]
            .iter()
            .filter(|part| !part.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("/");
        if held.contains(directory.as_str()) {
            continue;
        }
        scopes.push(UnresolvedReference {
            repository: repository.name(db).clone(),
            language: Language::Go,
            reason: Reason::PackageNotBuildable,
            file_path: None,
            span: None,
            requested_symbol: None,
            requested_package: Some(format!("{module_path} {import_path}")),
            detail: detail.clone(),
        });
    }
    scopes
}

/// A file the layering reads: where its symbols sit in the package's declarations, and its
/// syntax sites in one shape whatever the language.
struct LayerFile<'db> {
    file: &'db kivgraph_facts::FileFact,
    first_symbol: usize,
    symbol_count: usize,
    sites: std::borrow::Cow<'db, [ModuleSite]>,
}

fn layer_files<'db>(
    db: &'db dyn Db,
    package: PackageInput,
    declared: &'db FactSet,
) -> Vec<LayerFile<'db>> {
    let mut files: Vec<LayerFile> = site_files(db, package, declared)
        .into_iter()
        .map(|f| LayerFile {
            file: f.file,
            first_symbol: f.first_symbol,
            symbol_count: f.symbol_count,
            sites: std::borrow::Cow::Borrowed(f.sites),
        })
        .collect();
    files.extend(
        go_files(db, package, declared)
            .into_iter()
            .map(|f| LayerFile {
                file: f.file,
                first_symbol: f.first_symbol,
                symbol_count: f.symbol_count,
                sites: std::borrow::Cow::Owned(f.sites.as_module_sites()),
            }),
    );
    files
}

/// The kind of the declaration holding a member, looked up across the workspace's
/// analysed declarations.
fn holder_kind(db: &dyn Db, member: StableKey) -> Option<SymbolKind> {
    let holders = member_holders(db, Workspace::get(db));
    holders.get(&member).copied()
}

/// Each member's holder kind (a class or an interface), for every package an analyzer
/// covers: what decides `IMPLEMENTS` from `OVERRIDES`.
#[salsa::tracked(returns(clone), persist, lru = 0)]
pub(super) fn member_holders(
    db: &dyn Db,
    workspace: Workspace,
) -> Stored<BTreeMap<StableKey, SymbolKind>> {
    let mut holders = BTreeMap::new();
    for repository in workspace.repositories(db) {
        for package in repository.packages(db) {
            let declared = package_symbols(db, *package);
            let kinds: BTreeMap<StableKey, SymbolKind> =
                declared.symbols.iter().map(|s| (s.key, s.kind)).collect();
            for symbol in &declared.symbols {
                if let Some(kind) = symbol.parent.and_then(|p| kinds.get(&p)) {
                    holders.insert(symbol.key, *kind);
                }
            }
        }
    }
    Stored::new(holders)
}

/// Exact edges found for one package, and the sites they decide.
#[derive(Default)]
struct Layer {
    edges: BTreeSet<Edge>,
    evidence: BTreeMap<StableKey, Evidence>,
    /// `(repository, path, span)` of every decided site.
    decided: BTreeSet<(String, String, LineSpan)>,
    /// Per `(repository, path)` and name, spellings the analyzer bound outside the graph.
    owed_nothing: BTreeMap<(String, String), BTreeMap<String, u32>>,
    /// Uses the analyzer resolved into something the graph holds another version of.
    holes: Vec<UnresolvedReference>,
    /// `(repository, path)` of files the analysed build does not compile: their
    /// declarations stay (another build may compile them), what they spell is no use.
    not_built: BTreeSet<(String, String)>,
    /// Per `(repository, path)`, the byte ranges a `cfg` the build does not satisfy leaves
    /// out, outermost only: what they spell is no use either.
    inactive: BTreeMap<(String, String), Vec<(u32, u32)>>,
}

impl Layer {
    fn add(
        &mut self,
        kind: EdgeKind,
        (repository, path, span): (&String, &String, LineSpan),
        source: StableKey,
        targets: &[StableKey],
        (confidence, provenance): (Confidence, Provenance),
    ) {
        self.decided
            .insert((repository.clone(), path.clone(), span));
        if targets.is_empty() {
            return;
        }
        let observed = evidence_key(repository, path, span);
        for target in targets {
            self.edges.insert(Edge {
                kind,
                source,
                target: *target,
                confidence,
                provenance,
                evidence: Some(observed),
            });
        }
        self.evidence.entry(observed).or_insert_with(|| Evidence {
            key: observed,
            repository: repository.clone(),
            file_path: path.clone(),
            span,
        });
    }

    /// Records the code of `package`'s Rust files that a `cfg` the analysed build does not
    /// satisfy leaves out: its sites are no uses, its spellings owed nothing. A region
    /// inside one already left out is counted once.
    fn leave_out_inactive_code(&mut self, db: &dyn Db, package: PackageInput, build: &RustBuild) {
        for file in package.files(db) {
            if file.language(db) != Language::Rust {
                continue;
            }
            let (repository, path) = (file.repository(db), file.path(db));
            if self.not_built.contains(&(repository.clone(), path.clone())) {
                continue;
            }
            let facts = file_facts(db, *file);
            let mut left_out: Vec<(u32, u32)> = Vec::new();
            for region in &facts.cfg_regions {
                let inside = left_out
                    .last()
                    .is_some_and(|(_, end)| region.start_byte < *end);
                if inside || build.holds(path, &region.predicate) != Some(false) {
                    continue;
                }
                left_out.push((region.start_byte, region.end_byte));
                for mention in &region.mentions {
                    self.owed_nothing(repository, path, &mention.name, mention.count);
                }
            }
            if !left_out.is_empty() {
                self.inactive
                    .insert((repository.clone(), path.clone()), left_out);
            }
        }
    }

    /// Whether a site at `span` of a file lies in code the build leaves out.
    fn in_inactive_code(&self, repository: &str, path: &str, span: LineSpan) -> bool {
        !self.inactive.is_empty()
            && self
                .inactive
                .get(&(repository.to_string(), path.to_string()))
                .is_some_and(|ranges| {
                    ranges
                        .iter()
                        .any(|(start, end)| *start <= span.start_byte && span.end_byte <= *end)
                })
    }

    fn owed_nothing(&mut self, repository: &str, path: &str, name: &str, count: u32) {
        let file = (repository.to_string(), path.to_string());
        *self
            .owed_nothing
            .entry(file)
            .or_default()
            .entry(name.to_string())
            .or_default() += count;
    }

    /// The syntax layer's facts with every decided site's edges and holes replaced by the
    /// analyzer's, and each file's census reduced to the spellings the graph owes an
    /// explanation: what the analyzer bound outside the graph is accounted for. Package dependencies stay: they are observed at the import, whatever
    /// binds the names it brings.
    fn over(self, syntax: &FactSet) -> FactSet {
        let mut facts = syntax.clone();
        // Most packages leave nothing out: then no row pays for the lookups.
        let not_built = |repository: &String, path: &String| {
            !self.not_built.is_empty()
                && self.not_built.contains(&(repository.clone(), path.clone()))
        };
        // One pass over the evidence: the sites whose syntax edges go, and of those, the
        // ones in files the build does not compile, which import nothing either.
        let mut decided_evidence: BTreeSet<StableKey> = BTreeSet::new();
        let mut unbuilt_evidence: BTreeSet<StableKey> = BTreeSet::new();
        for e in &facts.evidence {
            let unbuilt = not_built(&e.repository, &e.file_path);
            if unbuilt {
                unbuilt_evidence.insert(e.key);
            }
            if unbuilt
                || self
                    .decided
                    .contains(&(e.repository.clone(), e.file_path.clone(), e.span))
                || self.in_inactive_code(&e.repository, &e.file_path, e.span)
            {
                decided_evidence.insert(e.key);
            }
        }
        facts.edges.retain(|edge| {
            if edge.kind == EdgeKind::PackageDependsOn {
                return !edge.evidence.is_some_and(|e| unbuilt_evidence.contains(&e));
            }
            edge.provenance != Provenance::TreeSitterSyntax
                || !edge.evidence.is_some_and(|e| decided_evidence.contains(&e))
        });
        facts
            .unresolved
            .retain(|row| match (&row.file_path, row.span) {
                (Some(path), _) if not_built(&row.repository, path) => false,
                (Some(path), Some(span)) if self.in_inactive_code(&row.repository, path, span) => {
                    false
                }
                (Some(path), Some(span)) => {
                    !self
                        .decided
                        .contains(&(row.repository.clone(), path.clone(), span))
                }
                _ => true,
            });
        for file in &mut facts.files {
            if not_built(&file.repository, &file.path) {
                file.mentions.clear();
                continue;
            }
            let at = (file.repository.clone(), file.path.clone());
            let Some(owed_nothing) = self.owed_nothing.get(&at) else {
                continue;
            };
            for mention in &mut file.mentions {
                if let Some(count) = owed_nothing.get(&mention.name) {
                    mention.count = mention.count.saturating_sub(*count);
                }
            }
            file.mentions.retain(|m| m.count > 0);
        }
        facts.unresolved.extend(self.holes);
        facts.edges.extend(self.edges);
        let known: BTreeSet<StableKey> = facts.evidence.iter().map(|e| e.key).collect();
        facts.evidence.extend(
            self.evidence
                .into_values()
                .filter(|e| !known.contains(&e.key)),
        );
        facts
    }
}

/// This module's share of [`crate::persisted::attach_restored_queries`].
pub(super) fn attach_restored_queries(db: &mut dyn Db) {
    package_summary::set_lru_capacity(db, 0);
    analyzed_package_facts::set_lru_capacity(db, 0);
    member_holders::set_lru_capacity(db, 0);
}

/// What a repository's report says of one of its packages, kept apart from the package's
/// facts so that a report reads no package's facts the pass did not change.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PackageSummary {
    pub files: usize,
    pub symbols: usize,
    /// Files tree-sitter had to recover, with their issue count.
    pub parse_failures: Vec<(String, usize)>,
}

#[salsa::tracked(returns(clone), persist, lru = 0)]
pub fn package_summary(db: &dyn Db, package: PackageInput) -> Stored<PackageSummary> {
    let facts = analyzed_package_facts(db, package);
    Stored::new(PackageSummary {
        files: facts.files.len(),
        symbols: facts.symbols.len(),
        parse_failures: facts
            .files
            .iter()
            .filter(|f| !f.parse_issues.is_empty())
            .map(|f| (f.path.clone(), f.parse_issues.len()))
            .collect(),
    })
}
