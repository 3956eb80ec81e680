//! Standard output that survives its reader: a closed pipe (`khet-engine divide 2 | head -1`)
//! ends the command quietly, and any other write error (a full disk) is reported in one line
//! with a non-zero exit, where `println!` would panic.

use std::fmt;
use std::io::{self, Write};

/// Why a command stopped early.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: one line for the user, exit status 2.
    Input(String),
    /// The reader of standard output went away: stop quietly.
    Closed,
    /// Writing failed otherwise: one line, exit status 1.
    Write(io::Error),
}

impl From<String> for Failure {
    fn from(s: String) -> Failure {
        Failure::Input(s)
    }
}

impl From<&str> for Failure {
    fn from(s: &str) -> Failure {
        Failure::Input(s.to_string())
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::Closed
        } else {
            Failure::Write(e)
        }
    }
}

/// What a command prints to: standard output, buffered, flushed at the end and where asked.
pub struct Out<W: Write> {
    w: W,
}

impl Out<io::BufWriter<io::Stdout>> {
    /// Standard output.
    pub fn stdout() -> Self {
        Out {
            w: io::BufWriter::new(io::stdout()),
        }
    }
}

impl<W: Write> Out<W> {
    /// Writes one line.
    pub fn line(&mut self, args: fmt::Arguments<'_>) -> Result<(), Failure> {
        self.w.write_fmt(args)?;
        self.w.write_all(b"\n")?;
        Ok(())
    }

    /// Writes one line and flushes it (for progress that a person watches).
    pub fn now(&mut self, args: fmt::Arguments<'_>) -> Result<(), Failure> {
        self.line(args)?;
        self.flush()
    }

    /// Flushes what is buffered.
    pub fn flush(&mut self) -> Result<(), Failure> {
        self.w.flush()?;
        Ok(())
    }
}

#[cfg(test)]
impl Out<Vec<u8>> {
    /// Output kept in memory, for tests.
    pub fn memory() -> Self {
        Out { w: Vec::new() }
    }

    /// What was written so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.w).into_owned()
    }
}

/// `say!(out, "…", args)`: one line to `out`, `?`-propagating a [`Failure`].
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        $out.line(format_args!($($arg)*))?
    };
}
pub(crate) use say;
