//! The adapter to sixpgp: the only file of the differential targets that calls it.

use std::io::Write;
use std::sync::OnceLock;
use std::time::{Duration, UNIX_EPOCH};

use sixpgp::{
    AeadAlgorithm, Cert, DataFormat, Decryptor, Encryptor, Error, Limits, SymmetricAlgorithm, Tsk, Unsupported,
};

use crate::{
    CertView, MessageSpec, Opened, PASSWORD, SECRET_KEYS, SeededRng, critical_unknown_packet_type, fixed_time,
    in_scope_algorithm,
};

struct Keys {
    tsks: Vec<Tsk>,
    certs: Vec<Cert>,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let tsks: Vec<Tsk> = SECRET_KEYS.iter().map(|k| Tsk::from_bytes(k).expect("fixed key")).collect();
        let certs = tsks.iter().map(Tsk::to_cert).collect();
        Keys { tsks, certs }
    })
}

/// Why sixpgp refused, split into what it deliberately does not implement (the RFC 9580 v6
/// subset with RFC 9980: no SEIPDv1, v3 PKESK, v4 SKESK, compression, legacy packet framing,
/// other algorithms) or a fuzz limit, and everything else.
#[derive(Debug)]
pub enum Refusal {
    OutOfScope(String),
    /// A packet of an unknown critical type (0, 15, 16, 22 to 39) where a certificate or a
    /// message has its packets: RFC 9580 §4.3 makes the whole sequence invalid, where an
    /// oracle may skip the packet.
    CriticalUnknownPacket(u8),
    Refused(String),
}

fn classify(e: &Error) -> Refusal {
    if let Error::Malformed(m) = e
        && let Some(t) = m.packet_type().filter(|&t| critical_unknown_packet_type(t))
    {
        return Refusal::CriticalUnknownPacket(t);
    }
    let out = match e {
        Error::LimitExceeded(_) => true,
        Error::Unsupported(u) => match u {
            Unsupported::SymmetricAlgorithm(a) => !matches!(a, 7..=9),
            Unsupported::AeadAlgorithm(a) => !matches!(a, 1..=3),
            Unsupported::PublicKeyAlgorithm(a) => !in_scope_algorithm(*a),
            Unsupported::Seipdv1
            | Unsupported::SkeskV4
            | Unsupported::PkeskV3
            | Unsupported::CompressedData
            | Unsupported::LegacyPacketFormat
            | Unsupported::PacketVersion { .. }
            | Unsupported::S2k(_)
            | Unsupported::HashAlgorithm(_) => true,
            _ => false,
        },
        _ => false,
    };
    if out { Refusal::OutOfScope(format!("{e}")) } else { Refusal::Refused(format!("{e:?}")) }
}

fn io_classify(e: &std::io::Error) -> Refusal {
    match e.get_ref().and_then(|i| i.downcast_ref::<Error>()) {
        Some(inner) => classify(inner),
        None => Refusal::Refused(format!("{e}")),
    }
}

/// Decrypts `message` with every fixed key and [`PASSWORD`] under the fuzz limits; with
/// `verify`, also checks signatures against the fixed certificates.
pub fn decrypt(message: &[u8], verify: bool) -> Result<Opened, Refusal> {
    open(message, &[PASSWORD], verify, sixpgp::fuzzing::fuzz_limits())
}

/// Decrypts a message made from a spec (by sixpgp or an oracle) with every fixed key and
/// `passwords`: the fuzz limits, except that Argon2 may cost what sixpgp's own SKESKs cost
/// (64 MiB, 3 passes, 4 lanes), or a message with only a password would be refused. Not for
/// the fuzzer's own input, which `decrypt` takes.
pub fn decrypt_with(message: &[u8], passwords: &[&str], verify: bool) -> Result<Opened, Refusal> {
    let limits = sixpgp::fuzzing::fuzz_limits()
        .with_max_argon2_memory_kib(1 << 16)
        .with_max_argon2_passes(3)
        .with_max_argon2_parallelism(4);
    open(message, passwords, verify, limits)
}

