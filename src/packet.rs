//! The OpenPGP packet layer (RFC 9580 §4, §5): parsing and serializing, no cryptography.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod any;
pub(crate) mod header;
pub(crate) mod key;
pub(crate) mod literal;
mod marker;
pub(crate) mod one_pass;
pub(crate) mod padding;
pub(crate) mod partial;
pub(crate) mod pkesk;
pub(crate) mod reader;
pub(crate) mod s2k;
pub(crate) mod seipd;
pub(crate) mod signature;
pub(crate) mod skesk;
pub(crate) mod subpacket;
pub(crate) mod user_id;

use std::io::{self, BufRead, Write};

use crate::crypto::secret::SecretVec;
use crate::error::{Error, Limit, Result, Unsupported};
use crate::limits::Limits;

use crate::packet::header::{BodyLength, Header, Tag};
pub(crate) use any::Packet;

/// The serialization interface of packet bodies and their parts: [`write_to`] writes exactly
/// [`encoded_len`] octets, and parsing them gives back an equal value.
///
/// [`write_to`]: Serialize::write_to
/// [`encoded_len`]: Serialize::encoded_len
pub(crate) trait Serialize {
    /// What [`to_vec`](Serialize::to_vec) returns: a `Vec<u8>`, or a [`SecretVec`] for values
    /// that may hold secret key material.
    type Buf: SerializeBuf;

    /// Writes the octets.
    ///
    /// # Errors
    /// The writer's errors, or `InvalidInput` if a field does not fit its length field.
    fn write_to(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()>;

    /// Octets [`write_to`](Serialize::write_to) writes.
    fn encoded_len(&self) -> usize;

    /// The serialized octets, in a buffer allocated once at its full length.
    fn to_vec(&self) -> Self::Buf {
        let mut out = Self::Buf::with_capacity(self.encoded_len());
        // Writing to memory fails only for a field that does not fit its length field, which
        // ends the output early.
        let _ = self.write_to(&mut out);
        out
    }
}

/// A buffer [`Serialize::to_vec`] can fill.
pub(crate) trait SerializeBuf: Write {
    /// An empty buffer with room for `capacity` octets.
    fn with_capacity(capacity: usize) -> Self;
}

impl SerializeBuf for Vec<u8> {
    fn with_capacity(capacity: usize) -> Self {
        Self::with_capacity(capacity)
    }
}

impl SerializeBuf for SecretVec {
    fn with_capacity(capacity: usize) -> Self {
        Self::with_capacity(capacity)
    }
}

/// The body of a packet type: it knows its type and parses from a whole body.
pub(crate) trait PacketBody: Serialize + Sized {
    /// The packet type. Key bodies are also the bodies of subkey packets: for them this is the
    /// primary key's type, so [`write_packet`](PacketBody::write_packet) writes primary keys only.
    const TAG: Tag;

    /// Parses a whole packet body.
    ///
    /// # Errors
    /// `Truncated`, `Malformed` or `Unsupported`, as the type's format says.
    fn parse(body: &[u8]) -> Result<Self>;

    /// Writes the whole packet: a header with the shortest fixed length, then the body.
    ///
    /// # Errors
    /// The writer's errors, or `InvalidInput` if the body is longer than 2^32 - 1 octets or a
    /// field does not fit its length field.
    fn write_packet(&self, w: &mut (impl Write + ?Sized)) -> io::Result<()> {
        Header::fixed(Self::TAG, self.encoded_len())?.write_to(w)?;
        self.write_to(w)
    }
}

/// A non-data packet read whole: its type and body. The body may hold unencrypted secret key
/// material, so it is wiped on drop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RawPacket {
    pub(crate) tag: Tag,
    pub(crate) body: SecretVec,
}

