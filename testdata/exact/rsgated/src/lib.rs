//! A crate whose `fast` feature its own build leaves off: rust-analyzer, loading it, lowers
//! no `fast_sum`, so no load defines the symbol its consumer's build calls.

pub fn sum(values: &[u32]) -> u32 {
    values.iter().sum()
}

#[cfg(feature = "fast")]
pub fn fast_sum(values: &[u32]) -> u32 {
    sum(values)
}
