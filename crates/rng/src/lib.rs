//! The one pseudo-random generator of hindsight: [`SplitMix64`] (Steele, Lea and Flood,
//! "Fast splittable pseudorandom number generators", OOPSLA 2014), and the draws the
//! generators build on it (a number below `n`, a probability test, a float in `[0, 1)`, a pick
//! from a slice).
//!
//! It is written out here rather than taken from the `rand` crate because a seed is part of the
//! interface: `hindsight gen`, `gen-poset` and `gen-history` must give the same trace, poset
//! or history for a seed forever, and `rand`'s generators and distributions may change between
//! versions. For the same reason no draw here may change what it returns or how many numbers
//! it consumes; where two generators derived a draw differently, both derivations are kept
//! under their own names.
//!
//! This crate owns the stream of numbers and the arithmetic that turns them into draws. It
//! knows nothing of traces, posets, histories or any other thing drawn with it, and nothing of
//! threads or time: the same seed gives the same numbers on every platform.

/// SplitMix64: a 64-bit state advanced by a fixed odd increment and mixed on the way out.
/// Small, fast, and the same on every platform; not for cryptography.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

/// The golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// 2^53: the number of values a 53-bit draw can take, and the denominator of [`SplitMix64::unit`].
const TWO_53: f64 = (1u64 << 53) as f64;

impl SplitMix64 {
    /// The generator whose stream `seed` names (every seed is valid, 0 included).
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 if `n == 0`), from one draw by Lemire's multiply-high (the high
    /// 64 bits of draw × n). Its bias, below `n / 2^64`, does not matter to the generators.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A number in `0..n`, from one draw by remainder (draw mod n): another derivation than
    /// [`below`](Self::below), giving other numbers for the same draw, used by the generators
    /// that were written with it. Panics if `n == 0`.
    #[inline]
    pub fn modulo(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// An element of `xs` chosen by [`below`](Self::below). Panics if `xs` is empty.
    #[inline]
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }

    /// A float in `[0, 1)`: the top 53 bits of one draw over 2^53, so every value is exact.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / TWO_53
    }

    /// True with probability `p` ([`unit`](Self::unit) `< p`). Draws nothing unless `p > 0`
    /// (so never for 0 or NaN), so that a setting left at 0 does not shift the draws after it.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && self.unit() < p
    }

    /// True when [`unit`](Self::unit) `<= p` and `p > 0`. Unlike [`chance`](Self::chance) it
    /// always draws, whatever `p`: the poset generator was written with it, and its posets for
    /// a probability of 0 depend on that draw.
    #[inline]
    pub fn unit_at_most(&mut self, p: f64) -> bool {
        let u = self.unit();
        u <= p && p > 0.0
    }

    /// True with probability `p`, tested on 53 random bits without floating point. Draws
    /// nothing for [`Prob::NEVER`]. Passes for other draws than [`chance`](Self::chance) with
    /// the same `f64`: `p` is rounded down to a multiple of 2^-53 first.
    #[inline]
    pub fn passes(&mut self, p: Prob) -> bool {
        p.0 != 0 && (self.next_u64() >> 11) < p.0
    }
}

/// A probability as a threshold on 53 random bits, for [`SplitMix64::passes`]: 0 never passes,
/// 1 always does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prob(u64);

impl Prob {
    /// The probability that never passes (and draws nothing).
    pub const NEVER: Prob = Prob(0);

