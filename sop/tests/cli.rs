//! Runs the built `sixsop` binary: key generation, encryption, decryption, exit codes.
#![cfg(feature = "cli")]
#![allow(
    clippy::unwrap_used,
    clippy::cast_possible_truncation,
    reason = "test helpers fail loudly; test data is generated from small counters"
)]

mod common;
use common::{code, data, ok, run, tempdir};

#[test]
fn encrypt_decrypt_and_exit_codes() {
    let dir = tempdir("enc");
    let d = dir.as_path();
    let key = ok(&["generate-key", "Alice <alice@example.org>"], b"", d);
    std::fs::write(d.join("alice.key"), &key).unwrap();
    let cert = ok(&["extract-cert"], &key, d);
    std::fs::write(d.join("alice.cert"), &cert).unwrap();
    let plain = b"Hello, SOP!\n".repeat(1000);

    // Public-key round trip, armored and not, with session key out and in.
    let msg = ok(&["encrypt", "alice.cert"], &plain, d);
    assert!(msg.starts_with(b"-----BEGIN PGP MESSAGE-----"));
    assert_eq!(ok(&["decrypt", "--session-key-out", "sk", "alice.key"], &msg, d), plain);
    let sk = std::fs::read_to_string(d.join("sk")).unwrap();
    assert!(sk.starts_with("7:") || sk.starts_with("9:"), "{sk}");
    assert_eq!(ok(&["decrypt", "--with-session-key", "sk"], &msg, d), plain);
    let bin = ok(&["encrypt", "--no-armor", "--as", "text", "alice.cert"], &plain, d);
    assert_ne!(bin[0], b'-');
    assert_eq!(ok(&["decrypt", "alice.key"], &bin, d), plain);
    // armor / dearmor of a message.
    let armored = ok(&["armor"], &bin, d);
    assert_eq!(ok(&["dearmor"], &armored, d), bin);
    assert_eq!(ok(&["decrypt", "alice.key"], &armored, d), plain);
    // Several armor blocks (base64 on worker threads), both ways.
    let big: Vec<u8> = (0..3_000_000_u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8).collect();
    let msg = ok(&["encrypt", "alice.cert"], &big, d);
    assert!(msg.starts_with(b"-----BEGIN PGP MESSAGE-----"));
    assert!(ok(&["decrypt", "alice.key"], &msg, d) == big);
    let bin = ok(&["dearmor"], &msg, d);
    assert!(ok(&["armor"], &bin, d) == msg);

    // Password round trip; decryption tries the trailing-whitespace variant.
    std::fs::write(d.join("pw"), "correct horse\n").unwrap();
    std::fs::write(d.join("pw2"), "correct horse").unwrap();
    let msg = ok(&["encrypt", "--with-password", "pw"], &plain, d);
    assert_eq!(ok(&["decrypt", "--with-password", "pw2"], &msg, d), plain);
    assert_eq!(ok(&["decrypt", "--with-password", "pw"], &msg, d), plain);

    // Exit codes.
    assert_eq!(code(&["encrypt"], &plain, d), 19, "no CERTS, no password");
    let signing = ok(&["generate-key", "--signing-only", "S"], b"", d);
    std::fs::write(d.join("s.cert"), ok(&["extract-cert"], &signing, d)).unwrap();
    assert_eq!(code(&["encrypt", "s.cert"], &plain, d), 17, "cannot encrypt");
    let bob = ok(&["generate-key", "Bob"], b"", d);
    std::fs::write(d.join("bob.key"), &bob).unwrap();
    let msg = ok(&["encrypt", "alice.cert"], &plain, d);
    assert_eq!(code(&["decrypt", "bob.key"], &msg, d), 29, "wrong key");
    std::fs::write(d.join("kp"), "key password").unwrap();
    let locked = ok(&["generate-key", "--with-key-password", "kp", "L"], b"", d);
    std::fs::write(d.join("l.key"), &locked).unwrap();
    std::fs::write(d.join("l.cert"), ok(&["extract-cert"], &locked, d)).unwrap();
    let msg = ok(&["encrypt", "l.cert"], &plain, d);
    assert_eq!(code(&["decrypt", "l.key"], &msg, d), 67, "locked key");
    assert_eq!(ok(&["decrypt", "--with-key-password", "kp", "l.key"], &msg, d), plain);
    // Profiles.
    let profiles = String::from_utf8(ok(&["list-profiles", "encrypt"], b"", d)).unwrap();
    assert!(profiles.starts_with("default: "), "{profiles}");
    assert_eq!(code(&["encrypt", "--profile", "nope", "alice.cert"], &plain, d), 89);
    let msg = ok(&["encrypt", "--profile", "security", "alice.cert"], &plain, d);
    let _ = ok(&["decrypt", "--session-key-out", "sk9", "alice.key"], &msg, d);
    assert!(std::fs::read_to_string(d.join("sk9")).unwrap().starts_with("9:"));
    // A modified message fails, with a non-zero code.
    let mut bad = ok(&["encrypt", "--no-armor", "alice.cert"], &plain, d);
    let n = bad.len();
    bad[n - 5] ^= 1;
    assert_eq!(code(&["decrypt", "alice.key"], &bad, d), 29);
}

