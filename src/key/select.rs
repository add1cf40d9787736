//! Evaluating self-signatures at a given time: which keys are valid, and for what.
//!
//! Rules (RFC 9580 §5.2.3.3, §5.2.3.29, §10.1):
//! - a signature counts at time `t` if it verifies, has a creation time no later than `t` and
//!   no earlier than its key's, is not expired at `t`, and has no unknown critical subpacket;
//! - the newest such binding signature decides flags and expiration;
//! - a revocation with no reason or a "compromised"/unknown reason is *hard*: it applies at any
//!   time; "superseded", "retired" and "user ID invalid" are *soft*: they apply from their
//!   creation time on;
//! - a signing-capable subkey needs a valid embedded primary-key binding (back-signature).

use std::time::SystemTime;

use crate::error::{Error, KeyProblem, Result};
use crate::key::cert::Cert;
use crate::key::sig::{self, Signed};
use crate::key::{flags, to_timestamp};
use crate::packet::key::PublicKeyPacket;
use crate::packet::signature::{SignaturePacket, SignatureType};
use crate::types::Fingerprint;
use crate::types::PublicKeyAlgorithm;

/// A key of a certificate that is valid at the evaluation time, with its properties.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ValidKey<'a> {
    pub(crate) key: &'a PublicKeyPacket,
    pub(crate) fingerprint: Fingerprint,
    pub(crate) flags: u8,
}

/// Is `sig` alive at `t` (creation time ≤ t < expiration), made no earlier than `key_created`?
pub(super) fn alive_at(sig: &SignaturePacket, key_created: u32, t: u32) -> bool {
    let Some(created) = sig.creation_time() else {
        return false;
    };
    if created > t || created < key_created || sig.has_unknown_critical() {
        return false;
    }
    match sig.signature_expiration() {
        Some(0) | None => true,
        Some(exp) => u64::from(t) < u64::from(created).saturating_add(u64::from(exp)),
    }
}

/// Is a revocation signature hard (applies retroactively)?
pub(super) fn is_hard_revocation(sig: &SignaturePacket) -> bool {
    // 1 = superseded, 3 = retired, 32 = user ID no longer valid are soft.
    !matches!(sig.reason_for_revocation(), Some((1 | 3 | 32, _)))
}

/// Has `key` not expired at `t`, given the key-expiration value of its binding?
fn key_alive(key: &PublicKeyPacket, binding: &SignaturePacket, t: u32) -> bool {
    match binding.key_expiration() {
        Some(0) | None => true,
        Some(exp) => u64::from(t) < u64::from(key.creation_time).saturating_add(u64::from(exp)),
    }
}

fn first_flags(sig: &SignaturePacket) -> u8 {
    sig.key_flags().and_then(|f| f.first().copied()).unwrap_or(0)
}

/// Is any of `sigs` a valid revocation of `signed` (a component of `cert`) at `t`?
pub(super) fn revoked(
    cert: &Cert,
    sigs: &[SignaturePacket],
    sig_type: SignatureType,
    signed: Signed<'_>,
    t: u32,
) -> bool {
    revocation(cert, sigs, sig_type, signed, t).is_some()
}

/// The valid revocation of `signed` (a component of `cert`) among `sigs` that applies at `t`:
/// a hard one if there is one (it outweighs any soft one), else the first soft one.
pub(super) fn revocation<'a>(
    cert: &Cert,
    sigs: &'a [SignaturePacket],
    sig_type: SignatureType,
    signed: Signed<'_>,
    t: u32,
) -> Option<&'a SignaturePacket> {
    let mut soft = None;
    for s in sigs.iter().filter(|s| s.sig_type == sig_type) {
        let Some(created) = s.creation_time() else { continue };
        let hard = is_hard_revocation(s);
        if (hard || created <= t) && !s.has_unknown_critical() && cert.verifies(&cert.primary, s, signed) {
            if hard {
                return Some(s);
            }
            soft = soft.or(Some(s));
        }
    }
    soft
}

