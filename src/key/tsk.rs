//! Transferable secret keys (RFC 9580 §10.2) and their password protection (§5.5.3).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.3>

use std::io::{self, BufRead, Write};
use std::sync::Arc;

use zeroize::Zeroizing;

use crate::armor::ArmorKind;
use crate::crypto::aead::KeyedAead;
use crate::crypto::rng::Rng;
use crate::crypto::secret::{Password, SecretVec};
use crate::crypto::{cfb, ed25519, hkdf, mldsa_ed25519, mlkem_x25519, s2k, x25519};
use crate::error::{Error, KeyProblem, Limit, Result, Unsupported};
use crate::key::cert::{Cert, armored, write_packet};
use crate::key::parse::{self, Secrets};
use crate::limits::Limits;
use crate::packet::Serialize;
use crate::packet::header::Tag;
use crate::packet::key::{
    EncryptedSecret, PublicKeyMaterial, PublicKeyPacket, SecretKeyData, SecretKeyMaterial, secret_key_len,
    write_secret_key,
};
use crate::packet::s2k::S2k;
use crate::types::Fingerprint;
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// S2K usage octet for AEAD protection (RFC 9580 §3.7.2.1).
const USAGE_AEAD: u8 = 253;
/// S2K usage octet for CFB protection with a SHA-1 check (RFC 9580 §3.7.2.1).
const USAGE_CFB: u8 = 254;

/// Argon2 parameters for keys we lock: RFC 9580 §3.7.1.4's second recommended option
/// (t = 3, p = 4, 64 MiB), which opens in well under a second.
const LOCK_ARGON2: (u8, u8, u8) = (3, 4, 16);

/// A transferable secret key: a certificate together with its secret key material, which may
/// be locked with a password.
///
/// Secret material is wiped from memory when the `Tsk` is dropped and is never printed by
/// `Debug`. Every secret is checked against its public key before it can be used: unprotected
/// material when the key is parsed, protected material when [`Tsk::unlock`] decrypts it.
///
/// A `Tsk` is `Clone`: the copy holds its own copy of the secret seeds, wiped on its own drop,
/// and shares with the original what is derived from them (expanded ML-KEM and ML-DSA keys,
/// the Ed25519 signing key) and the outcomes of the self-signature checks, so that a copy
/// costs no derivation or check again. The builders take `Tsk`, `Arc<Tsk>` or `&Tsk` (which
/// is cloned); an [`Arc`] shares one key without copying even the seeds.
#[derive(Debug, Clone)]
pub struct Tsk {
    pub(crate) cert: Cert,
    pub(crate) secrets: Secrets,
}

impl From<&Tsk> for Arc<Tsk> {
    /// Copies the key (see [`Tsk`]'s note on sharing).
    fn from(tsk: &Tsk) -> Self {
        Arc::new(tsk.clone())
    }
}

