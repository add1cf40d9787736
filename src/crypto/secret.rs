//! Newtypes for secret material: zeroized on drop, never printed.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use std::fmt;
use std::sync::{Arc, OnceLock};

use libcrux_ml_dsa::ml_dsa_65::{self, MLDSA65SigningKey, MLDSA65VerificationKey};
use libcrux_ml_kem::mlkem768;

use zeroize::{Zeroize, ZeroizeOnDrop};

macro_rules! secret_array {
    ($(#[$meta:meta])* $name:ident, $len:expr) => {
        $(#[$meta])*
        ///
        /// The octets live in a heap allocation of their own, so that moving the value (into a
        /// `Vec` that grows, an `Arc`, a merged key) moves a pointer and leaves no copy of the
        /// secret behind; the allocation is wiped when the value drops.
        pub(crate) struct $name(pub(crate) Box<[u8; $len]>);

        impl $name {
            /// All-zero octets, to be filled in place.
            pub(crate) fn zeroed() -> Self {
                Self(Box::new([0; $len]))
            }

            /// A copy of `bytes` (the caller's copy is the caller's to wipe).
            pub(crate) fn new(bytes: &[u8; $len]) -> Self {
                let mut secret = Self::zeroed();
                secret.0.copy_from_slice(bytes);
                secret
            }

            /// The secret octets.
            #[allow(dead_code, reason = "not every secret type is read through a borrowed view")]
            pub(crate) fn as_bytes(&self) -> &[u8; $len] {
                &self.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(concat!(stringify!($name), "([redacted])"))
            }
        }

        // A secret key is `Clone` (see `Tsk`); each copy is wiped on its own drop.
        impl Clone for $name {
            fn clone(&self) -> Self {
                Self::new(&self.0)
            }
        }

        impl Zeroize for $name {
            fn zeroize(&mut self) {
                self.0.as_mut_slice().zeroize();
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                self.zeroize();
            }
        }

        impl ZeroizeOnDrop for $name {}
    };
}

secret_array!(
    /// A 32-octet key-encryption key, combiner output or X25519/ML-KEM shared secret.
    Secret32,
    32
);
secret_array!(
    /// An Ed25519 or X25519 secret key.
    Curve25519Secret,
    32
);
/// The ML-DSA-65 key pair expanded from a seed ξ (`ML-DSA.KeyGen_internal`, FIPS 204
/// Algorithm 6): the encoded signing key (ρ, K, tr, s1, s2, t0) on the heap, wiped on drop, and
/// the public key.
pub(crate) struct MlDsaSigningKey {
    secret: Box<MLDSA65SigningKey>,
    public: Box<MLDSA65VerificationKey>,
}

impl MlDsaSigningKey {
    /// Expands the seed ξ.
    pub(crate) fn from_seed(seed: &[u8; 32]) -> Self {
        let mut pair = ml_dsa_65::generate_key_pair(*seed);
        let mut secret = Box::new(MLDSA65SigningKey::zero());
        secret.as_mut_slice().copy_from_slice(pair.signing_key.as_slice());
        pair.signing_key.as_mut_slice().zeroize();
        Self { secret, public: Box::new(pair.verification_key) }
    }

    /// The encoded signing key.
    pub(crate) fn secret(&self) -> &MLDSA65SigningKey {
        &self.secret
    }

    /// The public key.
    pub(crate) fn public(&self) -> &MLDSA65VerificationKey {
        &self.public
    }
}

impl Drop for MlDsaSigningKey {
    fn drop(&mut self) {
        self.secret.as_mut_slice().zeroize();
    }
}

impl fmt::Debug for MlDsaSigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MlDsaSigningKey([redacted])")
    }
}

/// The ML-KEM-768 key pair expanded from a seed d ‖ z (`ML-KEM.KeyGen_internal`, FIPS 203
/// Algorithm 16): the encapsulation key, and the decapsulation key in the form this CPU
/// decapsulates with (see [`Unpacked`]), on the heap and wiped on drop.
pub(crate) struct MlKemDecapsulationKey {
    public: Box<mlkem768::MlKem768PublicKey>,
    unpacked: Unpacked,
}

