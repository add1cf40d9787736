//! Certificates ([`Cert`]), transferable secret keys ([`Tsk`]), key generation ([`KeyBuilder`])
//! and the evaluation of self-signatures at a given time.
//!
//! Only version 6 keys (RFC 9580 §5.5.2.3) are understood. A certificate may carry subkeys of
//! algorithms this crate does not implement; it stays usable through the keys it knows.

mod cert;
mod certify;
mod expire;
mod fingerprint;
mod generate;
mod inspect;
mod merge;
mod parse;
mod profile;
mod revoke;
mod select;
mod sig;
mod tsk;
mod update;

pub use cert::Cert;
pub use generate::KeyBuilder;
pub use inspect::{KeyFlags, KeyInfo, Revocation};
pub use profile::Profile;
pub use revoke::ReasonForRevocation;
pub use tsk::Tsk;
pub use update::KeyUpdate;

/// For the message layer's tests, which make signatures over keys by hand.
#[cfg(test)]
pub(crate) use sig::{Signed, make_over};

/// Key flags (RFC 9580 §5.2.3.29), first octet.
pub(crate) mod flags {
    /// This key may be used to make certifications.
    pub(crate) const CERTIFY: u8 = 0x01;
    /// This key may be used to sign data.
    pub(crate) const SIGN: u8 = 0x02;
    /// This key may be used to encrypt communications.
    pub(crate) const ENCRYPT_COMMUNICATIONS: u8 = 0x04;
    /// This key may be used to encrypt storage.
    pub(crate) const ENCRYPT_STORAGE: u8 = 0x08;
}

/// Converts a `SystemTime` to OpenPGP's 32-bit seconds, clamping to the representable range.
pub(crate) fn to_timestamp(t: std::time::SystemTime) -> u32 {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => u32::try_from(d.as_secs()).unwrap_or(u32::MAX),
        Err(_) => 0,
    }
}

/// Converts OpenPGP's 32-bit seconds to a `SystemTime`.
pub(crate) fn from_timestamp(t: u32) -> std::time::SystemTime {
    std::time::UNIX_EPOCH
        .checked_add(std::time::Duration::from_secs(u64::from(t)))
        .unwrap_or(std::time::UNIX_EPOCH)
}
