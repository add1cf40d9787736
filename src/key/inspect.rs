//! Looking at a certificate: its keys, their properties at a given time, its user IDs.
//!
//! Everything here evaluates self-signatures with the same rules as encryption and
//! verification (see `select`), so what it reports is what those operations will do.

use std::borrow::Cow;
use std::fmt;
use std::time::SystemTime;

use crate::error::KeyProblem;
use crate::key::cert::Cert;
use crate::key::revoke::ReasonForRevocation;
use crate::key::select::{is_hard_revocation, revocation};
use crate::key::sig::Signed;
use crate::key::{flags, from_timestamp, to_timestamp};
use crate::packet::key::PublicKeyPacket;
use crate::packet::signature::{SignaturePacket, SignatureType};
use crate::types::PublicKeyAlgorithm;
use crate::types::{Fingerprint, KeyId};

/// The key flags of a key (RFC 9580 §5.2.3.29): what its binding allows it to do.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyFlags(u8);

impl KeyFlags {
    /// May make certifications (sign keys and user IDs).
    #[must_use]
    pub fn certify(self) -> bool {
        self.0 & flags::CERTIFY != 0
    }

    /// May sign data.
    #[must_use]
    pub fn sign(self) -> bool {
        self.0 & flags::SIGN != 0
    }

    /// May encrypt communications.
    #[must_use]
    pub fn encrypt_communications(self) -> bool {
        self.0 & flags::ENCRYPT_COMMUNICATIONS != 0
    }

    /// May encrypt storage.
    #[must_use]
    pub fn encrypt_storage(self) -> bool {
        self.0 & flags::ENCRYPT_STORAGE != 0
    }

    /// The flag names that are set, in RFC order ("certify", "sign", "encrypt-communications",
    /// "encrypt-storage").
    #[must_use]
    pub fn names(self) -> Vec<&'static str> {
        [
            (self.certify(), "certify"),
            (self.sign(), "sign"),
            (self.encrypt_communications(), "encrypt-communications"),
            (self.encrypt_storage(), "encrypt-storage"),
        ]
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect()
    }
}

impl fmt::Debug for KeyFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// A revocation of a key, from [`KeyInfo::revocation`] (RFC 9580 §5.2.3.31).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Revocation {
    /// The reason, if the revocation states one this crate knows.
    pub reason: Option<ReasonForRevocation>,
    /// The reason code octet as written, if the revocation has a Reason for Revocation
    /// subpacket (a code this crate does not know is here, with `reason` `None`).
    pub code: Option<u8>,
    /// The human-readable text of the reason (invalid UTF-8 replaced by U+FFFD); may be empty.
    pub text: String,
    /// When the revocation signature was made.
    pub creation_time: SystemTime,
    /// Is it a hard revocation (no reason, "compromised" or an unknown reason), which makes the
    /// key invalid at every time, rather than from `creation_time` on?
    pub hard: bool,
}

/// One key of a certificate (the primary key or a subkey), from [`Cert::keys`].
///
/// Properties that depend on self-signatures are evaluated at a given time, as encryption and
/// verification evaluate them.
#[derive(Clone, Copy)]
pub struct KeyInfo<'a> {
    cert: &'a Cert,
    /// `None` for the primary key, else the subkey's index.
    subkey: Option<usize>,
    key: &'a PublicKeyPacket,
    fingerprint: Fingerprint,
}

impl fmt::Debug for KeyInfo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyInfo")
            .field("fingerprint", &self.fingerprint)
            .field("algorithm", &self.algorithm())
            .field("primary", &self.is_primary())
            .finish_non_exhaustive()
    }
}

impl<'a> KeyInfo<'a> {
    /// The key's fingerprint.
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// The key's key ID.
    #[must_use]
    pub fn key_id(&self) -> KeyId {
        self.fingerprint.key_id()
    }

    /// The key's algorithm.
    #[must_use]
    pub fn algorithm(&self) -> PublicKeyAlgorithm {
        self.key.algorithm
    }

    /// Is this the primary key?
    #[must_use]
    pub fn is_primary(&self) -> bool {
        self.subkey.is_none()
    }

    /// The key's creation time.
    #[must_use]
    pub fn creation_time(&self) -> SystemTime {
        from_timestamp(self.key.creation_time)
    }

