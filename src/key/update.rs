//! Keeping a secret key up to date ([`KeyUpdate`], [`Tsk::update`]), as SOP `update-key`
//! describes: merge updates, add a subkey of a modern profile, refresh self-signatures that
//! lack the preferences this crate advertises, and optionally revoke superseded subkeys.

use std::time::SystemTime;

use crate::crypto::rng::Rng;
use crate::error::Result;
use crate::key::cert::{Cert, SubkeyBinding};
use crate::key::generate::{FEATURES, new_key, preferences};
use crate::key::profile::Profile;
use crate::key::revoke::ReasonForRevocation;
use crate::key::tsk::Tsk;
use crate::key::{flags, to_timestamp};
use crate::packet::key::{PublicKeyMaterial, SecretKeyData};
use crate::packet::signature::SignaturePacket;
use crate::packet::subpacket::{Subpacket, SubpacketData};
use crate::signature::sub;
use crate::types::Fingerprint;

const ENCRYPT: u8 = flags::ENCRYPT_COMMUNICATIONS | flags::ENCRYPT_STORAGE;

/// What [`Tsk::update`] should do.
///
/// By default (SOP `update-key` semantics):
/// - certificates given with [`KeyUpdate::merge_cert`] (those of this key; others are ignored)
///   are merged in first;
/// - a key without a valid encryption key of the profile's encryption algorithm (by default
///   ML-KEM-768+X25519) gets a new such subkey;
/// - if the current direct-key signature or a user ID self-signature lacks the preferences this
///   crate advertises (symmetric, AEAD, hash preferences, SEIPDv2 feature), or uses a hash of
///   fewer than 256 bits, the primary key's self-signatures are re-issued with the missing
///   preferences added (everything else kept).
#[derive(Debug, Clone)]
#[must_use]
pub struct KeyUpdate {
    signing_only: bool,
    no_added_capabilities: bool,
    revoke_deprecated_keys: bool,
    profile: Profile,
    merge: Vec<Cert>,
    at: Option<SystemTime>,
}

impl Default for KeyUpdate {
    fn default() -> Self {
        Self::new()
    }
}

impl KeyUpdate {
    /// The default update: the [`Profile::PqcEncryption`] subkey algorithm, at the current time.
    pub fn new() -> Self {
        Self {
            signing_only: false,
            no_added_capabilities: false,
            revoke_deprecated_keys: false,
            profile: Profile::PqcEncryption,
            merge: Vec::new(),
            at: None,
        }
    }

    /// Does not make a key encryption-capable that is not already (SOP `--signing-only`).
    pub fn signing_only(mut self, yes: bool) -> Self {
        self.signing_only = yes;
        self
    }

    /// Advertises no capability the key does not already advertise: no new subkey algorithm,
    /// no new preferences (SOP `--no-added-capabilities`).
    pub fn no_added_capabilities(mut self, yes: bool) -> Self {
        self.no_added_capabilities = yes;
        self
    }

    /// Revokes (as superseded) every valid encryption subkey of another algorithm once a valid
    /// encryption subkey of the profile's algorithm exists (SOP `--revoke-deprecated-keys`).
    pub fn revoke_deprecated_keys(mut self, yes: bool) -> Self {
        self.revoke_deprecated_keys = yes;
        self
    }

    /// The profile whose encryption algorithm a new subkey uses (default
    /// [`Profile::PqcEncryption`]: ML-KEM-768+X25519).
    pub fn profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self
    }

    /// Merges this certificate (if it is this key's) before updating (SOP `--merge-certs`).
    pub fn merge_cert(mut self, cert: Cert) -> Self {
        self.merge.push(cert);
        self
    }

    /// Makes the new signatures and subkeys at `t` (default: now).
    pub fn at(mut self, t: SystemTime) -> Self {
        self.at = Some(t);
        self
    }
}

/// Does a self-signature lack a preference we advertise, or use a hash under 256 bits?
fn is_deprecated(sig: &SignaturePacket) -> bool {
    sig.hash_algorithm.digest_len().is_none_or(|len| len < 32)
        || sig.preferred_symmetric().is_none()
        || sig.preferred_aead().is_none()
        || sig.preferred_hash().is_none()
        || sig.features().is_none_or(|f| f.first().is_none_or(|b| b & FEATURES == 0))
}

/// Adds the missing preference subpackets of `defaults` to `hashed`, and the SEIPDv2 bit to
/// an existing features subpacket.
fn add_missing_preferences(hashed: &mut Vec<Subpacket>, defaults: &[Subpacket]) {
    for d in defaults {
        let kind = std::mem::discriminant(&d.data);
        match hashed.iter_mut().find(|s| std::mem::discriminant(&s.data) == kind) {
            Some(existing) => {
                if let SubpacketData::Features(f) = &mut existing.data {
                    match f.first_mut() {
                        Some(b) => *b |= FEATURES,
                        None => f.push(FEATURES),
                    }
                }
            }
            None => hashed.push(d.clone()),
        }
    }
}

