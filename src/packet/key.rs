//! Public-Key, Public-Subkey, Secret-Key and Secret-Subkey packets, version 6
//! (RFC 9580 §5.5).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.5>

use std::fmt;
use std::io::{self, Write};

use crate::crypto::secret::SecretVec;
use crate::crypto::secret::{Curve25519Secret, Ed25519Secret, MlDsaSeed, MlKemSeed};
use crate::error::{Error, Result, Unsupported};
use crate::packet::header::Tag;
use crate::packet::reader::Reader;
use crate::packet::s2k::S2k;
use crate::packet::{PacketBody, Serialize};
use crate::types::{AeadAlgorithm, PublicKeyAlgorithm, SymmetricAlgorithm};

/// ML-KEM-768 encapsulation key size.
const MLKEM768_PUBLIC_LEN: usize = 1184;
/// ML-DSA-65 verifying key size.
const MLDSA65_PUBLIC_LEN: usize = 1952;

/// The only key packet version this crate implements.
const KEY_VERSION: u8 = 6;
/// S2K usage octet: the secret material is in the clear.
const USAGE_PLAIN: u8 = 0;
/// S2K usage octet: AEAD protection (RFC 9580 §3.7.2.1).
const USAGE_AEAD: u8 = 253;
/// S2K usage octet: CFB protection with a SHA-1 check (RFC 9580 §3.7.2.1).
const USAGE_CFB: u8 = 254;

/// The body of a v6 public key or public subkey packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PublicKeyPacket {
    /// Seconds since the epoch.
    pub(crate) creation_time: u32,
    pub(crate) algorithm: PublicKeyAlgorithm,
    pub(crate) material: PublicKeyMaterial,
}

/// Algorithm-specific public key material (RFC 9580 §5.5.5, RFC 9980).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PublicKeyMaterial {
    X25519([u8; 32]),
    Ed25519([u8; 32]),
    MlDsa65Ed25519 {
        ed25519: [u8; 32],
        mldsa: Box<[u8; MLDSA65_PUBLIC_LEN]>,
    },
    MlKem768X25519 {
        x25519: [u8; 32],
        mlkem: Box<[u8; MLKEM768_PUBLIC_LEN]>,
    },
    /// Key material of an algorithm this crate does not implement, kept verbatim.
    Unknown(Vec<u8>),
}

/// The body of a v6 secret key or secret subkey packet.
#[derive(Debug)]
pub(crate) struct SecretKeyPacket {
    pub(crate) public: PublicKeyPacket,
    pub(crate) secret: SecretKeyData,
}

/// The secret part of a secret key packet.
#[derive(Debug, Clone)]
pub(crate) enum SecretKeyData {
    /// S2K usage 0: the material in the clear (v6 has no checksum).
    Plain(SecretKeyMaterial),
    /// S2K usage 253 (AEAD) or 254 (CFB): protected by a password.
    Encrypted(EncryptedSecret),
    /// Any other S2K usage (255 MalleableCFB, a bare cipher ID, 252 for a secret held
    /// elsewhere): kept verbatim, so that the key still reads, round-trips and gives its
    /// certificate, but never unlocked.
    Unsupported(UnsupportedSecret),
}

/// Secret key material under a protection this crate does not implement.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct UnsupportedSecret {
    /// The S2K usage octet.
    pub(crate) usage: u8,
    /// Everything after the usage octet, as read.
    rest: Vec<u8>,
}

/// The usage and the size only, as for [`EncryptedSecret`].
impl fmt::Debug for UnsupportedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UnsupportedSecret")
            .field("usage", &self.usage)
            .field("rest", &format_args!("[{} octets, redacted]", self.rest.len()))
            .finish()
    }
}

/// Password-protected secret key material (RFC 9580 §3.7.2.1, §5.5.3).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct EncryptedSecret {
    /// The S2K usage octet: 253 (AEAD) or 254 (CFB with a SHA-1 check, read only).
    pub(crate) usage: u8,
    pub(crate) symmetric: SymmetricAlgorithm,
    /// Present when `usage == 253`.
    pub(crate) aead: Option<AeadAlgorithm>,
    pub(crate) s2k: S2k,
    /// The AEAD nonce (usage 253) or CFB IV (usage 254).
    pub(crate) iv: Vec<u8>,
    /// The encrypted material, including the AEAD tag.
    pub(crate) ciphertext: Vec<u8>,
}