/// The newest signature among `sigs` of one of `types` that is alive at `t` and verifies.
fn newest_valid<'a>(
    sigs: &'a [SignaturePacket],
    types: &[SignatureType],
    key_created: u32,
    t: u32,
    verify: impl Fn(&SignaturePacket) -> bool,
) -> Option<&'a SignaturePacket> {
    let mut candidates: Vec<&SignaturePacket> =
        sigs.iter().filter(|s| types.contains(&s.sig_type) && alive_at(s, key_created, t)).collect();
    // Newest first; the first that verifies wins.
    candidates.sort_by_key(|s| std::cmp::Reverse(s.creation_time().unwrap_or(0)));
    candidates.into_iter().find(|s| verify(s))
}

pub(super) const CERTIFICATIONS: [SignatureType; 4] = [
    SignatureType::PositiveCertification,
    SignatureType::CasualCertification,
    SignatureType::PersonaCertification,
    SignatureType::GenericCertification,
];

impl Cert {
    /// Does `sig` by `signer` verify over `signed`? Each distinct check is done once per
    /// certificate value (see [`VerifyCache`](crate::key::sig::VerifyCache)).
    fn verifies(&self, signer: &PublicKeyPacket, sig: &SignaturePacket, signed: Signed<'_>) -> bool {
        sig::verifies_cached(&self.verified, signer, sig, signed)
    }

    /// The signature that gives the primary key its properties at `t`: the newest valid
    /// direct-key signature, else the newest valid self-certification of the primary user ID
    /// (else of any user ID).
    pub(crate) fn primary_binding_at(&self, t: u32) -> Option<&SignaturePacket> {
        if let Some(s) = self.direct_key_binding_at(t) {
            return Some(s);
        }
        // The primary user ID's self-certification wins; among equals, the newest.
        (0..self.user_ids.len())
            .filter_map(|i| self.user_id_binding_at(i, t))
            .max_by_key(|s| (s.primary_user_id(), s.creation_time()))
    }

    /// The newest valid direct-key self-signature at `t`, ignoring key expiration.
    pub(super) fn direct_key_binding_at(&self, t: u32) -> Option<&SignaturePacket> {
        let primary = &self.primary;
        newest_valid(&self.primary_sigs, &[SignatureType::DirectKey], primary.creation_time, t, |s| {
            self.verifies(primary, s, Signed::Key(primary))
        })
    }

    /// The newest valid self-certification of user ID number `index` at `t`, if the user ID is
    /// not revoked.
    pub(super) fn user_id_binding_at(&self, index: usize, t: u32) -> Option<&SignaturePacket> {
        let primary = &self.primary;
        let u = self.user_ids.get(index)?;
        let signed = Signed::UserId(primary, u.user_id.as_bytes());
        if revoked(self, &u.sigs, SignatureType::CertificationRevocation, signed, t) {
            return None;
        }
        newest_valid(&u.sigs, &CERTIFICATIONS, primary.creation_time, t, |s| {
            self.verifies(primary, s, signed)
        })
    }

    /// The newest valid binding of subkey number `index` at `t` (back-signature included),
    /// ignoring key expiration and revocation.
    pub(super) fn subkey_binding_at(&self, index: usize, t: u32) -> Option<&SignaturePacket> {
        let primary = &self.primary;
        let sub = self.subkeys.get(index)?;
        let signed = Signed::Subkey(primary, &sub.key);
        newest_valid(&sub.sigs, &[SignatureType::SubkeyBinding], sub.key.creation_time, t, |s| {
            self.verifies(primary, s, signed) && self.back_signature_ok(s, &sub.key, t)
        })
    }

