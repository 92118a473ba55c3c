//! A global SCIP symbol read into its parts: `scheme manager package version descriptors`
//! (`rust-analyzer cargo syn 3.0.10 lit/Lit#`). A local symbol (`local 12`) has none.

use kivgraph_facts::SymbolKind;

pub(super) struct ScipSymbol<'a> {
    pub(super) scheme: &'a str,
    pub(super) manager: &'a str,
    pub(super) package: &'a str,
    pub(super) version: &'a str,
    descriptors: &'a str,
}

impl<'a> ScipSymbol<'a> {
    pub(super) fn parse(symbol: &'a str) -> Option<ScipSymbol<'a>> {
        let mut parts = symbol.splitn(5, ' ');
        let (scheme, manager, package, version, descriptors) = (
            parts.next()?,
            parts.next()?,
            parts.next()?,
            parts.next()?,
            parts.next()?,
        );
        (scheme != "local").then_some(ScipSymbol {
            scheme,
            manager,
            package,
            version,
            descriptors,
        })
    }

    /// The symbol with its package version left out: one declaration whatever release of
    /// its package an indexer resolved it in.
    pub(super) fn unversioned(&self) -> String {
        let ScipSymbol {
            scheme,
            manager,
            package,
            descriptors,
            ..
        } = self;
        format!("{scheme} {manager} {package} {descriptors}")
    }

    /// The `::` path the descriptors spell, as the syntax layer qualifies a Rust
    /// declaration, when every one is a plain name — a namespace, a type, a term, a method
    /// or a macro (`lit/Lit#` is `lit::Lit`, `ident/Ident().` is `ident::Ident`) — or an
    /// inherent `impl` block of a plain type, whose items are the type's
    /// (`generics/impl#[Generics]lifetimes().` is `generics::Generics::lifetimes`). `None`
    /// for a trait impl's items (which trait decides the declaration), type parameters,
    /// parameters and escaped names.
    pub(super) fn declaration_path(&self) -> Option<String> {
        let mut names: Vec<&str> = Vec::new();
        let mut rest = self.descriptors;
        while !rest.is_empty() {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
            let (name, after) = rest.split_at(end);
            if let Some(block) = after.strip_prefix("#[").filter(|_| name == "impl") {
                let (ty, after) = block.split_once(']')?;
                // A trait impl (`[Type][Trait]`), a type spelled with more than a name, or
                // the impl block itself names no item of the type.
                if after.is_empty()
                    || after.starts_with('[')
                    || !ty.chars().all(|c| c.is_alphanumeric() || c == '_')
                {
                    return None;
                }
                names.push(ty);
                rest = after;
                continue;
            }
            rest = if let Some(method) = after.strip_prefix('(') {
                let close = method.find(')')?;
                method[close + 1..].strip_prefix('.')?
            } else {
                after
                    .strip_prefix(['/', '#', '.', '!'])
                    .filter(|_| !name.is_empty() && name != "impl")?
            };
            names.push(name);
        }
        (!names.is_empty()).then(|| names.join("::"))
    }
}

impl ScipSymbol<'_> {
    /// Whether a declaration of `kind` can be what the symbol names: its last descriptor
    /// says the namespace — a function or method (`().`), a type or variant (`#`), a macro
    /// (`!`), a module (`/`), else a term (a field, a constant, a static). A struct and the
    /// function a macro generates under its name (syn's `LitInt` and `LitInt()`) share a
    /// path, not a symbol.
    pub(super) fn may_name(&self, kind: SymbolKind) -> bool {
        use SymbolKind as K;
        let d = self.descriptors;
        if d.ends_with(").") {
            matches!(
                kind,
                K::Function | K::Func | K::Method | K::TraitMethod | K::StaticMethod
            )
        } else if d.ends_with('#') {
            matches!(
                kind,
                K::Struct
                    | K::Enum
                    | K::Union
                    | K::Trait
                    | K::TypeAlias
                    | K::Type
                    | K::Alias
                    | K::Class
                    | K::Interface
                    | K::EnumMember
                    | K::AssociatedType
            )
        } else if d.ends_with('!') {
            kind == K::Macro
        } else if d.ends_with('/') {
            matches!(kind, K::Module | K::Namespace)
        } else {
            matches!(
                kind,
                K::Field
                    | K::Const
                    | K::Constant
                    | K::Static
                    | K::Var
                    | K::Variable
                    | K::Property
                    | K::EnumMember
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use kivgraph_facts::SymbolKind;

    use super::ScipSymbol;

    #[test]
    fn a_symbol_reads_into_its_parts_and_its_declaration_path() {
        let symbol = ScipSymbol::parse("rust-analyzer cargo syn 3.0.10 lit/Lit#").unwrap();
        assert_eq!((symbol.package, symbol.version), ("syn", "3.0.10"));
        assert_eq!(symbol.unversioned(), "rust-analyzer cargo syn lit/Lit#");
        let path = |s: &str| ScipSymbol::parse(s).unwrap().declaration_path();
        assert_eq!(
            path("rust-analyzer cargo syn 3.0.10 lit/Lit#").unwrap(),
            "lit::Lit"
        );
        assert_eq!(
            path("rust-analyzer cargo syn 3.0.10 ident/Ident().").unwrap(),
            "ident::Ident"
        );
        assert_eq!(
            path("rust-analyzer cargo syn 3.0.10 lit/LitStr#token().").unwrap(),
            "lit::LitStr::token"
        );
        assert_eq!(
            path("rust-analyzer cargo quote 1.0.47 quote!").unwrap(),
            "quote"
        );
        assert_eq!(
            path("rust-analyzer cargo syn 3.0.10 generics/impl#[Generics]lifetimes().").unwrap(),
            "generics::Generics::lifetimes"
        );
        for other in [
            "rust-analyzer cargo syn 3.0.10 attr/impl#[Meta][`From<Path>`]from().",
            "rust-analyzer cargo syn 3.0.10 attr/impl#[Meta][Parse]parse().",
            "rust-analyzer cargo syn 3.0.10 attr/impl#[`&'a Attribute`]iter().",
            "rust-analyzer cargo syn 3.0.10 attr/impl#[Attribute]",
            "rust-analyzer cargo syn 3.0.10 punctuated/Punctuated#[T]",
        ] {
            assert_eq!(path(other), None, "{other}");
        }
        assert!(ScipSymbol::parse("local 12").is_none());
        let names = |s: &str, kind| ScipSymbol::parse(s).unwrap().may_name(kind);
        assert!(names(
            "rust-analyzer cargo syn 3.0.10 lit/LitInt#",
            SymbolKind::Struct
        ));
        assert!(!names(
            "rust-analyzer cargo syn 3.0.10 lit/LitInt().",
            SymbolKind::Struct
        ));
        assert!(names(
            "rust-analyzer cargo syn 3.0.10 lit/LitInt().",
            SymbolKind::Function
        ));
        assert!(names(
            "rust-analyzer cargo syn 3.0.10 lit/Lit#Int#",
            SymbolKind::EnumMember
        ));
    }
}
