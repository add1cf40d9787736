//! One-Pass Signature packets, version 6, and version 3 as the companion of a v4 signature
//! (RFC 9580 §5.4).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.4>

use std::io::{self, Write};

use crate::error::{Error, Result, Unsupported};
use crate::packet::header::Tag;
use crate::packet::reader::Reader;
use crate::packet::signature::SignatureType;
use crate::packet::{PacketBody, Serialize};
use crate::types::{HashAlgorithm, PublicKeyAlgorithm};

/// The One-Pass Signature version of v6 signatures.
const OPS_VERSION: u8 = 6;
/// The One-Pass Signature version of v4 signatures (there is no version 4).
const OPS_VERSION_3: u8 = 3;

/// A v6 One-Pass Signature packet: announces a signature that follows the signed data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OnePassSignature {
    pub(crate) sig_type: SignatureType,
    pub(crate) hash_algorithm: HashAlgorithm,
    pub(crate) pk_algorithm: PublicKeyAlgorithm,
    /// The salt of the signature this packet announces.
    pub(crate) salt: Vec<u8>,
    /// The v6 fingerprint of the signing key.
    pub(crate) fingerprint: [u8; 32],
    /// The "nested" flag octet: 0 means another One-Pass Signature packet follows that covers
    /// the same data; anything else means this is the last one before the data. Kept as found so
    /// that the packet round-trips.
    pub(crate) last: u8,
}

/// A v3 One-Pass Signature packet: announces a v4 signature. A message signed with a v4 key
/// besides v6 keys carries one; it is read so that the v6 signatures can still be checked,
/// and the v4 signature it announces is reported as unverifiable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OnePassSignatureV3 {
    pub(crate) sig_type: SignatureType,
    pub(crate) hash_algorithm: HashAlgorithm,
    pub(crate) pk_algorithm: PublicKeyAlgorithm,
    /// The key ID of the signing key.
    pub(crate) key_id: [u8; 8],
    /// The "nested" flag octet, as in [`OnePassSignature::last`].
    pub(crate) last: u8,
}

/// A One-Pass Signature packet of either version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OnePass {
    V6(OnePassSignature),
    V3(OnePassSignatureV3),
}

impl PacketBody for OnePass {
    const TAG: Tag = Tag::OnePassSignature;

    /// Parses a whole One-Pass Signature packet body of version 6 or 3.
    ///
    /// # Errors
    /// As [`OnePassSignature::parse`] and [`OnePassSignatureV3::parse`].
    fn parse(body: &[u8]) -> Result<Self> {
        match body.first() {
            Some(&OPS_VERSION_3) => OnePassSignatureV3::parse(body).map(Self::V3),
            _ => OnePassSignature::parse(body).map(Self::V6),
        }
    }
}

impl Serialize for OnePass {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        match self {
            Self::V6(ops) => ops.write_to(w),
            Self::V3(ops) => ops.write_to(w),
        }
    }

    fn encoded_len(&self) -> usize {
        match self {
            Self::V6(ops) => ops.encoded_len(),
            Self::V3(ops) => ops.encoded_len(),
        }
    }
}

/// Reads the fields both versions start with (RFC 9580 §5.4): the version octet, which must be
/// `version`, the signature type, the hash algorithm and the public-key algorithm.
fn read_common(
    r: &mut Reader<'_>,
    version: u8,
) -> Result<(SignatureType, HashAlgorithm, PublicKeyAlgorithm)> {
    let found = r.u8()?;
    if found != version {
        return Err(Error::Unsupported(Unsupported::PacketVersion {
            packet: "one-pass signature",
            version: found,
        }));
    }
    Ok((SignatureType::from(r.u8()?), HashAlgorithm::from(r.u8()?), PublicKeyAlgorithm::from(r.u8()?)))
}

impl PacketBody for OnePassSignatureV3 {
    const TAG: Tag = Tag::OnePassSignature;

