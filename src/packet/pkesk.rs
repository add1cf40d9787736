//! Version 6 Public-Key Encrypted Session Key packets (RFC 9580 §5.1.2).
//!
//! <https://www.rfc-editor.org/rfc/rfc9580#section-5.1.2>
//!
//! A message may carry PKESKs this crate cannot use (version 3, other algorithms); parsing
//! reports those as `Unsupported` so the message layer can skip them.

use std::io::{self, Write};

use crate::error::{Error, Result, Unsupported};
use crate::packet::header::Tag;
use crate::packet::reader::Reader;
use crate::packet::{PacketBody, Serialize};
use crate::types::PublicKeyAlgorithm;

/// Size of an X25519 ephemeral public key (RFC 9580 §5.1.6).
const X25519_EPHEMERAL_LEN: usize = 32;
/// Size of an ML-KEM-768 ciphertext (FIPS 203).
const MLKEM768_CIPHERTEXT_LEN: usize = 1088;

/// Whom the session key is encrypted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Recipient {
    /// No key named ("anonymous recipient", a zero length octet).
    Anonymous,
    /// A v6 key fingerprint.
    V6([u8; 32]),
    /// A v4 key fingerprint.
    V4([u8; 20]),
}

/// The algorithm-specific fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PkeskFields {
    /// X25519 (RFC 9580 §5.1.6): ephemeral public key, then the AES key-wrapped session key.
    /// In a v6 PKESK no symmetric algorithm octet precedes the wrapped key.
    X25519 { ephemeral: [u8; 32], wrapped_key: Vec<u8> },
    /// ML-KEM-768+X25519 (RFC 9980, draft -17 §4.3.1): X25519 ciphertext, ML-KEM ciphertext,
    /// then the AES-256 key-wrapped session key.
    MlKem768X25519 {
        ecdh_ciphertext: [u8; 32],
        mlkem_ciphertext: Box<[u8; MLKEM768_CIPHERTEXT_LEN]>,
        wrapped_key: Vec<u8>,
    },
    /// Another algorithm: the fields verbatim.
    Unknown(Vec<u8>),
}

/// A v6 PKESK packet body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pkesk {
    pub(crate) recipient: Recipient,
    pub(crate) algorithm: PublicKeyAlgorithm,
    pub(crate) fields: PkeskFields,
}

/// Reads a 1-octet length and that many octets, which must be non-empty.
fn wrapped_key(r: &mut Reader<'_>) -> Result<Vec<u8>> {
    let len = r.u8()?;
    if len == 0 {
        return Err(Error::malformed("PKESK: empty wrapped session key"));
    }
    Ok(r.take(usize::from(len))?.to_vec())
}

/// Writes a 1-octet length and the wrapped key.
fn write_wrapped(w: &mut (impl Write + ?Sized), key: &[u8]) -> io::Result<()> {
    let len = u8::try_from(key.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "wrapped key too long"))?;
    w.write_all(&[len])?;
    w.write_all(key)
}

impl PacketBody for Pkesk {
    const TAG: Tag = Tag::Pkesk;

    /// Parses a PKESK packet body.
    ///
    /// # Errors
    /// `Unsupported(PkeskV3)` for version 3 and `Unsupported(PacketVersion)` for other versions
    /// (callers skip those); `Malformed`/`Truncated` for a broken v6 body.
    fn parse(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body, "PKESK");
        match r.u8()? {
            6 => {}
            3 => return Err(Error::Unsupported(Unsupported::PkeskV3)),
            v => {
                return Err(Error::Unsupported(Unsupported::PacketVersion { packet: "PKESK", version: v }));
            }
        }
        let recipient = match r.u8()? {
            0 => Recipient::Anonymous,
            33 => match r.u8()? {
                6 => Recipient::V6(r.array()?),
                _ => return Err(Error::Unsupported(Unsupported::Feature("PKESK recipient key version"))),
            },
            21 => match r.u8()? {
                4 => Recipient::V4(r.array()?),
                _ => return Err(Error::Unsupported(Unsupported::Feature("PKESK recipient key version"))),
            },
            // A future key version with another fingerprint size: a co-recipient's packet that
            // must be skipped, not a reason to refuse the message (RFC 9580 §5.1.2).
            _ => return Err(Error::Unsupported(Unsupported::Feature("PKESK recipient key version"))),
        };
        let algorithm = PublicKeyAlgorithm::from(r.u8()?);
        let fields = match algorithm {
            PublicKeyAlgorithm::X25519 => {
                let ephemeral = r.array()?;
                PkeskFields::X25519 { ephemeral, wrapped_key: wrapped_key(&mut r)? }
            }
            PublicKeyAlgorithm::MlKem768X25519 => {
                let ecdh_ciphertext = r.array()?;
                let mlkem_ciphertext = Box::new(r.array()?);
                PkeskFields::MlKem768X25519 {
                    ecdh_ciphertext,
                    mlkem_ciphertext,
                    wrapped_key: wrapped_key(&mut r)?,
                }
            }
            _ => PkeskFields::Unknown(r.rest().to_vec()),
        };
        r.finish()?;
        Ok(Self { recipient, algorithm, fields })
    }
}

