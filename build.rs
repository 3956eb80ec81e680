//! Built for Windows, the game's `.exe` carries its icon and version information (Explorer,
//! the taskbar and the installed programs' list show them): `packaging/windows/khet.rc`,
//! compiled by mingw-w64's `windres` (`$WINDRES` names another). Elsewhere this does nothing.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=packaging/windows/khet.rc");
    println!("cargo:rerun-if-changed=packaging/windows/khet.ico");
    println!("cargo:rerun-if-env-changed=WINDRES");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("windows") {
        return;
    }
    if let Err(e) = windows_resources() {
        // The build stops: a Windows game without its icon is not what we ship.
        println!("cargo:error={e}");
        std::process::exit(1);
    }
}

fn windows_resources() -> Result<(), String> {
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| format!("OUT_DIR: {e}"))?);
    let object = out.join("khet-resources.o");
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    // Windows' version is four numbers; a pre-release's suffix is left to the string.
    let mut parts: Vec<String> = version
        .split(['.', '-', '+'])
        .take(3)
        .map(|p| p.parse::<u16>().unwrap_or(0).to_string())
        .collect();
    parts.resize(4, "0".into());
    let windres = std::env::var("WINDRES").unwrap_or_else(|_| "x86_64-w64-mingw32-windres".into());
    let status = Command::new(&windres)
        .current_dir("packaging/windows")
        .arg(format!("-DKHET_VERSION=\\\"{version}\\\""))
        .arg(format!("-DKHET_VERSION_PARTS={}", parts.join(",")))
        .args(["--input", "khet.rc", "--output-format", "coff", "--output"])
        .arg(&object)
        .status()
        .map_err(|e| {
            format!("{windres}: {e} (Debian: apt-get install mingw-w64; or set WINDRES)")
        })?;
    if !status.success() {
        return Err(format!(
            "{windres} failed on packaging/windows/khet.rc ({status})"
        ));
    }
    // The game's program only: the engine and the server are built from other packages.
    println!("cargo:rustc-link-arg-bin=khet={}", object.display());
    Ok(())
}
