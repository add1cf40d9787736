//! Describes certificates, secret keys and messages, armored or binary.
//!
//! `cargo run --example inspect -- [--json] FILE...` describes each file: for a certificate or
//! key its fingerprint, user IDs, primary user ID, creation, expiration and revocation, and the
//! same per subkey with algorithm and flags; for a message its recipients, password packets and
//! signers. With `--json`, one JSON object per input. Without files it describes a key and a
//! message it makes itself.

use std::fs;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use sixpgp::{Cert, Encryptor, KeyBuilder, KeyInfo, MessageInfo, Profile, Recipient, Signer};

/// RFC 3339 in UTC, from seconds since the epoch (proleptic Gregorian calendar).
fn rfc3339(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil-from-days.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

fn key_json(k: &KeyInfo<'_>, now: SystemTime) -> Value {
    json!({
        "fingerprint": k.fingerprint().to_string(),
        "algorithm": format!("{:?}", k.algorithm()),
        "flags": k.flags(now).names(),
        "created": rfc3339(k.creation_time()),
        "expires": k.expiration_time(now).map(rfc3339),
        "revoked": k.is_revoked(now),
    })
}

fn cert_json(cert: &Cert, now: SystemTime) -> Value {
    json!({
        "fingerprint": cert.fingerprint().to_string(),
        "user_ids": cert.user_id_strings().collect::<Vec<_>>(),
        "primary_user_id": cert.primary_user_id(now),
        "created": rfc3339(cert.creation_time()),
        "expires": cert.expiration_time(now).map(rfc3339),
        "revoked": cert.is_revoked(now),
        "subkeys": cert.keys().skip(1).map(|k| key_json(&k, now)).collect::<Vec<_>>(),
    })
}

fn message_json(info: &MessageInfo) -> Value {
    let recipients: Vec<String> = info
        .recipients
        .iter()
        .map(|r| match r {
            Recipient::Fingerprint(f) => f.to_string(),
            Recipient::V4Fingerprint(f) => f.iter().map(|b| format!("{b:02X}")).collect(),
            _ => "anonymous".to_string(),
        })
        .collect();
    json!({
        "encrypted": info.encrypted,
        "recipients": recipients,
        "passwords": info.passwords,
        // Session-key packets decryption will not try, and what this crate lacks for each.
        "skipped": info.skipped.iter().map(|p| format!("{p:?}")).collect::<Vec<_>>(),
        "signers": info.signers.iter().map(ToString::to_string).collect::<Vec<_>>(),
    })
}

/// Describes one input: as certificates (secret keys parse as their certificates), else as a
/// message.
fn describe(bytes: &[u8], now: SystemTime) -> Result<Vec<Value>, sixpgp::Error> {
    match Cert::read_all(bytes) {
        Ok(certs) if !certs.is_empty() => Ok(certs.iter().map(|c| cert_json(c, now)).collect()),
        _ => Ok(vec![message_json(&MessageInfo::from_bytes(bytes)?)]),
    }
}

fn print(value: &Value, as_json: bool) {
    if as_json {
        println!("{value}");
        return;
    }
    let Value::Object(map) = value else { return };
    for (k, v) in map {
        match v {
            Value::Array(items) if items.iter().any(Value::is_object) => {
                println!("{k}:");
                for item in items {
                    println!("  - {}", item);
                }
            }
            _ => println!("{k}: {v}"),
        }
    }
    println!();
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let now = SystemTime::now();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let as_json = args.iter().any(|a| a == "--json");
    let files: Vec<&String> = args.iter().filter(|a| *a != "--json").collect();
    let inputs: Vec<Vec<u8>> = if files.is_empty() {
        let key = KeyBuilder::new(Profile::Pqc).user_id("Alice <alice@example.org>").generate()?;
        let bob = KeyBuilder::new(Profile::Rfc9580).user_id("Bob <bob@example.org>").generate()?;
        let message =
            Encryptor::new([key.to_cert(), bob.to_cert()]).password("pw").armor(true).encrypt_bytes(b"hi")?;
        let signed = Signer::new().key(&key).armor(true).inline_writer(Vec::new())?.finish()?;
        vec![key.to_cert().to_armored().into_bytes(), message, signed]
    } else {
        files.iter().map(fs::read).collect::<Result<_, _>>()?
    };
    for input in &inputs {
        for value in describe(input, now)? {
            print(&value, as_json);
        }
    }
    Ok(())
}