    /// `p` clamped to `[0, 1]` (NaN counts as 0), rounded down to a multiple of 2^-53.
    pub fn new(p: f64) -> Prob {
        // `p >= 0.0` is false for NaN.
        let p = if p >= 0.0 { p.min(1.0) } else { 0.0 };
        Prob((p * TWO_53) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stream is part of the format of a seed: pin it to the reference implementation.
    #[test]
    fn splitmix64_matches_the_reference() {
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    /// Each draw consumes exactly the numbers its contract says (here: one), or none.
    fn draws(f: impl FnOnce(&mut SplitMix64)) -> u64 {
        let mut rng = SplitMix64::new(42);
        f(&mut rng);
        let after = rng.clone();
        let mut counted = SplitMix64::new(42);
        let mut n = 0;
        while counted != after {
            assert!(n < 10, "more than 10 draws");
            counted.next_u64();
            n += 1;
        }
        n
    }

    #[test]
    fn below_is_the_high_half_of_draw_times_n() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for n in [1, 2, 3, 10, 1000, u64::MAX] {
            let x = b.next_u64();
            let r = a.below(n);
            assert!(r < n);
            assert_eq!(r, ((u128::from(x) * u128::from(n)) >> 64) as u64);
        }
        assert_eq!(a.below(0), 0);
        assert_eq!(
            draws(|r| {
                let _ = r.below(0);
            }),
            1
        );
        // Small n: every value comes up.
        let mut seen = [false; 5];
        for _ in 0..200 {
            seen[a.below(5) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn modulo_is_the_remainder_of_one_draw() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for n in [1, 2, 3, 10, 1000, u64::MAX] {
            assert_eq!(a.modulo(n), b.next_u64() % n);
        }
        assert_eq!(
            draws(|r| {
                let _ = r.modulo(3);
            }),
            1
        );
    }

    #[test]
    #[should_panic]
    fn modulo_zero_panics() {
        SplitMix64::new(0).modulo(0);
    }

    #[test]
    fn pick_takes_the_element_below_chooses() {
        let xs = ["a", "b", "c", "d"];
        let mut a = SplitMix64::new(3);
        let mut b = SplitMix64::new(3);
        for _ in 0..50 {
            assert_eq!(a.pick(&xs), &xs[b.below(4) as usize]);
        }
        assert_eq!(
            draws(|r| {
                let _ = r.pick(&[1]);
            }),
            1
        );
    }

    #[test]
    #[should_panic]
    fn pick_from_nothing_panics() {
        SplitMix64::new(0).pick::<u8>(&[]);
    }

    #[test]
    fn unit_is_53_bits_over_2_to_the_53() {
        let mut a = SplitMix64::new(9);
        let mut b = SplitMix64::new(9);
        for _ in 0..1000 {
            let u = a.unit();
            assert!((0.0..1.0).contains(&u));
            assert_eq!(u * TWO_53, (b.next_u64() >> 11) as f64);
        }
    }

    #[test]
    fn chance_draws_only_for_a_positive_probability() {
        for p in [0.0, -1.0, f64::NAN] {
            assert_eq!(draws(|r| assert!(!r.chance(p))), 0);
        }
        assert_eq!(draws(|r| assert!(r.chance(1.0))), 1);
        assert_eq!(draws(|r| assert!(r.chance(2.0))), 1);
        let mut a = SplitMix64::new(5);
        let mut b = SplitMix64::new(5);
        for _ in 0..1000 {
            assert_eq!(a.chance(0.3), b.unit() < 0.3);
        }
    }

    #[test]
    fn unit_at_most_always_draws() {
        for p in [0.0, -1.0, f64::NAN] {
            assert_eq!(draws(|r| assert!(!r.unit_at_most(p))), 1);
        }
        assert_eq!(draws(|r| assert!(r.unit_at_most(1.0))), 1);
        let mut a = SplitMix64::new(5);
        let mut b = SplitMix64::new(5);
        for _ in 0..1000 {
            assert_eq!(a.unit_at_most(0.3), b.unit() <= 0.3);
        }
    }

    #[test]
    fn prob_clamps_and_rounds_down() {
        assert_eq!(Prob::new(0.0), Prob::NEVER);
        assert_eq!(Prob::new(-0.5), Prob::NEVER);
        assert_eq!(Prob::new(f64::NAN), Prob::NEVER);
        assert_eq!(Prob::new(1.0), Prob(1 << 53));
        assert_eq!(Prob::new(7.0), Prob(1 << 53));
        assert_eq!(Prob::new(0.5), Prob(1 << 52));
        assert_eq!(Prob::new(0.1), Prob((0.1 * TWO_53) as u64));
    }

    #[test]
    fn passes_tests_53_bits_against_the_threshold() {
        assert_eq!(draws(|r| assert!(!r.passes(Prob::NEVER))), 0);
        assert_eq!(draws(|r| assert!(r.passes(Prob::new(1.0)))), 1);
        let p = Prob::new(0.3);
        let mut a = SplitMix64::new(11);
        let mut b = SplitMix64::new(11);
        let mut hits = 0;
        for _ in 0..10_000 {
            let hit = a.passes(p);
            assert_eq!(hit, (b.next_u64() >> 11) < p.0);
            hits += usize::from(hit);
        }
        assert!((2_700..3_300).contains(&hits), "{hits}");
    }
}
