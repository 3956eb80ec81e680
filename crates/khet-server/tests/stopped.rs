//! A client stopped and continued while it waits, in a test program of its own: it stops and
//! continues the whole program, which would interrupt the reads of any test beside it.

mod common;

use common::{Backend, Db, PATIENCE, Server, identity};
use khet_protocol::client::Connection;
use khet_protocol::{ClientMsg, ServerMsg};
use std::time::Duration;

/// A program stopped and continued (Ctrl-Z and `fg`, a container frozen and thawed) has its read
/// on a socket with a timeout interrupted, with no handler at all (signal(7)), and the client's
/// read is one: the wait must go on, not end as a lost connection (a CI run once failed so).
#[cfg(target_os = "linux")]
#[test]
fn a_client_stopped_and_continued_while_it_waits_goes_on_waiting_on_the_same_connection() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    let db = Db::new(Backend::Sqlite, "stopped");
    let server = Server::start(&db, 0, &[]);
    let mut conn = Connection::open(&server.url, &identity(), "Ada").expect("welcomed");
    conn.send(&ClientMsg::Ping).expect("sent");
    assert_eq!(
        conn.recv(PATIENCE).expect("answered"),
        Some(ServerMsg::Pong)
    );

    // This thread, as /proc names it ("PID/task/TID"), to see when it sleeps in its read.
    let me = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    let stat = std::path::Path::new("/proc").join(me).join("stat");
    let done = Arc::new(AtomicBool::new(false));
    let stops = Arc::new(AtomicUsize::new(0));
    let stopper = {
        let (done, stops) = (done.clone(), stops.clone());
        std::thread::spawn(move || {
            let pid = std::process::id().to_string();
            while !done.load(Ordering::SeqCst) {
                let sleeping = std::fs::read_to_string(&stat).is_ok_and(|s| {
                    s.rsplit(')')
                        .next()
                        .is_some_and(|r| r.trim_start().starts_with('S'))
                });
                if sleeping {
                    // The whole test program stopped, then continued by the shell, its child.
                    let status = std::process::Command::new("sh")
                        .args(["-c", &format!("kill -STOP {pid}; kill -CONT {pid}")])
                        .status()
                        .expect("sh runs");
                    assert!(status.success(), "kill: {status}");
                    stops.fetch_add(1, Ordering::SeqCst);
                }
                // Paced, so that the wait is interrupted a few times, not continuously.
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    // The server has nothing to say in these two seconds: nothing came, and no error.
    let quiet = conn.recv(Duration::from_secs(2));
    done.store(true, Ordering::SeqCst);
    stopper.join().expect("the stopper ends");
    assert!(
        stops.load(Ordering::SeqCst) > 0,
        "the program was never stopped while the client waited"
    );
    assert!(matches!(quiet, Ok(None)), "a quiet wait ended in {quiet:?}");
    // And the connection is whole.
    conn.send(&ClientMsg::Ping).expect("sent");
    assert_eq!(
        conn.recv(PATIENCE).expect("answered"),
        Some(ServerMsg::Pong)
    );
}