    /// Parses a whole v3 One-Pass Signature packet body.
    ///
    /// # Errors
    /// `Unsupported(PacketVersion)` for versions other than 3; `Truncated`; `Malformed` for
    /// trailing octets.
    fn parse(body: &[u8]) -> Result<Self> {
        // RFC 9580 §5.4 (version 3):
        // - one-octet version number (3);
        // - one-octet signature type;
        // - one-octet hash algorithm;
        // - one-octet public-key algorithm;
        // - eight-octet key ID of the signing key;
        // - one-octet flag: 0 if another One-Pass Signature packet covering the same data follows.
        // <https://www.rfc-editor.org/rfc/rfc9580#section-5.4>
        let mut r = Reader::new(body, "one-pass signature");
        let (sig_type, hash_algorithm, pk_algorithm) = read_common(&mut r, OPS_VERSION_3)?;
        let key_id = r.array()?;
        let last = r.u8()?;
        if !r.is_empty() {
            return Err(Error::malformed("one-pass signature: trailing octets"));
        }
        Ok(Self { sig_type, hash_algorithm, pk_algorithm, key_id, last })
    }
}

impl Serialize for OnePassSignatureV3 {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&[
            OPS_VERSION_3,
            u8::from(self.sig_type),
            u8::from(self.hash_algorithm),
            u8::from(self.pk_algorithm),
        ])?;
        w.write_all(&self.key_id)?;
        w.write_all(&[self.last])
    }

    fn encoded_len(&self) -> usize {
        13
    }
}

impl PacketBody for OnePassSignature {
    const TAG: Tag = Tag::OnePassSignature;

    /// Parses a whole One-Pass Signature packet body.
    ///
    /// # Errors
    /// `Unsupported(PacketVersion)` for versions other than 6 (v3 is [`OnePassSignatureV3`]);
    /// `Truncated`; `Malformed` for a salt whose size does not match the hash algorithm or
    /// trailing octets.
    fn parse(body: &[u8]) -> Result<Self> {
        // RFC 9580 §5.4 (version 6):
        // - one-octet version number (6);
        // - one-octet signature type;
        // - one-octet hash algorithm;
        // - one-octet public-key algorithm;
        // - one-octet salt size, then the salt (it MUST match the signature's salt);
        // - 32 octets: the fingerprint of the signing key;
        // - one-octet flag: 0 if another One-Pass Signature packet covering the same data follows.
        // <https://www.rfc-editor.org/rfc/rfc9580#section-5.4>
        let mut r = Reader::new(body, "one-pass signature");
        let (sig_type, hash_algorithm, pk_algorithm) = read_common(&mut r, OPS_VERSION)?;
        let salt_len = r.u8()?;
        let salt = r.take(usize::from(salt_len))?.to_vec();
        if hash_algorithm.v6_salt_len().is_some_and(|want| want != salt.len()) {
            return Err(Error::malformed("one-pass signature: salt size does not match the hash algorithm"));
        }
        let fingerprint = r.array()?;
        let last = r.u8()?;
        if !r.is_empty() {
            return Err(Error::malformed("one-pass signature: trailing octets"));
        }
        Ok(Self { sig_type, hash_algorithm, pk_algorithm, salt, fingerprint, last })
    }
}

