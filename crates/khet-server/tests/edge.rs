//! The server's edge against a real server over real sockets: a flood of plain requests from one
//! address refused (429, with when to come back) while another address is served; an IPv6 /64
//! one address; a trusted proxy's `X-Forwarded-For` believed (by the limits and by the caps on
//! open games) and anyone else's ignored; the cap
//! on connections open at once; the WebSockets refused to another site's page and served to
//! programs and the server's own pages; the security headers on every answer; floods of pings
//! closed; and the pages working in Chromium under their own Content-Security-Policy.
//!
//! Other addresses than 127.0.0.1 are other loopback addresses (127.0.0.2, …: all of 127/8 is
//! this machine's on Linux), bound as the connection's source.

mod common;

use common::browser::Browser;
use common::{Backend, Client, Db, PATIENCE, Server, casual, identity, pair};
use common::{arrive, join_as_red};
use khet_protocol::client::Connection;
use khet_protocol::{ClientMsg, ServerMsg, VERSION};
use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use tungstenite::Message;
use tungstenite::client::IntoClientRequest;

/// A connection to the server from `from` (a loopback address of this machine).
fn connect_from(from: IpAddr, server: &Server) -> TcpStream {
    let to: SocketAddr = server.addr.parse().expect("an address");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()
        .expect("a runtime");
    let stream = runtime
        .block_on(async {
            let socket = tokio::net::TcpSocket::new_v4()?;
            socket.bind(SocketAddr::new(from, 0))?;
            socket.connect(to).await?.into_std()
        })
        .unwrap_or_else(|e| panic!("connecting from {from}: {e}"));
    stream.set_nonblocking(false).expect("blocking");
    stream.set_read_timeout(Some(PATIENCE)).expect("a timeout");
    stream
}