impl MlKemDecapsulationKey {
    /// Expands the seed d ‖ z.
    pub(crate) fn from_seed(seed: &[u8; 64]) -> Self {
        let mut public = Box::<mlkem768::MlKem768PublicKey>::default();
        let unpacked = Unpacked::generate(seed, &mut public);
        Self { public, unpacked }
    }

    /// The decapsulation key, packed.
    #[cfg(test)]
    pub(crate) fn secret(&self) -> Box<mlkem768::MlKem768PrivateKey> {
        let mut secret = Box::<mlkem768::MlKem768PrivateKey>::default();
        match &self.unpacked {
            #[cfg(sixpgp_mlkem_avx2)]
            Unpacked::Avx2(key_pair) => {
                mlkem768::avx2::unpacked::key_pair_serialized_private_key_mut(key_pair, &mut secret);
            }
            #[cfg(not(target_arch = "aarch64"))]
            Unpacked::Portable(key_pair) => {
                mlkem768::portable::unpacked::key_pair_serialized_private_key_mut(key_pair, &mut secret);
            }
            #[cfg(target_arch = "aarch64")]
            Unpacked::Packed(dk) => secret[0..].copy_from_slice(dk.as_slice()),
        }
        secret
    }

    /// The encapsulation key.
    pub(crate) fn public(&self) -> &mlkem768::MlKem768PublicKey {
        &self.public
    }

    /// `ML-KEM.Decaps` (FIPS 203, Algorithm 21): the shared secret of `ciphertext`, or with
    /// implicit rejection a pseudorandom one.
    pub(crate) fn decapsulate(&self, ciphertext: &mlkem768::MlKem768Ciphertext) -> [u8; 32] {
        match &self.unpacked {
            #[cfg(sixpgp_mlkem_avx2)]
            Unpacked::Avx2(key_pair) => mlkem768::avx2::unpacked::decapsulate(key_pair, ciphertext),
            #[cfg(not(target_arch = "aarch64"))]
            Unpacked::Portable(key_pair) => mlkem768::portable::unpacked::decapsulate(key_pair, ciphertext),
            #[cfg(target_arch = "aarch64")]
            Unpacked::Packed(dk) => mlkem768::decapsulate(dk, ciphertext),
        }
    }
}

impl fmt::Debug for MlKemDecapsulationKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MlKemDecapsulationKey([redacted])")
    }
}

/// The key pair unpacked as libcrux decapsulates with it: the secret vector and the
/// encapsulation key in NTT form and the matrix A sampled. Decapsulating from the packed key
/// re-derives all of them from the octets on every call (docs/performance.md has the cost). libcrux
/// offers the unpacked form per vector code, not behind its run-time choice of code, so the
/// choice is made here, once per key: AVX2 where the CPU has it; otherwise the portable code,
/// except on aarch64, where the packed key on libcrux's NEON code is kept. Wiped on drop.
enum Unpacked {
    #[cfg(sixpgp_mlkem_avx2)]
    Avx2(Box<mlkem768::avx2::unpacked::MlKem768KeyPairUnpacked>),
    #[cfg(not(target_arch = "aarch64"))]
    Portable(Box<mlkem768::portable::unpacked::MlKem768KeyPairUnpacked>),
    #[cfg(target_arch = "aarch64")]
    Packed(Box<mlkem768::MlKem768PrivateKey>),
}

/// Generates the unpacked key pair of `seed` in a box (`$api`: one of libcrux's unpacked
/// modules) and writes its packed encapsulation key to `public`.
#[cfg(not(target_arch = "aarch64"))]
macro_rules! generate_unpacked {
    ($api:path, $seed:expr, $public:expr) => {{
        use $api as api;
        let mut key_pair = Box::new(api::init_key_pair());
        api::generate_key_pair_mut(*$seed, &mut key_pair);
        api::key_pair_serialized_public_key_mut(&key_pair, $public);
        key_pair
    }};
}

impl Unpacked {
    /// `ML-KEM.KeyGen_internal(d, z)`: the decapsulation key, and the encapsulation key
    /// written to `public`.
    fn generate(seed: &[u8; 64], public: &mut mlkem768::MlKem768PublicKey) -> Self {
        #[cfg(sixpgp_mlkem_avx2)]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Self::Avx2(generate_unpacked!(mlkem768::avx2::unpacked, seed, public));
        }
        #[cfg(not(target_arch = "aarch64"))]
        {
            Self::Portable(generate_unpacked!(mlkem768::portable::unpacked, seed, public))
        }
        #[cfg(target_arch = "aarch64")]
        {
            let (mut dk, ek) = mlkem768::generate_key_pair(*seed).into_parts();
            let mut secret = Box::<mlkem768::MlKem768PrivateKey>::default();
            secret[0..].copy_from_slice(dk.as_slice());
            dk[0..].zeroize();
            *public = ek;
            Self::Packed(secret)
        }
    }
}

