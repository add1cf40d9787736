//! Revocations: of the whole key (0x20), of a subkey (0x28) and of a user ID (0x30)
//! (RFC 9580 §5.2.1, reason codes §5.2.3.31).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.31>

use std::time::SystemTime;

use crate::crypto::rng::Rng;
use crate::error::{Error, Result};
use crate::key::cert::Cert;
use crate::key::sig::{self, Signed, VerifyCache};
use crate::key::to_timestamp;
use crate::key::tsk::Tsk;
use crate::packet::signature::{SignaturePacket, SignatureType};
use crate::packet::subpacket::{Subpacket, SubpacketData};
use crate::signature::{base_subpackets, sub};
use crate::types::Fingerprint;

/// Why a key, subkey or user ID is revoked (RFC 9580 §5.2.3.31).
///
/// "Superseded", "retired" and "user ID invalid" are *soft*: signatures made before the
/// revocation stay valid. "No reason" and "compromised" are *hard*: the key is treated as never
/// having been valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ReasonForRevocation {
    /// No reason specified (0); a hard revocation.
    NoReason,
    /// The key is superseded by another (1); the default.
    #[default]
    Superseded,
    /// The key material has been compromised (2); a hard revocation.
    Compromised,
    /// The key is retired and no longer used (3).
    Retired,
    /// The user ID is no longer valid (32); for user ID revocations.
    UserIdInvalid,
}

impl ReasonForRevocation {
    /// The reason code octet.
    #[must_use]
    pub const fn code(self) -> u8 {
        match self {
            Self::NoReason => 0,
            Self::Superseded => 1,
            Self::Compromised => 2,
            Self::Retired => 3,
            Self::UserIdInvalid => 32,
        }
    }

    /// The reason a code octet stands for, if this crate knows it.
    pub(super) const fn from_code(code: u8) -> Option<Self> {
        match code {
            0 => Some(Self::NoReason),
            1 => Some(Self::Superseded),
            2 => Some(Self::Compromised),
            3 => Some(Self::Retired),
            32 => Some(Self::UserIdInvalid),
            _ => None,
        }
    }
}

fn reason_subpacket(reason: ReasonForRevocation, text: &str) -> Subpacket {
    sub(SubpacketData::ReasonForRevocation { code: reason.code(), reason: text.as_bytes().to_vec() })
}

impl Tsk {
    /// Makes a signature of `sig_type` over `signed` with the primary key, created at
    /// `created`, with `extra` hashed subpackets after the base ones.
    ///
    /// # Errors
    /// `KeyLocked` if the primary secret is locked; `KeyUnusable` if it cannot sign.
    pub(super) fn primary_signature(
        &self,
        sig_type: SignatureType,
        created: u32,
        extra: Vec<Subpacket>,
        signed: Signed<'_>,
        rng: &mut Rng,
    ) -> Result<SignaturePacket> {
        let secret = self.secret_for(&self.cert.fingerprint)?;
        let mut hashed = base_subpackets(self.cert.fingerprint.as_bytes(), created);
        hashed.extend(extra);
        sig::make_over(&self.cert.primary, secret, sig_type, hashed, signed, rng)
    }

