//! Keys and certificates supplied on demand: what a message names, looked up in the caller's
//! keyring when the library reaches it ([`KeyStore`]), and the names themselves
//! ([`Recipient`]).

use std::sync::Arc;

use crate::key::{Cert, Fingerprint, Tsk};
use crate::packet::pkesk;

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

impl From<&pkesk::Recipient> for Recipient {
    fn from(r: &pkesk::Recipient) -> Self {
        match r {
            pkesk::Recipient::V6(fp) => Self::Fingerprint(Fingerprint::from_bytes(*fp)),
            pkesk::Recipient::V4(fp) => Self::V4Fingerprint(*fp),
            pkesk::Recipient::Anonymous => Self::Anonymous,
        }
    }
}

/// A [`KeyStore`] shared by a builder and the streams it makes.
#[derive(Clone)]
pub(crate) struct SharedStore(pub(crate) Arc<dyn KeyStore>);

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyStore")
    }
}

/// A keyring the library consults as it reads a message, so that a program need not load (or
/// unlock) every key up front, as with Sequoia's decryption and verification helpers.
///
/// [`Decryptor::key_store`](crate::Decryptor::key_store) asks for secret keys once the
/// message's session-key packets are read, and for certificates once the signatures before the
/// literal data are known (inside the encryption); [`Verifier::key_store`](crate::Verifier::key_store)
/// asks for certificates. The returned keys are used for that message only, next to those given
/// to the builder. Both methods have empty defaults, so a store may supply only one kind.
///
/// ```
/// use std::sync::Arc;
/// use sixpgp::{Cert, Fingerprint, KeyStore, Recipient, Tsk};
///
/// /// Keys held in memory, found by fingerprint.
/// struct Ring(Vec<Arc<Tsk>>);
///
/// impl KeyStore for Ring {
///     fn secret_keys(&self, recipients: &[Recipient]) -> Vec<Arc<Tsk>> {
///         let named = |k: &Tsk| {
///             k.cert().keys().any(|key| recipients.contains(&Recipient::Fingerprint(key.fingerprint())))
///         };
///         self.0.iter().filter(|k| named(k)).cloned().collect()
///     }
/// }
/// ```
pub trait KeyStore: Send + Sync {
    /// The secret keys for some of `recipients` (the message's PKESKs, in order), unlocked.
    /// Anonymous recipients are listed as such: a store may return every key it is willing to
    /// try on them.
    fn secret_keys(&self, recipients: &[Recipient]) -> Vec<Arc<Tsk>> {
        let _ = recipients;
        Vec::new()
    }

    /// The certificates that hold some of `issuers` (the signing keys a message's signatures
    /// name, primary or subkey fingerprints).
    fn certs(&self, issuers: &[Fingerprint]) -> Vec<Arc<Cert>> {
        let _ = issuers;
        Vec::new()
    }
}
