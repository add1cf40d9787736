//! `sixsop` on the foundation subcommands: RFC 9580 sample keys, profiles, armor, passwords.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

mod common;
use common::{code, data, ok, tempdir};

#[test]
fn extract_cert_of_a04_is_a03() {
    let d = tempdir("a04");
    let cert = ok(&["extract-cert", "--no-armor"], &data("a04-v6-secret-key.asc"), &d);
    let a03 = ok(&["dearmor"], &data("a03-v6-certificate.asc"), &d);
    assert_eq!(cert, a03);
    // Binary input works as well as armored, and armor round-trips.
    let tsk = ok(&["dearmor"], &data("a04-v6-secret-key.asc"), &d);
    assert_eq!(ok(&["extract-cert", "--no-armor"], &tsk, &d), a03);
    let armored = ok(&["armor"], &a03, &d);
    assert!(armored.starts_with(b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n"));
    assert_eq!(ok(&["dearmor"], &armored, &d), a03);
    // armor is idempotent.
    assert_eq!(ok(&["armor"], &armored, &d), armored);
}

#[test]
fn a05_unlocks_with_its_passphrase_only() {
    let d = tempdir("a05");
    std::fs::write(d.join("good"), "correct horse battery staple").unwrap();
    let locked = data("a05-v6-secret-key-locked.asc");
    // Without a password: KEY_IS_PROTECTED (67). (A wrong password is covered by the library
    // tests; each try costs two 2 GiB Argon2 runs.)
    assert_eq!(code(&["change-key-password"], &locked, &d), 67);
    let open = ok(&["change-key-password", "--no-armor", "--old-key-password", "good"], &locked, &d);
    assert_eq!(open, ok(&["dearmor"], &data("a04-v6-secret-key.asc"), &d));
}

#[test]
fn every_profile_generates_a_usable_key() {
    let d = tempdir("profiles");
    let list = String::from_utf8(ok(&["list-profiles", "generate-key"], b"", &d)).unwrap();
    let names: Vec<&str> = list.lines().map(|l| l.split(':').next().unwrap()).collect();
    assert_eq!(names, ["default", "security", "pqc-encryption"]);
    for name in names.iter().copied().chain(["rfc9580", "rfc9980", "performance", "compatibility"]) {
        let key = ok(&["generate-key", "--profile", name, "Test <test@example.org>"], b"", &d);
        std::fs::write(d.join("k"), &key).unwrap();
        let cert = ok(&["extract-cert"], &key, &d);
        std::fs::write(d.join("c"), &cert).unwrap();
        let msg = ok(&["encrypt", "c"], b"hello", &d);
        assert_eq!(ok(&["decrypt", "k"], &msg, &d), b"hello", "{name}");
    }
    assert_eq!(code(&["generate-key", "--profile", "nope"], b"", &d), 89);
    // --signing-only: no encryption subkey, so encrypting to it fails with 17.
    let key = ok(&["generate-key", "--signing-only", "S"], b"", &d);
    std::fs::write(d.join("s"), ok(&["extract-cert"], &key, &d)).unwrap();
    assert_eq!(code(&["encrypt", "s"], b"x", &d), 17);
    // --as=text needs UTF-8 input: EXPECTED_TEXT (53) otherwise.
    std::fs::write(d.join("c"), ok(&["extract-cert"], &ok(&["generate-key", "T"], b"", &d), &d)).unwrap();
    assert_eq!(code(&["encrypt", "--as", "text", "c"], &[0xff, 0xfe], &d), 53);
    let _ = ok(&["encrypt", "--as", "text", "c"], "grüße\n".as_bytes(), &d);
}

#[test]
fn generate_key_with_password_and_bad_input() {
    let d = tempdir("pw");
    std::fs::write(d.join("pw"), "secret\n").unwrap();
    let key = ok(&["generate-key", "--with-key-password", "pw", "P"], b"", &d);
    assert_eq!(code(&["change-key-password"], &key, &d), 67);
    // The trailing newline is trimmed when the key is locked and tried both ways when unlocking.
    std::fs::write(d.join("pw2"), "secret").unwrap();
    let _ = ok(&["change-key-password", "--old-key-password", "pw2"], &key, &d);
    // Not OpenPGP, or a certificate where a key is expected: BAD_DATA (41).
    assert_eq!(code(&["extract-cert"], b"garbage", &d), 41);
    assert_eq!(code(&["extract-cert"], &data("a03-v6-certificate.asc"), &d), 41);
    // A v4 key is refused cleanly.
    assert_eq!(code(&["extract-cert"], &data("a01-v4-ed25519legacy-public-key.asc"), &d), 41);
    // A password that is not human-readable cannot create material (31).
    std::fs::write(d.join("bin"), [0xff, 0xfe, 0x00]).unwrap();
    assert_eq!(code(&["generate-key", "--with-key-password", "bin", "P"], b"", &d), 31);
}

#[test]
fn version_outputs() {
    let d = tempdir("version");
    let v = String::from_utf8(ok(&["version"], b"", &d)).unwrap();
    assert!(v.starts_with("sixsop "), "{v}");
    let spec = String::from_utf8(ok(&["version", "--sop-spec"], b"", &d)).unwrap();
    assert!(spec.contains("draft-dkg-openpgp-stateless-cli"), "{spec}");
    let backend = String::from_utf8(ok(&["version", "--backend"], b"", &d)).unwrap();
    assert!(backend.starts_with("sixpgp "), "{backend}");
}
