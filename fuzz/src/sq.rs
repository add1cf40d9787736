//! The Sequoia oracle (`sequoia-openpgp` 2, pure-Rust crypto, experimental and variable-time
//! algorithms allowed, so ML-KEM-768+X25519 and ML-DSA-65+Ed25519 are in).

use std::io::{Read, Write};
use std::sync::OnceLock;

use openpgp::cert::prelude::*;
use openpgp::crypto::{Password, SessionKey};
use openpgp::crypto::S2K;
use openpgp::packet::skesk::SKESK6;
use openpgp::packet::{PKESK, SKESK};
use openpgp::parse::stream::{
    DecryptionHelper, DecryptorBuilder, MessageLayer, MessageStructure, VerificationHelper,
};
use openpgp::parse::{PacketParser, PacketParserResult, Parse};
use openpgp::policy::StandardPolicy;
use openpgp::serialize::Serialize;
use openpgp::serialize::stream::{Encryptor, LiteralWriter, Message, Signer};
use openpgp::types::{AEADAlgorithm, DataFormat, HashAlgorithm, SignatureType, SymmetricAlgorithm};
use openpgp::{Cert, KeyHandle, Packet};
use sequoia_openpgp as openpgp;

use crate::{CertView, MessageSpec, Opened, PASSWORD, SECRET_KEYS, fixed_time, in_scope_algorithm};

static POLICY: StandardPolicy<'static> = StandardPolicy::new();

fn keys() -> &'static [Cert] {
    static KEYS: OnceLock<Vec<Cert>> = OnceLock::new();
    KEYS.get_or_init(|| SECRET_KEYS.iter().map(|k| Cert::from_bytes(k).expect("fixed key")).collect())
}

/// Sequoia's view of the certificate in `data`.
pub fn cert(data: &[u8]) -> Result<CertView, String> {
    let cert = Cert::from_bytes(data).map_err(|e| format!("{e}"))?;
    let t = fixed_time();
    let mut subkeys: Vec<Vec<u8>> = cert.keys().subkeys().map(|k| k.key().fingerprint().as_bytes().to_vec()).collect();
    subkeys.sort();
    let vc = cert.with_policy(&POLICY, t).ok();
    let valid = vc.as_ref().is_some_and(|vc| {
        vc.alive().is_ok() && !matches!(vc.revocation_status(), openpgp::types::RevocationStatus::Revoked(_))
    });
    let (mut encryption_keys, can_sign) = match (&vc, valid) {
        (Some(vc), true) => {
            let enc = vc
                .keys()
                .alive()
                .revoked(false)
                .for_transport_encryption()
                .for_storage_encryption()
                .filter(|k| in_scope_algorithm(u8::from(k.key().pk_algo())))
                .map(|k| k.key().fingerprint().as_bytes().to_vec())
                .collect();
            let sign = vc.keys().alive().revoked(false).for_signing().next().is_some();
            (enc, sign)
        }
        _ => (Vec::new(), false),
    };
    encryption_keys.sort();
    let in_scope = cert.keys().all(|k| {
        matches!(k.key().version(), 6) && in_scope_algorithm(u8::from(k.key().pk_algo()))
    });
    Ok(CertView {
        fingerprint: cert.fingerprint().as_bytes().to_vec(),
        subkeys,
        valid,
        encryption_keys,
        can_sign,
        in_scope,
    })
}

/// Whether every SKESK at the top level of `message` has an S2K within sixpgp's fuzz limits
/// (Argon2 at most 256 KiB, 2 passes, 4 lanes; iterated at most 2^16 octets), so that all
/// three implementations can afford to try the password.
#[must_use]
pub fn s2k_affordable(message: &[u8]) -> bool {
    let Ok(mut ppr) = PacketParser::from_bytes(message) else { return true };
    let mut n = 0;
    while let PacketParserResult::Some(pp) = ppr {
        n += 1;
        if n > 64 {
            return false;
        }
        let s2k = match &pp.packet {
            Packet::SKESK(SKESK::V6(s)) => Some(s.s2k().clone()),
            Packet::SKESK(SKESK::V4(s)) => Some(s.s2k().clone()),
            _ => None,
        };
        #[allow(deprecated)]
        let ok = match s2k {
            None => true,
            Some(S2K::Argon2 { t, p, m, .. }) => m <= 8 && t <= 2 && p <= 4,
            Some(S2K::Iterated { hash_bytes, .. }) => hash_bytes <= 1 << 16,
            Some(_) => true,
        };
        if !ok {
            return false;
        }
        match pp.next() {
            Ok((_, next)) => ppr = next,
            Err(_) => return true,
        }
    }
    true
}

struct Helper<'a> {
    passwords: &'a [&'a str],
    good: Vec<usize>,
}

impl VerificationHelper for Helper<'_> {
    fn get_certs(&mut self, _ids: &[KeyHandle]) -> openpgp::Result<Vec<Cert>> {
        Ok(keys().iter().map(|c| c.clone().strip_secret_key_material()).collect())
    }
    fn check(&mut self, structure: MessageStructure) -> openpgp::Result<()> {
        let fps: Vec<_> = keys().iter().map(Cert::fingerprint).collect();
        for layer in structure.into_iter() {
            if let MessageLayer::SignatureGroup { results } = layer {
                for g in results.into_iter().flatten() {
                    if let Some(i) = fps.iter().position(|f| *f == g.ka.cert().fingerprint()) {
                        self.good.push(i);
                    }
                }
            }
        }
        Ok(())
    }
}

