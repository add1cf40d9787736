//! Merging two copies of a certificate, and the canonical form merging produces.
//!
//! Policy:
//! - the result holds the union of user IDs, subkeys and signatures, exact duplicates (same
//!   octets) dropped;
//! - signatures by the primary key must verify over the component they are attached to, or are
//!   dropped: direct-key signatures and key revocations (on the primary key), subkey bindings and
//!   subkey revocations (on a subkey), and every user ID signature whose issuer is the primary
//!   key or not named. Signatures of another type in those places are dropped too;
//! - third-party user ID signatures (issuer fingerprint naming another key) are kept unchecked:
//!   merging has no access to the issuer's certificate. [`Cert::validate_user_id`] checks them
//!   against the authorities it is given;
//! - user IDs left without any signature are dropped; subkeys are always kept (a secret key
//!   must not lose its secret material);
//! - canonical order: user IDs by octets, subkeys by creation time then fingerprint,
//!   signatures by creation time then octets.
//!
//! So merging is idempotent and does not depend on the order of its arguments.

use crate::error::{Error, Result};
use crate::key::cert::{Cert, SubkeyBinding, UserIdBinding};
use crate::key::sig::{self, Signed};
use crate::key::tsk::Tsk;
use crate::packet::Serialize;
use crate::packet::signature::{SignaturePacket, SignatureType};

/// Sorts `sigs` by creation time then octets, drops exact duplicates, then keeps those `keep`
/// accepts.
fn canonical_sigs(
    sigs: Vec<SignaturePacket>,
    keep: impl Fn(&SignaturePacket) -> bool,
) -> Vec<SignaturePacket> {
    let mut keyed: Vec<(u32, Vec<u8>, SignaturePacket)> =
        sigs.into_iter().map(|s| (s.creation_time().unwrap_or(0), s.to_vec(), s)).collect();
    keyed.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    keyed.dedup_by(|a, b| a.1 == b.1);
    keyed.into_iter().map(|(_, _, s)| s).filter(|s| keep(s)).collect()
}

impl Cert {
    /// Merges another copy of this certificate into this one: the union of user IDs, subkeys,
    /// signatures and revocations, in canonical order, without duplicates or self-signatures
    /// that do not verify. Third-party certifications are kept (they are checked when used).
    ///
    /// Merging is idempotent (`a.merge(a) == a.merge(a).merge(a)`) and commutative.
    ///
    /// # Errors
    /// `InvalidArgument` if the two certificates have different primary keys.
    pub fn merge(mut self, other: Cert) -> Result<Cert> {
        if self.fingerprint != other.fingerprint {
            return Err(Error::InvalidArgument("cannot merge certificates of different primary keys"));
        }
        // The other copy's checks carry over: the cache is content-addressed.
        self.verified.absorb(&other.verified);
        self.primary_sigs.extend(other.primary_sigs);
        for u in other.user_ids {
            match self.user_ids.iter_mut().find(|m| m.user_id == u.user_id) {
                Some(m) => m.sigs.extend(u.sigs),
                None => self.user_ids.push(u),
            }
        }
        for s in other.subkeys {
            match self.subkeys.iter_mut().find(|m| m.fingerprint == s.fingerprint) {
                Some(m) => m.sigs.extend(s.sigs),
                None => self.subkeys.push(s),
            }
        }
        self.canonicalize();
        Ok(self)
    }

    /// Brings the certificate into the canonical form [`Cert::merge`] produces.
    fn canonicalize(&mut self) {
        let primary = &self.primary;
        let verified = &self.verified;
        let own = *self.fingerprint.as_bytes();
        let primary_sigs = std::mem::take(&mut self.primary_sigs);
        self.primary_sigs = canonical_sigs(primary_sigs, |s| {
            matches!(s.sig_type, SignatureType::DirectKey | SignatureType::KeyRevocation)
                && sig::verifies_cached(verified, primary, s, Signed::Key(primary))
        });

        let mut user_ids: Vec<UserIdBinding> = std::mem::take(&mut self.user_ids)
            .into_iter()
            .map(|u| {
                let signed = Signed::UserId(primary, u.user_id.as_bytes());
                let sigs = canonical_sigs(u.sigs, |s| {
                    let third_party = s.issuer_fingerprint().is_some_and(|fp| fp != own);
                    let user_id_sig = matches!(
                        s.sig_type,
                        SignatureType::GenericCertification
                            | SignatureType::PersonaCertification
                            | SignatureType::CasualCertification
                            | SignatureType::PositiveCertification
                            | SignatureType::CertificationRevocation
                    );
                    user_id_sig && (third_party || sig::verifies_cached(verified, primary, s, signed))
                });
                UserIdBinding { user_id: u.user_id, sigs }
            })
            .filter(|u| !u.sigs.is_empty())
            .collect();
        user_ids.sort_by(|a, b| a.user_id.as_bytes().cmp(b.user_id.as_bytes()));
        self.user_ids = user_ids;

        let mut subkeys: Vec<SubkeyBinding> = std::mem::take(&mut self.subkeys)
            .into_iter()
            .map(|s| {
                let signed = Signed::Subkey(primary, &s.key);
                let sigs = canonical_sigs(s.sigs, |sig| {
                    matches!(sig.sig_type, SignatureType::SubkeyBinding | SignatureType::SubkeyRevocation)
                        && sig::verifies_cached(verified, primary, sig, signed)
                });
                SubkeyBinding { key: s.key, fingerprint: s.fingerprint, sigs }
            })
            .collect();
        subkeys.sort_by(|a, b| {
            (a.key.creation_time, a.fingerprint.as_bytes())
                .cmp(&(b.key.creation_time, b.fingerprint.as_bytes()))
        });
        self.subkeys = subkeys;
    }
}

