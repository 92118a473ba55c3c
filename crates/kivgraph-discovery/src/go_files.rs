//! Which `.go` files a Go load compiles under the pass's build context, as go/build selects
//! them: not a directory `go list ./...` skips, not a test file unless tests are included,
//! not a file whose name or build constraint names another system, architecture or tag.

use kivgraph_config::{GoBuildContext, KNOWN_GOARCH, KNOWN_GOOS};

/// Why a `.go` file is not part of the configured build.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum GoFileRule {
    /// Under `testdata/`, or a directory or file whose name starts with `_` or `.`: never
    /// part of a package.
    IgnoredByGo,
    /// A `_test.go` file while `go.include_tests` is off.
    TestFile,
    /// A file name ending in another `_GOOS`, `_GOARCH` or `_GOOS_GOARCH`.
    FileName,
    /// A `//go:build` (or legacy `// +build`) constraint the context does not satisfy.
    BuildConstraint,
}

impl GoFileRule {
    pub fn as_str(self) -> &'static str {
        match self {
            GoFileRule::IgnoredByGo => "GO_IGNORED_PATH",
            GoFileRule::TestFile => "GO_TEST_FILE",
            GoFileRule::FileName => "GO_FILE_NAME_CONSTRAINT",
            GoFileRule::BuildConstraint => "GO_BUILD_CONSTRAINT",
        }
    }

    /// What the rule means, and the configuration that decides it.
    pub fn detail(self) -> &'static str {
        match self {
            GoFileRule::IgnoredByGo => {
                "testdata/ and names starting with _ or . are never part of a Go package"
            }
            GoFileRule::TestFile => "go.include_tests is false",
            GoFileRule::FileName => "the file name names another GOOS or GOARCH than the build's",
            GoFileRule::BuildConstraint => {
                "its build constraint is not satisfied by go.build_tags, GOOS, GOARCH and cgo"
            }
        }
    }
}

/// The files one rule left out of a repository.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GoFilesLeftOut {
    pub rule: GoFileRule,
    pub files: usize,
    /// The first of them, by path.
    pub example: String,
}

/// The rule that leaves `path` (repository-relative, `/`-separated, a `.go` file) out of
/// the build, if any; `content` is read only when the file's header decides.
pub fn go_file_left_out(
    context: &GoBuildContext,
    path: &str,
    content: impl FnOnce() -> Option<Vec<u8>>,
) -> Option<GoFileRule> {
    let (directories, file_name) = path.rsplit_once('/').unwrap_or(("", path));
    let ignored = |name: &str| name.starts_with('_') || name.starts_with('.');
    if directories
        .split('/')
        .any(|d| d == "testdata" || ignored(d))
        || ignored(file_name)
    {
        return Some(GoFileRule::IgnoredByGo);
    }
    let stem = file_name.strip_suffix(".go").unwrap_or(file_name);
    let test = stem.ends_with("_test");
    if test && !context.include_tests {
        return Some(GoFileRule::TestFile);
    }
    if !file_name_matches(context, stem.strip_suffix("_test").unwrap_or(stem)) {
        return Some(GoFileRule::FileName);
    }
    let content = content()?;
    if !constraints_hold(context, &content) {
        return Some(GoFileRule::BuildConstraint);
    }
    None
}

/// Bytes of a Go file read for its build constraints: what precedes its first line of code.
/// A header fits in the first few kilobytes; a file whose header goes on past them is read
/// whole. Discovery runs on every pass, unchanged ones too, so it reads no more than that.
pub(crate) fn read_header(path: &std::path::Path) -> Option<Vec<u8>> {
    use std::io::Read;
    const PREFIX: u64 = 8 * 1024;
    let mut file = std::fs::File::open(path).ok()?;
    let mut prefix = Vec::new();
    (&mut file).take(PREFIX).read_to_end(&mut prefix).ok()?;
    // Only whole lines say the header ended: a cut `//` could read as code.
    let whole_lines = prefix
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |at| at + 1);
    if (prefix.len() as u64) < PREFIX || FileHeader::of(&prefix[..whole_lines]).ended {
        return Some(prefix);
    }
    file.read_to_end(&mut prefix).ok()?;
    Some(prefix)
}

/// go/build's `goodOSArchFile`: everything before the first `_` is the name's own, and the
/// last one or two parts constrain the system and architecture.
fn file_name_matches(context: &GoBuildContext, stem: &str) -> bool {
    let Some(at) = stem.find('_') else {
        return true;
    };
    let parts: Vec<&str> = stem[at..].split('_').collect();
    let n = parts.len();
    if n >= 2 && KNOWN_GOOS.contains(&parts[n - 2]) && KNOWN_GOARCH.contains(&parts[n - 1]) {
        return context.satisfies(parts[n - 2]) && context.satisfies(parts[n - 1]);
    }
    let last = parts[n - 1];
    if KNOWN_GOOS.contains(&last) || KNOWN_GOARCH.contains(&last) {
        return context.satisfies(last);
    }
    true
}

