//! Files that are tests by their language's own rule, so that an answer says so: a row from
//! one is a test's use, not the build's (Go's `_test.go` files, in the graph only with
//! `go.include_tests`). Naming conventions of other languages are conventions, not rules,
//! and are not labelled.

pub(crate) fn is_test_file(path: &str) -> bool {
    path.ends_with("_test.go")
}