/// An answer: its status, its headers (names in lowercase) and its body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `GET path` from address `from`, with `extra` header lines.
fn get(server: &Server, from: &str, path: &str, extra: &[(&str, &str)]) -> Answer {
    let mut s = connect_from(from.parse().expect("an address"), server);
    let mut request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        server.addr
    );
    for (name, value) in extra {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    s.write_all(request.as_bytes()).expect("sent");
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes).expect("an answer");
    let text = String::from_utf8_lossy(&bytes);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.get(9..12))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("GET {path}: not HTTP: {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

/// The plain routes, a request to each: the pages, files, lists and the operator's.
const ROUTES: [&str; 8] = [
    "/",
    "/games",
    "/players",
    "/play",
    "/web/khet.css",
    "/setups",
    "/metrics",
    "/healthz",
];

#[test]
fn a_flood_of_requests_from_one_address_is_refused_while_another_is_served() {
    let db = Db::new(Backend::Sqlite, "flood");
    let server = Server::start(&db, 0, &["--requests-per-minute", "60"]);
    let (mut served, mut refused) = (0, 0);
    for i in 0..200 {
        let answer = get(&server, "127.0.0.1", ROUTES[i % ROUTES.len()], &[]);
        match answer.status {
            200 => served += 1,
            429 => {
                refused += 1;
                let wait: u64 = answer
                    .header("retry-after")
                    .and_then(|v| v.parse().ok())
                    .expect("a 429 says when to come back");
                assert!((1..=60).contains(&wait), "Retry-After: {wait}");
            }
            other => panic!("{}: {other} {}", ROUTES[i % ROUTES.len()], answer.body),
        }
    }
    // A burst of a quarter of the minute's, and the requests the minute lets through while the
    // flood lasts: far fewer than the flood.
    assert!(refused >= 100, "{served} served, {refused} refused");
    // The flood's address cannot open a socket either; another address is served, pages and
    // sockets.
    assert!(Connection::open(&server.url, &identity(), "Flooder").is_err());
    for route in ROUTES {
        assert_eq!(get(&server, "127.0.0.2", route, &[]).status, 200, "{route}");
    }
    let (mut socket, _) = tungstenite::client::client(
        format!("{}/ws", server.url),
        connect_from([127, 0, 0, 2].into(), &server),
    )
    .expect("another address's socket opens");
    let hello = ClientMsg::Hello {
        version: VERSION,
        identity: identity(),
        name: "Other".into(),
        views: false,
    };
    socket.send(Message::text(hello.to_json())).unwrap();
    let welcome = common::next_text(&mut socket).expect("an answer");
    assert!(welcome.contains("\"welcome\""), "{welcome}");
}

#[test]
fn a_slash_64_is_one_address_and_only_a_trusted_proxy_names_the_client() {
    let db = Db::new(Backend::Sqlite, "proxy");
    // A burst of 2, and one more every 7.5 s: far longer than these requests take.
    let server = Server::start(
        &db,
        0,
        &["--requests-per-minute", "8", "--trusted-proxy", "127.0.0.1"],
    );
    let via_proxy = |client: &str| {
        get(
            &server,
            "127.0.0.1",
            "/healthz",
            &[("X-Forwarded-For", client)],
        )
        .status
    };
    // Two addresses of one /64 share its budget.
    assert_eq!(via_proxy("2001:db8:1:1::1"), 200);
    assert_eq!(via_proxy("2001:db8:1:1::2"), 200);
    assert_eq!(
        via_proxy("2001:db8:1:1:ffff::3"),
        429,
        "the /64's budget spent"
    );
    // Another /64 has its own; an IPv4-mapped address is its IPv4 address.
    assert_eq!(via_proxy("2001:db8:1:2::1"), 200);
    assert_eq!(via_proxy("198.51.100.7"), 200);
    assert_eq!(via_proxy("198.51.100.7"), 200);
    assert_eq!(via_proxy("::ffff:198.51.100.7"), 429);
    // The right-most address the proxy did not vouch for is the client: what the client wrote
    // further left is passed over, so it can neither escape its budget nor spend another's.
    assert_eq!(via_proxy("2001:db8:9::1, 2001:db8:1:1::1"), 429);
    assert_eq!(via_proxy("2001:db8:1:1::1, 203.0.113.5"), 200);
    // The proxy's own budget is untouched by its clients'.
    assert_eq!(get(&server, "127.0.0.1", "/healthz", &[]).status, 200);
    // Sockets through the proxy are counted as its client's too.
    let mut request = format!("{}/ws", server.url).into_client_request().unwrap();
    request
        .headers_mut()
        .insert("X-Forwarded-For", "2001:db8:1:1::99".parse().unwrap());
    let opened = tungstenite::client::client(request, connect_from([127, 0, 0, 1].into(), &server));
    let status = match &opened {
        Ok((_, response)) => response.status().as_u16(),
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(r))) => {
            r.status().as_u16()
        }
        Err(e) => panic!("{e}"),
    };
    assert_eq!(status, 429, "the /64's budget is spent");

    // From an address that is not a trusted proxy the header is ignored: a new address in each
    // request does not make it a new client.
    let forged = |i: u8| {
        let client = format!("203.0.113.{i}");
        get(
            &server,
            "127.0.0.2",
            "/healthz",
            &[("X-Forwarded-For", &client)],
        )
        .status
    };
    assert_eq!([forged(1), forged(2), forged(3)], [200, 200, 429]);
}

