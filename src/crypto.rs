//! Cryptographic building blocks: algorithm identifiers and the constructions OpenPGP builds from
//! RustCrypto and dalek primitives (and, where the CPU allows, `graviola`'s: see [`accel`]).
//! This module does no I/O and knows no packet framing.

mod accel;
pub(crate) mod aead;
mod aes_kw;
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

macro_rules! id_enum {
    (
        $(#[$meta:meta])*
        $name:ident ($kind:literal) { $($(#[$vmeta:meta])* $variant:ident = $value:literal, $text:literal,)* }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
            /// An identifier this crate does not implement, kept so it can be written back.
            Unknown(u8),
        }

        impl From<u8> for $name {
            fn from(v: u8) -> Self {
                match v {
                    $($value => Self::$variant,)*
                    other => Self::Unknown(other),
                }
            }
        }

        impl From<$name> for u8 {
            fn from(v: $name) -> u8 {
                match v {
                    $($name::$variant => $value,)*
                    $name::Unknown(other) => other,
                }
            }
        }

        /// The algorithm's name as the RFCs write it; an unknown one by its identifier.
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self {
                    $(Self::$variant => f.write_str($text),)*
                    Self::Unknown(id) => write!(f, concat!("unknown ", $kind, " {}"), id),
                }
            }
        }
    };
}

id_enum! {
    /// Public-key algorithm IDs (RFC 9580 §9.1, RFC 9980).
    PublicKeyAlgorithm ("public-key algorithm") {
        /// X25519 (25), RFC 9580 §5.5.5.7.
        X25519 = 25, "X25519",
        /// Ed25519 (27), RFC 9580 §5.5.5.9.
        Ed25519 = 27, "Ed25519",
        /// ML-DSA-65+Ed25519 (30), RFC 9980.
        MlDsa65Ed25519 = 30, "ML-DSA-65+Ed25519",
        /// ML-KEM-768+X25519 (35), RFC 9980.
        MlKem768X25519 = 35, "ML-KEM-768+X25519",
    }
}

/// The registry name of a public-key algorithm ID (RFC 9580 §9.1, RFC 9980), implemented
/// or not, so that an error can say which algorithm a key uses.
pub(crate) fn public_key_algorithm_name(id: u8) -> Option<&'static str> {
    Some(match id {
        1..=3 => "RSA",
        16 | 20 => "Elgamal",
        17 => "DSA",
        18 => "ECDH",
        19 => "ECDSA",
        22 => "EdDSALegacy",
        25 => "X25519",
        26 => "X448",
        27 => "Ed25519",
        28 => "Ed448",
        30 => "ML-DSA-65+Ed25519",
        31 => "ML-DSA-87+Ed448",
        32 => "SLH-DSA-SHAKE-128s",
        33 => "SLH-DSA-SHAKE-128f",
        34 => "SLH-DSA-SHAKE-256s",
        35 => "ML-KEM-768+X25519",
        36 => "ML-KEM-1024+X448",
        _ => return None,
    })
}

id_enum! {
    /// Symmetric-key algorithm IDs (RFC 9580 §9.3).
    SymmetricAlgorithm ("symmetric algorithm") {
        /// AES with a 128-bit key (7).
        Aes128 = 7, "AES-128",
        /// AES with a 192-bit key (8).
        Aes192 = 8, "AES-192",
        /// AES with a 256-bit key (9).
        Aes256 = 9, "AES-256",
    }
}

id_enum! {
    /// AEAD algorithm IDs (RFC 9580 §9.6).
    AeadAlgorithm ("AEAD algorithm") {
        /// EAX (1).
        Eax = 1, "EAX",
        /// OCB (2), the mandatory-to-implement mode.
        Ocb = 2, "OCB",
        /// GCM (3).
        Gcm = 3, "GCM",
    }
}

id_enum! {
    /// Hash algorithm IDs (RFC 9580 §9.5).
    HashAlgorithm ("hash algorithm") {
        /// SHA2-256 (8).
        Sha256 = 8, "SHA2-256",
        /// SHA2-384 (9).
        Sha384 = 9, "SHA2-384",
        /// SHA2-512 (10).
        Sha512 = 10, "SHA2-512",
        /// SHA2-224 (11).
        Sha224 = 11, "SHA2-224",
        /// SHA3-256 (12).
        Sha3_256 = 12, "SHA3-256",
        /// SHA3-512 (14).
        Sha3_512 = 14, "SHA3-512",
    }
}

impl SymmetricAlgorithm {
    /// Key size in octets, for the ciphers this crate implements.
    #[must_use]
    pub fn key_len(self) -> Option<usize> {
        match self {
            Self::Aes128 => Some(16),
            Self::Aes192 => Some(24),
            Self::Aes256 => Some(32),
            Self::Unknown(_) => None,
        }
    }
}

impl AeadAlgorithm {
    /// Nonce size in octets (RFC 9580 §9.6, Table 25).
    #[must_use]
    pub fn nonce_len(self) -> Option<usize> {
        match self {
            Self::Eax => Some(16),
            Self::Ocb => Some(15),
            Self::Gcm => Some(12),
            Self::Unknown(_) => None,
        }
    }

    /// Authentication tag size in octets; 16 for every defined mode.
    #[must_use]
    pub fn tag_len(self) -> Option<usize> {
        match self {
            Self::Eax | Self::Ocb | Self::Gcm => Some(16),
            Self::Unknown(_) => None,
        }
    }
}

impl HashAlgorithm {
    /// Digest size in octets.
    #[must_use]
    pub fn digest_len(self) -> Option<usize> {
        match self {
            Self::Sha224 => Some(28),
            Self::Sha256 | Self::Sha3_256 => Some(32),
            Self::Sha384 => Some(48),
            Self::Sha512 | Self::Sha3_512 => Some(64),
            Self::Unknown(_) => None,
        }
    }

    /// Salt size of a v6 signature using this hash (RFC 9580 §9.5, Table 23).
    #[must_use]
    pub fn v6_salt_len(self) -> Option<usize> {
        match self {
            Self::Sha224 | Self::Sha256 | Self::Sha3_256 => Some(16),
            Self::Sha384 => Some(24),
            Self::Sha512 | Self::Sha3_512 => Some(32),
            Self::Unknown(_) => None,
        }
    }
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
