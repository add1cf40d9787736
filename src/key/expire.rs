//! Re-issuing self-signatures: setting, extending and removing key expiration times
//! (RFC 9580 §5.2.3.13) on the primary key and on subkeys.
//!
//! A new self-signature replaces an old one by being newer (RFC 9580 §5.2.3.10 and §10.1): it
//! keeps every hashed subpacket of the binding it replaces except the ones it changes, and a
//! signing subkey's binding gets a fresh back-signature (0x19) made with the subkey.
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.2.3.13>

use std::time::SystemTime;

use crate::crypto::rng::Rng;
use crate::error::{Error, KeyProblem, Result};
use crate::key::sig::{self, Signed};
use crate::key::tsk::Tsk;
use crate::key::{flags, to_timestamp};
use crate::packet::signature::{SignaturePacket, SignatureType};
use crate::packet::subpacket::{Subpacket, SubpacketData};
use crate::signature::{base_subpackets, critical, sub};
use crate::types::Fingerprint;

/// The creation time for a signature that must supersede `prev`: `t`, or one second after
/// `prev` if that is later (two self-signatures made in the same second would tie).
fn superseding_time(prev: &SignaturePacket, t: u32) -> u32 {
    let after_prev = prev.creation_time().unwrap_or(0).saturating_add(1);
    t.max(after_prev)
}

/// The hashed subpackets of `prev` that a re-issued signature keeps: all but the creation
/// time, the issuer fingerprint and the embedded back-signature, which are made anew.
fn kept_subpackets(prev: &SignaturePacket) -> Vec<Subpacket> {
    prev.hashed
        .iter()
        .filter(|s| {
            !matches!(
                s.data,
                SubpacketData::SignatureCreationTime(_)
                    | SubpacketData::IssuerFingerprint { .. }
                    | SubpacketData::EmbeddedSignature(_)
            )
        })
        .cloned()
        .collect()
}

/// Replaces (or removes, for `None`) the key expiration subpacket.
fn set_key_expiration(hashed: &mut Vec<Subpacket>, seconds: Option<u32>) {
    hashed.retain(|s| !matches!(s.data, SubpacketData::KeyExpirationTime(_)));
    if let Some(secs) = seconds {
        hashed.push(critical(SubpacketData::KeyExpirationTime(secs)));
    }
}

impl Tsk {
    /// A new binding for subkey number `index`, created at `created`, with `hashed` subpackets
    /// (after the base ones). If the flags grant signing, a back-signature made with the
    /// subkey's secret is embedded (RFC 9580 §5.2.1, type 0x19).
    ///
    /// # Errors
    /// `KeyLocked` if a needed secret is locked; `KeyUnusable` if the subkey's secret is
    /// missing for a signing subkey; `InvalidArgument` for a bad index.
    pub(super) fn subkey_binding(
        &self,
        index: usize,
        created: u32,
        mut hashed: Vec<Subpacket>,
        rng: &mut Rng,
    ) -> Result<SignaturePacket> {
        let binding = self.cert.subkeys.get(index).ok_or(Error::InvalidArgument("no such subkey"))?;
        let grants_signing = hashed
            .iter()
            .any(|s| matches!(&s.data, SubpacketData::KeyFlags(f) if f.first().is_some_and(|b| b & flags::SIGN != 0)));
        let signed = Signed::Subkey(&self.cert.primary, &binding.key);
        if grants_signing {
            let sub_secret = self.secret_for(&binding.fingerprint)?;
            let back = sig::make_over(
                &binding.key,
                sub_secret,
                SignatureType::PrimaryKeyBinding,
                base_subpackets(binding.fingerprint.as_bytes(), created),
                signed,
                rng,
            )?;
            hashed.push(sub(SubpacketData::EmbeddedSignature(Box::new(back))));
        }
        self.primary_signature(SignatureType::SubkeyBinding, created, hashed, signed, rng)
    }

    /// Re-issues the current self-signatures of the primary key (the direct-key signature and
    /// each user ID's self-certification) at `t`, each with `edit` applied to the subpackets
    /// it keeps.
    ///
    /// # Errors
    /// `KeyUnusable` if there is no valid direct-key signature; `KeyLocked`.
    pub(super) fn reissue_primary(
        &mut self,
        t: u32,
        rng: &mut Rng,
        edit: impl Fn(&mut Vec<Subpacket>, SignatureType),
    ) -> Result<()> {
        let prev = self
            .cert
            .direct_key_binding_at(t)
            .cloned()
            .ok_or(Error::key_unusable(self.fingerprint(), KeyProblem::NoValidSelfSignature))?;
        let mut hashed = kept_subpackets(&prev);
        edit(&mut hashed, SignatureType::DirectKey);
        let primary = self.cert.primary.clone();
        let direct = self.primary_signature(
            SignatureType::DirectKey,
            superseding_time(&prev, t),
            hashed,
            Signed::Key(&primary),
            rng,
        )?;
        self.cert.primary_sigs.push(direct);
        for index in 0..self.cert.user_ids.len() {
            let Some(prev) = self.cert.user_id_binding_at(index, t).cloned() else {
                continue;
            };
            let mut hashed = kept_subpackets(&prev);
            edit(&mut hashed, prev.sig_type);
            let Some(u) = self.cert.user_ids.get(index) else { continue };
            let new = self.primary_signature(
                prev.sig_type,
                superseding_time(&prev, t),
                hashed,
                Signed::UserId(&primary, u.user_id.as_bytes()),
                rng,
            )?;
            if let Some(u) = self.cert.user_ids.get_mut(index) {
                u.sigs.push(new);
            }
        }
        Ok(())
    }

