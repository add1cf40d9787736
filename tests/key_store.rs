//! A `KeyStore` that production code can implement: it can fail with its own error, it can be
//! shared (`&T`, `Box<T>`, `Arc<T>`), and it can hand out locked keys with their passwords.
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, reason = "test helpers fail loudly")]

use std::convert::Infallible;
use std::error::Error as _;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use sixpgp::{
    Cert, Decryptor, Encryptor, Error, Fingerprint, KeyBuilder, KeyStore, MessageInfo, Password, Profile,
    Recipient, Signer, Tsk, Verifier,
};

fn at(seconds: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + seconds)
}

fn key(name: &str) -> Tsk {
    KeyBuilder::new(Profile::Rfc9580).user_id(name).creation_time(at(0)).generate().unwrap()
}

/// The error of a store whose database is down.
#[derive(Debug)]
struct Down;

impl fmt::Display for Down {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("database unreachable")
    }
}

impl std::error::Error for Down {}

struct Unreachable;

impl KeyStore for Unreachable {
    type Error = Down;

    fn secret_keys(&self, _: &[Recipient]) -> Result<Vec<Arc<Tsk>>, Down> {
        Err(Down)
    }

    fn certs(&self, _: &[Fingerprint]) -> Result<Vec<Arc<Cert>>, Down> {
        Err(Down)
    }
}

fn is_down(err: &Error) -> bool {
    matches!(err, Error::KeyStore(_)) && err.source().is_some_and(|s| s.is::<Down>())
}

#[test]
fn a_failing_store_is_not_a_missing_key() {
    let (alice, bob) = (key("Alice <a@example.org>"), key("Bob <b@example.org>"));
    let message = Encryptor::new([bob.to_cert()]).at(at(10)).encrypt_bytes(b"x").unwrap();
    let err = Decryptor::default().key_store(Unreachable).decrypt_bytes(&message).unwrap_err();
    assert!(is_down(&err), "{err:?}");
    assert_eq!(err.to_string(), "key store failed");

    let signature = Signer::new().key(&alice).creation_time(at(10)).sign_bytes(b"doc").unwrap();
    let verifier = Verifier::new(Vec::<Cert>::new()).key_store(Unreachable).at(at(20));
    let err = verifier.verify_bytes(&signature, b"doc").unwrap_err();
    assert!(is_down(&err), "{err:?}");
    // The error travels through the streaming adapters' `io::Error` and back.
    let io: std::io::Error = err.into();
    assert!(is_down(&Error::from_io(io)));
}

/// Keys held in memory; records the passwords it was asked for.
struct Ring {
    keys: Vec<Arc<Tsk>>,
    certs: Vec<Arc<Cert>>,
    password: Option<&'static str>,
    asked: Mutex<Vec<Fingerprint>>,
}

impl Ring {
    fn new(keys: Vec<Tsk>, certs: Vec<Cert>, password: Option<&'static str>) -> Self {
        Self {
            keys: keys.into_iter().map(Arc::new).collect(),
            certs: certs.into_iter().map(Arc::new).collect(),
            password,
            asked: Mutex::new(Vec::new()),
        }
    }
}

impl KeyStore for Ring {
    type Error = Infallible;

    fn secret_keys(&self, recipients: &[Recipient]) -> Result<Vec<Arc<Tsk>>, Infallible> {
        Ok(self.keys.iter().filter(|k| recipients.iter().any(|r| r.matches(k.cert()))).cloned().collect())
    }

    fn certs(&self, issuers: &[Fingerprint]) -> Result<Vec<Arc<Cert>>, Infallible> {
        Ok(self.certs.iter().filter(|c| issuers.iter().any(|i| c.has_key(i))).cloned().collect())
    }

    fn password(&self, key: &Fingerprint) -> Result<Option<Password>, Infallible> {
        self.asked.lock().unwrap().push(*key);
        Ok(self.password.map(Password::from))
    }
}

