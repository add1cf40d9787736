//! `sixsop sign`, and the helpers the signing subcommands share: unlocking keys, copying input
//! with a UTF-8 check for `--as=text`.

use std::io::{Read, Write};

use sixpgp::{Error, Password, SignatureMode, Signer, Tsk};
use sop::ops::{Micalg, Sign, SignAs};
use sop::plumbing::PasswordsAreHumanReadable;

use crate::errors::to_sop;
use crate::{Keys, Sigs, SixSop};

/// Collects keys and passwords, then makes detached signatures.
#[derive(Debug)]
pub(crate) struct SignCmd<'s> {
    sop: &'s SixSop,
    mode: SignatureMode,
    signers: Signers,
}

/// Signing keys (copies, so that they can be unlocked) and the passwords to try on them.
#[derive(Debug, Default)]
pub(crate) struct Signers {
    keys: Vec<Tsk>,
    passwords: Vec<Password>,
}

impl Signers {
    /// Adds copies of `keys`.
    pub(crate) fn add(&mut self, keys: &Keys<'_>) -> sop::Result<()> {
        for k in &keys.keys {
            self.keys.push(k.clone());
        }
        Ok(())
    }

    pub(crate) fn password(&mut self, password: sop::Password) {
        self.passwords.push(Password::from(password.normalized()));
    }

    /// The keys, each unlocked with every password that opens a part of it.
    pub(crate) fn unlocked(mut self) -> sop::Result<Vec<Tsk>> {
        if self.keys.is_empty() {
            return Err(sop::errors::Error::MissingArg);
        }
        for k in &mut self.keys {
            for pw in &self.passwords {
                if k.is_locked() {
                    let _ = crate::cmd::change_key_password::unlock_one(k, pw).map_err(to_sop)?;
                }
            }
        }
        Ok(self.keys)
    }
}

impl<'s> SignCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self { sop, mode: SignatureMode::Binary, signers: Signers::default() }
    }
}

/// Copies `src` to `dst`, checking UTF-8 if `text` (EXPECTED_TEXT, 53, if it is not).
pub(crate) fn copy(src: &mut (dyn Read + Send + Sync), dst: &mut dyn Write, text: bool) -> sop::Result<()> {
    crate::io::copy(src, dst, text).map_err(|e| {
        if crate::io::is_not_text(&e) {
            eprintln!("sixsop: --as=text input is not UTF-8");
            sop::errors::Error::ExpectedText
        } else {
            to_sop(Error::from_io(e))
        }
    })
}

pub(crate) fn mode_of(mode: SignAs) -> SignatureMode {
    match mode {
        SignAs::Binary => SignatureMode::Binary,
        SignAs::Text => SignatureMode::Text,
    }
}

impl<'s> Sign<'s, SixSop, Keys<'s>, Sigs<'s>> for SignCmd<'s> {
    fn mode(mut self: Box<Self>, mode: SignAs) -> Box<dyn Sign<'s, SixSop, Keys<'s>, Sigs<'s>> + 's> {
        self.mode = mode_of(mode);
        self
    }

    fn keys(
        mut self: Box<Self>,
        keys: &Keys<'s>,
    ) -> sop::Result<Box<dyn Sign<'s, SixSop, Keys<'s>, Sigs<'s>> + 's>> {
        self.signers.add(keys)?;
        Ok(self)
    }

    fn with_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn Sign<'s, SixSop, Keys<'s>, Sigs<'s>> + 's>> {
        self.signers.password(password);
        Ok(self)
    }

    fn data(self: Box<Self>, data: &mut (dyn Read + Send + Sync)) -> sop::Result<(Micalg, Sigs<'s>)> {
        let keys = self.signers.unlocked()?;
        let mut signer = Signer::new().mode(self.mode);
        for k in &keys {
            signer = signer.key(k);
        }
        let mut w = signer.detached().map_err(to_sop)?;
        let hashes = w.hash_algorithms();
        copy(data, &mut w, self.mode == SignatureMode::Text)?;
        let bytes = w.finish().map_err(to_sop)?;
        // One micalg when every signature uses the same hash; else none can be given.
        let micalg = match hashes.first() {
            Some(&h) if hashes.iter().all(|&x| x == h) => Micalg::from(u8::from(h)),
            _ => Micalg::Unknown(String::new()),
        };
        Ok((micalg, Sigs::new(self.sop, bytes)))
    }
}
