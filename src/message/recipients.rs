//! Recipients (RFC 9580 §5.1): which keys of each certificate a message is encrypted to
//! ([`Purpose`], evaluated once and kept in [`Recipients`]), and the key agreement with each,
//! spread over threads when there are many certificates. The encryption writer wraps the
//! session key with the agreed KEKs.

use std::sync::Arc;
use std::time::SystemTime;

use zeroize::Zeroizing;

use crate::crypto::rng::Rng;
use crate::crypto::secret::{Curve25519Secret, Secret32, SecretVec, SessionKey};
use crate::crypto::{mlkem_x25519, x25519};
use crate::error::{Error, KeyProblem, Result, Unsupported};
use crate::key::{Cert, flags, from_timestamp, to_timestamp};
use crate::packet::key::{PublicKeyMaterial, PublicKeyPacket};
use crate::packet::pkesk::{Pkesk, PkeskFields, Recipient};
use crate::pipeline::{self, policy};
use crate::types::{AeadAlgorithm, Fingerprint, PublicKeyAlgorithm, SymmetricAlgorithm};

/// Which encryption-capable keys of a certificate to encrypt to, by key flag
/// (RFC 9580 §5.2.3.29).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Purpose {
    /// Keys flagged for encrypting storage (0x08).
    Storage,
    /// Keys flagged for encrypting communications (0x04).
    Communications,
    /// Keys with either flag (the default).
    #[default]
    Any,
}

impl Purpose {
    fn flags(self) -> u8 {
        match self {
            Self::Storage => flags::ENCRYPT_STORAGE,
            Self::Communications => flags::ENCRYPT_COMMUNICATIONS,
            Self::Any => flags::ENCRYPT_STORAGE | flags::ENCRYPT_COMMUNICATIONS,
        }
    }
}

/// One recipient key chosen for a PKESK.
pub(super) struct RecipientKey {
    /// Whether the key is ML-KEM-768+X25519 (post-quantum).
    pub(super) pqc: bool,
    /// Its PKESK but for the wrapped session key.
    pub(super) agreed: Agreed,
}

/// What one recipient certificate contributes: its keys and its AEAD ciphersuite preferences.
pub(super) struct RecipientPlan {
    pub(super) keys: Vec<RecipientKey>,
    /// The Preferred AEAD Ciphersuites of the primary key's binding, in order.
    pub(super) preferences: Vec<(SymmetricAlgorithm, AeadAlgorithm)>,
}

/// The random octets drawn for each key a PKESK could go to: an X25519 ephemeral secret, then
/// (used by ML-KEM-768+X25519 only) the randomness m of ML-KEM.Encaps.
type KeyRandomness = [[u8; 32]; 2];

/// A recipient key whose key agreement (the costly part) is done: everything of its PKESK but
/// the wrapped session key, and the KEK to wrap it with.
pub(super) enum Agreed {
    X25519 { recipient: Recipient, ephemeral: [u8; 32], kek: Zeroizing<[u8; x25519::KEK_LEN]> },
    MlKem768X25519 { recipient: Recipient, encapsulated: mlkem_x25519::Encapsulated },
}

impl Agreed {
    /// The key agreement with `material` from the randomness drawn for this key.
    ///
    /// # Errors
    /// `Malformed` for an X25519 public key of low order.
    fn new(recipient: Recipient, material: &RecipientMaterial, [v, m]: &KeyRandomness) -> Result<Self> {
        let secret = Curve25519Secret::new(v);
        match material {
            RecipientMaterial::X25519(public) => {
                let (ephemeral, kek) = x25519::agree(public, &secret)?;
                Ok(Self::X25519 { recipient, ephemeral, kek })
            }
            RecipientMaterial::MlKem768X25519 { x25519, mlkem } => {
                let seed = Secret32::new(m);
                let encapsulated = mlkem_x25519::encapsulate(x25519, mlkem, &secret, &seed)?;
                Ok(Self::MlKem768X25519 { recipient, encapsulated })
            }
        }
    }

    /// The PKESK: `session_key` wrapped under the KEK.
    ///
    /// # Errors
    /// `InvalidArgument` for a session key that is not 16, 24 or 32 octets.
    pub(super) fn seal(&self, session_key: &SessionKey) -> Result<Pkesk> {
        Ok(match self {
            Self::X25519 { recipient, ephemeral, kek } => Pkesk {
                recipient: recipient.clone(),
                algorithm: PublicKeyAlgorithm::X25519,
                fields: PkeskFields::X25519 {
                    ephemeral: *ephemeral,
                    wrapped_key: x25519::wrap(kek, session_key.as_bytes())?,
                },
            },
            Self::MlKem768X25519 { recipient, encapsulated } => Pkesk {
                recipient: recipient.clone(),
                algorithm: PublicKeyAlgorithm::MlKem768X25519,
                fields: PkeskFields::MlKem768X25519 {
                    ecdh_ciphertext: encapsulated.ecdh_ciphertext,
                    mlkem_ciphertext: encapsulated.mlkem_ciphertext.clone(),
                    wrapped_key: mlkem_x25519::wrap(&encapsulated.kek, session_key.as_bytes())?,
                },
            },
        })
    }
}

