//! Real PostgreSQL and Redis servers for the tests, from Debian's packages (`.ci/test` installs
//! them): each on 127.0.0.1 at a free port, in a temporary folder, started on first use and
//! stopped, with its folder removed, when the test program ends.

use super::TempDir;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// Runs `script` in a shell that outlives nothing: when the test program (its parent) ends, it
/// runs `stop` and removes `dir`. The statics these servers live in are never dropped, so this
/// is how they are stopped.
fn guarded(script: &str, stop: &str, dir: &Path) -> Child {
    let guard = format!(
        "{script}\nparent=$PPID\nwhile kill -0 $parent 2>/dev/null; do sleep 0.5; done\n{stop}\n\
         rm -rf \"$KHET_SERVICE_DIR\""
    );
    Command::new("sh")
        .args(["-c", &guard])
        .env("KHET_SERVICE_DIR", dir)
        .stdin(Stdio::null())
        .spawn()
        .expect("sh starts")
}

fn missing(what: &str, package: &str) -> ! {
    panic!(
        "{what} is not installed: these tests run a real one. Run `.ci/test` (it installs \
         Debian's {package}), or `apt-get install {package}`."
    )
}

fn wait_for_port(port: u16, what: &str, log: &Path) {
    let start = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < super::PATIENCE,
            "{what} did not start: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A PostgreSQL server: one for the whole test program ([`Postgres::get`]), or a test's own, which
/// it may stop and start again ([`Postgres::own`]).
pub struct Postgres {
    /// The shells that stop it (kept so that they are not a zombie's parent's business).
    guards: std::sync::Mutex<Vec<Child>>,
    bin: PathBuf,
    port: u16,
    root: bool,
    /// The shell lines that start it in the background and stop it.
    start: String,
    stop: String,
    dir: PathBuf,
}

fn postgres_bin() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("postgres").exists())
        .collect();
    found.sort();
    found.pop()
}

