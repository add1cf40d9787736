//! Cryptographic building blocks: the constructions OpenPGP builds from
//! RustCrypto and dalek primitives (and, where the CPU allows, `graviola`'s: see [`accel`]).
//! This module does no I/O and knows no packet framing.

mod accel;
pub(crate) mod aead;
pub(crate) mod aead_backend;
mod aes_kw;
pub(crate) mod cfb;
pub(crate) mod ed25519;
pub(crate) mod hash;
pub(crate) mod hkdf;
pub(crate) mod mldsa_ed25519;
pub(crate) mod mlkem_x25519;
mod ocb;
pub(crate) mod rng;
pub(crate) mod s2k;
pub(crate) mod secret;
pub(crate) mod x25519;

/// Which implementation runs a primitive (see [`Backend`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Implementation {
    /// `graviola`'s assembly: x86_64 and aarch64 builds (not with `--cfg sixpgp_portable`) on a
    /// CPU with the features it needs.
    Graviola,
    /// The portable RustCrypto or dalek code.
    Portable,
}

/// Which implementations of the primitives this process uses ([`backend`]).
///
/// The three primitives named here run on `graviola` where the build and the CPU allow it, on
/// the portable code otherwise; both give identical results. Everything else always runs on
/// RustCrypto crates (AES with this crate's OCB, EAX, AES-192-GCM, ML-KEM, ML-DSA, SHA-2,
/// SHA-3, Argon2) and dalek's (Ed25519 signing). `Display` gives it in one line, for
/// `--version` output and bug reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Backend {
    /// AES-128-GCM and AES-256-GCM (`aes-gcm` when portable).
    pub aes_gcm: Implementation,
    /// X25519 key agreement (`x25519-dalek` when portable).
    pub x25519: Implementation,
    /// Ed25519 signature verification (`ed25519-dalek` when portable).
    pub ed25519_verify: Implementation,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let gcm = if self.aes_gcm == Implementation::Graviola { "aes-gcm for AES-192" } else { "aes-gcm" };
        write!(
            f,
            "RustCrypto (aes with sixpgp's OCB, {gcm}, ml-kem, ml-dsa, sha2, sha3, argon2, eax) and dalek \
             (ed25519-dalek, x25519-dalek); "
        )?;
        let fast: Vec<&str> = [
            (self.aes_gcm, "AES-GCM"),
            (self.x25519, "X25519"),
            (self.ed25519_verify, "Ed25519 verification"),
        ]
        .into_iter()
        .filter(|(which, _)| *which == Implementation::Graviola)
        .map(|(_, name)| name)
        .collect();
        match fast.split_last() {
            None => f.write_str("graviola not in use"),
            Some((last, [])) => write!(f, "graviola for {last}"),
            Some((last, rest)) => write!(f, "graviola for {} and {last}", rest.join(", ")),
        }
    }
}

/// Which implementations of the primitives this process uses.
///
/// AES-GCM, X25519 and Ed25519 verification run on `graviola` when the build includes it (x86_64
/// and aarch64, not with `--cfg sixpgp_portable`) and the CPU has the features it needs; the
/// answer is decided once per process. Everything else, and these elsewhere, runs on RustCrypto
/// and dalek crates. Its `Display` is one line, e.g. for `--version` output.
#[must_use]
pub fn backend() -> Backend {
    let path = if accel::available() { Implementation::Graviola } else { Implementation::Portable };
    Backend { aes_gcm: path, x25519: path, ed25519_verify: path }
}

/// `a xor b` on 16-octet blocks, octet-wise (one vector XOR once compiled; inlined into the
/// AES backend's bulk loops of OCB).
#[inline(always)]
fn xor_block(a: &[u8; 16], b: &[u8; 16]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = x ^ y;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Backend, Implementation};

    /// `backend` tells the path that runs (`.ci/run` runs the library's tests on both), and
    /// its one line names it as before.
    #[test]
    fn backend_names_the_path_taken() {
        let backend = super::backend();
        let path =
            if super::accel::available() { Implementation::Graviola } else { Implementation::Portable };
        assert_eq!((backend.aes_gcm, backend.x25519, backend.ed25519_verify), (path, path, path));
        assert_eq!(backend.to_string().contains("graviola for"), super::accel::available(), "{backend}");
        let all = |path| Backend { aes_gcm: path, x25519: path, ed25519_verify: path };
        assert_eq!(
            all(Implementation::Graviola).to_string(),
            "RustCrypto (aes with sixpgp's OCB, aes-gcm for AES-192, ml-kem, ml-dsa, sha2, sha3, argon2, eax) \
             and dalek (ed25519-dalek, x25519-dalek); graviola for AES-GCM, X25519 and Ed25519 verification"
        );
        assert_eq!(
            all(Implementation::Portable).to_string(),
            "RustCrypto (aes with sixpgp's OCB, aes-gcm, ml-kem, ml-dsa, sha2, sha3, argon2, eax) and dalek \
             (ed25519-dalek, x25519-dalek); graviola not in use"
        );
        let x25519_only = Backend { x25519: Implementation::Graviola, ..all(Implementation::Portable) };
        assert!(x25519_only.to_string().ends_with("; graviola for X25519"), "{x25519_only}");
    }
}