#[test]
fn decrypting_for_an_unsupported_key_says_which_algorithm() {
    // RFC 9980's sample message for an ML-KEM-1024+X448 subkey, with that secret key.
    let dir = tempdir("unsupported-key");
    let d = dir.as_path();
    std::fs::write(d.join("mldsa87.key"), data("v6-mldsa-87-sample-sk.asc")).unwrap();
    let out = run(&["decrypt", "mldsa87.key"], &data("v6-mldsa-87-sample-message.asc"), d);
    assert_eq!(out.status.code(), Some(29), "CANNOT_DECRYPT");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ML-KEM-1024+X448"), "{stderr}");
}

#[test]
fn every_certificate_and_key_of_a_keyring_is_used() {
    // Two keys in one file, as `cat alice.asc bob.asc` makes it: armored blocks one after the
    // other, or binary packets one after the other.
    let dir = tempdir("keyring");
    let d = dir.as_path();
    let alice = ok(&["generate-key", "Alice"], b"", d);
    let bob = ok(&["generate-key", "Bob"], b"", d);
    std::fs::write(d.join("alice.key"), &alice).unwrap();
    std::fs::write(d.join("bob.key"), &bob).unwrap();
    let alice_cert = ok(&["extract-cert"], &alice, d);
    let bob_cert = ok(&["extract-cert"], &bob, d);
    std::fs::write(d.join("bob.cert"), &bob_cert).unwrap();
    let binary = |armored: &[u8]| ok(&["dearmor"], armored, d);
    let rings = [
        ("armored", [&alice_cert[..], &bob_cert[..]].concat(), [&alice[..], &bob[..]].concat()),
        (
            "binary",
            [binary(&alice_cert), binary(&bob_cert)].concat(),
            [binary(&alice), binary(&bob)].concat(),
        ),
    ];
    let plain = b"to both\n";
    for (form, certs, keys) in rings {
        std::fs::write(d.join("both.cert"), &certs).unwrap();
        std::fs::write(d.join("both.key"), &keys).unwrap();
        let msg = ok(&["encrypt", "both.cert"], plain, d);
        // Each key alone decrypts: the message has both recipients.
        assert_eq!(ok(&["decrypt", "alice.key"], &msg, d), plain, "{form}");
        assert_eq!(ok(&["decrypt", "bob.key"], &msg, d), plain, "{form}");
        // A message to Bob alone decrypts with the keyring.
        let to_bob = ok(&["encrypt", "bob.cert"], plain, d);
        assert_eq!(ok(&["decrypt", "both.key"], &to_bob, d), plain, "{form}");
    }
}