/// The algorithms and sizes only: the salt (in `s2k`), the IV and the encrypted material are
/// what an offline attack on the password needs, and do not belong in a log line.
impl fmt::Debug for EncryptedSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncryptedSecret")
            .field("usage", &self.usage)
            .field("symmetric", &self.symmetric)
            .field("aead", &self.aead)
            .field("s2k", &self.s2k)
            .field("iv", &format_args!("[{} octets, redacted]", self.iv.len()))
            .field("ciphertext", &format_args!("[{} octets, redacted]", self.ciphertext.len()))
            .finish()
    }
}

/// Algorithm-specific secret key material. `Clone` only so that a [`Tsk`](crate::Tsk) can be
/// copied; every copy wipes itself on drop.
#[derive(Clone)]
pub(crate) enum SecretKeyMaterial {
    X25519(Curve25519Secret),
    Ed25519(Ed25519Secret),
    MlDsa65Ed25519 {
        ed25519: Ed25519Secret,
        mldsa_seed: MlDsaSeed,
    },
    MlKem768X25519 {
        x25519: Curve25519Secret,
        mlkem_seed: MlKemSeed,
    },
    /// Secret material of an algorithm this crate does not implement, kept verbatim.
    Unknown(SecretVec),
}

impl fmt::Debug for SecretKeyMaterial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print secret octets, not even for unknown algorithms.
        f.write_str(match self {
            Self::X25519(_) => "X25519([redacted])",
            Self::Ed25519(_) => "Ed25519([redacted])",
            Self::MlDsa65Ed25519 { .. } => "MlDsa65Ed25519([redacted])",
            Self::MlKem768X25519 { .. } => "MlKem768X25519([redacted])",
            Self::Unknown(_) => "Unknown([redacted])",
        })
    }
}

/// Writes a length as a 4-octet big-endian number.
///
/// # Errors
/// `InvalidInput` if the length does not fit in 32 bits; the writer's errors.
pub(super) fn write_u32_len(len: usize, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
    let len = u32::try_from(len)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "field longer than 2^32 octets"))?;
    w.write_all(&len.to_be_bytes())
}

/// Writes a length as one octet, or fails if it does not fit.
fn write_u8_len(len: usize, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
    let len = u8::try_from(len)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "field longer than 255 octets"))?;
    w.write_all(&[len])
}

/// Public-key algorithms whose key material starts with a curve OID (RFC 9580 §5.5.5.4-6):
/// ECDH (18), ECDSA (19), EdDSALegacy (22).
const CURVE_OID_ALGORITHMS: [u8; 3] = [18, 19, 22];
/// The Ed25519Legacy curve OID, 1.3.6.1.4.1.11591.15.1, without its DER tag and length
/// (RFC 9580 §9.2).
const ED25519_LEGACY_OID: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0xda, 0x47, 0x0f, 0x01];
/// The Curve25519Legacy curve OID, 1.3.6.1.4.1.3029.1.5.1 (RFC 9580 §9.2).
const CURVE25519_LEGACY_OID: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x97, 0x55, 0x01, 0x05, 0x01];

/// Refuses key material of an algorithm this crate does not implement if it names one of the
/// deprecated curve OIDs: "Implementations MUST NOT accept or generate version 6 key material
/// using the deprecated OIDs" (RFC 9580 §9.2). Other unknown material passes through.
///
/// <https://www.rfc-editor.org/rfc/rfc9580#section-9.2>
fn refuse_legacy_curve(algorithm: u8, material: &[u8]) -> Result<()> {
    if !CURVE_OID_ALGORITHMS.contains(&algorithm) {
        return Ok(());
    }
    // RFC 9580 §5.5.5.4-6: a one-octet size of the OID, then the OID.
    let mut r = Reader::new(material, "curve OID");
    let Ok(oid) = r.u8().and_then(|len| r.take(usize::from(len))) else {
        return Ok(());
    };
    if oid == ED25519_LEGACY_OID {
        return Err(Error::malformed(
            "version 6 key: the Ed25519Legacy curve OID is not allowed (RFC 9580 §9.2)",
        ));
    }
    if oid == CURVE25519_LEGACY_OID {
        return Err(Error::malformed(
            "version 6 key: the Curve25519Legacy curve OID is not allowed (RFC 9580 §9.2)",
        ));
    }
    Ok(())
}

