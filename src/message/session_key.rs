//! The session-key search: the keys, passwords and session keys a [`Decryptor`](super::Decryptor)
//! was given, tried on a message's session-key packets in a fixed order (given session keys,
//! then the PKESKs, then the SKESKs with each password).

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::crypto::secret::{Password, SessionKey};
use crate::crypto::{mlkem_x25519, s2k, x25519};
use crate::error::{Error, Limit, Result, Unsupported};
use crate::key::Tsk;
use crate::limits::Limits;
use crate::message::esk::EskSequence;
use crate::message::lookup::SharedStore;
use crate::message::skesk::{decrypt_session_key, skesk_s2k};
use crate::packet::key::{PublicKeyMaterial, PublicKeyPacket, SecretKeyMaterial};
use crate::packet::pkesk::{Pkesk, PkeskFields, Recipient};
use crate::packet::seipd::SeipdHeader;
use crate::types::{Fingerprint, PublicKeyAlgorithm, SymmetricAlgorithm};

/// What opened a message.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecryptedWith {
    /// A secret key: the certificate's primary fingerprint and the (sub)key's.
    Key {
        /// The certificate (primary key) fingerprint.
        cert: Fingerprint,
        /// The fingerprint of the key whose PKESK was decrypted.
        key: Fingerprint,
    },
    /// The password at this index, in the order given to
    /// [`Decryptor::password`](crate::Decryptor::password).
    Password(usize),
    /// The session key at this index, in the order given to
    /// [`Decryptor::session_key`](crate::Decryptor::session_key).
    SessionKey(usize),
}

/// What a decryptor opens messages with: its keys, passwords and session keys, and the key
/// store that may add keys (and passwords for locked ones) per message.
pub(super) struct KeySources {
    pub(super) keys: Vec<Arc<Tsk>>,
    pub(super) passwords: Vec<Password>,
    pub(super) session_keys: Vec<(SessionKey, Option<SymmetricAlgorithm>)>,
    /// Where to look up keys and certificates the message names.
    pub(super) store: Option<SharedStore>,
}

impl KeySources {
    pub(super) fn new(keys: Vec<Arc<Tsk>>) -> Self {
        Self { keys, passwords: Vec::new(), session_keys: Vec::new(), store: None }
    }

    /// The session key of a message whose session-key packets are `esk` and whose SEIPD
    /// packet has `header` (with a cipher of `key_len` octets), and what opened it.
    ///
    /// # Errors
    /// See [`Decryptor::reader`](super::Decryptor::reader): `BadPassword`, `KeyLocked`,
    /// `NoDecryptionKey`, `Unsupported(PublicKeyAlgorithm)`, `LimitExceeded`, the store's.
    pub(super) fn find(
        &self,
        esk: &EskSequence,
        header: &SeipdHeader,
        key_len: usize,
        limits: &Limits,
        cancelled: Option<&AtomicBool>,
    ) -> Result<(SessionKey, DecryptedWith)> {
        // The keys the store has for the named recipients.
        let looked_up = match &self.store {
            Some(store) if !esk.pkesks.is_empty() => store.secret_keys(&esk.recipients)?,
            _ => Vec::new(),
        };
        match self.session_key_for(header, key_len, esk, &looked_up, limits, cancelled)? {
            Some(found) => Ok(found),
            None => Err(unsupported_key(&esk.unsupported, self.keys.iter().chain(&looked_up)).map_or_else(
                || Error::no_decryption_key(esk.recipients.clone()),
                |a| Error::Unsupported(Unsupported::PublicKeyAlgorithm(a)),
            )),
        }
    }

