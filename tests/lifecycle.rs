//! Certificate lifecycle through the public API: revocation, expiration, merging, updating,
//! third-party certification and its validation.
#![allow(clippy::unwrap_used, reason = "test helpers outside #[test] functions unwrap too")]

use std::io::{Read, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sixpgp::{
    Cert, DecryptedWith, Decryptor, Encryptor, Error, KeyBuilder, KeyUpdate, Password, Profile,
    PublicKeyAlgorithm, ReasonForRevocation, Signer, Tsk, Verifier,
};

const T0: u64 = 1_750_000_000;

fn at(offset: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(T0 + offset)
}

fn key(profile: Profile, name: &str) -> Tsk {
    KeyBuilder::new(profile).user_id(name).creation_time(at(0)).generate().unwrap()
}

fn copy(tsk: &Tsk) -> Tsk {
    Tsk::from_bytes(&tsk.to_vec()).unwrap()
}

fn sign_at(tsk: &Tsk, t: SystemTime, data: &[u8]) -> Vec<u8> {
    let mut w = Signer::new().key(tsk).creation_time(t).detached().unwrap();
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

fn verifies(cert: &Cert, sig: &[u8], data: &[u8]) -> bool {
    let certs = [cert.clone()];
    let results = Verifier::new(&certs).at(at(1_000_000)).verify_detached(sig, data).unwrap();
    results.iter().any(sixpgp::Verification::is_good)
}

fn encrypt_at(cert: &Cert, t: SystemTime, data: &[u8]) -> sixpgp::Result<Vec<u8>> {
    let mut w = Encryptor::new([cert]).at(t).writer(Vec::new())?;
    w.write_all(data).map_err(Error::from_io)?;
    w.finish()
}

fn decrypt(tsk: &Tsk, msg: &[u8]) -> (Vec<u8>, DecryptedWith) {
    let mut r = Decryptor::new([tsk]).reader(msg).unwrap();
    let mut out = Vec::new();
    let _ = r.read_to_end(&mut out).unwrap();
    (out, r.finish().unwrap().decrypted_with)
}

#[test]
fn soft_revocation_stops_encryption_and_later_signatures() {
    for profile in [Profile::Rfc9580, Profile::Pqc] {
        let mut tsk = key(profile, "Alice <alice@example.org>");
        let signer = copy(&tsk);
        let before = sign_at(&signer, at(50), b"data");
        let after = sign_at(&signer, at(200), b"data");
        let rev = tsk.revocation_certificate(ReasonForRevocation::Superseded, "new key", at(100)).unwrap();
        // The revocation certificate is the primary key and the revocation only.
        assert_eq!(rev.fingerprint(), tsk.fingerprint());
        assert_eq!(rev.user_ids().count(), 0);
        let revoked = tsk.to_cert().merge(rev).unwrap();
        assert!(revoked.can_encrypt_at(at(50)));
        assert!(!revoked.can_encrypt_at(at(200)));
        assert!(matches!(encrypt_at(&revoked, at(200), b"x"), Err(Error::KeyUnusable { .. })));
        assert!(revoked.check_valid_at(at(200)).is_err());
        assert!(verifies(&revoked, &before, b"data"), "a soft revocation keeps earlier signatures");
        assert!(!verifies(&revoked, &after, b"data"), "signatures after the revocation fail");
        // Revoking in place gives the same validity; serialization round-trips.
        tsk.revoke(ReasonForRevocation::Superseded, "new key", at(100)).unwrap();
        assert!(!tsk.cert().can_encrypt_at(at(200)));
        assert_eq!(Cert::from_bytes(revoked.to_armored().as_bytes()).unwrap(), revoked);
    }
}

#[test]
fn hard_revocation_invalidates_earlier_signatures() {
    let tsk = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let before = sign_at(&tsk, at(50), b"data");
    let rev = tsk.revocation_certificate(ReasonForRevocation::Compromised, "leaked", at(100)).unwrap();
    let revoked = tsk.to_cert().merge(rev).unwrap();
    assert!(verifies(&tsk.to_cert(), &before, b"data"));
    assert!(!verifies(&revoked, &before, b"data"));
    assert!(!revoked.can_encrypt_at(at(50)));
}

#[test]
fn revocation_needs_an_unlocked_key_and_a_key_reason() {
    let mut tsk = key(Profile::Rfc9580, "Alice <alice@example.org>");
    assert!(matches!(
        tsk.revocation_certificate(ReasonForRevocation::UserIdInvalid, "", at(1)),
        Err(Error::InvalidArgument(_))
    ));
    tsk.lock(&Password::from("pw")).unwrap();
    assert!(matches!(
        tsk.revocation_certificate(ReasonForRevocation::default(), "", at(1)),
        Err(Error::KeyLocked { .. })
    ));
}

#[test]
fn subkey_and_user_id_revocations() {
    let mut tsk = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let sub = tsk.cert().subkey_fingerprints().next().unwrap();
    tsk.revoke_subkey(&sub, ReasonForRevocation::Retired, "", at(100)).unwrap();
    assert!(tsk.cert().can_encrypt_at(at(50)));
    assert!(!tsk.cert().can_encrypt_at(at(200)));
    assert!(tsk.cert().check_valid_at(at(200)).is_ok(), "the primary key stays valid");

    let uid = b"Alice <alice@example.org>";
    assert_eq!(tsk.cert().valid_user_ids_at(at(200)), vec![&uid[..]]);
    tsk.revoke_user_id(uid, ReasonForRevocation::UserIdInvalid, "left", at(100)).unwrap();
    assert!(tsk.cert().valid_user_ids_at(at(200)).is_empty());
    assert_eq!(tsk.cert().valid_user_ids_at(at(50)), vec![&uid[..]]);
    assert!(matches!(
        tsk.revoke_user_id(b"Nobody", ReasonForRevocation::UserIdInvalid, "", at(1)),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn expired_subkey_is_not_chosen_and_extension_revives_it() {
    let mut tsk = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let sub = tsk.cert().subkey_fingerprints().next().unwrap();
    tsk.set_expiration(&sub, Some(at(1000)), at(10)).unwrap();
    assert_eq!(tsk.cert().encryption_keys_at(at(500)), vec![(sub, PublicKeyAlgorithm::X25519)]);
    assert!(tsk.cert().encryption_keys_at(at(2000)).is_empty());
    assert!(matches!(encrypt_at(tsk.cert(), at(2000), b"x"), Err(Error::KeyUnusable { .. })));

    // Extending the expiration makes the subkey usable again from the time the new binding
    // was issued (the newest binding valid at a time decides).
    tsk.set_expiration(&sub, Some(at(10_000)), at(3000)).unwrap();
    assert!(tsk.cert().can_encrypt_at(at(5000)));
    assert!(!tsk.cert().can_encrypt_at(at(20_000)));
    tsk.set_expiration(&sub, None, at(4000)).unwrap();
    assert!(tsk.cert().can_encrypt_at(at(1_000_000)));
    let msg = encrypt_at(tsk.cert(), at(5000), b"hello").unwrap();
    assert_eq!(decrypt(&tsk, &msg).0, b"hello");
    assert!(matches!(tsk.set_expiration(&sub, Some(at(0)), at(5000)), Err(Error::InvalidArgument(_))));
}

#[test]
fn primary_expiration_set_extend_remove() {
    let mut tsk = key(Profile::Pqc, "Alice <alice@example.org>");
    let fp = tsk.fingerprint();
    tsk.set_expiration(&fp, Some(at(1000)), at(10)).unwrap();
    assert!(tsk.cert().check_valid_at(at(500)).is_ok());
    assert!(tsk.cert().check_valid_at(at(1500)).is_err());
    assert!(!tsk.cert().can_encrypt_at(at(1500)));
    // The user ID self-signature carries the same expiration, the rest is kept.
    let reparsed = Cert::from_bytes(&tsk.cert().to_vec()).unwrap();
    assert_eq!(reparsed.valid_user_ids_at(at(500)).len(), 1);
    tsk.set_expiration(&fp, None, at(20)).unwrap();
    assert!(tsk.cert().check_valid_at(at(1_000_000)).is_ok());
    assert!(tsk.cert().can_sign_at(at(1_000_000)));
}

#[test]
fn merge_is_idempotent_commutative_and_keeps_revocations() {
    let mut tsk = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let original = tsk.to_cert();
    let sub = tsk.cert().subkey_fingerprints().next().unwrap();
    tsk.revoke_subkey(&sub, ReasonForRevocation::Retired, "", at(100)).unwrap();
    let with_sub_rev = tsk.to_cert();
    let key_rev = tsk.revocation_certificate(ReasonForRevocation::Superseded, "", at(200)).unwrap();

    let ab = original.clone().merge(with_sub_rev.clone()).unwrap();
    let ba = with_sub_rev.clone().merge(original.clone()).unwrap();
    assert_eq!(ab, ba);
    assert_eq!(ab.clone().merge(ab.clone()).unwrap(), ab);
    assert_eq!(ab.clone().merge(original.clone()).unwrap(), ab);
    assert!(!ab.can_encrypt_at(at(150)), "the subkey revocation is kept");

    let all = ab.clone().merge(key_rev.clone()).unwrap();
    assert_eq!(all, key_rev.merge(ab).unwrap());
    assert!(all.check_valid_at(at(250)).is_err(), "the key revocation is kept");
    assert!(all.check_valid_at(at(150)).is_ok());

    // A different certificate does not merge.
    let other = key(Profile::Rfc9580, "Bob <bob@example.org>").to_cert();
    assert!(matches!(original.merge(other), Err(Error::InvalidArgument(_))));
}

#[test]
fn merge_drops_self_signatures_that_do_not_verify() {
    let tsk = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let cert = tsk.to_cert();
    let mut bytes = cert.to_vec();
    // Flip a bit in the last octet: the signature material of the subkey binding.
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    let broken = Cert::from_bytes(&bytes).unwrap();
    assert_ne!(broken, cert);
    let merged = broken.clone().merge(broken).unwrap();
    assert!(!merged.can_encrypt_at(at(10)), "the broken binding is gone");
    assert_eq!(merged.clone().merge(cert.clone()).unwrap(), cert.clone().merge(cert).unwrap());
}

#[test]
fn update_adds_a_pqc_subkey_that_becomes_the_encryption_key() {
    let mut tsk = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let classic = tsk.cert().subkey_fingerprints().next().unwrap();
    tsk.update(KeyUpdate::new().at(at(10))).unwrap();
    let keys = tsk.cert().encryption_keys_at(at(20));
    assert_eq!(keys.len(), 2);
    let (pqc, alg) = *keys.iter().find(|(fp, _)| *fp != classic).unwrap();
    assert_eq!(alg, PublicKeyAlgorithm::MlKem768X25519);
    // A second update changes nothing: the PQC subkey is there.
    let before = tsk.to_vec();
    tsk.update(KeyUpdate::new().at(at(30))).unwrap();
    assert_eq!(tsk.to_vec(), before);

    tsk.update(KeyUpdate::new().revoke_deprecated_keys(true).at(at(40))).unwrap();
    assert_eq!(tsk.cert().encryption_keys_at(at(50)), vec![(pqc, PublicKeyAlgorithm::MlKem768X25519)]);
    let tsk = Tsk::from_bytes(&tsk.to_vec()).unwrap();
    let msg = encrypt_at(tsk.cert(), at(50), b"post-quantum").unwrap();
    let (plain, with) = decrypt(&tsk, &msg);
    assert_eq!(plain, b"post-quantum");
    assert_eq!(with, DecryptedWith::Key { cert: tsk.fingerprint(), key: pqc });
}

#[test]
fn update_respects_signing_only_and_no_added_capabilities() {
    let mut classic = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let before = classic.to_vec();
    classic.update(KeyUpdate::new().no_added_capabilities(true).at(at(10))).unwrap();
    assert_eq!(classic.to_vec(), before);

    let mut signer = KeyBuilder::new(Profile::Rfc9580)
        .user_id("S")
        .creation_time(at(0))
        .signing_only(true)
        .generate()
        .unwrap();
    signer.update(KeyUpdate::new().signing_only(true).at(at(10))).unwrap();
    assert!(!signer.cert().can_encrypt_at(at(20)));
    signer.update(KeyUpdate::new().at(at(10))).unwrap();
    assert!(signer.cert().can_encrypt_at(at(20)));

    // A revoked key is not updated; merged revocations count.
    let mut tsk = key(Profile::Rfc9580, "Alice <alice@example.org>");
    let rev = tsk.revocation_certificate(ReasonForRevocation::Superseded, "", at(5)).unwrap();
    assert!(matches!(
        tsk.update(KeyUpdate::new().merge_cert(rev).at(at(10))),
        Err(Error::KeyUnusable { .. })
    ));
    // A locked key cannot be updated.
    let mut locked = key(Profile::Rfc9580, "Alice <alice@example.org>");
    locked.lock(&Password::from("pw")).unwrap();
    assert!(matches!(locked.update(KeyUpdate::new().at(at(10))), Err(Error::KeyLocked { .. })));
}

#[test]
fn certify_and_validate_user_ids() {
    let ca = key(Profile::Pqc, "CA <ca@example.org>");
    let other = key(Profile::Rfc9580, "Other <other@example.org>");
    let alice = key(Profile::Rfc9580, "Alice <alice@example.org>").to_cert();
    let uid = b"Alice <alice@example.org>";
    let authorities = [ca.to_cert()];

    assert!(!alice.validate_user_id(uid, &authorities, at(20)));
    let certified = ca.certify_user_id(&alice, uid, true, at(10)).unwrap();
    assert!(certified.validate_user_id(uid, &authorities, at(20)));
    assert!(certified.validate_addr_spec("ALICE@example.org", &authorities, at(20)));
    assert!(!certified.validate_addr_spec("bob@example.org", &authorities, at(20)));
    assert!(!certified.validate_user_id(b"Alice", &authorities, at(20)));
    assert!(!certified.validate_user_id(uid, &authorities, at(5)), "not before it was made");
    assert!(!certified.validate_user_id(uid, &[other.to_cert()], at(20)), "wrong authority");
    // The certification survives serialization and merging.
    let reparsed = Cert::from_bytes(&certified.to_vec()).unwrap().merge(alice.clone()).unwrap();
    assert!(reparsed.validate_user_id(uid, &authorities, at(20)));
    // An authority whose key is hard-revoked vouches for nothing.
    let ca_rev = ca.revocation_certificate(ReasonForRevocation::Compromised, "", at(30)).unwrap();
    let revoked_ca = [ca.to_cert().merge(ca_rev).unwrap()];
    assert!(!certified.validate_user_id(uid, &revoked_ca, at(40)));
    // An authority's own self-signed user IDs are valid.
    assert!(ca.cert().validate_user_id(b"CA <ca@example.org>", &authorities, at(20)));

    // A user ID without self-signature: only with require_self_sig = false.
    assert!(matches!(ca.certify_user_id(&alice, b"Bob", true, at(10)), Err(Error::InvalidArgument(_))));
    let bob = ca.certify_user_id(&alice, b"Bob <bob@example.org>", false, at(10)).unwrap();
    assert!(bob.validate_addr_spec("bob@example.org", &authorities, at(20)));
    assert!(bob.valid_user_ids_at(at(20)).iter().all(|u| *u != b"Bob <bob@example.org>"));
}