impl Postgres {
    /// The server, started on first use.
    pub fn get() -> &'static Postgres {
        static PG: OnceLock<Postgres> = OnceLock::new();
        PG.get_or_init(Postgres::start)
    }

    /// A server of the caller's own, to stop and start again; stopped when dropped.
    pub fn own() -> Postgres {
        Postgres::start()
    }

    /// Stops it at once, as a crash or an operator's `pg_ctl -m immediate stop` would.
    pub fn stop(&self) {
        let ok = Command::new("sh")
            .args(["-c", &self.stop])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "PostgreSQL stops: {}", self.stop);
    }

    /// Freezes every process of it (`SIGSTOP`): connections stay open and nothing answers, as
    /// when the database's machine is cut off.
    pub fn pause(&self) {
        self.signal("STOP");
    }

    /// Lets it go on (`SIGCONT`) after [`Postgres::pause`].
    pub fn resume(&self) {
        self.signal("CONT");
    }

    fn signal(&self, which: &str) {
        let pid_file = self.dir.join("data").join("postmaster.pid");
        let text = std::fs::read_to_string(&pid_file).expect("PostgreSQL's pid file");
        let pid = text.lines().next().expect("its pid").trim().to_string();
        // The server and the backends it started, one per connection; and, going on, the
        // `runuser` above it, which stops itself when its child stops (as `su` does).
        let parent = if which == "CONT" {
            format!("; kill -CONT $(ps -o ppid= -p {pid})")
        } else {
            String::new()
        };
        let ok = Command::new("sh")
            .args([
                "-c",
                &format!("kill -{which} {pid} && pkill -{which} -P {pid}{parent}; true"),
            ])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "SIG{which} sent to PostgreSQL");
    }

    /// Starts it again on the same port and data, and waits until it accepts sessions.
    pub fn start_again(&self) {
        let log = self.dir.join("postgres.log");
        let guard = guarded(&self.start, &self.stop, &self.dir);
        self.guards.lock().unwrap().push(guard);
        wait_for_port(self.port, "PostgreSQL", &log);
        self.wait_until_ready(&log);
    }

    fn as_postgres(&self, program: &str) -> Command {
        if self.root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(self.bin.join(program));
            c
        } else {
            Command::new(self.bin.join(program))
        }
    }

    fn start() -> Postgres {
        let bin = postgres_bin().unwrap_or_else(|| missing("PostgreSQL", "postgresql"));
        let dir = TempDir::new("postgres").keep();
        let root = running_as_root();
        let mut pg = Postgres {
            guards: std::sync::Mutex::new(Vec::new()),
            bin,
            port: free_port(),
            root,
            start: String::new(),
            stop: String::new(),
            dir: dir.clone(),
        };
        let data = dir.join("data");
        if root {
            // PostgreSQL will not run as root: its files belong to its own user.
            let ok = Command::new("chown")
                .args(["-R", "postgres"])
                .arg(&dir)
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "chown {} to postgres", dir.display());
        }
        let log = dir.join("initdb.log");
        let out = pg
            .as_postgres("initdb")
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
                "-D",
            ])
            .arg(&data)
            .output()
            .expect("initdb runs");
        std::fs::write(&log, [&out.stdout[..], &out.stderr[..]].concat()).ok();
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let server_log = dir.join("postgres.log");
        let run = |c: &Command| -> String {
            std::iter::once(c.get_program())
                .chain(c.get_args())
                .map(|a| format!("'{}'", a.to_string_lossy()))
                .collect::<Vec<_>>()
                .join(" ")
        };
        // Durability is the server's claim, not the tests' database's: fsync off keeps a busy
        // 2-core machine's disk out of the timings.
        let mut start = pg.as_postgres("postgres");
        start.arg("-D").arg(&data).args([
            "-p",
            &pg.port.to_string(),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            "fsync=off",
            "-c",
            "max_connections=300",
            "-c",
        ]);
        start.arg(format!("unix_socket_directories={}", dir.display()));
        let mut stop = pg.as_postgres("pg_ctl");
        stop.arg("-D").arg(&data).args(["-m", "immediate", "stop"]);
        pg.start = format!("{} >> '{}' 2>&1 &", run(&start), server_log.display());
        pg.stop = format!("{} >/dev/null 2>&1", run(&stop));
        pg.start_again();
        pg
    }

    /// PostgreSQL listens before it accepts sessions ("the database system is starting up"),
    /// the longer the busier the machine: `pg_isready` says when it does.
    fn wait_until_ready(&self, log: &Path) {
        let start = Instant::now();
        loop {
            let ready = self
                .as_postgres("pg_isready")
                .args(["-q", "-h", "127.0.0.1", "-p", &self.port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return;
            }
            assert!(
                start.elapsed() < super::PATIENCE,
                "PostgreSQL did not accept sessions: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A new, empty database: its URL.
    pub fn database(&self, name: &str) -> String {
        let name = format!("khet_{}_{}", name, super::unique_number());
        let out = self
            .as_postgres("psql")
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &self.port.to_string(),
                "-U",
                "postgres",
            ])
            .args(["-v", "ON_ERROR_STOP=1", "-q", "-c"])
            .arg(format!("CREATE DATABASE {name}"))
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "CREATE DATABASE: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // Only a test's own is ever dropped; the shared one lives in a static.
        let _ = Command::new("sh").args(["-c", &self.stop]).status();
    }
}

/// A Redis server: one for the whole test program ([`Redis::get`]), or a test's own, which it
/// may stop and start again ([`Redis::own`]).
pub struct Redis {
    guards: std::sync::Mutex<Vec<Child>>,
    /// `redis://127.0.0.1:PORT`.
    pub url: String,
    /// A file holding a secret for the nodes of the clusters on it (`--cluster-secret-file`).
    pub secret_file: String,
    port: u16,
    dir: PathBuf,
}

impl Redis {
    /// The server, started on first use.
    pub fn get() -> &'static Redis {
        static REDIS: OnceLock<Redis> = OnceLock::new();
        REDIS.get_or_init(Redis::start)
    }

    /// A server of the caller's own, to stop and start again; stopped when dropped.
    pub fn own() -> Redis {
        Redis::start()
    }

    fn start() -> Redis {
        if Command::new("redis-server")
            .arg("--version")
            .output()
            .is_err()
        {
            missing("Redis", "redis-server");
        }
        let port = free_port();
        let dir = TempDir::new("redis").keep();
        let secret_file = dir.join("cluster.secret");
        std::fs::write(
            &secret_file,
            format!("the nodes' secret, {}\n", super::identity()),
        )
        .expect("a secret file");
        // As an operator keeps it (the server warns otherwise).
        std::fs::set_permissions(
            &secret_file,
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .expect("a secret file's mode");
        let redis = Redis {
            guards: std::sync::Mutex::new(Vec::new()),
            url: format!("redis://127.0.0.1:{port}"),
            secret_file: secret_file.display().to_string(),
            port,
            dir,
        };
        redis.start_again();
        redis
    }

    /// Stops it at once, its subscribers' connections cut (`SHUTDOWN NOSAVE`).
    pub fn stop(&self) {
        let _ = Command::new("redis-cli")
            .args(["-p", &self.port.to_string(), "shutdown", "nosave"])
            .output();
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
            assert!(start.elapsed() < super::PATIENCE, "Redis did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts it (again) on the same port, empty, and waits until it listens.
    pub fn start_again(&self) {
        let log = self.dir.join("redis.log");
        let guard = guarded(
            &format!(
                "redis-server --bind 127.0.0.1 --port {} --dir '{}' --save '' \
                 --appendonly no --protected-mode yes >> '{}' 2>&1 &\nredis=$!",
                self.port,
                self.dir.display(),
                log.display()
            ),
            "kill $redis 2>/dev/null; wait $redis",
            &self.dir,
        );
        self.guards.lock().unwrap().push(guard);
        wait_for_port(self.port, "Redis", &log);
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        // Only a test's own is ever dropped; the shared one lives in a static.
        let _ = Command::new("redis-cli")
            .args(["-p", &self.port.to_string(), "shutdown", "nosave"])
            .output();
    }
}