/// Reads one non-data packet (header and whole body). `Ok(None)` at the end of the input.
///
/// Data packets (compressed, SED, literal, SEIPD) are streamed by the message layer and are
/// rejected here.
///
/// # Errors
/// Header errors from [`Header::read_from`]; `Unsupported(PacketType)` for a data packet;
/// `LimitExceeded(PacketLength)` for a body longer than [`Limits::max_packet_len`];
/// `Truncated("packet body")` if the input ends inside the body; `Io` from the reader.
pub(crate) fn read_raw_packet(r: &mut impl BufRead, limits: &Limits) -> Result<Option<RawPacket>> {
    let Some(header) = Header::read_from(r)? else {
        return Ok(None);
    };
    if header.tag.is_data() {
        return Err(Error::Unsupported(Unsupported::PacketType(u8::from(header.tag))));
    }
    // Header::read_from only allows partial lengths on data packets.
    let BodyLength::Fixed(len) = header.length else {
        return Err(Error::malformed("partial body length on a non-data packet"));
    };
    let too_long = usize::try_from(len).map_or(true, |len| len > limits.max_packet_len());
    if too_long {
        return Err(Error::LimitExceeded(Limit::PacketLength));
    }
    // One allocation of the declared length (bounded by the limit just checked): growing while
    // reading would leave unwiped copies of secret key material behind.
    let len = usize::try_from(len).map_err(|_| Error::LimitExceeded(Limit::PacketLength))?;
    let mut body = SecretVec::zeroed(len);
    r.read_exact(&mut body).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::Truncated("packet body"),
        _ => Error::from_io(e),
    })?;
    Ok(Some(RawPacket { tag: header.tag, body }))
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use proptest::prelude::*;

    use super::*;
    use crate::packet::key::tests::{arb_public_key, arb_secret_key};
    use crate::packet::padding::Padding;
    use crate::packet::signature::tests::arb_signature;
    use crate::packet::user_id::UserId;

    /// Test-only dearmoring: drops the BEGIN/END lines, blank lines and any CRC line, then
    /// decodes the base64 body.
    pub(crate) fn dearmor(text: &str) -> Vec<u8> {
        let b64: String = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("-----") && !l.starts_with('='))
            .collect();
        base64::engine::general_purpose::STANDARD.decode(b64).unwrap()
    }

    macro_rules! vector {
        ($name:literal) => {
            ($name, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/", $name)))
        };
    }

    /// Every v6 key and signature file we have, including algorithms this crate does not
    /// implement (ML-DSA-87+Ed448 and SLH-DSA are kept as unknown material).
    pub(crate) const VECTORS: &[(&str, &str)] = &[
        vector!("a03-v6-certificate.asc"),
        vector!("a04-v6-secret-key.asc"),
        vector!("a05-v6-secret-key-locked.asc"),
        vector!("v6-eddsa-sample-pk.asc"),
        vector!("v6-eddsa-sample-sk.asc"),
        vector!("v6-mldsa-65-sample-pk.asc"),
        vector!("v6-mldsa-65-sample-sk.asc"),
        vector!("v6-mldsa-65-sample-signature.asc"),
        vector!("v6-mldsa-87-sample-pk.asc"),
        vector!("v6-slhdsa-128s-sample-sk.asc"),
    ];

    /// Reads every packet of `bytes`.
    ///
    /// # Errors
    /// The first read or parse error.
    pub(crate) fn parse_all(bytes: &[u8]) -> Result<Vec<(RawPacket, Packet)>> {
        let mut r = bytes;
        let mut out = Vec::new();
        while let Some(raw) = read_raw_packet(&mut r, &Limits::default())? {
            let packet = Packet::from_raw(&raw, &Limits::default())?;
            out.push((raw, packet));
        }
        Ok(out)
    }

    #[test]
    fn vectors_round_trip_exactly() {
        for (name, text) in VECTORS {
            let bytes = dearmor(text);
            let packets = parse_all(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!packets.is_empty(), "{name}");
            let mut out = Vec::new();
            for (raw, packet) in &packets {
                let mut body = Vec::new();
                packet.write_body(&mut body).unwrap();
                assert_eq!(body, *raw.body, "{name}: {:?}", raw.tag);
                assert_eq!(packet.body_len(), raw.body.len(), "{name}");
                assert_eq!(packet.tag(), raw.tag, "{name}");
                out.extend_from_slice(&packet.to_vec());
            }
            assert_eq!(out, bytes, "{name}");
        }
    }

    #[test]
    fn vector_contents() {
        use crate::packet::key::{PublicKeyMaterial, SecretKeyData, SecretKeyMaterial};
        use crate::packet::s2k::S2k;
        use crate::packet::signature::{SignatureMaterial, SignatureType};
        use crate::types::PublicKeyAlgorithm;

        let a03 = parse_all(&dearmor(VECTORS[0].1)).unwrap();
        let kinds: Vec<Tag> = a03.iter().map(|(_, p)| p.tag()).collect();
        assert_eq!(kinds, [Tag::PublicKey, Tag::Signature, Tag::PublicSubkey, Tag::Signature]);
        let Packet::PublicKey(primary) = &a03[0].1 else { panic!() };
        assert_eq!(primary.creation_time, 0x6387_7fe3);
        assert!(matches!(primary.material, PublicKeyMaterial::Ed25519(k) if k[0] == 0xf9));
        let Packet::Signature(dks) = &a03[1].1 else { panic!() };
        assert_eq!(dks.sig_type, SignatureType::DirectKey);
        assert_eq!(dks.creation_time(), Some(0x6387_7fe3));
        assert_eq!(dks.key_flags(), Some(&[0x03][..]));
        assert_eq!(dks.preferred_symmetric(), Some(&[9, 7][..]));
        assert_eq!(dks.preferred_aead(), Some(&[(9, 2), (7, 2)][..]));
        assert!(!dks.has_unknown_critical());
        assert_eq!(
            hex::encode(dks.issuer_fingerprint().unwrap()),
            "cb186c4f0609a697e4d52dfa6c722b0c1f1e27c18a56708f6525ec27bad9acc9"
        );
        assert!(matches!(dks.material, SignatureMaterial::Ed25519(_)));

        let a04 = parse_all(&dearmor(VECTORS[1].1)).unwrap();
        let Packet::SecretSubkey(sub) = &a04[2].1 else { panic!() };
        let SecretKeyData::Plain(SecretKeyMaterial::X25519(secret)) = &sub.secret else { panic!() };
        assert_eq!(hex::encode(&secret.as_bytes()[..4]), "4d600a4f");

        let a05 = parse_all(&dearmor(VECTORS[2].1)).unwrap();
        let Packet::SecretKey(locked) = &a05[0].1 else { panic!() };
        let SecretKeyData::Encrypted(enc) = &locked.secret else { panic!() };
        assert_eq!(enc.usage, 253);
        assert!(matches!(enc.s2k, S2k::Argon2 { t: 1, p: 4, m: 21, .. }));
        assert_eq!(enc.iv.len(), 15);

        let mldsa = parse_all(&dearmor(VECTORS[5].1)).unwrap();
        let Packet::PublicKey(pq) = &mldsa[0].1 else { panic!() };
        assert_eq!(pq.algorithm, PublicKeyAlgorithm::MlDsa65Ed25519);
        let Packet::PublicSubkey(kem) = &mldsa[4].1 else { panic!("{:?}", mldsa[4].1.tag()) };
        assert!(matches!(kem.material, PublicKeyMaterial::MlKem768X25519 { .. }));
        let Packet::UserId(uid) = &mldsa[2].1 else { panic!() };
        assert_eq!(uid.0, b"PQC user (Test Key) <pqc-test-key@example.com>");

        let mldsa87 = parse_all(&dearmor(VECTORS[8].1)).unwrap();
        let Packet::PublicKey(unknown) = &mldsa87[0].1 else { panic!() };
        assert!(matches!(unknown.material, PublicKeyMaterial::Unknown(_)));
    }

    #[test]
    fn v4_key_is_unsupported() {
        let bytes = dearmor(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/a01-v4-ed25519legacy-public-key.asc"
        )));
        assert!(matches!(
            parse_all(&bytes),
            Err(Error::Unsupported(Unsupported::PacketVersion { packet: "public key", version: 4 }))
        ));
    }

    fn read_one(bytes: &[u8]) -> Result<Option<Packet>> {
        let mut r = bytes;
        read_raw_packet(&mut r, &Limits::default())?
            .map(|raw| Packet::from_raw(&raw, &Limits::default()))
            .transpose()
    }

    #[test]
    fn hostile_inputs_give_typed_errors() {
        type Case<'a> = (&'a str, &'a [u8], fn(&Error) -> bool);
        let cases: &[Case<'_>] = &[
            ("truncated header", &[0xc6], |e| matches!(e, Error::Truncated(_))),
            ("truncated 5-octet length", &[0xc6, 0xff, 0, 0], |e| matches!(e, Error::Truncated(_))),
            ("truncated 2-octet length", &[0xc6, 0xc0], |e| matches!(e, Error::Truncated(_))),
            ("length past end", &[0xcd, 5, b'a'], |e| matches!(e, Error::Truncated("packet body"))),
            ("huge declared length", &[0xcd, 0xff, 0xff, 0xff, 0xff, 0xff], |e| {
                matches!(e, Error::LimitExceeded(Limit::PacketLength))
            }),
            ("data packet", &[0xcb, 0x01, 0x62], |e| {
                matches!(e, Error::Unsupported(Unsupported::PacketType(11)))
            }),
            ("partial length on non-data", &[0xcd, 0xe9], |e| matches!(e, Error::Malformed(_))),
            ("legacy header", &[0x99, 0, 1, 0], |e| {
                matches!(e, Error::Unsupported(Unsupported::LegacyPacketFormat))
            }),
            ("v4 key in a legacy header", &[0x99, 0, 1, 4], |e| {
                matches!(
                    e,
                    Error::Unsupported(Unsupported::PacketVersion { packet: "public key", version: 4 })
                )
            }),
            ("bad marker", &[0xca, 3, b'P', b'G', b'Q'], |e| matches!(e, Error::Malformed(_))),
            ("empty public key", &[0xc6, 0], |e| matches!(e, Error::Truncated(_))),
            (
                "X25519 material 31 octets",
                &[
                    0xce, 41, 6, 0, 0, 0, 0, 25, 0, 0, 0, 31, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                ],
                |e| matches!(e, Error::Malformed(_)),
            ),
            ("signature with subpacket length 0", &[0xc2, 11, 6, 0, 27, 8, 0, 0, 0, 1, 0, 0, 0], |e| {
                matches!(e, Error::Malformed(_))
            }),
            ("subpacket length past area end", &[0xc2, 12, 6, 0, 27, 8, 0, 0, 0, 2, 5, 2, 0, 0], |e| {
                matches!(e, Error::Truncated(_))
            }),
            ("v5 signature", &[0xc2, 1, 5], |e| {
                matches!(
                    e,
                    Error::Unsupported(Unsupported::PacketVersion { packet: "signature", version: 5 })
                )
            }),
        ];
        for (what, bytes, check) in cases {
            match read_one(bytes) {
                Err(e) => assert!(check(&e), "{what}: {e:?}"),
                Ok(p) => panic!("{what}: parsed {p:?}"),
            }
        }
        assert!(read_one(&[]).unwrap().is_none());
    }

    #[test]
    fn limit_is_configurable() {
        let bytes = [0xcd, 4, b'a', b'b', b'c', b'd'];
        let mut r = &bytes[..];
        let limits = Limits::default().with_max_packet_len(3);
        assert!(matches!(read_raw_packet(&mut r, &limits), Err(Error::LimitExceeded(Limit::PacketLength))));
        let mut r = &bytes[..];
        let limits = Limits::default().with_max_packet_len(4);
        assert_eq!(read_raw_packet(&mut r, &limits).unwrap().unwrap().body[..], b"abcd"[..]);
    }

    #[test]
    fn every_truncation_of_the_vectors_fails_cleanly() {
        for (name, text) in &VECTORS[..5] {
            let bytes = dearmor(text);
            for cut in 0..bytes.len() {
                // A cut at a packet boundary parses fewer packets; anywhere else it is an error.
                if let Ok(packets) = parse_all(&bytes[..cut]) {
                    let len: usize = packets.iter().map(|(_, p)| p.encoded_len()).sum();
                    assert_eq!(len, cut, "{name} cut at {cut}");
                }
            }
        }
    }

    fn arb_packet() -> impl Strategy<Value = Packet> {
        prop_oneof![
            arb_public_key().prop_map(Packet::PublicKey),
            arb_public_key().prop_map(Packet::PublicSubkey),
            arb_secret_key().prop_map(Packet::SecretKey),
            arb_secret_key().prop_map(Packet::SecretSubkey),
            arb_signature(true).prop_map(Packet::Signature),
            proptest::collection::vec(any::<u8>(), 0..300).prop_map(|b| Packet::UserId(UserId(b))),
            proptest::collection::vec(any::<u8>(), 0..300).prop_map(|b| Packet::Padding(Padding(b))),
            Just(()).prop_map(|()| Packet::Marker),
            (prop_oneof![Just(12u8), Just(17), 22..64u8], proptest::collection::vec(any::<u8>(), 0..300))
                .prop_map(|(tag, body)| Packet::Other { tag, body }),
        ]
    }

    proptest! {
        #[test]
        fn packet_round_trip(packet in arb_packet()) {
            let bytes = packet.to_vec();
            prop_assert_eq!(bytes.len(), packet.encoded_len());
            let parsed = read_one(&bytes).unwrap().unwrap();
            prop_assert_eq!(parsed.tag(), packet.tag());
            prop_assert_eq!(parsed.to_vec(), bytes);
        }

        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = parse_all(&bytes);
        }

        #[test]
        fn bit_flips_never_panic(idx in any::<prop::sample::Index>(), bit in 0u8..8, which in 0usize..10) {
            let mut bytes = dearmor(VECTORS[which].1);
            let i = idx.index(bytes.len());
            bytes[i] ^= 1 << bit;
            if let Ok(packets) = parse_all(&bytes) {
                for (raw, packet) in packets {
                    let mut body = Vec::new();
                    packet.write_body(&mut body).unwrap();
                    prop_assert_eq!(body, raw.body.to_vec());
                }
            }
        }
    }
}
