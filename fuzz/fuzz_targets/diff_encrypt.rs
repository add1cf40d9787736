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
    // A text signature over text with a CR not followed by LF: RFC 9580 §5.2.1.2 does not say
    // whether a lone CR is a line ending, and the three disagree (README, "Disagreements"), so
    // the verdicts are not compared; the plaintext still is.
    let lone_cr = spec.format != b'b' && spec.plaintext.iter().enumerate().any(|(i, &b)| {
        b == b'\r' && spec.plaintext.get(i + 1) != Some(&b'\n')
    });
    let check = |who: &str, good: &[usize]| {
        if !lone_cr {
            assert_eq!(good, &signers[..], "{who}");
        }
    };
    match direction {
        0 => {
            let message = six::encrypt(&spec).unwrap_or_else(|e| panic!("sixpgp cannot encrypt {spec:?}: {e}"));
            let own = six::decrypt_with(&message, &passwords, true)
                .unwrap_or_else(|e| panic!("sixpgp cannot decrypt its own message: {e:?}"));
            assert_eq!(own.plaintext, spec.plaintext, "sixpgp round trip");
            assert_eq!(own.good_signers, signers, "sixpgp's own signature");
            let by_sq = sq::decrypt_with(&message, &passwords, true)
                .unwrap_or_else(|e| panic!("Sequoia cannot decrypt sixpgp's message: {e}"));
            assert!(by_sq.plaintext == spec.plaintext, "Sequoia reads another plaintext");
            check("Sequoia's good signatures", &by_sq.good_signers);
            if let Some(by_rpgp) = rpgp::decrypt_with(&message, &passwords, true) {
                let by_rpgp = by_rpgp.unwrap_or_else(|e| panic!("rPGP cannot decrypt sixpgp's message: {e}"));
                assert!(by_rpgp.plaintext == spec.plaintext, "rPGP reads another plaintext");
                check("rPGP's good signatures", &by_rpgp.good_signers);
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
            check(&format!("sixpgp's good signatures on {name}'s message"), &ours.good_signers);
            let (format, filename, _) = ours.literal.expect("sixpgp reports literal metadata");
            let want_format = if spec.format == b'b' { b'b' } else { b'u' };
            // rPGP 0.21's MessageBuilder writes an empty file name whatever it is given (see
            // README, "Disagreements").
            let want_name = if direction == 1 { Vec::new() } else { spec.filename.clone() };
            assert_eq!((format, filename), (want_format, want_name), "literal metadata of {name}'s message");
        }
    }
});
