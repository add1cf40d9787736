//! `sixsop change-key-password`.

use sixpgp::{Password, Tsk};
use sop::ops::ChangeKeyPassword;
use sop::plumbing::PasswordsAreHumanReadable;

use crate::errors::to_sop;
use crate::{Keys, SixSop};

/// Unlocks with every old password, then locks with the new one (or leaves unlocked).
#[derive(Debug)]
pub(crate) struct ChangeKeyPasswordCmd<'s> {
    sop: &'s SixSop,
    old: Vec<Password>,
    new: Option<Password>,
}

impl<'s> ChangeKeyPasswordCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self { sop, old: Vec::new(), new: None }
    }
}

/// [`Tsk::unlock`], where a password that opens nothing is not an error: SOP tries every
/// password it was given, and only a key that stays locked in the end is.
pub(crate) fn unlock_one(key: &mut Tsk, password: &Password) -> Result<usize, sixpgp::Error> {
    match key.unlock(password) {
        Err(sixpgp::Error::BadPassword) => Ok(0),
        other => other,
    }
}

/// Tries each password (as given and with trailing whitespace trimmed) on every locked packet.
/// Fails with KEY_IS_PROTECTED if a packet stays locked.
pub(crate) fn unlock_all(key: &mut Tsk, passwords: &[Password]) -> sop::Result<()> {
    for pw in passwords {
        if !key.is_locked() {
            break;
        }
        let _ = unlock_one(key, pw).map_err(to_sop)?;
    }
    if key.is_locked() {
        eprintln!("sixsop: key {} is locked and no given password unlocks it", key.fingerprint());
        return Err(sop::errors::Error::KeyIsProtected);
    }
    Ok(())
}

/// The password variants SOP asks consumers to try.
pub(crate) fn variants(password: &sop::Password) -> Vec<Password> {
    password.variants().map(Password::from).collect()
}

impl<'s> ChangeKeyPassword<'s, SixSop, Keys<'s>> for ChangeKeyPasswordCmd<'s> {
    fn new_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn ChangeKeyPassword<'s, SixSop, Keys<'s>> + 's>> {
        self.new = Some(Password::from(password.normalized()));
        Ok(self)
    }

    fn old_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn ChangeKeyPassword<'s, SixSop, Keys<'s>> + 's>> {
        self.old.extend(variants(&password));
        Ok(self)
    }

    fn keys(self: Box<Self>, keys: &Keys<'s>) -> sop::Result<Keys<'s>> {
        let mut out = Vec::with_capacity(keys.keys.len());
        for k in &keys.keys {
            let mut key = k.clone();
            unlock_all(&mut key, &self.old)?;
            if let Some(pw) = &self.new {
                key.lock(pw).map_err(to_sop)?;
            }
            out.push(key);
        }
        Ok(Keys::new(self.sop, out))
    }
}
