//! Puts the play page's engine into the server when it has been built: `scripts/build-web`
//! compiles `crates/khet-web` to WebAssembly with its JavaScript glue into
//! `$CARGO_TARGET_DIR/web/khet-web` (or `KHET_WEB_DIR`), and the server serves both from its
//! binary, as it serves the pages. Without them the server still builds and serves everything
//! else; the page then offers no game against the computer and says why. (Building the wasm
//! from here would need a second cargo inside this one and the wasm32 target on every machine
//! that builds the desktop game, which embeds the server to host games.)

use std::path::{Path, PathBuf};

const FILES: [&str; 2] = ["khet_web.js", "khet_web_bg.wasm"];

/// The target directory: `CARGO_TARGET_DIR`, or the one `OUT_DIR` is in
/// (`TARGET/[TRIPLE/]PROFILE/build/khet-server-HASH/out`).
fn target_dir(out: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let profile = out.ancestors().nth(3).unwrap_or(out);
    let above = profile.parent().unwrap_or(profile);
    // Cross-compiled: one more level, the target triple's.
    if above.join("debug").is_dir() || above.join("release").is_dir() {
        above.to_path_buf()
    } else {
        above.parent().unwrap_or(above).to_path_buf()
    }
}

fn main() {
    println!("cargo::rerun-if-env-changed=KHET_WEB_DIR");
    println!("cargo::rerun-if-env-changed=CARGO_TARGET_DIR");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dir = std::env::var_os("KHET_WEB_DIR")
        .map_or_else(|| target_dir(&out).join("web/khet-web"), PathBuf::from);
    // Watched whether or not it holds the engine yet: a path that does not exist would run
    // this script (and rebuild the server) at every build.
    let _ = std::fs::create_dir_all(&dir);
    println!("cargo::rerun-if-changed={}", dir.display());
    let paths: Vec<PathBuf> = FILES.iter().map(|f| dir.join(f)).collect();
    let code = if paths.iter().all(|p| p.is_file()) {
        // Gzipped here once (level 9), for the browsers that accept it: a third of the bytes.
        let mut packed = Vec::new();
        for (path, name) in paths.iter().zip(FILES) {
            let bytes = std::fs::read(path).expect("the engine's file reads");
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            std::io::Write::write_all(&mut gz, &bytes).expect("gzip in memory");
            let file = out.join(format!("{name}.gz"));
            std::fs::write(&file, gz.finish().expect("gzip in memory")).expect("OUT_DIR");
            packed.push(file);
        }
        format!(
            "/// The play page's engine: its JavaScript glue and its WebAssembly, each as built and\n\
             /// gzipped.\n\
             pub const ENGINE: Option<Engine> = Some(Engine {{\n\
             js: include_bytes!({:?}),\n js_gz: include_bytes!({:?}),\n\
             wasm: include_bytes!({:?}),\n wasm_gz: include_bytes!({:?}),\n}});\n",
            paths[0], packed[0], paths[1], packed[1]
        )
    } else {
        println!(
            "cargo::warning=the play page's engine is not built (no {}): the server's page will \
             offer no game against the computer. Run scripts/build-web, then build again.",
            paths[1].display()
        );
        "/// The play page's engine: not built (scripts/build-web).\n\
         pub const ENGINE: Option<Engine> = None;\n"
            .to_string()
    };
    std::fs::write(out.join("engine.rs"), code).expect("OUT_DIR is writable");
}