/// Whether the file's build constraints hold: its `//go:build` line where it has one,
/// otherwise every `// +build` line of the header that a blank line ends.
fn constraints_hold(context: &GoBuildContext, content: &[u8]) -> bool {
    let header = FileHeader::of(content);
    if let Some(line) = header.go_build {
        // A malformed expression is the compiler's to report, not a reason to leave out.
        return Expression::parse(line).is_none_or(|e| e.holds(context));
    }
    header.plus_build_lines().all(|options| {
        options.split_whitespace().any(|option| {
            option.split(',').all(|term| match term.strip_prefix('!') {
                Some(tag) => !context.satisfies(tag),
                None => context.satisfies(term),
            })
        })
    })
}

/// The comment lines before a file's first code, as go/build's `parseFileHeader` reads them.
struct FileHeader<'a> {
    /// The expression of the `//go:build` line.
    go_build: Option<&'a str>,
    /// The header up to its last blank line: where `// +build` lines count.
    trimmed: Vec<&'a str>,
    /// Whether a line of code ends it: if not, the bytes read may stop inside it.
    ended: bool,
}

impl<'a> FileHeader<'a> {
    fn of(content: &'a [u8]) -> Self {
        let text = match std::str::from_utf8(content) {
            Ok(text) => text,
            Err(error) => std::str::from_utf8(&content[..error.valid_up_to()]).unwrap_or(""),
        };
        let mut lines_read = Vec::new();
        let mut end = 0;
        let mut go_build = None;
        let mut in_block = false;
        let mut ended = false;
        'lines: for raw in text.lines() {
            let line = raw.trim();
            if line.is_empty() {
                end = lines_read.len();
                lines_read.push(line);
                continue;
            }
            if !in_block
                && let Some(rest) = line.strip_prefix("//go:build")
                && (rest.is_empty() || rest.starts_with([' ', '\t']))
            {
                go_build.get_or_insert(rest.trim());
            }
            lines_read.push(line);
            let mut rest = line;
            while !rest.is_empty() {
                if in_block {
                    match rest.find("*/") {
                        Some(at) => {
                            in_block = false;
                            rest = rest[at + 2..].trim_start();
                        }
                        None => continue 'lines,
                    }
                } else if rest.starts_with("//") {
                    continue 'lines;
                } else if let Some(after) = rest.strip_prefix("/*") {
                    in_block = true;
                    rest = after;
                } else {
                    ended = true;
                    break 'lines;
                }
            }
        }
        lines_read.truncate(end);
        FileHeader {
            go_build,
            trimmed: lines_read,
            ended,
        }
    }

    /// The options of each `// +build` line.
    fn plus_build_lines(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.trimmed.iter().filter_map(|line| {
            let rest = line
                .strip_prefix("//")?
                .trim_start()
                .strip_prefix("+build")?;
            (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some(rest)
        })
    }
}

/// A `//go:build` expression: tags joined by `!`, `&&`, `||` and parentheses.
#[derive(Debug)]
enum Expression {
    Tag(String),
    Not(Box<Expression>),
    And(Box<Expression>, Box<Expression>),
    Or(Box<Expression>, Box<Expression>),
}

impl Expression {
    fn parse(text: &str) -> Option<Expression> {
        let tokens = tokens(text)?;
        let mut parser = Parser { tokens, at: 0 };
        let expression = parser.or()?;
        (parser.at == parser.tokens.len()).then_some(expression)
    }

    fn holds(&self, context: &GoBuildContext) -> bool {
        match self {
            Expression::Tag(tag) => context.satisfies(tag),
            Expression::Not(inner) => !inner.holds(context),
            Expression::And(a, b) => a.holds(context) && b.holds(context),
            Expression::Or(a, b) => a.holds(context) || b.holds(context),
        }
    }
}

fn tokens(text: &str) -> Option<Vec<String>> {
    let mut tokens = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let token_length = if rest.starts_with("&&") || rest.starts_with("||") {
            2
        } else if rest.starts_with(['!', '(', ')']) {
            1
        } else {
            let length = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len());
            if length == 0 {
                return None;
            }
            length
        };
        tokens.push(rest[..token_length].to_string());
        rest = rest[token_length..].trim_start();
    }
    Some(tokens)
}

struct Parser {
    tokens: Vec<String>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn or(&mut self) -> Option<Expression> {
        let mut left = self.and()?;
        while self.peek() == Some("||") {
            self.at += 1;
            left = Expression::Or(Box::new(left), Box::new(self.and()?));
        }
        Some(left)
    }