impl PublicKeyMaterial {
    /// Parses exactly `bytes` as the key material of `algorithm`.
    fn parse(algorithm: PublicKeyAlgorithm, bytes: &[u8]) -> Result<Self> {
        const WRONG_SIZE: &str = "public key: key material length does not match the algorithm";
        let mut r = Reader::new(bytes, "public key material");
        let material = match algorithm {
            // RFC 9580 §5.5.5.7, §5.5.5.9: 32 octets of native public key.
            PublicKeyAlgorithm::X25519 => Self::X25519(r.array().map_err(|_| Error::malformed(WRONG_SIZE))?),
            PublicKeyAlgorithm::Ed25519 => {
                Self::Ed25519(r.array().map_err(|_| Error::malformed(WRONG_SIZE))?)
            }
            // RFC 9980 (draft -17 §5.3.2.1): Ed25519 public (32) ‖ ML-DSA-65 public (1952).
            PublicKeyAlgorithm::MlDsa65Ed25519 => {
                let ed25519 = r.array().map_err(|_| Error::malformed(WRONG_SIZE))?;
                let mldsa = Box::new(r.array().map_err(|_| Error::malformed(WRONG_SIZE))?);
                Self::MlDsa65Ed25519 { ed25519, mldsa }
            }
            // RFC 9980 (draft -17 §4.3.2.1): X25519 public (32) ‖ ML-KEM-768 public (1184).
            PublicKeyAlgorithm::MlKem768X25519 => {
                let x25519 = r.array().map_err(|_| Error::malformed(WRONG_SIZE))?;
                let mlkem = Box::new(r.array().map_err(|_| Error::malformed(WRONG_SIZE))?);
                Self::MlKem768X25519 { x25519, mlkem }
            }
            PublicKeyAlgorithm::Unknown(id) => {
                refuse_legacy_curve(id, bytes)?;
                Self::Unknown(r.rest().to_vec())
            }
        };
        if !r.is_empty() {
            return Err(Error::malformed(WRONG_SIZE));
        }
        Ok(material)
    }

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Self::X25519(k) | Self::Ed25519(k) => w.write_all(k),
            Self::MlDsa65Ed25519 { ed25519, mldsa } => {
                w.write_all(ed25519)?;
                w.write_all(&mldsa[..])
            }
            Self::MlKem768X25519 { x25519, mlkem } => {
                w.write_all(x25519)?;
                w.write_all(&mlkem[..])
            }
            Self::Unknown(bytes) => w.write_all(bytes),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            Self::X25519(_) | Self::Ed25519(_) => 32,
            Self::MlDsa65Ed25519 { .. } => 32 + MLDSA65_PUBLIC_LEN,
            Self::MlKem768X25519 { .. } => 32 + MLKEM768_PUBLIC_LEN,
            Self::Unknown(bytes) => bytes.len(),
        }
    }
}

impl PacketBody for PublicKeyPacket {
    const TAG: Tag = Tag::PublicKey;

    /// Parses a whole public key or public subkey packet body.
    ///
    /// # Errors
    /// `Unsupported(PacketVersion)` for versions other than 6, `Truncated`, or `Malformed`
    /// (material size wrong for the algorithm, a deprecated curve OID, trailing octets).
    fn parse(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body, "public key");
        let key = Self::parse_from(&mut r)?;
        r.finish()?;
        Ok(key)
    }
}

impl PublicKeyPacket {
    /// Parses the public fields at the start of a key packet body.
    ///
    /// # Errors
    /// As [`PublicKeyPacket::parse`], except for trailing octets, which are left in `r`.
    fn parse_from(r: &mut Reader<'_>) -> Result<Self> {
        // RFC 9580 §5.5.2.3 (version 6):
        // - a one-octet version number (6);
        // - a four-octet number denoting the time that the key was created;
        // - a one-octet number denoting the public-key algorithm of this key;
        // - a four-octet scalar octet count for the following public key material;
        // - the algorithm-specific public key material.
        // <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.2.3>
        let version = r.u8()?;
        if version != KEY_VERSION {
            return Err(Error::Unsupported(Unsupported::PacketVersion { packet: "public key", version }));
        }
        let creation_time = r.be_u32()?;
        let algorithm = PublicKeyAlgorithm::from(r.u8()?);
        let len = usize::try_from(r.be_u32()?).map_err(|_| Error::Truncated("public key"))?;
        let material = PublicKeyMaterial::parse(algorithm, r.take(len)?)?;
        Ok(Self { creation_time, algorithm, material })
    }
}

