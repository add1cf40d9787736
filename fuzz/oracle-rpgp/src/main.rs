//! The rPGP oracle process: reads requests (`../src/common.rs`: op, then a length-prefixed body)
//! from stdin and answers each with a length-prefixed body on stdout, until EOF. A panic in
//! rPGP is answered as an error starting with `rPGP panicked`.

#[path = "../../src/common.rs"]
mod common;

use std::io::{BufReader, BufWriter, Read, Write};
use std::sync::OnceLock;

use common::{MessageSpec, OP_CERT, OP_DECRYPT, OP_ENCRYPT, Opened, SECRET_KEYS, Unwire, Wire};
use pgp::composed::{Deserializable, Message, MessageBuilder, SignedPublicKey, SignedSecretKey, TheRing};
use pgp::crypto::aead::{AeadAlgorithm, ChunkSize};
use pgp::crypto::hash::HashAlgorithm;
use pgp::crypto::sym::SymmetricKeyAlgorithm;
use pgp::packet::DataMode;
use pgp::types::{KeyDetails, Password, StringToKey};
use rand_core::{RngCore, SeedableRng};

struct Keys {
    secret: Vec<SignedSecretKey>,
    public: Vec<SignedPublicKey>,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let secret: Vec<SignedSecretKey> = SECRET_KEYS
            .iter()
            .map(|k| SignedSecretKey::from_armor_single(*k).expect("fixed key").0)
            .collect();
        let public = secret.iter().map(|k| k.to_public_key()).collect();
        Keys { secret, public }
    })
}

fn cert(data: &[u8]) -> Result<(Vec<u8>, Vec<Vec<u8>>), String> {
    let key = if data.starts_with(b"-----") {
        SignedPublicKey::from_armor_single(data).map(|(k, _)| k)
    } else {
        SignedPublicKey::from_bytes(data)
    }
    .map_err(|e| format!("{e}"))?;
    let mut subkeys: Vec<Vec<u8>> =
        key.public_subkeys.iter().map(|s| s.key.fingerprint().as_bytes().to_vec()).collect();
    subkeys.sort();
    Ok((key.primary_key.fingerprint().as_bytes().to_vec(), subkeys))
}

fn literal_of(msg: &Message<'_>) -> Option<(u8, Vec<u8>, u32)> {
    msg.literal_data_header().map(|h| (u8::from(h.mode()), h.file_name().to_vec(), h.created().as_secs()))
}

fn read_all(mut msg: Message<'_>, verify: bool) -> Result<Opened, String> {
    while msg.is_compressed() {
        msg = msg.decompress().map_err(|e| format!("decompress: {e}"))?;
    }
    let literal = literal_of(&msg);
    let mut plaintext = Vec::new();
    msg.read_to_end(&mut plaintext).map_err(|e| format!("read: {e}"))?;
    let literal = literal.or_else(|| literal_of(&msg));
    let mut good_signers = Vec::new();
    if verify && msg.is_signed() {
        for (i, k) in keys().public.iter().enumerate() {
            if msg.verify(k).is_ok() {
                good_signers.push(i);
            }
        }
    }
    Ok(Opened { plaintext, good_signers, literal })
}

fn decrypt(message: &[u8], passwords: &[String], verify: bool) -> Result<Opened, String> {
    let msg = if message.starts_with(b"-----") {
        Message::from_armor(message).map(|(m, _)| m)
    } else {
        Message::from_bytes(message)
    }
    .map_err(|e| format!("parse: {e}"))?;
    let k = keys();
    let empty = Password::empty();
    let pws: Vec<Password> = passwords.iter().map(|p| Password::from(p.as_str())).collect();
    let ring = TheRing {
        secret_keys: k.secret.iter().collect(),
        key_passwords: vec![&empty],
        message_password: pws.iter().collect(),
        ..Default::default()
    };
    let (msg, _) = msg.decrypt_the_ring(ring, true).map_err(|e| format!("decrypt: {e}"))?;
    read_all(msg, verify)
}

