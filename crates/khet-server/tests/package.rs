//! The server's Debian package as an operator meets it: `.ci/package` builds it with cargo-deb
//! (twice, at this version and at an earlier one), checks it with lintian and `systemd-analyze
//! verify`, unpacks it and runs these tests with `KHET_SERVER_PACKAGE_ROOT` naming the unpacked
//! root, `KHET_SERVER_PACKAGE` the package and `KHET_SERVER_PACKAGE_EARLIER` the earlier one
//! (they are `#[ignore]`d in a plain `cargo test`, which has no package to look at).
//!
//! - The files are where they belong, with their modes; the unit, the sysusers.d file and the
//!   settings agree on the user and the data folder; the settings file names every option of
//!   `--help`; `--version` and `--help` answer.
//! - The installed server, started with the packaged settings, a temporary data folder and
//!   `--listen 127.0.0.1:0` (the command line wins over the file), listens, answers, and ends
//!   with status 0 after SIGTERM.
//! - Installed by dpkg into a temporary root (`dpkg --root`, its maintainer scripts run there,
//!   where no systemd runs), it makes its user and enables its unit; the earlier package, run
//!   with its own settings, holds a game; upgraded, with the operator's edit of its settings
//!   kept, it lists that game; removed and purged, it leaves the games. The two packages hold the
//!   same programs (one build, two versions): what is checked is what the packaging does to an
//!   installation, not a change of the server between versions.

mod common;

use common::{Server, TempDir};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const CONFIG: &str = "etc/khet-server/khet-server.conf";
const UNIT: &str = "usr/lib/systemd/system/khet-server.service";
const SYSUSERS: &str = "usr/lib/sysusers.d/khet-server.conf";
const PROGRAM: &str = "usr/bin/khet-server";

fn env_path(name: &str) -> PathBuf {
    PathBuf::from(
        std::env::var_os(name)
            .unwrap_or_else(|| panic!("{name} is not set: .ci/package sets it and runs this test")),
    )
}

/// The unpacked package.
fn root() -> PathBuf {
    env_path("KHET_SERVER_PACKAGE_ROOT")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o7777
}

/// The value of `key=` in a unit file.
fn unit_value<'a>(unit: &'a str, key: &str) -> &'a str {
    unit.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .unwrap_or_else(|| panic!("no {key}= in the unit"))
}

/// The settings file's `name = value` lines that are set (not commented out).
fn settings(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, value) = l
                .split_once('=')
                .unwrap_or_else(|| panic!("not a setting: {l}"));
            (name.trim().to_string(), value.trim().to_string())
        })
        .collect()
}

/// The long options `--help` lists, without their dashes.
fn long_options(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            // `-h, --help`: the long name after the short one.
            let l = match l.strip_prefix('-') {
                Some(rest) if !rest.starts_with('-') => rest.split_once(", ")?.1,
                _ => l,
            };
            let name = l.strip_prefix("--")?;
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(name.len());
            Some(name[..end].to_string())
        })
        .collect()
}

fn output(program: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?}: {}\n{}",
        program.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
