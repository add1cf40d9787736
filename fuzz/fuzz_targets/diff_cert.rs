//! Differential target: the same certificate bytes through sixpgp, Sequoia and rPGP. Valid at
//! the fixed time for both sixpgp and Sequoia or for neither (Sequoia-only acceptance counts
//! only for v6 certificates of in-scope algorithms); if both parse, the same primary
//! fingerprint (rPGP too); if both find it valid, the same encryption keys and signing
//! capability. Certificates that sixpgp refuses as outside what it implements (legacy packet
//! framing, other key versions and algorithms) are not compared.
#![no_main]

use sixpgp_fuzz::six::Refusal;
use sixpgp_fuzz::{rpgp, six, sq};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let ours = six::cert(data);
    let theirs = sq::cert(data);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.fingerprint, b.fingerprint, "primary fingerprint differs from Sequoia's");
            if b.in_scope || a.valid == b.valid {
                assert_eq!(a.valid, b.valid, "validity differs from Sequoia's: {a:?} vs {b:?}");
            }
            if a.valid && b.valid {
                assert_eq!(a.encryption_keys, b.encryption_keys, "encryption keys differ from Sequoia's");
                assert_eq!(a.can_sign, b.can_sign, "signing capability differs from Sequoia's");
            }
        }
        (Ok(a), Err(e)) => {
            assert!(!a.valid, "sixpgp finds a certificate valid that Sequoia refuses ({e}): {a:?}");
        }
        // What sixpgp does not implement (legacy packet framing, other versions and algorithms,
        // a fuzz limit) is not a disagreement.
        (Err(Refusal::OutOfScope(_)), Ok(_)) => {}
        // RFC 9580 §4.3: a packet of an unknown critical type makes the whole sequence invalid;
        // Sequoia skips it (fuzz/README.md, "Disagreements").
        (Err(Refusal::CriticalUnknownPacket(_)), Ok(_)) => {}
        (Err(Refusal::Refused(e)), Ok(b)) => {
            assert!(!(b.in_scope && b.valid), "Sequoia finds a v6 certificate valid that sixpgp refuses ({e}): {b:?}");
        }
        (Err(_), Err(_)) => {}
    }
    if let (Ok(a), Some(Ok((fp, _)))) = (&ours, rpgp::cert(data)) {
        assert_eq!(a.fingerprint, fp, "primary fingerprint differs from rPGP's");
    }
});
