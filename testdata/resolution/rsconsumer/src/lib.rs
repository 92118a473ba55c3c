use rsmods::store::{open, Handle};
use rsmods::Config;
use serde::Serialize;
use std::collections::HashMap;
use core::fmt::Debug;

pub fn consume() -> Config {
    let _handle: Handle = open();
    rsmods::store::close(rsmods::store::open());
    let _map: HashMap<u8, u8> = HashMap::new();
    Config::new()
}

pub struct Local;

impl rsmods::Describe for Local {
    fn describe(&self) -> String {
        String::from("local")
    }
}

pub trait Labelled {}

/// Supertraits of this crate and of another (rule R7); the standard library's give nothing.
pub trait Summary: Labelled + rsmods::Describe + Clone + Send {}

macro_rules! unit_struct {
    ($name:ident) => {
        pub struct $name;
    };
}

unit_struct!(Generated);

/// Methods on a type a macro declares: the graph holds no declaration of it.
impl Generated {
    pub fn make() -> Generated {
        Generated
    }
}
