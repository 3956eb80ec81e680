//! The SQLite database's disk full, for real: the server runs on a small tmpfs of its own
//! (`unshare`: a user and mount namespace, so no root is needed, and a PID namespace, so the
//! server goes with the test), a file fills the tmpfs in mid-game, and the moves made then must
//! be refused with a reason and never acknowledged; once the file is gone, play resumes and the
//! stored record holds every move acknowledged, once.

mod common;

use common::{PATIENCE, Server, TempDir, casual, pair, pharaoh_line, replayed};
use khet_protocol::{ClientMsg, Refusal};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The tmpfs's size: room for the database and a game, which the filler then takes.
const TMPFS: &str = "8m";

/// A server on a tmpfs, and the files through which the test has the tmpfs filled and emptied
/// (the tmpfs is seen only inside the server's namespace).
struct Cramped {
    server: Server,
    control: PathBuf,
    answer: PathBuf,
}

impl Cramped {
    fn start(dir: &Path) -> Cramped {
        let data = dir.join("data");
        let control = dir.join("control");
        let answer = dir.join("answer");
        std::fs::create_dir_all(&data).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(&control)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        // The shell is the namespace's first process: when the test ends it (killing `unshare`
        // kills it), the server goes too.
        let script = r#"
            set -e
            size="$1" data="$2" server="$3" control="$4" answer="$5"
            mount -t tmpfs -o size="$size" tmpfs "$data"
            "$server" --listen 127.0.0.1:0 --data "$data" --log-level error &
            while true; do
                read -r command < "$control"
                case "$command" in
                    fill) dd if=/dev/zero of="$data/filler" bs=64k 2>/dev/null || true ;;
                    free) rm -f "$data/filler" ;;
                esac
                echo "$command" > "$answer.new" && mv "$answer.new" "$answer"
            done
        "#;
        let args: Vec<std::ffi::OsString> = vec![
            "--map-root-user".into(),
            "--mount".into(),
            "--pid".into(),
            "--fork".into(),
            "--kill-child".into(),
            "sh".into(),
            "-c".into(),
            script.into(),
            "sh".into(),
            TMPFS.into(),
            data.into_os_string(),
            env!("CARGO_BIN_EXE_khet-server").into(),
            control.clone().into_os_string(),
            answer.clone().into_os_string(),
        ];
        let server = Server::run(Path::new("unshare"), &args, std::process::Stdio::inherit());
        Cramped {
            server,
            control,
            answer,
        }
    }

    /// Has the shell `fill` or `free` the tmpfs, and waits until it has.
    fn tmpfs(&self, command: &str) {
        let _ = std::fs::remove_file(&self.answer);
        std::fs::write(&self.control, format!("{command}\n")).expect("the shell reads");
        let start = Instant::now();
        while std::fs::read_to_string(&self.answer).map_or(true, |a| a.trim() != command) {
            assert!(start.elapsed() < PATIENCE, "the shell did not {command}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn a_full_disk_refuses_moves_with_a_reason_loses_none_and_play_resumes() {
    let dir = TempDir::new("disk");
    let cramped = Cramped::start(&dir.0);
    let server = &cramped.server;
    let (mut silver, mut red, code) = pair(&server.url, casual());
    let line = pharaoh_line();
    silver.play(&line[0]);
    red.until("the first move", |c| c.plies() == 1);

    cramped.tmpfs("fill");
    // The next move cannot be stored: refused with a reason, not acknowledged.
    let refused = red.refusals.len();
    red.send(&ClientMsg::Move {
        ply: 1,
        mv: line[1].clone(),
    });
    red.until("the answer to the move", |c| {
        c.plies() > 1 || c.refusals.len() > refused
    });
    assert_eq!(red.plies(), 1, "a move acknowledged on a full disk");
    let (why, reason) = red.refusals.last().cloned().expect("a refusal");
    assert_eq!(why, Refusal::Storage, "{reason}");
    assert!(reason.contains("nothing changed"), "{reason}");

    // Space again: the same move is played, and the game goes on to its end.
    cramped.tmpfs("free");
    red.play(&line[1]);
    silver.until("the move", |c| c.plies() == 2);
    common::play_line(&mut silver, &mut red, &mut [], &line[2..]);
    silver.wait_result();
    let stored = replayed(server, &code);
    let moves: Vec<String> = stored.turns().iter().map(|t| t.mv.to_string()).collect();
    assert_eq!(moves, line, "every move once, in order");
    // And the opponent saw each once: no move that was not stored.
    assert_eq!(silver.mirror().view.moves, line);
}