    /// Finds the session key (see the type's documentation for the order); `None` if nothing
    /// given opens the message and no more precise error applies.
    fn session_key_for(
        &self,
        header: &SeipdHeader,
        key_len: usize,
        esk: &EskSequence,
        looked_up: &[Arc<Tsk>],
        limits: &Limits,
        cancelled: Option<&AtomicBool>,
    ) -> Result<Option<(SessionKey, DecryptedWith)>> {
        // Given session keys: the first that fits the cipher.
        for (i, (key, alg)) in self.session_keys.iter().enumerate() {
            if key.as_bytes().len() == key_len && alg.is_none_or(|a| a == header.sym) {
                return Ok(Some((SessionKey::from_bytes(key.as_bytes()), DecryptedWith::SessionKey(i))));
            }
        }
        // The first locked key that would have been tried, and whether a password the store
        // gave for one failed.
        let mut locked = None;
        // The first key that would have been tried but whose secret is under a protection
        // this crate cannot open: said rather than "no key for this message".
        let mut unsupported = None;
        let mut bad_key_password = false;
        // Locked keys the store gave a password for, unlocked once per message each (an
        // unlock may run Argon2: many PKESKs naming one key must not repeat it).
        let mut unlocked: Vec<(Fingerprint, Option<Box<Tsk>>)> = Vec::new();
        // PKESKs: named recipients, then anonymous ones with every key of the algorithm.
        for pkesk in &esk.pkesks {
            for tsk in self.keys.iter().chain(looked_up) {
                for (fingerprint, public) in keys_of(tsk) {
                    let matches = match &pkesk.recipient {
                        Recipient::V6(fp) => fp == fingerprint.as_bytes(),
                        Recipient::Anonymous => public.algorithm == pkesk.algorithm,
                        Recipient::V4(_) => false,
                    };
                    if !matches {
                        continue;
                    }
                    let secret = match tsk.secret_for(&fingerprint) {
                        Ok(s) => s,
                        Err(e @ Error::KeyLocked { .. }) => {
                            if !unlocked.iter().any(|(f, _)| *f == fingerprint) {
                                let copy =
                                    self.unlock_from_store(tsk, &fingerprint, limits, &mut bad_key_password)?;
                                unlocked.push((fingerprint, copy));
                            }
                            let copy = unlocked
                                .iter()
                                .find(|(f, _)| *f == fingerprint)
                                .and_then(|(_, k)| k.as_deref());
                            match copy.map(|k| k.secret_for(&fingerprint)) {
                                Some(Ok(s)) => s,
                                _ => {
                                    locked = locked.or(Some(e));
                                    continue;
                                }
                            }
                        }
                        Err(e @ Error::Unsupported(Unsupported::SecretKeyProtection(_))) => {
                            unsupported = unsupported.or(Some(e));
                            continue;
                        }
                        Err(_) => continue,
                    };
                    if let Some(key) = try_pkesk(pkesk, public, secret)
                        && key.as_bytes().len() == key_len
                    {
                        let with = DecryptedWith::Key { cert: tsk.fingerprint(), key: fingerprint };
                        return Ok(Some((key, with)));
                    }
                }
            }
        }
        // SKESKs: each password on each SKESK, at most `max_s2k_derivations` S2K runs in
        // all (each may cost seconds and gigabytes: a message must not multiply that).
        let mut limit_error = None;
        let mut derivations = 0usize;
        for (i, password) in self.passwords.iter().enumerate() {
            for skesk in &esk.skesks {
                // Only usable SKESKs were kept (`EskSequence::read`), so each pass runs a derivation
                // and counts: unusable ones, which cost nothing, cannot use up the budget.
                let Ok((spec, key_len)) = skesk_s2k(skesk) else { continue };
                // Every parameter is checked before the budget is spent or anything derived.
                match s2k::check(&spec, key_len, limits) {
                    Ok(()) => {}
                    Err(e @ Error::LimitExceeded(_)) => {
                        limit_error = Some(e);
                        continue;
                    }
                    Err(_) => continue,
                }
                if derivations >= limits.max_s2k_derivations() {
                    return Err(Error::LimitExceeded(Limit::S2kDerivations));
                }
                if cancelled.is_some_and(|c| c.load(Ordering::Relaxed)) {
                    return Err(Error::Io(io::Error::new(
                        io::ErrorKind::BrokenPipe,
                        "the stream was dropped",
                    )));
                }
                derivations = derivations.saturating_add(1);
                let derived = s2k::derive(&spec, password.as_bytes(), key_len, limits);
                match derived.and_then(|s2k_key| decrypt_session_key(skesk, &s2k_key)) {
                    Ok(key) if key.as_bytes().len() == key_len => {
                        return Ok(Some((key, DecryptedWith::Password(i))));
                    }
                    Err(e @ Error::LimitExceeded(_)) => limit_error = Some(e),
                    Ok(_) | Err(_) => {}
                }
            }
        }
        Err(if bad_key_password {
            // The store's password did not open its key: a wrong password, not a locked key.
            Error::BadPassword
        } else if let Some(e) = locked {
            e
        } else if let Some(e) = unsupported {
            e
        } else if let Some(e) = limit_error {
            e
        } else if derivations > 0 {
            // Passwords were tried on the message's SKESKs: say so, rather than "not for you".
            Error::BadPassword
        } else {
            return Ok(None);
        })
    }