impl Serialize for PublicKeyPacket {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&[KEY_VERSION])?;
        w.write_all(&self.creation_time.to_be_bytes())?;
        w.write_all(&[u8::from(self.algorithm)])?;
        write_u32_len(self.material.encoded_len(), w)?;
        self.material.write_to(w)
    }

    fn encoded_len(&self) -> usize {
        self.material.encoded_len().saturating_add(10)
    }
}

/// The next `N` octets of a secret, borrowed from the packet body (the secret types copy them
/// straight into their own wiped allocations).
fn secret_array<'a, const N: usize>(r: &mut Reader<'a>) -> Result<&'a [u8; N]> {
    const WRONG_SIZE: &str = "secret key: key material length does not match the algorithm";
    r.take(N).ok().and_then(|bytes| bytes.try_into().ok()).ok_or_else(|| Error::malformed(WRONG_SIZE))
}

impl SecretKeyMaterial {
    /// Parses exactly `bytes` as the plain secret material of `algorithm`.
    ///
    /// # Errors
    /// `Malformed` if the size does not match the algorithm.
    pub(crate) fn parse(algorithm: PublicKeyAlgorithm, bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes, "secret key material");
        let material = match algorithm {
            // RFC 9580 §5.5.5.7, §5.5.5.9: 32 octets of native secret key.
            PublicKeyAlgorithm::X25519 => Self::X25519(Curve25519Secret::new(secret_array(&mut r)?)),
            PublicKeyAlgorithm::Ed25519 => Self::Ed25519(Ed25519Secret::new(secret_array(&mut r)?)),
            // RFC 9980 (draft -17 §5.3.2.2): Ed25519 secret (32) ‖ ML-DSA-65 seed ξ (32).
            PublicKeyAlgorithm::MlDsa65Ed25519 => Self::MlDsa65Ed25519 {
                ed25519: Ed25519Secret::new(secret_array(&mut r)?),
                mldsa_seed: MlDsaSeed::new(secret_array(&mut r)?),
            },
            // RFC 9980 (draft -17 §4.3.2.2): X25519 secret (32) ‖ ML-KEM-768 seed d ‖ z (64).
            PublicKeyAlgorithm::MlKem768X25519 => Self::MlKem768X25519 {
                x25519: Curve25519Secret::new(secret_array(&mut r)?),
                mlkem_seed: MlKemSeed::new(secret_array(&mut r)?),
            },
            PublicKeyAlgorithm::Unknown(_) => Self::Unknown(SecretVec::new(r.rest().to_vec())),
        };
        if !r.is_empty() {
            return Err(Error::malformed("secret key: key material length does not match the algorithm"));
        }
        Ok(material)
    }

    /// Writes the material.
    ///
    /// # Errors
    /// The writer's errors.
    pub(crate) fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Self::X25519(k) => w.write_all(k.as_bytes()),
            Self::Ed25519(k) => w.write_all(k.as_bytes()),
            Self::MlDsa65Ed25519 { ed25519, mldsa_seed } => {
                w.write_all(ed25519.as_bytes())?;
                w.write_all(mldsa_seed.as_bytes())
            }
            Self::MlKem768X25519 { x25519, mlkem_seed } => {
                w.write_all(x25519.as_bytes())?;
                w.write_all(mlkem_seed.as_bytes())
            }
            Self::Unknown(bytes) => w.write_all(bytes),
        }
    }

    /// Octets [`SecretKeyMaterial::write_to`] writes.
    pub(crate) fn encoded_len(&self) -> usize {
        match self {
            Self::X25519(_) | Self::Ed25519(_) => 32,
            Self::MlDsa65Ed25519 { .. } => 64,
            Self::MlKem768X25519 { .. } => 96,
            Self::Unknown(bytes) => bytes.len(),
        }
    }
}