impl Tsk {
    /// Parses exactly one secret key, armored or binary.
    ///
    /// Unprotected secret key material (S2K usage 0) is checked against its public key here;
    /// protected material is checked when [`Tsk::unlock`] decrypts it. Either way no secret is
    /// used before it has been found to belong to its key.
    ///
    /// # Errors
    /// `Malformed`/`Truncated` for broken input (including unprotected secret key material that
    /// does not match its public key), `Unsupported` for a non-v6 key, and `InvalidArgument` if
    /// the input holds a certificate without secrets, no key, or several.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_reader(bytes)
    }

    /// Parses exactly one secret key, armored or binary, from a stream.
    ///
    /// # Errors
    /// As [`Tsk::from_bytes`].
    pub fn from_reader(reader: impl BufRead) -> Result<Self> {
        let mut all = Self::read_all(reader)?;
        match all.len() {
            1 => all.pop().ok_or(Error::InvalidArgument("no secret key found")),
            0 => Err(Error::InvalidArgument("no secret key found")),
            _ => Err(Error::InvalidArgument("more than one secret key found")),
        }
    }

    /// Parses every secret key in a stream: binary, or any number of armored blocks one after
    /// the other (see [`Cert::read_all`]).
    ///
    /// # Errors
    /// As [`Tsk::from_bytes`]; a certificate without secret material is an error.
    pub fn read_all(reader: impl BufRead) -> Result<Vec<Self>> {
        Self::read_all_with_limits(reader, &Limits::default())
    }

    /// [`Tsk::read_all`] with explicit resource limits.
    ///
    /// # Errors
    /// As [`Tsk::read_all`], and `LimitExceeded` when the input goes past `limits`.
    pub fn read_all_with_limits(reader: impl BufRead, limits: &Limits) -> Result<Vec<Self>> {
        parse::parse_keyring(reader, limits)?
            .into_iter()
            .map(|k| match k.secrets {
                Some(secrets) => {
                    let tsk = Self { cert: k.cert, secrets };
                    tsk.check_plain_secrets()?;
                    Ok(tsk)
                }
                None => Err(Error::InvalidArgument("a certificate is not a secret key")),
            })
            .collect()
    }

    /// Checks that every unprotected secret (S2K usage 0) belongs to its public key, as
    /// [`Tsk::unlock`] checks a protected one when it decrypts it: a corrupted or substituted
    /// secret would otherwise make bad signatures, or fail to decrypt, with no clear cause.
    fn check_plain_secrets(&self) -> Result<()> {
        let subkeys =
            self.cert.subkeys.iter().map(|s| &s.key).zip(self.secrets.subkeys.iter().map(Option::as_ref));
        for (public, data) in
            std::iter::once((&self.cert.primary, Some(&self.secrets.primary))).chain(subkeys)
        {
            // Material of an algorithm this crate does not implement can be neither checked nor
            // used: it is kept verbatim.
            if let Some(SecretKeyData::Plain(material)) = data
                && !matches!(material, SecretKeyMaterial::Unknown(_))
            {
                check_secret_matches(public, material)?;
            }
        }
        Ok(())
    }

    /// The certificate part.
    #[must_use]
    pub fn cert(&self) -> &Cert {
        &self.cert
    }

    /// The certificate, without any secret material.
    #[must_use]
    pub fn to_cert(&self) -> Cert {
        self.cert.clone()
    }

    /// The primary key's fingerprint.
    #[must_use]
    pub fn fingerprint(&self) -> Fingerprint {
        self.cert.fingerprint
    }

    fn all_secrets(&self) -> impl Iterator<Item = &SecretKeyData> + '_ {
        std::iter::once(&self.secrets.primary).chain(self.secrets.subkeys.iter().flatten())
    }

    /// True if any secret key packet is password-protected. A secret under a protection this
    /// crate does not implement (see [`Tsk::unlock_with_limits`]) does not count: no password
    /// opens it, and using it is `Unsupported(SecretKeyProtection)`.
    #[must_use]
    pub fn is_locked(&self) -> bool {
        self.all_secrets().any(|s| matches!(s, SecretKeyData::Encrypted(_)))
    }

    /// The fingerprint of the first key whose secret is locked, if any.
    fn locked_key(&self) -> Option<Fingerprint> {
        let subkeys = self
            .cert
            .subkeys
            .iter()
            .zip(&self.secrets.subkeys)
            .filter_map(|(s, d)| Some((s.fingerprint, d.as_ref()?)));
        std::iter::once((self.cert.fingerprint, &self.secrets.primary))
            .chain(subkeys)
            .find(|(_, d)| matches!(d, SecretKeyData::Encrypted(_)))
            .map(|(fp, _)| fp)
    }

    /// Unlocks every locked secret key packet that `password` opens, in place, and returns how
    /// many it opened, under the default [`Limits`] (see [`Tsk::unlock_with_limits`]). Packets
    /// it does not open stay locked; check [`Tsk::is_locked`].
    ///
    /// # Errors
    /// `BadPassword` if the key has locked packets and `password` opens none of them; as
    /// [`Tsk::unlock_with_limits`].
    pub fn unlock(&mut self, password: &Password) -> Result<usize> {
        self.unlock_with_limits(password, &Limits::default())
    }

    /// [`Tsk::unlock`] with explicit limits on the S2K work a key may ask for.
    ///
    /// Both protections of RFC 9580 §3.7.2.1 for v6 keys are read: AEAD (S2K usage 253) and
    /// CFB with a SHA-1 check (254); [`Tsk::lock`] writes only the first. A packet whose
    /// protection this crate does not implement (S2K usage 255, a bare cipher ID, 252, an
    /// unknown cipher or S2K type), or whose decrypted material does not match its public key,
    /// stays locked: it does not keep the other packets from opening.
    ///
    /// Every parameter of a packet's protection is checked before its S2K runs, and at most
    /// [`Limits::max_unlock_derivations`] S2K runs are attempted per call.
    ///
    /// # Errors
    /// `BadPassword` if `password` was tried on locked packets and opened none;
    /// `Unsupported`/`Malformed` if no packet could be tried at all, for the first such
    /// packet's reason (a protection this crate does not implement is never reported as a
    /// wrong password);
    /// `LimitExceeded` if a packet's S2K parameters exceed `limits` (checked before anything is
    /// allocated), or `LimitExceeded(UnlockDerivations)` when one more packet would need an S2K
    /// run past [`Limits::max_unlock_derivations`]. The key is left as it was before the
    /// failing packet: the packets opened before it stay open.
    pub fn unlock_with_limits(&mut self, password: &Password, limits: &Limits) -> Result<usize> {
        let mut opened = 0usize;
        let mut attempt = Attempt { password, limits, derivations: 0, skipped: None };
        if let Some(m) = attempt.unlock_or_skip(&self.cert.primary, Tag::SecretKey, &self.secrets.primary)? {
            self.secrets.primary = SecretKeyData::Plain(m);
            opened = opened.saturating_add(1);
        }
        for (sub, secret) in self.cert.subkeys.iter().zip(self.secrets.subkeys.iter_mut()) {
            let Some(data) = secret else { continue };
            if let Some(m) = attempt.unlock_or_skip(&sub.key, Tag::SecretSubkey, data)? {
                *data = SecretKeyData::Plain(m);
                opened = opened.saturating_add(1);
            }
        }
        if opened == 0 {
            if attempt.derivations > 0 {
                return Err(Error::BadPassword);
            }
            if let Some(why) = attempt.skipped {
                return Err(why);
            }
        }
        Ok(opened)
    }

    /// Locks every unlocked secret key packet with `password` (AEAD protection with AES-256-OCB
    /// and Argon2, RFC 9580 §3.7.2.1), using the operating system's random number generator.
    ///
    /// # Errors
    /// `KeyLocked` if some packet is still locked (unlock it first: a key is locked with one
    /// password only).
    pub fn lock(&mut self, password: &Password) -> Result<()> {
        self.lock_with_rng(password, &mut Rng::os())
    }

    pub(super) fn lock_with_rng(&mut self, password: &Password, rng: &mut Rng) -> Result<()> {
        if let Some(fingerprint) = self.locked_key() {
            return Err(Error::key_locked(fingerprint));
        }
        if let SecretKeyData::Plain(m) = &self.secrets.primary {
            let enc = lock_one(&self.cert.primary, Tag::SecretKey, m, password, rng)?;
            self.secrets.primary = SecretKeyData::Encrypted(enc);
        }
        for (sub, secret) in self.cert.subkeys.iter().zip(self.secrets.subkeys.iter_mut()) {
            if let Some(SecretKeyData::Plain(m)) = secret {
                let enc = lock_one(&sub.key, Tag::SecretSubkey, m, password, rng)?;
                *secret = Some(SecretKeyData::Encrypted(enc));
            }
        }
        Ok(())
    }

    /// The secret material of the key with `fingerprint`, if present and unlocked.
    pub(crate) fn secret_for(&self, fingerprint: &Fingerprint) -> Result<&SecretKeyMaterial> {
        let data = if *fingerprint == self.cert.fingerprint {
            Some(&self.secrets.primary)
        } else {
            self.cert
                .subkeys
                .iter()
                .zip(self.secrets.subkeys.iter())
                .find(|(s, _)| s.fingerprint == *fingerprint)
                .and_then(|(_, d)| d.as_ref())
        };
        match data {
            Some(SecretKeyData::Plain(m)) => Ok(m),
            Some(SecretKeyData::Encrypted(_)) => Err(Error::key_locked(*fingerprint)),
            Some(SecretKeyData::Unsupported(u)) => {
                Err(Error::Unsupported(Unsupported::SecretKeyProtection(u.usage)))
            }
            None if *fingerprint == self.cert.fingerprint => {
                Err(Error::key_unusable(*fingerprint, KeyProblem::NoSecret))
            }
            None => Err(Error::subkey_unusable(self.cert.fingerprint, *fingerprint, KeyProblem::NoSecret)),
        }
    }

    /// Writes the secret key in binary form.
    ///
    /// # Errors
    /// Any I/O error of `w`.
    pub fn write_to(&self, w: &mut (impl Write + ?Sized)) -> Result<()> {
        let (p, ps) = (&self.cert.primary, &self.secrets.primary);
        write_packet(Tag::SecretKey, secret_key_len(p, ps), w, |w| write_secret_key(p, ps, w))?;
        self.cert.write_components(w, |i, s, w| {
            match self.secrets.subkeys.get(i).and_then(Option::as_ref) {
                Some(secret) => write_packet(Tag::SecretSubkey, secret_key_len(&s.key, secret), w, |w| {
                    write_secret_key(&s.key, secret, w)
                }),
                None => write_packet(Tag::PublicSubkey, s.key.encoded_len(), w, |w| s.key.write_to(w)),
            }
        })?;
        Ok(())
    }

    /// The secret key in binary form, in a buffer that is wiped on drop.
    #[must_use]
    pub fn to_vec(&self) -> Zeroizing<Vec<u8>> {
        // The length first, so that the buffer is allocated once: a reallocation would leave a
        // copy of the secret key unwiped.
        let mut len = Length(0);
        let _ = self.write_to(&mut len);
        let mut out = Zeroizing::new(Vec::with_capacity(len.0));
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut *out);
        out
    }

    /// The secret key as an ASCII-armored `PGP PRIVATE KEY BLOCK`, in a buffer wiped on drop.
    #[must_use]
    pub fn to_armored(&self) -> Zeroizing<String> {
        Zeroizing::new(armored(ArmorKind::PrivateKey, &self.to_vec()))
    }
}