#[ignore = "needs an unpacked package: .ci/package runs it"]
fn the_installed_files_are_where_they_belong() {
    let root = root();
    for (path, want) in [
        (PROGRAM, 0o755),
        // It may hold passwords (the postinst gives it to the service's group).
        (CONFIG, 0o640),
        (UNIT, 0o644),
        (SYSUSERS, 0o644),
        ("usr/share/man/man8/khet-server.8.gz", 0o644),
        ("usr/share/doc/khet-server/copyright", 0o644),
        ("usr/share/doc/khet-server/changelog.Debian.gz", 0o644),
        ("usr/share/lintian/overrides/khet-server", 0o644),
    ] {
        assert_eq!(mode(&root.join(path)), want, "{path}'s mode");
    }
    assert!(read(&root.join("usr/share/doc/khet-server/copyright")).contains("License: MIT"));

    // The unit runs the installed program on the installed settings, as the user the sysusers.d
    // file makes, on the state directory the settings name.
    let unit = read(&root.join(UNIT));
    assert_eq!(
        unit_value(&unit, "ExecStart"),
        format!("/{PROGRAM} --config /{CONFIG}")
    );
    let user = unit_value(&unit, "User");
    assert!(
        read(&root.join(SYSUSERS))
            .lines()
            .any(|l| l.split_whitespace().take(2).eq(["u", user])),
        "the sysusers.d file does not make {user}"
    );
    let state = format!("/var/lib/{}", unit_value(&unit, "StateDirectory"));
    let timeout: u64 = unit_value(&unit, "TimeoutStopSec")
        .trim_end_matches('s')
        .parse()
        .expect("TimeoutStopSec in seconds");
    assert!(
        timeout > 10,
        "the server may take 10 s to stop; systemd must wait longer"
    );

    // The settings: where it listens and its data, and every other option shown commented out.
    let config = read(&root.join(CONFIG));
    assert_eq!(
        settings(&config),
        [
            ("listen".to_string(), "127.0.0.1:7878".to_string()),
            ("data".to_string(), state)
        ]
    );
    let program = root.join(PROGRAM);
    let help = output(&program, &["--help"]);
    let options = long_options(&help);
    assert!(options.iter().any(|o| o == "config"), "{help}");
    for option in options
        .iter()
        .filter(|o| !["help", "version", "config"].contains(&o.as_str()))
    {
        assert!(
            config.lines().any(|l| {
                let l = l.trim_start_matches(['#', ' ']);
                l.strip_prefix(option.as_str())
                    .is_some_and(|rest| rest.starts_with(" ="))
            }),
            "the packaged settings do not show --{option}"
        );
    }
    assert_eq!(
        output(&program, &["--version"]).trim(),
        format!("khet-server {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
#[ignore = "needs an unpacked package: .ci/package runs it"]
fn the_installed_server_serves_with_the_packaged_settings() {
    let root = root();
    let data = TempDir::new("package-data");
    let server = Server::run(
        &root.join(PROGRAM),
        &[
            "--config".as_ref(),
            root.join(CONFIG).as_os_str(),
            "--data".as_ref(),
            data.0.as_os_str(),
            "--listen".as_ref(),
            "127.0.0.1:0".as_ref(),
        ],
        Stdio::inherit(),
    );
    // The file says 7878; the command line's port 0 took any free one.
    assert_ne!(server.port(), 7878, "the file won over the command line");
    let (status, body) = server.get("/healthz");
    assert_eq!(status, 200, "GET /healthz: {body}");
    // The play page with its engine: the installed binary carries the WebAssembly.
    let (status, body) = server.get("/setups");
    assert_eq!(status, 200, "GET /setups: {body}");
    assert!(
        body.contains("\"computer\":true"),
        "the packaged server plays the computer in the page (scripts/build-web before the \
         package): {body}"
    );
    assert!(
        server.get("/play").1.contains("/web/play.js"),
        "the play page"
    );
    assert!(
        std::fs::read_dir(&data.0).unwrap().next().is_some(),
        "no database in the --data folder: the file's data won over the command line"
    );
    let status = server.terminate("installed");
    assert!(status.success(), "after SIGTERM: {status}");
}

/// `dpkg` on the temporary root `root`: its maintainer scripts run outside a chroot with
/// `DPKG_ROOT` set (as for a bootstrap), so that they act on the root, not on this machine;
/// `systemctl` and `deb-systemd-invoke` are stand-ins that write what they were asked into
/// `calls`, so that nothing reaches this machine's systemd even where one runs.
fn dpkg(root: &Path, shims: &Path, args: &[&std::ffi::OsStr]) {
    let path = std::env::join_paths(std::iter::once(shims.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = Command::new("dpkg")
        .arg(format!("--root={}", root.display()))
        // The root has no libc6 or systemd package; the scripts use this machine's programs.
        .args([
            "--force-script-chrootless",
            "--force-depends",
            "--force-not-root",
            "--force-confdef",
            "--force-confold",
            "--log=/dev/null",
        ])
        .args(args)
        .env("PATH", path)
        .env("KHET_SHIM_LOG", shims.join("calls"))
        .output()
        .expect("dpkg runs");
    assert!(
        out.status.success(),
        "dpkg {args:?}: {}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What the stand-ins were asked since the last look, and forgets it.
fn calls(shims: &Path) -> String {
    let text = std::fs::read_to_string(shims.join("calls")).unwrap_or_default();
    let _ = std::fs::remove_file(shims.join("calls"));
    text
}

fn version(deb: &Path) -> String {
    let out = Command::new("dpkg-deb")
        .arg("--field")
        .arg(deb)
        .arg("Version")
        .output()
        .expect("dpkg-deb runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
#[ignore = "needs the packages: .ci/package runs it"]
fn upgraded_it_keeps_its_games_and_its_settings() {
    let (earlier, later) = (
        env_path("KHET_SERVER_PACKAGE_EARLIER"),
        env_path("KHET_SERVER_PACKAGE"),
    );
    let (v1, v2) = (version(&earlier), version(&later));
    let older = Command::new("dpkg")
        .args(["--compare-versions", &v1, "lt", &v2])
        .status()
        .expect("dpkg runs");
    assert!(older.success(), "{v1} is not older than {v2}");

    let base = TempDir::new("package-root");
    let root = base.0.join("root");
    let shims = base.0.join("shims");
    for dir in ["var/lib/dpkg/updates", "var/lib/dpkg/info", "etc"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::fs::write(root.join("var/lib/dpkg/status"), "").unwrap();
    std::fs::create_dir_all(&shims).unwrap();
    for shim in ["systemctl", "deb-systemd-invoke"] {
        let path = shims.join(shim);
        std::fs::write(
            &path,
            "#!/bin/sh\necho \"${0##*/} $*\" >> \"$KHET_SHIM_LOG\"\n",
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // Where systemd runs, the scripts reload it and start, restart or stop the service; where it
    // does not (a container, a chroot), they must leave it alone and still succeed.
    let systemd = Path::new("/run/systemd/system").is_dir();
    let expect = |action: &str| {
        if systemd {
            format!("deb-systemd-invoke {action} khet-server.service")
        } else {
            String::new()
        }
    };

    dpkg(&root, &shims, &["--install".as_ref(), earlier.as_os_str()]);
    let installed = calls(&shims);
    assert!(installed.contains(&expect("start")), "{installed:?}");
    let passwd = read(&root.join("etc/passwd"));
    let user = passwd
        .lines()
        .find(|l| l.starts_with("_khet-server:"))
        .unwrap_or_else(|| panic!("no _khet-server in /etc/passwd:\n{passwd}"));
    assert!(
        user.ends_with(":/var/lib/khet-server:/usr/sbin/nologin"),
        "{user}"
    );
    // The settings, which may hold passwords, are the service's group's and root's only.
    let group = read(&root.join("etc/group"));
    let gid: u32 = group
        .lines()
        .find_map(|l| l.strip_prefix("_khet-server:"))
        .and_then(|rest| rest.split(':').nth(1))
        .and_then(|gid| gid.parse().ok())
        .unwrap_or_else(|| panic!("no _khet-server in /etc/group:\n{group}"));
    let settings = std::fs::metadata(root.join(CONFIG)).unwrap();
    assert_eq!(
        std::os::unix::fs::MetadataExt::gid(&settings),
        gid,
        "the settings' group"
    );
    assert_eq!(mode(&root.join(CONFIG)), 0o640, "the settings' mode");
    let wants = root.join("etc/systemd/system/multi-user.target.wants/khet-server.service");
    assert!(wants.is_symlink(), "the service is not enabled");

    // The operator's settings: the data in the root, any free port.
    let config = root.join(CONFIG);
    let data = root.join("var/lib/khet-server");
    let edited = read(&config)
        .replace("listen = 127.0.0.1:7878", "listen = 127.0.0.1:0")
        .replace(
            "data = /var/lib/khet-server",
            &format!("data = {}", data.display()),
        );
    std::fs::write(&config, &edited).unwrap();

    let server = Server::run(
        &root.join(PROGRAM),
        &["--config".as_ref(), config.as_os_str()],
        Stdio::inherit(),
    );
    let url = format!("ws://{}", server.addr);
    // Listed, so that the public list shows it after the upgrade.
    let listed = khet_protocol::NewGame {
        listed: true,
        ..common::casual()
    };
    let (mut silver, mut red, code) = common::pair(&url, listed);
    let line = common::pharaoh_line();
    common::play_line(&mut silver, &mut red, &mut [], &line[..2]);
    drop((silver, red));
    let status = server.terminate("installed");
    assert!(status.success(), "after SIGTERM: {status}");

    dpkg(&root, &shims, &["--install".as_ref(), later.as_os_str()]);
    let upgraded = calls(&shims);
    assert!(upgraded.contains(&expect("restart")), "{upgraded:?}");
    assert_eq!(
        read(&config),
        edited,
        "the upgrade lost the operator's settings"
    );
    let status = Command::new("dpkg-query")
        .arg(format!(
            "--admindir={}",
            root.join("var/lib/dpkg").display()
        ))
        .args(["--show", "--showformat=${Version}", "khet-server"])
        .output()
        .expect("dpkg-query runs");
    assert_eq!(String::from_utf8_lossy(&status.stdout), v2);

    let server = Server::run(
        &root.join(PROGRAM),
        &["--config".as_ref(), config.as_os_str()],
        Stdio::inherit(),
    );
    let (status, games) = server.get("/games");
    assert_eq!(status, 200, "{games}");
    assert!(
        games.contains(&format!("\"code\":\"{code}\"")),
        "the game {code} is not listed after the upgrade: {games}"
    );
    let status = server.terminate("installed");
    assert!(status.success(), "after SIGTERM: {status}");

    dpkg(
        &root,
        &shims,
        &["--remove".as_ref(), "khet-server".as_ref()],
    );
    let removed = calls(&shims);
    assert!(removed.contains(&expect("stop")), "{removed:?}");
    assert!(!root.join(PROGRAM).exists(), "the program is still there");
    dpkg(&root, &shims, &["--purge".as_ref(), "khet-server".as_ref()]);
    assert!(!config.exists(), "the purge left the settings");
    assert!(!wants.exists(), "the purge left the service enabled");
    assert!(
        std::fs::read_dir(&data).unwrap().next().is_some(),
        "the purge took the games"
    );
}
