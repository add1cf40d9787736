//! A downstream program's use of sixpgp through the `sop` crate's traits only: [`sop::SOP`]
//! and the operation builders it returns, with no sixpgp type in sight but [`SixSop`].
#![allow(clippy::unwrap_used, reason = "a test fails by panicking")]

use sixpgp_sop::SixSop;
use sop::ops::SignAs;
use sop::{Load, Password, SOP, Save};

/// Code written against the trait, for any implementation: generates a key for each of
/// `profiles`, encrypts and signs to it, decrypts and verifies, signs and verifies detached.
fn round_trip<'s, S: SOP<'s>>(sop: &'s S, profiles: &[&str]) -> sop::Result<()>
where
    S::Keys: Load<'s, S> + Save,
    S::Certs: Load<'s, S> + Save,
    S::Sigs: Load<'s, S> + Save,
{
    let plaintext = b"Hello through the SOP traits!\n".repeat(1000);
    for profile in profiles {
        let key = sop.generate_key()?.profile(profile)?.userid("Alice <alice@example.org>").generate()?;
        let cert = sop.extract_cert()?.keys(&key)?;

        // Keys and certificates travel as OpenPGP bytes.
        let key = S::Keys::from_bytes(sop, &key.to_vec(true)?)?;
        let cert = S::Certs::from_bytes(sop, &cert.to_vec(false)?)?;

        let (session_key, ciphertext) = sop
            .encrypt()?
            .with_certs(&cert)?
            .sign_with_keys(&key)?
            .plaintext(&mut &plaintext[..])?
            .to_vec()?;
        assert!(session_key.is_some());
        assert!(ciphertext.starts_with(b"-----BEGIN PGP MESSAGE-----"));
        let ((_, verifications), decrypted) = sop
            .decrypt()?
            .with_keys(&key)?
            .verify_with_certs(&cert)?
            .ciphertext(&mut &ciphertext[..])?
            .to_vec()?;
        assert_eq!(decrypted, plaintext);
        assert_eq!(verifications.len(), 1);

        let (_micalg, sigs) = sop.sign()?.mode(SignAs::Text).keys(&key)?.data(&mut &plaintext[..])?;
        let verifications = sop.verify()?.certs(&cert)?.signatures(&sigs)?.data(&mut &plaintext[..])?;
        assert_eq!(verifications.len(), 1);
        let mut tampered = plaintext.clone();
        tampered[3] ^= 1;
        let err = sop.verify()?.certs(&cert)?.signatures(&sigs)?.data(&mut &tampered[..]).unwrap_err();
        assert!(matches!(err, sop::errors::Error::NoSignature), "{err:?}");
    }
    Ok(())
}

#[test]
fn encrypt_decrypt_sign_verify_through_the_trait() {
    let sop = SixSop::default();
    let profiles: Vec<String> =
        sop.generate_key().unwrap().list_profiles().into_iter().map(|(name, _)| name).collect();
    assert!(profiles.iter().any(|p| p == "default"), "{profiles:?}");
    assert!(profiles.iter().any(|p| p == "security"), "{profiles:?}");
    round_trip(&sop, &["default", "security"]).unwrap();
}

#[test]
fn trait_errors_are_sop_errors() {
    let sop = SixSop::new();
    let alice = sop.generate_key().unwrap().userid("Alice").generate().unwrap();
    let bob = sop.generate_key().unwrap().userid("Bob").generate().unwrap();
    let cert = sop.extract_cert().unwrap().keys(&alice).unwrap();
    let (_, ciphertext) = sop
        .encrypt()
        .unwrap()
        .with_certs(&cert)
        .unwrap()
        .plaintext(&mut &b"secret"[..])
        .unwrap()
        .to_vec()
        .unwrap();

    // The wrong key: CANNOT_DECRYPT, and no plaintext.
    let mut out = Vec::new();
    let err = sop
        .decrypt()
        .unwrap()
        .with_keys(&bob)
        .unwrap()
        .ciphertext(&mut &ciphertext[..])
        .unwrap()
        .to_writer(&mut out)
        .map(|_| ());
    assert!(matches!(err, Err(sop::errors::Error::CannotDecrypt)), "{err:?}");
    assert!(out.is_empty());

    // A password-protected key needs its password.
    let locked = sop
        .generate_key()
        .unwrap()
        .with_key_password(Password::new_unchecked(b"correct horse".to_vec()))
        .unwrap()
        .userid("Carol")
        .generate()
        .unwrap();
    let err = sop.sign().unwrap().keys(&locked).unwrap().data(&mut &b"x"[..]).map(|_| ());
    assert!(matches!(err, Err(sop::errors::Error::KeyIsProtected)), "{err:?}");

    // Not OpenPGP: BAD_DATA.
    let err = sixpgp_sop::Certs::from_bytes(&sop, b"not a certificate").map(|_| ());
    assert!(matches!(err, Err(sop::errors::Error::BadData)), "{err:?}");
    // The frontend's name.
    assert_eq!(sop.version().unwrap().frontend().unwrap().name, "sixsop");
    assert_eq!(SixSop::with_name("sixsopv").version().unwrap().frontend().unwrap().name, "sixsopv");
}

/// `Keys`'s `Debug` names the keys and hides what an offline attack on the password needs
/// (RFC 9580 A.5: the primary key's Argon2 salt starts 5d6fd71c, its IV b4a8a927, the encrypted
/// secret 78258fa4).
#[test]
fn debug_of_locked_keys_hides_salt_iv_and_encrypted_secret() {
    let sop = SixSop::default();
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/a05-v6-secret-key-locked.asc");
    let keys = sixpgp_sop::Keys::from_bytes(&sop, &std::fs::read(path).unwrap()).unwrap();
    let shown = format!("{keys:?}");
    for octets in
        ["93, 111, 215, 28", "180, 168, 169, 39", "120, 37, 143, 164", "5d6fd71c", "b4a8a927", "78258fa4"]
    {
        assert!(!shown.to_lowercase().contains(octets), "{octets} in {shown}");
    }
    assert!(shown.to_lowercase().contains("cb186c4f"), "{shown}");
    assert!(shown.contains("(locked)"), "{shown}");
}