/// The packet type octet in OpenPGP format, as it enters the AEAD key derivation.
fn tag_octet(tag: Tag) -> u8 {
    0xc0 | u8::from(tag)
}

/// Checks every parameter of an AEAD protection (cipher, mode, nonce length, S2K against
/// `limits`) without deriving anything, and returns the key length: a protection that would
/// be refused is refused before the S2K, which may cost seconds and gigabytes, has run.
fn check_protection(
    symmetric: SymmetricAlgorithm,
    aead: AeadAlgorithm,
    s2k: &S2k,
    iv_len: usize,
    limits: &Limits,
) -> Result<usize> {
    let key_len = symmetric
        .key_len()
        .ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(u8::from(symmetric))))?;
    if KeyedAead::check(symmetric, aead)? != iv_len {
        return Err(Error::malformed("secret key: AEAD nonce length"));
    }
    s2k::check(s2k, key_len, limits)?;
    Ok(key_len)
}

/// Derives the AEAD key-encryption key (RFC 9580 §3.7.2.1, usage 253):
/// HKDF-SHA256(ikm = S2K output, salt = none, info = type octet ‖ version ‖ cipher ‖ AEAD).
/// The caller has checked the parameters with [`check_protection`].
fn protection_kek(
    tag: Tag,
    symmetric: SymmetricAlgorithm,
    aead: AeadAlgorithm,
    s2k: &S2k,
    password: &[u8],
    key_len: usize,
    limits: &Limits,
) -> Result<SecretVec> {
    let ikm = s2k::derive(s2k, password, key_len, limits)?;
    let info = [tag_octet(tag), 6, u8::from(symmetric), u8::from(aead)];
    let mut kek = SecretVec::zeroed(key_len);
    hkdf::sha256(&[], &ikm, &info, &mut kek)?;
    Ok(kek)
}

