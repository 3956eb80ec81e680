//! The 3D game (a Bevy app) lands here with its own issue; until then this binary says so and
//! points at what already works, the headless engine.

fn main() {
    println!(
        "The 3D Khet game is not built yet.\n\
         The engine is ready: cargo run --release -p khet-engine -- --help\n\
         e.g. cargo run --release -p khet-engine -- fire --setup classic"
    );
}