    /// A copy of the locked key `tsk`, unlocked with the password the key store gives for its
    /// key `fingerprint`; `None` if the store has no password for it, or (setting
    /// `bad_password`) the password opens nothing.
    ///
    /// # Errors
    /// The store's error; `LimitExceeded` if the key's S2K parameters exceed the limits.
    fn unlock_from_store(
        &self,
        tsk: &Tsk,
        fingerprint: &Fingerprint,
        limits: &Limits,
        bad_password: &mut bool,
    ) -> Result<Option<Box<Tsk>>> {
        let Some(store) = &self.store else { return Ok(None) };
        let Some(password) = store.password(fingerprint)? else { return Ok(None) };
        let mut copy = Box::new(tsk.clone());
        match copy.unlock_with_limits(&password, limits) {
            Ok(_) => Ok(Some(copy)),
            Err(Error::BadPassword) => {
                *bad_password = true;
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

/// Every key of `tsk` with its fingerprint: the primary key, then the subkeys.
fn keys_of(tsk: &Tsk) -> impl Iterator<Item = (Fingerprint, &PublicKeyPacket)> + '_ {
    tsk.cert().key_packets()
}

/// The algorithm of a given key that a PKESK of an algorithm this crate does not implement is
/// addressed to (by fingerprint, or anonymously to a key of its algorithm), if any: why a
/// message that no key opened cannot be decrypted, rather than "not for these keys".
fn unsupported_key<'k>(
    unsupported: &[(Recipient, PublicKeyAlgorithm)],
    keys: impl Iterator<Item = &'k Arc<Tsk>>,
) -> Option<u8> {
    keys.flat_map(|tsk| keys_of(tsk)).find_map(|(fingerprint, public)| {
        let PublicKeyAlgorithm::Unknown(id) = public.algorithm else { return None };
        let addressed = unsupported.iter().any(|(recipient, algorithm)| match recipient {
            Recipient::V6(fp) => fp == fingerprint.as_bytes(),
            Recipient::Anonymous => *algorithm == public.algorithm,
            Recipient::V4(_) => false,
        });
        addressed.then_some(id)
    })
}

/// Decrypts a PKESK with one key; `None` if the algorithms do not match or unwrapping fails.
fn try_pkesk(pkesk: &Pkesk, public: &PublicKeyPacket, secret: &SecretKeyMaterial) -> Option<SessionKey> {
    match (&pkesk.fields, &public.material, secret) {
        (
            PkeskFields::X25519 { ephemeral, wrapped_key },
            PublicKeyMaterial::X25519(public),
            SecretKeyMaterial::X25519(secret),
        ) => x25519::pkesk_decrypt(secret, public, ephemeral, wrapped_key).ok(),
        (
            PkeskFields::MlKem768X25519 { ecdh_ciphertext, mlkem_ciphertext, wrapped_key },
            PublicKeyMaterial::MlKem768X25519 { x25519, .. },
            SecretKeyMaterial::MlKem768X25519 { x25519: x_secret, mlkem_seed },
        ) => mlkem_x25519::pkesk_decrypt(
            x_secret,
            x25519,
            mlkem_seed,
            ecdh_ciphertext,
            mlkem_ciphertext,
            wrapped_key,
        )
        .ok(),
        _ => None,
    }
}
