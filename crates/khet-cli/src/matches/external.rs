//! External engines: a program that speaks the protocol, played over its standard input and
//! output.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// An external engine process, its output read by a thread of its own so that an engine that
/// stops answering ends the match with a reason instead of hanging it.
pub(super) struct External {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
}

/// How long an engine may take beyond the time it was given, or to start.
const GRACE: Duration = Duration::from_secs(10);

impl External {
    /// Starts `cmd` and checks that it reads commands (Khet2-AI's protocol has no handshake, so
    /// this asks for the first move of a game and waits for the answer).
    pub(super) fn start(cmd: &str) -> Result<External, String> {
        let mut child = Command::new("sh")
            .args(["-c", cmd])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{cmd}': {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = External {
            child,
            stdin,
            lines,
        };
        e.choose("classic", &[], Duration::from_millis(10))
            .map_err(|err| format!("'{cmd}' does not play: {err}"))?;
        Ok(e)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("engine gone: {e}"))
    }

    /// The first line that starts with `prefix`, within `wait`.
    fn wait_for(&mut self, prefix: &str, wait: Duration) -> Result<String, String> {
        let end = std::time::Instant::now() + wait;
        loop {
            let left = end.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.trim_start().starts_with(prefix) => {
                    return Ok(line.trim().to_string());
                }
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(format!("no '{prefix}' within {} s", wait.as_secs()));
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(format!("the engine closed before answering '{prefix}'"));
                }
            }
        }
    }

    /// A new game: the engine forgets what it learned.
    pub(super) fn new_game(&mut self) -> Result<(), String> {
        self.send("newgame")
    }

    /// Asks for a move in `setup` after `moves`, in the form without the word `moves` that the
    /// Khet2-AI program expects.
    pub(super) fn choose(
        &mut self,
        setup: &str,
        moves: &[String],
        movetime: Duration,
    ) -> Result<String, String> {
        let start = if setup == "classic" {
            "standard"
        } else {
            setup
        };
        self.send(format!("position {start} {}", moves.join(" ")).trim_end())?;
        self.send(&format!("go movetime {}", movetime.as_millis()))?;
        let line = self.wait_for("bestmove", movetime + GRACE)?;
        Ok(line.split_whitespace().nth(1).unwrap_or("none").to_string())
    }
}

impl Drop for External {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
