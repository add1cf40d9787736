//! Differential target: one implementation encrypts (and signs) random plaintext under
//! parameters drawn from the input (AES-128/256 × OCB/GCM, chunk size, recipients among the
//! fixed keys, a password, a signer, literal format, file name and date, anonymous recipients,
//! padding), another decrypts and verifies it: sixpgp → Sequoia and rPGP, rPGP → sixpgp,
//! Sequoia → sixpgp (the first input octet picks the direction). The consumer must give back
//! the plaintext and a good signature from the signer, and (where exposed) the literal
//! metadata.
#![no_main]

use sixpgp_fuzz::{Input, MessageSpec, rpgp, six, sq};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let direction = input.byte() % 3;
    let spec = MessageSpec::from_input(&mut input);
    let passwords: Vec<&str> = spec.passwords.iter().map(String::as_str).collect();
    let signers: Vec<usize> = spec.signer.into_iter().collect();
    match direction {
        0 => {
            let message = six::encrypt(&spec).unwrap_or_else(|e| panic!("sixpgp cannot encrypt {spec:?}: {e}"));
            let own = six::decrypt_with(&message, &passwords, true)
                .unwrap_or_else(|e| panic!("sixpgp cannot decrypt its own message: {e:?}"));
            assert_eq!(own.plaintext, spec.plaintext, "sixpgp round trip");
            let by_sq = sq::decrypt_with(&message, &passwords, true)
                .unwrap_or_else(|e| panic!("Sequoia cannot decrypt sixpgp's message: {e}"));
            assert!(by_sq.plaintext == spec.plaintext, "Sequoia reads another plaintext");
            assert_eq!(by_sq.good_signers, signers, "Sequoia's good signatures");
            if let Some(by_rpgp) = rpgp::decrypt_with(&message, &passwords, true) {
                let by_rpgp = by_rpgp.unwrap_or_else(|e| panic!("rPGP cannot decrypt sixpgp's message: {e}"));
                assert!(by_rpgp.plaintext == spec.plaintext, "rPGP reads another plaintext");
                assert_eq!(by_rpgp.good_signers, signers, "rPGP's good signatures");
                let expected = (spec.format, spec.filename.clone(), spec.date);
                assert_eq!(by_rpgp.literal, Some(expected), "rPGP reads other literal metadata");
            }
        }
        _ => {
            let (name, made) = if direction == 1 {
                ("rPGP", rpgp::encrypt(&spec))
            } else {
                ("Sequoia", Some(sq::encrypt(&spec)))
            };
            // The oracle refusing to produce (or absent) is its business, not a finding.
            let Some(Ok(message)) = made else { return };
            let ours = six::decrypt_with(&message, &passwords, true)
                .unwrap_or_else(|e| panic!("sixpgp cannot decrypt {name}'s message ({spec:?}): {e:?}"));
            assert!(ours.plaintext == spec.plaintext, "sixpgp reads another plaintext from {name}");
            assert_eq!(ours.good_signers, signers, "sixpgp's good signatures on {name}'s message");
            let (format, filename, _) = ours.literal.expect("sixpgp reports literal metadata");
            let want_format = if spec.format == b'b' { b'b' } else { b'u' };
            // rPGP 0.21's MessageBuilder writes an empty file name whatever it is given (see
            // README, "Disagreements").
            let want_name = if direction == 1 { Vec::new() } else { spec.filename.clone() };
            assert_eq!((format, filename), (want_format, want_name), "literal metadata of {name}'s message");
        }
    }
});
