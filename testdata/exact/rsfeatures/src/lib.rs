//! Modules behind features: `metric` is on by default, `extras` is not, so the default
//! build compiles `metric.rs` and never `extras.rs`.

#[cfg(feature = "metric")]
pub mod metric;

#[cfg(feature = "extras")]
pub mod extras;