impl Serialize for Pkesk {
    type Buf = Vec<u8>;

    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        w.write_all(&[6])?;
        match &self.recipient {
            Recipient::Anonymous => w.write_all(&[0])?,
            Recipient::V6(fp) => {
                w.write_all(&[33, 6])?;
                w.write_all(fp)?;
            }
            Recipient::V4(fp) => {
                w.write_all(&[21, 4])?;
                w.write_all(fp)?;
            }
        }
        w.write_all(&[self.algorithm.into()])?;
        match &self.fields {
            PkeskFields::X25519 { ephemeral, wrapped_key } => {
                w.write_all(ephemeral)?;
                write_wrapped(w, wrapped_key)
            }
            PkeskFields::MlKem768X25519 { ecdh_ciphertext, mlkem_ciphertext, wrapped_key } => {
                w.write_all(ecdh_ciphertext)?;
                w.write_all(&mlkem_ciphertext[..])?;
                write_wrapped(w, wrapped_key)
            }
            PkeskFields::Unknown(bytes) => w.write_all(bytes),
        }
    }

    fn encoded_len(&self) -> usize {
        let recipient: usize = match self.recipient {
            Recipient::Anonymous => 1,
            Recipient::V6(_) => 34,
            Recipient::V4(_) => 22,
        };
        let fields = match &self.fields {
            PkeskFields::X25519 { wrapped_key, .. } => {
                X25519_EPHEMERAL_LEN.saturating_add(1).saturating_add(wrapped_key.len())
            }
            PkeskFields::MlKem768X25519 { wrapped_key, .. } => {
                (X25519_EPHEMERAL_LEN + MLKEM768_CIPHERTEXT_LEN + 1).saturating_add(wrapped_key.len())
            }
            PkeskFields::Unknown(bytes) => bytes.len(),
        };
        // version + recipient + algorithm + fields
        recipient.saturating_add(2).saturating_add(fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::header::Header;

    fn packet_body(hex_packet: &str) -> (Vec<u8>, Vec<u8>) {
        let bytes = hex::decode(hex_packet).unwrap();
        let mut src = &bytes[..];
        let h = Header::read_from(&mut src).unwrap().unwrap();
        assert_eq!(h.tag, Tag::Pkesk);
        (bytes.clone(), src.to_vec())
    }

    /// RFC 9580 A.8: v6 PKESK to the X25519 subkey 12C83F1E….
    #[test]
    fn rfc9580_a8_round_trip() {
        let (packet, body) = packet_body(
            "c15d06210612c83f1e706f6308fe151a417743a1f033790e93e9978488d1db378da99308851987cf18d5f1b53f817cce5a004cf393cc8958bddc065f25f84af509b17dd3676418dea355437956617901e06957fbca8a6a47a5b5153e8d3ab7",
        );
        let p = Pkesk::parse(&body).unwrap();
        assert_eq!(
            p.recipient,
            Recipient::V6(
                hex::decode("12c83f1e706f6308fe151a417743a1f033790e93e9978488d1db378da9930885")
                    .unwrap()
                    .try_into()
                    .unwrap()
            )
        );
        assert_eq!(p.algorithm, PublicKeyAlgorithm::X25519);
        let PkeskFields::X25519 { ephemeral, wrapped_key } = &p.fields else { panic!("not X25519") };
        assert_eq!(
            hex::encode(ephemeral),
            "87cf18d5f1b53f817cce5a004cf393cc8958bddc065f25f84af509b17dd36764"
        );
        assert_eq!(wrapped_key.len(), 24);
        let mut out = Vec::new();
        p.write_packet(&mut out).unwrap();
        assert_eq!(out, packet);
        assert_eq!(p.encoded_len(), body.len());
    }

    #[test]
    fn mlkem_anonymous_unknown_round_trip() {
        let cases = [
            Pkesk {
                recipient: Recipient::Anonymous,
                algorithm: PublicKeyAlgorithm::MlKem768X25519,
                fields: PkeskFields::MlKem768X25519 {
                    ecdh_ciphertext: [1; 32],
                    mlkem_ciphertext: Box::new([2; 1088]),
                    wrapped_key: vec![3; 40],
                },
            },
            Pkesk {
                recipient: Recipient::V4([9; 20]),
                algorithm: PublicKeyAlgorithm::Unknown(18),
                fields: PkeskFields::Unknown(vec![1, 2, 3]),
            },
        ];
        for p in cases {
            let mut body = Vec::new();
            p.write_to(&mut body).unwrap();
            assert_eq!(body.len(), p.encoded_len());
            assert_eq!(Pkesk::parse(&body).unwrap(), p);
        }
        // The PQC sample's v6 PKESK body is 1197 octets for an AES-256 session key.
        let mut body = Vec::new();
        Pkesk {
            recipient: Recipient::V6([0; 32]),
            algorithm: PublicKeyAlgorithm::MlKem768X25519,
            fields: PkeskFields::MlKem768X25519 {
                ecdh_ciphertext: [0; 32],
                mlkem_ciphertext: Box::new([0; 1088]),
                wrapped_key: vec![0; 40],
            },
        }
        .write_to(&mut body)
        .unwrap();
        assert_eq!(body.len(), 1197);
    }

    #[test]
    fn rejects_and_skippable_versions() {
        assert!(matches!(Pkesk::parse(&[3, 1, 2, 3]), Err(Error::Unsupported(Unsupported::PkeskV3))));
        assert!(matches!(
            Pkesk::parse(&[5]),
            Err(Error::Unsupported(Unsupported::PacketVersion { version: 5, .. }))
        ));
        // Recipient key versions or fingerprint sizes of the future: skippable, not malformed.
        assert!(matches!(Pkesk::parse(&[6, 5, 6]), Err(Error::Unsupported(_))));
        assert!(matches!(Pkesk::parse(&[6, 33, 4]), Err(Error::Unsupported(_))));
        // X25519 with an empty wrapped key, and with trailing octets.
        let mut body = vec![6, 0, 25];
        body.extend_from_slice(&[0; 32]);
        assert!(matches!(Pkesk::parse(&[&body[..], &[0]].concat()), Err(Error::Malformed(_))));
        assert!(matches!(Pkesk::parse(&[&body[..], &[1, 7, 7]].concat()), Err(Error::Malformed(_))));
        assert!(Pkesk::parse(&[&body[..], &[1, 7]].concat()).is_ok());
        for cut in 0..body.len() {
            assert!(Pkesk::parse(&body[..cut]).is_err());
        }
    }

    proptest::proptest! {
        #[test]
        fn proptest_round_trip(
            recipient in 0u8..3, fp in proptest::array::uniform32(proptest::num::u8::ANY),
            algo in 0u8..3, wrapped in proptest::collection::vec(proptest::num::u8::ANY, 1..255),
        ) {
            let recipient = match recipient {
                0 => Recipient::Anonymous,
                1 => Recipient::V6(fp),
                _ => Recipient::V4(fp[..20].try_into().unwrap()),
            };
            let (algorithm, fields) = match algo {
                0 => (PublicKeyAlgorithm::X25519, PkeskFields::X25519 { ephemeral: fp, wrapped_key: wrapped }),
                1 => (
                    PublicKeyAlgorithm::MlKem768X25519,
                    PkeskFields::MlKem768X25519 { ecdh_ciphertext: fp, mlkem_ciphertext: Box::new([7; 1088]), wrapped_key: wrapped },
                ),
                _ => (PublicKeyAlgorithm::Unknown(99), PkeskFields::Unknown(wrapped)),
            };
            let p = Pkesk { recipient, algorithm, fields };
            let mut body = Vec::new();
            p.write_to(&mut body).unwrap();
            proptest::prop_assert_eq!(body.len(), p.encoded_len());
            proptest::prop_assert_eq!(Pkesk::parse(&body).unwrap(), p);
        }

        #[test]
        fn proptest_never_panics(body in proptest::collection::vec(proptest::num::u8::ANY, 0..1300)) {
            let _ = Pkesk::parse(&body);
        }
    }
}
