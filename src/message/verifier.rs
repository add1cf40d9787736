//! The policy that gives signature verdicts ([`Verifier`]: the certificates trusted, the time
//! window, the limits). Its entry points, which start the verifying streams, are with those
//! streams in `verify.rs`.
//!
//! A signature counts as good only if all of these hold:
//! - it is a v6 binary (0x00) or text (0x01) signature with a hashed creation time and no
//!   unknown critical subpacket (RFC 9580 §5.2.3.7);
//! - its creation time is within the not-before / not-after window, and it has not expired at
//!   the evaluation time;
//! - the hash has at least 256 bits and the cryptography verifies with a key of one of the
//!   given certificates;
//! - that key was valid for signing at the signature's creation time: validly bound, with the
//!   signing flag, not expired, not revoked (hard revocations apply at any time, soft ones from
//!   their creation on; see `key::select`).
//!
//! A signature that fails any check is reported as such; it never hides the others.

use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Error, Result};
use crate::key::{Cert, flags, from_timestamp, to_timestamp};
use crate::limits::Limits;
use crate::message::lookup::{KeyStore, SharedStore};
use crate::message::verdict::{
    BadReason, UnverifiableReason, Verification, VerificationStatus, issuer_of, mode_of,
};
use crate::packet::signature::SignaturePacket;
use crate::signature::{DataHasher, finish_hash, verify_digest};
use crate::types::Fingerprint;

/// Builds signature verifications against a set of certificates.
///
/// Defaults: no not-before bound; the not-after bound and the evaluation time ("now", used for
/// signature expiration) are the current time.
#[derive(Debug, Clone)]
#[must_use]
pub struct Verifier {
    certs: Vec<Arc<Cert>>,
    store: Option<SharedStore>,
    not_before: Option<u32>,
    not_after: Option<u32>,
    at: Option<u32>,
    limits: Limits,
}

impl Verifier {
    /// A verifier trusting the signing keys of every certificate in `certs`: owned
    /// certificates, `Arc`s, or references (which are copied).
    pub fn new<C: Into<Arc<Cert>>>(certs: impl IntoIterator<Item = C>) -> Self {
        Self {
            certs: certs.into_iter().map(Into::into).collect(),
            store: None,
            not_before: None,
            not_after: None,
            at: None,
            limits: Limits::default(),
        }
    }

    /// Trusts the signing keys of `certs` too.
    pub(super) fn add_certs<C: Into<Arc<Cert>>>(&mut self, certs: impl IntoIterator<Item = C>) {
        self.certs.extend(certs.into_iter().map(Into::into));
    }

    /// Looks up the certificates of the signers the signatures name in `store` (see
    /// [`KeyStore`]), besides the certificates given.
    pub fn key_store(mut self, store: impl KeyStore + 'static) -> Self {
        self.store = Some(SharedStore::new(store));
        self
    }

    /// Adds the certificates `store` has for `issuers`.
    ///
    /// # Errors
    /// The store's, as [`Error::KeyStore`].
    pub(super) fn look_up(&mut self, issuers: &[Fingerprint]) -> Result<()> {
        if let Some(store) = &self.store
            && !issuers.is_empty()
        {
            let found = store.certs(issuers)?;
            self.certs.extend(found);
        }
        Ok(())
    }

    /// Signatures made before `t` are not acceptable.
    pub fn not_before(mut self, t: SystemTime) -> Self {
        self.not_before = Some(to_timestamp(t));
        self
    }

    /// Signatures made after `t` are not acceptable (default: the evaluation time).
    pub fn not_after(mut self, t: SystemTime) -> Self {
        self.not_after = Some(to_timestamp(t));
        self
    }

    /// The evaluation time (default: now): signatures expired at `t` are not acceptable.
    pub fn at(mut self, t: SystemTime) -> Self {
        self.at = Some(to_timestamp(t));
        self
    }

    /// Resource limits for parsing signatures and messages.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The limits signatures and messages are parsed with.
    pub(super) fn parse_limits(&self) -> &Limits {
        &self.limits
    }

    fn now(&self) -> u32 {
        self.at.unwrap_or_else(|| to_timestamp(SystemTime::now()))
    }