/// Associated data: the type octet, then the public key packet body.
fn protection_ad(public: &PublicKeyPacket, tag: Tag) -> Vec<u8> {
    let mut ad = vec![tag_octet(tag)];
    ad.extend_from_slice(&public.to_vec());
    ad
}

/// One password tried on the packets of a key.
struct Attempt<'a> {
    password: &'a Password,
    limits: &'a Limits,
    /// S2K runs so far, counted against the limit.
    derivations: usize,
    /// Why the first packet that could not be tried was not.
    skipped: Option<Error>,
}

impl Attempt<'_> {
    /// [`Attempt::try_unlock`], but a packet that cannot be opened for a reason other than a
    /// resource limit (an unimplemented protection, corrupted material) just stays locked, and
    /// the first such reason is kept.
    fn unlock_or_skip(
        &mut self,
        public: &PublicKeyPacket,
        tag: Tag,
        data: &SecretKeyData,
    ) -> Result<Option<SecretKeyMaterial>> {
        match self.try_unlock(public, tag, data) {
            Err(e @ (Error::Unsupported(_) | Error::Malformed(_))) => {
                let _ = self.skipped.get_or_insert(e);
                Ok(None)
            }
            other => other,
        }
    }

    /// Tries the password on one secret key packet; `Ok(None)` if it is not locked or the
    /// password does not open it.
    fn try_unlock(
        &mut self,
        public: &PublicKeyPacket,
        tag: Tag,
        data: &SecretKeyData,
    ) -> Result<Option<SecretKeyMaterial>> {
        let enc = match data {
            SecretKeyData::Plain(_) => return Ok(None),
            SecretKeyData::Unsupported(u) => {
                return Err(Error::Unsupported(Unsupported::SecretKeyProtection(u.usage)));
            }
            SecretKeyData::Encrypted(enc) => enc,
        };
        let plain = match (enc.usage, enc.aead) {
            (USAGE_AEAD, Some(aead)) => self.open_aead(public, tag, enc, aead)?,
            (USAGE_CFB, _) => self.open_cfb(enc)?,
            (usage, _) => return Err(Error::Unsupported(Unsupported::SecretKeyProtection(usage))),
        };
        let Some(plain) = plain else { return Ok(None) };
        let material = SecretKeyMaterial::parse(public.algorithm, &plain)?;
        check_secret_matches(public, &material)?;
        Ok(Some(material))
    }

    /// Counts one more S2K run against the limit.
    fn derivation(&mut self) -> Result<()> {
        if self.derivations >= self.limits.max_unlock_derivations() {
            return Err(Error::LimitExceeded(Limit::UnlockDerivations));
        }
        self.derivations = self.derivations.saturating_add(1);
        Ok(())
    }

    /// Usage 253: AEAD under a key derived with HKDF from the S2K output.
    fn open_aead(
        &mut self,
        public: &PublicKeyPacket,
        tag: Tag,
        enc: &EncryptedSecret,
        aead: AeadAlgorithm,
    ) -> Result<Option<SecretVec>> {
        let key_len = check_protection(enc.symmetric, aead, &enc.s2k, enc.iv.len(), self.limits)?;
        let split = enc
            .ciphertext
            .len()
            .checked_sub(16)
            .ok_or(Error::malformed("secret key: encrypted material shorter than its tag"))?;
        self.derivation()?;
        let password = self.password.as_bytes();
        let kek = protection_kek(tag, enc.symmetric, aead, &enc.s2k, password, key_len, self.limits)?;
        let cipher = KeyedAead::new(enc.symmetric, aead, &kek)?;
        let (ct, tag_bytes) = enc.ciphertext.split_at(split);
        let tag_arr: [u8; 16] = tag_bytes.try_into().map_err(|_| Error::malformed("secret key: tag"))?;
        let mut buf = SecretVec::new(ct.to_vec());
        if cipher.open(&enc.iv, &protection_ad(public, tag), &mut buf, &tag_arr).is_err() {
            return Ok(None);
        }
        Ok(Some(buf))
    }

    /// Usage 254: CFB under the S2K output itself, with a SHA-1 check (RFC 9580 §3.7.2.1).
    fn open_cfb(&mut self, enc: &EncryptedSecret) -> Result<Option<SecretVec>> {
        // "Argon2 is only used with AEAD (S2K usage octet 253). An implementation MUST NOT
        // create and MUST reject as malformed any secret key packet where the S2K usage octet
        // is not AEAD (253) and the S2K specifier type is Argon2."
        if matches!(enc.s2k, S2k::Argon2 { .. }) {
            return Err(Error::malformed("secret key: Argon2 S2K without AEAD protection"));
        }
        let key_len = enc
            .symmetric
            .key_len()
            .ok_or(Error::Unsupported(Unsupported::SymmetricAlgorithm(u8::from(enc.symmetric))))?;
        s2k::check(&enc.s2k, key_len, self.limits)?;
        self.derivation()?;
        let key = s2k::derive(&enc.s2k, self.password.as_bytes(), key_len, self.limits)?;
        cfb::open_sha1_checked(enc.symmetric, &key, &enc.iv, &enc.ciphertext)
    }
}

