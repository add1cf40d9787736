//! Version 6 Symmetric-Key Encrypted Session Key packets (RFC 9580 §5.3.2).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.3.2>
//!
//! The S2K specifier is kept as raw octets here; the key layer parses it with
//! `packet::s2k::S2k`. The key derivation and decryption are in `message::skesk`.

use std::io::{self, Write};

use crate::crypto::aead_backend::TAG_LEN;
use crate::error::{Error, Result, Unsupported};
use crate::packet::header::Tag;
use crate::packet::reader::Reader;
use crate::packet::{PacketBody, Serialize};
use crate::types::{AeadAlgorithm, SymmetricAlgorithm};

/// A v6 SKESK packet body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skesk {
    pub(crate) sym: SymmetricAlgorithm,
    pub(crate) aead: AeadAlgorithm,
    /// The S2K specifier, verbatim (type octet first).
    pub(crate) s2k: Vec<u8>,
    /// The AEAD nonce ("IV"), of the mode's nonce length.
    pub(crate) iv: Vec<u8>,
    /// The encrypted session key, without the tag.
    pub(crate) encrypted_key: Vec<u8>,
    /// The AEAD tag.
    pub(crate) tag: [u8; TAG_LEN],
}

impl PacketBody for Skesk {
    const TAG: Tag = Tag::Skesk;

    /// Parses an SKESK packet body.
    ///
    /// # Errors
    /// `Unsupported(SkeskV4)` for version 4, `Unsupported(PacketVersion)` for others;
    /// `Malformed`/`Truncated` for a broken v6 body (counts that disagree, a nonce of the wrong
    /// length for a known AEAD mode, no room for the tag).
    fn parse(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body, "SKESK");
        match r.u8()? {
            6 => {}
            4 => return Err(Error::Unsupported(Unsupported::SkeskV4)),
            v => {
                return Err(Error::Unsupported(Unsupported::PacketVersion { packet: "SKESK", version: v }));
            }
        }
        // A one-octet count of the next five fields: sym, aead, S2K length, S2K, IV.
        let count = usize::from(r.u8()?);
        let mut fields = r.sub(count, "SKESK")?;
        let sym = SymmetricAlgorithm::from(fields.u8()?);
        let aead = AeadAlgorithm::from(fields.u8()?);
        let s2k_len = usize::from(fields.u8()?);
        let s2k = fields.take(s2k_len)?.to_vec();
        let iv = fields.rest().to_vec();
        if aead.nonce_len().is_some_and(|nonce_len| iv.len() != nonce_len) {
            return Err(Error::malformed("SKESK: IV length does not match the AEAD mode"));
        }
        let rest = r.rest();
        let split =
            rest.len().checked_sub(TAG_LEN).ok_or(Error::malformed("SKESK: no room for the AEAD tag"))?;
        let (encrypted_key, tag) = rest.split_at_checked(split).ok_or(Error::malformed("SKESK: tag"))?;
        let tag = <[u8; TAG_LEN]>::try_from(tag).map_err(|_| Error::malformed("SKESK: tag"))?;
        if encrypted_key.is_empty() {
            return Err(Error::malformed("SKESK: empty encrypted session key"));
        }
        Ok(Self { sym, aead, s2k, iv, encrypted_key: encrypted_key.to_vec(), tag })
    }
}

impl Skesk {
    /// The count octet's value: octets of sym, aead, S2K length, S2K and IV.
    fn count(&self) -> Option<u8> {
        u8::try_from(self.s2k.len().checked_add(3)?.checked_add(self.iv.len())?).ok()
    }
}

