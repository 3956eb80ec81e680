//! Puts the play page's engine into the server when it has been built: `scripts/build-web`
//! compiles `crates/khet-web` to WebAssembly with its JavaScript glue into
//! `$CARGO_TARGET_DIR/web/khet-web` (or `KHET_WEB_DIR`), and the server serves both from its
//! binary, as it serves the pages. Without them the server still builds and serves everything
//! else; the page then offers no game against the computer and says why. (Building the wasm
//! from here would need a second cargo inside this one and the wasm32 target on every machine
//! that builds the desktop game, which embeds the server to host games.)

//!
//! With the `game-3d` feature it also puts in the 3D game's page (`scripts/build-game-web`, into
//! `$CARGO_TARGET_DIR/web/khet-3d` or `KHET_GAME_3D_DIR`), served at `/3d`; asked for and not
//! built, the build fails with what to run.

use std::path::{Path, PathBuf};

const FILES: [&str; 2] = ["khet_web.js", "khet_web_bg.wasm"];

/// The 3D game's page, as `scripts/build-game-web` leaves it, and each file's type.
const GAME_3D: [(&str, &str); 7] = [
    ("index.html", "text/html; charset=utf-8"),
    ("start.js", "text/javascript; charset=utf-8"),
    ("think-worker.js", "text/javascript; charset=utf-8"),
    ("game.css", "text/css; charset=utf-8"),
    ("icon.png", "image/png"),
    ("khet.js", "text/javascript; charset=utf-8"),
    ("khet_bg.wasm", "application/wasm"),
];

/// Gzips `bytes` (level 9) into `OUT_DIR/name.gz`, once here rather than at each request.
fn gzipped(out: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut gz, bytes).expect("gzip in memory");
    let file = out.join(format!("{name}.gz"));
    std::fs::write(&file, gz.finish().expect("gzip in memory")).expect("OUT_DIR");
    file
}

/// `game3d.rs`: the 3D game's files, or none without the feature.
fn game_3d(out: &Path) -> String {
    println!("cargo::rerun-if-env-changed=KHET_GAME_3D_DIR");
    if std::env::var_os("CARGO_FEATURE_GAME_3D").is_none() {
        return "/// The 3D game's page: not in this build (the `game-3d` feature).
                pub const GAME_3D: &[Page3d] = &[];
"
        .into();
    }
    let dir = std::env::var_os("KHET_GAME_3D_DIR")
        .map_or_else(|| target_dir(out).join("web/khet-3d"), PathBuf::from);
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut code = String::from(
        "/// The 3D game's page (`scripts/build-game-web`): each file, its type, as built and \
         gzipped.\npub const GAME_3D: &[Page3d] = &[\n",
    );
    for (name, kind) in GAME_3D {
        let path = dir.join(name);
        let Ok(bytes) = std::fs::read(&path) else {
            panic!(
                "the game-3d feature needs the 3D game built: no {}. Run scripts/build-game-web \
                 (or set KHET_GAME_3D_DIR to its folder), then build again.",
                path.display()
            );
        };
        let packed = gzipped(out, &format!("3d-{name}"), &bytes);
        // Brotli as `scripts/build-game-web` made it (`NAME.br` beside the file), if it did.
        let br = dir.join(format!("{name}.br"));
        let br = if br.is_file() {
            format!("Some(include_bytes!({br:?}))")
        } else {
            "None".into()
        };
        code.push_str(&format!(
            "    Page3d {{ name: {name:?}, kind: {kind:?}, plain: include_bytes!({path:?}), \
             gz: include_bytes!({packed:?}), br: {br} }},\n"
        ));
    }
    code.push_str("];\n");
    code
}

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
            packed.push(gzipped(&out, name, &bytes));
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
    std::fs::write(out.join("game3d.rs"), game_3d(&out)).expect("OUT_DIR is writable");
}