fn open(message: &[u8], passwords: &[&str], verify: bool, limits: Limits) -> Result<Opened, Refusal> {
    let k = keys();
    let mut d = Decryptor::new(&k.tsks).limits(limits).at(fixed_time());
    for p in passwords {
        d = d.password(*p);
    }
    if verify {
        d = d.verify_with(&k.certs);
    }
    let mut r = d.reader(message).map_err(|e| classify(&e))?;
    let mut plaintext = Vec::new();
    std::io::Read::read_to_end(&mut r, &mut plaintext).map_err(|e| io_classify(&e))?;
    let summary = r.finish().map_err(|e| classify(&e))?;
    let fps: Vec<_> = k.certs.iter().map(Cert::fingerprint).collect();
    let mut good_signers: Vec<usize> = summary
        .verifications
        .iter()
        .filter(|v| v.is_good())
        .filter_map(|v| v.cert().and_then(|c| fps.iter().position(|f| *f == c)))
        .collect();
    good_signers.sort_unstable();
    good_signers.dedup();
    let lit = &summary.literal;
    let format = match lit.format() {
        DataFormat::Binary => b'b',
        DataFormat::Utf8 => b'u',
        DataFormat::Text => b't',
        DataFormat::Unknown(v) => v,
        _ => 0,
    };
    let date = lit.date().map_or(0, |d| d.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as u32));
    Ok(Opened { plaintext, good_signers, literal: Some((format, lit.filename().to_vec(), date)) })
}

/// Encrypts (and signs) `spec` with sixpgp, its randomness drawn from `spec.seed`.
pub fn encrypt(spec: &MessageSpec) -> Result<Vec<u8>, String> {
    let k = keys();
    let sym = SymmetricAlgorithm::from(spec.suite.0);
    let aead = AeadAlgorithm::from(spec.suite.1);
    let mut e = Encryptor::new(spec.recipients.iter().map(|&i| &k.certs[i]))
        .cipher_suite(sym, aead)
        .chunk_size(1 << (spec.chunk_octet + 6))
        .at(fixed_time())
        .rng(SeededRng::new(spec.seed))
        .format(match spec.format {
            b'u' => DataFormat::Utf8,
            b't' => DataFormat::Text,
            _ => DataFormat::Binary,
        })
        .filename(spec.filename.clone())
        .date(UNIX_EPOCH + Duration::from_secs(spec.date.into()))
        .hidden_recipients(spec.hidden);
    if spec.padding > 0 {
        e = e.padding(spec.padding);
    }
    for p in &spec.passwords {
        e = e.password(p.as_str());
    }
    if let Some(s) = spec.signer {
        e = e.signer(&k.tsks[s]);
    }
    let mut w = e.writer(Vec::new()).map_err(|e| format!("{e:?}"))?;
    w.write_all(&spec.plaintext).map_err(|e| format!("{e:?}"))?;
    w.finish().map_err(|e| format!("{e:?}"))
}

/// sixpgp's view of the certificate in `data` (binary or armored; a secret key is read as its
/// certificate, as Sequoia's `Cert` does).
pub fn cert(data: &[u8]) -> Result<CertView, Refusal> {
    let c = match Cert::from_bytes(data) {
        Ok(c) => c,
        Err(e) => Tsk::from_bytes(data).map(|k| k.to_cert()).map_err(|_| classify(&e))?,
    };
    let t = fixed_time();
    let mut subkeys: Vec<Vec<u8>> = c.subkey_fingerprints().map(|f| f.as_bytes().to_vec()).collect();
    subkeys.sort();
    let mut encryption_keys: Vec<Vec<u8>> = c
        .encryption_keys_at(t)
        .into_iter()
        .filter(|(_, a)| in_scope_algorithm(u8::from(*a)))
        .map(|(f, _)| f.as_bytes().to_vec())
        .collect();
    encryption_keys.sort();
    Ok(CertView {
        fingerprint: c.fingerprint().as_bytes().to_vec(),
        subkeys,
        valid: c.check_valid_at(t).is_ok(),
        encryption_keys,
        can_sign: c.can_sign_at(t),
        in_scope: true,
    })
}