impl Drop for Unpacked {
    /// libcrux's unpacked keys do not wipe themselves, and writing zeros over one would need
    /// `unsafe`: the key of an all-zero decapsulation key is unpacked over it instead, which
    /// rewrites the secret vector and z (the rest is public).
    fn drop(&mut self) {
        let zero = mlkem768::MlKem768PrivateKey::default();
        match self {
            #[cfg(sixpgp_mlkem_avx2)]
            Self::Avx2(key_pair) => {
                mlkem768::avx2::unpacked::key_pair_from_private_mut(&zero, key_pair);
                let _ = std::hint::black_box(key_pair);
            }
            #[cfg(not(target_arch = "aarch64"))]
            Self::Portable(key_pair) => {
                mlkem768::portable::unpacked::key_pair_from_private_mut(&zero, key_pair);
                let _ = std::hint::black_box(key_pair);
            }
            #[cfg(target_arch = "aarch64")]
            Self::Packed(dk) => dk[0..].zeroize(),
        }
    }
}

/// A secret seed with the key derived from it (an expanded key, a key pair), derived on first
/// use and shared by the seed's clones, made before or after the derivation: a key that is
/// used many times (each signature, each message; key generation makes three
/// self-signatures; a key passed by reference is copied for each use) pays for the derivation
/// once, and it cannot change for a seed. The price: the derived key lives as long as the
/// seed does, not just for one operation. Both are on the heap, so that a move copies
/// pointers only, and both are wiped on drop (the seed here, the derived key by its own
/// `Drop`; temporaries on the stack inside the crates that derive and use them are not, which
/// would need `unsafe`).
pub(crate) struct Seeded<const N: usize, D> {
    seed: Box<[u8; N]>,
    derived: Arc<OnceLock<D>>,
}

impl<const N: usize, D> Seeded<N, D> {
    /// A copy of the seed octets `seed` (the caller's copy is the caller's to wipe).
    pub(crate) fn new(seed: &[u8; N]) -> Self {
        let mut boxed = Box::new([0; N]);
        boxed.copy_from_slice(seed);
        Self { seed: boxed, derived: Arc::default() }
    }

    /// The seed octets.
    pub(crate) fn as_bytes(&self) -> &[u8; N] {
        &self.seed
    }

    /// The derived key, derived by `derive` if no copy of the seed has derived it yet.
    fn derived(&self, derive: impl FnOnce(&[u8; N]) -> D) -> &D {
        self.derived.get_or_init(|| derive(&self.seed))
    }
}

impl<const N: usize, D> Clone for Seeded<N, D> {
    /// Copies the seed and shares the derived key, now or once either copy has one.
    fn clone(&self) -> Self {
        let mut copy = Self::new(&self.seed);
        copy.derived = Arc::clone(&self.derived);
        copy
    }
}

impl<const N: usize, D> Drop for Seeded<N, D> {
    fn drop(&mut self) {
        self.seed.as_mut_slice().zeroize();
    }
}

impl<const N: usize, D> fmt::Debug for Seeded<N, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seeded([redacted])")
    }
}

/// An Ed25519 secret key (the 32-octet seed of RFC 8032 §5.1.5) with its signing key (the
/// secret with the public key `A`, whose derivation is a scalar multiplication).
pub(crate) type Ed25519Secret = Seeded<32, Box<ed25519_dalek::SigningKey>>;

impl Ed25519Secret {
    /// The signing key, derived once; it wipes its secret on drop.
    pub(crate) fn signing_key(&self) -> &ed25519_dalek::SigningKey {
        self.derived(|seed| Box::new(ed25519_dalek::SigningKey::from_bytes(seed)))
    }
}

/// An ML-DSA-65 seed ξ (FIPS 204) with the key pair it expands to.
pub(crate) type MlDsaSeed = Seeded<32, MlDsaSigningKey>;

