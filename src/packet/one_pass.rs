//! One-Pass Signature packets, version 6 (RFC 9580 §5.4).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.4>

use std::io::{self, Write};

use crate::crypto::{HashAlgorithm, PublicKeyAlgorithm};
use crate::error::{Error, Result, Unsupported};
use crate::packet::header::Tag;
use crate::packet::reader::Reader;
use crate::packet::signature::SignatureType;
use crate::packet::{PacketBody, Serialize};

/// The only One-Pass Signature version this crate implements.
const OPS_VERSION: u8 = 6;

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

impl PacketBody for OnePassSignature {
    const TAG: Tag = Tag::OnePassSignature;

    /// Parses a whole One-Pass Signature packet body.
    ///
    /// # Errors
    /// `Unsupported(PacketVersion)` for versions other than 6 (v3 belongs to v4 keys);
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
        let version = r.u8()?;
        if version != OPS_VERSION {
            return Err(Error::Unsupported(Unsupported::PacketVersion {
                packet: "one-pass signature",
                version,
            }));
        }
        let sig_type = SignatureType::from(r.u8()?);
        let hash_algorithm = HashAlgorithm::from(r.u8()?);
        let pk_algorithm = PublicKeyAlgorithm::from(r.u8()?);
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

    proptest! {
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
}
