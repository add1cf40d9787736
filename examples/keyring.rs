//! Decrypts and verifies against a directory of keys and certificates that the library
//! consults as the message names them (`KeyStore`): only the keys it asks for are parsed.
//!
//! `cargo run --example keyring -- DIR MESSAGE` decrypts MESSAGE with the secret keys (`*.key`)
//! and certificates (`*.cert`, `*.asc`) in DIR, and prints the plaintext and the verdicts.
//! Without arguments it builds such a directory in a temporary folder and runs on it.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sixpgp::{Cert, Decryptor, Encryptor, Fingerprint, KeyBuilder, KeyStore, Profile, Recipient, Tsk};

/// A directory of keys: files are read only when a message names one of their keys.
struct Directory(PathBuf);

impl Directory {
    /// Every file of the directory with one of `extensions`.
    fn files(&self, extensions: &[&str]) -> Vec<PathBuf> {
        let Ok(entries) = fs::read_dir(&self.0) else { return Vec::new() };
        entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)))
            .collect()
    }
}

impl KeyStore for Directory {
    fn secret_keys(&self, recipients: &[Recipient]) -> Vec<Arc<Tsk>> {
        let wanted = |tsk: &Tsk| {
            tsk.cert().keys().any(|k| {
                recipients.contains(&Recipient::Fingerprint(k.fingerprint()))
                    || recipients.contains(&Recipient::Anonymous)
            })
        };
        let keys = self.files(&["key"]).into_iter().filter_map(|p| Tsk::from_bytes(&fs::read(p).ok()?).ok());
        let found: Vec<Arc<Tsk>> = keys.filter(wanted).map(Arc::new).collect();
        eprintln!("keyring: {} recipient(s) named, {} secret key(s) found", recipients.len(), found.len());
        found
    }

    fn certs(&self, issuers: &[Fingerprint]) -> Vec<Arc<Cert>> {
        let certs = self
            .files(&["cert", "asc"])
            .into_iter()
            .filter_map(|p| Cert::from_bytes(&fs::read(p).ok()?).ok());
        let found: Vec<Arc<Cert>> =
            certs.filter(|c| c.keys().any(|k| issuers.contains(&k.fingerprint()))).map(Arc::new).collect();
        eprintln!("keyring: {} signer(s) named, {} certificate(s) found", issuers.len(), found.len());
        found
    }
}

fn run(dir: &Path, message: &[u8]) -> sixpgp::Result<()> {
    let decryptor = Decryptor::default().key_store(Directory(dir.to_path_buf()));
    let (plaintext, summary) = decryptor.decrypt_bytes(message)?;
    println!("{}", String::from_utf8_lossy(&plaintext));
    for v in &summary.verifications {
        println!("signature by {}: {}", v.cert().map_or("unknown".into(), |f| f.to_string()), v.status());
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [dir, message] = &args[..] {
        return Ok(run(Path::new(dir), &fs::read(message)?)?);
    }
    // Demonstration: a directory with three keys and two certificates.
    let dir = std::env::temp_dir().join(format!("sixpgp-keyring-{}", std::process::id()));
    fs::create_dir_all(&dir)?;
    let mut keys = Vec::new();
    for name in ["alice", "bob", "carol"] {
        let tsk =
            KeyBuilder::new(Profile::Rfc9580).user_id(format!("{name} <{name}@example.org>")).generate()?;
        fs::write(dir.join(format!("{name}.key")), tsk.to_vec())?;
        fs::write(dir.join(format!("{name}.cert")), tsk.to_cert().to_vec())?;
        keys.push(tsk);
    }
    let message =
        Encryptor::new([keys[1].to_cert()]).signer(&keys[0]).encrypt_bytes(b"Hello Bob, from Alice")?;
    let result = run(&dir, &message);
    fs::remove_dir_all(&dir)?;
    Ok(result?)
}
