//! What the command line's tests against a server share: a real server in this process, the
//! engine's program, and waiting for it to end.

#![allow(dead_code)] // Each test file uses its part.

use khet_server::Settings;
use khet_server::store::Store;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a test waits for what must come before it fails, saying what it waited for:
/// generous, so that only a hang fails it, never a slow or loaded machine.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// A server running in this process on its own runtime.
pub struct Server {
    runtime: tokio::runtime::Runtime,
    pub addr: SocketAddr,
}

impl Server {
    pub fn start(data: &Path, addr: SocketAddr) -> Server {
        Server::start_with(data, addr, Settings::default())
    }

    pub fn start_with(data: &Path, addr: SocketAddr, settings: Settings) -> Server {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        // A server stopped a moment ago may still hold the address while its tasks wind down:
        // bound as soon as it is free.
        let asked = Instant::now();
        let std_listener = loop {
            match std::net::TcpListener::bind(addr) {
                Ok(listener) => break listener,
                Err(e) => assert!(asked.elapsed() < PATIENCE, "{addr} never came free: {e}"),
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let data = data.to_path_buf();
        runtime.spawn(async move {
            let store = Store::open_folder(&data).await.unwrap();
            let listener = tokio::net::TcpListener::from_std(std_listener).unwrap();
            khet_server::serve(listener, store, settings, std::future::pending())
                .await
                .unwrap();
        });
        Server { runtime, addr }
    }

    /// Stops at once: every connection and game task dropped where it stands.
    pub fn stop(self) {
        self.runtime.shutdown_background();
    }

    pub fn get(&self, path: &str) -> String {
        let mut s = TcpStream::connect(self.addr).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        text.split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default()
    }
}

pub fn temp(name: &str) -> PathBuf {
    temp_in(&std::env::temp_dir(), name)
}

/// A fresh folder in memory (Linux's /dev/shm) where there is one, else as [`temp`]: for a
/// server whose games are many small commits (bots' tournaments), each an fsync on a disk,
/// where what is judged is the play, not the disk.
pub fn memory_temp(name: &str) -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        temp_in(shm, name)
    } else {
        temp(name)
    }
}

fn temp_in(root: &Path, name: &str) -> PathBuf {
    let dir = root.join(format!("khet-cli-online-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn engine(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_khet-engine"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the engine runs")
}

/// As [`finish`], failing the test if the program has not ended within [`PATIENCE`].
pub fn finish_within_patience(mut child: Child, what: &str) -> (i32, String, String) {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > PATIENCE {
            let _ = child.kill();
            panic!("{what}: still running after {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    finish(child)
}

pub fn finish(child: Child) -> (i32, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