#[test]
fn past_the_connection_cap_new_connections_are_answered_503_until_sockets_close() {
    let db = Db::new(Backend::Sqlite, "cap");
    let server = Server::start(&db, 0, &["--max-connections", "3"]);
    let mut open: Vec<Client> = (0..3)
        .map(|i| Client::connect(&server.url, &format!("P{i}")))
        .collect();
    let full = get(&server, "127.0.0.2", "/healthz", &[]);
    assert_eq!(full.status, 503, "{}", full.body);
    assert!(full.header("retry-after").is_some());
    assert_eq!(
        full.header("x-content-type-options"),
        Some("nosniff"),
        "the refusal has the headers too"
    );
    assert!(Connection::open(&server.url, &identity(), "Fourth").is_err());
    // A socket closes: its place is free again.
    drop(open.pop());
    let start = Instant::now();
    while get(&server, "127.0.0.2", "/healthz", &[]).status != 200 {
        assert!(
            start.elapsed() < PATIENCE,
            "no place again once a socket closed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // A socket too: the request above held a place until the server saw it close (soon, not
    // at once), so the socket may be refused while it does.
    let start = Instant::now();
    let _again = loop {
        match Connection::open(&server.url, &identity(), "Again") {
            Ok(conn) => break conn,
            Err(e) => assert!(
                start.elapsed() < PATIENCE,
                "no socket again once a socket closed: {e}"
            ),
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    open[0].create(casual());
}

/// Opens a WebSocket at `path` with `origin` (none: no header), as a page of that origin
/// would; its status: 101 opened, or the refusal's.
fn open_socket(server: &Server, path: &str, origin: Option<&str>) -> u16 {
    let mut request = format!("{}{path}", server.url)
        .into_client_request()
        .unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("Origin", origin.parse().unwrap());
    }
    let stream = TcpStream::connect(&server.addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    match tungstenite::client::client(request, stream) {
        Ok((mut socket, response)) => {
            let _ = socket.close(None);
            response.status().as_u16()
        }
        Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(r))) => {
            r.status().as_u16()
        }
        Err(e) => panic!("{path} from {origin:?}: {e}"),
    }
}

#[test]
fn a_foreign_origin_is_refused_and_no_origin_the_own_and_the_allowed_ones_served() {
    let db = Db::new(Backend::Sqlite, "origin");
    let server = Server::start(&db, 0, &["--allow-origin", "https://club.example.org"]);
    let (_silver, _red, code) = pair(&server.url, casual());
    let own = format!("http://{}", server.addr);
    for path in ["/ws".to_string(), format!("/watch/{code}/ws")] {
        assert_eq!(open_socket(&server, &path, None), 101, "{path}: a program");
        assert_eq!(
            open_socket(&server, &path, Some(&own)),
            101,
            "{path}: own page"
        );
        assert_eq!(
            open_socket(&server, &path, Some("https://club.example.org")),
            101,
            "{path}: allowed"
        );
        for foreign in [
            "https://evil.example",
            "null",
            &format!("http://{}.evil.example", server.addr),
        ] {
            assert_eq!(
                open_socket(&server, &path, Some(foreign)),
                403,
                "{path}: {foreign}"
            );
        }
    }
    // A refused page's socket had no hello: the game and the server go on.
    Client::connect(&server.url, "After").create(casual());
}

/// The security headers every answer carries (HSTS only with TLS: tests/tls.rs).
fn assert_secure(answer: &Answer, what: &str) {
    let csp = answer
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no Content-Security-Policy"));
    for part in [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "frame-ancestors 'none'",
        "object-src 'none'",
    ] {
        assert!(csp.contains(part), "{what}: {csp}");
    }
    assert!(!csp.contains("unsafe-inline"), "{what}: {csp}");
    assert_eq!(
        answer.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(answer.header("x-frame-options"), Some("DENY"), "{what}");
    assert_eq!(
        answer.header("referrer-policy"),
        Some("no-referrer"),
        "{what}"
    );
    assert_eq!(
        answer.header("strict-transport-security"),
        None,
        "{what}: plain HTTP"
    );
}

#[test]
fn the_security_headers_are_on_every_page_and_answer() {
    let db = Db::new(Backend::Sqlite, "headers");
    let server = Server::start(&db, 0, &["--requests-per-minute", "240"]);
    let (_silver, _red, code) = pair(&server.url, casual());
    let paths = [
        "/".to_string(),
        "/about".into(),
        "/play".into(),
        format!("/play/{code}"),
        "/play/computer".into(),
        format!("/watch/{code}"),
        "/watch/NOT-A-CODE".into(),
        "/web/khet.css".into(),
        "/web/play.js".into(),
        "/web/engine-worker.js".into(),
        "/web/khet_web_bg.wasm".into(),
        "/web/nothing.js".into(),
        "/setups".into(),
        "/games".into(),
        format!("/games/{code}.ron"),
        "/games/zzzzzzzz.ron".into(),
        "/players".into(),
        "/tournaments".into(),
        "/tournaments.json".into(),
        "/tournaments/zzzzzzzz".into(),
        "/tournaments/zzzzzzzz.json".into(),
        "/web/tournament.js".into(),
        "/players/zzzzzzzz".into(),
        "/players/zzzzzzzz.json".into(),
        "/web/player.js".into(),
        "/metrics".into(),
        "/healthz".into(),
        "/readyz".into(),
        "/ws".into(),
        "/no/such/page".into(),
    ];
    for path in &paths {
        assert_secure(&get(&server, "127.0.0.1", path, &[]), path);
    }
    // The pages load no script and no style of their own inline: nothing for the policy to
    // let through.
    for page in ["/", "/play", &format!("/watch/{code}")] {
        let html = get(&server, "127.0.0.1", page, &[])
            .body
            .to_ascii_lowercase();
        assert!(
            !html.contains("<script>") && !html.contains("<style"),
            "{page}"
        );
        assert!(
            !html.contains(" style=") && !html.contains(" onclick="),
            "{page}"
        );
    }
    // A refusal too: the edge's (the first), and the next, which the connection gets before
    // its request is parsed, the address being spent.
    let refused = (0..200)
        .map(|_| get(&server, "127.0.0.3", "/healthz", &[]))
        .find(|a| a.status == 429)
        .expect("a 429");
    assert_secure(&refused, "a 429");
    let again = get(&server, "127.0.0.3", "/healthz", &[]);
    assert_eq!(again.status, 429, "{}", again.body);
    assert_secure(&again, "a spent address's 429");
    assert!(again.header("retry-after").is_some());
    assert_eq!(again.header("connection"), Some("close"));
    assert_eq!(again.body, refused.body);
}

#[test]
fn a_flood_of_pings_closes_the_socket_on_the_play_and_the_watch_socket() {
    let db = Db::new(Backend::Sqlite, "pings");
    let server = Server::start(&db, 0, &[]);
    let (_silver, _red, code) = pair(&server.url, casual());
    for path in ["/ws".to_string(), format!("/watch/{code}/ws")] {
        let stream = TcpStream::connect(&server.addr).unwrap();
        // Short reads, so that a socket left open is seen as open, not as closed.
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let (mut socket, _) =
            tungstenite::client::client(format!("{}{path}", server.url), stream).unwrap();
        if path == "/ws" {
            let hello = ClientMsg::Hello {
                version: VERSION,
                identity: identity(),
                name: "Pinger".into(),
                views: false,
            };
            socket.send(Message::text(hello.to_json())).unwrap();
        }
        // Pings as fast as they go; the server closes the socket (a write or a read fails)
        // well before the last.
        let mut closed = false;
        for _ in 0..5000 {
            if socket.send(Message::Ping(Vec::new().into())).is_err() {
                closed = true;
                break;
            }
        }
        let start = Instant::now();
        while !closed {
            assert!(
                start.elapsed() < PATIENCE,
                "{path}: a ping flood still open"
            );
            match socket.read() {
                Ok(Message::Close(_)) => closed = true,
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) => {}
                Err(_) => closed = true,
                Ok(_) => {}
            }
        }
    }
}

#[test]
fn the_pages_work_under_their_own_content_security_policy_in_chromium() {
    let db = Db::new(Backend::Sqlite, "csp");
    let server = Server::start(&db, 0, &[]);
    let browser = Browser::start(1280, 900);
    // The play page: its scripts run (the name asked, the server's welcome shown: its socket
    // opened from the page's own origin), a game is created and played by clicks.
    arrive(&browser, &server, "Page player");
    browser.click("#color option[value=\"silver\"]");
    browser.click("#create");
    browser.until("the link", "!document.getElementById('share').hidden");
    let link = browser.eval("document.getElementById('link').value");
    let code = link
        .as_str()
        .and_then(|l| l.rsplit('/').next())
        .expect("a link")
        .to_string();
    let mut red = join_as_red(&browser, &server, &code);
    browser.click("#board [data-square=\"e1\"]");
    browser.click("#board [data-square=\"e2\"]");
    red.until("the page's move", |c| c.plies() == 1);
    // The watch page and the lobby: their scripts draw the game.
    browser.open(&format!("http://{}/watch/{code}", server.addr));
    browser.until(
        "the move listed",
        "document.querySelectorAll('#moves li').length >= 1",
    );
    browser.open(&format!("http://{}/", server.addr));
    browser.until(
        "the games read",
        "!document.getElementById('lobby-state').textContent.startsWith('Loading')",
    );
    assert!(
        !browser
            .eval("document.getElementById('lobby-state').textContent")
            .as_str()
            .unwrap_or_default()
            .contains("could not be read"),
        "the lobby's script read /games"
    );
    // And the browser refused nothing on the way.
    let log = browser.console();
    let violations: Vec<&String> = log
        .iter()
        .filter(|l| l.contains("Content Security Policy") || l.contains("Refused to"))
        .collect();
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn the_settings_file_takes_a_line_for_each_trusted_proxy_and_allowed_origin() {
    let db = Db::new(Backend::Sqlite, "settings");
    let file = db.folder().join("khet-server.conf");
    std::fs::write(
        &file,
        "requests-per-minute = 12\n\
         trusted-proxy = 10.0.0.0/8\n\
         trusted-proxy = 127.0.0.1\n\
         allow-origin = https://one.example\n\
         allow-origin = https://two.example\n",
    )
    .unwrap();
    let server = Server::start(&db, 0, &["--config", file.to_str().unwrap()]);
    // The second proxy's line counts: its header names the client, a /64 of its own each, so
    // more requests than one address's burst (3) are served.
    for client in [
        "2001:db8:1::1",
        "2001:db8:2::1",
        "2001:db8:3::1",
        "2001:db8:4::1",
    ] {
        let answer = get(
            &server,
            "127.0.0.1",
            "/healthz",
            &[("X-Forwarded-For", client)],
        );
        assert_eq!(answer.status, 200, "{client}");
    }
    assert_eq!(
        open_socket(&server, "/ws", Some("https://one.example")),
        101
    );
    assert_eq!(
        open_socket(&server, "/ws", Some("https://two.example")),
        101
    );
    assert_eq!(
        open_socket(&server, "/ws", Some("https://three.example")),
        403
    );
}

/// Behind a trusted proxy the caps on open games count the client its `X-Forwarded-For` names,
/// not the proxy: one client fills its address's cap, and another through the same proxy is
/// still served (were the proxy's address counted, every player behind it would share one cap).
#[test]
fn behind_a_trusted_proxy_the_open_game_caps_count_the_client() {
    let db = Db::new(Backend::Sqlite, "proxycaps");
    let server = Server::start(
        &db,
        0,
        &[
            "--trusted-proxy",
            "127.0.0.1",
            "--open-games-per-address",
            "2",
        ],
    );
    // A new identity's create through the proxy for `client`: its socket (kept open, so the
    // game stays waiting) and what the create was answered.
    let create = |client: &str| {
        let mut request = format!("{}/ws", server.url).into_client_request().unwrap();
        request
            .headers_mut()
            .insert("X-Forwarded-For", client.parse().unwrap());
        let (mut ws, _) =
            tungstenite::client::client(request, connect_from([127, 0, 0, 1].into(), &server))
                .unwrap_or_else(|e| panic!("a socket for {client}: {e}"));
        let hello = ClientMsg::Hello {
            version: VERSION,
            identity: identity(),
            name: "Proxied".into(),
            views: false,
        };
        let answer = |ws: &mut tungstenite::WebSocket<TcpStream>, msg: ClientMsg| {
            ws.send(Message::text(msg.to_json())).expect("sent");
            let asked = Instant::now();
            loop {
                assert!(asked.elapsed() < PATIENCE, "no answer for {client}");
                let text = match ws.read() {
                    Ok(Message::Text(text)) => text,
                    // Interrupted (the test program stopped and continued): read again.
                    Err(tungstenite::Error::Io(e))
                        if e.kind() == std::io::ErrorKind::Interrupted =>
                    {
                        continue;
                    }
                    Ok(_) => continue,
                    Err(e) => panic!("no answer for {client}: {e}"),
                };
                match ServerMsg::from_json(text.as_str()).expect("a server message") {
                    ServerMsg::Welcome { .. } => return "welcome".to_string(),
                    ServerMsg::Seat { .. } => return "seat".to_string(),
                    ServerMsg::Refused { code, .. } => return format!("{code:?}"),
                    _ => {}
                }
            }
        };
        assert_eq!(answer(&mut ws, hello), "welcome", "{client}");
        let got = answer(&mut ws, ClientMsg::Create(casual()));
        (ws, got)
    };
    let mut open = Vec::new();
    for (client, expected) in [
        ("198.51.100.1", "seat"),
        ("198.51.100.1", "seat"),
        ("198.51.100.1", "NotNow"),
        ("198.51.100.2", "seat"),
        ("2001:db8:5::1", "seat"),
    ] {
        let (ws, got) = create(client);
        assert_eq!(got, expected, "a create for {client}");
        open.push(ws);
    }
}
