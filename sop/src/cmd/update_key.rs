//! `sixsop update-key`.

use std::time::SystemTime;

use sixpgp::{Cert, KeyUpdate, Password, Tsk};
use sop::ops::UpdateKey;

use crate::cmd::change_key_password::variants;
use crate::errors::to_sop;
use crate::{Certs, Keys, SixSop};

/// Merges updates, adds an ML-KEM-768+X25519 encryption subkey where missing, refreshes
/// self-signatures without modern preferences (see [`KeyUpdate`]). A key that was locked is
/// locked again with the password that opened it.
#[derive(Debug)]
pub(crate) struct UpdateKeyCmd<'s> {
    sop: &'s SixSop,
    passwords: Vec<Password>,
    signing_only: bool,
    no_added_capabilities: bool,
    merge: Vec<Cert>,
}

impl<'s> UpdateKeyCmd<'s> {
    pub(crate) fn new(sop: &'s SixSop) -> Self {
        Self {
            sop,
            passwords: Vec::new(),
            signing_only: false,
            no_added_capabilities: false,
            merge: Vec::new(),
        }
    }
}

/// Unlocks every locked packet, returning the first password that opened one (to lock the
/// key again afterwards). Fails with KEY_IS_PROTECTED if a packet stays locked.
fn unlock_remembering<'p>(key: &mut Tsk, passwords: &'p [Password]) -> sop::Result<Option<&'p Password>> {
    let mut used = None;
    for pw in passwords {
        if !key.is_locked() {
            break;
        }
        if crate::cmd::change_key_password::unlock_one(key, pw).map_err(to_sop)? > 0 && used.is_none() {
            used = Some(pw);
        }
    }
    if key.is_locked() {
        eprintln!("sixsop: key {} is locked and no given password unlocks it", key.fingerprint());
        return Err(sop::errors::Error::KeyIsProtected);
    }
    Ok(used)
}

impl<'s> UpdateKey<'s, SixSop, Certs<'s>, Keys<'s>> for UpdateKeyCmd<'s> {
    fn signing_only(mut self: Box<Self>) -> Box<dyn UpdateKey<'s, SixSop, Certs<'s>, Keys<'s>> + 's> {
        self.signing_only = true;
        self
    }

    fn no_added_capabilities(
        mut self: Box<Self>,
    ) -> Box<dyn UpdateKey<'s, SixSop, Certs<'s>, Keys<'s>> + 's> {
        self.no_added_capabilities = true;
        self
    }

    fn with_key_password(
        mut self: Box<Self>,
        password: sop::Password,
    ) -> sop::Result<Box<dyn UpdateKey<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.passwords.extend(variants(&password));
        Ok(self)
    }

    fn merge_updates(
        mut self: Box<Self>,
        updates: &Certs<'s>,
    ) -> sop::Result<Box<dyn UpdateKey<'s, SixSop, Certs<'s>, Keys<'s>> + 's>> {
        self.merge.extend(updates.certs.iter().cloned());
        Ok(self)
    }

    fn update(self: Box<Self>, keys: &Keys<'s>) -> sop::Result<Keys<'s>> {
        let now = SystemTime::now();
        let mut out = Vec::with_capacity(keys.keys.len());
        for k in &keys.keys {
            let mut key = k.clone();
            let relock = unlock_remembering(&mut key, &self.passwords)?;
            let mut update = KeyUpdate::new()
                .signing_only(self.signing_only)
                .no_added_capabilities(self.no_added_capabilities)
                .revoke_deprecated_keys(self.sop.revoke_deprecated_keys)
                .at(now);
            for c in self.merge.iter().filter(|c| c.fingerprint() == key.fingerprint()) {
                update = update.merge_cert(c.clone());
            }
            // A revoked, expired or unbound primary key cannot be refreshed: PRIMARY_KEY_BAD.
            let mut probe = key.clone();
            for c in self.merge.iter().filter(|c| c.fingerprint() == key.fingerprint()) {
                probe.merge_cert(c.clone()).map_err(to_sop)?;
            }
            if let Err(e) = probe.cert().check_valid_at(now) {
                eprintln!("sixsop: key {}: {e}", key.fingerprint());
                return Err(sop::errors::Error::PrimaryKeyBad);
            }
            key.update(update).map_err(to_sop)?;
            if let Some(pw) = relock {
                key.lock(pw).map_err(to_sop)?;
            }
            out.push(key);
        }
        Ok(Keys::new(self.sop, out))
    }
}
