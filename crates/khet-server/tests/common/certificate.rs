//! A certificate made as a club makes one for a server of its own (openssl), for the tests that
//! serve `https://` and `wss://`: the server's (`tls.rs`) and the engine's command line's, which
//! takes this file by its path.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A self-signed certificate for `localhost` and 127.0.0.1, and its key: (cert, key).
pub fn certificate(dir: &Path) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let out = Command::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
        ])
        .args(["-nodes", "-days", "2", "-subj", "/CN=localhost"])
        .args(["-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        // A server's certificate, not an authority's (rustls refuses a CA as a server).
        .args(["-addext", "basicConstraints=critical,CA:FALSE"])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("openssl runs (.ci/test installs it)");
    assert!(
        out.status.success(),
        "openssl: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (cert, key)
}