    /// Checks one signature over the finished hash.
    pub(super) fn check(&self, sig: &SignaturePacket, hasher: DataHasher) -> Verification {
        let mode = mode_of(sig);
        let issuer = issuer_of(sig);
        let created = sig.creation_time();
        let mut v = Verification {
            status: VerificationStatus::Unverifiable(UnverifiableReason::NoMatchingCert),
            signing_key: issuer,
            signer: None,
            mode,
            creation_time: created.map(from_timestamp),
        };
        let digest = finish_hash(hasher.into_hasher(), sig);
        let bad = |mut v: Verification, status| {
            v.status = status;
            v
        };
        if sig.has_unknown_critical() {
            return bad(v, VerificationStatus::Unverifiable(UnverifiableReason::UnknownCriticalSubpacket));
        }
        let Some(created) = created else {
            return bad(v, VerificationStatus::Bad(BadReason::NoCreationTime));
        };
        let now = self.now();
        if self.not_before.is_some_and(|nb| created < nb) {
            return bad(v, VerificationStatus::Bad(BadReason::BeforeNotBefore));
        }
        if created > self.not_after.unwrap_or(now) {
            return bad(v, VerificationStatus::Bad(BadReason::AfterNotAfter));
        }
        if let Some(exp) = sig.signature_expiration().filter(|&e| e != 0)
            && u64::from(now) >= u64::from(created).saturating_add(u64::from(exp))
        {
            return bad(v, VerificationStatus::Bad(BadReason::Expired));
        }
        // Every key of every certificate the issuer fingerprint names (or all, without one).
        for cert in &self.certs {
            for (fingerprint, key) in cert.key_packets() {
                if issuer.is_some_and(|i| i != fingerprint) {
                    continue;
                }
                let status = match verify_digest(key, sig, &digest) {
                    Ok(()) => {
                        let valid =
                            cert.key_at(&fingerprint, created).is_some_and(|k| k.flags & flags::SIGN != 0);
                        if valid {
                            VerificationStatus::Good
                        } else {
                            let problem = cert.key_problem(&fingerprint, created, flags::SIGN);
                            VerificationStatus::Bad(BadReason::SigningKey(problem))
                        }
                    }
                    Err(Error::Unsupported(_)) => {
                        VerificationStatus::Unverifiable(UnverifiableReason::UnsupportedAlgorithm)
                    }
                    Err(_) => VerificationStatus::Bad(BadReason::Invalid),
                };
                // Keep the most favourable outcome: good, then bad, then unverifiable.
                let better = match (status, v.status) {
                    (_, VerificationStatus::Good) => false,
                    (VerificationStatus::Good, _) => true,
                    (VerificationStatus::Bad(_), VerificationStatus::Unverifiable(_)) => true,
                    _ => v.signer.is_none(),
                };
                if better {
                    v.status = status;
                    v.signing_key = Some(fingerprint);
                    v.signer = Some(Arc::clone(cert));
                }
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::crypto::rng::Rng;
    use crate::key::{KeyBuilder, Profile, Signed, Tsk, make_over};
    use crate::message::sign::Signer;
    use crate::packet::key::SecretKeyMaterial;
    use crate::packet::signature::SignatureType;
    use crate::packet::subpacket::{Subpacket, SubpacketData};
    use crate::packet::{Packet, Serialize};
    use crate::signature::{base_subpackets, critical, make, sub};
    use crate::types::Fingerprint;

    const T0: u32 = 1_750_000_000;

    fn key() -> Tsk {
        KeyBuilder::new(Profile::Rfc9580)
            .user_id("Test <test@example.org>")
            .creation_time(from_timestamp(T0))
            .generate()
            .unwrap()
    }

    fn primary_secret(tsk: &Tsk) -> &SecretKeyMaterial {
        tsk.secret_for(&tsk.cert.fingerprint).unwrap()
    }

    /// A binary signature packet over the octets "data", made by `key` with `secret`, with
    /// the hashed subpackets `hashed`.
    fn signature_over_data(
        key: &crate::packet::key::PublicKeyPacket,
        secret: &SecretKeyMaterial,
        hashed: Vec<Subpacket>,
    ) -> <Packet as Serialize>::Buf {
        let sig = make(
            key,
            secret,
            SignatureType::Binary,
            crate::types::HashAlgorithm::Sha512,
            hashed,
            &mut Rng::os(),
            |h| h.update(b"data"),
        )
        .unwrap();
        Packet::Signature(sig).to_vec()
    }

    fn sign_at(tsk: &Tsk, t: u32) -> Vec<u8> {
        let mut w = Signer::new().key(tsk).creation_time(from_timestamp(t)).detached().unwrap();
        w.write_all(b"data").unwrap();
        w.finish().unwrap()
    }

    fn status(cert: &Cert, sigs: &[u8], now: u32) -> VerificationStatus {
        let certs = [cert.clone()];
        let r = Verifier::new(&certs).at(from_timestamp(now)).verify_detached(sigs, &b"data"[..]).unwrap();
        r[0].status()
    }

    /// A key revocation of `tsk`'s primary key at `created` with reason `code`.
    fn revoke(tsk: &mut Tsk, created: u32, code: u8) {
        let primary = tsk.cert.primary.clone();
        let rev = make_over(
            &primary,
            primary_secret(tsk),
            SignatureType::KeyRevocation,
            vec![
                critical(SubpacketData::SignatureCreationTime(created)),
                sub(SubpacketData::ReasonForRevocation { code, reason: b"test".to_vec() }),
            ],
            Signed::Key(&primary),
            &mut Rng::os(),
        )
        .unwrap();
        tsk.cert.primary_sigs.push(rev);
    }

    /// Decrypt-and-verify applies the same key checks: a signer whose key was later revoked
    /// (hard) is bad, soft-revoked after the signature is still good.
    /// Past the hash pipe's threshold (a hashing thread on more than one core): detached and
    /// inline signatures inside encryption verify, and a changed octet makes them bad.
    #[test]
    fn large_data_is_hashed_alike_on_the_pipe() {
        use std::io::Read;

        use crate::message::{Decryptor, Encryptor};
        let (signer, rcpt) = (key(), key());
        let certs = [signer.to_cert()];
        let rcpt_cert = rcpt.to_cert();
        let data: Vec<u8> = (0..(6usize << 20) + 3).map(|i| u8::try_from(i % 253).unwrap()).collect();
        let mut altered = data.clone();
        altered[5 << 20] ^= 1;

        let mut w = Signer::new().key(&signer).creation_time(from_timestamp(T0)).detached().unwrap();
        for piece in data.chunks(100_000) {
            w.write_all(piece).unwrap();
        }
        let sig = w.finish().unwrap();
        let verify =
            |d: &[u8]| Verifier::new(&certs).at(from_timestamp(T0 + 10)).verify_detached(&sig, d).unwrap();
        assert!(verify(&data)[0].is_good());
        assert!(!verify(&altered)[0].is_good());

        let mut w = Encryptor::new([&rcpt_cert])
            .signer(&signer)
            .at(from_timestamp(T0 + 10))
            .writer(Vec::new())
            .unwrap();
        let _ = w.copy_from(&mut &data[..]).unwrap();
        let msg = w.finish().unwrap();
        let mut r =
            Decryptor::new([&rcpt]).verify_with(&certs).at(from_timestamp(T0 + 20)).reader(&msg[..]).unwrap();
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out).unwrap();
        assert!(out == data);
        let v = r.finish().unwrap().verifications;
        assert!(v.len() == 1 && v[0].is_good(), "{v:?}");
    }

    #[test]
    fn sign_encrypt_with_a_revoked_signer() {
        use std::io::Read;

        use crate::message::{Decryptor, Encryptor};
        let carol = key();
        let carol_cert = carol.to_cert();
        for (code, good) in [(0u8, false), (1, true)] {
            let mut signer = key();
            let mut w = Encryptor::new([&carol_cert])
                .signer(&signer)
                .at(from_timestamp(T0 + 10))
                .writer(Vec::new())
                .unwrap();
            w.write_all(b"data").unwrap();
            let msg = w.finish().unwrap();
            revoke(&mut signer, T0 + 100, code);
            let certs = [signer.to_cert()];
            let mut r = Decryptor::new([&carol])
                .verify_with(&certs)
                .at(from_timestamp(T0 + 1000))
                .reader(&msg[..])
                .unwrap();
            let mut out = Vec::new();
            let _ = r.read_to_end(&mut out).unwrap();
            assert_eq!(out, b"data");
            let v = r.finish().unwrap().verifications;
            assert_eq!(v[0].is_good(), good, "code {code}: {v:?}");
            // After the revocation the key cannot sign new messages.
            let e = Encryptor::new([&carol_cert]).signer(&signer).at(from_timestamp(T0 + 200));
            assert!(e.writer(Vec::new()).is_err());
        }
    }

    #[test]
    fn hard_revocation_is_retroactive_soft_is_not() {
        for (code, retroactive) in [(0u8, true), (2, true), (1, false), (3, false)] {
            let mut tsk = key();
            let before = sign_at(&tsk, T0 + 10);
            revoke(&mut tsk, T0 + 100, code);
            let got = status(&tsk.cert, &before, T0 + 1000);
            assert_eq!(got == VerificationStatus::Good, !retroactive, "code {code}: {got:?}");
        }
        // After a soft revocation, new signatures are refused by the signer.
        let mut tsk = key();
        revoke(&mut tsk, T0 + 100, 1);
        assert!(Signer::new().key(&tsk).creation_time(from_timestamp(T0 + 200)).detached().is_err());
    }

    #[test]
    fn signatures_by_keys_that_cannot_sign_or_were_not_yet_valid_are_bad() {
        let tsk = key();
        let cert = &tsk.cert;
        let fingerprint = cert.fingerprint;
        let forge =
            |secret: &SecretKeyMaterial,
             key: &crate::packet::key::PublicKeyPacket,
             fp: Fingerprint,
             t: u32| { signature_over_data(key, secret, base_subpackets(fp.as_bytes(), t)) };
        // Made before the key existed.
        let early = forge(primary_secret(&tsk), &cert.primary, fingerprint, T0 - 10);
        assert!(matches!(status(cert, &early, T0 + 100), VerificationStatus::Bad(_)));
        // The same forgery at a valid time is good (so the check above is the time).
        let ok = forge(primary_secret(&tsk), &cert.primary, fingerprint, T0 + 10);
        assert_eq!(status(cert, &ok, T0 + 100), VerificationStatus::Good);
        // The encryption subkey's secret cannot sign at all; a signature by a key without the
        // signing flag is bad: use the primary key with a cert whose flags say certify-only.
        let mut certify_only = tsk.cert.clone();
        let primary = certify_only.primary.clone();
        let direct = make_over(
            &primary,
            primary_secret(&tsk),
            SignatureType::DirectKey,
            vec![
                critical(SubpacketData::SignatureCreationTime(T0 + 1)),
                sub(SubpacketData::KeyFlags(vec![flags::CERTIFY])),
            ],
            Signed::Key(&primary),
            &mut Rng::os(),
        )
        .unwrap();
        certify_only.primary_sigs.push(direct);
        let later = forge(primary_secret(&tsk), &cert.primary, fingerprint, T0 + 10);
        assert!(matches!(status(&certify_only, &later, T0 + 100), VerificationStatus::Bad(_)));
    }

    #[test]
    fn unknown_critical_subpacket_and_expired_signature() {
        let tsk = key();
        let cert = &tsk.cert;
        let sign_with = |extra: SubpacketData, is_critical: bool| {
            let hashed = vec![
                critical(SubpacketData::SignatureCreationTime(T0 + 10)),
                if is_critical { critical(extra) } else { sub(extra) },
            ];
            signature_over_data(&cert.primary, primary_secret(&tsk), hashed)
        };
        let unknown = sign_with(SubpacketData::Unknown { tag: 100, body: vec![1] }, true);
        assert!(matches!(status(cert, &unknown, T0 + 100), VerificationStatus::Unverifiable(_)));
        let expiring = sign_with(SubpacketData::SignatureExpirationTime(50), true);
        assert_eq!(status(cert, &expiring, T0 + 20), VerificationStatus::Good);
        assert!(matches!(status(cert, &expiring, T0 + 100), VerificationStatus::Bad(_)));
    }
}
