//! `sixsop change-key-password`.

use sixpgp::{Limits, Password, Tsk};
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

/// Tries each password (as given and with trailing whitespace trimmed) on every locked packet.
/// Fails with KEY_IS_PROTECTED if a packet stays locked.
pub(crate) fn unlock_all(key: &mut Tsk, passwords: &[Password]) -> sop::Result<()> {
    for pw in passwords {
        if !key.is_locked() {
            break;
        }
        let _ = key.unlock(pw, &Limits::default()).map_err(to_sop)?;
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
            // Re-parse to get an owned copy: secret keys are deliberately not `Clone`.
            let mut key = Tsk::from_bytes(&k.to_vec()).map_err(to_sop)?;
            unlock_all(&mut key, &self.old)?;
            if let Some(pw) = &self.new {
                key.lock(pw).map_err(to_sop)?;
            }
            out.push(key);
        }
        Ok(Keys::new(self.sop, out))
    }
}