#[test]
fn references_boxes_and_arcs_of_a_store_are_stores() {
    let (alice, bob) = (key("Alice <a@example.org>"), key("Bob <b@example.org>"));
    let message = Encryptor::new([bob.to_cert()]).signer(&alice).at(at(10)).encrypt_bytes(b"hi").unwrap();
    let check = |decryptor: Decryptor| {
        let (plain, summary) = decryptor.at(at(20)).decrypt_bytes(&message).unwrap();
        assert_eq!(plain, b"hi");
        assert!(summary.is_signed_by(&alice.to_cert()));
    };
    let ring = || Ring::new(vec![bob.clone()], vec![alice.to_cert()], None);
    let leaked: &'static Ring = Box::leak(Box::new(ring()));
    check(Decryptor::default().key_store(leaked));
    check(Decryptor::default().key_store(Box::new(ring())));
    check(Decryptor::default().key_store(Arc::new(ring())));
    let shared: Arc<dyn KeyStore<Error = Infallible>> = Arc::new(ring());
    check(Decryptor::default().key_store(Arc::clone(&shared)));
}

#[test]
fn locked_keys_are_opened_with_the_store_password() {
    let bob = key("Bob <b@example.org>");
    let mut locked = bob.clone();
    locked.lock(&Password::from("bob's password")).unwrap();
    let message = Encryptor::new([bob.to_cert()]).at(at(10)).encrypt_bytes(b"for bob").unwrap();
    let subkey = bob.cert().keys().find(|k| !k.is_primary()).unwrap().fingerprint();

    // The store knows the password: asked for the key the message is encrypted to.
    let ring = Arc::new(Ring::new(vec![locked.clone()], Vec::new(), Some("bob's password")));
    let (plain, _) = Decryptor::default().key_store(Arc::clone(&ring)).decrypt_bytes(&message).unwrap();
    assert_eq!(plain, b"for bob");
    assert_eq!(*ring.asked.lock().unwrap(), [subkey]);
    assert!(ring.keys[0].is_locked(), "the store's key stays locked");

    // No password: the locked key is named.
    let ring = Ring::new(vec![locked.clone()], Vec::new(), None);
    let err = Decryptor::default().key_store(ring).decrypt_bytes(&message).unwrap_err();
    assert!(matches!(err, Error::KeyLocked { fingerprint, .. } if fingerprint == subkey), "{err:?}");

    // A wrong password.
    let ring = Arc::new(Ring::new(vec![locked], Vec::new(), Some("wrong")));
    let err = Decryptor::default().key_store(Arc::clone(&ring)).decrypt_bytes(&message).unwrap_err();
    assert!(matches!(err, Error::BadPassword), "{err:?}");

    // A message whose PKESKs name the key several times asks (and runs its S2K) once.
    ring.asked.lock().unwrap().clear();
    let twice = Encryptor::new([bob.to_cert(), bob.to_cert()]).at(at(10)).encrypt_bytes(b"x").unwrap();
    assert_eq!(MessageInfo::from_bytes(&twice).unwrap().recipients.len(), 2);
    let err = Decryptor::default().key_store(Arc::clone(&ring)).decrypt_bytes(&twice).unwrap_err();
    assert!(matches!(err, Error::BadPassword), "{err:?}");
    assert_eq!(*ring.asked.lock().unwrap(), [subkey]);
}

#[test]
fn certificates_answer_which_keys_they_hold() {
    let (alice, bob) = (key("Alice <a@example.org>"), key("Bob <b@example.org>"));
    let cert = alice.to_cert();
    let subkey = cert.keys().find(|k| !k.is_primary()).unwrap().fingerprint();
    assert!(cert.has_key(&cert.fingerprint()));
    assert!(cert.has_key(&subkey));
    assert!(!cert.has_key(&bob.fingerprint()));
    assert_eq!(cert.key(&subkey).map(|k| k.fingerprint()), Some(subkey));
    assert!(cert.key(&cert.fingerprint()).unwrap().is_primary());
    assert!(cert.key(&bob.fingerprint()).is_none());

    let message = Encryptor::new([&cert]).at(at(10)).encrypt_bytes(b"x").unwrap();
    let recipients = MessageInfo::from_bytes(&message).unwrap().recipients;
    assert!(recipients.iter().all(|r| r.matches(&cert)));
    assert!(!recipients.iter().any(|r| r.matches(bob.cert())));
    assert!(!Recipient::Anonymous.matches(&cert));
}