    fn and(&mut self) -> Option<Expression> {
        let mut left = self.not()?;
        while self.peek() == Some("&&") {
            self.at += 1;
            left = Expression::And(Box::new(left), Box::new(self.not()?));
        }
        Some(left)
    }

    fn not(&mut self) -> Option<Expression> {
        let token = self.peek()?.to_string();
        self.at += 1;
        match token.as_str() {
            "!" => Some(Expression::Not(Box::new(self.not()?))),
            "(" => {
                let inner = self.or()?;
                (self.peek() == Some(")")).then(|| self.at += 1)?;
                Some(inner)
            }
            ")" | "&&" | "||" => None,
            tag => Some(Expression::Tag(tag.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(tags: &[&str], include_tests: bool) -> GoBuildContext {
        GoBuildContext {
            goos: "linux".into(),
            goarch: "amd64".into(),
            cgo: false,
            build_tags: tags.iter().map(|t| t.to_string()).collect(),
            include_tests,
        }
    }

    fn rule(context: &GoBuildContext, path: &str, text: &str) -> Option<GoFileRule> {
        go_file_left_out(context, path, || Some(text.as_bytes().to_vec()))
    }

    #[test]
    fn paths_and_names_select_as_go_build_does() {
        let plain = context(&[], false);
        for (path, expected) in [
            ("a/b.go", None),
            ("linux.go", None),
            ("a/b_linux.go", None),
            ("a/b_linux_amd64.go", None),
            ("a/b_amd64_test.go", Some(GoFileRule::TestFile)),
            ("a/b_windows.go", Some(GoFileRule::FileName)),
            ("a/b_linux_arm64.go", Some(GoFileRule::FileName)),
            ("a/b_darwin_test.go", Some(GoFileRule::TestFile)),
            ("a/testdata/x.go", Some(GoFileRule::IgnoredByGo)),
            ("a/_old/x.go", Some(GoFileRule::IgnoredByGo)),
            ("a/_x.go", Some(GoFileRule::IgnoredByGo)),
            ("a/b_test.go", Some(GoFileRule::TestFile)),
        ] {
            assert_eq!(rule(&plain, path, "package b\n"), expected, "{path}");
        }
        let tests = context(&[], true);
        assert_eq!(rule(&tests, "a/b_test.go", "package b\n"), None);
        assert_eq!(
            rule(&tests, "a/b_darwin_test.go", "package b\n"),
            Some(GoFileRule::FileName)
        );
    }

    #[test]
    fn a_header_is_read_as_far_as_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let body = "func f() {}\n".repeat(2_000);
        let short = dir.path().join("short.go");
        std::fs::write(&short, format!("//go:build linux\n\npackage a\n{body}")).unwrap();
        assert_eq!(read_header(&short).unwrap().len(), 8 * 1024);
        // A license longer than the first read: the file is read on to its constraint.
        let long = dir.path().join("long.go");
        let license = "// Licensed under the terms below.\n".repeat(400);
        std::fs::write(
            &long,
            format!("{license}\n//go:build windows\n\npackage a\n"),
        )
        .unwrap();
        let header = read_header(&long).unwrap();
        assert_eq!(
            rule(
                &context(&[], false),
                "a/long.go",
                std::str::from_utf8(&header).unwrap()
            ),
            Some(GoFileRule::BuildConstraint)
        );
    }

    #[test]
    fn build_constraints_hold_as_go_build_evaluates_them() {
        let ladybug = context(&["ladybug"], false);
        for (text, built) in [
            ("//go:build ladybug\n\npackage a\n", true),
            ("//go:build !ladybug\n\npackage a\n", false),
            ("//go:build ignore\n\npackage main\n", false),
            ("//go:build linux && (amd64 || arm64)\npackage a\n", true),
            (
                "//go:build (darwin || windows) && !cgo\n\npackage a\n",
                false,
            ),
            ("//go:build go1.21 && unix\n\npackage a\n", true),
            // The license comes first; a block comment too.
            (
                "// Copyright\n/* more\n */\n\n//go:build windows\n\npackage a\n",
                false,
            ),
            // After the package clause a constraint is just a comment.
            ("package a\n\n//go:build windows\n", true),
            // Legacy lines count only in a header a blank line ends.
            ("// +build windows\n\npackage a\n", false),
            ("// +build windows linux,amd64\n\npackage a\n", true),
            ("// +build windows\npackage a\n", true),
            ("// +build linux\n// +build !amd64\n\npackage a\n", false),
            // `//go:build` decides when both are there.
            ("//go:build linux\n// +build windows\n\npackage a\n", true),
            // A malformed expression is left to the compiler.
            ("//go:build linux &&\n\npackage a\n", true),
        ] {
            assert_eq!(
                rule(&ladybug, "a/a.go", text),
                (!built).then_some(GoFileRule::BuildConstraint),
                "{text:?}"
            );
        }
    }
}
