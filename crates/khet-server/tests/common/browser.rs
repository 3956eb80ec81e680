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

/// The key under which `WebDriver` names an element.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// What the browser may draw with.
enum Graphics {
    /// No GPU process (the pages need none).
    Default,
    /// WebGL2 through `SwiftShader`.
    WebGl,
    /// No WebGL.
    No3d,
}

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
        Browser::launch(width, height, false, Graphics::Default)
    }

    /// A phone's browser: a `width` × `height` screen that is touched, not clicked (Chromium's
    /// mobile emulation: a desktop window cannot be narrower than about 500 pixels).
    pub fn phone(width: u32, height: u32) -> Browser {
        Browser::launch(width, height, true, Graphics::Default)
    }

    /// A browser that draws WebGL2, on the CPU (ANGLE on `SwiftShader`: the machine has no GPU,
    /// and Chromium no longer falls back to it by itself).
    pub fn webgl(width: u32, height: u32) -> Browser {
        Browser::launch(width, height, false, Graphics::WebGl)
    }

    /// A browser with no WebGL at all, as some locked-down or old browsers are.
    pub fn without_webgl(width: u32, height: u32) -> Browser {
        Browser::launch(width, height, false, Graphics::No3d)
    }

    fn launch(width: u32, height: u32, phone: bool, graphics: Graphics) -> Browser {
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
        let mut args = vec![
            "--headless=new".to_string(),
            "--no-sandbox".into(),
            "--disable-dev-shm-usage".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--force-device-scale-factor=1".into(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.0.display()),
        ];
        match graphics {
            Graphics::Default => args.push("--disable-gpu".into()),
            Graphics::WebGl => args.extend([
                "--use-angle=swiftshader".into(),
                "--enable-unsafe-swiftshader".into(),
            ]),
            Graphics::No3d => args.extend(["--disable-gpu".into(), "--disable-3d-apis".into()]),
        }
        let mut options = json!({"binary": "/usr/bin/chromium", "args": args});
        if phone {
            options["mobileEmulation"] = json!({"deviceMetrics": {
                "width": width, "height": height, "pixelRatio": 1.0, "touch": true, "mobile": true,
            }});
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            // The console kept, for `console` (a violated Content-Security-Policy is said there).
            "goog:loggingPrefs": {"browser": "ALL"},
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

    /// The element `css` selects (the first), as `WebDriver` names it; fails when there is none.
    fn element(&self, css: &str) -> Value {
        let found = self.call(
            "POST",
            "element",
            Some(&json!({"using": "css selector", "value": css})),
        );
        assert!(found.is_object(), "no element {css}");
        found
    }

    fn element_id(&self, css: &str) -> String {
        self.element(css)[ELEMENT]
            .as_str()
            .expect("an element id")
            .to_string()
    }

    /// Clicks the element `css` selects with the mouse, as a person would: the browser checks
    /// that it is shown and not covered, moves the pointer to its centre and clicks.
    pub fn click(&self, css: &str) {
        let id = self.element_id(css);
        self.call("POST", &format!("element/{id}/click"), Some(&json!({})));
    }

    /// Types `text` into the field `css` selects, after emptying it.
    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.element_id(css);
        self.call("POST", &format!("element/{id}/clear"), Some(&json!({})));
        self.call(
            "POST",
            &format!("element/{id}/value"),
            Some(&json!({ "text": text })),
        );
    }

    /// Touches the centre of the element `css` selects with a finger and lifts it: a tap, as a
    /// phone's touch screen sends it (pointer events of type `touch`, no mouse, no hover).
    pub fn tap(&self, css: &str) {
        let element = self.element(css);
        let actions = json!({"actions": [{
            "type": "pointer",
            "id": "finger",
            "parameters": {"pointerType": "touch"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": element, "x": 0, "y": 0},
                {"type": "pointerDown", "button": 0},
                {"type": "pause", "duration": 50},
                {"type": "pointerUp", "button": 0},
            ],
        }]});
        self.call("POST", "actions", Some(&actions));
        self.call("DELETE", "actions", None);
    }

    /// Clicks with the mouse at `(x, y)` of the page (CSS pixels from its top left corner): the
    /// pointer moves there, rests, presses and lets go, as a hand does. What the 3D page's
    /// canvas needs, where no element stands for a button or a square.
    pub fn click_at(&self, x: f64, y: f64) {
        let (x, y) = (x.round() as i64, y.round() as i64);
        let actions = json!({"actions": [{
            "type": "pointer",
            "id": "mouse",
            "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": "viewport", "x": x, "y": y},
                {"type": "pause", "duration": 150},
                {"type": "pointerDown", "button": 0},
                {"type": "pause", "duration": 150},
                {"type": "pointerUp", "button": 0},
            ],
        }]});
        self.call("POST", "actions", Some(&actions));
        self.call("DELETE", "actions", None);
    }

    /// Moves the mouse over the centre of the element `css` selects (a hover, no click).
    pub fn hover(&self, css: &str) {
        let element = self.element(css);
        let actions = json!({"actions": [{
            "type": "pointer",
            "id": "mouse",
            "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": element, "x": 0, "y": 0},
            ],
        }]});
        self.call("POST", "actions", Some(&actions));
    }

    /// Presses the keys of `text` (`WebDriver`'s codes for special keys, `\u{E007}` Enter) on
    /// the element that has the focus.
    pub fn keys(&self, text: &str) {
        let mut actions = Vec::new();
        for c in text.chars() {
            actions.push(json!({"type": "keyDown", "value": c.to_string()}));
            actions.push(json!({"type": "keyUp", "value": c.to_string()}));
        }
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]});
        self.call("POST", "actions", Some(&body));
        self.call("DELETE", "actions", None);
    }

    /// The browser's console since last asked: what the pages wrote, and what the browser said
    /// of them (a script refused by a Content-Security-Policy, a failed load), a line each.
    pub fn console(&self) -> Vec<String> {
        let entries = self.call("POST", "se/log", Some(&json!({"type": "browser"})));
        entries
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| format!("{} {}", e["level"], e["message"]))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Reloads the page, as the browser's reload button does.
    pub fn reload(&self) {
        self.call("POST", "refresh", Some(&json!({})));
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