/// Encrypts (and signs) `spec`, its randomness drawn from `spec.seed`. Passwords get an Argon2
/// S2K of 64 KiB and 1 pass (within sixpgp's fuzz limits).
fn encrypt(spec: &MessageSpec) -> Result<Vec<u8>, String> {
    let k = keys();
    let mut rng = rand_chacha::ChaCha20Rng::from_seed(spec.seed);
    let sym = SymmetricKeyAlgorithm::from(spec.suite.0);
    let aead = AeadAlgorithm::from(spec.suite.1);
    let chunk = ChunkSize::try_from(spec.chunk_octet).map_err(|e| format!("{e:?}"))?;
    let mut b = MessageBuilder::from_bytes(spec.filename.clone(), spec.plaintext.clone())
        .seipd_v2(&mut rng, sym, aead, chunk);
    let mode = if spec.format == b'b' { DataMode::Binary } else { DataMode::Utf8 };
    b.data_mode(mode).map_err(|e| format!("{e}"))?;
    if mode != DataMode::Binary {
        b.sign_text();
    }
    for &r in &spec.recipients {
        let sub = &k.public[r].public_subkeys[0];
        b.encrypt_to_key(&mut rng, sub).map_err(|e| format!("{e}"))?;
    }
    for p in &spec.passwords {
        let mut salt = [0u8; 16];
        rng.fill_bytes(&mut salt);
        let s2k = StringToKey::Argon2 { salt, t: 1, p: 1, m_enc: 6 };
        b.encrypt_with_password(&mut rng, s2k, &Password::from(p.as_str())).map_err(|e| format!("{e}"))?;
    }
    if let Some(s) = spec.signer {
        let hash = if s == 2 { HashAlgorithm::Sha3_256 } else { HashAlgorithm::Sha256 };
        b.sign(&*k.secret[s], Password::empty(), hash);
    }
    b.to_vec(&mut rng).map_err(|e| format!("{e}"))
}

fn answer(op: u8, body: &[u8]) -> Wire {
    let mut r = Unwire(body);
    let mut w = Wire::default();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match op {
        OP_CERT => cert(r.bytes()).map(|(fp, subs)| {
            let mut w = Wire::default();
            w.bytes(&fp).u32(subs.len() as u32);
            for s in &subs {
                w.bytes(s);
            }
            w
        }),
        OP_DECRYPT => {
            let verify = r.u8() != 0;
            let passwords: Vec<String> =
                (0..r.u8()).map(|_| String::from_utf8_lossy(r.bytes()).into_owned()).collect();
            decrypt(r.bytes(), &passwords, verify).map(|o| {
                let mut w = Wire::default();
                o.encode(&mut w);
                w
            })
        }
        OP_ENCRYPT => encrypt(&MessageSpec::decode(&mut r)).map(|m| {
            let mut w = Wire::default();
            w.bytes(&m);
            w
        }),
        _ => Err(format!("unknown request {op}")),
    }));
    match outcome {
        Ok(Ok(ok)) => {
            w.u8(0);
            w.0.extend_from_slice(&ok.0);
        }
        Ok(Err(e)) => {
            w.u8(1).bytes(e.as_bytes());
        }
        Err(p) => {
            let what = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()));
            w.u8(1).bytes(format!("rPGP panicked: {}", what.unwrap_or_default()).as_bytes());
        }
    }
    w
}

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = BufWriter::new(std::io::stdout().lock());
    loop {
        let mut op = [0u8; 1];
        if input.read_exact(&mut op).is_err() {
            return;
        }
        let mut len = [0u8; 4];
        input.read_exact(&mut len).expect("request length");
        let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut body).expect("request body");
        let a = answer(op[0], &body);
        output.write_all(&(a.0.len() as u32).to_le_bytes()).expect("write");
        output.write_all(&a.0).expect("write");
        output.flush().expect("flush");
    }
}
