//! The operator's files, as an attacker who can write in a folder the server writes in would
//! use them: `restore` and `backup` through symbolic links planted at the names they write,
//! folders whose names look like a URL's parameters, and settings or secret files others may
//! read. Real `khet-server` commands on real files in temporary folders.

mod common;

use common::{Backend, Client, Db, Server, TempDir, casual, tend, tend_on, text};
use std::ffi::OsStr;
use std::path::Path;

/// A server on data folder `data`.
fn server_on(data: &Path) -> Server {
    let args: [&OsStr; 6] = [
        "--listen".as_ref(),
        "127.0.0.1:0".as_ref(),
        "--data".as_ref(),
        data.as_os_str(),
        "--log-level".as_ref(),
        "warn".as_ref(),
    ];
    Server::run(
        Path::new(env!("CARGO_BIN_EXE_khet-server")),
        &args,
        std::process::Stdio::inherit(),
    )
}

/// Data folder `data` with one game in it, its server stopped: the game's code.
fn folder_with_a_game(data: &Path) -> String {
    let server = server_on(data);
    let mut silver = Client::connect(&server.url, "Silver");
    let code = silver.create(casual());
    drop(silver);
    assert!(server.terminate("after a game was made").success());
    code
}

/// The process ids the next processes started will be given (Linux hands them out in order):
/// where an attacker plants links named after a process id.
fn next_pids() -> std::ops::Range<u32> {
    let last: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .expect("the last process id")
        .trim()
        .parse()
        .expect("a number");
    last + 1..last + 3001
}

const VICTIM: &str = "a file of the operator's, outside the data folder\n";

/// A restore in a data folder where links to files outside it were planted: at the lock's name
/// (refused, nothing made where it points) and at every name a restore of the next few thousand
/// process ids would have written its copy under (replaced, not written through). The file
/// they point at is unchanged, and the restored database is a real file in the folder.
#[test]
fn a_restore_through_planted_links_writes_nothing_outside_the_data_folder() {
    let db = Db::new(Backend::Sqlite, "restore-links");
    let code = folder_with_a_game(db.folder());
    let outside = TempDir::new("outside");
    let backup = outside.0.join("good.backup");
    let out = tend_on(db.folder(), "backup", &backup);
    assert!(out.status.success(), "{}", text(&out));
    let victim = outside.0.join("victim");
    std::fs::write(&victim, VICTIM).unwrap();
    let restore = || tend_on(db.folder(), "restore", &backup);

    let lock = db.folder().join("khet-server.lock");
    let _ = std::fs::remove_file(&lock);
    let made = outside.0.join("made-by-the-lock");
    std::os::unix::fs::symlink(&made, &lock).unwrap();
    let out = restore();
    assert!(
        !made.exists(),
        "the lock's link was followed: {}",
        text(&out)
    );
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("symbolic link"), "{}", text(&out));
    std::fs::remove_file(&lock).unwrap();

    let planted: Vec<_> = next_pids()
        .map(|pid| {
            db.folder()
                .join(format!("khet-server.sqlite3.restoring-{pid}"))
        })
        .collect();
    for link in &planted {
        std::os::unix::fs::symlink(&victim, link).unwrap();
    }
    let out = restore();
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap_or_default(),
        VICTIM,
        "written through a planted link: {}",
        text(&out)
    );
    assert!(out.status.success(), "{}", text(&out));
    let database = std::fs::symlink_metadata(db.folder().join("khet-server.sqlite3")).unwrap();
    assert!(database.file_type().is_file(), "{database:?}");
    for link in &planted {
        let _ = std::fs::remove_file(link);
    }
    let server = server_on(db.folder());
    let out = tend(&[
        "--data".as_ref(),
        db.folder().as_os_str(),
        "admin".as_ref(),
        "games".as_ref(),
    ]);
    assert!(text(&out).contains(&code), "{}", text(&out));
    drop(server);
}

/// A backup whose file is a link to a file elsewhere is refused, and that file is unchanged.
#[test]
fn a_backup_onto_a_planted_link_is_refused_and_writes_nothing_through_it() {
    let db = Db::new(Backend::Sqlite, "backup-link");
    folder_with_a_game(db.folder());
    let outside = TempDir::new("backup-outside");
    let victim = outside.0.join("victim");
    std::fs::write(&victim, VICTIM).unwrap();
    let to = outside.0.join("khet.backup");
    std::os::unix::fs::symlink(&victim, &to).unwrap();
    let out = tend_on(db.folder(), "backup", &to);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), VICTIM);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("symbolic link"), "{}", text(&out));
    let link = std::fs::symlink_metadata(&to).unwrap();
    assert!(link.file_type().is_symlink(), "the link left as it was");
    let leftovers: Vec<_> = std::fs::read_dir(&outside.0)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "nothing left beside: {leftovers:?}");
}

/// A server, a backup and a restore in folders whose names are a URL's syntax (`?`, `#`, `%`,
/// spaces): each is a folder, and the game made in the first is in the last.
#[test]
fn backup_and_restore_work_in_folders_named_like_urls() {
    let base = TempDir::new("odd-names");
    let odd = |name: &str| {
        let dir = base.0.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    };
    let data = odd("games ?mode=memory#1 100%");
    let code = folder_with_a_game(&data);
    let to = odd("copies?x=%41 #b").join("the copy ?#%.backup");
    let out = tend_on(&data, "backup", &to);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("backed up 1 game(s)"), "{}", text(&out));
    assert!(to.is_file());

    let restored = odd("restored ?cache=shared&mode=ro#%");
    let out = tend_on(&restored, "restore", &to);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("restored 1 game(s)"), "{}", text(&out));
    let server = server_on(&restored);
    let out = tend(&[
        "--data".as_ref(),
        restored.as_os_str(),
        "admin".as_ref(),
        "games".as_ref(),
    ]);
    assert!(text(&out).contains(&code), "{}", text(&out));
    drop(server);
}

/// The server warns at start when its settings file may be read by every user of the machine
/// (it may hold a database's password), and not when it is its owner's and group's only.
#[test]
fn a_settings_file_others_may_read_is_warned_of() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("settings-mode");
    let config = dir.0.join("khet-server.conf");
    let data = dir.0.join("data");
    std::fs::write(&config, format!("data = {}\n", data.display())).unwrap();
    let log_of = |mode: u32| {
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(mode)).unwrap();
        let log = dir.0.join(format!("log-{mode:o}"));
        let args: [&OsStr; 4] = [
            "--config".as_ref(),
            config.as_os_str(),
            "--listen".as_ref(),
            "127.0.0.1:0".as_ref(),
        ];
        // The warning comes before the server says where it listens.
        let server = Server::run(
            Path::new(env!("CARGO_BIN_EXE_khet-server")),
            &args,
            std::fs::File::create(&log).unwrap().into(),
        );
        drop(server);
        std::fs::read_to_string(&log).unwrap()
    };
    let said = log_of(0o644);
    assert!(
        said.contains("readable by every user") && said.contains("khet-server.conf"),
        "{said}"
    );
    let said = log_of(0o640);
    assert!(!said.contains("readable by every user"), "{said}");
}
