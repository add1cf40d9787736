//! Cryptographic building blocks: the constructions OpenPGP builds from
//! RustCrypto and dalek primitives (and, where the CPU allows, `graviola`'s: see [`accel`]).
//! This module does no I/O and knows no packet framing.

pub(crate) mod accel;
pub(crate) mod aead;
pub(crate) mod aes_kw;
pub(crate) mod chunk_aead;
pub(crate) mod ed25519;
pub(crate) mod hash;
pub(crate) mod hkdf;
pub(crate) mod mldsa_ed25519;
pub(crate) mod mlkem_x25519;
pub(crate) mod ocb;
pub(crate) mod rng;
pub(crate) mod s2k;
pub(crate) mod secret;
pub(crate) mod x25519;

/// Which implementations of the primitives this process uses, in one line (for `--version`
/// output and bug reports).
///
/// AES-GCM, X25519 and Ed25519 verification run on `graviola` when the build includes it (x86_64
/// and aarch64, not with `--cfg sixpgp_portable`) and the CPU has the features it needs; the
/// answer is decided once per process. Everything else, and these elsewhere, runs on RustCrypto
/// and dalek crates.
#[must_use]
pub fn backend() -> &'static str {
    if accel::available() {
        "RustCrypto (aes with sixpgp's OCB, aes-gcm for AES-192, ml-kem, ml-dsa, sha2, sha3, argon2, \
         eax) and dalek (ed25519-dalek, x25519-dalek); graviola for AES-GCM, X25519 and Ed25519 \
         verification"
    } else {
        "RustCrypto (aes with sixpgp's OCB, aes-gcm, ml-kem, ml-dsa, sha2, sha3, argon2, eax) and \
         dalek (ed25519-dalek, x25519-dalek); graviola not in use"
    }
}

/// `a xor b` on 16-octet blocks, octet-wise (one vector XOR once compiled; inlined into the
/// AES backend's bulk loops of OCB).
#[inline(always)]
pub(crate) fn xor_block(a: &[u8; 16], b: &[u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x ^ y;
    }
    out
}

#[cfg(test)]
mod tests {
    /// `backend` tells the path that runs (`.ci/run` runs the library's tests on both).
    #[test]
    fn backend_names_the_path_taken() {
        assert_eq!(
            super::backend().contains("graviola for"),
            super::accel::available(),
            "{}",
            super::backend()
        );
    }
}
