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

#[cfg(test)]
mod tests {
    use crate::store::PlayerRow;

    /// A hold lasts until its time and no longer, and the sweep deletes the networks seen
    /// before the hold's time and the holds run out: nothing is kept longer than said.
    #[test]
    fn a_hold_runs_out_and_the_sweep_forgets_what_it_no_longer_needs() {
        let (runtime, hub, dir) = crate::hub::hub_for_test("holds");
        let store = hub.store().clone();
        runtime.block_on(async {
            let player = PlayerRow {
                id: "cheat".into(),
                name: "Cheat".into(),
                rating: crate::rating::initial(),
                games: 0,
            };
            store.insert_player(&player, "hash", 0).await.unwrap();
            store.seen_on("cheat", "192.0.2.1", 1_000).await.unwrap();
            store
                .seen_on("cheat", "2001:db8::/64", 5_000)
                .await
                .unwrap();
            // Seen since 2,000: only the second network is held, until 10,000.
            assert_eq!(
                store.hold_networks("cheat", 2_000, 10_000).await.unwrap(),
                1
            );
            assert_eq!(store.held_until("192.0.2.1", 6_000).await.unwrap(), None);
            let held = store.held_until("2001:db8::/64", 6_000).await.unwrap();
            assert_eq!(held, Some(10_000));
            assert_eq!(
                store.held_until("2001:db8::/64", 10_000).await.unwrap(),
                None
            );
            store.forget_networks(3_000, 10_000).await.unwrap();
            // The first network's sighting is gone: a bar now holds only the second.
            assert_eq!(store.hold_networks("cheat", 0, 20_000).await.unwrap(), 1);
            store.forget_networks(6_000, 20_000).await.unwrap();
            assert_eq!(store.hold_networks("cheat", 0, 30_000).await.unwrap(), 0);
            assert_eq!(store.held_until("2001:db8::/64", 0).await.unwrap(), None);
        });
        drop(hub);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
