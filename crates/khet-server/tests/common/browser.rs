//! A real browser for the watch page's test: Debian's Chromium, headless, driven through
//! Debian's `chromedriver` over the W3C `WebDriver` protocol (plain JSON over HTTP, so the few
//! requests below need no client library).

use super::{PATIENCE, TempDir, services::free_port};
use base64::Engine;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `chromedriver` process and one browser session, both ended on drop.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    _profile: TempDir,
}

fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> Value {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("`chromedriver` answers");
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // `chromedriver` keeps the connection open whatever the request says: read by length.
    let mut reader = BufReader::new(s);
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("an HTTP answer");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().expect("a length");
        }
    }
    let mut bytes = vec![0; length];
    reader.read_exact(&mut bytes).expect("the whole answer");
    let body = String::from_utf8_lossy(&bytes);
    let value: Value = serde_json::from_str(&body)
        .unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {body}"));
    if let Some(error) = value["value"].get("error") {
        panic!("{method} {path}: {error}: {}", value["value"]["message"]);
    }
    value
}

impl Browser {
    /// Starts `chromedriver` and a headless Chromium with a new profile, `width` × `height`.
    pub fn start(width: u32, height: u32) -> Browser {
        let port = free_port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "chromedriver: {e}. The watch page's test runs a real browser: run `.ci/test` \
                     (it installs Debian's chromium and chromium-driver)"
                )
            });
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < PATIENCE, "`chromedriver` did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = TempDir::new("chromium");
        // As root, Chromium needs --no-sandbox; the networking flags keep it from reaching for
        // Google's servers, which a closed machine refuses.
        let args = [
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--disable-dev-shm-usage".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--force-device-scale-factor=1".into(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.0.display()),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args},
        }}});
        let answer = http(port, "POST", "/session", Some(&caps));
        let session = answer["value"]["sessionId"]
            .as_str()
            .expect("a session")
            .to_string();
        Browser {
            driver,
            port,
            session,
            _profile: profile,
        }
    }

    fn call(&self, method: &str, what: &str, body: Option<&Value>) -> Value {
        let path = format!("/session/{}/{what}", self.session);
        http(self.port, method, &path, body)["value"].take()
    }

    /// Opens `url`.
    pub fn open(&self, url: &str) {
        self.call("POST", "url", Some(&json!({ "url": url })));
    }

    /// The value of a JavaScript expression on the page.
    pub fn eval(&self, expression: &str) -> Value {
        let script = format!("return ({expression});");
        self.call(
            "POST",
            "execute/sync",
            Some(&json!({"script": script, "args": []})),
        )
    }

    /// Waits until `expression` is true on the page; fails after [`PATIENCE`].
    pub fn until(&self, what: &str, expression: &str) {
        let start = Instant::now();
        while self.eval(expression) != Value::Bool(true) {
            assert!(start.elapsed() < PATIENCE, "the page never showed {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The page as the browser shows it: a PNG.
    pub fn screenshot(&self) -> Vec<u8> {
        let value = self.call("GET", "screenshot", None);
        base64::engine::general_purpose::STANDARD
            .decode(value.as_str().expect("base64"))
            .expect("a PNG")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let path = format!("/session/{}", self.session);
        let _ = std::panic::catch_unwind(|| http(self.port, "DELETE", &path, None));
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// An RGBA picture.
pub struct Picture {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Picture {
    pub fn from_png(bytes: &[u8]) -> Picture {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::ALPHA);
        let mut reader = decoder.read_info().expect("a PNG");
        let mut rgba = vec![0; reader.output_buffer_size().expect("a size")];
        let info = reader.next_frame(&mut rgba).expect("its pixels");
        rgba.truncate(info.buffer_size());
        assert_eq!(
            info.color_type,
            png::ColorType::Rgba,
            "RGBA after expansion"
        );
        Picture {
            width: info.width,
            height: info.height,
            rgba,
        }
    }

    /// How many pixels in the rectangle `(x, y, w, h)` pass `test`.
    pub fn count(
        &self,
        (x, y, w, h): (u32, u32, u32, u32),
        test: impl Fn([u8; 3]) -> bool,
    ) -> usize {
        let mut n = 0;
        for py in y..(y + h).min(self.height) {
            for px in x..(x + w).min(self.width) {
                let i = ((py * self.width + px) * 4) as usize;
                if test([self.rgba[i], self.rgba[i + 1], self.rgba[i + 2]]) {
                    n += 1;
                }
            }
        }
        n
    }
}
