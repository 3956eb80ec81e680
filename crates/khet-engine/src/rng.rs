//! The one pseudo-random generator of the project: xorshift64, small, fast and reproducible.
//! The lower levels vary their play with it, the fairness batch seeds its games with it, and
//! the tools and tests that play random games use it, so the same seed gives the same games
//! everywhere. It is not for anything secret.

/// An xorshift64 state. The same seed gives the same sequence on every machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`; a zero seed (from which xorshift never moves) is replaced by a
    /// fixed non-zero one.
    pub const fn new(seed: u64) -> Rng {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// A generator from `seed` stirred first (splitmix64's finaliser): neighbouring seeds (a
    /// match's game numbers) begin far apart, where [`Rng::new`]'s xorshift begins them alike.
    pub const fn mixed(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng::new(z ^ (z >> 31))
    }

    /// The next number of the sequence.
    pub fn next_u64(&mut self) -> u64 {
        let mut s = self.0;
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        self.0 = s;
        s
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// One element of `items`, or `None` when it is empty (the generator still advances).
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        let i = self.below(items.len());
        items.get(i).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn same_seed_same_sequence_and_never_stuck_at_zero() {
        let (mut a, mut b) = (Rng::new(42), Rng::new(42));
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        assert!(
            xs.iter()
                .zip((0..100).map(|_| b.next_u64()))
                .all(|(x, y)| *x == y)
        );
        // xorshift64 with shifts 13, 7, 17 from 1: 1 → 8193 → 8257 → 8257 + (8257 << 17).
        assert_eq!(Rng::new(1).next_u64(), 8257 + (8257 << 17));
        // Mixed, neighbouring seeds part at once.
        let firsts: std::collections::BTreeSet<usize> =
            (0..40).map(|g| Rng::mixed(g).below(30)).collect();
        assert!(firsts.len() >= 15, "{firsts:?}");
        let mut z = Rng::new(0);
        assert!((0..10).all(|_| z.next_u64() != 0));
        let mut r = Rng::new(7);
        assert!((0..1000).all(|_| r.below(10) < 10));
        assert_eq!(r.below(0), 0);
        assert_eq!(r.pick::<u8>(&[]), None);
        // Every index is reached.
        let mut seen = [false; 10];
        (0..1000).for_each(|_| seen[r.below(10)] = true);
        assert!(seen.iter().all(|&s| s));
    }
}
