//! Key generation ([`KeyBuilder`]).

use std::time::{Duration, SystemTime};

use crate::crypto::rng::Rng;
use crate::crypto::secret::Password;
use crate::crypto::{ed25519, mldsa_ed25519, mlkem_x25519, x25519};
use crate::error::{Error, Result, Unsupported};
use crate::key::cert::{Cert, SubkeyBinding, UserIdBinding};
use crate::key::parse::Secrets;
use crate::key::profile::Profile;
use crate::key::sig::{self, Signed, VerifyCache};
use crate::key::tsk::Tsk;
use crate::key::{flags, to_timestamp};
use crate::packet::key::{PublicKeyMaterial, PublicKeyPacket, SecretKeyData, SecretKeyMaterial};
use crate::packet::signature::SignatureType;
use crate::packet::subpacket::{Subpacket, SubpacketData};
use crate::packet::user_id::UserId;
use crate::signature::{base_subpackets, critical, sub};
use crate::types::Fingerprint;
use crate::types::{HashAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};

/// Features subpacket value: SEIPDv2 only (RFC 9580 §5.2.3.32). We never read SEIPDv1.
pub(super) const FEATURES: u8 = 0x08;

/// Builds a new v6 key.
///
/// ```
/// # fn main() -> sixpgp::Result<()> {
/// use sixpgp::{KeyBuilder, Profile};
/// let tsk = KeyBuilder::new(Profile::Rfc9580).user_id("Alice <alice@example.org>").generate()?;
/// assert!(tsk.cert().can_encrypt_at(std::time::SystemTime::now()));
/// # Ok(()) }
/// ```
#[derive(Debug)]
#[must_use]
pub struct KeyBuilder {
    profile: Profile,
    user_ids: Vec<String>,
    creation_time: Option<SystemTime>,
    validity: Option<Duration>,
    password: Option<Password>,
    signing_only: bool,
    rng: Option<Rng>,
}

impl KeyBuilder {
    /// A builder for a key of `profile`, with no user ID, no expiration and no password.
    pub fn new(profile: Profile) -> Self {
        Self {
            profile,
            user_ids: Vec::new(),
            creation_time: None,
            validity: None,
            password: None,
            signing_only: false,
            rng: None,
        }
    }

    /// Adds a user ID; the first one added is marked primary.
    pub fn user_id(mut self, user_id: impl Into<String>) -> Self {
        self.user_ids.push(user_id.into());
        self
    }

    /// Sets the creation time (default: now).
    pub fn creation_time(mut self, t: SystemTime) -> Self {
        self.creation_time = Some(t);
        self
    }

    /// Makes the key expire this long after its creation (default: never).
    pub fn validity(mut self, d: Duration) -> Self {
        self.validity = Some(d);
        self
    }

    /// Locks the secret key material with a password.
    pub fn password(mut self, password: impl Into<Password>) -> Self {
        self.password = Some(password.into());
        self
    }

    /// Generates no encryption subkey: the key can only sign and certify.
    pub fn signing_only(mut self, yes: bool) -> Self {
        self.signing_only = yes;
        self
    }

    /// Uses `rng` instead of the operating system's random number generator (for tests).
    pub fn rng(mut self, rng: impl rand_core::CryptoRng + Send + 'static) -> Self {
        self.rng = Some(Rng::from_boxed(Box::new(rng)));
        self
    }