    /// A revocation certificate for this key: the primary key and a key revocation signature
    /// (type 0x20) made at `at`, nothing else. Merge it into the certificate (see
    /// [`Cert::merge`]) to publish the revocation.
    ///
    /// ```
    /// # fn main() -> sixpgp::Result<()> {
    /// use std::time::SystemTime;
    /// use sixpgp::{KeyBuilder, Profile, ReasonForRevocation};
    /// let tsk = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <alice@example.org>").generate()?;
    /// let rev = tsk.revocation_certificate(ReasonForRevocation::Retired, "moved on", SystemTime::now())?;
    /// let revoked = tsk.to_cert().merge(rev)?;
    /// assert!(!revoked.can_encrypt_at(SystemTime::now() + std::time::Duration::from_secs(1)));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `KeyLocked` if the primary secret key is locked; `InvalidArgument` for the
    /// user-ID-only reason [`ReasonForRevocation::UserIdInvalid`].
    pub fn revocation_certificate(
        &self,
        reason: ReasonForRevocation,
        text: &str,
        at: SystemTime,
    ) -> Result<Cert> {
        if reason == ReasonForRevocation::UserIdInvalid {
            return Err(Error::InvalidArgument("reason \"user ID invalid\" is for user ID revocations"));
        }
        let primary = &self.cert.primary;
        let rev = self.primary_signature(
            SignatureType::KeyRevocation,
            to_timestamp(at),
            vec![reason_subpacket(reason, text)],
            Signed::Key(primary),
            &mut Rng::os(),
        )?;
        Ok(Cert {
            primary: primary.clone(),
            fingerprint: self.cert.fingerprint,
            primary_sigs: vec![rev],
            user_ids: Vec::new(),
            subkeys: Vec::new(),
            verified: VerifyCache::default(),
        })
    }

    /// Revokes the whole key: adds a key revocation signature made at `at`.
    ///
    /// # Errors
    /// As [`Tsk::revocation_certificate`].
    pub fn revoke(&mut self, reason: ReasonForRevocation, text: &str, at: SystemTime) -> Result<()> {
        let rev = self.revocation_certificate(reason, text, at)?;
        self.cert.primary_sigs.extend(rev.primary_sigs);
        Ok(())
    }

    /// Revokes the subkey with `fingerprint`: adds a subkey revocation signature (0x28) made at
    /// `at`.
    ///
    /// # Errors
    /// `InvalidArgument` if there is no such subkey (or `reason` is
    /// [`ReasonForRevocation::UserIdInvalid`]); `KeyLocked` if the primary secret is locked.
    pub fn revoke_subkey(
        &mut self,
        fingerprint: &Fingerprint,
        reason: ReasonForRevocation,
        text: &str,
        at: SystemTime,
    ) -> Result<()> {
        if reason == ReasonForRevocation::UserIdInvalid {
            return Err(Error::InvalidArgument("reason \"user ID invalid\" is for user ID revocations"));
        }
        let index = self
            .cert
            .subkeys
            .iter()
            .position(|s| s.fingerprint == *fingerprint)
            .ok_or(Error::InvalidArgument("no subkey with this fingerprint"))?;
        let rev = {
            let sub_key =
                self.cert.subkeys.get(index).map(|s| &s.key).ok_or(Error::InvalidArgument("subkey"))?;
            self.primary_signature(
                SignatureType::SubkeyRevocation,
                to_timestamp(at),
                vec![reason_subpacket(reason, text)],
                Signed::Subkey(&self.cert.primary, sub_key),
                &mut Rng::os(),
            )?
        };
        if let Some(s) = self.cert.subkeys.get_mut(index) {
            s.sigs.push(rev);
        }
        Ok(())
    }

    /// Revokes the user ID `user_id` (exact octets): adds a certification revocation
    /// signature (0x30) made at `at`.
    ///
    /// # Errors
    /// `InvalidArgument` if the certificate has no such user ID; `KeyLocked` if the primary
    /// secret is locked.
    pub fn revoke_user_id(
        &mut self,
        user_id: &[u8],
        reason: ReasonForRevocation,
        text: &str,
        at: SystemTime,
    ) -> Result<()> {
        let index = self
            .cert
            .user_ids
            .iter()
            .position(|u| u.user_id.as_bytes() == user_id)
            .ok_or(Error::InvalidArgument("no such user ID"))?;
        let rev = self.primary_signature(
            SignatureType::CertificationRevocation,
            to_timestamp(at),
            vec![reason_subpacket(reason, text)],
            Signed::UserId(&self.cert.primary, user_id),
            &mut Rng::os(),
        )?;
        if let Some(u) = self.cert.user_ids.get_mut(index) {
            u.sigs.push(rev);
        }
        Ok(())
    }
}