/// The keys of `cert` a PKESK could go to, whatever their validity: those of an algorithm this
/// crate encrypts to. A [`KeyRandomness`] is drawn for each, in this order.
fn key_candidates(cert: &Cert) -> impl Iterator<Item = (Fingerprint, &PublicKeyPacket)> {
    cert.key_packets().filter(|(_, k)| is_candidate(k))
}

/// A recipient key's public key in the form its key agreements use.
#[derive(Debug, Clone)]
enum RecipientMaterial {
    X25519([u8; 32]),
    /// The ML-KEM key checked and unpacked once.
    MlKem768X25519 {
        x25519: [u8; 32],
        mlkem: Arc<mlkem_x25519::MlKemEncapsulationKey>,
    },
}

impl RecipientMaterial {
    /// The key agreement form of `material`, `None` for an algorithm this crate does not
    /// encrypt to.
    ///
    /// # Errors
    /// `Malformed` for an ML-KEM key that fails the input check of FIPS 203 §7.2.
    fn new(material: &PublicKeyMaterial) -> Result<Option<Self>> {
        Ok(match material {
            PublicKeyMaterial::X25519(public) => Some(Self::X25519(*public)),
            PublicKeyMaterial::MlKem768X25519 { x25519, mlkem } => Some(Self::MlKem768X25519 {
                x25519: *x25519,
                mlkem: Arc::new(mlkem_x25519::MlKemEncapsulationKey::new(mlkem)?),
            }),
            _ => None,
        })
    }
}

/// A recipient certificate evaluated at one time: the keys to encrypt to and its AEAD
/// ciphersuite preferences. What [`Recipients`] keeps, so that later messages skip the
/// self-signature checks and the unpacking of ML-KEM keys.
#[derive(Debug, Clone)]
struct Evaluated {
    keys: Vec<(Fingerprint, RecipientMaterial)>,
    /// The first time at which a key or binding signature the evaluation used expires, and
    /// which subkey it was (`None`: the primary key or its binding).
    expires: Option<(u32, Option<Fingerprint>)>,
    /// The Preferred AEAD Ciphersuites of the primary key's binding, in order.
    preferences: Vec<(SymmetricAlgorithm, AeadAlgorithm)>,
}

/// The keys of `cert` valid for `purpose` at `t` that this crate encrypts to, and its
/// preferences.
///
/// # Errors
/// `KeyUnusable` (naming `cert` and why) for a certificate with no valid encryption-capable key
/// for the purpose at `t`; `Unsupported(PublicKeyAlgorithm)` if all its such keys use unknown
/// algorithms; `Malformed` for an ML-KEM key that fails the input check of FIPS 203 §7.2.
fn evaluate(cert: &Cert, purpose: Purpose, t: u32) -> Result<Evaluated> {
    let valid = cert.keys_with_flags(t, purpose.flags());
    if valid.is_empty() {
        return Err(cert.no_key_error(t, purpose.flags()));
    }
    let mut unknown = None;
    let mut keys = Vec::new();
    let mut expires = cert.expires_after(&cert.fingerprint(), t).map(|end| (end, None));
    for k in valid {
        if let Some(material) = RecipientMaterial::new(&k.key.material)? {
            keys.push((k.fingerprint, material));
            if k.fingerprint != cert.fingerprint()
                && let Some(end) = cert.expires_after(&k.fingerprint, t)
                && expires.is_none_or(|(first, _)| end < first)
            {
                expires = Some((end, Some(k.fingerprint)));
            }
        } else {
            unknown = Some(k.key.algorithm);
        }
    }
    if keys.is_empty() {
        let alg = unknown.map_or(0, u8::from);
        return Err(Error::Unsupported(Unsupported::PublicKeyAlgorithm(alg)));
    }
    // The binding's signature was checked just above (the certificate remembers it).
    let preferences = cert
        .primary_binding_at(t)
        .and_then(|s| s.preferred_aead())
        .unwrap_or_default()
        .iter()
        .map(|&(s, a)| (SymmetricAlgorithm::from(s), AeadAlgorithm::from(a)))
        .collect();
    Ok(Evaluated { keys, expires, preferences })
}

