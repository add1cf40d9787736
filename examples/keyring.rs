//! Decrypts and verifies against a directory of keys and certificates that the library
//! consults as the message names them (`KeyStore`): only the keys it asks for are parsed.
//!
//! `cargo run --example keyring -- DIR MESSAGE` decrypts MESSAGE with the secret keys (`*.key`)
//! and certificates (`*.cert`, `*.asc`) in DIR, and prints the plaintext and the verdicts with
//! the name of each signer. A locked key is opened with the password in `<fingerprint>.pass`
//! (the fingerprint of the key the message is encrypted to). A directory that cannot be read
//! fails the decryption with the I/O error (`Error::KeyStore`), not "no key". Without arguments
//! it builds such a directory in a temporary folder and runs on it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sixpgp::{
    Cert, Decryptor, Encryptor, Fingerprint, KeyBuilder, KeyStore, Password, Profile, Recipient, Tsk,
};

/// A directory of keys: files are read only when a message names one of their keys.
struct Directory(PathBuf);

impl Directory {
    /// Every file of the directory with one of `extensions`.
    fn files(&self, extensions: &[&str]) -> io::Result<Vec<PathBuf>> {
        let mut files = Vec::new();
        for entry in fs::read_dir(&self.0)? {
            let path = entry?.path();
            if path.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)) {
                files.push(path);
            }
        }
        Ok(files)
    }
}

impl KeyStore for Directory {
    /// A directory that cannot be listed fails the operation: it is not "no key".
    type Error = io::Error;

    fn secret_keys(&self, recipients: &[Recipient]) -> io::Result<Vec<Arc<Tsk>>> {
        let wanted = |tsk: &Tsk| {
            recipients.contains(&Recipient::Anonymous) || recipients.iter().any(|r| r.matches(tsk.cert()))
        };
        let mut found = Vec::new();
        for path in self.files(&["key"])? {
            // A file that is not a key is skipped; one that cannot be read is an error.
            if let Ok(tsk) = Tsk::from_bytes(&fs::read(path)?)
                && wanted(&tsk)
            {
                found.push(Arc::new(tsk));
            }
        }
        eprintln!("keyring: {} recipient(s) named, {} secret key(s) found", recipients.len(), found.len());
        Ok(found)
    }

    /// Every certificate in the directory is trusted: whoever can write to it decides whose
    /// signatures count.
    fn certs(&self, issuers: &[Fingerprint]) -> io::Result<Vec<Arc<Cert>>> {
        let mut found = Vec::new();
        for path in self.files(&["cert", "asc"])? {
            if let Ok(cert) = Cert::from_bytes(&fs::read(path)?)
                && issuers.iter().any(|i| cert.has_key(i))
            {
                found.push(Arc::new(cert));
            }
        }
        eprintln!("keyring: {} signer(s) named, {} certificate(s) found", issuers.len(), found.len());
        Ok(found)
    }

    /// Locked keys are opened with the password in `<fingerprint>.pass`, if there is one.
    fn password(&self, key: &Fingerprint) -> io::Result<Option<Password>> {
        match fs::read(self.0.join(format!("{key}.pass"))) {
            Ok(password) => Ok(Some(Password::from(password))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

fn run(dir: &Path, message: &[u8]) -> sixpgp::Result<()> {
    let decryptor = Decryptor::default().key_store(Directory(dir.to_path_buf()));
    let (plaintext, summary) = decryptor.decrypt_bytes(message)?;
    println!("{}", String::from_utf8_lossy(&plaintext));
    for v in &summary.verifications {
        let signer = v.signer().map_or("an unknown key".into(), |c| {
            let name = c.primary_user_id(std::time::SystemTime::now()).map(|u| u.into_owned());
            format!("{} ({})", name.unwrap_or_default(), c.fingerprint())
        });
        println!("signature by {signer}: {}", v.status());
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
        if name == "bob" {
            // Bob's key is stored locked; the store knows the password of his encryption subkey.
            let password = "bob's password";
            let subkey = tsk.cert().keys().find(|k| !k.is_primary()).map(|k| k.fingerprint());
            fs::write(dir.join(format!("{}.pass", subkey.ok_or("no subkey")?)), password)?;
            let mut locked = tsk.clone();
            locked.lock(&Password::from(password))?;
            fs::write(dir.join(format!("{name}.key")), locked.to_vec())?;
        } else {
            fs::write(dir.join(format!("{name}.key")), tsk.to_vec())?;
        }
        fs::write(dir.join(format!("{name}.cert")), tsk.to_cert().to_vec())?;
        keys.push(tsk);
    }
    let message =
        Encryptor::new([keys[1].to_cert()]).signer(&keys[0]).encrypt_bytes(b"Hello Bob, from Alice")?;
    let result = run(&dir, &message);
    fs::remove_dir_all(&dir)?;
    Ok(result?)
}