impl Tsk {
    /// Updates the key as `update` says (see [`KeyUpdate`]).
    ///
    /// The secret keys needed must be unlocked: the primary key always, a signing subkey when
    /// its binding is re-issued. A new subkey's secret is unlocked; lock the key afterwards
    /// (see [`Tsk::lock`]) if it was locked.
    ///
    /// # Errors
    /// `KeyUnusable` if the primary key is revoked, expired or not validly self-signed at the
    /// update time (a revoked key is not revived); `KeyLocked` if a needed secret is locked.
    pub fn update(&mut self, update: KeyUpdate) -> Result<()> {
        let at = update.at.unwrap_or_else(SystemTime::now);
        let t = to_timestamp(at);
        let mut rng = Rng::os();
        for c in update.merge {
            if c.fingerprint == self.cert.fingerprint {
                self.merge_cert(c)?;
            }
        }
        let _ = self.cert.primary_at(t)?;

        // 1. Capabilities: an encryption subkey of the profile's algorithm.
        let target = update.profile.encryption_algorithm();
        let enc_keys: Vec<(Fingerprint, bool)> = self
            .cert
            .keys_with_flags(t, ENCRYPT)
            .iter()
            .map(|k| (k.fingerprint, k.key.algorithm == target))
            .collect();
        let has_target = enc_keys.iter().any(|(_, ok)| *ok);
        let add =
            !(has_target || update.no_added_capabilities || (enc_keys.is_empty() && update.signing_only));
        if add {
            let (key, secret) = new_key(target, t, &mut rng)?;
            let fingerprint = Fingerprint::of(&key);
            self.cert.subkeys.push(SubkeyBinding { key, fingerprint, sigs: Vec::new() });
            self.secrets.subkeys.push(Some(SecretKeyData::Plain(secret)));
            let index = self.cert.subkeys.len().saturating_sub(1);
            let hashed = vec![sub(SubpacketData::KeyFlags(vec![ENCRYPT]))];
            let binding = self.subkey_binding(index, t, hashed, &mut rng)?;
            if let Some(s) = self.cert.subkeys.get_mut(index) {
                s.sigs.push(binding);
            }
        }

        // 2. Self-signatures with missing preferences or a weak hash.
        if !update.no_added_capabilities {
            let direct_stale = self.cert.direct_key_binding_at(t).is_some_and(is_deprecated);
            let user_id_stale = (0..self.cert.user_ids.len())
                .any(|i| self.cert.user_id_binding_at(i, t).is_some_and(is_deprecated));
            if direct_stale || user_id_stale {
                let pqc = self
                    .cert
                    .keys_with_flags(t, ENCRYPT)
                    .iter()
                    .any(|k| matches!(k.key.material, PublicKeyMaterial::MlKem768X25519 { .. }));
                let defaults = preferences(update.profile, pqc);
                self.reissue_primary(t, &mut rng, |hashed, _| add_missing_preferences(hashed, &defaults))?;
            }
        }

        // 3. Superseded encryption subkeys.
        if update.revoke_deprecated_keys {
            let valid: Vec<(Fingerprint, bool)> = self
                .cert
                .keys_with_flags(t, ENCRYPT)
                .iter()
                .filter(|k| k.fingerprint != self.cert.fingerprint)
                .map(|k| (k.fingerprint, k.key.algorithm == target))
                .collect();
            if valid.iter().any(|(_, ok)| *ok) {
                for (fp, _) in valid.iter().filter(|(_, ok)| !*ok) {
                    self.revoke_subkey(
                        fp,
                        ReasonForRevocation::Superseded,
                        "superseded by a newer subkey",
                        at,
                    )?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::key::KeyBuilder;

    #[test]
    fn self_signatures_without_preferences_are_refreshed() {
        let at = |s: u64| UNIX_EPOCH + Duration::from_secs(1_750_000_000 + s);
        let mut tsk = KeyBuilder::new(Profile::Pqc).user_id("A").creation_time(at(0)).generate().unwrap();
        // Re-issue the primary's self-signatures without any preference subpacket.
        tsk.reissue_primary(to_timestamp(at(5)), &mut Rng::os(), |hashed, _| {
            hashed.retain(|s| matches!(s.data, SubpacketData::KeyFlags(_) | SubpacketData::PrimaryUserId(_)));
        })
        .unwrap();
        let t = to_timestamp(at(6));
        assert!(tsk.cert.direct_key_binding_at(t).is_some_and(is_deprecated));
        assert!(tsk.cert.user_id_binding_at(0, t).is_some_and(is_deprecated));

        // --no-added-capabilities leaves them alone; the default refreshes them.
        tsk.update(KeyUpdate::new().no_added_capabilities(true).at(at(10))).unwrap();
        assert!(tsk.cert.direct_key_binding_at(to_timestamp(at(11))).is_some_and(is_deprecated));
        tsk.update(KeyUpdate::new().at(at(10))).unwrap();
        let t = to_timestamp(at(11));
        let direct = tsk.cert.direct_key_binding_at(t).unwrap();
        assert!(!is_deprecated(direct));
        assert!(!is_deprecated(tsk.cert.user_id_binding_at(0, t).unwrap()));
        // Kept: the key flags; added: AES-256 first for the post-quantum subkey.
        assert_eq!(direct.key_flags(), Some(&[flags::CERTIFY | flags::SIGN][..]));
        assert_eq!(direct.preferred_symmetric().and_then(|p| p.first().copied()), Some(9));
    }

    #[test]
    fn a_features_subpacket_without_seipdv2_gets_the_bit() {
        let mut hashed = vec![sub(SubpacketData::Features(vec![0x01]))];
        add_missing_preferences(&mut hashed, &preferences(Profile::Rfc9580, false));
        assert_eq!(hashed.len(), 4);
        assert!(hashed.iter().any(|s| s.data == SubpacketData::Features(vec![0x09])));
    }
}