impl Evaluated {
    /// The key agreements with each key, from the randomness `drawn` gives for its fingerprint.
    ///
    /// # Errors
    /// `Malformed` for an invalid public key; `Internal` if no randomness was drawn for
    /// a key.
    fn agree<'r>(
        &self,
        hidden: bool,
        mut drawn: impl FnMut(&Fingerprint) -> Option<&'r KeyRandomness>,
    ) -> Result<RecipientPlan> {
        let mut keys = Vec::with_capacity(self.keys.len());
        for (fingerprint, material) in &self.keys {
            let randomness = drawn(fingerprint).ok_or(Error::Internal("key randomness"))?;
            let recipient =
                if hidden { Recipient::Anonymous } else { Recipient::V6(*fingerprint.as_bytes()) };
            let pqc = matches!(material, RecipientMaterial::MlKem768X25519 { .. });
            keys.push(RecipientKey { pqc, agreed: Agreed::new(recipient, material, randomness)? });
        }
        Ok(RecipientPlan { keys, preferences: self.preferences.clone() })
    }
}

/// Recipient certificates evaluated once, at an explicit time, for encrypting many messages
/// to them ([`Encryptor::prepared`](crate::Encryptor::prepared)): a mailing list, a backup
/// tool. Checking a certificate's self-signatures costs more than encrypting a short message
/// to it; with `Recipients` each message pays only for its key agreements.
///
/// The evaluation holds for the time given to [`Recipients::new`] until the first of the keys
/// and binding signatures it used expires ([`Recipients::expiration_time`]): a message made
/// after that is refused with [`Error::KeyUnusable`] naming the certificate (and subkey) and
/// [`KeyProblem::Expired`](crate::KeyProblem::Expired). A revocation made later is not seen.
/// Evaluate again (for example daily, or when a certificate changes) to pick such changes up;
/// [`Recipients::evaluated_at`] says when this one was made.
///
/// ```
/// # fn main() -> sixpgp::Result<()> {
/// use std::sync::Arc;
/// use std::time::SystemTime;
/// use sixpgp::{Decryptor, Encryptor, KeyBuilder, Profile, Purpose, Recipients};
///
/// let keys = (0..3)
///     .map(|i| KeyBuilder::new(Profile::Rfc9580).user_id(format!("m{i} <m{i}@example.org>")).generate())
///     .collect::<sixpgp::Result<Vec<_>>>()?;
/// let list = Arc::new(Recipients::new(keys.iter().map(|k| k.to_cert()), SystemTime::now(), Purpose::Any)?);
/// for text in ["first post", "second post"] {
///     let message = Encryptor::default().prepared(Arc::clone(&list)).encrypt_bytes(text.as_bytes())?;
///     assert_eq!(Decryptor::new([&keys[2]]).decrypt_bytes(&message)?.0, text.as_bytes());
/// }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct Recipients {
    certs: Vec<(Fingerprint, Evaluated)>,
    evaluated_at: SystemTime,
}

impl Recipients {
    /// Evaluates `certs` at `at` for `purpose`: which of their keys a message would be
    /// encrypted to, and their preferences.
    ///
    /// # Errors
    /// As [`Encryptor::writer`](crate::Encryptor::writer) for each certificate: `KeyUnusable`
    /// naming the first one that has no valid encryption-capable key at `at`, and why;
    /// `Unsupported(PublicKeyAlgorithm)`.
    pub fn new<C: std::borrow::Borrow<Cert>>(
        certs: impl IntoIterator<Item = C>,
        at: SystemTime,
        purpose: Purpose,
    ) -> Result<Self> {
        let t = to_timestamp(at);
        let certs = certs
            .into_iter()
            .map(|c| {
                let cert = c.borrow();
                Ok((cert.fingerprint(), evaluate(cert, purpose, t)?))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { certs, evaluated_at: at })
    }

    /// The time the certificates were evaluated at.
    #[must_use]
    pub fn evaluated_at(&self) -> SystemTime {
        self.evaluated_at
    }

    /// The first time at which a key or binding signature the evaluation used expires (`None`:
    /// none expires). Messages made from then on are refused.
    #[must_use]
    pub fn expiration_time(&self) -> Option<SystemTime> {
        self.earliest_expiration().map(|(t, _, _)| from_timestamp(t))
    }

    /// The earliest expiration among the certificates: when, which certificate, which subkey.
    fn earliest_expiration(&self) -> Option<(u32, Fingerprint, Option<Fingerprint>)> {
        self.certs
            .iter()
            .filter_map(|(cert, e)| e.expires.map(|(t, subkey)| (t, *cert, subkey)))
            .min_by_key(|(t, _, _)| *t)
    }

    /// Checks that the evaluation still holds at the message time `t`.
    ///
    /// # Errors
    /// `KeyUnusable` with `Expired`, naming the certificate (and subkey) that expired first.
    pub(super) fn check_at(&self, t: u32) -> Result<()> {
        match self.earliest_expiration() {
            Some((end, cert, subkey)) if t >= end => Err(match subkey {
                Some(subkey) => Error::subkey_unusable(cert, subkey, KeyProblem::Expired),
                None => Error::key_unusable(cert, KeyProblem::Expired),
            }),
            _ => Ok(()),
        }
    }

    /// The primary fingerprints of the certificates, in order.
    pub fn certs(&self) -> impl Iterator<Item = Fingerprint> + '_ {
        self.certs.iter().map(|(f, _)| *f)
    }