impl Serialize for OnePassSignature {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        let salt_len = u8::try_from(self.salt.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "salt longer than 255 octets"))?;
        w.write_all(&[
            OPS_VERSION,
            u8::from(self.sig_type),
            u8::from(self.hash_algorithm),
            u8::from(self.pk_algorithm),
            salt_len,
        ])?;
        w.write_all(&self.salt)?;
        w.write_all(&self.fingerprint)?;
        w.write_all(&[self.last])
    }

    fn encoded_len(&self) -> usize {
        // 5 fixed octets, the fingerprint (32), the flag (1).
        self.salt.len().saturating_add(38)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn arb_ops() -> impl Strategy<Value = OnePassSignature> {
        (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>(), any::<[u8; 32]>(), any::<u8>()).prop_map(
            |(ty, hash, pk, seed, fingerprint, last)| {
                let hash_algorithm = HashAlgorithm::from(hash);
                let len = hash_algorithm.v6_salt_len().unwrap_or(usize::from(seed % 40));
                OnePassSignature {
                    sig_type: SignatureType::from(ty),
                    hash_algorithm,
                    pk_algorithm: PublicKeyAlgorithm::from(pk),
                    salt: vec![seed; len],
                    fingerprint,
                    last,
                }
            },
        )
    }

    fn arb_ops_v3() -> impl Strategy<Value = OnePassSignatureV3> {
        (any::<u8>(), any::<u8>(), any::<u8>(), any::<[u8; 8]>(), any::<u8>()).prop_map(
            |(ty, hash, pk, key_id, last)| OnePassSignatureV3 {
                sig_type: SignatureType::from(ty),
                hash_algorithm: HashAlgorithm::from(hash),
                pk_algorithm: PublicKeyAlgorithm::from(pk),
                key_id,
                last,
            },
        )
    }

    proptest! {
        #[test]
        fn v3_round_trip(ops in arb_ops_v3()) {
            let bytes = ops.to_vec();
            prop_assert_eq!(bytes.len(), ops.encoded_len());
            prop_assert_eq!(OnePass::parse(&bytes).unwrap(), OnePass::V3(ops));
        }

        #[test]
        fn either_version_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..60)) {
            if let Ok(ops) = OnePass::parse(&bytes) {
                prop_assert_eq!(ops.to_vec(), bytes);
            }
        }

        #[test]
        fn round_trip(ops in arb_ops()) {
            let bytes = ops.to_vec();
            prop_assert_eq!(bytes.len(), ops.encoded_len());
            prop_assert_eq!(OnePassSignature::parse(&bytes).unwrap(), ops);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
            if let Ok(ops) = OnePassSignature::parse(&bytes) {
                prop_assert_eq!(ops.to_vec(), bytes);
            }
        }
    }

    /// RFC 9580 A.7: the One-Pass Signature packet of the inline-signed message.
    #[test]
    fn rfc9580_a7_one_pass_signature() {
        let body = hex::decode(concat!(
            "06010a1b2076495f50218890f7f5e2ee3c1822514f70500f551d86e5c921e404e34a53fbac",
            "cb186c4f0609a697e4d52dfa6c722b0c1f1e27c18a56708f6525ec27bad9acc901"
        ))
        .unwrap();
        let ops = OnePassSignature::parse(&body).unwrap();
        assert_eq!(ops.sig_type, SignatureType::Text);
        assert_eq!(ops.hash_algorithm, HashAlgorithm::Sha512);
        assert_eq!(ops.pk_algorithm, PublicKeyAlgorithm::Ed25519);
        assert_eq!(ops.last, 1);
        assert_eq!(ops.to_vec(), body);
        for cut in 0..body.len() {
            assert!(OnePassSignature::parse(&body[..cut]).is_err());
        }
        let mut v3 = body.clone();
        v3[0] = 3;
        assert!(matches!(
            OnePassSignature::parse(&v3),
            Err(Error::Unsupported(Unsupported::PacketVersion { version: 3, .. }))
        ));
        let mut long = body;
        long.push(0);
        assert!(matches!(OnePassSignature::parse(&long), Err(Error::Malformed(_))));
    }

    /// A v3 One-Pass Signature (binary, SHA2-256, Ed25519, a key ID, last): every field, every
    /// truncation and a trailing octet.
    #[test]
    fn v3_one_pass_signature() {
        let body = [3, 0, 8, 27, 1, 2, 3, 4, 5, 6, 7, 8, 1];
        let OnePass::V3(ops) = OnePass::parse(&body).unwrap() else { panic!("not v3") };
        assert_eq!(ops.sig_type, SignatureType::Binary);
        assert_eq!(ops.hash_algorithm, HashAlgorithm::Sha256);
        assert_eq!(ops.pk_algorithm, PublicKeyAlgorithm::Ed25519);
        assert_eq!((ops.key_id, ops.last), ([1, 2, 3, 4, 5, 6, 7, 8], 1));
        assert_eq!(ops.to_vec(), body);
        for cut in 0..body.len() {
            assert!(matches!(OnePass::parse(&body[..cut]), Err(Error::Truncated(_) | Error::Unsupported(_))));
        }
        let long = [&body[..], &[0]].concat();
        assert!(matches!(OnePass::parse(&long), Err(Error::Malformed(_))));
        for version in [2u8, 4, 5] {
            let other = [&[version][..], &body[1..]].concat();
            assert!(matches!(
                OnePass::parse(&other),
                Err(Error::Unsupported(Unsupported::PacketVersion { version: v, .. })) if v == version
            ));
        }
    }
}
