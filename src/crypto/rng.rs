//! The random number generator every construction draws from: the operating system's RNG by
//! default, or one the caller injects (deterministic tests, hardware RNGs).
//!
//! Every construction draws its randomness (keys, seeds, ephemeral scalars, the ML-KEM and
//! ML-DSA randomness) through [`Rng::fill`], which returns a failure of the OS RNG as an error,
//! so none ever sees bad randomness; no dependency is handed the generator itself.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use std::fmt;
use std::io;

use rand_core::{CryptoRng, TryRng};

use crate::error::{Error, Result};

/// Where the random octets come from.
enum Source {
    /// `getrandom`'s system RNG.
    Os,
    /// A caller-supplied generator.
    Boxed(Box<dyn CryptoRng + Send>),
}

/// A cryptographically secure random number generator (see the module docs for failures).
pub(crate) struct Rng {
    source: Source,
    /// Set once the OS RNG has failed: it is not trusted again.
    failed: bool,
}

impl fmt::Debug for Rng {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.source {
            Source::Os => "Rng(os)",
            Source::Boxed(_) => "Rng(injected)",
        })
    }
}

fn rng_error() -> Error {
    Error::Io(io::Error::other("operating system random number generator failed"))
}

impl Rng {
    /// The operating system's RNG (`getrandom`).
    pub(crate) fn os() -> Self {
        Self { source: Source::Os, failed: false }
    }

    /// A caller-supplied generator.
    pub(crate) fn from_boxed(rng: Box<dyn CryptoRng + Send>) -> Self {
        Self { source: Source::Boxed(rng), failed: false }
    }

    /// Fills `buf` with random octets.
    ///
    /// # Errors
    /// `Error::Io` if the OS RNG fails now or failed earlier; `buf` is then zeroed.
    pub(crate) fn fill(&mut self, buf: &mut [u8]) -> Result<()> {
        if self.failed {
            buf.fill(0);
            return Err(rng_error());
        }
        match &mut self.source {
            Source::Os => getrandom::SysRng.try_fill_bytes(buf).map_err(|_| {
                buf.fill(0);
                self.failed = true;
                rng_error()
            }),
            Source::Boxed(rng) => {
                rng.fill_bytes(buf);
                Ok(())
            }
        }
    }
}

/// Test-only generators.
#[cfg(test)]
pub(super) mod test_util {
    use std::convert::Infallible;

    use rand_core::TryCryptoRng;

    use super::{Rng, TryRng};

    /// A deterministic, NOT cryptographically secure generator (a SplitMix64 stream) for tests.
    #[derive(Debug)]
    struct CountingRng(pub(crate) u64);

    impl TryRng for CountingRng {
        type Error = Infallible;

        fn try_next_u32(&mut self) -> Result<u32, Infallible> {
            let v = self.try_next_u64()?;
            Ok(u32::try_from(v >> 32).unwrap_or_default())
        }

        fn try_next_u64(&mut self) -> Result<u64, Infallible> {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            Ok(z ^ (z >> 31))
        }

        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
            for chunk in dst.chunks_mut(8) {
                let v = self.try_next_u64()?.to_le_bytes();
                chunk.copy_from_slice(&v[..chunk.len()]);
            }
            Ok(())
        }
    }

    impl TryCryptoRng for CountingRng {}

    /// An [`Rng`] over [`CountingRng`] seeded with `seed`.
    pub(crate) fn deterministic(seed: u64) -> Rng {
        Rng::from_boxed(Box::new(CountingRng(seed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_rng_fills() {
        let mut rng = Rng::os();
        let mut a = [0u8; 32];
        let mut b = [0u8; 32];
        rng.fill(&mut a).unwrap();
        rng.fill(&mut b).unwrap();
        assert_ne!(a, b);
        assert_eq!(format!("{rng:?}"), "Rng(os)");
    }

    /// After a failure, `fill` keeps failing and the output is zeroed.
    #[test]
    fn failure_is_sticky() {
        let mut rng = Rng::os();
        rng.failed = true;
        let mut buf = [0xaa; 16];
        assert!(matches!(rng.fill(&mut buf), Err(Error::Io(_))));
        assert_eq!(buf, [0; 16]);
        buf = [0xaa; 16];
        assert!(matches!(rng.fill(&mut buf), Err(Error::Io(_))));
        assert_eq!(buf, [0; 16]);
    }

    #[test]
    fn injected_rng_is_deterministic() {
        let mut a = test_util::deterministic(7);
        let mut b = test_util::deterministic(7);
        let (mut x, mut y) = ([0u8; 13], [0u8; 13]);
        a.fill(&mut x).unwrap();
        b.fill(&mut y).unwrap();
        assert_eq!(x, y);
        assert_eq!(format!("{a:?}"), "Rng(injected)");
    }
}