/// Encrypts one secret key packet's material with a fresh salt and nonce.
fn lock_one(
    public: &PublicKeyPacket,
    tag: Tag,
    material: &SecretKeyMaterial,
    password: &Password,
    rng: &mut Rng,
) -> Result<EncryptedSecret> {
    let symmetric = SymmetricAlgorithm::Aes256;
    let aead = AeadAlgorithm::Ocb;
    let mut salt = [0u8; 16];
    rng.fill(&mut salt)?;
    let (t, p, m) = LOCK_ARGON2;
    let s2k = S2k::Argon2 { salt, t, p, m };
    let mut iv = vec![0u8; aead.nonce_len().unwrap_or(15)];
    let limits = Limits::default();
    let key_len = check_protection(symmetric, aead, &s2k, iv.len(), &limits)?;
    rng.fill(&mut iv)?;
    let kek = protection_kek(tag, symmetric, aead, &s2k, password.as_bytes(), key_len, &limits)?;
    let cipher = KeyedAead::new(symmetric, aead, &kek)?;
    let mut buf = SecretVec::with_capacity(material.encoded_len());
    material.write_to(&mut buf)?;
    let tag_bytes = cipher.seal(&iv, &protection_ad(public, tag), &mut buf)?;
    let mut ciphertext = buf.to_vec();
    ciphertext.extend_from_slice(&tag_bytes);
    Ok(EncryptedSecret { usage: USAGE_AEAD, symmetric, aead: Some(aead), s2k, iv, ciphertext })
}

