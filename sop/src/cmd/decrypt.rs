//! `sixsop decrypt`.

use std::io::{BufReader, BufWriter, Read, Write};
use std::time::SystemTime;

use sixpgp::{Decryptor, Password, SessionKey, SymmetricAlgorithm, Tsk};
use sop::ops::{Decrypt, Ready, Verification};

use crate::cmd::change_key_password::variants;
use crate::cmd::verify::VerifyOptions;
use crate::errors::{Context, to_sop_in};
use crate::io::{SMALL_BUF_LEN, copy_buffered};
use crate::{Certs, Keys, SixSop};

/// Collects keys, passwords and session keys; `ciphertext` then streams the message through a
/// [`Decryptor`].
#[derive(Debug, Default)]
pub(crate) struct DecryptCmd {
    keys: Vec<Tsk>,
    key_passwords: Vec<Password>,
    passwords: Vec<Password>,
    session_keys: Vec<(SessionKey, Option<SymmetricAlgorithm>)>,
    /// `--verify-with` certificates (with their names); none: no verification.
    verify: VerifyOptions,
    not_before: Option<SystemTime>,
    not_after: Option<SystemTime>,
}

fn err(e: sixpgp::Error) -> sop::errors::Error {
    to_sop_in(Context::Decrypt, e)
}

impl<'s> Decrypt<'s, SixSop, Certs<'s>, Keys<'s>> for DecryptCmd {
    fn verify_not_before(
        mut self: Box<Self>,
        t: SystemTime,
    ) -> Box<dyn Decrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's> {
        self.not_before = Some(t);
        self.verify.not_before(t);
        self
    }

    fn verify_not_after(
        mut self: Box<Self>,
        t: SystemTime,
    ) -> Box<dyn Decrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's> {
        self.not_after = Some(t);
        self.verify.not_after(t);
        self
    }

    fn verify_with_certs(
        mut self: Box<Self>,
        certs: &Certs<'s>,
    ) -> sop::Result<Box<dyn Decrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.verify.add(certs);
        Ok(self)
    }

    fn with_session_key(
        mut self: Box<Self>,
        sk: sop::SessionKey,
    ) -> sop::Result<Box<dyn Decrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        let alg = match sk.algorithm() {
            0 => None,
            a => Some(SymmetricAlgorithm::from(a)),
        };
        self.session_keys.push((SessionKey::from_bytes(sk.key()), alg));
        Ok(self)
    }

    fn with_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn Decrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.passwords.extend(variants(&password));
        Ok(self)
    }

    fn with_keys(
        mut self: Box<Self>,
        keys: &Keys<'s>,
    ) -> sop::Result<Box<dyn Decrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        for k in &keys.keys {
            self.keys.push(k.clone());
        }
        Ok(self)
    }

    fn with_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn Decrypt<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.key_passwords.extend(variants(&password));
        Ok(self)
    }

    fn ciphertext<'d>(
        self: Box<Self>,
        ciphertext: &'d mut (dyn Read + Send + Sync),
    ) -> sop::Result<Box<dyn Ready<(Option<sop::SessionKey>, Vec<Verification>)> + 'd>>
    where
        's: 'd,
    {
        if self.keys.is_empty() && self.passwords.is_empty() && self.session_keys.is_empty() {
            eprintln!("sixsop: decrypt needs KEYS, --with-password or --with-session-key");
            return Err(sop::errors::Error::MissingArg);
        }
        Ok(Box::new(DecryptReady { cmd: *self, ciphertext }))
    }
}

struct DecryptReady<'d> {
    cmd: DecryptCmd,
    ciphertext: &'d mut (dyn Read + Send + Sync),
}

impl Ready<(Option<sop::SessionKey>, Vec<Verification>)> for DecryptReady<'_> {
    fn to_writer(
        self: Box<Self>,
        sink: &mut (dyn Write + Send + Sync),
    ) -> sop::Result<(Option<sop::SessionKey>, Vec<Verification>)> {
        let DecryptReady { cmd, ciphertext } = *self;
        let DecryptCmd { mut keys, key_passwords, passwords, session_keys, verify, not_before, not_after } =
            cmd;
        // Unlock what the key passwords open; a key that stays locked is reported (exit 67)
        // only if it was the one needed.
        for key in &mut keys {
            for pw in &key_passwords {
                if !key.is_locked() {
                    break;
                }
                let _ = crate::cmd::change_key_password::unlock_one(key, pw).map_err(err)?;
            }
        }
        let mut d = Decryptor::new(keys);
        for pw in passwords {
            d = d.password(pw);
        }
        for (key, alg) in session_keys {
            d = d.session_key(key, alg);
        }
        let verifying = !verify.certs.is_empty();
        if verifying {
            d = d.verify_with(&verify.certs);
            if let Some(t) = not_before {
                d = d.not_before(t);
            }
            if let Some(t) = not_after {
                d = d.not_after(t);
            }
        }
        let mut r = d.reader(BufReader::with_capacity(SMALL_BUF_LEN, ciphertext)).map_err(err)?;
        let mut out = BufWriter::with_capacity(SMALL_BUF_LEN, sink);
        copy_buffered(&mut r, &mut out).map_err(|e| err(sixpgp::Error::from_io(e)))?;
        out.flush()?;
        let summary = r.finish().map_err(err)?;
        let session_key = sop::SessionKey::new(u8::from(summary.sym), summary.session_key.as_bytes())?;
        // VERIFICATIONS lists the good signatures only; none is not an error for `decrypt`
        // (the caller sees an empty --verifications-out).
        let verifications = if verifying {
            match verify.to_sop(&summary.verifications) {
                Ok(v) => v,
                Err(sop::errors::Error::NoSignature) => Vec::new(),
                Err(e) => return Err(e),
            }
        } else {
            Vec::new()
        };
        Ok((Some(session_key), verifications))
    }
}
