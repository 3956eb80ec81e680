//! A plain web host for a folder of static files, as any would serve the 3D game's folder: each
//! file at its path with its type, `/` its `index.html`, uncompressed, nothing else. It records
//! the paths it was asked for. Blocking, a thread a connection; stopped when dropped.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub struct StaticHost {
    pub addr: SocketAddr,
    asked: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl StaticHost {
    /// Serves `folder` on a free port of 127.0.0.1.
    pub fn serve(folder: &Path) -> StaticHost {
        assert!(
            folder.join("index.html").is_file(),
            "no game in {} (scripts/build-game-web makes it)",
            folder.display()
        );
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let addr = listener.local_addr().expect("its address");
        let asked = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (folder, log, stopped) = (folder.to_path_buf(), asked.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (folder, log) = (folder.clone(), log.clone());
                std::thread::spawn(move || answer(stream, &folder, &log));
            }
        });
        StaticHost { addr, asked, stop }
    }

    /// The paths asked for so far, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().expect("the log").clone()
    }
}

impl Drop for StaticHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so that it sees the stop.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Answers the requests of one connection (kept alive, as browsers keep them).
fn answer(stream: TcpStream, folder: &Path, log: &Mutex<Vec<String>>) {
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        // The headers, up to the blank line: a GET has no body.
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header.trim().is_empty() {
                break;
            }
        }
        let path = line.split_whitespace().nth(1).unwrap_or("/");
        let path = path.split(['?', '#']).next().unwrap_or("/").to_string();
        log.lock().expect("the log").push(path.clone());
        let (status, kind, body) = match file(folder, &path) {
            Some((kind, body)) => ("200 OK", kind, body),
            None => ("404 Not Found", "text/plain", b"not found".to_vec()),
        };
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        if out.write_all(head.as_bytes()).is_err() || out.write_all(&body).is_err() {
            return;
        }
    }
}

/// The file at `path` under `folder` and its type, if there is one.
fn file(folder: &Path, path: &str) -> Option<(&'static str, Vec<u8>)> {
    let name = match path.trim_start_matches('/') {
        "" => "index.html",
        name => name,
    };
    if name.split('/').any(|part| part == ".." || part.is_empty()) {
        return None;
    }
    let file: PathBuf = folder.join(name);
    let kind = match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("wasm") => "application/wasm",
        Some("png") => "image/png",
        _ => "application/octet-stream",
    };
    Some((kind, std::fs::read(file).ok()?))
}
