//! Entry points for fuzz targets and corpus replay. Not part of the stable API.
//!
//! Each function parses hostile input and must return (never panic, hang, or allocate past
//! [`Limits`](crate::Limits)).

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
    assert_eq!(
        whole.is_ok(),
        split.is_ok(),
        "read sizes change the outcome"
    );

    let Ok(kind) = whole else { return };
    assert_eq!(decoded, decoded_small, "read sizes change the output");
    assert_eq!(split.ok(), Some(kind), "read sizes change the kind");

    let armored =
        ArmorWriter::new(Vec::new(), kind.unwrap_or(ArmorKind::Message)).and_then(|mut w| {
            w.write_all(&decoded)?;
            w.finish()
        });
    let Ok(armored) = armored else { return };
    let mut again = Vec::new();
    let result = ArmorReader::new(&armored[..]).read_to_end(&mut again);
    assert!(
        result.is_ok() && again == decoded,
        "armor round trip failed"
    );
}