/// A sink that counts the octets written to it.
struct Length(usize);

impl Write for Length {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 = self.0.saturating_add(buf.len());
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Checks that secret material belongs to the public key (catches a corrupted or substituted
/// secret before it is used).
fn check_secret_matches(public: &PublicKeyPacket, secret: &SecretKeyMaterial) -> Result<()> {
    let ok = match (&public.material, secret) {
        (PublicKeyMaterial::Ed25519(p), SecretKeyMaterial::Ed25519(s)) => ed25519::public_key(s) == *p,
        (PublicKeyMaterial::X25519(p), SecretKeyMaterial::X25519(s)) => x25519::public_key(s) == *p,
        (
            PublicKeyMaterial::MlDsa65Ed25519 { ed25519: ep, mldsa: mp },
            SecretKeyMaterial::MlDsa65Ed25519 { ed25519: es, mldsa_seed },
        ) => {
            let (e, m) = mldsa_ed25519::public_key(es, mldsa_seed);
            e == *ep && m == *mp
        }
        (
            PublicKeyMaterial::MlKem768X25519 { x25519: xp, mlkem: mp },
            SecretKeyMaterial::MlKem768X25519 { x25519: xs, mlkem_seed },
        ) => {
            let (x, m) = mlkem_x25519::public_key(xs, mlkem_seed);
            x == *xp && m == *mp
        }
        _ => false,
    };
    if ok { Ok(()) } else { Err(Error::malformed("secret key material does not match the public key")) }
}
