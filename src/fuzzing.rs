//! Entry points for fuzz targets and corpus replay. Not part of the stable API.
//!
//! Each function parses hostile input and must return (never panic, hang, or allocate past
//! [`Limits`](crate::Limits)).

use crate::Limits;
use crate::packet::{Packet, read_raw_packet};

/// Reads packets until the input ends or a framing error, parses each one, and checks the
/// round trip: the parsed packet serializes to exactly the body it was parsed from, and
/// reading that serialization back gives the same octets again.
///
/// # Panics
/// Only if the round trip fails, which is a bug in the packet layer (this is the fuzz oracle).
#[allow(clippy::panic, reason = "the fuzz oracle reports a round-trip bug by panicking")]
pub fn packets(data: &[u8]) {
    let limits = Limits::default();
    let mut input = data;
    // Each iteration consumes at least the header octet, so the loop ends.
    while let Ok(Some(raw)) = read_raw_packet(&mut input, &limits) {
        let Ok(packet) = Packet::from_raw(&raw) else {
            // A packet that does not parse still has a known extent: go on with the next one.
            continue;
        };
        let mut body = Vec::new();
        if packet.write_body(&mut body).is_err() {
            panic!("a parsed {:?} packet cannot be serialized", raw.tag);
        }
        assert_eq!(body, raw.body, "{:?} packet body changed in the round trip", raw.tag);
        let bytes = packet.to_vec();
        let mut again = bytes.as_slice();
        let reparsed = match read_raw_packet(&mut again, &limits) {
            Ok(Some(raw2)) => Packet::from_raw(&raw2),
            other => panic!("a serialized {:?} packet does not read back: {other:?}", raw.tag),
        };
        match reparsed {
            Ok(p) => assert_eq!(p.to_vec(), bytes, "{:?} packet changed in the second round trip", raw.tag),
            Err(e) => panic!("a serialized {:?} packet does not parse back: {e}", raw.tag),
        }
        assert!(again.is_empty(), "{:?} packet serialization has trailing octets", raw.tag);
    }
}

/// Parses certificates and secret keys, evaluates them, and checks that what parsed serializes
/// and parses back to the same thing.
///
/// # Panics
/// Only if a parsed certificate does not survive its own serialization (the fuzz oracle).
#[allow(clippy::panic, reason = "the fuzz oracle reports a round-trip bug by panicking")]
pub fn cert(data: &[u8]) {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_800_000_000);
    if let Ok(certs) = crate::Cert::read_all(data) {
        for c in &certs {
            // Evaluation must never panic, whatever the signatures say.
            let _ = c.check_valid_at(t);
            let _ = c.can_encrypt_at(t);
            let _ = c.valid_user_ids_at(t);
            let again = crate::Cert::from_bytes(&c.to_vec());
            assert!(matches!(&again, Ok(a) if a == c), "certificate changed in the round trip: {again:?}");
        }
    }
    if let Ok(keys) = crate::Tsk::read_all(data) {
        for k in &keys {
            let bytes = k.to_vec();
            match crate::Tsk::from_bytes(&bytes) {
                Ok(again) => assert!(again.to_vec() == bytes, "secret key changed in the round trip"),
                Err(e) => panic!("a serialized secret key does not parse back: {e}"),
            }
        }
    }
}

/// Dearmors `data` (binary input passes through) whole and through a tiny buffer; both must
/// agree. If it dearmors, armoring the result and dearmoring that again must give it back.
///
/// The `assert!`s are the fuzzer's oracle: each one failing is a bug in `armor`.
pub fn armor(data: &[u8]) {
    use std::io::{BufReader, Read, Write};

    use crate::armor::{ArmorKind, ArmorReader, ArmorWriter};

    let mut reader = ArmorReader::new(data);
    let mut decoded = Vec::new();
    let whole = reader.read_to_end(&mut decoded).map(|_| reader.kind());

    let mut small = ArmorReader::new(BufReader::with_capacity(3, data));
    let mut decoded_small = Vec::new();
    let split = small.read_to_end(&mut decoded_small).map(|_| small.kind());
    assert_eq!(whole.is_ok(), split.is_ok(), "read sizes change the outcome");

    let Ok(kind) = whole else { return };
    assert_eq!(decoded, decoded_small, "read sizes change the output");
    assert_eq!(split.ok(), Some(kind), "read sizes change the kind");

    let armored = ArmorWriter::new(Vec::new(), kind.unwrap_or(ArmorKind::Message)).and_then(|mut w| {
        w.write_all(&decoded)?;
        w.finish()
    });
    let Ok(armored) = armored else { return };
    let mut again = Vec::new();
    let result = ArmorReader::new(&armored[..]).read_to_end(&mut again);
    assert!(result.is_ok() && again == decoded, "armor round trip failed");
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    const CORPUS: &[&[u8]] = &[
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/packet/a03-cert.bin")),
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/packet/a04-secret-key.bin")),
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/packet/a05-secret-key-locked.bin")),
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/packet/pqc-eddsa-sk.bin")),
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/packet/pqc-mldsa65-sk.bin")),
        include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/packet/pqc-mldsa65-signature.bin")),
    ];

    #[test]
    fn corpus_passes_the_oracle() {
        for seed in CORPUS {
            super::packets(seed);
        }
    }

    proptest! {
        #[test]
        fn mutated_corpus_passes_the_oracle(
            which in 0..CORPUS.len(),
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        ) {
            let mut data = CORPUS[which].to_vec();
            for (idx, value) in edits {
                let i = idx.index(data.len());
                data[i] = value;
            }
            super::packets(&data);
        }
    }
}
