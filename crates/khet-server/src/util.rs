//! Small helpers the server's parts share: a lock that survives a panic, and the wall clock in
//! milliseconds, the system's or the one days are judged by.

use std::sync::atomic::{AtomicU64, Ordering};
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

/// The clock a correspondence game's days are judged by: the system's, set forward by what a
/// test (in the same process) says, so that days run out without waiting for them.
#[derive(Debug, Default)]
pub struct WallClock {
    ahead_ms: AtomicU64,
}

impl WallClock {
    /// The milliseconds since 1970, as this clock says.
    pub fn now_ms(&self) -> u64 {
        now_ms().saturating_add(self.ahead_ms.load(Ordering::Relaxed))
    }

    /// Sets the clock `ms` forward (it never goes back).
    pub fn advance(&self, ms: u64) {
        self.ahead_ms.fetch_add(ms, Ordering::Relaxed);
    }
}