    /// The binding self-signature in force at `t`, ignoring expiration and revocation.
    fn binding_at(&self, t: u32) -> Option<&'a SignaturePacket> {
        match self.subkey {
            None => self.cert.primary_binding_at(t),
            Some(i) => self.cert.subkey_binding_at(i, t),
        }
    }

    /// The key flags its binding signature in force at `at` grants (empty without one).
    #[must_use]
    pub fn flags(&self, at: SystemTime) -> KeyFlags {
        let binding = self.binding_at(to_timestamp(at));
        KeyFlags(binding.and_then(|s| s.key_flags()).and_then(|f| f.first().copied()).unwrap_or(0))
    }

    /// When the key expires, as its binding signature in force at `at` says (`None`: never, or
    /// no binding).
    #[must_use]
    pub fn expiration_time(&self, at: SystemTime) -> Option<SystemTime> {
        let seconds = self.binding_at(to_timestamp(at))?.key_expiration().filter(|&e| e != 0)?;
        Some(from_timestamp(self.key.creation_time.saturating_add(seconds)))
    }

    /// Is the key revoked at `at` (a revocation of the key itself; for a subkey, the primary
    /// key's revocation is reported by the primary key's `KeyInfo`)?
    #[must_use]
    pub fn is_revoked(&self, at: SystemTime) -> bool {
        self.revocation_signature(to_timestamp(at)).is_some()
    }

    /// The revocation of the key in force at `at`, if it is revoked then (as
    /// [`KeyInfo::is_revoked`]): its reason, the text given and when it was made. A hard
    /// revocation is reported before a soft one.
    #[must_use]
    pub fn revocation(&self, at: SystemTime) -> Option<Revocation> {
        let sig = self.revocation_signature(to_timestamp(at))?;
        let (code, text) = match sig.reason_for_revocation() {
            Some((code, text)) => (Some(code), String::from_utf8_lossy(text).into_owned()),
            None => (None, String::new()),
        };
        Some(Revocation {
            reason: code.and_then(ReasonForRevocation::from_code),
            code,
            text,
            creation_time: from_timestamp(sig.creation_time().unwrap_or(0)),
            hard: is_hard_revocation(sig),
        })
    }

    /// The valid revocation signature of the key itself that applies at `t`.
    fn revocation_signature(&self, t: u32) -> Option<&'a SignaturePacket> {
        let cert = self.cert;
        let primary = &cert.primary;
        match self.subkey {
            None => {
                revocation(cert, &cert.primary_sigs, SignatureType::KeyRevocation, Signed::Key(primary), t)
            }
            Some(i) => {
                let sub = cert.subkeys.get(i)?;
                let signed = Signed::Subkey(primary, &sub.key);
                revocation(cert, &sub.sigs, SignatureType::SubkeyRevocation, signed, t)
            }
        }
    }

    /// Whether the key is usable at `at` (validly bound, not revoked or expired, and its
    /// primary key too), and if not, why.
    ///
    /// # Errors
    /// The [`KeyProblem`] that makes it unusable.
    pub fn validity(&self, at: SystemTime) -> Result<(), KeyProblem> {
        let t = to_timestamp(at);
        if self.cert.key_at(&self.fingerprint, t).is_some() {
            Ok(())
        } else {
            // Any flag: the question is validity, not capability.
            Err(self.cert.key_problem(&self.fingerprint, t, 0xff))
        }
    }
}

impl Cert {
    /// Every key of the certificate: the primary key first, then each subkey in order,
    /// including subkeys that are not validly bound or use algorithms this crate does not
    /// implement.
    pub fn keys(&self) -> impl Iterator<Item = KeyInfo<'_>> + '_ {
        let primary = KeyInfo { cert: self, subkey: None, key: &self.primary, fingerprint: self.fingerprint };
        let subkeys = self.subkeys.iter().enumerate().map(|(i, s)| KeyInfo {
            cert: self,
            subkey: Some(i),
            key: &s.key,
            fingerprint: s.fingerprint,
        });
        std::iter::once(primary).chain(subkeys)
    }

    /// Does the certificate have a key (its primary key or a subkey) with `fingerprint`,
    /// whatever its validity?
    #[must_use]
    pub fn has_key(&self, fingerprint: &Fingerprint) -> bool {
        self.key(fingerprint).is_some()
    }

    /// The key (primary key or subkey) with `fingerprint`, whatever its validity (see
    /// [`KeyInfo::validity`]).
    #[must_use]
    pub fn key(&self, fingerprint: &Fingerprint) -> Option<KeyInfo<'_>> {
        self.keys().find(|k| k.fingerprint == *fingerprint)
    }

    /// The user IDs as text (invalid UTF-8 replaced by U+FFFD), whether or not they are validly
    /// bound; [`Cert::user_ids`] gives the exact octets.
    pub fn user_id_strings(&self) -> impl Iterator<Item = Cow<'_, str>> + '_ {
        self.user_ids().map(String::from_utf8_lossy)
    }

    /// The primary user ID at `at`: among the validly bound user IDs, the one whose newest
    /// self-certification carries the Primary User ID flag (the newest such, if several), else
    /// the one with the newest self-certification.
    #[must_use]
    pub fn primary_user_id(&self, at: SystemTime) -> Option<Cow<'_, str>> {
        let t = to_timestamp(at);
        (0..self.user_ids.len())
            .filter_map(|i| Some((i, self.user_id_binding_at(i, t)?)))
            .max_by_key(|(_, s)| (s.primary_user_id(), s.creation_time()))
            .and_then(|(i, _)| self.user_ids.get(i))
            .map(|u| String::from_utf8_lossy(u.user_id.as_bytes()))
    }

    /// When the certificate (its primary key) expires, as the self-signature in force at `at`
    /// says; `None` if it never expires or has no valid self-signature then.
    #[must_use]
    pub fn expiration_time(&self, at: SystemTime) -> Option<SystemTime> {
        self.keys().next().and_then(|k| k.expiration_time(at))
    }

    /// Is the certificate (its primary key) revoked at `at`?
    #[must_use]
    pub fn is_revoked(&self, at: SystemTime) -> bool {
        self.keys().next().is_some_and(|k| k.is_revoked(at))
    }

    /// The revocation of the certificate (its primary key) in force at `at`, if any (see
    /// [`KeyInfo::revocation`]).
    #[must_use]
    pub fn revocation(&self, at: SystemTime) -> Option<Revocation> {
        self.keys().next().and_then(|k| k.revocation(at))
    }
}