impl MlDsaSeed {
    /// `ML-DSA.KeyGen_internal(ξ)` (FIPS 204, Algorithm 6), computed once.
    pub(crate) fn signing_key(&self) -> &MlDsaSigningKey {
        self.derived(MlDsaSigningKey::from_seed)
    }
}

/// An ML-KEM-768 seed d ‖ z (FIPS 203) with the key pair it expands to: a key is checked
/// against its public key when it is read, which expands it, so decrypting with it, or with
/// any copy of it, never expands it again.
pub(crate) type MlKemSeed = Seeded<64, MlKemDecapsulationKey>;

impl MlKemSeed {
    /// `ML-KEM.KeyGen_internal(d, z)` (FIPS 203, Algorithm 16), computed once.
    pub(crate) fn decapsulation_key(&self) -> &MlKemDecapsulationKey {
        self.derived(MlKemDecapsulationKey::from_seed)
    }
}

/// A fixed-size scratch buffer, wiped as one slice when dropped: one `memset` and a barrier,
/// where `Zeroizing<[u8; N]>` wipes an array with a volatile store per octet (kilobytes of
/// them per call in the armor code's hot loops).
pub(crate) struct WipedArray<const N: usize>([u8; N]);

impl<const N: usize> WipedArray<N> {
    pub(crate) fn new() -> Self {
        Self([0; N])
    }
}

// To a slice, not the array: `*buf` would copy an array out unwiped.
impl<const N: usize> std::ops::Deref for WipedArray<N> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl<const N: usize> std::ops::DerefMut for WipedArray<N> {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl<const N: usize> Drop for WipedArray<N> {
    fn drop(&mut self) {
        self.0.as_mut_slice().zeroize();
    }
}

/// A byte buffer for secret or plaintext data, wiped (all of its capacity) when dropped.
///
/// This replaces `Zeroizing<Vec<u8>>` inside the crate: `zeroize` 1.9 wipes the spare
/// capacity of a `Vec` in bulk (memset and an optimization barrier) but its initialized
/// octets one volatile store at a time, which is slow enough to show in the cost of a chunk.
/// Here both parts go through the slice and `MaybeUninit` impls, which are bulk.
#[derive(Default, Clone, PartialEq, Eq)]
pub(crate) struct SecretVec(Vec<u8>);

impl SecretVec {
    /// Takes ownership of `bytes` (wiped when this is dropped).
    pub(crate) fn new(bytes: Vec<u8>) -> Self {
        Self(bytes)
    }

    /// `len` zero octets.
    pub(crate) fn zeroed(len: usize) -> Self {
        Self(vec![0; len])
    }

    /// An empty buffer with room for `capacity` octets.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Self(Vec::with_capacity(capacity))
    }
}

impl SecretVec {
    /// The octets.
    pub(crate) fn as_slice(&self) -> &[u8] {
        &self.0
    }

    /// The octets, writable in place.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.0
    }

    /// Octets in the buffer.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Octets the buffer holds without reallocating.
    pub(crate) fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Makes room for `additional` more octets. A reallocation goes through
    /// [`SecretVec::grow`]: the old allocation is wiped, never left behind in freed memory.
    fn reserve(&mut self, additional: usize) {
        let needed = self.0.len().saturating_add(additional);
        if needed > self.0.capacity() {
            self.grow(needed.max(self.0.capacity().saturating_mul(2)));
        }
    }

    /// Makes room for exactly `additional` more octets, as [`SecretVec::reserve`] does.
    pub(crate) fn reserve_exact(&mut self, additional: usize) {
        let needed = self.0.len().saturating_add(additional);
        if needed > self.0.capacity() {
            self.grow(needed);
        }
    }

    /// Moves the octets into a new allocation of `capacity` octets (at least the length) and
    /// wipes the old one.
    fn grow(&mut self, capacity: usize) {
        let mut bigger = Vec::with_capacity(capacity.max(self.0.len()));
        bigger.extend_from_slice(&self.0);
        // The old buffer, now in `old`, is wiped when `old` drops.
        let old = Self(std::mem::replace(&mut self.0, bigger));
        drop(old);
    }

    /// Appends `data`, growing as [`SecretVec::reserve`] does.
    pub(crate) fn extend_from_slice(&mut self, data: &[u8]) {
        self.reserve(data.len());
        self.0.extend_from_slice(data);
    }

    /// Appends `len` zero octets, growing as [`SecretVec::reserve`] does, and returns them to
    /// be written.
    pub(crate) fn extend_zeroed(&mut self, len: usize) -> &mut [u8] {
        self.reserve(len);
        let start = self.0.len();
        self.0.resize(start.saturating_add(len), 0);
        self.0.get_mut(start..).unwrap_or_default()
    }

    /// Appends one octet, growing as [`SecretVec::reserve`] does.
    pub(crate) fn push(&mut self, octet: u8) {
        self.reserve(1);
        self.0.push(octet);
    }

    /// Shortens the buffer to `len` octets (the octets after it stay in the allocation until
    /// it is wiped or reused).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.0.truncate(len);
    }

    /// Empties the buffer (the allocation and its capacity stay).
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Hands the octets over as a plain `Vec` (for a caller that owns the data from now on),
    /// leaving this buffer empty.
    pub(crate) fn into_vec(mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
    }

    /// Wipes the first `len` octets (all of them if `len` is longer), keeping the length: for a
    /// buffer about to be reused, only the part that held secret data.
    pub(crate) fn wipe_prefix(&mut self, len: usize) {
        let end = len.min(self.0.len());
        if let Some(part) = self.0.get_mut(..end) {
            part.zeroize();
        }
    }
}