    /// Checks that the primary key is usable at `t`: self-signed, not revoked, not expired.
    ///
    /// # Errors
    /// [`Error::KeyUnusable`] naming the reason.
    pub fn check_valid_at(&self, t: SystemTime) -> Result<()> {
        self.primary_at(to_timestamp(t)).map(|_| ())
    }

    /// The primary key as a [`ValidKey`] at `t`.
    pub(super) fn primary_at(&self, t: u32) -> Result<ValidKey<'_>> {
        let primary = &self.primary;
        let unusable = |problem| Error::key_unusable(self.fingerprint, problem);
        if primary.creation_time > t {
            return Err(unusable(KeyProblem::NotYetValid));
        }
        if revoked(self, &self.primary_sigs, SignatureType::KeyRevocation, Signed::Key(primary), t) {
            return Err(unusable(KeyProblem::Revoked));
        }
        let binding = self.primary_binding_at(t).ok_or(unusable(KeyProblem::NoValidSelfSignature))?;
        if !key_alive(primary, binding, t) {
            return Err(unusable(KeyProblem::Expired));
        }
        Ok(ValidKey { key: primary, fingerprint: self.fingerprint, flags: first_flags(binding) })
    }

    /// Why subkey number `index` is not a valid key with one of `wanted` flags at `t`, or
    /// `None` if it is one.
    fn subkey_problem(&self, index: usize, t: u32, wanted: u8) -> Option<KeyProblem> {
        let sub = self.subkeys.get(index)?;
        let signed = Signed::Subkey(&self.primary, &sub.key);
        if sub.key.creation_time > t {
            return Some(KeyProblem::NotYetValid);
        }
        if revoked(self, &sub.sigs, SignatureType::SubkeyRevocation, signed, t) {
            return Some(KeyProblem::Revoked);
        }
        let Some(binding) = self.subkey_binding_at(index, t) else {
            return Some(KeyProblem::NoValidSelfSignature);
        };
        if !key_alive(&sub.key, binding, t) {
            return Some(KeyProblem::Expired);
        }
        (first_flags(binding) & wanted == 0).then_some(KeyProblem::WrongKeyFlags)
    }

    /// Why the key `fingerprint` (primary or subkey) is not valid with one of `wanted` flags at
    /// `t`: the primary key's problem first, since a subkey is valid only if its primary is.
    pub(crate) fn key_problem(&self, fingerprint: &Fingerprint, t: u32, wanted: u8) -> KeyProblem {
        let primary = match self.primary_at(t) {
            Ok(p) => p,
            Err(Error::KeyUnusable { problem, .. }) => return problem,
            Err(_) => return KeyProblem::NoValidSelfSignature,
        };
        if *fingerprint == self.fingerprint {
            return if primary.flags & wanted == 0 {
                KeyProblem::WrongKeyFlags
            } else {
                KeyProblem::NoSecret
            };
        }
        let index = self.subkeys.iter().position(|s| s.fingerprint == *fingerprint);
        index.and_then(|i| self.subkey_problem(i, t, wanted)).unwrap_or(KeyProblem::NoSecret)
    }

    /// The error for a certificate with no valid key with one of `wanted` flags at `t`: the
    /// primary key's problem if it has one; else, if the keys that carried such a flag are all
    /// expired (or revoked, or not yet valid), that, naming the subkey; else that there is no
    /// such key.
    pub(crate) fn no_key_error(&self, t: u32, wanted: u8) -> Error {
        if let Err(e) = self.primary_at(t) {
            return e;
        }
        let missing =
            if wanted & flags::SIGN != 0 { KeyProblem::NoSigningKey } else { KeyProblem::NoEncryptionKey };
        // The subkeys that had the capability in a binding that was valid at some time.
        let capable = (0..self.subkeys.len()).filter(|&i| {
            self.subkeys.get(i).is_some_and(|sub| {
                sub.sigs
                    .iter()
                    .any(|s| s.sig_type == SignatureType::SubkeyBinding && first_flags(s) & wanted != 0)
            })
        });
        let problems: Vec<(Fingerprint, KeyProblem)> = capable
            .filter_map(|i| Some((self.subkeys.get(i)?.fingerprint, self.subkey_problem(i, t, wanted)?)))
            .collect();
        [KeyProblem::Expired, KeyProblem::Revoked, KeyProblem::NotYetValid]
            .into_iter()
            .find_map(|p| problems.iter().find(|(_, q)| *q == p))
            .map_or(Error::key_unusable(self.fingerprint, missing), |&(subkey, problem)| {
                Error::subkey_unusable(self.fingerprint, subkey, problem)
            })
    }

    /// When the key `fingerprint` (primary key or subkey), valid at `t`, stops being valid by
    /// expiration alone: its key expiration or that of the binding signature in force at `t`,
    /// whichever comes first. `None` if neither expires (or the key has no binding at `t`). A
    /// subkey's own bindings only: its primary key's are asked for separately.
    pub(crate) fn expires_after(&self, fingerprint: &Fingerprint, t: u32) -> Option<u32> {
        let (key, binding) = if *fingerprint == self.fingerprint {
            (&self.primary, self.primary_binding_at(t)?)
        } else {
            let index = self.subkeys.iter().position(|s| s.fingerprint == *fingerprint)?;
            (&self.subkeys.get(index)?.key, self.subkey_binding_at(index, t)?)
        };
        let end = |start: u32, seconds: Option<u32>| match seconds {
            Some(0) | None => None,
            Some(s) => start.checked_add(s),
        };
        let key_end = end(key.creation_time, binding.key_expiration());
        let sig_end = binding.creation_time().and_then(|c| end(c, binding.signature_expiration()));
        key_end.into_iter().chain(sig_end).min()
    }

    /// Subkey number `index` as a [`ValidKey`] at `t`, if validly bound, unrevoked and
    /// unexpired. Does not look at the primary key.
    fn subkey_at(&self, index: usize, t: u32) -> Option<ValidKey<'_>> {
        let primary = &self.primary;
        let sub = self.subkeys.get(index)?;
        let signed = Signed::Subkey(primary, &sub.key);
        if sub.key.creation_time > t || revoked(self, &sub.sigs, SignatureType::SubkeyRevocation, signed, t) {
            return None;
        }
        let binding = self.subkey_binding_at(index, t)?;
        if !key_alive(&sub.key, binding, t) {
            return None;
        }
        Some(ValidKey { key: &sub.key, fingerprint: sub.fingerprint, flags: first_flags(binding) })
    }

    /// Every key (primary first) valid at `t`. Empty if the primary key itself is not.
    fn valid_keys_at(&self, t: u32) -> Vec<ValidKey<'_>> {
        let Ok(primary) = self.primary_at(t) else {
            return Vec::new();
        };
        let mut out = vec![primary];
        out.extend((0..self.subkeys.len()).filter_map(|i| self.subkey_at(i, t)));
        out
    }

    /// The key with `fingerprint` (primary or subkey) as a [`ValidKey`] at `t`: evaluates only
    /// that key (and the primary it depends on), so checking one signature stays cheap however
    /// many subkeys the certificate has.
    pub(crate) fn key_at(&self, fingerprint: &Fingerprint, t: u32) -> Option<ValidKey<'_>> {
        let primary = self.primary_at(t).ok()?;
        if *fingerprint == self.fingerprint {
            return Some(primary);
        }
        let index = self.subkeys.iter().position(|s| s.fingerprint == *fingerprint)?;
        self.subkey_at(index, t)
    }

    /// Keys valid at `t` with any of `wanted` flags.
    pub(crate) fn keys_with_flags(&self, t: u32, wanted: u8) -> Vec<ValidKey<'_>> {
        self.valid_keys_at(t).into_iter().filter(|k| k.flags & wanted != 0).collect()
    }

    /// Is there a key valid for encryption at `t`?
    #[must_use]
    pub fn can_encrypt_at(&self, t: SystemTime) -> bool {
        !self
            .keys_with_flags(to_timestamp(t), flags::ENCRYPT_COMMUNICATIONS | flags::ENCRYPT_STORAGE)
            .is_empty()
    }

    /// The fingerprints and algorithms of the keys valid for encryption at `t`: the keys
    /// [`Encryptor`](crate::Encryptor) encrypts to.
    #[must_use]
    pub fn encryption_keys_at(&self, t: SystemTime) -> Vec<(Fingerprint, PublicKeyAlgorithm)> {
        self.keys_with_flags(to_timestamp(t), flags::ENCRYPT_COMMUNICATIONS | flags::ENCRYPT_STORAGE)
            .iter()
            .map(|k| (k.fingerprint, k.key.algorithm))
            .collect()
    }

    /// Is there a key valid for signing at `t`?
    #[must_use]
    pub fn can_sign_at(&self, t: SystemTime) -> bool {
        !self.keys_with_flags(to_timestamp(t), flags::SIGN).is_empty()
    }

    /// User IDs validly self-certified and not revoked at `t`.
    #[must_use]
    pub fn valid_user_ids_at(&self, t: SystemTime) -> Vec<&[u8]> {
        let t = to_timestamp(t);
        (0..self.user_ids.len())
            .filter(|&i| self.user_id_binding_at(i, t).is_some())
            .filter_map(|i| self.user_ids.get(i).map(|u| u.user_id.as_bytes()))
            .collect()
    }
}

