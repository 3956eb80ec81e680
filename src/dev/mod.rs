//! What developers run and players never need, compiled only with the `dev` feature (which
//! `cargo test` turns on through the package's own dev-dependency): the scripted tour of the
//! real window that the end-to-end test judges (`khet --autoplay DIR`), its online part
//! (`khet --online-tour DIR --server URL`), and the headless frame benchmark
//! (`khet --bench-frames`). The player's build has neither.

pub mod bench;
mod broken;
mod online_tour;
mod script;
mod tour;

pub use online_tour::OnlineTourPlugin;
pub use tour::AutoplayPlugin;