impl Tsk {
    /// Merges a copy of this key's certificate (with new signatures, revocations,
    /// certifications or subkeys) into the key, as [`Cert::merge`] does; secret key material
    /// stays with its key.
    ///
    /// # Errors
    /// `InvalidArgument` if `other` is the certificate of a different key.
    pub fn merge_cert(&mut self, other: Cert) -> Result<()> {
        let old_fingerprints: Vec<_> = self.cert.subkeys.iter().map(|s| s.fingerprint).collect();
        let merged = self.cert.clone().merge(other)?;
        let mut old_secrets: Vec<_> =
            old_fingerprints.into_iter().zip(std::mem::take(&mut self.secrets.subkeys)).collect();
        self.secrets.subkeys = merged
            .subkeys
            .iter()
            .map(|s| old_secrets.iter_mut().find(|(fp, _)| *fp == s.fingerprint).and_then(|(_, d)| d.take()))
            .collect();
        self.cert = merged;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;
    use std::time::{Duration, UNIX_EPOCH};

    use proptest::prelude::*;

    use super::*;
    use crate::key::{KeyBuilder, KeyUpdate, Profile, ReasonForRevocation};

    const T0: u64 = 1_750_000_000;

    /// A certificate with many components: two user IDs (one revoked, one certified by a third
    /// party), an added subkey, a revoked subkey, re-issued bindings and a key revocation.
    fn rich() -> &'static Cert {
        static RICH: OnceLock<Cert> = OnceLock::new();
        RICH.get_or_init(|| {
            let at = |s: u64| UNIX_EPOCH + Duration::from_secs(T0 + s);
            let mut tsk = KeyBuilder::new(Profile::Rfc9580)
                .user_id("A <a@example.org>")
                .user_id("B <b@example.org>")
                .creation_time(at(0))
                .generate()
                .unwrap();
            let ca = KeyBuilder::new(Profile::Rfc9580).user_id("CA").creation_time(at(0)).generate().unwrap();
            let sub = tsk.cert.subkeys[0].fingerprint;
            tsk.update(KeyUpdate::new().at(at(10))).unwrap();
            tsk.set_expiration(&sub, Some(at(5000)), at(20)).unwrap();
            tsk.revoke_subkey(&sub, ReasonForRevocation::Retired, "", at(30)).unwrap();
            tsk.revoke_user_id(b"B <b@example.org>", ReasonForRevocation::UserIdInvalid, "", at(40)).unwrap();
            let certified = ca.certify_user_id(&tsk.cert, b"A <a@example.org>", true, at(50)).unwrap();
            tsk.merge_cert(certified).unwrap();
            tsk.revoke(ReasonForRevocation::Superseded, "", at(60)).unwrap();
            tsk.to_cert()
        })
    }

    /// The part of `cert` that `mask` selects: bit i keeps the i-th signature (in a fixed
    /// walk); components keep their key or user ID even with no signature left.
    fn subset(cert: &Cert, mask: u64) -> Cert {
        let mut i = 0u32;
        let mut keep = |s: &SignaturePacket| {
            let k = mask >> (i % 64) & 1 == 1;
            i += 1;
            let _ = s;
            k
        };
        let mut out = cert.clone();
        out.primary_sigs.retain(&mut keep);
        for u in &mut out.user_ids {
            u.sigs.retain(&mut keep);
        }
        for s in &mut out.subkeys {
            s.sigs.retain(&mut keep);
        }
        out
    }

    fn canonical(cert: &Cert) -> Cert {
        let mut c = cert.clone();
        c.canonicalize();
        c
    }

    #[test]
    fn the_rich_certificate_is_canonical_after_one_merge() {
        let c = canonical(rich());
        assert_eq!(canonical(&c), c);
        assert_eq!(Cert::from_bytes(&c.to_vec()).unwrap().merge(c.clone()).unwrap(), c);
        // Nothing valid was dropped: the signature count stays.
        let count = |c: &Cert| {
            c.primary_sigs.len()
                + c.user_ids.iter().map(|u| u.sigs.len()).sum::<usize>()
                + c.subkeys.iter().map(|s| s.sigs.len()).sum::<usize>()
        };
        assert_eq!(count(&c), count(rich()));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn merge_is_commutative_idempotent_and_complete(a in any::<u64>(), b in any::<u64>()) {
            let (x, y) = (subset(rich(), a), subset(rich(), b));
            let xy = x.clone().merge(y.clone()).unwrap();
            prop_assert_eq!(&xy, &y.clone().merge(x.clone()).unwrap());
            prop_assert_eq!(&xy.clone().merge(xy.clone()).unwrap(), &xy);
            prop_assert_eq!(&xy.clone().merge(y.clone()).unwrap(), &xy);
            // Merging the complements gives back the whole certificate.
            let whole = subset(rich(), a).merge(subset(rich(), !a)).unwrap();
            prop_assert_eq!(whole, canonical(rich()));
        }
    }
}
