//! Shared code of the differential targets (`diff_*`): the fixed keys, a cursor over the fuzz
//! input, and the common shape of an outcome. Every call into sixpgp is in [`six`], every call
//! into Sequoia in [`sq`], and [`rpgp`] talks to the rPGP oracle process (`oracle-rpgp/`), so
//! that an API change touches one file.

mod common;
pub mod rpgp;
pub mod six;
pub mod sq;

pub use common::*;

/// A ChaCha20 stream seeded from the input, usable as sixpgp's RNG (rand_core 0.10) and as
/// rPGP's (rand_core 0.6).
pub struct SeededRng(rand_chacha::ChaCha20Rng);

impl SeededRng {
    #[must_use]
    pub fn new(seed: [u8; 32]) -> Self {
        use rand_core_06::SeedableRng;
        SeededRng(rand_chacha::ChaCha20Rng::from_seed(seed))
    }
    pub fn fill(&mut self, dst: &mut [u8]) {
        rand_core_06::RngCore::fill_bytes(&mut self.0, dst);
    }
}

impl sixpgp::rand_core::TryRng for SeededRng {
    type Error = std::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(rand_core_06::RngCore::next_u32(&mut self.0))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(rand_core_06::RngCore::next_u64(&mut self.0))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.fill(dst);
        Ok(())
    }
}
impl sixpgp::rand_core::TryCryptoRng for SeededRng {}

impl rand_core_06::RngCore for SeededRng {
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        self.0.fill_bytes(dst);
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), rand_core_06::Error> {
        self.0.try_fill_bytes(dst)
    }
}
impl rand_core_06::CryptoRng for SeededRng {}
