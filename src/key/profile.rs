//! Key generation and encryption profiles, named as SOP tools name them.

use crate::types::{AeadAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};

/// Which algorithms a new key uses.
///
/// The names follow msop's, so that scripts written for it carry over; [`Profile::Rfc9580`] is
/// the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Profile {
    /// Ed25519 primary key, X25519 encryption subkey (RFC 9580). Name `default`; aliases
    /// `rfc9580`, `performance`, `compatibility`.
    #[default]
    Rfc9580,
    /// ML-DSA-65+Ed25519 primary key, ML-KEM-768+X25519 encryption subkey (RFC 9980). Name
    /// `security`; alias `rfc9980`.
    Pqc,
    /// Ed25519 primary key, ML-KEM-768+X25519 encryption subkey: post-quantum confidentiality
    /// with classic signatures. Name `pqc-encryption`.
    PqcEncryption,
}

impl Profile {
    /// Every profile, the default first.
    pub const ALL: [Profile; 3] = [Profile::Rfc9580, Profile::Pqc, Profile::PqcEncryption];

    /// The name SOP's `list-profiles` prints.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Rfc9580 => "default",
            Self::Pqc => "security",
            Self::PqcEncryption => "pqc-encryption",
        }
    }

    /// Other names accepted for this profile.
    #[must_use]
    pub const fn aliases(self) -> &'static [&'static str] {
        match self {
            Self::Rfc9580 => &["rfc9580", "performance", "compatibility"],
            Self::Pqc => &["rfc9980"],
            Self::PqcEncryption => &[],
        }
    }

    /// A one-line description.
    #[must_use]
    pub const fn description(self) -> &'static str {
        match self {
            Self::Rfc9580 => "Ed25519 signing and X25519 encryption (RFC 9580)",
            Self::Pqc => "ML-DSA-65+Ed25519 signing and ML-KEM-768+X25519 encryption (RFC 9980)",
            Self::PqcEncryption => "Ed25519 signing and ML-KEM-768+X25519 encryption",
        }
    }

    /// Looks a profile up by name or alias.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name || p.aliases().contains(&name))
    }

    pub(super) const fn primary_algorithm(self) -> PublicKeyAlgorithm {
        match self {
            Self::Rfc9580 | Self::PqcEncryption => PublicKeyAlgorithm::Ed25519,
            Self::Pqc => PublicKeyAlgorithm::MlDsa65Ed25519,
        }
    }

    pub(super) const fn encryption_algorithm(self) -> PublicKeyAlgorithm {
        match self {
            Self::Rfc9580 => PublicKeyAlgorithm::X25519,
            Self::Pqc | Self::PqcEncryption => PublicKeyAlgorithm::MlKem768X25519,
        }
    }

    /// Preferred AEAD ciphersuites to advertise: OCB and GCM, each with AES-256 and AES-128,
    /// AES-256 first where the encryption subkey is post-quantum.
    pub(super) fn aead_preferences(self, pqc_subkey: bool) -> Vec<(SymmetricAlgorithm, AeadAlgorithm)> {
        use AeadAlgorithm::{Gcm, Ocb};
        use SymmetricAlgorithm::{Aes128, Aes256};
        if pqc_subkey {
            vec![(Aes256, Ocb), (Aes256, Gcm), (Aes128, Ocb), (Aes128, Gcm)]
        } else {
            vec![(Aes128, Ocb), (Aes128, Gcm), (Aes256, Ocb), (Aes256, Gcm)]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_resolve() {
        for p in Profile::ALL {
            assert_eq!(Profile::from_name(p.name()), Some(p));
            for a in p.aliases() {
                assert_eq!(Profile::from_name(a), Some(p));
            }
        }
        assert_eq!(Profile::from_name("nope"), None);
        assert_eq!(Profile::ALL[0], Profile::default());
    }
}