impl DecryptionHelper for Helper<'_> {
    fn decrypt(
        &mut self,
        pkesks: &[PKESK],
        skesks: &[SKESK],
        sym_algo: Option<SymmetricAlgorithm>,
        decrypt: &mut dyn FnMut(Option<SymmetricAlgorithm>, &SessionKey) -> bool,
    ) -> openpgp::Result<Option<Cert>> {
        for pkesk in pkesks {
            for cert in keys() {
                for ka in cert.keys().unencrypted_secret() {
                    let matches = match pkesk.recipient() {
                        None => true,
                        Some(h) => h.aliases(KeyHandle::from(ka.key().fingerprint())),
                    };
                    if !matches {
                        continue;
                    }
                    let Ok(mut pair) = ka.key().clone().into_keypair() else { continue };
                    if let Some((algo, sk)) = pkesk.decrypt(&mut pair, sym_algo) {
                        if decrypt(algo, &sk) {
                            return Ok(None);
                        }
                    }
                }
            }
        }
        for skesk in skesks {
            for p in self.passwords {
                if let Ok((algo, sk)) = skesk.decrypt(&Password::from(*p)) {
                    if decrypt(algo, &sk) {
                        return Ok(None);
                    }
                }
            }
        }
        Err(anyhow::anyhow!("no key or password opened the message"))
    }
}

pub fn decrypt_with(message: &[u8], passwords: &[&str], verify: bool) -> Result<Opened, String> {
    let helper = Helper { passwords, good: Vec::new() };
    let mut d = DecryptorBuilder::from_bytes(message)
        .map_err(|e| format!("parse: {e}"))?
        .with_policy(&POLICY, Some(fixed_time()), helper)
        .map_err(|e| format!("decrypt: {e}"))?;
    let mut plaintext = Vec::new();
    d.read_to_end(&mut plaintext).map_err(|e| format!("read: {e}"))?;
    if !d.message_processed() {
        return Err("message not processed".into());
    }
    let helper = d.into_helper();
    let mut good_signers = if verify { helper.good } else { Vec::new() };
    good_signers.sort_unstable();
    good_signers.dedup();
    Ok(Opened { plaintext, good_signers, literal: None })
}

pub fn decrypt(message: &[u8], verify: bool) -> Result<Opened, String> {
    decrypt_with(message, &[PASSWORD], verify)
}

/// Encrypts (and signs) `spec` with Sequoia (its own randomness; chunk size 4 KiB, Sequoia's
/// only one). Passwords get an iterated S2K of 1024 octets (within sixpgp's fuzz limits).
pub fn encrypt(spec: &MessageSpec) -> Result<Vec<u8>, String> {
    let e = |e: anyhow::Error| format!("{e}");
    let sym = SymmetricAlgorithm::from(spec.suite.0);
    let aead = AEADAlgorithm::from(spec.suite.1);
    let t = fixed_time();
    let vcs: Vec<ValidCert<'_>> =
        keys().iter().map(|c| c.with_policy(&POLICY, t)).collect::<openpgp::Result<_>>().map_err(e)?;
    let recipients: Vec<_> = spec
        .recipients
        .iter()
        .flat_map(|&i| vcs[i].keys().alive().revoked(false).for_transport_encryption().for_storage_encryption())
        .collect();
    let mut sink = Vec::new();
    {
        let mut message = Message::new(&mut sink);
        let sk = SessionKey::new(sym.key_size().map_err(e)?).map_err(e)?;
        for p in &spec.passwords {
            let s2k = S2K::new_iterated(HashAlgorithm::SHA256, 1024).map_err(e)?;
            let skesk = SKESK6::with_password(sym, sym, aead, s2k, &sk, &Password::from(p.as_str())).map_err(e)?;
            Packet::SKESK(skesk.into()).serialize(&mut message).map_err(e)?;
        }
        let message = Encryptor::with_session_key(message, sym, sk)
            .map_err(e)?
            .add_recipients(recipients)
            .aead_algo(aead)
            .build()
            .map_err(e)?;
        let text = spec.format != b'b';
        let message = match spec.signer {
            Some(s) => {
                let pair = vcs[s]
                    .keys()
                    .unencrypted_secret()
                    .for_signing()
                    .next()
                    .ok_or("no signing key")?
                    .key()
                    .clone()
                    .into_keypair()
                    .map_err(e)?;
                let typ = if text { SignatureType::Text } else { SignatureType::Binary };
                Signer::with_template(message, pair, openpgp::packet::signature::SignatureBuilder::new(typ))
                    .map_err(e)?
                    .creation_time(t)
                    .build()
                    .map_err(e)?
            }
            None => message,
        };
        let format = if text { DataFormat::Unicode } else { DataFormat::Binary };
        let mut w = LiteralWriter::new(message)
            .format(format)
            .filename(&spec.filename)
            .map_err(e)?
            .date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(spec.date.into()))
            .map_err(e)?
            .build()
            .map_err(e)?;
        w.write_all(&spec.plaintext).map_err(|x| format!("{x}"))?;
        w.finalize().map_err(e)?;
    }
    Ok(sink)
}
