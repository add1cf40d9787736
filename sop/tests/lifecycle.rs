//! Runs the built `sixsop` binary: revoke-key, merge-certs, update-key, certify-userid and
//! validate-userid, with their exit codes.
#![cfg(feature = "cli")]
#![allow(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::path::Path;

mod common;
use common::{code, ok, tempdir};

fn new_key(d: &Path, name: &str, user_id: &str, extra: &[&str]) -> Vec<u8> {
    let mut args = vec!["generate-key"];
    args.extend_from_slice(extra);
    args.push(user_id);
    let key = ok(&args, b"", d);
    std::fs::write(d.join(format!("{name}.key")), &key).unwrap();
    let cert = ok(&["extract-cert"], &key, d);
    std::fs::write(d.join(format!("{name}.cert")), &cert).unwrap();
    key
}

#[test]
fn revoked_cert_cannot_be_encrypted_to_and_merges() {
    let dir = tempdir("revoke");
    let d = dir.as_path();
    let key = new_key(d, "alice", "Alice <alice@example.org>", &[]);
    let cert = std::fs::read(d.join("alice.cert")).unwrap();
    assert_eq!(code(&["encrypt", "alice.cert"], b"hi", d), 0);
    let rev = ok(&["revoke-key"], &key, d);
    assert!(rev.starts_with(b"-----BEGIN PGP PUBLIC KEY BLOCK-----"));
    std::fs::write(d.join("alice.rev"), &rev).unwrap();
    assert_eq!(code(&["encrypt", "alice.rev"], b"hi", d), 17);

    // merge-certs: the revocation travels into the plain certificate; merging is idempotent.
    let merged = ok(&["merge-certs", "alice.rev"], &cert, d);
    std::fs::write(d.join("merged"), &merged).unwrap();
    assert_eq!(code(&["encrypt", "merged"], b"hi", d), 17);
    assert_eq!(
        ok(&["merge-certs", "--no-armor", "merged"], &merged, d),
        ok(&["merge-certs", "--no-armor", "alice.cert"], &merged, d)
    );

    // Locked keys need their password; a revoked key is PRIMARY_KEY_BAD for update-key.
    std::fs::write(d.join("pw"), b"secret").unwrap();
    let locked = ok(&["generate-key", "--with-key-password", "pw", "L"], b"", d);
    assert_eq!(code(&["revoke-key"], &locked, d), 67);
    assert_eq!(code(&["revoke-key", "--with-key-password", "pw"], &locked, d), 0);
    assert_eq!(code(&["update-key", "--merge-certs", "alice.rev"], &key, d), 103);
    assert_eq!(code(&["revoke-key"], &cert, d), 41);
}

#[test]
fn update_key_adds_a_pqc_subkey_and_keeps_the_password() {
    let dir = tempdir("update");
    let d = dir.as_path();
    std::fs::write(d.join("pw"), b"secret").unwrap();
    let key = new_key(d, "alice", "Alice <alice@example.org>", &["--with-key-password", "pw"]);
    assert_eq!(code(&["update-key"], &key, d), 67);
    let updated = ok(&["update-key", "--with-key-password", "pw"], &key, d);
    std::fs::write(d.join("updated.key"), &updated).unwrap();
    let cert = ok(&["extract-cert"], &updated, d);
    assert!(
        cert.len() > std::fs::read(d.join("alice.cert")).unwrap().len() + 1000,
        "an ML-KEM subkey was added"
    );
    std::fs::write(d.join("updated.cert"), &cert).unwrap();
    let msg = ok(&["encrypt", "updated.cert"], b"pq", d);
    assert_eq!(code(&["decrypt", "updated.key"], &msg, d), 67, "the updated key is still locked");
    assert_eq!(ok(&["decrypt", "--with-key-password", "pw", "updated.key"], &msg, d), b"pq");

    // --no-added-capabilities and --signing-only add nothing here.
    let same =
        ok(&["update-key", "--no-armor", "--no-added-capabilities", "--with-key-password", "pw"], &key, d);
    let signer = new_key(d, "s", "S", &["--signing-only"]);
    let signer_updated = ok(&["update-key", "--signing-only"], &signer, d);
    std::fs::write(d.join("s2.key"), &signer_updated).unwrap();
    let s2 = ok(&["extract-cert"], &signer_updated, d);
    std::fs::write(d.join("s2.cert"), s2).unwrap();
    assert_eq!(code(&["encrypt", "s2.cert"], b"x", d), 17);
    // The certificate of the key updated with --no-added-capabilities is unchanged.
    assert_eq!(ok(&["extract-cert", "--no-armor"], &same, d), ok(&["extract-cert", "--no-armor"], &key, d));
}

