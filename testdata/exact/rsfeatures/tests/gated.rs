//! A test crate only the `extras` feature builds: the module it declares is compiled by
//! nothing else.
#![cfg(feature = "extras")]

mod common;

#[test]
fn doubles() {
    assert_eq!(common::doubled_side(), 4.0);
}