impl Cert {
    /// A subkey binding that grants signing needs a valid embedded primary-key binding made by
    /// the subkey (RFC 9580 §5.2.1, type 0x19).
    fn back_signature_ok(&self, binding: &SignaturePacket, sub: &PublicKeyPacket, t: u32) -> bool {
        if first_flags(binding) & flags::SIGN == 0 {
            return true;
        }
        binding.embedded_signature().is_some_and(|back| {
            back.sig_type == SignatureType::PrimaryKeyBinding
                && alive_at(back, sub.creation_time, t)
                && self.verifies(sub, back, Signed::Subkey(&self.primary, sub))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::rng::Rng;
    use crate::key::sig::make_over;
    use crate::key::{KeyBuilder, Profile, Tsk};
    use crate::packet::Serialize;
    use crate::packet::key::SecretKeyMaterial;
    use crate::packet::subpacket::SubpacketData;
    use crate::signature::{critical, sub};

    const T0: u32 = 1_750_000_000;

    fn key(profile: Profile) -> Tsk {
        KeyBuilder::new(profile)
            .user_id("Test <test@example.org>")
            .creation_time(crate::key::from_timestamp(T0))
            .generate()
            .unwrap()
    }

    fn primary_secret(tsk: &Tsk) -> &SecretKeyMaterial {
        tsk.secret_for(&tsk.cert.fingerprint).unwrap()
    }

    /// A self-signature of `sig_type` over `signed`, made at `created`, with `extra` subpackets.
    fn self_sig(
        tsk: &Tsk,
        sig_type: SignatureType,
        created: u32,
        extra: Vec<crate::packet::subpacket::Subpacket>,
        signed: Signed<'_>,
    ) -> SignaturePacket {
        let mut hashed = vec![critical(SubpacketData::SignatureCreationTime(created))];
        hashed.extend(extra);
        make_over(&tsk.cert.primary, primary_secret(tsk), sig_type, hashed, signed, &mut Rng::os()).unwrap()
    }

    #[test]
    fn hard_revocation_is_retroactive_soft_is_not() {
        for (code, retroactive) in [(0u8, true), (2, true), (1, false), (3, false)] {
            let mut tsk = key(Profile::Rfc9580);
            let primary = tsk.cert.primary.clone();
            let rev = self_sig(
                &tsk,
                SignatureType::KeyRevocation,
                T0 + 1000,
                vec![sub(SubpacketData::ReasonForRevocation { code, reason: b"test".to_vec() })],
                Signed::Key(&primary),
            );
            tsk.cert.primary_sigs.push(rev);
            assert!(tsk.cert.primary_at(T0 + 2000).is_err(), "code {code}");
            assert_eq!(tsk.cert.primary_at(T0 + 500).is_err(), retroactive, "code {code}");
        }
    }

    #[test]
    fn revoked_subkey_is_not_chosen() {
        let mut tsk = key(Profile::Rfc9580);
        let primary = tsk.cert.primary.clone();
        let subkey = tsk.cert.subkeys[0].key.clone();
        assert_eq!(tsk.cert.keys_with_flags(T0 + 10, flags::ENCRYPT_STORAGE).len(), 1);
        let rev = self_sig(
            &tsk,
            SignatureType::SubkeyRevocation,
            T0 + 5,
            vec![],
            Signed::Subkey(&primary, &subkey),
        );
        tsk.cert.subkeys[0].sigs.push(rev);
        assert!(tsk.cert.keys_with_flags(T0 + 10, flags::ENCRYPT_STORAGE).is_empty());
        // A revocation signature over the wrong target does not count.
        let mut tsk = key(Profile::Rfc9580);
        let bogus = self_sig(&tsk, SignatureType::SubkeyRevocation, T0 + 5, vec![], Signed::Key(&primary));
        tsk.cert.subkeys[0].sigs.push(bogus);
        assert_eq!(tsk.cert.keys_with_flags(T0 + 10, flags::ENCRYPT_STORAGE).len(), 1);
    }

    #[test]
    fn signing_subkey_needs_a_back_signature() {
        let mut tsk = key(Profile::Rfc9580);
        let primary = tsk.cert.primary.clone();
        let subkey = tsk.cert.subkeys[0].key.clone();
        // A newer binding that claims signing, without an embedded primary-key binding.
        let binding = self_sig(
            &tsk,
            SignatureType::SubkeyBinding,
            T0 + 5,
            vec![sub(SubpacketData::KeyFlags(vec![flags::SIGN]))],
            Signed::Subkey(&primary, &subkey),
        );
        tsk.cert.subkeys[0].sigs.push(binding);
        // The newer binding is invalid, so the older (encryption) binding still decides.
        let keys = tsk.cert.valid_keys_at(T0 + 10);
        let sub_fp = tsk.cert.subkeys[0].fingerprint;
        let sub_key = keys.iter().find(|k| k.fingerprint == sub_fp).unwrap();
        assert_eq!(sub_key.flags & flags::SIGN, 0);
        assert_ne!(sub_key.flags & flags::ENCRYPT_STORAGE, 0);
    }

    #[test]
    fn unknown_critical_subpacket_invalidates_a_binding() {
        let mut tsk = key(Profile::Rfc9580);
        let primary = tsk.cert.primary.clone();
        let subkey = tsk.cert.subkeys[0].key.clone();
        let binding = self_sig(
            &tsk,
            SignatureType::SubkeyBinding,
            T0 + 5,
            vec![
                sub(SubpacketData::KeyFlags(vec![flags::ENCRYPT_COMMUNICATIONS])),
                critical(SubpacketData::Unknown { tag: 100, body: vec![1] }),
            ],
            Signed::Subkey(&primary, &subkey),
        );
        assert!(binding.has_unknown_critical());
        tsk.cert.subkeys[0].sigs.push(binding);
        let keys = tsk.cert.keys_with_flags(T0 + 10, flags::ENCRYPT_STORAGE);
        assert_eq!(keys.len(), 1, "the original binding (storage + communications) still counts");
    }

    #[test]
    fn signature_expiration_and_key_expiration() {
        let mut tsk = key(Profile::Rfc9580);
        let primary = tsk.cert.primary.clone();
        // Replace the direct-key signature by one that expires after 100 s.
        let direct = self_sig(
            &tsk,
            SignatureType::DirectKey,
            T0,
            vec![
                sub(SubpacketData::KeyFlags(vec![flags::CERTIFY | flags::SIGN])),
                critical(SubpacketData::SignatureExpirationTime(100)),
            ],
            Signed::Key(&primary),
        );
        tsk.cert.primary_sigs = vec![direct];
        tsk.cert.user_ids.clear();
        assert!(tsk.cert.primary_at(T0 + 50).is_ok());
        assert!(tsk.cert.primary_at(T0 + 150).is_err());

        let mut tsk = key(Profile::Rfc9580);
        let primary = tsk.cert.primary.clone();
        let direct = self_sig(
            &tsk,
            SignatureType::DirectKey,
            T0 + 1,
            vec![critical(SubpacketData::KeyExpirationTime(1000))],
            Signed::Key(&primary),
        );
        tsk.cert.primary_sigs.push(direct);
        assert!(tsk.cert.primary_at(T0 + 999).is_ok());
        assert!(matches!(tsk.cert.primary_at(T0 + 1001), Err(Error::KeyUnusable { .. })));
    }

    /// `(fingerprint, flags)` of every key valid at `t`.
    fn summary(cert: &Cert, t: u32) -> Vec<(Fingerprint, u8)> {
        cert.valid_keys_at(t).iter().map(|k| (k.fingerprint, k.flags)).collect()
    }

    /// The same certificate with nothing remembered.
    fn cold(cert: &Cert) -> Cert {
        Cert { verified: crate::key::sig::VerifyCache::default(), ..cert.clone() }
    }

    #[test]
    fn each_self_signature_is_checked_once_per_cert() {
        let tsk = key(Profile::Rfc9580);
        let cert = cold(&tsk.cert);
        assert_eq!(cert.verified.len(), 0);
        assert_eq!(cert.keys_with_flags(T0 + 10, flags::ENCRYPT_STORAGE).len(), 1);
        // The direct-key signature and the subkey binding: the user ID's is not needed.
        assert_eq!(cert.verified.len(), 2);
        for t in [T0, T0 + 10, T0 + 1000] {
            let _ = cert.valid_keys_at(t);
            let _ = cert.primary_binding_at(t);
        }
        assert_eq!(cert.verified.len(), 2);
        // Cloning keeps what is known; the cache is not part of the value.
        let copy = cert.clone();
        assert_eq!(copy.verified.len(), 2);
        assert_eq!(copy, cold(&cert));
        // Copies share what they learn later: a check made through a copy answers for the
        // original (a key passed by reference is copied for each use).
        let original = cold(&tsk.cert);
        let copy = original.clone();
        assert_eq!(copy.keys_with_flags(T0 + 10, flags::ENCRYPT_STORAGE).len(), 1);
        drop(copy);
        assert_eq!(original.verified.len(), 2);
    }

    #[test]
    fn cached_results_equal_uncached_ones() {
        let a03 = Cert::from_bytes(include_bytes!("../../tests/data/a03-v6-certificate.asc")).unwrap();
        let mut revoked_sub = key(Profile::Rfc9580);
        let primary = revoked_sub.cert.primary.clone();
        let subkey = revoked_sub.cert.subkeys[0].key.clone();
        let rev = self_sig(
            &revoked_sub,
            SignatureType::SubkeyRevocation,
            T0 + 5,
            vec![],
            Signed::Subkey(&primary, &subkey),
        );
        revoked_sub.cert.subkeys[0].sigs.push(rev);
        let certs = [a03, key(Profile::Rfc9580).cert, key(Profile::Pqc).cert, revoked_sub.cert];
        for cert in &certs {
            let warm = cold(cert);
            for t in [0, T0 - 1, T0, T0 + 4, T0 + 5, T0 + 10, u32::MAX] {
                // Twice on the warm copy: filled then answered from the cache.
                for _ in 0..2 {
                    assert_eq!(summary(&warm, t), summary(&cold(cert), t), "t = {t}");
                    assert_eq!(warm.primary_at(t).is_ok(), cold(cert).primary_at(t).is_ok());
                    assert_eq!(
                        warm.primary_binding_at(t).map(SignaturePacket::to_vec),
                        cold(cert).primary_binding_at(t).map(SignaturePacket::to_vec)
                    );
                }
            }
        }
    }

    #[test]
    fn cache_never_makes_a_tampered_signature_valid() {
        let tsk = key(Profile::Rfc9580);
        let t = T0 + 10;

        // A tampered subkey binding, edited in place after its check was remembered.
        let mut cert = tsk.cert.clone();
        assert_eq!(cert.keys_with_flags(t, flags::ENCRYPT_STORAGE).len(), 1);
        match &mut cert.subkeys[0].sigs[0].material {
            crate::packet::signature::SignatureMaterial::Ed25519(s) => s[10] ^= 1,
            _ => panic!("an Ed25519 signature"),
        }
        assert!(cert.keys_with_flags(t, flags::ENCRYPT_STORAGE).is_empty());

        // Another subkey put under the old binding.
        let mut cert = tsk.cert.clone();
        assert_eq!(cert.keys_with_flags(t, flags::ENCRYPT_STORAGE).len(), 1);
        cert.subkeys[0].key = key(Profile::Rfc9580).cert.subkeys[0].key.clone();
        assert!(cert.keys_with_flags(t, flags::ENCRYPT_STORAGE).is_empty());

        // The primary key's self-signatures tampered (a changed hashed subpacket area).
        let mut cert = tsk.cert.clone();
        assert!(cert.primary_at(t).is_ok());
        for s in cert.primary_sigs.iter_mut().chain(cert.user_ids.iter_mut().flat_map(|u| &mut u.sigs)) {
            s.hashed.push(sub(SubpacketData::Unknown { tag: 101, body: vec![1] }));
        }
        assert!(cert.primary_at(t).is_err());
        assert!(cert.valid_keys_at(t).is_empty());

        // A tampered copy keeps failing after its own failures are cached, and the intact
        // original still works with its own cache.
        assert!(cert.valid_keys_at(t).is_empty());
        assert_eq!(tsk.cert.keys_with_flags(t, flags::ENCRYPT_STORAGE).len(), 1);
    }

    #[test]
    fn merged_and_updated_certs_are_evaluated_again() {
        let mut tsk = key(Profile::Rfc9580);
        let t = crate::key::from_timestamp(T0 + 100);
        let cert = tsk.cert.clone();
        assert!(cert.check_valid_at(t).is_ok());
        assert!(cert.can_encrypt_at(t));

        // A merged revocation applies to the merged certificate (built from the warm one).
        let rev = tsk
            .revocation_certificate(
                crate::key::ReasonForRevocation::Compromised,
                "gone",
                crate::key::from_timestamp(T0 + 50),
            )
            .unwrap();
        let merged = cert.clone().merge(rev).unwrap();
        assert!(merged.check_valid_at(t).is_err());
        assert!(!merged.can_encrypt_at(t));
        assert!(cert.check_valid_at(t).is_ok());

        // A new expiration, set in place on a key whose checks are remembered.
        let fp = tsk.fingerprint();
        assert!(tsk.cert.can_encrypt_at(t));
        tsk.set_expiration(
            &fp,
            Some(crate::key::from_timestamp(T0 + 60)),
            crate::key::from_timestamp(T0 + 20),
        )
        .unwrap();
        assert!(!tsk.cert.can_encrypt_at(t));
        assert!(tsk.cert.can_encrypt_at(crate::key::from_timestamp(T0 + 30)));
    }
}