// Slices only: a `&mut Vec<u8>` would let any caller push past the capacity and leave an
// unwiped copy of the old allocation behind.
impl std::ops::Deref for SecretVec {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl std::ops::DerefMut for SecretVec {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl std::io::Write for SecretVec {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Zeroize for SecretVec {
    /// Wipes every octet of the allocation and empties the buffer (its capacity stays).
    fn zeroize(&mut self) {
        self.0.as_mut_slice().zeroize();
        self.0.spare_capacity_mut().zeroize();
        self.0.clear();
    }
}

impl Drop for SecretVec {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for SecretVec {}

impl fmt::Debug for SecretVec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretVec({} octets, redacted)", self.0.len())
    }
}

/// A symmetric session key (16, 24 or 32 octets).
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct SessionKey {
    bytes: Vec<u8>,
}

impl SessionKey {
    /// Wraps key octets. The caller's copy is not wiped; prefer passing an owned buffer.
    #[must_use]
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Self { bytes: bytes.to_vec() }
    }

    /// The key octets.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Debug for SessionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionKey([redacted])")
    }
}

/// A password or passphrase. Wiped on drop, never printed.
///
/// `Clone` so that one password can be handed to several builders; every copy is wiped on
/// its own drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct Password {
    bytes: Vec<u8>,
}