/// The IV length a protected v6 secret key must carry, if the algorithms are known
/// (RFC 9580 §5.5.3).
fn expected_iv_len(usage: u8, symmetric: SymmetricAlgorithm, aead: Option<AeadAlgorithm>) -> Option<usize> {
    match (usage, aead) {
        (USAGE_AEAD, Some(aead)) => aead.nonce_len(),
        // Every cipher this crate knows is AES, with a 16-octet block.
        _ => symmetric.key_len().map(|_| 16),
    }
}

impl EncryptedSecret {
    /// Parses the fields after the S2K usage octet (253 or 254).
    fn parse_from(usage: u8, r: &mut Reader<'_>) -> Result<Self> {
        // RFC 9580 §5.5.3, for a version 6 packet with usage 253 or 254:
        // - a one-octet count of the cumulative length of all the following conditional fields;
        // - a one-octet symmetric encryption algorithm;
        // - if usage is 253, a one-octet AEAD algorithm;
        // - a one-octet count of the following field;
        // - the S2K specifier;
        // - the IV: AEAD nonce size for 253, the cipher's block size for 254;
        // - then the encrypted secret key material (with the AEAD tag for 253).
        // <https://www.rfc-editor.org/rfc/rfc9580#section-5.5.3>
        let count = r.u8()?;
        let mut fields = r.sub(usize::from(count), "secret key protection fields")?;
        let symmetric = SymmetricAlgorithm::from(fields.u8()?);
        let aead = if usage == USAGE_AEAD { Some(AeadAlgorithm::from(fields.u8()?)) } else { None };
        let s2k_len = fields.u8()?;
        let s2k = S2k::parse(fields.take(usize::from(s2k_len))?)?;
        // The IV fills the rest of the counted fields; when its size is known, the count must
        // account for exactly that many octets.
        let iv = fields.rest();
        if expected_iv_len(usage, symmetric, aead).is_some_and(|want| iv.len() != want) {
            return Err(Error::malformed("secret key: protection field count does not match the IV length"));
        }
        Ok(Self { usage, symmetric, aead, s2k, iv: iv.to_vec(), ciphertext: r.rest().to_vec() })
    }

    /// Octets of the conditional fields counted by the count octet.
    fn fields_len(&self) -> usize {
        let aead_len = usize::from(self.aead.is_some() && self.usage == USAGE_AEAD);
        // symmetric algorithm + S2K length octet + optional AEAD algorithm + S2K + IV.
        2usize.saturating_add(aead_len).saturating_add(self.s2k.encoded_len()).saturating_add(self.iv.len())
    }

    /// Writes the fields from the usage octet on.
    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&[self.usage])?;
        write_u8_len(self.fields_len(), w)?;
        w.write_all(&[u8::from(self.symmetric)])?;
        if self.usage == USAGE_AEAD {
            let aead = self.aead.ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidInput, "AEAD-protected key without an AEAD algorithm")
            })?;
            w.write_all(&[u8::from(aead)])?;
        }
        write_u8_len(self.s2k.encoded_len(), w)?;
        self.s2k.write_to(w)?;
        w.write_all(&self.iv)?;
        w.write_all(&self.ciphertext)
    }

    /// Octets [`EncryptedSecret::write_to`] writes, usage octet included.
    fn encoded_len(&self) -> usize {
        self.fields_len().saturating_add(2).saturating_add(self.ciphertext.len())
    }
}

/// Writes a secret key packet body from its parts, without owning them.
///
/// # Errors
/// The writer's errors, or `InvalidInput` if a protection field does not fit its length octet.
pub(crate) fn write_secret_key(
    public: &PublicKeyPacket,
    secret: &SecretKeyData,
    w: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    public.write_to(w)?;
    match secret {
        SecretKeyData::Plain(material) => {
            w.write_all(&[USAGE_PLAIN])?;
            material.write_to(w)
        }
        SecretKeyData::Encrypted(enc) => enc.write_to(w),
        SecretKeyData::Unsupported(u) => {
            w.write_all(&[u.usage])?;
            w.write_all(&u.rest)
        }
    }
}

/// Octets [`write_secret_key`] writes.
pub(crate) fn secret_key_len(public: &PublicKeyPacket, secret: &SecretKeyData) -> usize {
    let secret = match secret {
        SecretKeyData::Plain(material) => material.encoded_len().saturating_add(1),
        SecretKeyData::Encrypted(enc) => enc.encoded_len(),
        SecretKeyData::Unsupported(u) => u.rest.len().saturating_add(1),
    };
    public.encoded_len().saturating_add(secret)
}