    /// Re-issues the current binding of subkey number `index` at `t` with `edit` applied to
    /// the subpackets it keeps.
    ///
    /// # Errors
    /// `KeyUnusable` if the subkey has no valid binding at `t`; `KeyLocked`.
    fn reissue_subkey(
        &mut self,
        index: usize,
        t: u32,
        rng: &mut Rng,
        edit: impl FnOnce(&mut Vec<Subpacket>),
    ) -> Result<()> {
        let prev = self.cert.subkey_binding_at(index, t).cloned().ok_or_else(|| {
            match self.cert.subkeys.get(index) {
                Some(s) => Error::subkey_unusable(
                    self.fingerprint(),
                    s.fingerprint,
                    KeyProblem::NoValidSelfSignature,
                ),
                None => Error::key_unusable(self.fingerprint(), KeyProblem::NoValidSelfSignature),
            }
        })?;
        let mut hashed = kept_subpackets(&prev);
        edit(&mut hashed);
        let binding = self.subkey_binding(index, superseding_time(&prev, t), hashed, rng)?;
        if let Some(s) = self.cert.subkeys.get_mut(index) {
            s.sigs.push(binding);
        }
        Ok(())
    }

    /// Sets the expiration time of the key with `fingerprint` (the primary key or a subkey)
    /// to `expires`, or removes it for `None`, by issuing new self-signatures made at `at`.
    ///
    /// For the primary key, the direct-key signature and every user ID self-certification are
    /// re-issued, so that implementations reading either see the same expiration. Every other
    /// subpacket of the replaced signatures is kept. A signing subkey needs its secret (for the
    /// back-signature).
    ///
    /// ```
    /// # fn main() -> sixpgp::Result<()> {
    /// use std::time::{Duration, SystemTime};
    /// use sixpgp::{KeyBuilder, Profile};
    /// let now = SystemTime::now();
    /// let mut tsk = KeyBuilder::new(Profile::Rfc9580).user_id("A <a@example.org>").creation_time(now).generate()?;
    /// let fp = tsk.fingerprint();
    /// tsk.set_expiration(&fp, Some(now + Duration::from_secs(3600)), now)?;
    /// assert!(!tsk.cert().can_encrypt_at(now + Duration::from_secs(7200)));
    /// tsk.set_expiration(&fp, None, now + Duration::from_secs(10))?;
    /// assert!(tsk.cert().can_encrypt_at(now + Duration::from_secs(7200)));
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// `InvalidArgument` if there is no such key or `expires` is not after the key's creation;
    /// `KeyUnusable` if the key has no valid self-signature to replace; `KeyLocked` if a
    /// needed secret key is locked.
    pub fn set_expiration(
        &mut self,
        fingerprint: &Fingerprint,
        expires: Option<SystemTime>,
        at: SystemTime,
    ) -> Result<()> {
        let t = to_timestamp(at);
        let mut rng = Rng::os();
        let relative = |created: u32| -> Result<Option<u32>> {
            match expires {
                None => Ok(None),
                Some(e) => to_timestamp(e)
                    .checked_sub(created)
                    .filter(|d| *d > 0)
                    .map(Some)
                    .ok_or(Error::InvalidArgument("expiration must be after the key's creation")),
            }
        };
        if *fingerprint == self.cert.fingerprint {
            let seconds = relative(self.cert.primary.creation_time)?;
            return self.reissue_primary(t, &mut rng, |hashed, _| set_key_expiration(hashed, seconds));
        }
        let index = self
            .cert
            .subkeys
            .iter()
            .position(|s| s.fingerprint == *fingerprint)
            .ok_or(Error::InvalidArgument("no key with this fingerprint"))?;
        let created = self.cert.subkeys.get(index).map_or(0, |s| s.key.creation_time);
        let seconds = relative(created)?;
        self.reissue_subkey(index, t, &mut rng, |hashed| set_key_expiration(hashed, seconds))
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::key::cert::SubkeyBinding;
    use crate::key::generate::new_key;
    use crate::key::{KeyBuilder, Profile};
    use crate::types::PublicKeyAlgorithm;

    #[test]
    fn a_signing_subkey_keeps_a_valid_back_signature_when_rebound() {
        let at = |s: u64| UNIX_EPOCH + Duration::from_secs(1_750_000_000 + s);
        let ts = |s: u64| to_timestamp(at(s));
        let mut tsk = KeyBuilder::new(Profile::Rfc9580).user_id("A").creation_time(at(0)).generate().unwrap();
        let mut rng = Rng::os();
        let (key, secret) = new_key(PublicKeyAlgorithm::Ed25519, ts(0), &mut rng).unwrap();
        let fp = Fingerprint::of(&key);
        tsk.cert.subkeys.push(SubkeyBinding { key, fingerprint: fp, sigs: Vec::new() });
        tsk.secrets.subkeys.push(Some(crate::packet::key::SecretKeyData::Plain(secret)));
        let binding = tsk
            .subkey_binding(1, ts(1), vec![sub(SubpacketData::KeyFlags(vec![flags::SIGN]))], &mut rng)
            .unwrap();
        assert!(binding.embedded_signature().is_some());
        tsk.cert.subkeys[1].sigs.push(binding);
        let signing = |tsk: &Tsk, t: u64| {
            tsk.cert.keys_with_flags(ts(t), flags::SIGN).iter().any(|k| k.fingerprint == fp)
        };
        assert!(signing(&tsk, 2));

        tsk.set_expiration(&fp, Some(at(100)), at(10)).unwrap();
        assert!(signing(&tsk, 50), "the re-issued binding has a valid back-signature");
        assert!(!signing(&tsk, 150));
        // Without the subkey's secret, a signing binding cannot be re-issued.
        tsk.secrets.subkeys[1] = None;
        assert!(matches!(tsk.set_expiration(&fp, None, at(20)), Err(Error::KeyUnusable { .. })));
    }
}