#[test]
fn certify_and_validate_user_ids() {
    let dir = tempdir("certify");
    let d = dir.as_path();
    let _ = new_key(d, "ca", "CA <ca@example.org>", &["--profile", "security"]);
    let _ = new_key(d, "other", "Other <other@example.org>", &[]);
    let _ = new_key(d, "alice", "Alice <alice@example.org>", &[]);
    let alice = std::fs::read(d.join("alice.cert")).unwrap();
    let uid = "Alice <alice@example.org>";

    assert_eq!(code(&["validate-userid", uid, "ca.cert"], &alice, d), 107);
    let certified = ok(&["certify-userid", "--userid", uid, "ca.key"], &alice, d);
    assert_eq!(code(&["validate-userid", uid, "ca.cert"], &certified, d), 0);
    assert_eq!(
        code(&["validate-userid", "--addr-spec-only", "alice@example.org", "ca.cert"], &certified, d),
        0
    );
    assert_eq!(
        code(&["validate-userid", "--addr-spec-only", "bob@example.org", "ca.cert"], &certified, d),
        107
    );
    assert_eq!(code(&["validate-userid", uid, "other.cert"], &certified, d), 107);
    assert_eq!(
        code(&["validate-userid", "--validate-at", "2000-01-01T00:00:00Z", uid, "ca.cert"], &certified, d),
        107
    );

    // No self-signed "Bob": 107 unless --no-require-self-sig.
    assert_eq!(code(&["certify-userid", "--userid", "Bob", "ca.key"], &alice, d), 107);
    let bob = ok(&["certify-userid", "--no-require-self-sig", "--userid", "Bob", "ca.key"], &alice, d);
    assert_eq!(code(&["validate-userid", "Bob", "ca.cert"], &bob, d), 0);
    // A certificate is not a key.
    assert_eq!(code(&["certify-userid", "--userid", uid, "ca.cert"], &alice, d), 41);
}

/// The fingerprints of `cert`'s X25519 and ML-KEM-768+X25519 keys, each with whether it is
/// revoked now.
fn encryption_keys(cert: &[u8]) -> Vec<(sixpgp::PublicKeyAlgorithm, bool)> {
    let cert = sixpgp::Cert::from_bytes(cert).unwrap();
    let now = std::time::SystemTime::now();
    cert.keys()
        .filter(|k| {
            matches!(
                k.algorithm(),
                sixpgp::PublicKeyAlgorithm::X25519 | sixpgp::PublicKeyAlgorithm::MlKem768X25519
            )
        })
        .map(|k| (k.algorithm(), k.is_revoked(now)))
        .collect()
}

#[test]
fn update_key_revokes_deprecated_keys_only_when_asked() {
    use sixpgp::PublicKeyAlgorithm::{MlKem768X25519, X25519};
    let dir = tempdir("revoke-deprecated");
    let d = dir.as_path();
    let key = new_key(d, "alice", "Alice <alice@example.org>", &["--profile", "rfc9580"]);
    assert_eq!(encryption_keys(&ok(&["extract-cert"], &key, d)), [(X25519, false)]);

    // Without the option: an ML-KEM-768+X25519 subkey is added, the X25519 one stays valid.
    let updated = ok(&["update-key"], &key, d);
    let cert = ok(&["extract-cert"], &updated, d);
    assert_eq!(encryption_keys(&cert), [(X25519, false), (MlKem768X25519, false)]);

    // With it (either position), the X25519 subkey is revoked as superseded.
    for args in [
        &["update-key", "--revoke-deprecated-keys"][..],
        &["--debug", "update-key", "--revoke-deprecated-keys", "--no-armor"],
    ] {
        let updated = ok(args, &key, d);
        let cert = ok(&["extract-cert"], &updated, d);
        assert_eq!(encryption_keys(&cert), [(X25519, true), (MlKem768X25519, false)], "{args:?}");
        // A message to the updated certificate goes to the new subkey only, and decrypts.
        std::fs::write(d.join("updated.cert"), &cert).unwrap();
        std::fs::write(d.join("updated.key"), &updated).unwrap();
        let message = ok(&["encrypt", "--no-armor", "updated.cert"], b"hi", d);
        let info = sixpgp::MessageInfo::from_bytes(&message).unwrap();
        assert_eq!(info.recipients.len(), 1);
        assert_eq!(ok(&["decrypt", "updated.key"], &message, d), b"hi");
    }
    // The option belongs to update-key: elsewhere the frontend refuses it (UNSUPPORTED_OPTION).
    assert_eq!(code(&["extract-cert", "--revoke-deprecated-keys"], &key, d), 37);
}

#[test]
fn encrypt_for_selects_keys_by_purpose() {
    let dir = tempdir("encrypt-for");
    let d = dir.as_path();
    // Generated encryption subkeys are flagged for both storage and communications.
    let _ = new_key(d, "alice", "Alice <alice@example.org>", &[]);
    for value in ["storage", "communications", "any"] {
        let joined = format!("--for={value}");
        for args in [
            vec!["encrypt", "--no-armor", "--for", value, "alice.cert"],
            vec!["encrypt", "--no-armor", &joined, "alice.cert"],
        ] {
            let message = ok(&args, b"for alice", d);
            assert_eq!(ok(&["decrypt", "alice.key"], &message, d), b"for alice", "{args:?}");
        }
    }
    // A signing-only key has no key for any purpose: CERT_CANNOT_ENCRYPT.
    let _ = new_key(d, "signer", "Signer <signer@example.org>", &["--signing-only"]);
    assert_eq!(code(&["encrypt", "--for=storage", "signer.cert"], b"x", d), 17);
    // A value SOP does not define is an unsupported option; a missing one a missing argument.
    assert_eq!(code(&["encrypt", "--for=archive", "alice.cert"], b"x", d), 37);
    assert_eq!(code(&["encrypt", "alice.cert", "--for"], b"x", d), 19);
    // After `--`, `--for` is a CERTS argument (here a missing file: MISSING_INPUT).
    assert_eq!(code(&["encrypt", "alice.cert", "--", "--for=storage"], b"x", d), 61);
    // Other subcommands do not have it.
    assert_eq!(code(&["sign", "--for=storage", "alice.key"], b"x", d), 37);
}