impl Password {
    /// The password octets, as typed (no normalization is applied).
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl From<&str> for Password {
    fn from(s: &str) -> Self {
        Self { bytes: s.as_bytes().to_vec() }
    }
}

impl From<&[u8]> for Password {
    fn from(s: &[u8]) -> Self {
        Self { bytes: s.to_vec() }
    }
}

impl From<Vec<u8>> for Password {
    fn from(bytes: Vec<u8>) -> Self {
        Self { bytes }
    }
}

impl From<String> for Password {
    fn from(s: String) -> Self {
        Self { bytes: s.into_bytes() }
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password([redacted])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key's copies share what is derived from it, whether they were made before or after
    /// the derivation, and the derivation is the one from the copy's own seed.
    #[test]
    fn copies_share_derived_keys() {
        let kem = MlKemSeed::new(&[7; 64]);
        let early = kem.clone();
        assert!(std::ptr::eq(early.decapsulation_key(), kem.decapsulation_key()));
        assert!(std::ptr::eq(kem.clone().decapsulation_key(), kem.decapsulation_key()));
        assert_eq!(
            kem.decapsulation_key().public().as_slice(),
            MlKemDecapsulationKey::from_seed(&[7; 64]).public().as_slice()
        );
        let dsa = MlDsaSeed::new(&[8; 32]);
        let early = dsa.clone();
        assert!(std::ptr::eq(early.signing_key(), dsa.signing_key()));
        assert!(std::ptr::eq(dsa.clone().signing_key(), dsa.signing_key()));
        let ed = Ed25519Secret::new(&[9; 32]);
        let early = ed.clone();
        assert!(std::ptr::eq(early.signing_key(), ed.signing_key()));
        assert!(std::ptr::eq(ed.clone().signing_key(), ed.signing_key()));
        assert_eq!(ed.signing_key().to_bytes(), [9; 32]);
    }

    /// Every form of the expanded ML-KEM key (the one this CPU gets, and the portable one
    /// that CPUs without AVX2 get) packs to the keys of libcrux's packed key generation and
    /// decapsulates as the packed key does, implicit rejection included.
    #[test]
    fn unpacked_mlkem_keys_match_the_packed_ones() {
        let mut rng = crate::crypto::rng::Rng::os();
        for round in 0u8..8 {
            let mut seed = [0u8; 64];
            rng.fill(&mut seed).unwrap();
            let packed = mlkem768::generate_key_pair(seed);
            let mut forms = vec![MlKemDecapsulationKey::from_seed(&seed)];
            #[cfg(not(target_arch = "aarch64"))]
            {
                let mut public = Box::<mlkem768::MlKem768PublicKey>::default();
                let key_pair = generate_unpacked!(mlkem768::portable::unpacked, &seed, &mut public);
                forms.push(MlKemDecapsulationKey { public, unpacked: Unpacked::Portable(key_pair) });
            }
            let (ct, shared) = mlkem768::encapsulate(packed.public_key(), [round; 32]);
            let mut bad = ct.as_slice().to_owned();
            bad[usize::from(round) * 100] ^= 1;
            let bad = mlkem768::MlKem768Ciphertext::try_from(bad.as_slice()).unwrap();
            for key in &forms {
                assert_eq!(key.secret().as_slice(), packed.private_key().as_slice());
                assert_eq!(key.public().as_slice(), packed.public_key().as_slice());
                assert_eq!(key.decapsulate(&ct), shared);
                assert_eq!(key.decapsulate(&bad), mlkem768::decapsulate(packed.private_key(), &bad));
                assert_ne!(key.decapsulate(&bad), shared);
            }
        }
    }

    #[test]
    fn debug_never_prints_secrets() {
        let s = Secret32::new(&[0x41; 32]);
        assert_eq!(format!("{s:?}"), "Secret32([redacted])");
        let p = Password::from("hunter2");
        assert!(!format!("{p:?}").contains("hunter2"));
        let k = SessionKey::from_bytes(&[0x42; 16]);
        assert!(!format!("{k:?}").contains("42"));
        let v = SecretVec::new(b"hunter2".to_vec());
        assert_eq!(format!("{v:?}"), "SecretVec(7 octets, redacted)");
    }

    #[test]
    fn secret_vec_zeroize_empties_and_keeps_capacity() {
        // What the wipe wrote cannot be read back without `unsafe` (forbidden here); the
        // octets go through zeroize's slice and `MaybeUninit` impls.
        let mut v = SecretVec::with_capacity(64);
        v.extend_from_slice(&[0xa5; 40]);
        v.truncate(24);
        v.zeroize();
        assert!(v.is_empty());
        assert!(v.capacity() >= 64);
        v.extend_from_slice(&[1; 8]);
        assert_eq!(*v, [1; 8]);
    }

    /// Growing past the capacity moves the octets into a new allocation (the old one is
    /// wiped when its `SecretVec` drops); only slices are handed out, so no caller can
    /// reallocate the `Vec` behind its back.
    #[test]
    fn secret_vec_grows_by_moving() {
        let mut v = SecretVec::with_capacity(4);
        v.extend_from_slice(b"abc");
        v.extend_from_slice(b"defgh");
        assert_eq!(v.as_slice(), b"abcdefgh");
        assert!(v.capacity() >= 8);
        v.push(b'i');
        assert_eq!(&*v, b"abcdefghi");
        let cap = v.capacity();
        v.reserve_exact(cap + 10);
        assert_eq!(v.capacity(), v.len() + cap + 10);
        v.wipe_prefix(3);
        assert_eq!(&*v, b"\0\0\0defghi");
        v.wipe_prefix(100);
        assert_eq!(&*v, [0; 9]);
        let mut w = SecretVec::default();
        std::io::Write::write_all(&mut w, b"xyz").unwrap();
        assert_eq!(w.as_slice(), b"xyz");
    }
}