impl PacketBody for SecretKeyPacket {
    const TAG: Tag = Tag::SecretKey;

    /// Parses a whole secret key or secret subkey packet body.
    ///
    /// # Errors
    /// As [`PublicKeyPacket::parse`]; `Malformed` if the protection fields or the plain
    /// material have the wrong size. S2K usage values other than 0, 253 and 254 are kept as
    /// [`SecretKeyData::Unsupported`].
    fn parse(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body, "secret key");
        let public = PublicKeyPacket::parse_from(&mut r)?;
        // RFC 9580 §5.5.3: a one-octet string-to-key usage. v6 keys MUST NOT use 255, and
        // other non-zero values (a bare cipher ID) are legacy; such a secret is kept, unread,
        // so that the rest of the key stays usable.
        let usage = r.u8()?;
        let secret = match usage {
            USAGE_PLAIN => SecretKeyData::Plain(SecretKeyMaterial::parse(public.algorithm, r.rest())?),
            USAGE_AEAD | USAGE_CFB => SecretKeyData::Encrypted(EncryptedSecret::parse_from(usage, &mut r)?),
            usage => SecretKeyData::Unsupported(UnsupportedSecret { usage, rest: r.rest().to_vec() }),
        };
        r.finish()?;
        Ok(Self { public, secret })
    }
}