impl Serialize for Skesk {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        let too_long = || io::Error::new(io::ErrorKind::InvalidInput, "SKESK fields too long");
        let count = self.count().ok_or_else(too_long)?;
        let s2k_len = u8::try_from(self.s2k.len()).map_err(|_| too_long())?;
        w.write_all(&[6, count, self.sym.into(), self.aead.into(), s2k_len])?;
        w.write_all(&self.s2k)?;
        w.write_all(&self.iv)?;
        w.write_all(&self.encrypted_key)?;
        w.write_all(&self.tag)
    }

    fn encoded_len(&self) -> usize {
        [2, 3, self.s2k.len(), self.iv.len(), self.encrypted_key.len(), TAG_LEN]
            .iter()
            .fold(0usize, |a, b| a.saturating_add(*b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::header::Header;

    fn round_trip(hex_packet: &str) -> Skesk {
        let bytes = hex::decode(hex_packet).unwrap();
        let mut src = &bytes[..];
        let h = Header::read_from(&mut src).unwrap().unwrap();
        assert_eq!(h.tag, Tag::Skesk);
        let s = Skesk::parse(src).unwrap();
        assert_eq!(s.encoded_len(), src.len());
        let mut out = Vec::new();
        s.write_packet(&mut out).unwrap();
        assert_eq!(out, bytes);
        s
    }

    /// RFC 9580 A.9, A.10, A.11 SKESKs parse and re-serialize byte for byte.
    #[test]
    fn rfc9580_vectors() {
        let s = round_trip(
            "c33f061d07020b030856a298d2f5e36453ffcfcc5c11664edb9db42590d7dc46b07241b612c3812cfffbea00f2347b25641123f887ae60d4fd614e0837d819d36c",
        );
        assert_eq!((s.sym, s.aead), (SymmetricAlgorithm::Aes128, AeadAlgorithm::Ocb));
        assert_eq!(hex::encode(&s.s2k), "030856a298d2f5e36453ff");
        assert_eq!(hex::encode(&s.iv), "cfcc5c11664edb9db42590d7dc46b0");
        assert_eq!(hex::encode(&s.encrypted_key), "7241b612c3812cfffbea00f2347b2564");
        let s = round_trip(
            "c33c061a07030b0308e9d39785b2070008ffb42e7c483ef4884457cb3726b9b3db9ff776e5f4d9a40952e2447298851abfff7526df2dd554417579a7799f",
        );
        assert_eq!(s.aead, AeadAlgorithm::Gcm);
        let s = round_trip(
            "c340061e07010b0308a5ae579d1fc5d82bff69224f919993b3506fa3b59a6a73cff8c5efc5f41c57fb54e1c226815d7828f5f92c454eb65ebe00ab5986c68e6e7c55",
        );
        assert_eq!(s.aead, AeadAlgorithm::Eax);
    }

    #[test]
    fn rejects() {
        assert!(matches!(Skesk::parse(&[4, 9, 3, 0]), Err(Error::Unsupported(Unsupported::SkeskV4))));
        assert!(matches!(Skesk::parse(&[7]), Err(Error::Unsupported(Unsupported::PacketVersion { .. }))));
        // OCB with a 12-octet IV.
        let mut body = vec![6, 3 + 2 + 12, 7, 2, 2, 0, 0];
        body.extend_from_slice(&[0; 12]);
        body.extend_from_slice(&[0; 32]);
        assert!(matches!(Skesk::parse(&body), Err(Error::Malformed(_))));
        // GCM with a 12-octet IV is fine; without room for a key it is not.
        body[3] = 3;
        assert!(Skesk::parse(&body).is_ok());
        assert!(matches!(Skesk::parse(&body[..body.len() - 16]), Err(Error::Malformed(_))));
        for cut in 0..19 {
            assert!(Skesk::parse(&body[..cut]).is_err());
        }
    }

    proptest::proptest! {
        #[test]
        fn proptest_round_trip(
            aead in 1u8..5, s2k in proptest::collection::vec(proptest::num::u8::ANY, 0..40),
            key in proptest::collection::vec(proptest::num::u8::ANY, 1..64), tag in proptest::array::uniform16(proptest::num::u8::ANY),
        ) {
            let aead = AeadAlgorithm::from(aead);
            let iv = vec![9u8; aead.nonce_len().unwrap_or(5)];
            let s = Skesk { sym: SymmetricAlgorithm::Aes256, aead, s2k, iv, encrypted_key: key, tag };
            let mut body = Vec::new();
            s.write_to(&mut body).unwrap();
            proptest::prop_assert_eq!(body.len(), s.encoded_len());
            proptest::prop_assert_eq!(Skesk::parse(&body).unwrap(), s);
        }

        #[test]
        fn proptest_never_panics(body in proptest::collection::vec(proptest::num::u8::ANY, 0..100)) {
            let _ = Skesk::parse(&body);
        }
    }
}
