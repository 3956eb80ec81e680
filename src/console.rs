//! On Windows the game is a windowed program (`windows_subsystem`), so that opening it shows no
//! console window; started from a terminal, it writes to that terminal (`--help`, `--version`,
//! the log) by attaching to the terminal's console.
#![allow(unsafe_code)]

/// Attaches to the console of the program that started the game, if it has one.
pub fn attach_to_parent() {
    use windows::Win32::System::Console::{ATTACH_PARENT_PROCESS, AttachConsole};
    // SAFETY: AttachConsole has no preconditions; it fails harmlessly when the parent has no
    // console (started from Explorer) or this process already has one.
    let _ = unsafe { AttachConsole(ATTACH_PARENT_PROCESS) };
}
