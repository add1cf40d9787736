//! Keys and certificates supplied on demand: what a message names ([`Recipient`]), looked up
//! in the caller's keyring when the library reaches it ([`KeyStore`]).

use std::sync::Arc;

use crate::crypto::secret::Password;
use crate::error::{Error, Result};
use crate::key::{Cert, Tsk};
use crate::packet::pkesk;
use crate::types::{Fingerprint, Recipient};

impl From<&pkesk::Recipient> for Recipient {
    fn from(r: &pkesk::Recipient) -> Self {
        match r {
            pkesk::Recipient::V6(fp) => Self::Fingerprint(Fingerprint::from_bytes(*fp)),
            pkesk::Recipient::V4(fp) => Self::V4Fingerprint(*fp),
            pkesk::Recipient::Anonymous => Self::Anonymous,
        }
    }
}

impl Recipient {
    /// Does this recipient name a key of `cert` (its primary key or a subkey)? An anonymous
    /// recipient matches no certificate in particular: any key of the packet's algorithm may be
    /// the one, so it answers `false` here; a store decides whether to offer keys for it.
    #[must_use]
    pub fn matches(&self, cert: &Cert) -> bool {
        match self {
            Self::Fingerprint(fp) => cert.has_key(fp),
            Self::V4Fingerprint(_) | Self::Anonymous => false,
        }
    }
}

/// A [`KeyStore`] shared by a builder and the streams it makes, its errors made this crate's.
#[derive(Clone)]
pub(super) struct SharedStore(Arc<dyn DynStore>);

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyStore")
    }
}

impl SharedStore {
    pub(super) fn new(store: impl KeyStore + 'static) -> Self {
        Self(Arc::new(store))
    }

    /// [`KeyStore::secret_keys`].
    pub(super) fn secret_keys(&self, recipients: &[Recipient]) -> Result<Vec<Arc<Tsk>>> {
        self.0.secret_keys(recipients)
    }

    /// [`KeyStore::certs`].
    pub(super) fn certs(&self, issuers: &[Fingerprint]) -> Result<Vec<Arc<Cert>>> {
        self.0.certs(issuers)
    }

    /// [`KeyStore::password`].
    pub(super) fn password(&self, key: &Fingerprint) -> Result<Option<Password>> {
        self.0.password(key)
    }
}

/// [`KeyStore`] with its error type erased into [`Error::KeyStore`], so that one builder can
/// hold any store.
trait DynStore: Send + Sync {
    fn secret_keys(&self, recipients: &[Recipient]) -> Result<Vec<Arc<Tsk>>>;
    fn certs(&self, issuers: &[Fingerprint]) -> Result<Vec<Arc<Cert>>>;
    fn password(&self, key: &Fingerprint) -> Result<Option<Password>>;
}

/// The store's own error, kept as the source of [`Error::KeyStore`].
fn store_error(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::KeyStore(Box::new(e))
}

impl<T: KeyStore> DynStore for T {
    fn secret_keys(&self, recipients: &[Recipient]) -> Result<Vec<Arc<Tsk>>> {
        KeyStore::secret_keys(self, recipients).map_err(store_error)
    }

    fn certs(&self, issuers: &[Fingerprint]) -> Result<Vec<Arc<Cert>>> {
        KeyStore::certs(self, issuers).map_err(store_error)
    }

    fn password(&self, key: &Fingerprint) -> Result<Option<Password>> {
        KeyStore::password(self, key).map_err(store_error)
    }
}

