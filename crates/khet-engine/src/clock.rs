//! The clock the search and the solver read their deadlines from.
//!
//! On `wasm32-unknown-unknown` (a browser) `std::time::Instant::now` panics, since that target
//! has no clock of its own; there the `web-time` crate's `Instant` reads the page's
//! `performance.now()`. Everywhere else it is std's own, so native builds gain no dependency
//! and run the same code.

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::Instant;
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use web_time::Instant;
