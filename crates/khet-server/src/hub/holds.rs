//! A bar's hold on the networks its identity connected from: what the hub does when the
//! operator bars or lets back a player, and the hourly sweep of what it no longer needs to keep.

use super::Hub;
use crate::store::StoreError;
use crate::util::now_ms;
use std::time::Duration;

/// How often the networks seen and the holds run out are deleted.
const SWEEP_EVERY: Duration = Duration::from_secs(60 * 60);

impl Hub {
    /// Holds the networks barred player `id` connected from within the hold's time (the
    /// policy's), for that time from now: no new identity is made from them. How many.
    pub async fn hold_networks(&self, id: &str) -> Result<u64, StoreError> {
        let hold = self.inner.policy.hold_ms();
        if hold == 0 {
            return Ok(0);
        }
        let now = now_ms();
        self.inner
            .store
            .hold_networks(id, now.saturating_sub(hold), now.saturating_add(hold))
            .await
    }

    /// Lets go of the networks held for player `id`, let back by the operator.
    pub async fn release_networks(&self, id: &str) -> Result<(), StoreError> {
        self.inner.store.release_networks(id).await
    }

    /// Every hour, until the server stops: deletes the networks seen longer ago than a hold
    /// lasts, and the holds that ran out, so that neither is kept longer than said
    /// (docs/server.md).
    pub async fn sweep_networks(self) {
        let mut every = tokio::time::interval(SWEEP_EVERY);
        loop {
            every.tick().await;
            let now = now_ms();
            let seen_before = now.saturating_sub(self.inner.policy.hold_ms());
            if let Err(e) = self.inner.store.forget_networks(seen_before, now).await {
                crate::metrics::failed("forgetting old networks", &e);
            }
        }
    }
}