/// A keyring the library consults as it reads a message, so that a program need not load (or
/// unlock) every key up front, as with Sequoia's decryption and verification helpers.
///
/// [`Decryptor::key_store`](crate::Decryptor::key_store) asks for secret keys once the
/// message's session-key packets are read, and for certificates once the signatures before the
/// literal data are known (inside the encryption); [`Verifier::key_store`](crate::Verifier::key_store)
/// asks for certificates. The returned keys are used for that message only, next to those given
/// to the builder. The methods have empty defaults, so a store may supply only one kind.
///
/// A method that fails makes the operation fail with [`Error::KeyStore`], which keeps the
/// store's error as its [`source`](std::error::Error::source): a database that is down is not
/// a message without a key. A store that cannot fail says so with
/// `type Error = std::convert::Infallible`.
///
/// **Certificates and keys a store returns are trusted as given.** The library checks their
/// self-signatures (a revoked or expired key is not used) but not who they belong to: a
/// certificate returned for an issuer fingerprint is the signer as far as the verdict goes, so a
/// store must return only certificates the caller has decided to trust for that purpose.
///
/// A secret key may be returned locked: the decryptor then asks [`KeyStore::password`] for the
/// password of the key it needs, and unlocks a copy of it for this message only (each time,
/// so a store that serves many messages with one key does better to return it unlocked).
///
/// `KeyStore` is implemented for `&T`, `Box<T>` and `Arc<T>` where `T: KeyStore`, so one store
/// can serve several builders.
///
/// ```
/// use std::convert::Infallible;
/// use std::sync::Arc;
/// use sixpgp::{Cert, Fingerprint, KeyStore, Recipient, Tsk};
///
/// /// Keys held in memory, found by fingerprint.
/// struct Ring(Vec<Arc<Tsk>>);
///
/// impl KeyStore for Ring {
///     type Error = Infallible;
///
///     fn secret_keys(&self, recipients: &[Recipient]) -> Result<Vec<Arc<Tsk>>, Infallible> {
///         let named = |k: &Tsk| recipients.iter().any(|r| r.matches(k.cert()));
///         Ok(self.0.iter().filter(|k| named(k)).cloned().collect())
///     }
/// }
/// ```
pub trait KeyStore: Send + Sync {
    /// The store's own error (a lookup that failed, not one that found nothing).
    type Error: std::error::Error + Send + Sync + 'static;

    /// The secret keys for some of `recipients` (the message's PKESKs, in order), unlocked or
    /// locked (see [`KeyStore::password`]). Anonymous recipients are listed as such: a store may
    /// return every key it is willing to try on them.
    ///
    /// # Errors
    /// The store's error, if it could not look: the decryption fails with [`Error::KeyStore`].
    fn secret_keys(&self, recipients: &[Recipient]) -> Result<Vec<Arc<Tsk>>, Self::Error> {
        let _ = recipients;
        Ok(Vec::new())
    }

    /// The certificates that hold some of `issuers` (the signing keys a message's signatures
    /// name, primary or subkey fingerprints), trusted as given.
    ///
    /// # Errors
    /// The store's error, if it could not look: the operation fails with [`Error::KeyStore`].
    fn certs(&self, issuers: &[Fingerprint]) -> Result<Vec<Arc<Cert>>, Self::Error> {
        let _ = issuers;
        Ok(Vec::new())
    }

    /// The password for the locked secret key `key` (a primary key or subkey fingerprint) that
    /// a message's session key is encrypted to, or `None` to leave it locked. Asked only for a
    /// locked key that the message names (or, for an anonymous recipient, that may be the one).
    ///
    /// # Errors
    /// The store's error: the decryption fails with [`Error::KeyStore`].
    fn password(&self, key: &Fingerprint) -> Result<Option<Password>, Self::Error> {
        let _ = key;
        Ok(None)
    }
}

macro_rules! forward_key_store {
    ($($wrapper:ty),*) => {$(
        impl<T: KeyStore + ?Sized> KeyStore for $wrapper {
            type Error = T::Error;

            fn secret_keys(&self, recipients: &[Recipient]) -> Result<Vec<Arc<Tsk>>, Self::Error> {
                (**self).secret_keys(recipients)
            }

            fn certs(&self, issuers: &[Fingerprint]) -> Result<Vec<Arc<Cert>>, Self::Error> {
                (**self).certs(issuers)
            }

            fn password(&self, key: &Fingerprint) -> Result<Option<Password>, Self::Error> {
                (**self).password(key)
            }
        }
    )*};
}

forward_key_store!(&T, Box<T>, Arc<T>);
