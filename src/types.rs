//! The vocabulary every layer names: algorithm identifiers, fingerprints and key IDs, and
//! the recipients a message names. Plain values with no behaviour beyond their wire numbers,
//! names and sizes. This module uses nothing else in the crate.

use std::fmt;

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

/// A version 6 key fingerprint: SHA2-256 over `0x9B ‖ length (4 octets) ‖ key packet body`.
///
/// Displayed as 64 upper-case hex digits, as SOP prints it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint([u8; 32]);

/// A version 6 key ID: the first eight octets of the fingerprint.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId([u8; 8]);

impl Fingerprint {
    /// Wraps 32 fingerprint octets.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// The fingerprint octets.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key ID derived from this fingerprint.
    #[must_use]
    pub fn key_id(&self) -> KeyId {
        let mut id = [0u8; 8];
        id.copy_from_slice(self.0.first_chunk::<8>().map_or(&[0u8; 8][..], |c| &c[..]));
        KeyId(id)
    }
}

impl KeyId {
    /// The key ID octets.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 8] {
        &self.0
    }
}

fn write_hex(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    for b in bytes {
        write!(f, "{b:02X}")?;
    }
    Ok(())
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Fingerprint(")?;
        write_hex(f, &self.0)?;
        f.write_str(")")
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(f, &self.0)
    }
}

impl fmt::Debug for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyId(")?;
        write_hex(f, &self.0)?;
        f.write_str(")")
    }
}

/// Whom a message's session key is encrypted to, as its PKESK packet says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Recipient {
    /// A version 6 key, by fingerprint.
    Fingerprint(Fingerprint),
    /// A version 4 key, by its 20-octet fingerprint (this crate has no v4 keys; listed so
    /// that the count of recipients is right).
    V4Fingerprint([u8; 20]),
    /// An anonymous recipient ("hidden recipient"): any key of the packet's algorithm may be
    /// the one.
    Anonymous,
}
