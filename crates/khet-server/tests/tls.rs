//! `https://` and `wss://` served by `khet-server` itself, with a certificate the test makes
//! (openssl, as a club would for a server of its own): the clients' library (the game's and
//! the engine's) refuses it until told to trust it, then plays a game over it; the pages and the
//! lists answer over https; a plain client is turned away; a wrong certificate file is named.

mod common;

use common::certificate::certificate;
use common::{Backend, Client, Db, Server, TempDir, casual, pair, pharaoh_line, play_line};
use khet_protocol::client::{ClientError, Connection, trust_certificate};
use std::path::Path;
use std::process::Command;

fn curl(args: &[&str]) -> std::process::Output {
    Command::new("curl")
        .args(["--silent", "--show-error", "--max-time", "60"])
        .args(args)
        .output()
        .expect("curl runs (.ci/test installs it)")
}

#[test]
fn a_game_is_played_over_wss_once_the_servers_own_certificate_is_trusted() {
    let dir = TempDir::new("tls");
    let (cert, key) = certificate(&dir.0);
    let db = Db::new(Backend::Sqlite, "tls");
    let server = Server::start(
        &db,
        0,
        &[
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
    );
    assert!(server.url.starts_with("wss://"), "{}", server.url);
    let url = format!("wss://localhost:{}", server.port());
    let identity = common::identity();

    // Not trusted yet: refused by the client, saying why.
    match Connection::open(&url, &identity, "Early") {
        Err(ClientError::Connection(why)) => {
            assert!(why.to_lowercase().contains("certificate"), "{why}");
        }
        other => panic!("an untrusted server was accepted: {:?}", other.err()),
    }
    // A plain WebSocket to a TLS server: refused, not hung.
    let plain = format!("ws://127.0.0.1:{}", server.port());
    assert!(matches!(
        Connection::open(&plain, &identity, "Plain"),
        Err(ClientError::Connection(_))
    ));

    trust_certificate(&cert).expect("the certificate reads");
    let (mut silver, mut red, code) = pair(&url, casual());
    let line = pharaoh_line();
    play_line(&mut silver, &mut red, &mut [], &line);
    assert!(silver.wait_result() == red.wait_result());
    let mut watcher = Client::connect(&url, "Watcher");
    watcher.send(&khet_protocol::ClientMsg::Watch {
        code: code.clone(),
        since: None,
    });
    watcher.until("the game", |c| c.result().is_some());

    // The pages and lists over https, checked against the same certificate.
    let base = format!("https://localhost:{}", server.port());
    let cafile = cert.to_str().unwrap();
    let out = curl(&["--cacert", cafile, &format!("{base}/games/{code}.ron")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let record = String::from_utf8_lossy(&out.stdout);
    khet_engine::Record::from_ron(&record, "record")
        .and_then(|r| r.replay(&record, "record"))
        .unwrap_or_else(|e| panic!("the record replays: {e}\n{record}"));
    let out = curl(&["--cacert", cafile, &format!("{base}/healthz")]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n");
    // Served over TLS by the server itself, its answers tell browsers to come back only so.
    let out = curl(&[
        "--cacert",
        cafile,
        "--dump-header",
        "-",
        "--output",
        "/dev/null",
        &format!("{base}/play"),
    ]);
    let head = String::from_utf8_lossy(&out.stdout).to_ascii_lowercase();
    assert!(
        head.contains("strict-transport-security: max-age=31536000"),
        "{head}"
    );
    assert!(head.contains("content-security-policy: "), "{head}");
    let out = curl(&["--cacert", cafile, &format!("{base}/watch/{code}")]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("<html"));
    // And curl, like a browser, refuses it without being told to trust it.
    let out = curl(&[&format!("{base}/healthz")]);
    assert!(
        !out.status.success(),
        "an untrusted certificate was accepted"
    );
    drop((silver, red, watcher, server));
}

#[test]
fn a_wrong_certificate_or_key_file_is_named_and_nothing_is_served() {
    let dir = TempDir::new("tls-wrong");
    let (cert, key) = certificate(&dir.0);
    let junk = dir.0.join("junk.pem");
    std::fs::write(&junk, "not a certificate\n").unwrap();
    let db = Db::new(Backend::Sqlite, "tls-wrong");
    let serve = |cert: &Path, key: &Path| {
        let mut args = vec!["--listen".into(), "127.0.0.1:0".into()];
        args.extend(db.args());
        Command::new(env!("CARGO_BIN_EXE_khet-server"))
            .args(args)
            .arg("--tls-cert")
            .arg(cert)
            .arg("--tls-key")
            .arg(key)
            .output()
            .expect("khet-server runs")
    };
    for (c, k, named) in [
        (&junk, &key, &junk),
        (&cert, &junk, &junk),
        (&key, &key, &key),
    ] {
        let out = serve(c, k);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "served with {c:?} and {k:?}");
        assert!(err.contains(named.to_str().unwrap()), "{err}");
        assert!(out.stdout.is_empty(), "it said it listens: {err}");
    }
    // One without the other is refused by the command line.
    let out = Command::new(env!("CARGO_BIN_EXE_khet-server"))
        .arg("--tls-cert")
        .arg(&cert)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
