//! `khet-engine online`: two engines play a whole game through a real server, which is stopped
//! mid-game and started again on the same data; both ride it out and agree on the result, and
//! the server's record of the game replays to it.

/// The server's tests' certificate maker, shared rather than copied.
#[path = "../../khet-server/tests/common/certificate.rs"]
mod certificate;

mod common;

use certificate::certificate;
use common::{PATIENCE, Server, engine, finish, finish_within_patience, temp};
use khet_server::Settings;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::{Duration, Instant};

#[test]
fn two_engines_finish_a_game_through_a_server_restart() {
    let dir = temp("restart");
    let data = dir.join("data");
    let server = Server::start(&data, "127.0.0.1:0".parse().unwrap());
    let url = format!("ws://{}", server.addr);
    let (a, b) = (dir.join("a"), dir.join("b"));
    let mut creator = engine(&[
        "online",
        "--server",
        &url,
        "--create",
        "--color",
        "silver",
        "--clock",
        "5+2",
        "--movetime",
        "40",
        "--name",
        "Engine A",
        "--identity",
        a.to_str().unwrap(),
    ]);
    let mut first = String::new();
    let mut out = BufReader::new(creator.stdout.take().unwrap());
    out.read_line(&mut first).unwrap();
    let code = first
        .trim()
        .strip_prefix("code ")
        .expect("the code first")
        .to_string();
    let mut link = String::new();
    out.read_line(&mut link).unwrap();
    assert_eq!(
        link.trim(),
        format!("link {}/play/{code}", url.replace("ws://", "http://")),
        "the game's page, for a friend to play in a browser"
    );
    let joiner = engine(&[
        "online",
        "--server",
        &url,
        "--join",
        &code,
        "--movetime",
        "40",
        "--name",
        "Engine B",
        "--identity",
        b.to_str().unwrap(),
    ]);
    // Some moves, then the server goes away mid-game.
    let record = format!("/games/{code}.ron");
    let started = Instant::now();
    while server.get(&record).matches("\", \"").count() < 4 {
        assert!(started.elapsed() < PATIENCE, "no moves");
        std::thread::sleep(Duration::from_millis(50));
    }
    let addr = server.addr;
    server.stop();
    let server = Server::start(&data, addr);

    let (code_b, out_b, err_b) = finish(joiner);
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let (code_a, _, err_a) = finish(creator);
    assert_eq!((code_a, code_b), (0, 0), "{err_a}\n{err_b}");
    assert!(
        err_a.contains("reconnecting") && err_b.contains("reconnecting"),
        "{err_a}{err_b}"
    );
    let result_a = rest.lines().find(|l| l.starts_with("result ")).unwrap();
    let result_b = out_b.lines().find(|l| l.starts_with("result ")).unwrap();
    assert_eq!(result_a, result_b);
    assert!(rest.contains(&format!("game {code}")) && out_b.contains(&format!("game {code}")));

    let text = server.get(&record);
    let game = khet_engine::Record::from_ron(&text, "record")
        .and_then(|r| r.replay(&text, "record"))
        .unwrap();
    let result = game.result().expect("over").to_string();
    assert_eq!(result_a, format!("result {result}"));
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn online_refuses_bad_arguments_at_once() {
    let dir = temp("bad");
    let id = dir.join("id");
    let id = id.to_str().unwrap();
    let cases: [&[&str]; 5] = [
        &[
            "online",
            "--server",
            "ws://127.0.0.1:1",
            "--create",
            "--identity",
            id,
        ],
        &["online", "--join", "not a code!", "--identity", id],
        &[
            "online",
            "--server",
            "https://example.org",
            "--seek",
            "--identity",
            id,
        ],
        &["online", "--create", "--clock", "0+0", "--identity", id],
        &["online", "--identity", id],
    ];
    for args in cases {
        // Refused before anything is tried: it ends by itself, however slow the machine.
        let (code, _, err) = finish_within_patience(engine(args), &format!("{args:?}"));
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.starts_with("error: ") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    // A broken identity file is reported with its name, and kept.
    std::fs::write(dir.join("broken"), b"\xff\xfe not hex").unwrap();
    let broken = dir.join("broken");
    let (code, _, err) = finish(engine(&[
        "online",
        "--server",
        "ws://127.0.0.1:1",
        "--create",
        "--identity",
        broken.to_str().unwrap(),
    ]));
    assert_eq!(code, 2);
    assert!(err.contains("broken:1: not an identity"), "{err}");
    assert_eq!(std::fs::read(&broken).unwrap(), b"\xff\xfe not hex");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_engines_play_over_wss_trusting_the_servers_own_certificate() {
    let dir = temp("wss");
    let (cert, key) = certificate(&dir);
    let tls = khet_server::tls::Tls::from_pem_files(&cert, &key).unwrap();
    let settings = Settings {
        tls: Some(tls),
        ..Settings::default()
    };
    let server = Server::start_with(&dir.join("data"), "127.0.0.1:0".parse().unwrap(), settings);
    let url = format!("wss://localhost:{}", server.addr.port());
    let cert = cert.to_str().unwrap();
    let player = |who: &str, how: &[&str], trust: bool| {
        let identity = dir.join(who);
        let mut args = vec![
            "online",
            "--server",
            &url,
            "--movetime",
            "20",
            "--name",
            who,
        ];
        args.extend_from_slice(how);
        if trust {
            args.extend_from_slice(&["--trust-cert", cert]);
        }
        args.extend_from_slice(&["--identity", identity.to_str().unwrap()]);
        engine(&args)
    };

    // Without the certificate trusted, the engine refuses the server and says why.
    let (code, _, err) = finish_within_patience(
        player("Doubter", &["--create"], false),
        "an engine refusing the certificate",
    );
    assert_ne!(code, 0);
    assert!(err.to_lowercase().contains("certificate"), "{err}");

    let mut creator = player("Engine A", &["--create", "--color", "silver"], true);
    let mut first = String::new();
    let mut out = BufReader::new(creator.stdout.take().unwrap());
    out.read_line(&mut first).unwrap();
    let code = first
        .trim()
        .strip_prefix("code ")
        .expect("the code first")
        .to_string();
    let joiner = player("Engine B", &["--join", &code], true);
    let (code_b, out_b, err_b) = finish_within_patience(joiner, "the joiner's game");
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let (code_a, _, err_a) = finish_within_patience(creator, "the creator's game");
    assert_eq!((code_a, code_b), (0, 0), "{err_a}\n{err_b}");
    let result = |out: &str| {
        out.lines()
            .find(|l| l.starts_with("result "))
            .map(str::to_string)
    };
    assert!(result(&rest).is_some(), "{rest}");
    assert_eq!(result(&rest), result(&out_b));
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bot at a level says which, with the rating the engine gives it, and plays its game out.
#[test]
fn a_bot_at_a_level_says_its_rating_and_plays() {
    use khet_engine::Level;
    let dir = temp("level");
    let data = dir.join("data");
    let server = Server::start(&data, "127.0.0.1:0".parse().unwrap());
    let url = format!("ws://{}", server.addr);
    let (a, b) = (dir.join("a"), dir.join("b"));
    let bot = |level: &str, how: &[&str], identity: &Path| {
        let mut args = vec!["online", "--server", &url, "--level", level];
        args.extend_from_slice(how);
        args.extend_from_slice(&["--identity", identity.to_str().unwrap()]);
        engine(&args)
    };
    // Six seconds a side: a level holds each move for its least pause (0.7 s), and the game
    // ends on a clock if not before.
    let create = ["--create", "--color", "silver", "--clock", "0.1+0"];
    let mut creator = bot("novice", &create, &a);
    let mut out = BufReader::new(creator.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    let code = first.trim().strip_prefix("code ").expect("the code first");
    let joiner = bot("Beginner", &["--join", code], &b);
    let (code_b, out_b, err_b) = finish_within_patience(joiner, "the joiner's game");
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    let (code_a, _, err_a) = finish_within_patience(creator, "the creator's game");
    assert_eq!((code_a, code_b), (0, 0), "{err_a}\n{err_b}");
    for (out, level) in [(&rest, Level::Novice), (&out_b, Level::Beginner)] {
        let said = format!("level {level} rating {}", level.rating());
        assert!(out.lines().any(|l| l == said), "{said}: {out}");
        assert!(out.lines().any(|l| l.starts_with("result ")), "{out}");
    }
    server.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