    /// The keys messages are encrypted to, in order: (certificate, key) fingerprints.
    pub fn keys(&self) -> impl Iterator<Item = (Fingerprint, Fingerprint)> + '_ {
        self.certs.iter().flat_map(|(c, e)| e.keys.iter().map(move |(k, _)| (*c, *k)))
    }
}

/// Does this crate encrypt to `key`'s algorithm? (The algorithms [`RecipientMaterial::new`]
/// takes: randomness is drawn for these keys, and used for those.)
fn is_candidate(key: &PublicKeyPacket) -> bool {
    matches!(key.material, PublicKeyMaterial::X25519(_) | PublicKeyMaterial::MlKem768X25519 { .. })
}

/// The keys of `cert` to encrypt to, with their key agreements done, and its preferences,
/// at `t`. `randomness` holds a [`KeyRandomness`] for each of [`key_candidates`].
///
/// # Errors
/// As [`evaluate`]; `Malformed` for an invalid public key.
fn plan(
    cert: &Cert,
    purpose: Purpose,
    t: u32,
    hidden: bool,
    randomness: &[KeyRandomness],
) -> Result<RecipientPlan> {
    let evaluated = evaluate(cert, purpose, t)?;
    // The randomness of each candidate, in candidate order (which every valid key is in).
    let mut candidates = key_candidates(cert).zip(randomness);
    evaluated.agree(hidden, |fingerprint| {
        candidates.by_ref().find(|(c, _)| c.0 == *fingerprint).map(|(_, drawn)| drawn)
    })
}

/// Every recipient's [`RecipientPlan`], in recipient order. The randomness of the key
/// agreements is drawn from `rng` first, certificate by certificate; then, with many
/// recipients, the certificates are evaluated and their key agreements done on several
/// threads (the session key is wrapped afterwards, once the cipher is chosen).
///
/// # Errors
/// The first recipient's error, as [`plan`]; `Io` from the RNG.
pub(super) fn plans(
    certs: &[Arc<Cert>],
    prepared: &[Arc<Recipients>],
    purpose: Purpose,
    hidden: bool,
    threads: Option<usize>,
    t: u32,
    rng: &mut Rng,
) -> Result<Vec<RecipientPlan>> {
    /// One recipient: a certificate to evaluate, or one evaluated before.
    #[derive(Clone, Copy)]
    enum Work<'w> {
        Cert(&'w Cert),
        Prepared(&'w Evaluated),
    }
    let work: Vec<Work<'_>> = certs
        .iter()
        .map(|c| Work::Cert(c))
        .chain(prepared.iter().flat_map(|r| r.certs.iter().map(|(_, e)| Work::Prepared(e))))
        .collect();
    let counts: Vec<usize> = work
        .iter()
        .map(|w| match w {
            Work::Cert(c) => key_candidates(c).count(),
            Work::Prepared(e) => e.keys.len(),
        })
        .collect();
    let total = counts.iter().sum::<usize>().saturating_mul(size_of::<KeyRandomness>());
    let mut randomness = SecretVec::zeroed(total);
    rng.fill(&mut randomness)?;
    let (halves, _) = randomness.as_chunks::<32>();
    let (mut rest, _) = halves.as_chunks::<2>();
    let mut jobs = Vec::with_capacity(work.len());
    for (w, n) in work.into_iter().zip(counts) {
        let (mine, others) = rest.split_at(n.min(rest.len()));
        jobs.push((w, mine));
        rest = others;
    }
    let threads = policy::recipients::threads(threads, jobs.len());
    pipeline::map_in_order(threads, 1, &jobs, |&(w, randomness)| match w {
        Work::Cert(cert) => plan(cert, purpose, t, hidden, randomness),
        Work::Prepared(evaluated) => {
            let mut drawn = randomness.iter();
            evaluated.agree(hidden, |_| drawn.next())
        }
    })
    .into_iter()
    .collect()
}