#[test]
fn cfb_protected_keys_unlock_and_unsupported_protections_are_not_a_wrong_password() {
    // RFC 9580 A.4 under S2K usage 254 (CFB, SHA-1 check), 255 and a bare cipher ID; see
    // scripts/protected-keys.py.
    let dir = tempdir("cfb-keys");
    let d = dir.as_path();
    std::fs::write(d.join("cfb.key"), data("a04-locked-cfb-254.asc")).unwrap();
    std::fs::write(d.join("right"), "correct horse battery staple").unwrap();
    std::fs::write(d.join("wrong"), "wrong").unwrap();
    let message = data("a08-x25519-aead-ocb-message.asc");
    assert_eq!(ok(&["decrypt", "--with-key-password", "right", "cfb.key"], &message, d), b"Hello, world!");
    assert_eq!(code(&["decrypt", "--with-key-password", "wrong", "cfb.key"], &message, d), 67);
    assert_eq!(code(&["sign", "--with-key-password", "wrong", "cfb.key"], b"x", d), 67);
    let _ = ok(&["sign", "--with-key-password", "right", "cfb.key"], b"x", d);

    let a03 = ok(&["dearmor"], &data("a03-v6-certificate.asc"), d);
    for file in ["a04-locked-malleable-cfb-255.asc", "a04-locked-cipher-id-7.asc"] {
        let key = data(file);
        std::fs::write(d.join("other.key"), &key).unwrap();
        // The certificate is still there.
        assert_eq!(ok(&["extract-cert", "--no-armor"], &key, d), a03, "{file}");
        // Its secret cannot be used: bad data (with the protection named), not KEY_IS_PROTECTED.
        let out = run(&["sign", "--with-key-password", "right", "other.key"], b"x", d);
        assert_eq!(out.status.code(), Some(41), "{file}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("S2K usage"), "{file}: {stderr}");
        assert_eq!(code(&["sign", "other.key"], b"x", d), 41, "{file}");
    }
}

/// The encrypted packet's length octet: after the PKESK (whose header is read here), the SEIPD
/// packet's first length octet.
fn seipd_length_octet(msg: &[u8]) -> u8 {
    assert_eq!(msg[0], 0xc0 | 1, "a PKESK first");
    let first = usize::from(msg[1]);
    assert!(first < 224, "a one- or two-octet PKESK length");
    let (len, header) =
        if first < 192 { (first, 2) } else { (((first - 192) << 8) + usize::from(msg[2]) + 192, 3) };
    let seipd = &msg[header + len..];
    assert_eq!(seipd[0], 0xc0 | 18, "the SEIPD packet next");
    seipd[1]
}

/// With a regular file as standard input, `encrypt` knows the length in advance and writes
/// fixed lengths (which a seeking reader skips over); from a pipe, partial lengths. Both
/// decrypt to the plaintext.
#[test]
fn encrypt_from_a_regular_file_writes_fixed_lengths() {
    let dir = tempdir("fixed");
    let d = dir.as_path();
    let key = ok(&["generate-key", "Alice <alice@example.org>"], b"", d);
    std::fs::write(d.join("alice.key"), &key).unwrap();
    std::fs::write(d.join("alice.cert"), ok(&["extract-cert"], &key, d)).unwrap();
    let plain: Vec<u8> = (0..300_000_u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(d.join("plain"), &plain).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sixsop"))
        .args(["encrypt", "--no-armor", "alice.cert"])
        .current_dir(d)
        .stdin(std::fs::File::open(d.join("plain")).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let from_file = out.stdout;
    assert!(!(224..=254).contains(&seipd_length_octet(&from_file)), "a fixed length");
    let from_pipe = ok(&["encrypt", "--no-armor", "alice.cert"], &plain, d);
    assert!((224..=254).contains(&seipd_length_octet(&from_pipe)), "a partial length");
    assert_eq!(ok(&["decrypt", "alice.key"], &from_file, d), plain);
    assert_eq!(ok(&["decrypt", "alice.key"], &from_pipe, d), plain);
}