impl Serialize for SecretKeyPacket {
    /// The body holds secret octets: the buffer is wiped on drop.
    type Buf = SecretVec;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        write_secret_key(&self.public, &self.secret, w)
    }

    fn encoded_len(&self) -> usize {
        secret_key_len(&self.public, &self.secret)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::packet::s2k::tests::arb_s2k;

    fn boxed<const N: usize>(seed: u8) -> Box<[u8; N]> {
        let mut b = Box::new([0u8; N]);
        for (i, x) in b.iter_mut().enumerate() {
            *x = seed.wrapping_add(u8::try_from(i & 0xff).unwrap());
        }
        b
    }

    /// A consistent (algorithm, material) pair.
    pub(crate) fn arb_public_key() -> impl Strategy<Value = PublicKeyPacket> {
        let material = prop_oneof![
            any::<[u8; 32]>().prop_map(|k| (PublicKeyAlgorithm::X25519, PublicKeyMaterial::X25519(k))),
            any::<[u8; 32]>().prop_map(|k| (PublicKeyAlgorithm::Ed25519, PublicKeyMaterial::Ed25519(k))),
            (any::<[u8; 32]>(), any::<u8>()).prop_map(|(ed25519, s)| (
                PublicKeyAlgorithm::MlDsa65Ed25519,
                PublicKeyMaterial::MlDsa65Ed25519 { ed25519, mldsa: boxed(s) }
            )),
            (any::<[u8; 32]>(), any::<u8>()).prop_map(|(x25519, s)| (
                PublicKeyAlgorithm::MlKem768X25519,
                PublicKeyMaterial::MlKem768X25519 { x25519, mlkem: boxed(s) }
            )),
            (any::<u8>(), proptest::collection::vec(any::<u8>(), 0..100)).prop_filter_map(
                "known algorithm",
                |(a, bytes)| match PublicKeyAlgorithm::from(a) {
                    alg @ PublicKeyAlgorithm::Unknown(_) => Some((alg, PublicKeyMaterial::Unknown(bytes))),
                    _ => None,
                }
            ),
        ];
        (any::<u32>(), material).prop_map(|(creation_time, (algorithm, material))| PublicKeyPacket {
            creation_time,
            algorithm,
            material,
        })
    }

    fn plain_material(algorithm: PublicKeyAlgorithm, seed: u8) -> SecretKeyMaterial {
        let bytes: Vec<u8> = (0..96u8).map(|i| seed.wrapping_add(i)).collect();
        let len = match algorithm {
            PublicKeyAlgorithm::X25519 | PublicKeyAlgorithm::Ed25519 => 32,
            PublicKeyAlgorithm::MlDsa65Ed25519 => 64,
            PublicKeyAlgorithm::MlKem768X25519 => 96,
            _ => usize::from(seed % 50),
        };
        SecretKeyMaterial::parse(algorithm, &bytes[..len]).unwrap()
    }

    pub(crate) fn arb_secret_key() -> impl Strategy<Value = SecretKeyPacket> {
        let encrypted = (
            prop_oneof![Just(USAGE_AEAD), Just(USAGE_CFB)],
            any::<u8>(),
            any::<u8>(),
            arb_s2k(),
            proptest::collection::vec(any::<u8>(), 0..60),
        )
            .prop_map(|(usage, sym, aead, s2k, ciphertext)| {
                let symmetric = SymmetricAlgorithm::from(sym);
                let aead = (usage == USAGE_AEAD).then(|| AeadAlgorithm::from(aead));
                let iv_len = expected_iv_len(usage, symmetric, aead).unwrap_or(7);
                EncryptedSecret { usage, symmetric, aead, s2k, iv: vec![0x5a; iv_len], ciphertext }
            });
        (arb_public_key(), any::<u8>(), proptest::option::of(encrypted)).prop_map(|(public, seed, enc)| {
            let secret = match enc {
                Some(enc) => SecretKeyData::Encrypted(enc),
                None => SecretKeyData::Plain(plain_material(public.algorithm, seed)),
            };
            SecretKeyPacket { public, secret }
        })
    }

    proptest! {
        #[test]
        fn public_key_round_trip(key in arb_public_key()) {
            let bytes = key.to_vec();
            prop_assert_eq!(bytes.len(), key.encoded_len());
            prop_assert_eq!(PublicKeyPacket::parse(&bytes).unwrap(), key);
        }

        #[test]
        fn secret_key_round_trip(key in arb_secret_key()) {
            let bytes = key.to_vec();
            prop_assert_eq!(bytes.len(), key.encoded_len());
            let parsed = SecretKeyPacket::parse(&bytes).unwrap();
            prop_assert_eq!(&parsed.public, &key.public);
            match (&parsed.secret, &key.secret) {
                (SecretKeyData::Encrypted(a), SecretKeyData::Encrypted(b)) => prop_assert_eq!(a, b),
                (SecretKeyData::Plain(_), SecretKeyData::Plain(_)) => {}
                _ => prop_assert!(false, "protection changed"),
            }
            prop_assert_eq!(&*parsed.to_vec(), &*bytes);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = PublicKeyPacket::parse(&bytes);
            let _ = SecretKeyPacket::parse(&bytes);
        }
    }

    fn ed25519_public() -> Vec<u8> {
        let mut v = vec![6, 0x63, 0x87, 0x7f, 0xe3, 27, 0, 0, 0, 32];
        v.extend([0x11; 32]);
        v
    }

    #[test]
    fn hostile_public_keys() {
        let good = ed25519_public();
        assert!(PublicKeyPacket::parse(&good).is_ok());
        for version in [3u8, 4, 5, 7] {
            let mut v = good.clone();
            v[0] = version;
            assert!(matches!(
                PublicKeyPacket::parse(&v),
                Err(Error::Unsupported(Unsupported::PacketVersion { packet: "public key", version: x })) if x == version
            ));
        }
        // Material length 31 and 33 for Ed25519.
        let mut short = good.clone();
        short[9] = 31;
        let _ = short.pop();
        assert!(matches!(PublicKeyPacket::parse(&short), Err(Error::Malformed(_))));
        let mut long = good.clone();
        long[9] = 33;
        long.push(0);
        assert!(matches!(PublicKeyPacket::parse(&long), Err(Error::Malformed(_))));
        // Declared length past the end; huge declared length.
        let mut past = good.clone();
        let _ = past.pop();
        assert!(matches!(PublicKeyPacket::parse(&past), Err(Error::Truncated(_))));
        let mut huge = good.clone();
        huge[6..10].copy_from_slice(&[0xff; 4]);
        assert!(matches!(PublicKeyPacket::parse(&huge), Err(Error::Truncated(_))));
        // Trailing octet.
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(matches!(PublicKeyPacket::parse(&trailing), Err(Error::Malformed(_))));
        for cut in 0..good.len() {
            assert!(PublicKeyPacket::parse(&good[..cut]).is_err());
        }
    }

    #[test]
    fn hostile_secret_keys() {
        let mut plain = ed25519_public();
        plain.push(0);
        plain.extend([0x22; 32]);
        assert!(SecretKeyPacket::parse(&plain).is_ok());
        let mut short = plain.clone();
        let _ = short.pop();
        assert!(matches!(SecretKeyPacket::parse(&short), Err(Error::Malformed(_))));
        let mut long = plain.clone();
        long.push(0);
        assert!(matches!(SecretKeyPacket::parse(&long), Err(Error::Malformed(_))));
        // Other protections are kept verbatim, never read.
        for usage in [1u8, 9, 252, 255] {
            let mut v = ed25519_public();
            v.push(usage);
            v.extend([0x22; 40]);
            let parsed = SecretKeyPacket::parse(&v).unwrap();
            assert!(matches!(&parsed.secret, SecretKeyData::Unsupported(u) if u.usage == usage));
            assert_eq!(&*parsed.to_vec(), &v[..]);
        }
        // AEAD (253), AES-256, OCB, Argon2 S2K (20 octets), 15-octet nonce: count 38.
        let mut aead = ed25519_public();
        aead.extend([253, 38, 9, 2, 20, 4]);
        aead.extend([0x33; 16]);
        aead.extend([1, 4, 21]);
        aead.extend([0x44; 15]);
        aead.extend([0x55; 48]);
        let parsed = SecretKeyPacket::parse(&aead).unwrap();
        assert_eq!(&*parsed.to_vec(), &aead[..]);
        // A count that disagrees with the nonce size.
        for count in [37u8, 39] {
            let mut bad = aead.clone();
            bad[43] = count;
            assert!(SecretKeyPacket::parse(&bad).is_err(), "count {count}");
        }
        // A count past the end of the packet.
        let mut past = aead[..50].to_vec();
        past[43] = 38;
        assert!(matches!(SecretKeyPacket::parse(&past), Err(Error::Truncated(_))));
        // S2K length past the counted fields.
        let mut s2k_past = aead.clone();
        s2k_past[46] = 40;
        assert!(matches!(SecretKeyPacket::parse(&s2k_past), Err(Error::Truncated(_))));
    }

    /// A v6 public key body of `algorithm` with the given material.
    fn v6_key(algorithm: u8, material: &[u8]) -> Vec<u8> {
        let mut v = vec![6, 0x63, 0x87, 0x7f, 0xe3, algorithm];
        v.extend(u32::try_from(material.len()).unwrap().to_be_bytes());
        v.extend(material);
        v
    }

    /// A curve OID with its size octet, then a 263-bit MPI of a prefixed native point.
    fn curve_material(oid: &[u8]) -> Vec<u8> {
        let mut m = vec![u8::try_from(oid.len()).unwrap()];
        m.extend(oid);
        m.extend([0x01, 0x07, 0x40]);
        m.extend([0x11; 32]);
        m
    }

    #[test]
    fn deprecated_curve_oids_are_refused_in_v6_keys() {
        // EdDSALegacy and ECDH over Curve25519Legacy, public and secret alike.
        for (algorithm, oid) in [(22, ED25519_LEGACY_OID), (18, CURVE25519_LEGACY_OID)] {
            let public = v6_key(algorithm, &curve_material(oid));
            let e = PublicKeyPacket::parse(&public).unwrap_err();
            assert!(matches!(&e, Error::Malformed(m) if m.context().contains("Legacy curve OID")), "{e:?}");
            let mut secret = public.clone();
            secret.push(0);
            secret.extend([0x01, 0x00]);
            secret.extend([0x22; 32]);
            assert!(matches!(SecretKeyPacket::parse(&secret), Err(Error::Malformed(_))));
        }
        // Other curves of these algorithms (NIST P-256 here) and other unknown algorithms
        // still pass through verbatim, as does material too short to name a curve.
        let p256 = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
        for (algorithm, material) in [
            (18, curve_material(&p256)),
            (19, curve_material(&p256)),
            (1, curve_material(ED25519_LEGACY_OID)),
            (22, vec![]),
            (22, vec![9, 0x2b]),
        ] {
            let body = v6_key(algorithm, &material);
            let key = PublicKeyPacket::parse(&body).unwrap();
            assert_eq!(key.material, PublicKeyMaterial::Unknown(material));
            assert_eq!(key.to_vec(), body);
        }
    }

    #[test]
    fn debug_redacts_secrets() {
        let m = SecretKeyMaterial::parse(PublicKeyAlgorithm::Unknown(99), &[0x41; 8]).unwrap();
        assert!(!format!("{m:?}").contains("65"));
    }
}