    /// Generates the key.
    ///
    /// # Errors
    /// `InvalidArgument` if the validity period does not fit OpenPGP's 32-bit times.
    pub fn generate(self) -> Result<Tsk> {
        let mut rng = self.rng.unwrap_or_else(Rng::os);
        let created = to_timestamp(self.creation_time.unwrap_or_else(SystemTime::now));
        let expiration = match self.validity {
            None => None,
            Some(d) => Some(
                u32::try_from(d.as_secs())
                    .ok()
                    .filter(|s| *s > 0)
                    .ok_or(Error::InvalidArgument("validity must be between 1 s and 2^32 s"))?,
            ),
        };

        let (primary, primary_secret) = new_key(self.profile.primary_algorithm(), created, &mut rng)?;
        let fingerprint = Fingerprint::of(&primary);
        let pqc =
            !self.signing_only && self.profile.encryption_algorithm() == PublicKeyAlgorithm::MlKem768X25519;

        // Properties of the whole key go on the direct-key signature (RFC 9580 §5.2.3.10); the
        // same preferences are repeated on user ID self-signatures for older readers.
        let mut key_props = vec![sub(SubpacketData::KeyFlags(vec![flags::CERTIFY | flags::SIGN]))];
        key_props.extend(preferences(self.profile, pqc));
        if let Some(exp) = expiration {
            key_props.push(critical(SubpacketData::KeyExpirationTime(exp)));
        }

        let base = |extra: &[Subpacket]| -> Vec<Subpacket> {
            let mut v = base_subpackets(fingerprint.as_bytes(), created);
            v.extend_from_slice(extra);
            v
        };

        let direct = sig::make_over(
            &primary,
            &primary_secret,
            SignatureType::DirectKey,
            base(&key_props),
            Signed::Key(&primary),
            &mut rng,
        )?;

        let mut user_ids = Vec::new();
        for (i, uid) in self.user_ids.iter().enumerate() {
            let mut extra = key_props.clone();
            if i == 0 {
                extra.push(sub(SubpacketData::PrimaryUserId(true)));
            }
            let cert_sig = sig::make_over(
                &primary,
                &primary_secret,
                SignatureType::PositiveCertification,
                base(&extra),
                Signed::UserId(&primary, uid.as_bytes()),
                &mut rng,
            )?;
            user_ids
                .push(UserIdBinding { user_id: UserId::from(uid.as_bytes().to_vec()), sigs: vec![cert_sig] });
        }

        let mut subkeys = Vec::new();
        let mut subkey_secrets = Vec::new();
        if !self.signing_only {
            let (key, secret) = new_key(self.profile.encryption_algorithm(), created, &mut rng)?;
            let mut extra = vec![sub(SubpacketData::KeyFlags(vec![
                flags::ENCRYPT_COMMUNICATIONS | flags::ENCRYPT_STORAGE,
            ]))];
            if let Some(exp) = expiration {
                extra.push(critical(SubpacketData::KeyExpirationTime(exp)));
            }
            let binding = sig::make_over(
                &primary,
                &primary_secret,
                SignatureType::SubkeyBinding,
                base(&extra),
                Signed::Subkey(&primary, &key),
                &mut rng,
            )?;
            let fp = Fingerprint::of(&key);
            subkeys.push(SubkeyBinding { key, fingerprint: fp, sigs: vec![binding] });
            subkey_secrets.push(Some(SecretKeyData::Plain(secret)));
        }

        let cert = Cert {
            primary,
            fingerprint,
            primary_sigs: vec![direct],
            user_ids,
            subkeys,
            verified: VerifyCache::default(),
        };
        let mut tsk = Tsk {
            cert,
            secrets: Secrets { primary: SecretKeyData::Plain(primary_secret), subkeys: subkey_secrets },
        };
        if let Some(pw) = &self.password {
            tsk.lock_with_rng(pw, &mut rng)?;
        }
        Ok(tsk)
    }
}

/// The preference subpackets a key of `profile` advertises (symmetric ciphers, AEAD
/// ciphersuites, hashes, features); `pqc` if its encryption subkey is post-quantum.
pub(super) fn preferences(profile: Profile, pqc: bool) -> Vec<Subpacket> {
    vec![
        sub(SubpacketData::PreferredSymmetric(symmetric_prefs(pqc))),
        sub(SubpacketData::PreferredAead(
            profile.aead_preferences(pqc).into_iter().map(|(s, a)| (u8::from(s), u8::from(a))).collect(),
        )),
        sub(SubpacketData::PreferredHash(vec![
            u8::from(HashAlgorithm::Sha512),
            u8::from(HashAlgorithm::Sha256),
            u8::from(HashAlgorithm::Sha3_512),
            u8::from(HashAlgorithm::Sha3_256),
        ])),
        sub(SubpacketData::Features(vec![FEATURES])),
    ]
}

fn symmetric_prefs(pqc: bool) -> Vec<u8> {
    let (a, b) = if pqc {
        (SymmetricAlgorithm::Aes256, SymmetricAlgorithm::Aes128)
    } else {
        (SymmetricAlgorithm::Aes128, SymmetricAlgorithm::Aes256)
    };
    vec![u8::from(a), u8::from(b)]
}

/// Generates a key pair of `algorithm`.
///
/// # Errors
/// `Unsupported` for an algorithm this crate cannot generate; RNG failures.
pub(super) fn new_key(
    algorithm: PublicKeyAlgorithm,
    created: u32,
    rng: &mut Rng,
) -> Result<(PublicKeyPacket, SecretKeyMaterial)> {
    let (material, secret) = match algorithm {
        PublicKeyAlgorithm::Ed25519 => {
            let sk = ed25519::generate(rng)?;
            (PublicKeyMaterial::Ed25519(ed25519::public_key(&sk)), SecretKeyMaterial::Ed25519(sk))
        }
        PublicKeyAlgorithm::X25519 => {
            let sk = x25519::generate(rng)?;
            (PublicKeyMaterial::X25519(x25519::public_key(&sk)), SecretKeyMaterial::X25519(sk))
        }
        PublicKeyAlgorithm::MlDsa65Ed25519 => {
            let (ed, seed) = mldsa_ed25519::generate(rng)?;
            let (ed_pub, ml_pub) = mldsa_ed25519::public_key(&ed, &seed);
            (
                PublicKeyMaterial::MlDsa65Ed25519 { ed25519: ed_pub, mldsa: ml_pub },
                SecretKeyMaterial::MlDsa65Ed25519 { ed25519: ed, mldsa_seed: seed },
            )
        }
        PublicKeyAlgorithm::MlKem768X25519 => {
            let (x, seed) = mlkem_x25519::generate(rng)?;
            let (x_pub, ml_pub) = mlkem_x25519::public_key(&x, &seed);
            (
                PublicKeyMaterial::MlKem768X25519 { x25519: x_pub, mlkem: ml_pub },
                SecretKeyMaterial::MlKem768X25519 { x25519: x, mlkem_seed: seed },
            )
        }
        other => return Err(Error::Unsupported(Unsupported::PublicKeyAlgorithm(u8::from(other)))),
    };
    Ok((PublicKeyPacket { creation_time: created, algorithm, material }, secret))
}
