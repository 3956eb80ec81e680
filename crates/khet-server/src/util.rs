//! Two small helpers the server's parts share: a lock that survives a panic, and the wall clock
//! in milliseconds.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, even if a thread panicked while holding it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these small maps leaves it consistent; go on with it.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The milliseconds since 1970, for what is stored.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
