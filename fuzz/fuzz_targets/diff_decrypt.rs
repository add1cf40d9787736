//! Differential target: the same message through sixpgp, Sequoia and rPGP, each with the fixed
//! keys (RFC 9580 A.4, RFC 9980 Ed25519 and ML-DSA-65 samples) and the password `password`:
//! decrypted by all to the same plaintext, or refused by all. Inputs whose SKESKs ask for more
//! S2K work than sixpgp's fuzz limits, and inputs sixpgp refuses as outside what it implements
//! (SEIPDv1, v3 PKESK, v4 SKESK, compression, other algorithms), are skipped.
#![no_main]

use sixpgp_fuzz::six::Refusal;
use sixpgp_fuzz::{rpgp, six, sq};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if !sq::s2k_affordable(data) {
        return;
    }
    let ours = match six::decrypt(data, false) {
        Err(Refusal::OutOfScope(_)) => return,
        Ok(o) => Ok(o.plaintext),
        Err(Refusal::Refused(e)) => Err(e),
        Err(e @ Refusal::CriticalUnknownPacket(_)) => Err(format!("{e:?}")),
    };
    let oracles = [("Sequoia", Some(sq::decrypt(data, false))), ("rPGP", rpgp::decrypt(data, false))];
    for (name, theirs) in oracles {
        // No rPGP process: Sequoia only.
        let Some(theirs) = theirs else { continue };
        match (&ours, theirs.map(|o| o.plaintext)) {
            (Ok(a), Ok(b)) => assert!(*a == b, "plaintext differs from {name}'s"),
            (Ok(_), Err(e)) => panic!("sixpgp decrypts, {name} refuses: {e}"),
            (Err(e), Ok(_)) => panic!("{name} decrypts, sixpgp refuses: {e}"),
            (Err(_), Err(_)) => {}
        }
    }
});
